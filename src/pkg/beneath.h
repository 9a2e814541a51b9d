/* Paths beneath a directory: how unpack.c resolves an archive member's path
 * inside the destination, one component at a time, and how a finished tree
 * is checked and opened without leaving it. Private to pkg/. */
#ifndef XCC_BENEATH_H
#define XCC_BENEATH_H

#include <limits.h>

#define MAX_SYMLINK_HOPS 40

enum resolve_result {
	RESOLVE_OK,
	RESOLVE_ESCAPES,   /* would lead outside the destination */
	RESOLVE_ABSOLUTE,  /* through a symlink with an absolute target */
	RESOLVE_LOOP,      /* too many symlinks */
	RESOLVE_TOOLONG,
	RESOLVE_IOERR,
};

/*
 * Resolve `path`, relative to `base` (a canonical directory relative to the
 * destination, "" for the destination itself), into `canon`: a path relative
 * to the destination with no symlinks among the components that exist.
 * Components that do not exist are taken lexically. follow_last says whether
 * a symlink as the last component is followed.
 */
enum resolve_result resolve_beneath(int destfd, const char *base, const char *path,
				    int follow_last, char canon[PATH_MAX]);
/* r for a message: "leads outside the destination"... */
const char *resolve_problem(enum resolve_result r);
/* dir "/" leaf into out ("" dir: leaf alone); -1 when too long. */
int canon_join(char out[PATH_MAX], const char *dir, const char *leaf);
/* Open a directory below destfd whose path has no symlinks; the kernel
 * enforces both where it can. */
int open_dir_beneath(int destfd, const char *canon);

#endif
