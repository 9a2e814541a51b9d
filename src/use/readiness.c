#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "elf/autopatch.h"
#include "elf/elfinfo.h"
#include "elf/fatbin.h"
#include "elf/glibc.h"
#include "pkg/package.h"
#include "pkg/xz.h"
#include "use/readiness.h"

/*
 * Two passes: every ELF file of every input is read once (a package's
 * members from the archive stream into memory, one at a time), keeping its
 * device code verdicts, version needs and DT_NEEDED; then each DT_NEEDED
 * is resolved against all the files read, the board's root, the sysroot
 * and the tables, and each file gets its verdict.
 */

/* One ELF file as read, before the verdicts. */
struct ready_input {
	/* r->files grows while inputs are read: f is set from idx after. */
	size_t idx;
	struct ready_file *f;
	struct fatbin_file fb;
	struct glibc_version_needs needs;
};

static struct ready_file *file_new(struct ready_report *r, const char *path)
{
	struct ready_file *f;

	XGROW(r->files, r->n + 1, r->cap);
	f = &r->files[r->n++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	f->needs_max = (struct strvec)STRVEC_INIT;
	f->above = (struct strvec)STRVEC_INIT;
	f->problems = (struct strvec)STRVEC_INIT;
	f->raw_needed = (struct strvec)STRVEC_INIT;
	return f;
}

static void worsen(struct ready_file *f, enum ready_status s)
{
	if (s > f->status)
		f->status = s;
}

static void problem(struct ready_file *f, enum ready_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void problem(struct ready_file *f, enum ready_status s, const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	line = xvasprintf(fmt, ap);
	va_end(ap);
	strvec_push(&f->problems, line);
	free(line);
	worsen(f, s);
}

/* "12.4" out of a Debian CUDA package's version "12.4.5.8~12.4.1-2". */
static int deb_cuda_version(const char *version, struct cuda_version *v)
{
	const char *t = version ? strchr(version, '~') : NULL;
	int major, minor;

	if (!t || sscanf(t + 1, "%d.%d", &major, &minor) != 2)
		return -1;
	v->major = major;
	v->minor = minor;
	v->patch = -1;
	return 0;
}

/* What reading gives: the ELF facts, the fatbin, the needs. */
static void take_elf(struct ready_file *f, struct elfinfo *info)
{
	f->e_machine = info->machine;
	f->machine = elfinfo_machine_name(info->machine, info->elfclass);
	f->soname = info->soname ? xstrdup(info->soname) : NULL;
	for (size_t i = 0; i < info->needed.n; i++)
		strvec_push(&f->raw_needed, info->needed.v[i]);
	f->base = xstrdup(strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path);
}

static int checked_type(const struct elfinfo *info)
{
	return (info->type == ET_DYN || info->type == ET_EXEC) && !info->is_debug;
}

/* An ELF file on disk. A damaged one is a failed file, not a failed run. */
static void read_disk_elf(struct ready_report *r, struct ready_input **ins, size_t *n_ins,
			  size_t *cap_ins, const char *path)
{
	struct fatbin_options all = { 0 };
	struct xcc_error err = { 0 };
	struct elfinfo info;
	struct ready_input *in;
	struct ready_file *f;

	if (elfinfo_read(path, &info, &err)) {
		f = file_new(r, path);
		problem(f, READY_FAIL, "cannot read it: %s", err.msg);
		return;
	}
	if (!checked_type(&info)) {
		elfinfo_free(&info);
		return;
	}
	f = file_new(r, path);
	take_elf(f, &info);
	elfinfo_free(&info);
	XGROW(*ins, *n_ins + 1, *cap_ins);
	in = &(*ins)[(*n_ins)++];
	memset(in, 0, sizeof *in);
	in->idx = (size_t)(f - r->files);
	if (fatbin_read_file(path, &all, &in->fb, &err) ||
	    glibc_version_needs_read(path, &in->needs, &err))
		problem(f, READY_FAIL, "cannot read it: %s", err.msg);
}

/* The same for a member read into memory (buf is taken). */
static void read_memory_elf(struct ready_report *r, struct ready_input **ins, size_t *n_ins,
			    size_t *cap_ins, const char *name, char *buf, size_t len,
			    const char *pkg_version)
{
	struct xcc_error err = { 0 };
	struct elfinfo info;
	struct ready_input *in;
	struct ready_file *f;
	struct cuda_version v;

	if (elfinfo_read_memory(buf, len, &info, &err)) {
		f = file_new(r, name);
		problem(f, READY_FAIL, "cannot read it: %s", err.msg);
		free(buf);
		return;
	}
	if (!checked_type(&info)) {
		elfinfo_free(&info);
		free(buf);
		return;
	}
	f = file_new(r, name);
	take_elf(f, &info);
	elfinfo_free(&info);
	if (pkg_version && deb_cuda_version(pkg_version, &v) == 0) {
		f->cuda_how = READY_CUDA_EXACT;
		f->cuda = v;
		f->cuda_from = xasprintf("package version %s", pkg_version);
	}
	XGROW(*ins, *n_ins + 1, *cap_ins);
	in = &(*ins)[(*n_ins)++];
	memset(in, 0, sizeof *in);
	in->idx = (size_t)(f - r->files);
	if (fatbin_read_memory(buf, len, name, NULL, &in->fb, &err) ||
	    glibc_version_needs_read_memory(buf, len, name, &in->needs, &err))
		problem(f, READY_FAIL, "cannot read it: %s", err.msg);
	free(buf);
}

struct walk {
	struct ready_report *r;
	struct ready_input **ins;
	size_t *n_ins, *cap_ins;
};

/* A member's bytes when it is an ELF file (the magic read first, so that
 * the rest of the package streams past); NULL otherwise. The buffer grows
 * with what is read: the header's size may be absent (a zip's data
 * descriptor) or wrong, and is no allocation to trust. */
static char *read_member(struct archive *a, struct archive_entry *e, size_t *len,
			 struct xcc_error *err)
{
	size_t cap = 1 << 16, got = 0;
	char *buf;
	la_ssize_t n;

	if (archive_entry_filetype(e) != AE_IFREG)
		return NULL;
	buf = xmalloc(cap);
	n = archive_read_data(a, buf, 4);
	if (n != 4 || !elfinfo_is_elf(buf, 4)) {
		free(buf);
		if (n < 0)
			package_archive_fail(err, a, package_entry_path(e));
		return NULL;
	}
	for (got = 4;; got += (size_t)n) {
		if (cap - got < (1 << 16))
			XGROW(buf, got + (1 << 16), cap);
		n = archive_read_data(a, buf + got, cap - got);
		if (n == 0)
			break;
		if (n < 0) {
			free(buf);
			package_archive_fail(err, a, package_entry_path(e));
			return NULL;
		}
	}
	*len = got;
	return buf;
}

/* Every ELF member of an archive stream (a .deb's data.tar, a wheel);
 * first: a header already read, or NULL. */
static int read_members(struct walk *w, struct archive *a, struct archive_entry *first,
			const char *pkg, const char *pkg_version, struct xcc_error *err)
{
	struct archive_entry *e = first;
	int r = ARCHIVE_OK;

	for (;;) {
		char member[4096], *name, *buf;
		size_t len = 0;

		if (!e && (r = archive_read_next_header(a, &e)) == ARCHIVE_EOF)
			return 0;
		if (!e || !package_header_ok(r))
			return package_archive_fail(err, a, pkg);
		if (package_normalize_member(package_entry_path(e), member, sizeof member)) {
			e = NULL;
			continue;
		}
		buf = read_member(a, e, &len, err);
		if (!buf && err->status)
			return -1;
		if (buf) {
			name = xasprintf("%s:%s", pkg, member);
			read_memory_elf(w->r, w->ins, w->n_ins, w->cap_ins, name, buf, len,
					pkg_version);
			free(name);
		}
		e = NULL;
	}
}

static int read_package(struct walk *w, const char *path, struct xcc_error *err)
{
	struct package_info info = { 0 };
	struct archive *a = NULL, *inner = NULL;
	struct xz_source *x = NULL;
	struct archive_entry *first;
	enum package_kind kind;
	const char *name;
	int rc = -1;

	if (package_identify(path, &info, err) || package_open(path, &a, &first, &kind, err))
		goto out;
	if (kind == PACKAGE_WHEEL) {
		rc = read_members(w, a, first, path, NULL, err);
		goto out;
	}
	if (kind != PACKAGE_DEB) {
		rc = xcc_fail(err, XCC_EUSAGE, "%s is a redist archive: check the files it "
			      "unpacks to (a directory), or a .deb or a wheel", path);
		goto out;
	}
	if (package_find_deb_member(a, path, "data.tar", &name, NULL, err))
		goto out;
#ifdef HAVE_LIBLZMA_MT
	/* As extraction does: the xz blocks decoded on threads of their own. */
	if (strcmp(name, "data.tar.xz") == 0 && xz_threads() > 1) {
		char *what = xasprintf("%s: member %s", path, name);

		inner = xz_open_tar(a, XZ_MEMLIMIT_DEB, what, &x, err);
		free(what);
	}
#endif
	if (!inner && !err->status)
		inner = package_open_member(a, path, name, err);
	if (inner)
		rc = read_members(w, inner, NULL, path, info.version, err);
out:
	if (inner)
		archive_read_free(inner);
	if (x)
		xz_source_free(x);
	if (a)
		archive_read_free(a);
	package_info_free(&info);
	return rc;
}

static int file_magic(const char *path, unsigned char *m, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = read(fd, m, n);
	close(fd);
	return got == (ssize_t)n ? 0 : -1;
}

static void walk_dir(struct walk *w, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strvec names = STRVEC_INIT;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			strvec_push(&names, de->d_name);
	closedir(d);
	strvec_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		char *p = xasprintf("%s/%s", dir, names.v[i]);
		unsigned char m[4];
		struct stat st;

		/* Links are other names of files read under their own. */
		int got = lstat(p, &st) == 0;

		if (got && S_ISDIR(st.st_mode))
			walk_dir(w, p);
		else if (got && S_ISREG(st.st_mode) && file_magic(p, m, 4) == 0 && elfinfo_is_elf(m, 4))
			read_disk_elf(w->r, w->ins, w->n_ins, w->cap_ins, p);
		free(p);
	}
	strvec_free(&names);
}

static int read_input(struct walk *w, const char *path, struct xcc_error *err)
{
	unsigned char m[8] = { 0 };
	struct stat st;
	size_t before = w->r->n;

	if (stat(path, &st))
		return xcc_fail(err, XCC_EUSAGE, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		walk_dir(w, path);
	else if (file_magic(path, m, 8) == 0 && elfinfo_is_elf(m, 4))
		read_disk_elf(w->r, w->ins, w->n_ins, w->cap_ins, path);
	else if (memcmp(m, "PK\3\4", 4) == 0 || memcmp(m, "!<arch>\n", 8) == 0) {
		if (read_package(w, path, err))
			return -1;
	} else
		return xcc_fail(err, XCC_EUSAGE, "%s is not an ELF file, a directory, a .deb or a "
				"wheel: give the programs and libraries that go to the board", path);
	if (w->r->n == before)
		strvec_push(&w->r->empty, path);
	return 0;
}

/* ---- the verdicts ---------------------------------------------------- */

/* The lowest PTX ISA among the PTX entries that JIT for cap. */
static void ptx_isa_for(const struct fatbin_file *fb, const struct gpu_cap *cap, unsigned *maj,
			unsigned *min)
{
	*maj = *min = 0;
	for (size_t i = 0; i < fb->n_entries; i++) {
		const struct fatbin_entry *e = &fb->entries[i];

		if (e->kind != FATBIN_KIND_PTX ||
		    !fatbin_ptx_jits_on(e->sm, e->variant, cap->major, cap->minor))
			continue;
		if (!*maj || e->version_major < *maj ||
		    (e->version_major == *maj && e->version_minor < *min)) {
			*maj = e->version_major;
			*min = e->version_minor;
		}
	}
}

static void judge_ptx(const struct ready_target *t, struct ready_gpu *g)
{
	const struct jetpack_release *line = t->jp ? jetpack_line(t->jp) : NULL;

	if (board_ptx_cuda(t->bdb, g->isa_major, g->isa_minor, &g->ptx_cuda)) {
		g->verdict = READY_GPU_PTX_UNKNOWN;
		return;
	}
	g->has_ptx_cuda = 1;
	if (!t->jp)
		g->verdict = READY_GPU_PTX_UNKNOWN;
	else if (cuda_version_cmp(g->ptx_cuda, t->jp->cuda) <= 0)
		g->verdict = READY_GPU_PTX;
	else if (jetpack_needs_compat(line, g->ptx_cuda))
		g->verdict = READY_GPU_PTX_COMPAT;
	else
		g->verdict = READY_GPU_PTX_TOO_NEW;
}

static void judge_gpus(const struct ready_target *t, struct ready_input *in)
{
	struct ready_file *f = in->f;
	char drv[16] = "";

	if (t->jp)
		cuda_version_str(t->jp->cuda, drv, sizeof drv);
	f->has_device_code = fatbin_has_device_code(&in->fb);
	if (!f->has_device_code)
		return;
	f->device_summary = fatbin_summary_line(&in->fb);
	f->gpus = xcalloc(t->n_gpus ? t->n_gpus : 1, sizeof *f->gpus);
	for (size_t i = 0; i < t->n_gpus; i++) {
		struct ready_gpu *g = &f->gpus[f->n_gpus++];
		struct fatbin_serving how;
		enum fatbin_verdict v = fatbin_serves(t->gdb, &in->fb, t->gpus[i], &how);
		char c[16];

		gpu_cap_name(t->gpus[i], g->gpu, sizeof g->gpu);
		if (v != FATBIN_NOT_SERVED)
			fatbin_sm_name(how.sm, how.variant, g->by, sizeof g->by);
		if (v == FATBIN_SERVED_SASS) {
			g->verdict = READY_GPU_SASS;
			continue;
		}
		if (v == FATBIN_NOT_SERVED) {
			g->verdict = READY_GPU_NOT_SERVED;
			problem(f, READY_FAIL, "GPU %s is not served: no SASS that runs on it and no "
				"PTX it can JIT (%s)", g->gpu, f->device_summary);
			continue;
		}
		ptx_isa_for(&in->fb, t->gpus[i], &g->isa_major, &g->isa_minor);
		judge_ptx(t, g);
		if (g->has_ptx_cuda)
			cuda_version_str(g->ptx_cuda, c, sizeof c);
		if (g->verdict == READY_GPU_PTX_COMPAT)
			problem(f, READY_COMPAT, "GPU %s runs only the PTX of %s (ISA %u.%u, CUDA %s), "
				"newer than the board's driver (CUDA %s): it JIT-compiles only with "
				"cuda-compat-%d-%d on the board", g->gpu, g->by, g->isa_major,
				g->isa_minor, c, drv, g->ptx_cuda.major, g->ptx_cuda.minor);
		else if (g->verdict == READY_GPU_PTX_TOO_NEW)
			problem(f, READY_FAIL, "GPU %s has only the PTX of %s (ISA %u.%u, CUDA %s), "
				"which JetPack %s's driver (CUDA %s) cannot JIT-compile, even with "
				"cuda-compat: rebuild with SASS for %s", g->gpu, g->by, g->isa_major,
				g->isa_minor, c, t->jp->version, drv, g->gpu);
		else if (g->verdict == READY_GPU_PTX_UNKNOWN && !g->has_ptx_cuda)
			problem(f, READY_UNKNOWN, "GPU %s has only the PTX of %s, ISA %u.%u, newer "
				"than cuda-xcc's table (board.json): cannot tell which driver JITs it",
				g->gpu, g->by, g->isa_major, g->isa_minor);
		else if (g->verdict == READY_GPU_PTX_UNKNOWN)
			problem(f, READY_UNKNOWN, "GPU %s has only the PTX of %s (ISA %u.%u): it runs "
				"when the board's driver is CUDA %s or newer; give --jetpack to compare",
				g->gpu, g->by, g->isa_major, g->isa_minor, c);
	}
}

/* The newest need of each runtime library, for the summary. */
static void needs_max(struct ready_file *f, const struct glibc_version_needs *needs)
{
	static const char *const prefixes[] = { "GLIBC_", "GLIBCXX_", "CXXABI_", "GCC_" };

	for (size_t k = 0; k < 4; k++) {
		const char *best = NULL;
		size_t plen = strlen(prefixes[k]);

		for (size_t i = 0; i < needs->n; i++) {
			const char *v = needs->v[i].version;

			if (strncmp(v, prefixes[k], plen) == 0 && v[plen] >= '0' && v[plen] <= '9' &&
			    (!best || glibc_version_cmp(v, best) > 0))
				best = v;
		}
		if (best)
			strvec_push(&f->needs_max, best);
	}
}

/* The board's floors: its root's own libraries, else the JetPack's. */
struct floors {
	struct runtime_floor floor;
	char *owned[4];
	char *from;
	int unverified;
};

static void floors_get(const struct ready_target *t, struct floors *fl)
{
	memset(fl, 0, sizeof *fl);
	if (t->target_fs) {
		char *libc = glibc_find_in_rootfs(t->target_fs, t->triple, "libc.so.6");
		char *cxx = glibc_find_in_rootfs(t->target_fs, t->triple, "libstdc++.so.6");
		char *gcc = glibc_find_in_rootfs(t->target_fs, t->triple, "libgcc_s.so.1");

		fl->floor.glibc = fl->owned[0] = glibc_version_defs_newest(libc, "GLIBC_");
		fl->floor.glibcxx = fl->owned[1] = glibc_version_defs_newest(cxx, "GLIBCXX_");
		fl->floor.cxxabi = fl->owned[2] = glibc_version_defs_newest(cxx, "CXXABI_");
		fl->floor.gcc_s = fl->owned[3] = glibc_version_defs_newest(gcc, "GCC_");
		fl->from = xasprintf("--target-fs %s", t->target_fs);
		free(libc);
		free(cxx);
		free(gcc);
	} else if (t->jp) {
		const struct jetpack_release *l = jetpack_line(t->jp);

		fl->floor = (struct runtime_floor){ l->glibc, l->glibcxx, l->cxxabi, l->gcc_s };
		fl->from = xasprintf("JetPack %s (Ubuntu %s)", t->jp->version, l->ubuntu);
		fl->unverified = jetpack_unverified(t->jp, "glibc") ||
				 jetpack_unverified(t->jp, "glibcxx");
	}
}

static void floors_free(struct floors *fl)
{
	for (int i = 0; i < 4; i++)
		free(fl->owned[i]);
	free(fl->from);
}

static void judge_floors(const struct floors *fl, struct ready_input *in)
{
	struct ready_file *f = in->f;

	needs_max(f, &in->needs);
	if (!fl->from)
		return;
	f->floor_from = xstrdup(fl->from);
	runtime_floor_check_needs(&in->needs, &fl->floor, &f->above);
	for (size_t i = 0; i < f->above.n; i++)
		problem(f, READY_FAIL, "needs %s, newer than %s provides: it will not start there",
			f->above.v[i], fl->from);
	if (fl->unverified && f->needs_max.n)
		problem(f, READY_UNKNOWN, "the runtime floors of %s are unverified (jetpack.json)",
			fl->from);
}

/* ---- DT_NEEDED ------------------------------------------------------- */

static const struct ready_file *find_input(const struct ready_report *r, const char *name,
					   int machine)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct ready_file *f = &r->files[i];

		if (f->e_machine == machine && ((f->soname && strcmp(f->soname, name) == 0) ||
						(f->base && strcmp(f->base, name) == 0)))
			return f;
	}
	return NULL;
}

/* The sysroot's target libraries: targets/DIR/lib/NAME. */
static char *find_in_sysroot(const char *sysroot, const char *name)
{
	char *targets = xasprintf("%s/targets", sysroot), *found = NULL;
	DIR *d = opendir(targets);
	struct dirent *de;

	while (d && !found && (de = readdir(d)) != NULL) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s/lib/%s", targets, de->d_name, name);
		if (access(p, R_OK) == 0)
			found = p;
		else
			free(p);
	}
	if (d)
		closedir(d);
	free(targets);
	return found;
}

static void resolve_one(const struct ready_target *t, const struct ready_report *r,
			const struct ready_file *f, const char *name, struct ready_need *n)
{
	const struct board_libs *jl = t->jp ? board_jetpack_libs(t->bdb, t->jp->version) : NULL;
	const struct ready_file *in = find_input(r, name, f->e_machine);
	char *p;

	n->name = xstrdup(name);
	if (in) {
		n->by = READY_NEED_INPUT;
		n->where = xstrdup(in->path);
	} else if (t->target_fs && (p = glibc_find_in_rootfs(t->target_fs, t->triple, name))) {
		n->by = READY_NEED_ROOT;
		n->where = p;
	} else if (t->sysroot && (p = find_in_sysroot(t->sysroot, name))) {
		n->by = READY_NEED_SYSROOT;
		n->where = p;
	} else if (autopatch_is_libc(name)) {
		n->by = READY_NEED_LIBC;
	} else if (autopatch_is_driver_library(name)) {
		n->by = READY_NEED_DRIVER;
	} else if (!t->target_fs && board_libs_has(&t->bdb->base, name)) {
		n->by = READY_NEED_BASE;
		n->unverified = t->bdb->base.unverified;
	} else if (board_libs_has(jl, name)) {
		n->by = READY_NEED_JETPACK;
		n->where = xasprintf("JetPack %s", t->jp->version);
		n->unverified = jl->unverified;
	} else if (t->jp && board_libs_has(&t->bdb->compat, name)) {
		n->by = READY_NEED_COMPAT;
		n->unverified = t->bdb->compat.unverified;
	} else {
		n->by = t->jp || t->target_fs ? READY_NEED_MISSING : READY_NEED_UNKNOWN;
	}
}

static void judge_needed(const struct ready_target *t, const struct ready_report *r,
			 struct ready_file *f)
{
	f->needed = xcalloc(f->raw_needed.n ? f->raw_needed.n : 1, sizeof *f->needed);
	for (size_t i = 0; i < f->raw_needed.n; i++) {
		struct ready_need *n = &f->needed[f->n_needed++];

		resolve_one(t, r, f, f->raw_needed.v[i], n);
		if (n->by == READY_NEED_MISSING)
			problem(f, READY_FAIL, "needs %s, which is in none of the files checked%s%s%s "
				"nor on the board: add the package that has it", n->name,
				t->target_fs ? ", the --target-fs root" : "",
				t->sysroot ? ", the sysroot" : "",
				t->jp ? ", the JetPack's libraries" : "");
		else if (n->by == READY_NEED_UNKNOWN)
			problem(f, READY_UNKNOWN, "needs %s, which is in none of the files checked: "
				"give --jetpack or --target-fs to look for it on the board", n->name);
		else if (n->by == READY_NEED_COMPAT)
			problem(f, READY_COMPAT, "needs %s, which only NVIDIA's cuda-compat package "
				"puts on the board%s", n->name,
				n->unverified ? " (an unverified list, board.json)" : "");
		else if (n->unverified)
			problem(f, READY_UNKNOWN, "needs %s, found only in the unverified list of %s's "
				"libraries (board.json): cannot tell whether the board has it", n->name,
				n->where ? n->where : "the board");
	}
}

/* ---- the CUDA it was built with -------------------------------------- */

/* CUDA 12 out of libcudart.so.12 or libcudart.so.11.0; 0 when none. */
static int cudart_major(const struct ready_file *f)
{
	for (size_t i = 0; i < f->raw_needed.n; i++)
		if (strncmp(f->raw_needed.v[i], "libcudart.so.", 13) == 0)
			return atoi(f->raw_needed.v[i] + 13);
	return 0;
}

/* A libcudart.so.X.Y.Z among the inputs gives the exact release of the
 * files that need its major. */
static int cudart_beside(const struct ready_report *r, int major, struct cuda_version *v,
			 const char **which)
{
	for (size_t i = 0; i < r->n; i++) {
		const char *b = r->files[i].base;
		int ma, mi, pa;

		if (b && sscanf(b, "libcudart.so.%d.%d.%d", &ma, &mi, &pa) == 3 && ma == major) {
			*v = (struct cuda_version){ ma, mi, -1 };
			*which = r->files[i].path;
			return 1;
		}
	}
	return 0;
}

/* The CUDA that first writes the newest PTX ISA of the file: the toolkit
 * that built it is that or newer (libraries carry PTX of older toolkits
 * too: cuFFT 12.4's newest is ISA 7.8, so this is a floor, never more). */
static int newest_ptx_cuda(const struct ready_target *t, const struct fatbin_file *fb,
			   struct cuda_version *lo)
{
	unsigned ma = 0, mi = 0;

	for (size_t i = 0; i < fb->n_entries; i++) {
		const struct fatbin_entry *e = &fb->entries[i];

		if (e->kind == FATBIN_KIND_PTX &&
		    (e->version_major > ma || (e->version_major == ma && e->version_minor > mi))) {
			ma = e->version_major;
			mi = e->version_minor;
		}
	}
	return ma && board_ptx_cuda(t->bdb, ma, mi, lo) == 0;
}

static void cuda_built(const struct ready_target *t, const struct ready_report *r,
		       struct ready_input *in)
{
	struct ready_file *f = in->f;
	int major = cudart_major(f);
	const char *which;
	struct cuda_version v;

	if (f->cuda_how == READY_CUDA_EXACT)
		return;
	if (!f->has_device_code && !major) {
		f->cuda_how = READY_CUDA_NONE;
	} else if (major && cudart_beside(r, major, &v, &which)) {
		f->cuda_how = READY_CUDA_EXACT;
		f->cuda = v;
		f->cuda_from = xasprintf("%s beside it", which);
	} else if (t->has_cuda) {
		f->cuda_how = READY_CUDA_EXACT;
		f->cuda = t->cuda;
		f->cuda_from = xstrdup("--cuda");
	} else if (newest_ptx_cuda(t, &in->fb, &f->cuda)) {
		f->cuda_how = READY_CUDA_AT_LEAST;
		f->cuda_from = xstrdup("its newest PTX ISA");
	} else if (major) {
		f->cuda_how = READY_CUDA_MAJOR;
		f->cuda = (struct cuda_version){ major, 0, -1 };
		f->cuda_from = xasprintf("it needs libcudart.so.%d", major);
	} else {
		f->cuda_how = READY_CUDA_UNKNOWN;
	}
}

static void judge_cuda(const struct ready_target *t, const struct ready_report *r,
		       struct ready_input *in)
{
	struct ready_file *f = in->f;
	const struct jetpack_release *line = t->jp ? jetpack_line(t->jp) : NULL;
	struct cuda_version max;
	char v[16], drv[16], top[16];

	cuda_built(t, r, in);
	if (f->cuda_how == READY_CUDA_NONE || !t->jp)
		return;
	max = jetpack_cuda_max(line);
	cuda_version_str(f->cuda, v, sizeof v);
	cuda_version_str(t->jp->cuda, drv, sizeof drv);
	cuda_version_str(max, top, sizeof top);
	if (f->cuda_how == READY_CUDA_UNKNOWN) {
		f->cuda_status = READY_UNKNOWN;
		problem(f, READY_UNKNOWN, "nothing in it says which CUDA built it (no package "
			"version, no libcudart.so.X.Y.Z beside it, no PTX): give --cuda to compare "
			"with JetPack %s's CUDA %s", t->jp->version, drv);
		return;
	}
	if (f->cuda_how == READY_CUDA_MAJOR) {
		if (f->cuda.major < t->jp->cuda.major)
			return;
		f->cuda_status = f->cuda.major > max.major ? READY_FAIL : READY_UNKNOWN;
		problem(f, f->cuda_status, "built with CUDA %d.x (%s), not said which: JetPack %s's "
			"driver runs CUDA %s, up to %s with cuda-compat%s", f->cuda.major,
			f->cuda_from, t->jp->version, drv, top,
			f->cuda_status == READY_FAIL ? "" : "; give --cuda to compare");
		return;
	}
	if (cuda_version_cmp(f->cuda, max) > 0) {
		f->cuda_status = READY_FAIL;
		problem(f, READY_FAIL, "built with CUDA %s%s (%s), newer than JetPack %s's boards run "
			"(CUDA %s, up to %s): it will not run there", v,
			f->cuda_how == READY_CUDA_AT_LEAST ? " or newer" : "", f->cuda_from,
			t->jp->version, drv, top);
	} else if (cuda_version_cmp(f->cuda, t->jp->cuda) > 0 && jetpack_needs_compat(line, f->cuda)) {
		f->cuda_status = READY_COMPAT;
		problem(f, READY_COMPAT, "built with CUDA %s (%s), newer than JetPack %s's CUDA %s: it "
			"runs with NVIDIA's cuda-compat-%d-%d on the board (in /usr/local/cuda-%d.%d/compat)",
			v, f->cuda_from, t->jp->version, drv, f->cuda.major, f->cuda.minor,
			f->cuda.major, f->cuda.minor);
	} else if (f->cuda_how == READY_CUDA_AT_LEAST) {
		f->cuda_status = READY_UNKNOWN;
		problem(f, READY_UNKNOWN, "built with CUDA %s or newer (%s), not said which: "
			"JetPack %s's driver runs CUDA %s; give --cuda to compare", v, f->cuda_from,
			t->jp->version, drv);
	}
}

/* ---- the whole check ------------------------------------------------- */

static void judge_machine(const struct ready_target *t, struct ready_file *f)
{
	if ((t->jp || t->target_fs) && f->e_machine != EM_AARCH64)
		problem(f, READY_FAIL, "is an %s file, and the board runs aarch64 programs",
			f->machine ? f->machine : "unknown");
}

static void inputs_free(struct ready_input *ins, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fatbin_file_free(&ins[i].fb);
		glibc_version_needs_free(&ins[i].needs);
	}
	free(ins);
}

int readiness_check(const struct ready_target *t, const struct strvec *inputs,
		    struct ready_report *r, struct xcc_error *err)
{
	struct ready_input *ins = NULL;
	size_t n_ins = 0, cap_ins = 0;
	struct walk w = { r, &ins, &n_ins, &cap_ins };
	struct floors fl;
	int rc = 0;

	memset(r, 0, sizeof *r);
	r->empty = (struct strvec)STRVEC_INIT;
	for (size_t i = 0; i < inputs->n && !rc; i++)
		rc = read_input(&w, inputs->v[i], err);
	if (rc) {
		inputs_free(ins, n_ins);
		return -1;
	}
	floors_get(t, &fl);
	for (size_t i = 0; i < n_ins; i++)
		ins[i].f = &r->files[ins[i].idx];
	for (size_t i = 0; i < n_ins; i++) {
		judge_machine(t, ins[i].f);
		judge_gpus(t, &ins[i]);
		judge_floors(&fl, &ins[i]);
		judge_needed(t, r, ins[i].f);
		judge_cuda(t, r, &ins[i]);
	}
	for (size_t i = 0; i < r->n; i++)
		r->count[r->files[i].status]++;
	floors_free(&fl);
	inputs_free(ins, n_ins);
	return 0;
}

int ready_report_status(const struct ready_report *r, int with_compat)
{
	if (r->count[READY_FAIL] || r->count[READY_UNKNOWN])
		return XCC_EFAIL;
	if (r->count[READY_COMPAT] && !with_compat)
		return XCC_EFAIL;
	return 0;
}

static void file_free(struct ready_file *f)
{
	free(f->path);
	free(f->machine);
	free(f->device_summary);
	free(f->gpus);
	free(f->floor_from);
	strvec_free(&f->needs_max);
	strvec_free(&f->above);
	for (size_t i = 0; i < f->n_needed; i++) {
		free(f->needed[i].name);
		free(f->needed[i].where);
	}
	free(f->needed);
	free(f->cuda_from);
	strvec_free(&f->problems);
	free(f->soname);
	free(f->base);
	strvec_free(&f->raw_needed);
}

void ready_report_free(struct ready_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		file_free(&r->files[i]);
	free(r->files);
	free(r->board);
	strvec_free(&r->empty);
	memset(r, 0, sizeof *r);
}

const char *ready_status_name(enum ready_status s)
{
	static const char *const names[] = { "ok", "compat", "unknown", "fail" };

	return names[s];
}

const char *ready_gpu_verdict_name(enum ready_gpu_verdict v)
{
	static const char *const names[] = { "sass", "ptx", "ptx-compat", "ptx-unknown",
					     "ptx-too-new", "not-served" };

	return names[v];
}

const char *ready_need_by_name(enum ready_need_by b)
{
	static const char *const names[] = { "input", "root", "sysroot", "libc", "driver",
					     "base", "jetpack", "cuda-compat", "unknown", "missing" };

	return names[b];
}

const char *ready_cuda_how_name(enum ready_cuda_how h)
{
	static const char *const names[] = { "none", "unknown", "major", "at-least", "exact" };

	return names[h];
}
