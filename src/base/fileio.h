/* Small file helpers for the modules that keep state on disk: one way to
 * read a text file, to replace a file atomically, to make a directory path,
 * to remove a tree. */
#ifndef XCC_FILEIO_H
#define XCC_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

/* The whole file, NUL-terminated (*len without the NUL, when len is not
 * NULL); NULL with errno set when it cannot be read. Caller frees. */
char *file_read_text(const char *path, size_t *len);

/* Replace path with data: a temporary file next to it, fsync, rename. A
 * failure leaves the old file as it was. */
int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
		      struct xcc_error *err);

/* Writes what the user named as an output to fd. stream 0: fd is a new
 * regular file, which may be sought, pwritten, fchmodded; stream 1: fd is
 * the named file itself (a FIFO, a device), which may not seek and is
 * written front to back. */
typedef int (*fileio_fill_fn)(int fd, int stream, void *ctx, struct xcc_error *err);

/* Write the file a user named (an --output), as a shell's '>' would land
 * but without losing the old contents on failure:
 *  - missing or a regular file: a new file next to it (mode, less the
 *    umask), filled, synced and renamed over it; a failure leaves the old
 *    file as it was;
 *  - a symlink: written through: the same at the file its chain of links
 *    ends at, which may be missing (a dangling link); the links stay;
 *  - a FIFO, a device or another file that is neither regular nor a
 *    directory: opened and written directly, never replaced (a rename
 *    would turn /dev/null into a regular file);
 *  - a directory: refused.
 * Errors name path. */
int fileio_write_output(const char *path, mode_t mode, fileio_fill_fn fill, void *ctx,
			struct xcc_error *err);
/* The same with data as the contents. */
int fileio_write_output_data(const char *path, const void *data, size_t len, mode_t mode,
			     struct xcc_error *err);

struct strvec;
/* The entries of directory dir but "." and "..", sorted (readdir's order
 * is the file system's, and what is reported from them should not be).
 * -1 with errno set when dir cannot be opened. */
int file_list_dir(const char *dir, struct strvec *names);

/* Whether path is a directory (following symlinks). */
int file_is_dir(const char *path);

/* mkdir -p: every missing directory of path, mode 0755. */
int file_mkdir_p(const char *path, struct xcc_error *err);

/* Whether anything is at path (a dangling symlink counts). */
int file_exists(const char *path);

/* rm -rf, staying on this file system and never following links; 0 when
 * nothing is left at path. */
int file_remove_tree(const char *path);

/* The directory part of path ("." without a slash); caller frees. */
char *file_dir_name(const char *path);
/* The last component of path, inside path. */
const char *file_base_name(const char *path);

/* path made absolute with realpath(3), or a copy of path where that fails
 * (the caller's next open then says why). Caller frees. */
char *file_absolute(const char *path);

#endif
