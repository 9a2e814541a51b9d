/* The download cache's own files, every one of them opened relative to the
 * cache directory's descriptor and never through a symbolic link: the cache
 * may be shared (CI runners, a restored tarball), so whatever else can write
 * there must not make cuda-xcc write, or read, anywhere else. fetch.c's
 * downloads are its only user. */
#ifndef XCC_PKG_CACHE_H
#define XCC_PKG_CACHE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "base/sha256.h"

struct fetch_cache {
	int dfd;   /* the cache directory, O_DIRECTORY */
	char *dir; /* its path, for messages and the paths handed out */
};

/* Make the directory if need be and open it. */
int cache_open(struct fetch_cache *c, const char *dir, struct xcc_error *err);
void cache_close(struct fetch_cache *c);
/* DIR/NAME, malloc'ed. */
char *cache_path(const struct fetch_cache *c, const char *name);

/* Feed fd's bytes from its offset to EOF into h; -1 with errno set. */
int cache_hash_fd(int fd, struct xcc_sha256 *h, uint64_t *size);

/*
 * Open NAME (a .part) for reading and writing, creating it (O_EXCL) if
 * there is none, and take its lock, waiting for another process that holds
 * it (a non-zero *stop ends the wait with status 128 + *stop). Anything but
 * a regular file of the running user's (a symbolic link, a FIFO, a file of
 * another user's) is refused naming its path, never followed or written.
 */
int cache_part_open(const struct fetch_cache *c, const char *name, const atomic_int *stop,
		    struct xcc_error *err);

/*
 * The finished entry NAME (a sha256) opened read-only when it is a regular
 * file of `size` bytes (size < 0: any) whose content, read through the
 * descriptor returned, hashes to NAME; the descriptor is back at offset 0.
 * -1 when there is none; a bad entry, or something else under its name (a
 * link, a FIFO), is removed (the name only: a link is never followed).
 */
int cache_entry_open(const struct fetch_cache *c, const char *name, int64_t size);

/* The .part behind fd, complete and verified, under its final NAME: synced,
 * renamed, the directory synced. */
int cache_store(const struct fetch_cache *c, int fd, const char *part, const char *name,
		struct xcc_error *err);
void cache_remove(const struct fetch_cache *c, const char *name);

/*
 * The record of a URL without a promised hash: url-<sha256 of the URL>, a
 * regular file that binds the server's validator to the sha256 of the
 * bytes it sent with it, and to the very file those bytes were stored in
 * (device, inode and change time of the entry, which no copy or restore of
 * the cache keeps). A 304 revalidates the record only while it names that
 * file, and the file is hashed again before it is used: a record restored
 * from elsewhere, or edited, cannot choose which archive a URL gives.
 */
struct cache_record {
	char sha256[65];
	int64_t last_modified; /* the server's Last-Modified, or -1 */
	uint64_t dev, ino;         /* the entry's file */
	int64_t ctime_s, ctime_ns;
};

/* The entry NAME's record names, opened as cache_entry_open does, when the
 * record is readable and the entry is the very file it was written for;
 * else -1. */
int cache_record_entry_open(const struct fetch_cache *c, const char *name,
			    struct cache_record *r);
/* Replace the record atomically, bound to the entry open at entry_fd;
 * failing costs only a download later. */
void cache_record_store(const struct fetch_cache *c, const char *name, struct cache_record *r,
			int entry_fd);
/* Something that changes whenever the record is replaced (its inode), 0
 * when there is none. */
ino_t cache_record_stamp(const struct fetch_cache *c, const char *name);

/*
 * The sha256 and size of the local file open at fd (named path): from the
 * record local-<sha256 of path> where it names this very file (device,
 * inode, size, modification and change times: any write changes the change
 * time, which no user sets), else hashed through fd and recorded, when the
 * file has been left alone for a while (a write within the file system's
 * timestamp granularity of the last could leave the times as they were).
 * A second create from the same packages then need not read them all to
 * know its fingerprint. fd is left at offset 0; -1 with errno set.
 */
int cache_local_sha256(const struct fetch_cache *c, const char *path, int fd, char hex[65],
		       uint64_t *size);

#endif
