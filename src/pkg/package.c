/* Packages: what a redist .tar.xz, a .deb or a wheel is, which machine it
 * serves (read from the package itself, so planning can tell host from
 * target), and opening it and its members for reading. Extraction
 * (unpack.c) reads through the same openers. */
#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strvec.h"
#include "base/xalloc.h"
#include "elf/elfinfo.h"
#include "pkg/package.h"

#define MAX_SMALL_MEMBER (1024 * 1024) /* control files, WHEEL, METADATA */

/* ---------------------------------------------------------------------------
 * Opening archives
 */

/* Normalize a member path in place: drop "./" and empty components and a
 * trailing slash. Returns 0, or -1 for an absolute path or a ".." component
 * (which the policy refuses, never rewrites). */
int package_normalize_member(const char *in, char *out, size_t outsz)
{
	size_t n = 0;
	const char *p = in;

	if (*in == '/')
		return -1;
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);

		if (len == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (len && !(len == 1 && p[0] == '.')) {
			if (n + len + 2 > outsz)
				return -1;
			if (n)
				out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p = *end ? end + 1 : end;
	}
	out[n] = '\0';
	return 0;
}

/* A header was read (ARCHIVE_EOF, 1, compares above the warnings). */
int package_header_ok(int r)
{
	return r == ARCHIVE_OK || r == ARCHIVE_WARN;
}

static struct archive *reader_new(void)
{
	struct archive *a = archive_read_new();

	/* Only the formats and filters packages use, and never an external
	 * program that libarchive would otherwise run on untrusted input. */
	archive_read_support_format_tar(a);
	archive_read_support_format_ar(a);
	archive_read_support_format_zip(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_lzma(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_zstd(a);
	return a;
}

int package_archive_fail(struct xcc_error *err, struct archive *a, const char *what)
{
	const char *msg = archive_error_string(a);

	return xcc_fail(err, XCC_EFAIL, "%s: %s", what, msg ? msg : "unreadable archive");
}

/* Open `path` and read the first header; *kind says what it is. Messages
 * name `shown`. */
int package_open_as(const char *path, const char *shown, struct archive **ap,
		    struct archive_entry **first, enum package_kind *kind, struct xcc_error *err)
{
	struct archive *a = reader_new();
	int r, fmt;

	if (archive_read_open_filename(a, path, PACKAGE_READ_BLOCK) != ARCHIVE_OK) {
		package_archive_fail(err, a, shown);
		archive_read_free(a);
		return -1;
	}
	r = archive_read_next_header(a, first);
	if (r == ARCHIVE_EOF) {
		archive_read_free(a);
		return xcc_fail(err, XCC_EFAIL, "%s: empty archive", shown);
	}
	if (r < ARCHIVE_WARN) {
		package_archive_fail(err, a, shown);
		archive_read_free(a);
		return -1;
	}
	fmt = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	if (fmt == ARCHIVE_FORMAT_AR) {
		*kind = PACKAGE_DEB;
		if (strcmp(archive_entry_pathname(*first), "debian-binary") != 0) {
			archive_read_free(a);
			return xcc_fail(err, XCC_EFAIL,
					"%s: an ar archive but not a Debian package (no debian-binary "
					"member first)", shown);
		}
	} else if (fmt == ARCHIVE_FORMAT_ZIP) {
		*kind = PACKAGE_WHEEL;
	} else if (fmt == ARCHIVE_FORMAT_TAR) {
		*kind = PACKAGE_REDIST;
	} else {
		archive_read_free(a);
		return xcc_fail(err, XCC_EFAIL,
				"%s: not a .deb, a wheel or a redist .tar.xz (format %s)", shown,
				archive_format_name(a));
	}
	*ap = a;
	return 0;
}

int package_open(const char *path, struct archive **ap, struct archive_entry **first,
		 enum package_kind *kind, struct xcc_error *err)
{
	return package_open_as(path, path, ap, first, kind, err);
}

/* A member of an outer archive (a .deb's control.tar or data.tar) read as an
 * archive of its own, block by block, without copying it anywhere. */
static la_ssize_t member_read(struct archive *inner, void *arg, const void **buf)
{
	struct archive *outer = arg;
	size_t size;
	la_int64_t offset;
	int r = archive_read_data_block(outer, buf, &size, &offset);

	if (r == ARCHIVE_EOF)
		return 0;
	if (r < ARCHIVE_OK) {
		archive_set_error(inner, archive_errno(outer), "%s", archive_error_string(outer));
		return -1;
	}
	return (la_ssize_t)size;
}

struct archive *package_open_member(struct archive *outer, const char *path,
				    const char *member, struct xcc_error *err)
{
	struct archive *inner = archive_read_new();

	archive_read_support_format_tar(inner);
	archive_read_support_filter_xz(inner);
	archive_read_support_filter_lzma(inner);
	archive_read_support_filter_gzip(inner);
	archive_read_support_filter_bzip2(inner);
	archive_read_support_filter_zstd(inner);
	if (archive_read_open(inner, outer, NULL, member_read, NULL) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "%s: member %s: %s", path, member,
			 archive_error_string(inner) ? archive_error_string(inner) : "unreadable");
		archive_read_free(inner);
		return NULL;
	}
	return inner;
}

const char *package_entry_path(struct archive_entry *e)
{
	const char *p = archive_entry_pathname(e);

	return p ? p : archive_entry_pathname_utf8(e);
}

static int is_tar_member(const char *name, const char *stem)
{
	size_t n = strlen(stem);

	return strncmp(name, stem, n) == 0 && (name[n] == '\0' || name[n] == '.');
}

/* Advance a .deb's outer reader to the member "<stem>" or "<stem>.<ext>"
 * (its entry into *entry unless NULL). */
int package_find_deb_member(struct archive *a, const char *path, const char *stem,
			    const char **name, struct archive_entry **entry,
			    struct xcc_error *err)
{
	struct archive_entry *e;
	int r;

	while (package_header_ok(r = archive_read_next_header(a, &e))) {
		*name = archive_entry_pathname(e);
		if (*name && is_tar_member(*name, stem)) {
			if (entry)
				*entry = e;
			return 0;
		}
	}
	if (r == ARCHIVE_EOF)
		return xcc_fail(err, XCC_EFAIL, "%s: a Debian package without a %s member", path,
				stem);
	return package_archive_fail(err, a, path);
}

/* ---------------------------------------------------------------------------
 * Identification
 */

/* uname-style names, the same spelling package architectures map to
 * (amd64 -> x86_64, ppc64el -> ppc64le), so that a package's machine and its
 * ELF files' machines compare equal. */
static const char *package_machine_name(unsigned machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_AARCH64:
		return "aarch64";
	case EM_PPC64:
		return "ppc64le";
	case EM_ARM:
		return "arm";
	case EM_386:
		return "i686";
	default:
		return NULL;
	}
}

/* The machine of an ELF file from its first bytes (read from the current
 * member), or NULL when it is not ELF. */
static char *member_elf_machine(struct archive *a)
{
	unsigned char head[64];
	la_ssize_t got = 0, n;
	Elf *elf;
	GElf_Ehdr ehdr;
	char *machine = NULL;

	while (got < (la_ssize_t)sizeof head &&
	       (n = archive_read_data(a, head + got, sizeof head - (size_t)got)) > 0)
		got += n;
	if (got < 16 || !elfinfo_is_elf(head, (size_t)got))
		return NULL;
	if (elfinfo_begin_memory(head, (size_t)got, "member", &elf, &(struct xcc_error){ 0 }))
		return NULL;
	if (elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &ehdr)) {
		const char *name = package_machine_name(ehdr.e_machine);

		machine = name ? xstrdup(name) : xasprintf("elf-machine-%u", ehdr.e_machine);
	}
	elf_end(elf);
	return machine;
}

/* Read the current member whole (small files only), NUL-terminated. */
static char *read_small_member(struct archive *a, const char *path, const char *member,
			       struct xcc_error *err)
{
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);
	la_ssize_t n;

	while ((n = archive_read_data(a, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap) {
			if (cap >= MAX_SMALL_MEMBER) {
				free(buf);
				xcc_fail(err, XCC_EFAIL, "%s: %s is larger than %d bytes", path,
					 member, MAX_SMALL_MEMBER);
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	if (n < 0) {
		free(buf);
		package_archive_fail(err, a, path);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* The value of an RFC 822-style "Key: value" field (deb control, wheel
 * METADATA and WHEEL), or NULL. Only the header part counts. */
static char *header_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *eol = strchrnul(line, '\n');

		if (line == eol || (*line == '\r' && line + 1 == eol))
			break; /* end of the headers */
		if (strncasecmp(line, key, klen) == 0 && line[klen] == ':') {
			const char *v = line + klen + 1;
			const char *end = eol;

			while (*v == ' ' || *v == '\t')
				v++;
			while (end > v && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
				end--;
			return xstrndup(v, (size_t)(end - v));
		}
		line = *eol ? eol + 1 : NULL;
	}
	return NULL;
}

static const char *deb_arch_machine(const char *arch)
{
	static const char *const map[][2] = {
		{ "amd64", "x86_64" }, { "arm64", "aarch64" }, { "all", "all" },
		{ "armhf", "arm" },    { "i386", "i686" },     { "ppc64el", "ppc64le" },
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(arch, map[i][0]) == 0)
			return map[i][1];
	return arch;
}

static int identify_deb(struct archive *outer, const char *path, struct package_info *info,
			struct xcc_error *err)
{
	const char *name;
	struct archive *inner;
	struct archive_entry *e;
	char *control = NULL, *arch, *installed;
	char norm[PATH_MAX];
	int r;

	if (package_find_deb_member(outer, path, "control.tar", &name, NULL, err))
		return -1;
	inner = package_open_member(outer, path, name, err);
	if (!inner)
		return -1;
	while (package_header_ok(r = archive_read_next_header(inner, &e))) {
		if (package_normalize_member(package_entry_path(e) ? package_entry_path(e) : "", norm, sizeof norm) == 0 &&
		    strcmp(norm, "control") == 0) {
			control = read_small_member(inner, path, "control", err);
			break;
		}
	}
	if (!control) {
		if (r < ARCHIVE_WARN)
			package_archive_fail(err, inner, path);
		else if (r == ARCHIVE_EOF)
			xcc_fail(err, XCC_EFAIL, "%s: the Debian package has no control file",
				 path);
		archive_read_free(inner);
		return -1;
	}
	archive_read_free(inner);
	info->name = header_field(control, "Package");
	info->version = header_field(control, "Version");
	arch = header_field(control, "Architecture");
	installed = header_field(control, "Installed-Size");
	free(control);
	/* Only a bound on what extraction may write: a value that is no
	 * number of KiB is as good as none. */
	if (installed) {
		char *end;
		unsigned long long kib;

		errno = 0;
		kib = strtoull(installed, &end, 10);
		if (installed[0] >= '0' && installed[0] <= '9' && !*end && !errno &&
		    kib <= UINT64_MAX / 1024)
			info->installed_bytes = (uint64_t)kib * 1024;
		free(installed);
	}
	if (!info->name || !info->version || !arch) {
		free(arch);
		return xcc_fail(err, XCC_EFAIL, "%s: the control file has no %s field", path,
				!info->name ? "Package" : !info->version ? "Version" :
				"Architecture");
	}
	info->machine = xstrdup(deb_arch_machine(arch));
	free(arch);
	return 0;
}

/* The machine a wheel platform tag names; "any" gives NULL. */
static char *wheel_platform_machine(const char *plat)
{
	static const char *const suffixes[][2] = {
		{ "_x86_64", "x86_64" }, { "_aarch64", "aarch64" }, { "_ppc64le", "ppc64le" },
		{ "_armv7l", "arm" },    { "_i686", "i686" },
	};
	size_t n = strlen(plat);

	if (strcmp(plat, "any") == 0)
		return NULL;
	if (strncmp(plat, "win", 3) == 0 || strncmp(plat, "macosx", 6) == 0)
		return xstrdup(plat); /* nothing a Linux sysroot can use */
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t s = strlen(suffixes[i][0]);

		if (n > s && strcmp(plat + n - s, suffixes[i][0]) == 0)
			return xstrdup(suffixes[i][1]);
	}
	return xstrdup(plat);
}

/* From WHEEL's Tag lines; NULL for pure "any" wheels. */
static int wheel_tags_machine(const char *wheel, const char *path, char **machine,
			      struct xcc_error *err)
{
	*machine = NULL;
	for (const char *line = wheel; line && *line;) {
		const char *eol = strchrnul(line, '\n');

		if (strncasecmp(line, "Tag:", 4) == 0) {
			char *tag = xstrndup(line + 4, (size_t)(eol - line - 4));
			char *t = tag, *plat, *m, *end;

			while (*t == ' ' || *t == '\t')
				t++;
			end = t + strlen(t);
			while (end > t && (end[-1] == '\r' || end[-1] == ' '))
				*--end = '\0';
			plat = strrchr(t, '-');
			m = wheel_platform_machine(plat ? plat + 1 : t);
			free(tag);
			if (m && *machine && strcmp(m, *machine) != 0) {
				free(m);
				free(*machine);
				*machine = NULL;
				return xcc_fail(err, XCC_EFAIL,
						"%s: the wheel's tags name two machines", path);
			}
			if (m && !*machine)
				*machine = m;
			else
				free(m);
		}
		line = *eol ? eol + 1 : NULL;
	}
	return 0;
}

/* PEP 427 spelling of a distribution name: runs of "-_." become "_". */
static char *wheel_name(const char *name)
{
	char *out = xmalloc(strlen(name) + 1), *o = out;

	for (const char *p = name; *p; p++) {
		if (*p == '-' || *p == '_' || *p == '.') {
			if (o == out || o[-1] != '_')
				*o++ = '_';
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

static int is_dist_info_file(const char *member, const char *file)
{
	const char *slash = strchr(member, '/');
	size_t dlen;

	if (!slash || strcmp(slash + 1, file) != 0)
		return 0;
	dlen = (size_t)(slash - member);
	return dlen > 10 && memcmp(slash - 10, ".dist-info", 10) == 0;
}

static int identify_wheel(struct archive *a, struct archive_entry *e, const char *path,
			  struct package_info *info, struct xcc_error *err)
{
	char *wheel = NULL, *metadata = NULL, *elf_machine = NULL, *tag_machine = NULL;
	char norm[PATH_MAX];
	int r = ARCHIVE_OK, rc = -1;

	for (; package_header_ok(r); r = archive_read_next_header(a, &e)) {
		const char *raw = package_entry_path(e);

		if (!raw || package_normalize_member(raw, norm, sizeof norm) ||
		    archive_entry_filetype(e) != AE_IFREG)
			continue;
		if (!wheel && is_dist_info_file(norm, "WHEEL")) {
			if (!(wheel = read_small_member(a, path, norm, err)))
				goto out;
		} else if (!metadata && is_dist_info_file(norm, "METADATA")) {
			if (!(metadata = read_small_member(a, path, norm, err)))
				goto out;
		} else if (!elf_machine && (strstr(norm, ".so") || strncmp(norm, "bin/", 4) == 0 ||
					    strstr(norm, "/bin/"))) {
			elf_machine = member_elf_machine(a);
		}
	}
	if (r != ARCHIVE_EOF) {
		package_archive_fail(err, a, path);
		goto out;
	}
	if (!wheel || !metadata) {
		xcc_fail(err, XCC_EFAIL, "%s: a zip without *.dist-info/%s: not a wheel", path,
			 !wheel ? "WHEEL" : "METADATA");
		goto out;
	}
	if (wheel_tags_machine(wheel, path, &tag_machine, err))
		goto out;
	info->name = header_field(metadata, "Name");
	info->version = header_field(metadata, "Version");
	if (!info->name || !info->version) {
		xcc_fail(err, XCC_EFAIL, "%s: the wheel's METADATA has no %s", path,
			 !info->name ? "Name" : "Version");
		goto out;
	}
	{
		char *n = wheel_name(info->name);

		free(info->name);
		info->name = n;
	}
	info->machine = tag_machine ? tag_machine : elf_machine ? elf_machine : xstrdup("all");
	if (info->machine == tag_machine)
		tag_machine = NULL;
	else if (info->machine == elf_machine)
		elf_machine = NULL;
	rc = 0;
out:
	free(wheel);
	free(metadata);
	free(elf_machine);
	free(tag_machine);
	return rc;
}

static const char *redist_tag_machine(const char *name_tag, size_t *tag_len)
{
	static const char *const tags[][2] = {
		{ "linux-x86_64", "x86_64" },   { "linux-sbsa", "aarch64" },
		{ "linux-aarch64", "aarch64" }, { "linux-ppc64le", "ppc64le" },
		{ "windows-x86_64", "windows-x86_64" },
	};
	size_t n = strlen(name_tag);

	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
		size_t t = strlen(tags[i][0]);

		if (n > t + 1 && name_tag[n - t - 1] == '-' &&
		    strcmp(name_tag + n - t, tags[i][0]) == 0) {
			*tag_len = t;
			return tags[i][1];
		}
	}
	return NULL;
}

static int identify_redist(struct archive *a, struct archive_entry *e, const char *path,
			   struct package_info *info, struct xcc_error *err)
{
	char top[PATH_MAX], *slash, *dash, *name_tag;
	const char *machine, *raw = package_entry_path(e);
	size_t n, tag_len = 0;
	int r;

	/* A leading "./" entry names no directory; the next one does. */
	while (raw && package_normalize_member(raw, top, sizeof top) == 0 && !*top) {
		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			return xcc_fail(err, XCC_EFAIL, "%s: an empty archive", path);
		if (!package_header_ok(r))
			return package_archive_fail(err, a, path);
		raw = package_entry_path(e);
	}
	if (!raw || package_normalize_member(raw, top, sizeof top))
		return xcc_fail(err, XCC_EFAIL, "%s: unexpected first member %s", path,
				raw ? raw : "(unreadable)");
	slash = strchr(top, '/');
	if (slash)
		*slash = '\0';
	n = strlen(top);
	dash = NULL;
	if (n > 8 && strcmp(top + n - 8, "-archive") == 0) {
		top[n - 8] = '\0';
		dash = strrchr(top, '-');
	}
	if (!dash)
		return xcc_fail(err, XCC_EFAIL,
				"%s: not a .deb, a wheel or a redist archive: its top directory "
				"%s is not <name>-<platform>-<version>-archive", path, top);
	*dash = '\0';
	name_tag = top;
	info->version = xstrdup(dash + 1);
	machine = redist_tag_machine(name_tag, &tag_len);
	if (machine) {
		info->name = xstrndup(name_tag, strlen(name_tag) - tag_len - 1);
		info->machine = xstrdup(machine);
		return 0;
	}
	/* An unusual platform: the name ends before "-linux-" if there is
	 * one, and the files themselves say what machine they are for. */
	{
		char *linux_tag = strstr(name_tag, "-linux-");

		info->name = linux_tag ? xstrndup(name_tag, (size_t)(linux_tag - name_tag))
				       : xstrdup(name_tag);
	}
	do {
		if (archive_entry_filetype(e) == AE_IFREG && !archive_entry_hardlink(e) &&
		    (info->machine = member_elf_machine(a)))
			return 0;
	} while (package_header_ok(r = archive_read_next_header(a, &e)));
	if (r != ARCHIVE_EOF)
		return package_archive_fail(err, a, path);
	info->machine = xstrdup("all");
	return 0;
}

int package_identify_as(const char *at, const char *path, struct package_info *info,
			struct xcc_error *err)
{
	struct archive *a;
	struct archive_entry *first;
	int rc;

	memset(info, 0, sizeof *info);
	if (package_open_as(at, path, &a, &first, &info->kind, err))
		return -1;
	switch (info->kind) {
	case PACKAGE_DEB:
		rc = identify_deb(a, path, info, err);
		break;
	case PACKAGE_WHEEL:
		rc = identify_wheel(a, first, path, info, err);
		break;
	default:
		rc = identify_redist(a, first, path, info, err);
		break;
	}
	archive_read_free(a);
	if (rc) {
		enum package_kind kind = info->kind;

		package_info_free(info);
		info->kind = kind;
	}
	return rc;
}

int package_identify(const char *path, struct package_info *info, struct xcc_error *err)
{
	return package_identify_as(path, path, info, err);
}

void package_info_free(struct package_info *info)
{
	free(info->name);
	free(info->version);
	free(info->machine);
	info->name = info->version = info->machine = NULL;
}
