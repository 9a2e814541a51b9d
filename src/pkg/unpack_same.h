/* Whether a member equals what another archive already made at its path
 * (unpack_opts.claim), and names made readable for messages. Private to
 * pkg/. */
#ifndef XCC_UNPACK_SAME_H
#define XCC_UNPACK_SAME_H

#include <archive.h>
#include <archive_entry.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>

/* A name as people can read it: a newline, a tab or another control byte
 * as a C escape, so that the message is one line that says what is
 * there. Caller frees. */
char *unpack_shown_name(const char *s);

#define SAME_UNREADABLE (-1) /* the archive could not be read: its error */
#define SAME_STOPPED (-2)    /* *stop was set */

/* The regular member a stands on, read now, against the file fd of
 * `size` bytes, holes of the member compared as zeros: 1 equal, 0 not, or
 * SAME_UNREADABLE, SAME_STOPPED. */
int same_data(struct archive *a, int fd, uint64_t size, const atomic_int *stop);

/* The later mtime of two equal copies stays (fd's, or the member's): the
 * same whichever came first. */
void same_keep_later_mtime(int fd, const struct stat *st, struct archive_entry *e);

/* How the symlink to target differs from what is at dirfd/leaf, or NULL. */
const char *same_symlink(int dirfd, const char *leaf, const char *target);

/* How a hard link to the tree's file target (below destfd) differs from
 * what is at dirfd/leaf, or NULL. */
const char *same_hardlink(int destfd, const char *target, int dirfd, const char *leaf);

#endif
