/* The download cache's files: <sha256> entries, their <sha256>.part
 * downloads (each its own lock), and the url-<hash> records of URLs without
 * a promised hash. Every open is relative to the directory's descriptor
 * with O_NOFOLLOW (and O_EXCL where it creates), so a link or a FIFO that
 * something else planted in a shared cache is refused or removed, never
 * written through, and never read instead of the entry. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "pkg/cache.h"

#define HASH_BLOCK (256 * 1024)
#define RECORD_MAX 1024

/* How often a download waiting for another's lock looks again, and at
 * the stop flag: a runner cancelled while it waits must not hang until
 * the other's download ends. */
#define LOCK_POLL_NS 50000000L

int cache_open(struct fetch_cache *c, const char *dir, struct xcc_error *err)
{
	c->dir = NULL;
	c->dfd = -1;
	if (file_mkdir_p(dir, err))
		return -1;
	c->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dfd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", dir, strerror(errno));
	c->dir = xstrdup(dir);
	return 0;
}

void cache_close(struct fetch_cache *c)
{
	if (c->dfd >= 0)
		close(c->dfd);
	c->dfd = -1;
	free(c->dir);
	c->dir = NULL;
}

char *cache_path(const struct fetch_cache *c, const char *name)
{
	return xasprintf("%s/%s", c->dir, name);
}

int cache_hash_fd(int fd, struct xcc_sha256 *h, uint64_t *size)
{
	char *buf = xmalloc(HASH_BLOCK);
	ssize_t n;

	*size = 0;
	while ((n = read(fd, buf, HASH_BLOCK)) != 0) {
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			errno = e;
			return -1;
		}
		xcc_sha256_update(h, buf, (size_t)n);
		*size += (uint64_t)n;
	}
	free(buf);
	return 0;
}

/* O_NONBLOCK keeps the open of a planted FIFO from waiting; a regular
 * file, the only kind kept, ignores it, but it goes all the same. */
static int open_nofollow(const struct fetch_cache *c, const char *name, int flags)
{
	int fd = openat(c->dfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);

	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

static const char *kind_of(const struct stat *st)
{
	return S_ISLNK(st->st_mode) ? "a symbolic link" : S_ISDIR(st->st_mode) ? "a directory" :
	       S_ISFIFO(st->st_mode) ? "a FIFO" : S_ISSOCK(st->st_mode) ? "a socket" :
	       S_ISREG(st->st_mode) ? "a regular file" : "a device";
}

/* A .part that is not ours to write: named, with the way out. */
static int refuse_part(const struct fetch_cache *c, const char *name, const struct stat *st,
		       struct xcc_error *err)
{
	char *path = cache_path(c, name);
	int rc;

	if (S_ISREG(st->st_mode))
		rc = xcc_fail(err, XCC_EFAIL,
			      "%s: a partial download owned by user %ju, not by the user running "
			      "cuda-xcc (%ju): it is not written to; remove it, and give each user "
			      "a cache of their own (--cache)", path, (uintmax_t)st->st_uid,
			      (uintmax_t)geteuid());
	else
		rc = xcc_fail(err, XCC_EFAIL,
			      "%s: %s where a partial download belongs: it is not followed or "
			      "written to; remove it, and check what else writes to the cache",
			      path, kind_of(st));
	free(path);
	return rc;
}

static int lock_waiting(int fd, const atomic_int *stop, const char *path, struct xcc_error *err)
{
	const struct timespec tick = { 0, LOCK_POLL_NS };

	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return xcc_fail(err, XCC_EFAIL, "%s: cannot lock: %s", path,
					strerror(errno));
		if (stop && atomic_load(stop))
			return xcc_fail(err, 128 + atomic_load(stop),
					"%s: interrupted while waiting for another download of it",
					path);
		nanosleep(&tick, NULL);
	}
	return 0;
}

/* Open the .part, or create it where there is none; -2 after a race (it
 * came or went meanwhile): try again. */
static int part_open_once(const struct fetch_cache *c, const char *name, struct xcc_error *err)
{
	struct stat st;
	int fd = open_nofollow(c, name, O_RDWR);

	if (fd < 0 && errno == ENOENT) {
		fd = open_nofollow(c, name, O_RDWR | O_CREAT | O_EXCL);
		if (fd < 0 && errno == EEXIST)
			return -2;
	}
	if (fd < 0) {
		int e = errno;
		char *path;

		if (fstatat(c->dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
			return refuse_part(c, name, &st, err);
		if (e == ENOENT)
			return -2;
		path = cache_path(c, name);
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(e));
		free(path);
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		refuse_part(c, name, &st, err);
		close(fd);
		return -1;
	}
	return fd;
}

int cache_part_open(const struct fetch_cache *c, const char *name, const atomic_int *stop,
		    struct xcc_error *err)
{
	char *path = cache_path(c, name);
	int fd = -1;

	for (;;) {
		struct stat a, b;

		fd = part_open_once(c, name, err);
		if (fd == -2)
			continue;
		if (fd < 0)
			break;
		if (lock_waiting(fd, stop, path, err)) {
			close(fd);
			fd = -1;
			break;
		}
		/* The other process renamed or removed the .part while we
		 * waited: ours is no longer the name's. */
		if (fstat(fd, &a) == 0 && fstatat(c->dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			break;
		close(fd);
	}
	free(path);
	return fd;
}

int cache_entry_open(const struct fetch_cache *c, const char *name, int64_t size)
{
	struct xcc_sha256 h;
	struct stat st;
	uint64_t n;
	char actual[65];
	int fd = open_nofollow(c, name, O_RDONLY);

	if (fd < 0) {
		if (errno != ENOENT)
			cache_remove(c, name);
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size >= 0 && st.st_size != size))
		goto bad;
	xcc_sha256_init(&h);
	if (cache_hash_fd(fd, &h, &n))
		goto bad;
	xcc_sha256_hex(&h, actual);
	if (strcmp(actual, name) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		goto bad;
	return fd;
bad:
	close(fd);
	cache_remove(c, name);
	return -1;
}

int cache_store(const struct fetch_cache *c, int fd, const char *part, const char *name,
		struct xcc_error *err)
{
	char *path;

	if (fdatasync(fd) == 0 && renameat(c->dfd, part, c->dfd, name) == 0 && fsync(c->dfd) == 0)
		return 0;
	path = cache_path(c, name);
	xcc_fail(err, XCC_EFAIL, "%s: storing it in the cache failed: %s", path, strerror(errno));
	free(path);
	return -1;
}

void cache_remove(const struct fetch_cache *c, const char *name)
{
	unlinkat(c->dfd, name, 0);
}

/* ---------------------------------------------------------------------------
 * URL records
 */

static int parse_record(char *text, struct cache_record *r)
{
	char *line, *save = NULL;
	int bound = 0;

	r->sha256[0] = '\0';
	r->last_modified = -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "sha256 ", 7) == 0 && strlen(line + 7) == 64 &&
		    strspn(line + 7, "0123456789abcdef") == 64)
			memcpy(r->sha256, line + 7, 65);
		else if (strncmp(line, "last-modified ", 14) == 0)
			r->last_modified = strtoll(line + 14, NULL, 10);
		else if (sscanf(line, "entry %" SCNu64 " %" SCNu64 " %" SCNd64 ".%" SCNd64, &r->dev,
				&r->ino, &r->ctime_s, &r->ctime_ns) == 4)
			bound = 1;
	}
	return r->sha256[0] && bound ? 0 : -1;
}

static int record_read(const struct fetch_cache *c, const char *name, struct cache_record *r)
{
	char text[RECORD_MAX + 1];
	struct stat st;
	ssize_t n;
	int fd = open_nofollow(c, name, O_RDONLY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > RECORD_MAX) {
		close(fd);
		return -1;
	}
	n = read(fd, text, RECORD_MAX);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	return parse_record(text, r);
}

int cache_record_entry_open(const struct fetch_cache *c, const char *name,
			    struct cache_record *r)
{
	struct stat st;
	int fd;

	if (record_read(c, name, r))
		return -1;
	fd = cache_entry_open(c, r->sha256, -1);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (uint64_t)st.st_dev != r->dev || (uint64_t)st.st_ino != r->ino ||
	    (int64_t)st.st_ctim.tv_sec != r->ctime_s || (int64_t)st.st_ctim.tv_nsec != r->ctime_ns) {
		close(fd);
		return -1;
	}
	return fd;
}

void cache_record_store(const struct fetch_cache *c, const char *name, struct cache_record *r,
			int entry_fd)
{
	char *tmp = xasprintf("%s.new-%ld", name, (long)getpid());
	char *text = NULL;
	struct stat st;
	size_t len;
	int fd;

	if (fstat(entry_fd, &st))
		goto out;
	r->dev = (uint64_t)st.st_dev;
	r->ino = (uint64_t)st.st_ino;
	r->ctime_s = (int64_t)st.st_ctim.tv_sec;
	r->ctime_ns = (int64_t)st.st_ctim.tv_nsec;
	text = xasprintf("sha256 %s\nlast-modified %" PRId64 "\nentry %" PRIu64 " %" PRIu64
			 " %" PRId64 ".%09" PRId64 "\n", r->sha256, r->last_modified, r->dev, r->ino,
			 r->ctime_s, r->ctime_ns);
	len = strlen(text);
	unlinkat(c->dfd, tmp, 0);
	fd = open_nofollow(c, tmp, O_WRONLY | O_CREAT | O_EXCL);
	if (fd < 0)
		goto out;
	if (write(fd, text, len) != (ssize_t)len || fdatasync(fd) ||
	    renameat(c->dfd, tmp, c->dfd, name))
		unlinkat(c->dfd, tmp, 0);
	close(fd);
out:
	free(text);
	free(tmp);
}

ino_t cache_record_stamp(const struct fetch_cache *c, const char *name)
{
	struct stat st;

	return fstatat(c->dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) ?
		       st.st_ino : 0;
}

/* ---------------------------------------------------------------------------
 * Records of local files' hashes
 */

/* How long a file must have been left alone before its hash is recorded:
 * far more than any file system's timestamp granularity. */
#define LOCAL_SETTLED_S 2

static char *local_record_name(const char *path)
{
	char hex[65];

	xcc_sha256_buffer(path, strlen(path), hex);
	return xasprintf("local-%s", hex);
}

/* What binds a record to the file: its inode and times, as one line. */
static char *local_binding(const struct stat *st)
{
	return xasprintf("file %ju %ju %jd %jd.%09ld %jd.%09ld", (uintmax_t)st->st_dev,
			 (uintmax_t)st->st_ino, (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
			 st->st_mtim.tv_nsec, (intmax_t)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

/* The record's sha256 when it is a regular file of ours that names path
 * and this binding. */
static int local_record_read(const struct fetch_cache *c, const char *name, const char *path,
			     const char *binding, char hex[65])
{
	char text[RECORD_MAX + PATH_MAX + 1], *want = NULL;
	struct stat st;
	ssize_t n = -1;
	int fd = open_nofollow(c, name, O_RDONLY), rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    st.st_size < (off_t)sizeof text)
		n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	want = xasprintf("path %s\n%s\nsha256 ", path, binding);
	n = (ssize_t)strlen(want);
	if (strncmp(text, want, (size_t)n) == 0 && strlen(text + n) == 65 &&
	    strspn(text + n, "0123456789abcdef") == 64 && text[n + 64] == '\n') {
		memcpy(hex, text + n, 64);
		hex[64] = '\0';
		rc = 0;
	}
	free(want);
	return rc;
}

static void local_record_write(const struct fetch_cache *c, const char *name, const char *path,
			       const char *binding, const char *hex)
{
	char *tmp = xasprintf("%s.new-%ld", name, (long)getpid());
	char *text = xasprintf("path %s\n%s\nsha256 %s\n", path, binding, hex);
	size_t len = strlen(text);
	int fd;

	/* Not synced: a record lost or torn by a power cut is not read (it
	 * must name the file exactly), and costs only a hash later. */
	unlinkat(c->dfd, tmp, 0);
	fd = open_nofollow(c, tmp, O_WRONLY | O_CREAT | O_EXCL);
	if (fd >= 0) {
		if (write(fd, text, len) != (ssize_t)len || renameat(c->dfd, tmp, c->dfd, name))
			unlinkat(c->dfd, tmp, 0);
		close(fd);
	}
	free(text);
	free(tmp);
}

int cache_local_sha256(const struct fetch_cache *c, const char *path, int fd, char hex[65],
		       uint64_t *size)
{
	struct stat before, after;
	struct xcc_sha256 h;
	char *name = NULL, *binding = NULL, *again = NULL;
	int rc = -1;

	if (fstat(fd, &before) || lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	name = local_record_name(path);
	binding = local_binding(&before);
	if (!strchr(path, '\n') && local_record_read(c, name, path, binding, hex) == 0) {
		*size = (uint64_t)before.st_size;
		rc = 0;
		goto out;
	}
	xcc_sha256_init(&h);
	if (cache_hash_fd(fd, &h, size) || lseek(fd, 0, SEEK_SET) != 0 || fstat(fd, &after))
		goto out;
	xcc_sha256_hex(&h, hex);
	rc = 0;
	again = local_binding(&after);
	if (!strchr(path, '\n') && strcmp(binding, again) == 0 && S_ISREG(after.st_mode) &&
	    after.st_ctim.tv_sec + LOCAL_SETTLED_S < time(NULL))
		local_record_write(c, name, path, binding, hex);
out:
	free(again);
	free(binding);
	free(name);
	return rc;
}
