/* The file store's objects, records and lock (store.h). An object is only
 * ever made by linking a finished file of a tree being created (its bytes
 * hashed a moment before) under its name, atomically, so there is never a
 * half-written object; nothing opens an object for writing. A name that
 * holds something else (a link, a FIFO, bytes changed in place) is
 * removed or replaced, never written through. */
#include <config.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "pkg/fetch.h"
#include "pkg/store.h"

#ifndef FICLONE
#define FICLONE _IOW(0x94, 9, int)
#endif

#define COPY_BLOCK (256 * 1024)
#define RECORD_FORMAT 1
#define RECORD_MAX (1u << 30)
/* How often a wait for the lock looks again, and at the stop flag. */
#define LOCK_POLL_NS 50000000L

static int open_flags(void)
{
	return O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
}

/* dfd/name as a directory, made if need be; anything else there is
 * refused (top: naming it) or, for an objects/xx directory, removed (the
 * name only) and made again. */
static int dir_at(int dfd, const char *name, const char *where, int heal, int create,
		  struct xcc_error *err)
{
	int fd;

	for (int tries = 0; tries < 2; tries++) {
		if (create && mkdirat(dfd, name, 0755) && errno != EEXIST)
			break;
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | open_flags());
		if (fd >= 0)
			return fd;
		if ((errno != ELOOP && errno != ENOTDIR) || !heal)
			break;
		unlinkat(dfd, name, 0);
	}
	if (errno == ELOOP || errno == ENOTDIR)
		return xcc_fail(err, XCC_EFAIL, "%s/%s is not a directory (a symbolic link?): the "
				"file store does not follow it; remove it, and check what else "
				"writes to the cache", where, name);
	return xcc_fail(err, XCC_EFAIL, "%s/%s: %s", where, name, strerror(errno));
}

int store_open(struct file_store *s, const char *cache_dir, int create, struct xcc_error *err)
{
	char *cache = cache_dir ? xstrdup(cache_dir) : fetch_default_cache_dir();
	struct stat st;
	int cfd = -1, rc = -1;

	memset(s, 0, sizeof *s);
	s->dfd = s->objects_fd = s->trees_fd = s->lock_fd = -1;
	for (size_t i = 0; i < 256; i++)
		s->sub[i] = -1;
	s->dir = xasprintf("%s/%s", cache, STORE_DIR_NAME);
	if (create && file_mkdir_p(cache, err))
		goto out;
	cfd = open(cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cfd < 0 && errno == ENOENT && !create) {
		rc = 1;
		goto out;
	}
	if (cfd < 0) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", cache, strerror(errno));
		goto out;
	}
	/* Not there and not to be made: no store yet, which is no error. */
	if (!create && fstatat(cfd, STORE_DIR_NAME, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT) {
		rc = 1;
		goto out;
	}
	if ((s->dfd = dir_at(cfd, STORE_DIR_NAME, cache, 0, create, err)) < 0 ||
	    (s->objects_fd = dir_at(s->dfd, "objects", s->dir, 0, create, err)) < 0 ||
	    (s->trees_fd = dir_at(s->dfd, "trees", s->dir, 0, create, err)) < 0)
		goto out;
	if (fstat(s->objects_fd, &st)) {
		xcc_fail(err, XCC_EFAIL, "%s/objects: %s", s->dir, strerror(errno));
		goto out;
	}
	s->dev = st.st_dev;
	rc = 0;
out:
	if (cfd >= 0)
		close(cfd);
	free(cache);
	if (rc < 0)
		store_close(s);
	return rc;
}

void store_close(struct file_store *s)
{
	int *fds[] = { &s->dfd, &s->objects_fd, &s->trees_fd, &s->lock_fd };

	if (!s->dir)
		return;
	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	for (size_t i = 0; i < 256; i++) {
		if (s->sub[i] >= 0)
			close(s->sub[i]);
		s->sub[i] = -1;
	}
	free(s->dir);
	s->dir = NULL;
}

/* The lock file: writable where it can be, else read-only (another user's
 * lock still takes flock); a regular file only. */
static int open_lock(struct file_store *s, struct xcc_error *err)
{
	struct stat st;
	int fd = openat(s->dfd, "lock", O_RDWR | O_CREAT | open_flags(), 0644);

	if (fd < 0 && errno == EACCES)
		fd = openat(s->dfd, "lock", O_RDONLY | open_flags());
	if (fd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s/lock: %s%s", s->dir, strerror(errno),
				errno == ELOOP ? " (a symbolic link: it is not followed; remove it)"
					       : "");
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return xcc_fail(err, XCC_EFAIL, "%s/lock is not a regular file: remove it, and "
				"check what else writes to the cache", s->dir);
	}
	s->lock_fd = fd;
	return 0;
}

int store_lock(struct file_store *s, int exclusive, const atomic_int *stop,
	       struct xcc_error *err)
{
	const struct timespec tick = { 0, LOCK_POLL_NS };

	if (s->lock_fd < 0 && open_lock(s, err))
		return -1;
	while (flock(s->lock_fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return xcc_fail(err, XCC_EFAIL, "%s/lock: cannot lock: %s", s->dir,
					strerror(errno));
		if (stop && atomic_load(stop))
			return xcc_fail(err, 128 + atomic_load(stop), "%s: interrupted while "
					"waiting for the file store's lock", s->dir);
		nanosleep(&tick, NULL);
	}
	return 0;
}

void store_unlock(struct file_store *s)
{
	if (s->lock_fd >= 0)
		flock(s->lock_fd, LOCK_UN);
}

void store_object_name(const char *sha256, unsigned mode, char name[72])
{
	snprintf(name, 72, "%.64s-%04o", sha256, mode & 07777);
}

static int is_hex(const char *s, size_t n)
{
	return strlen(s) >= n && strspn(s, "0123456789abcdef") >= n;
}

/* "<64 hex>-<4 octal>" and nothing else; its mode in *mode. */
static int object_name_ok(const char *name, unsigned *mode)
{
	if (strlen(name) != 69 || !is_hex(name, 64) || name[64] != '-' ||
	    strspn(name + 65, "01234567") != 4)
		return 0;
	if (mode)
		*mode = (unsigned)strtoul(name + 65, NULL, 8);
	return 1;
}

/* objects/<first two hex digits of name>, opened once (made if create). */
static int sub_dir(struct file_store *s, const char *name, int create)
{
	char hex[3] = { name[0], name[1], 0 };
	unsigned idx = (unsigned)strtoul(hex, NULL, 16) & 0xff;
	struct xcc_error e = { 0 };

	if (s->sub[idx] >= 0)
		return s->sub[idx];
	if (!create) {
		s->sub[idx] = openat(s->objects_fd, hex, O_RDONLY | O_DIRECTORY | open_flags());
		return s->sub[idx];
	}
	s->sub[idx] = dir_at(s->objects_fd, hex, s->dir, 1, 1, &e);
	return s->sub[idx];
}

static void stamp_from(struct store_stamp *stamp, const struct stat *st)
{
	stamp->size = (int64_t)st->st_size;
	stamp->mtime_s = (int64_t)st->st_mtim.tv_sec;
	stamp->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
}

static int read_full(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return (int)(got == n);
}

/* Whether the bytes at a and at dirfd/rel are the same (their sizes are). */
static int same_bytes(int a, int dirfd, const char *rel, int64_t size)
{
	int b = openat(dirfd, rel, O_RDONLY | open_flags());
	char *x = xmalloc(COPY_BLOCK), *y = xmalloc(COPY_BLOCK);
	int same = b >= 0 && lseek(a, 0, SEEK_SET) == 0;

	for (int64_t left = size; same && left > 0;) {
		size_t n = left < COPY_BLOCK ? (size_t)left : COPY_BLOCK;

		same = read_full(a, x, n) && read_full(b, y, n) && memcmp(x, y, n) == 0;
		left -= (int64_t)n;
	}
	if (b >= 0)
		close(b);
	free(x);
	free(y);
	return same;
}

/* dirfd/rel replaced by a link to the object open at ofd (under sub/name):
 * through a temporary name beside it, and only when the link made is that
 * very object. 1, 0 (left as it was), -1 (errno). */
static int replace_by_object(int sub, const char *name, int ofd, int dirfd, const char *rel)
{
	char *tmp = xasprintf("%s.cuda-xcc-store", rel);
	struct stat o, t;
	int rc = 0;

	if (fstat(ofd, &o) || linkat(sub, name, dirfd, tmp, 0))
		goto out;
	if (fstatat(dirfd, tmp, &t, AT_SYMLINK_NOFOLLOW) || t.st_ino != o.st_ino ||
	    t.st_dev != o.st_dev) {
		unlinkat(dirfd, tmp, 0);
		goto out;
	}
	rc = renameat(dirfd, tmp, dirfd, rel) == 0 ? 1 : -1;
	if (rc < 0)
		unlinkat(dirfd, tmp, 0);
out:
	free(tmp);
	return rc;
}

/* An object whose bytes are not its name's any more: this file in its
 * place, by rename (the trees that link the old one keep it). */
static int replace_object(int sub, const char *name, int dirfd, const char *rel)
{
	char *tmp = xasprintf("%s.new-%ld", name, (long)getpid());
	int ok;

	unlinkat(sub, tmp, 0);
	ok = linkat(dirfd, rel, sub, tmp, 0) == 0 && renameat(sub, tmp, sub, name) == 0;
	if (!ok)
		unlinkat(sub, tmp, 0);
	free(tmp);
	return ok;
}

/* The name exists: share it, or put this file in place of what is wrong
 * there. 1 shared, 0 not, 2 gone meanwhile (try the link again), -1. */
static int share_existing(int sub, const struct stat *st, int dirfd,
			  const char *rel, unsigned mode, struct store_stamp *stamp)
{
	struct stat ob;
	int fd = openat(sub, stamp->name, O_RDONLY | open_flags()), rc;

	if (fd < 0 && errno == ENOENT)
		return 2;
	if (fd < 0 && errno == EACCES)
		return 0; /* another user's, unreadable: not ours to judge */
	if (fd < 0 || fstat(fd, &ob) || !S_ISREG(ob.st_mode)) {
		if (fd >= 0)
			close(fd);
		return unlinkat(sub, stamp->name, 0) == 0 || errno == ENOENT ? 2 : 0;
	}
	if (ob.st_dev == st->st_dev && ob.st_ino == st->st_ino) {
		stamp_from(stamp, &ob);
		close(fd);
		return 1;
	}
	if (ob.st_uid != geteuid()) {
		close(fd);
		return 0;
	}
	if ((ob.st_mode & 07777) != mode || ob.st_size != st->st_size ||
	    !same_bytes(fd, dirfd, rel, (int64_t)st->st_size)) {
		close(fd);
		rc = replace_object(sub, stamp->name, dirfd, rel);
		if (rc)
			stamp_from(stamp, st);
		return rc;
	}
	rc = replace_by_object(sub, stamp->name, fd, dirfd, rel);
	if (rc == 1)
		stamp_from(stamp, &ob);
	close(fd);
	return rc;
}

int store_share(struct file_store *s, int dirfd, const char *rel, const char *sha256,
		unsigned mode, struct store_stamp *stamp, struct xcc_error *err)
{
	struct stat st;
	int sub, rc = 2;

	store_object_name(sha256, mode, stamp->name);
	if (fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW))
		return xcc_fail(err, XCC_EFAIL, "%s: %s", rel, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_dev != s->dev || (st.st_mode & 07777) != (mode & 07777) ||
	    (sub = sub_dir(s, stamp->name, 1)) < 0)
		return 0;
	for (int tries = 0; rc == 2 && tries < 4; tries++) {
		if (linkat(dirfd, rel, sub, stamp->name, 0) == 0) {
			stamp_from(stamp, &st);
			return 1;
		}
		if (errno != EEXIST)
			return 0; /* too many links, no room for a name: not shared */
		rc = share_existing(sub, &st, dirfd, rel, mode & 07777, stamp);
	}
	if (rc < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: linking it to the file store's %s: %s", rel,
				stamp->name, strerror(errno));
	return rc == 1;
}

static int fresh(const struct stat *st, const struct store_stamp *stamp)
{
	unsigned mode;

	return object_name_ok(stamp->name, &mode) && S_ISREG(st->st_mode) &&
	       st->st_uid == geteuid() && (unsigned)(st->st_mode & 07777) == mode &&
	       (int64_t)st->st_size == stamp->size &&
	       (int64_t)st->st_mtim.tv_sec == stamp->mtime_s &&
	       (int64_t)st->st_mtim.tv_nsec == stamp->mtime_ns;
}

int store_object_fresh(struct file_store *s, const struct store_stamp *stamp)
{
	struct stat st;
	int sub;

	if (!object_name_ok(stamp->name, NULL) || (sub = sub_dir(s, stamp->name, 0)) < 0)
		return 0;
	return fstatat(sub, stamp->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && fresh(&st, stamp);
}

/* in's bytes into out: a reflink where the file system makes one, else
 * copy_file_range, else read and write. */
static int copy_bytes(int in, int out, int64_t size)
{
	char *buf;
	int64_t left = size;

	if (ioctl(out, FICLONE, in) == 0)
		return 0;
	while (left > 0) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);

		if (n <= 0)
			break;
		left -= n;
	}
	if (left == 0)
		return 0;
	if (lseek(in, size - left, SEEK_SET) < 0)
		return -1;
	buf = xmalloc(COPY_BLOCK);
	while (left > 0) {
		ssize_t n = read(in, buf, left < COPY_BLOCK ? (size_t)left : COPY_BLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || write(out, buf, (size_t)n) != n)
			break;
		left -= n;
	}
	free(buf);
	return left == 0 ? 0 : -1;
}

/* The object open at in (checked) copied to dirfd/rel, with its mode and
 * modification time. */
static int copy_out(int in, const struct stat *ob, int dirfd, const char *rel,
		    struct xcc_error *err)
{
	struct timespec times[2] = { { 0, UTIME_OMIT }, ob->st_mtim };
	int out = openat(dirfd, rel, O_WRONLY | O_CREAT | O_EXCL | open_flags(), 0600), rc = 0;

	if (out < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", rel, strerror(errno));
	if (copy_bytes(in, out, (int64_t)ob->st_size) || fchmod(out, ob->st_mode & 07777) ||
	    futimens(out, times))
		rc = xcc_fail(err, XCC_EFAIL, "%s: copying it from the file store: %s", rel,
			      strerror(errno));
	close(out);
	return rc;
}

int store_link_out(struct file_store *s, const struct store_stamp *stamp, int dirfd,
		   const char *rel, struct xcc_error *err)
{
	struct stat ob, t;
	int sub, fd, rc;

	if (!object_name_ok(stamp->name, NULL) || (sub = sub_dir(s, stamp->name, 0)) < 0 ||
	    fstatat(sub, stamp->name, &ob, AT_SYMLINK_NOFOLLOW) || !fresh(&ob, stamp))
		return 0;
	if (linkat(sub, stamp->name, dirfd, rel, 0) == 0) {
		/* The name may have changed hands since it was looked at. */
		if (fstatat(dirfd, rel, &t, AT_SYMLINK_NOFOLLOW) == 0 && t.st_ino == ob.st_ino &&
		    t.st_dev == ob.st_dev)
			return 1;
		unlinkat(dirfd, rel, 0);
		return 0;
	}
	if (errno == ENOENT)
		return 0; /* gone since: gc, which the lock keeps out, or another user */
	if (errno != EXDEV && errno != EMLINK && errno != EPERM)
		return xcc_fail(err, XCC_EFAIL, "%s: linking the file store's %s: %s", rel,
				stamp->name, strerror(errno));
	fd = openat(sub, stamp->name, O_RDONLY | open_flags());
	if (fd < 0 || fstat(fd, &t) || t.st_ino != ob.st_ino || !fresh(&t, stamp)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rc = copy_out(fd, &t, dirfd, rel, err) ? -1 : 1;
	close(fd);
	return rc;
}

static int key_ok(const char *key)
{
	return strlen(key) == 64 && is_hex(key, 64);
}

static char *record_text(const char *data, const struct store_stamp *objs, size_t n)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "objects");
	char *text;

	cJSON_AddNumberToObject(root, "format", RECORD_FORMAT);
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateArray();

		cJSON_AddItemToArray(o, cJSON_CreateString(objs[i].name));
		cJSON_AddItemToArray(o, cJSON_CreateNumber((double)objs[i].size));
		cJSON_AddItemToArray(o, cJSON_CreateNumber((double)objs[i].mtime_s));
		cJSON_AddItemToArray(o, cJSON_CreateNumber((double)objs[i].mtime_ns));
		cJSON_AddItemToArray(arr, o);
	}
	cJSON_AddStringToObject(root, "data", data);
	text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return text;
}

int store_record_write(struct file_store *s, const char *key, const char *data,
		       const struct store_stamp *objs, size_t n, struct xcc_error *err)
{
	char *text = record_text(data, objs, n);
	char *tmp = xasprintf("%s.new-%ld", key, (long)getpid());
	size_t len = strlen(text);
	int fd, rc = -1;

	if (!key_ok(key)) {
		xcc_fail(err, XCC_EFAIL, "file store: '%s' is no record's name", key);
		goto out;
	}
	unlinkat(s->trees_fd, tmp, 0);
	fd = openat(s->trees_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | open_flags(), 0644);
	if (fd < 0) {
		xcc_fail(err, XCC_EFAIL, "%s/trees/%s: %s", s->dir, tmp, strerror(errno));
		goto out;
	}
	if (write(fd, text, len) == (ssize_t)len && fdatasync(fd) == 0 &&
	    renameat(s->trees_fd, tmp, s->trees_fd, key) == 0 && fsync(s->trees_fd) == 0)
		rc = 0;
	else
		xcc_fail(err, XCC_EFAIL, "%s/trees/%s: writing the record: %s", s->dir, key,
			 strerror(errno));
	close(fd);
	if (rc)
		unlinkat(s->trees_fd, tmp, 0);
out:
	free(tmp);
	free(text);
	return rc;
}

/* The whole of a regular file of the running user's at trees/key. */
static char *read_record_file(struct file_store *s, const char *key)
{
	struct stat st;
	char *text = NULL;
	int fd = openat(s->trees_fd, key, O_RDONLY | open_flags());

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    (uint64_t)st.st_size < RECORD_MAX) {
		text = xmalloc((size_t)st.st_size + 1);
		if (!read_full(fd, text, (size_t)st.st_size)) {
			free(text);
			text = NULL;
		} else {
			text[st.st_size] = '\0';
		}
	}
	close(fd);
	return text;
}

static int parse_stamp(const cJSON *o, struct store_stamp *st)
{
	const cJSON *name = cJSON_GetArrayItem(o, 0), *size = cJSON_GetArrayItem(o, 1);
	const cJSON *sec = cJSON_GetArrayItem(o, 2), *ns = cJSON_GetArrayItem(o, 3);

	if (!cJSON_IsString(name) || !object_name_ok(name->valuestring, NULL) ||
	    !cJSON_IsNumber(size) || !cJSON_IsNumber(sec) || !cJSON_IsNumber(ns))
		return -1;
	snprintf(st->name, sizeof st->name, "%s", name->valuestring);
	st->size = (int64_t)size->valuedouble;
	st->mtime_s = (int64_t)sec->valuedouble;
	st->mtime_ns = (int64_t)ns->valuedouble;
	return 0;
}

int store_record_read(struct file_store *s, const char *key, char **data,
		      struct store_stamp **objs, size_t *n)
{
	char *text = key_ok(key) ? read_record_file(s, key) : NULL;
	cJSON *root = text ? cJSON_Parse(text) : NULL;
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "objects");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "data"), *it;
	int ok = cJSON_IsNumber(fmt) && fmt->valuedouble == RECORD_FORMAT &&
		 cJSON_IsArray(arr) && cJSON_IsString(d);

	*data = NULL;
	*objs = NULL;
	*n = 0;
	if (ok) {
		*objs = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof **objs);
		cJSON_ArrayForEach(it, arr)
			if (parse_stamp(it, &(*objs)[(*n)++]))
				ok = 0;
	}
	if (ok) {
		*data = xstrdup(d->valuestring);
	} else {
		free(*objs);
		*objs = NULL;
		*n = 0;
	}
	cJSON_Delete(root);
	free(text);
	return ok;
}

/* The objects of one objects/xx directory. */
static void gc_objects_in(int dfd, struct store_gc_result *r)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!object_name_ok(e->d_name, NULL) || !S_ISREG(st.st_mode)) {
			if (!S_ISDIR(st.st_mode) && unlinkat(dirfd(d), e->d_name, 0) == 0)
				r->other_removed++;
		} else if (st.st_nlink == 1 && unlinkat(dirfd(d), e->d_name, 0) == 0) {
			r->objects_removed++;
			r->bytes_removed += (uint64_t)st.st_blocks * 512;
		} else {
			r->objects_kept++;
			r->bytes_kept += (uint64_t)st.st_blocks * 512;
		}
	}
	closedir(d);
}

/* Whether the record at name is ours and whole, and every object it links
 * is still as it was. */
static int record_alive(struct file_store *s, const char *name)
{
	struct store_stamp *objs;
	char *data;
	size_t n;
	int ok = store_record_read(s, name, &data, &objs, &n);

	for (size_t i = 0; ok && i < n; i++)
		ok = store_object_fresh(s, &objs[i]);
	free(data);
	free(objs);
	return ok;
}

static int gc_records(struct file_store *s, struct store_gc_result *r, struct xcc_error *err)
{
	int fd = dup(s->trees_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return xcc_fail(err, XCC_EFAIL, "%s/trees: %s", s->dir, strerror(errno));
	}
	while ((e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(s->trees_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!key_ok(e->d_name) || !S_ISREG(st.st_mode)) {
			if (!S_ISDIR(st.st_mode) && unlinkat(s->trees_fd, e->d_name, 0) == 0)
				r->other_removed++;
		} else if (st.st_uid != geteuid() || record_alive(s, e->d_name)) {
			r->records_kept++; /* another user's is theirs to judge */
		} else if (unlinkat(s->trees_fd, e->d_name, 0) == 0) {
			r->records_removed++;
		}
	}
	closedir(d);
	return 0;
}

int store_gc(struct file_store *s, struct store_gc_result *r, struct xcc_error *err)
{
	memset(r, 0, sizeof *r);
	for (unsigned i = 0; i < 256; i++) {
		char hex[3];
		struct stat st;
		int fd;

		snprintf(hex, sizeof hex, "%02x", i);
		if (fstatat(s->objects_fd, hex, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!S_ISDIR(st.st_mode)) {
			if (unlinkat(s->objects_fd, hex, 0) == 0)
				r->other_removed++;
			continue;
		}
		fd = openat(s->objects_fd, hex, O_RDONLY | O_DIRECTORY | open_flags());
		if (fd >= 0)
			gc_objects_in(fd, r);
	}
	return gc_records(s, r, err);
}
