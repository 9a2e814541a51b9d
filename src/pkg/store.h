/* The file store: a content-addressed store of unpacked files beside the
 * download cache (<cache>/files), so that a sysroot made again, or one
 * that shares most files with another, is hard links to files already on
 * the disk rather than another copy of them.
 *
 *   objects/ab/<sha256>-<mode>  a file's bytes and mode, never written
 *                               again once there (a link of the tree file
 *                               create made: no copy is taken)
 *   trees/<key>                 a record: what a tree was made of (the
 *                               caller's text) and the stamp of each object
 *                               it links, as it was when recorded
 *   lock                        shared by creates, exclusive for gc
 *
 * Like the download cache (cache.h) it may be shared, so every open is
 * relative to a directory descriptor without following links, and only
 * what the running user owns is used: a link, a FIFO or another user's
 * file under an object's name is never written through, read or linked. */
#ifndef XCC_PKG_STORE_H
#define XCC_PKG_STORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

#define STORE_DIR_NAME "files"

struct file_store {
	int dfd;          /* <cache>/files, O_DIRECTORY */
	int objects_fd;   /* objects/ */
	int trees_fd;     /* trees/ */
	int lock_fd;      /* lock; flock'ed while locked */
	int sub[256];     /* objects/00 .. objects/ff, opened as needed; -1: not yet */
	dev_t dev;        /* the store's file system: links cannot leave it */
	char *dir;        /* its path, for messages */
};

/* An object as a record names it: its name and what its inode said when the
 * record was written. A file changed in place through any of its links has
 * another modification time: then it is not used again. */
struct store_stamp {
	char name[72];    /* <sha256>-<mode, 4 octal digits> */
	int64_t size;
	int64_t mtime_s, mtime_ns;
};

/* <cache_dir or fetch's default>/files opened, made first if create; no
 * lock taken. 0; 1 when there is none and create is 0 (only s->dir
 * is set: store_close it); -1 with err. Anything but a directory (a planted link) at one of its
 * directories is refused, naming it. */
int store_open(struct file_store *s, const char *cache_dir, int create, struct xcc_error *err);
/* Releases the lock too; takes an empty (never opened) store. */
void store_close(struct file_store *s);
/* Take the store's lock, shared (creates) or exclusive (gc), waiting for
 * the other holders; a non-zero *stop ends the wait with 128 + *stop. */
int store_lock(struct file_store *s, int exclusive, const atomic_int *stop,
	       struct xcc_error *err);
void store_unlock(struct file_store *s);

/* The object name of bytes hashing to sha256 with mode: "<sha256>-0644". */
void store_object_name(const char *sha256, unsigned mode, char name[72]);

/*
 * The regular file dirfd/rel, whose bytes hash to sha256 and whose mode is
 * mode (as its tree's listing recorded them, just before), shared with the
 * store: linked in as a new object, or replaced by a link to an object of
 * the same name whose bytes are the same. An object that differs from its
 * name (changed in place since) is replaced by this file; anything but
 * a regular file under the name is removed. *stamp is filled. 1: shared;
 * 0: left as it was (another file system, another user's object, too many
 * links); -1 with err on an I/O error.
 */
int store_share(struct file_store *s, int dirfd, const char *rel, const char *sha256,
		unsigned mode, struct store_stamp *stamp, struct xcc_error *err);

/* Whether the object is as stamp says: a regular file of the running
 * user's, of that mode, size and modification time. */
int store_object_fresh(struct file_store *s, const struct store_stamp *stamp);

/* The object (checked as store_object_fresh does) at dirfd/rel, which must
 * not exist: a hard link, or where links cannot go (another file system,
 * too many links) a copy (a reflink where the file system makes one) with
 * the object's mode and modification time. 1: made; 0: the object is not
 * as stamped (nothing made); -1 with err. */
int store_link_out(struct file_store *s, const struct store_stamp *stamp, int dirfd,
		   const char *rel, struct xcc_error *err);

/* Write trees/<key> (64 hex digits) atomically: data and the stamps of the
 * objects it links. */
int store_record_write(struct file_store *s, const char *key, const char *data,
		       const struct store_stamp *objs, size_t n, struct xcc_error *err);
/* trees/<key>: 1 with *data and *objs (caller frees both) when there is a
 * readable record of the running user's there; 0 when there is none. */
int store_record_read(struct file_store *s, const char *key, char **data,
		      struct store_stamp **objs, size_t *n);

/* What gc removed and kept. */
struct store_gc_result {
	size_t objects_removed, objects_kept;
	uint64_t bytes_removed, bytes_kept; /* st_blocks: what the disk gets back */
	size_t records_removed, records_kept;
	size_t other_removed; /* links, temporaries and other things that are no object */
};

/*
 * With the lock held exclusive: remove each object no tree links (its link
 * count is 1), then each record one of whose objects is gone or changed,
 * and whatever is neither (a planted link, a temporary left by a killed
 * create). A tree never breaks: its links keep its files.
 */
int store_gc(struct file_store *s, struct store_gc_result *r, struct xcc_error *err);

#endif
