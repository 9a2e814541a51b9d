#include <config.h>
#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/strvec.h"
#include "base/xalloc.h"

char *file_read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t used = 0, cap = 0, n;
	int saved;

	if (!f)
		return NULL;
	do {
		if (used + 4096 > cap)
			buf = xrealloc(buf, cap = cap ? cap * 2 : 16384);
		n = fread(buf + used, 1, cap - used - 1, f);
		used += n;
	} while (n);
	if (ferror(f)) {
		saved = errno;
		fclose(f);
		free(buf);
		errno = saved;
		return NULL;
	}
	fclose(f);
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
		      struct xcc_error *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	const char *p = data;
	size_t left = len;
	int failed = fd < 0, saved;

	/* A short write is no error yet: the next write says why (a full
	 * disk), where errno after the short one is whatever came before. */
	while (!failed && left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			failed = 1;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	if (!failed && fsync(fd))
		failed = 1;
	saved = errno;
	if (fd >= 0 && close(fd) && !failed) {
		failed = 1;
		saved = errno;
	}
	if (failed) {
		xcc_fail(err, XCC_EFAIL, "cannot write %s: %s", tmp, strerror(saved));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		xcc_fail(err, XCC_EFAIL, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* 0, or -1 with errno set; a write that makes no progress is ENOSPC. */
static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The file path's chain of symlinks ends at (path itself when it is no
 * link); it may be missing. Caller frees. */
static char *resolve_links(const char *path, struct xcc_error *err)
{
	char *cur = xstrdup(path);
	struct stat st;

	/* As many hops as the kernel's own limit (MAXSYMLINKS). */
	for (int hops = 0; hops <= 40; hops++) {
		char *target, *dir;
		int missing = lstat(cur, &st) != 0;
		ssize_t n;

		if (missing && errno != ENOENT) {
			xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
			free(cur);
			return NULL;
		}
		if (missing || !S_ISLNK(st.st_mode))
			return cur;
		target = xmalloc((size_t)st.st_size + 2);
		n = readlink(cur, target, (size_t)st.st_size + 1);
		if (n < 0 || n > st.st_size) {
			xcc_fail(err, XCC_EFAIL, "%s: reading the link %s: %s", path, cur,
				 n < 0 ? strerror(errno) : "it changed while read");
			free(target);
			free(cur);
			return NULL;
		}
		target[n] = '\0';
		dir = file_dir_name(cur);
		free(cur);
		cur = target[0] == '/' ? xstrdup(target) : xasprintf("%s/%s", dir, target);
		free(dir);
		free(target);
	}
	xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(ELOOP));
	free(cur);
	return NULL;
}

/* A new file next to path, named so that no one else's is taken: O_EXCL
 * with the mode (less the umask) the final file gets. */
static int open_temp(const char *path, mode_t mode, char **tmp)
{
	char *dir = file_dir_name(path);
	int fd = -1;

	for (unsigned i = 0; fd < 0 && i < 1000; i++) {
		free(*tmp);
		*tmp = xasprintf("%s/.%s.tmp-%ld-%u", dir, file_base_name(path), (long)getpid(), i);
		fd = open(*tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	free(dir);
	return fd;
}

static int write_replacing(const char *path, const char *named, mode_t mode, fileio_fill_fn fill,
			   void *ctx, struct xcc_error *err)
{
	char *tmp = NULL;
	int fd = open_temp(path, mode, &tmp), rc = -1;

	if (fd < 0) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", named, strerror(errno));
		goto out;
	}
	if (fill(fd, 0, ctx, err))
		goto fail;
	if (fsync(fd)) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", named, strerror(errno));
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		xcc_fail(err, XCC_EFAIL, "%s: %s", named, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path)) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", named, strerror(errno));
		goto fail;
	}
	rc = 0;
	goto out;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	free(tmp);
	return rc;
}

static int write_stream(const char *path, const char *named, fileio_fill_fn fill, void *ctx,
			struct xcc_error *err)
{
	/* No O_TRUNC and no O_CREAT: it is there, and not a file to empty. */
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), rc;

	if (fd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", named, strerror(errno));
	rc = fill(fd, 1, ctx, err);
	if (close(fd) && !rc)
		rc = xcc_fail(err, XCC_EFAIL, "%s: %s", named, strerror(errno));
	return rc;
}

int fileio_write_output(const char *path, mode_t mode, fileio_fill_fn fill, void *ctx,
			struct xcc_error *err)
{
	char *target = resolve_links(path, err);
	struct stat st;
	int found, rc;

	if (!target)
		return -1;
	found = stat(target, &st) == 0;
	if (!found && errno != ENOENT)
		rc = xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
	else if (found && S_ISDIR(st.st_mode))
		rc = xcc_fail(err, XCC_EFAIL, "%s: it is a directory; name a file",
			      path);
	else if (found && !S_ISREG(st.st_mode))
		rc = write_stream(target, path, fill, ctx, err);
	else
		rc = write_replacing(target, path, mode, fill, ctx, err);
	free(target);
	return rc;
}

struct data_fill {
	const void *data;
	size_t len;
	const char *named;
};

static int fill_data(int fd, int stream, void *ctx, struct xcc_error *err)
{
	const struct data_fill *d = ctx;

	(void)stream;
	if (write_all(fd, d->data, d->len))
		return xcc_fail(err, XCC_EFAIL, "%s: writing: %s", d->named, strerror(errno));
	return 0;
}

int fileio_write_output_data(const char *path, const void *data, size_t len, mode_t mode,
			     struct xcc_error *err)
{
	struct data_fill d = { data, len, path };

	return fileio_write_output(path, mode, fill_data, &d, err);
}

int file_list_dir(const char *dir, struct strvec *names)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			strvec_push(names, e->d_name);
	closedir(d);
	strvec_sort(names);
	return 0;
}

int file_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int file_mkdir_p(const char *path, struct xcc_error *err)
{
	char *buf = xstrdup(path);

	for (char *p = buf + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST) {
			xcc_fail(err, XCC_EFAIL, "cannot create %s: %s", buf, strerror(errno));
			free(buf);
			return -1;
		}
		if (!c)
			break;
		*p = c;
	}
	free(buf);
	return 0;
}

int file_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int make_writable(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D && !(st->st_mode & S_IWUSR))
		chmod(path, (st->st_mode & 07777) | S_IRWXU);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

int file_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	nftw(path, make_writable, 32, FTW_PHYS | FTW_MOUNT);
	nftw(path, remove_entry, 32, FTW_PHYS | FTW_MOUNT | FTW_DEPTH);
	return lstat(path, &st) == 0 ? -1 : 0;
}

char *file_dir_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

const char *file_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

char *file_absolute(const char *path)
{
	char *abs = realpath(path, NULL);

	return abs ? abs : xstrdup(path);
}
