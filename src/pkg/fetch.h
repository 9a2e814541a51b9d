/* Getting files: URLs through libcurl into a content-addressed cache, local
 * paths as they are, and every file checked against an expected sha256 and
 * size before anyone reads it. */
#ifndef XCC_FETCH_H
#define XCC_FETCH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* What a download with no promised size may be at most: twice the largest
 * archive NVIDIA or Debian ship for CUDA (a few GB), and less than a disk. */
#define FETCH_DEFAULT_MAX_SIZE (16ull << 30)

typedef void fetch_progress_fn(void *arg, uint64_t done, uint64_t total);

struct fetch_opts {
	const char *cache_dir; /* NULL: fetch_default_cache_dir() */
	int retries;           /* extra attempts after a failed transfer: 0 means the
	                        * default (3), negative none */
	int stall_s;           /* an attempt that receives nothing for this many
	                        * seconds has failed (and is retried): 0 means the
	                        * default (60) */
	uint64_t max_size;     /* the most a URL with no promised size may send:
	                        * 0 means the default (FETCH_DEFAULT_MAX_SIZE) */
	fetch_progress_fn *progress; /* may be NULL; called with bytes so far */
	void *progress_arg;
	/* May be NULL; non-zero (a signal's number): a download gives up
	 * within about a second, keeping its .part for the next run, and
	 * fails with the status 128 + that number. */
	const atomic_int *stop;
};

/* $XDG_CACHE_HOME/cuda-xcc (or ~/.cache/cuda-xcc). Caller frees. */
char *fetch_default_cache_dir(void);

/* True for http://, https:// and file:// URLs. */
int fetch_is_url(const char *s);
/* The local path a file:// URL names (this machine's only). Caller frees. */
int fetch_file_url_path(const char *url, char **path, struct xcc_error *err);

/*
 * Make `src` (URL or local path) available as a verified local file.
 * sha256_hex (64 lowercase hex digits) and size are what the manifest
 * promises; size < 0 or sha256_hex NULL skip that check.  URLs land in the
 * cache under their sha256 (downloads resume from a partial file and are
 * retried); a mismatch removes the bad file and fails with a message that
 * names the file, the expected and the actual values.  *local_path is
 * malloc'ed.
 */
int fetch_file(const struct fetch_opts *o, const char *src, const char *sha256_hex,
	       int64_t size, char **local_path, struct xcc_error *err);

/* fetch_file, and *fd: the file, opened once, at offset 0; its size and
 * sha256 were checked through this descriptor, so read it, not the path,
 * to read only the bytes checked. The caller closes it. */
int fetch_file_fd(const struct fetch_opts *o, const char *src, const char *sha256_hex,
		  int64_t size, char **local_path, int *fd, struct xcc_error *err);

/* /proc/self/fd/N: a name that opens fd's own file again, whatever
 * happened to its path. Caller frees. */
char *fetch_fd_path(int fd);

/* Read a small text (a manifest) from a URL or path; *text malloc'ed and
 * NUL-terminated. */
int fetch_text(const struct fetch_opts *o, const char *src, char **text, size_t *len,
	       struct xcc_error *err);

/* sha256 of a file as 64 hex digits, and its size. */
int fetch_sha256_file(const char *path, char hex[65], uint64_t *size, struct xcc_error *err);

/* The sha256 and size of the local file path, open at fd (left at offset
 * 0): read from the cache's record of this very file where there is one
 * (cache_local_sha256), else hashed through fd. */
int fetch_sha256_fd(const struct fetch_opts *o, const char *path, int fd, char hex[65],
		    uint64_t *size, struct xcc_error *err);

#endif
