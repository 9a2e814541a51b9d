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
	return strndup(path, (size_t)(slash - path));
}

const char *file_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
