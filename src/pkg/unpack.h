/* Unpacking one package (redist .tar.xz, .deb, .whl; see package.h) into a
 * directory, with libarchive, streaming, under a path policy that refuses
 * anything that would write outside the destination. What goes where is
 * decided by a mapping callback: the sysroot's layout, not this module's. */
#ifndef XCC_UNPACK_H
#define XCC_UNPACK_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/error.h"
#include "base/strvec.h"

/*
 * Map one member path (as stored in the archive, after stripping a leading
 * "./") to a destination path relative to the destination directory, or
 * return NULL to skip it. The returned string is malloc'ed.
 */
typedef char *unpack_map_fn(void *arg, const char *member);

struct unpack_stats {
	uint64_t files, bytes; /* regular files written and their bytes */
	uint64_t skipped;      /* members the map skipped */
	uint64_t charged;      /* what counted against max_bytes */
};

typedef void unpack_progress_fn(void *arg, uint64_t archive_bytes_read);

/* What to do with a path another archive may have made already. */
enum unpack_claim {
	UNPACK_MAKE,    /* make it, replacing what is there */
	UNPACK_SKIP,    /* leave what is there */
	UNPACK_COMPARE, /* compare the member with what is there: report a difference */
};

struct unpack_opts {
	/* Where the archive is read from, when not its name: the verified
	 * descriptor's /proc/self/fd/N (fetch_fd_path), so that the bytes
	 * extracted are the bytes checked. NULL: the archive's name. */
	const char *open_path;
	unpack_map_fn *map; /* NULL: keep every member at its own path */
	void *map_arg;
	unpack_progress_fn *progress;
	void *progress_arg;
	/* The most the tree may grow by, counted as dpkg counts a .deb's
	 * Installed-Size: every file its size rounded up to 1 KiB, every
	 * entry at least 1 KiB (so that a bomb of empty files counts too);
	 * 0: no bound. Going past it fails the extraction before the member
	 * that would is written (or, for one that holds more than it says,
	 * as it grows); max_bytes_note (may be NULL) ends that message:
	 * where the bound comes from and how to raise it. */
	uint64_t max_bytes;
	const char *max_bytes_note;
	/* Several archives unpacked into one tree at once (sysroot create):
	 * before a file, hard link or symlink is made at path (relative to
	 * dest_dir, through no symlink), claim says what to do with it, and
	 * release follows every claim. A member that differs from what is
	 * there (by type, mode, content or link target) goes to differs, with
	 * how it differs for people, and the extraction goes on; an equal one
	 * leaves what is there, its mtime the later of the two. NULL: every
	 * member is made, the last copy of a path wins. */
	enum unpack_claim (*claim)(void *arg, const char *path);
	void (*release)(void *arg, const char *path);
	void (*differs)(void *arg, const char *path, const char *member, const char *how);
	void *claim_arg;
	/* Non-zero (a signal's number) when the extraction is to give up: it
	 * is checked between members and between a member's blocks. */
	const atomic_int *stop;
	/* A device's root filesystem is being copied (sysroot create
	 * --from-device): a symlink whose target is absolute or climbs above
	 * the destination is made as written, as data the device resolves
	 * from its own root (elf/devroot.h reads it so), instead of refused.
	 * Nothing is ever written through such a link: a later member whose
	 * path goes through one is still refused. */
	int root_links;
};

/*
 * Extract `archive` (any kind above; for a .deb its data.tar.*, for a wheel
 * the zip) into dest_dir, which must exist. Refused, with nothing written
 * outside dest_dir: absolute paths, "..", symlinks pointing or leading
 * outside dest_dir, hardlinks to outside, device nodes, FIFOs, setuid and
 * setgid bits, and names or symlink targets with a newline (a sysroot's
 * listing holds one entry a line). The first refusal fails the whole
 * extraction. What is extracted belongs to the user running this, never to
 * the archive's owner, and loses the group and other write bits (execute
 * bits stay).
 */
int unpack_archive(const char *archive, const char *dest_dir, const struct unpack_opts *o,
		   struct unpack_stats *stats, struct xcc_error *err);

/*
 * Several archives unpacked into one tree can together build a path none
 * of them builds alone (a link in one through a link in another). After
 * the last one: every symlink under root is resolved beneath root, and
 * each that leads outside it, is absolute or loops gets one line in
 * problems ("symlink REL -> TARGET leads outside the tree, to WHERE").
 * Returns -1 with err only when the tree cannot be read.
 */
int unpack_check_tree_links(const char *root, struct strvec *problems, struct xcc_error *err);

/*
 * openat(rootfd, rel, flags), with every component of rel, symlinks
 * included, resolved beneath rootfd: openat2(RESOLVE_BENEATH) where the
 * kernel has it, else resolution done here and symlinked components
 * refused. A path that would leave rootfd fails with EXDEV. No O_CREAT.
 */
int unpack_open_beneath(int rootfd, const char *rel, int flags);

#endif
