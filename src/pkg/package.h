/* Packages: a redist .tar.xz, a Debian .deb or a wheel. Which kind a file
 * is, which machine it serves (read from the package itself), and opening
 * it and its members with libarchive; planning identifies packages given
 * alone with it, and extraction (unpack.h) reads through its openers. */
#ifndef XCC_PACKAGE_H
#define XCC_PACKAGE_H

#include <stddef.h>

#include <stdint.h>

#include "base/error.h"

enum package_kind {
	PACKAGE_REDIST, /* NVIDIA redist <name>-<tag>-<ver>-archive.tar.xz */
	PACKAGE_DEB,
	PACKAGE_WHEEL,
};

/* Which side of the sysroot a package serves, read from the package
 * itself: deb control Architecture, wheel tags, or ELF e_machine. */
struct package_info {
	enum package_kind kind;
	char *name;    /* cuda_cudart, nvidia-cuda-dev, nvidia_cuda_runtime_cu12 */
	char *version;
	char *machine; /* "x86_64", "aarch64", or "all" for arch-independent */
	uint64_t installed_bytes; /* a .deb's Installed-Size in bytes; 0: none given */
};

int package_identify(const char *path, struct package_info *info, struct xcc_error *err);
/* package_identify reading `at` (a /proc/self/fd/N), naming `path`. */
int package_identify_as(const char *at, const char *path, struct package_info *info,
			struct xcc_error *err);
void package_info_free(struct package_info *info);

/* Reading a package (what identification and extraction share). */
struct archive;
struct archive_entry;

#define PACKAGE_READ_BLOCK (256 * 1024)

/* Open path and read its first header; *kind says what it is. Anything but
 * the three kinds is a usage error naming the format. */
/* package_open, reading `path` (a /proc/self/fd/N of a verified
 * descriptor) and naming `shown` in messages. */
int package_open_as(const char *path, const char *shown, struct archive **ap,
		    struct archive_entry **first, enum package_kind *kind, struct xcc_error *err);
int package_open(const char *path, struct archive **ap, struct archive_entry **first,
		 enum package_kind *kind, struct xcc_error *err);
/* A member of an outer archive (a .deb's control.tar or data.tar) opened as
 * an archive of its own, read block by block without a copy; NULL with
 * err set. */
struct archive *package_open_member(struct archive *outer, const char *path,
				    const char *member, struct xcc_error *err);
/* Advance a .deb's outer reader to the member "<stem>" or "<stem>.<ext>";
 * *name is its name, *entry (unless NULL) its entry. */
int package_find_deb_member(struct archive *a, const char *path, const char *stem,
			    const char **name, struct archive_entry **entry,
			    struct xcc_error *err);
/* A member's path normalized into out: "./" and empty components and a
 * trailing slash dropped. -1 for an absolute path or a ".." component,
 * which are refused, never rewritten. */
int package_normalize_member(const char *in, char *out, size_t outsz);
/* A header was read (ARCHIVE_OK or ARCHIVE_WARN). */
int package_header_ok(int r);
/* An entry's path, in whichever encoding libarchive has it. */
const char *package_entry_path(struct archive_entry *e);
/* err from libarchive's message for a, prefixed with what; returns -1. */
int package_archive_fail(struct xcc_error *err, struct archive *a, const char *what);

#endif
