/* The local side of fetch.c: files checked in place, through the one
 * descriptor that is then read, and texts read from paths. */
#ifndef XCC_PKG_FETCH_LOCAL_H
#define XCC_PKG_FETCH_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* The most a text (a manifest) may be. */
#define FETCH_MAX_TEXT (64u << 20)

/* A local file, opened once: its size (size < 0: any) and sha256 (NULL:
 * any) are checked through the descriptor *fdp handed back at offset 0.
 * A missing path or one that is no regular file is a usage error. */
int fetch_verify_local(const char *path, const char *sha, int64_t size, int *fdp,
		       struct xcc_error *err);

/* The whole of a small file at path, NUL-terminated; at most FETCH_MAX_TEXT. */
int fetch_read_local_text(const char *path, char **text, size_t *len, struct xcc_error *err);

#endif
