/* Unpacking one package (redist .tar.xz, .deb, .whl; see package.h) into a
 * directory, with libarchive, streaming, under a path policy that refuses
 * anything that would write outside the destination. What goes where is
 * decided by a mapping callback: the sysroot's layout, not this module's. */
#ifndef XCC_UNPACK_H
#define XCC_UNPACK_H

#include <stdint.h>

#include "error.h"

/*
 * Map one member path (as stored in the archive, after stripping a leading
 * "./") to a destination path relative to the destination directory, or
 * return NULL to skip it. The returned string is malloc'ed.
 */
typedef char *unpack_map_fn(void *arg, const char *member);

struct unpack_stats {
	uint64_t files, bytes; /* regular files written and their bytes */
	uint64_t skipped;      /* members the map skipped */
};

typedef void unpack_progress_fn(void *arg, uint64_t archive_bytes_read);

struct unpack_opts {
	unpack_map_fn *map; /* NULL: keep every member at its own path */
	void *map_arg;
	unpack_progress_fn *progress;
	void *progress_arg;
};

/*
 * Extract `archive` (any kind above; for a .deb its data.tar.*, for a wheel
 * the zip) into dest_dir, which must exist. Refused, with nothing written
 * outside dest_dir: absolute paths, "..", symlinks pointing or leading
 * outside dest_dir, hardlinks to outside, device nodes, FIFOs, setuid and
 * setgid bits. The first refusal fails the whole extraction.
 */
int unpack_archive(const char *archive, const char *dest_dir, const struct unpack_opts *o,
		   struct unpack_stats *stats, struct xcc_error *err);

#endif
