#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "elf/devroot.h"
#include "elf/elfinfo.h"
#include "elf/glibc.h"

#define GLIBC_PREFIX "GLIBC_"

/* The first section of the given type, its header and data. */
static Elf_Scn *find_section(Elf *elf, GElf_Word type, GElf_Shdr *sh, Elf_Data **data)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, sh) && sh->sh_type == type) {
			*data = elf_getdata(scn, NULL);
			return *data ? scn : NULL;
		}
	}
	return NULL;
}

static void needs_push(struct glibc_version_needs *needs, const char *file, const char *version)
{
	XGROW(needs->v, needs->n + 1, needs->cap);
	needs->v[needs->n].file = xstrdup(file);
	needs->v[needs->n].version = xstrdup(version);
	needs->n++;
}

/* The version needs of an ELF file libelf has open; name for messages. */
static int needs_from_elf(Elf *elf, const char *name, struct glibc_version_needs *out,
			  struct xcc_error *err)
{
	GElf_Shdr sh;
	Elf_Data *data;
	size_t off = 0;

	memset(out, 0, sizeof *out);
	if (!find_section(elf, SHT_GNU_verneed, &sh, &data))
		return 0;
	/* sh_info counts the entries; the vn_next chain is checked against it so
	 * that a corrupt file cannot make the walk loop forever. */
	for (GElf_Word i = 0; i < sh.sh_info; i++) {
		GElf_Verneed vn;
		size_t aux_off;
		const char *file;

		if (!gelf_getverneed(data, (int)off, &vn))
			goto bad;
		file = elf_strptr(elf, sh.sh_link, vn.vn_file);
		aux_off = off + vn.vn_aux;
		for (GElf_Half k = 0; k < vn.vn_cnt; k++) {
			GElf_Vernaux va;
			const char *vname;

			if (!gelf_getvernaux(data, (int)aux_off, &va))
				goto bad;
			vname = elf_strptr(elf, sh.sh_link, va.vna_name);
			if (!file || !vname)
				goto bad;
			needs_push(out, file, vname);
			if (!va.vna_next)
				break;
			aux_off += va.vna_next;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
	return 0;
bad:
	glibc_version_needs_free(out);
	return xcc_fail(err, XCC_EFAIL, "%s: damaged version needs section (%s)", name,
			elf_errmsg(-1));
}

int glibc_version_needs_read(const char *path, struct glibc_version_needs *out, struct xcc_error *err)
{
	struct elfinfo_file f;
	int rc;

	memset(out, 0, sizeof *out);
	if (elfinfo_open(path, &f, err))
		return -1;
	rc = needs_from_elf(f.elf, path, out, err);
	elfinfo_close(&f);
	return rc;
}

int glibc_version_needs_read_memory(void *buf, size_t len, const char *name,
				    struct glibc_version_needs *out, struct xcc_error *err)
{
	Elf *elf;
	int rc;

	memset(out, 0, sizeof *out);
	if (!elfinfo_is_elf(buf, len))
		return xcc_fail(err, XCC_EFAIL, "%s: not an ELF file", name);
	if (elfinfo_begin_memory(buf, len, name, &elf, err))
		return -1;
	rc = needs_from_elf(elf, name, out, err);
	elf_end(elf);
	return rc;
}

void glibc_version_needs_free(struct glibc_version_needs *needs)
{
	for (size_t i = 0; i < needs->n; i++) {
		free(needs->v[i].file);
		free(needs->v[i].version);
	}
	free(needs->v);
	memset(needs, 0, sizeof *needs);
}

int glibc_version_defs_read(const char *path, struct strvec *out, struct xcc_error *err)
{
	struct elfinfo_file f;
	GElf_Shdr sh;
	Elf_Data *data;
	size_t off = 0;

	if (elfinfo_open(path, &f, err))
		return -1;
	if (!find_section(f.elf, SHT_GNU_verdef, &sh, &data)) {
		elfinfo_close(&f);
		return 0;
	}
	for (GElf_Word i = 0; i < sh.sh_info; i++) {
		GElf_Verdef vd;
		GElf_Verdaux va;
		const char *name;

		if (!gelf_getverdef(data, (int)off, &vd) ||
		    !gelf_getverdaux(data, (int)(off + vd.vd_aux), &va) ||
		    !(name = elf_strptr(f.elf, sh.sh_link, va.vda_name))) {
			elfinfo_close(&f);
			return xcc_fail(err, XCC_EFAIL, "%s: damaged version definitions (%s)",
					path, elf_errmsg(-1));
		}
		/* Later auxiliary entries name the parents of the version, and are
		 * defined by their own entries. */
		if (!(vd.vd_flags & VER_FLG_BASE))
			strvec_push(out, name);
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
	elfinfo_close(&f);
	return 0;
}

/* Parse the numbers after the first '_': "GLIBC_2.34.1" -> {2, 34, 1}. */
static int version_numbers(const char *s, long num[4])
{
	const char *p = strchr(s, '_');
	int n = 0;

	memset(num, 0, 4 * sizeof *num);
	if (!p || !isdigit((unsigned char)p[1]))
		return 0;
	p++;
	while (n < 4) {
		char *end;

		num[n++] = strtol(p, &end, 10);
		if (*end != '.' || !isdigit((unsigned char)end[1]))
			break;
		p = end + 1;
	}
	return n;
}

int glibc_version_cmp(const char *a, const char *b)
{
	long na[4], nb[4];
	int ha = version_numbers(a, na) > 0, hb = version_numbers(b, nb) > 0;

	if (!ha || !hb)
		return ha == hb ? strcmp(a, b) : (ha ? -1 : 1);
	for (int i = 0; i < 4; i++)
		if (na[i] != nb[i])
			return na[i] < nb[i] ? -1 : 1;
	return 0;
}

static int is_glibc_version(const char *s)
{
	long n[4];

	return strncmp(s, GLIBC_PREFIX, strlen(GLIBC_PREFIX)) == 0 && version_numbers(s, n) > 0;
}

char *glibc_find_libc(const char *rootfs, const char *triple)
{
	return glibc_find_in_rootfs(rootfs, triple, "libc.so.6");
}

char *glibc_find_in_rootfs(const char *rootfs, const char *triple, const char *name)
{
	struct xcc_error err = { 0 };
	char *found = NULL;

	if (glibc_find_in_root(rootfs, triple, name, &found, &err))
		xcc_error_clear(&err);
	return found;
}

int glibc_find_in_root(const char *rootfs, const char *triple, const char *name, char **found,
		       struct xcc_error *err)
{
	char *dirs[6];
	size_t n = 0;
	int rc = 0, dangling = 0;

	*found = NULL;
	if (triple) {
		dirs[n++] = xasprintf("lib/%s", triple);
		dirs[n++] = xasprintf("usr/lib/%s", triple);
	}
	dirs[n++] = xstrdup("lib64");
	dirs[n++] = xstrdup("lib");
	dirs[n++] = xstrdup("usr/lib64");
	dirs[n++] = xstrdup("usr/lib");
	for (size_t i = 0; i < n; i++) {
		char *rel = xasprintf("%s/%s", dirs[i], name), *host = NULL;
		struct xcc_error why = { 0 };
		struct stat st;
		int got = *found || rc ? DEVROOT_ABSENT : devroot_lookup(rootfs, rel, &host, &why);

		/* Links that loop where the device keeps its libraries: a
		 * broken root, refused. A link to nothing the device's loader
		 * passes by, so does this; said when no other dir has the file. */
		if (got < 0) {
			*err = why;
			rc = -1;
		} else if (got == DEVROOT_DANGLING && !dangling++)
			*err = why;
		else if (got == 0 && stat(host, &st) == 0 && S_ISREG(st.st_mode))
			*found = host;
		if (*found == host)
			host = NULL;
		free(host);
		free(rel);
		free(dirs[i]);
	}
	if (!rc && !*found && dangling)
		rc = -1;
	return rc;
}

/* Keep sv sorted by version, without duplicates. */
static void sorted_insert_unique(struct strvec *sv, const char *s)
{
	size_t i = 0;
	char *added;

	while (i < sv->n && glibc_version_cmp(sv->v[i], s) < 0)
		i++;
	if (i < sv->n && strcmp(sv->v[i], s) == 0)
		return;
	strvec_push(sv, s);
	added = sv->v[sv->n - 1];
	memmove(sv->v + i + 1, sv->v + i, (sv->n - 1 - i) * sizeof *sv->v);
	sv->v[i] = added;
}

int glibc_check(const char *program, const char *libc, struct glibc_report *r,
		struct xcc_error *err)
{
	struct glibc_version_needs needs;
	struct strvec defs = STRVEC_INIT;
	const char *need_max = NULL, *have_max = NULL;

	memset(r, 0, sizeof *r);
	if (glibc_version_needs_read(program, &needs, err))
		return -1;
	if (glibc_version_defs_read(libc, &defs, err)) {
		glibc_version_needs_free(&needs);
		return -1;
	}
	for (size_t i = 0; i < defs.n; i++)
		if (is_glibc_version(defs.v[i]) &&
		    (!have_max || glibc_version_cmp(defs.v[i], have_max) > 0))
			have_max = defs.v[i];
	if (!have_max) {
		glibc_version_needs_free(&needs);
		strvec_free(&defs);
		return xcc_fail(err, XCC_EFAIL,
				"%s defines no GLIBC_ versions: it is not a GNU C library", libc);
	}
	for (size_t i = 0; i < needs.n; i++) {
		const char *v = needs.v[i].version;

		if (!is_glibc_version(v))
			continue;
		if (!need_max || glibc_version_cmp(v, need_max) > 0)
			need_max = v;
		if (glibc_version_cmp(v, have_max) > 0)
			sorted_insert_unique(&r->missing, v);
	}
	r->needed_max = need_max ? xstrdup(need_max) : NULL;
	r->provided_max = xstrdup(have_max);
	glibc_version_needs_free(&needs);
	strvec_free(&defs);
	return 0;
}

void glibc_report_free(struct glibc_report *r)
{
	free(r->needed_max);
	free(r->provided_max);
	strvec_free(&r->missing);
	memset(r, 0, sizeof *r);
}

char *glibc_version_defs_max(const char *path, const char *prefix, struct xcc_error *err)
{
	struct strvec defs = STRVEC_INIT;
	const char *best = NULL;
	char *out;
	size_t plen = strlen(prefix);

	if (glibc_version_defs_read(path, &defs, err))
		return NULL;
	for (size_t i = 0; i < defs.n; i++) {
		long n[4];

		if (strncmp(defs.v[i], prefix, plen) != 0 || version_numbers(defs.v[i], n) <= 0)
			continue;
		if (!best || glibc_version_cmp(defs.v[i], best) > 0)
			best = defs.v[i];
	}
	out = best ? xstrdup(best) : NULL;
	if (!out)
		xcc_fail(err, XCC_EFAIL, "%s defines no %s version", path, prefix);
	strvec_free(&defs);
	return out;
}

char *glibc_version_defs_newest(const char *lib, const char *prefix)
{
	struct xcc_error err = { 0 };
	char *name = lib ? glibc_version_defs_max(lib, prefix, &err) : NULL, *num;

	if (!name) {
		xcc_error_clear(&err);
		return NULL;
	}
	num = xstrdup(name + strlen(prefix));
	free(name);
	return num;
}

char *glibc_toolchain_max(const char *triple)
{
	char *libc = xasprintf("/usr/%s/lib/libc.so.6", triple), *max = NULL;
	struct xcc_error err = { 0 };

	if (access(libc, R_OK) == 0)
		max = glibc_version_defs_max(libc, "GLIBC_", &err);
	free(libc);
	return max;
}

char *glibc_cxx_runtime_fix(const char *triple, const char *floor_glibc)
{
	static const char flags[] = "-Xcompiler -static-libstdc++ -Xcompiler -static-libgcc";
	char *tc = triple ? glibc_toolchain_max(triple) : NULL, *fix;

	if (tc && floor_glibc && glibc_version_cmp(tc, floor_glibc) <= 0)
		fix = xasprintf("link the C++ runtime into the program (%s: the cross toolchain's "
				"glibc, up to %s, is no newer than the device's, up to %s, so this "
				"adds no need the device lacks) or use a cross g++ no newer than the "
				"device's", flags, tc, floor_glibc);
	else if (tc && floor_glibc)
		fix = xasprintf("use a cross g++ built for the device's glibc and libstdc++ (that "
				"of the device's own distribution release, e.g. Ubuntu 20.04's for "
				"JetPack 5), with -ccbin; -static-libstdc++ does not help: this "
				"toolchain's static C++ runtime was built against its own glibc (up to "
				"%s), newer than the device's (up to %s), so it adds GLIBC_ needs the "
				"device lacks, and against a root of that glibc it does not link",
				tc, floor_glibc);
	else
		fix = xasprintf("use a cross g++ no newer than the device's; %s helps only when "
				"the cross toolchain's own glibc is no newer than the device's%s%s "
				"(%s)", flags, floor_glibc ? ", up to " : "",
				floor_glibc ? floor_glibc : "",
				tc ? "the device's glibc is unknown"
				   : "the toolchain's C library was not found to compare");
	free(tc);
	return fix;
}

void runtime_floor_check_needs(const struct glibc_version_needs *needs,
				const struct runtime_floor *floor, struct strvec *above)
{
	/* Longest prefix first: GLIBC_ is a prefix of neither GLIBCXX_ nor
	 * the others, but is tested after GLIBCXX_ to stay obviously right. */
	const struct {
		const char *prefix, *limit;
	} libs[] = {
		{ "GLIBCXX_", floor->glibcxx },
		{ "CXXABI_", floor->cxxabi },
		{ "GLIBC_", floor->glibc },
		{ "GCC_", floor->gcc_s },
	};

	for (size_t i = 0; i < needs->n; i++) {
		const char *v = needs->v[i].version;
		long num[4];

		if (version_numbers(v, num) == 0)
			continue;
		for (size_t k = 0; k < sizeof libs / sizeof libs[0]; k++) {
			size_t plen = strlen(libs[k].prefix);
			char limit[64], *line;

			if (strncmp(v, libs[k].prefix, plen) != 0 || !isdigit((unsigned char)v[plen]))
				continue;
			if (libs[k].limit) {
				snprintf(limit, sizeof limit, "%s%s", libs[k].prefix, libs[k].limit);
				if (glibc_version_cmp(v, limit) > 0) {
					line = xasprintf("%s (%s)", v, needs->v[i].file);
					sorted_insert_unique(above, line);
					free(line);
				}
			}
			break;
		}
	}
}

int runtime_floor_check(const char *file, const struct runtime_floor *floor, struct strvec *above,
			struct xcc_error *err)
{
	struct glibc_version_needs needs;

	if (glibc_version_needs_read(file, &needs, err))
		return -1;
	runtime_floor_check_needs(&needs, floor, above);
	glibc_version_needs_free(&needs);
	return 0;
}

int glibc_check_rootfs(const char *rootfs, const char *triple, char **libc,
		       struct xcc_error *err)
{
	*libc = NULL;
	if (!file_is_dir(rootfs))
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s is not a directory: pass the "
				"device's root filesystem (a copy or a mount of it)", rootfs);
	/* Links that loop or name nothing inside the root: refused, named. */
	if (glibc_find_in_root(rootfs, triple, "libc.so.6", libc, err))
		return -1;
	if (!*libc)
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s has no libc.so.6 in lib/%s, "
				"usr/lib/%s, lib or usr/lib: is it the device's root filesystem?",
				rootfs, triple, triple);
	return 0;
}
