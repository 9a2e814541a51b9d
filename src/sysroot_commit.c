#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fileio.h"
#include "strvec.h"
#include "sysroot_commit.h"
#include "sysroot_meta.h"
#include "xalloc.h"

/* The tests kill create at named points with SIGKILL, the way a crash or
 * kill -9 would, to prove that no point leaves a broken sysroot behind;
 * timing-based kills could not reach each point deterministically. */
void sysroot_crash_point(const char *name)
{
	const char *at = getenv("CUDA_XCC_TEST_CRASH_AT");

	if (at && strcmp(at, name) == 0)
		kill(getpid(), SIGKILL);
}

static int take_lock(const char *dest, int *fd_out, struct xcc_error *err)
{
	char *path = xasprintf("%s.lock", dest);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		xcc_fail(err, XCC_EFAIL, "cannot open the lock %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		xcc_fail(err, XCC_EFAIL, "another cuda-xcc is creating %s right now (it holds %s); "
			 "wait for it to finish", dest, path);
		close(fd);
		free(path);
		return -1;
	}
	free(path);
	*fd_out = fd;
	return 0;
}

/* Leftovers of interrupted creates of dest: only ever seen under the lock,
 * so nobody is still writing them. */
static void remove_stale(const char *dest)
{
	char *parent = file_dir_name(dest), *tmp_prefix, *old_prefix;
	const char *base = file_base_name(dest);
	DIR *d = opendir(parent);
	struct dirent *e;

	tmp_prefix = xasprintf("%s.tmp-", base);
	old_prefix = xasprintf("%s.old-", base);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, tmp_prefix, strlen(tmp_prefix)) == 0 ||
		    strncmp(e->d_name, old_prefix, strlen(old_prefix)) == 0) {
			char *p = xasprintf("%s/%s", parent, e->d_name);

			file_remove_tree(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(tmp_prefix);
	free(old_prefix);
	free(parent);
}

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* Put the finished tree in place: an atomic exchange with the old one when
 * there is one, so that dest is at every moment either the old sysroot or
 * the new one. */
static int swap_into_place(const char *tmp, const char *dest, struct xcc_error *err)
{
	char *old;

	if (!file_exists(dest)) {
		if (rename(tmp, dest) == 0)
			return 0;
		return xcc_fail(err, XCC_EFAIL, "cannot rename %s to %s: %s", tmp, dest,
				strerror(errno));
	}
#ifdef SYS_renameat2
	if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_EXCHANGE) == 0) {
		sysroot_crash_point("swap");
		file_remove_tree(tmp); /* now the old sysroot */
		return 0;
	}
#endif
	/* No exchange on this file system: two renames; an interruption
	 * between them leaves dest.old-* for the next create to clean. */
	old = xasprintf("%s.old-%ld", dest, (long)getpid());
	if (rename(dest, old)) {
		xcc_fail(err, XCC_EFAIL, "cannot move the old %s aside: %s", dest, strerror(errno));
		free(old);
		return -1;
	}
	if (rename(tmp, dest)) {
		xcc_fail(err, XCC_EFAIL, "cannot rename %s to %s: %s", tmp, dest, strerror(errno));
		rename(old, dest);
		free(old);
		return -1;
	}
	file_remove_tree(old);
	free(old);
	return 0;
}

/* Whether dest may be replaced: absent, empty, or a sysroot. */
static int check_replaceable(const char *dest, struct xcc_error *err)
{
	char *meta;
	DIR *d;
	struct dirent *e;
	int empty = 1, ok;

	if (!file_exists(dest))
		return 0;
	if (!file_is_dir(dest))
		return xcc_fail(err, XCC_EUSAGE, "%s exists and is not a directory; choose another "
				"--dest", dest);
	meta = xasprintf("%s/%s", dest, SYSROOT_META_FILE);
	ok = file_exists(meta);
	free(meta);
	if (ok)
		return 0;
	d = opendir(dest);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	if (d)
		closedir(d);
	if (!empty)
		return xcc_fail(err, XCC_EUSAGE, "%s exists and is not a cuda-xcc sysroot (no %s); "
				"refusing to replace it: choose another --dest or remove it", dest,
				SYSROOT_META_FILE);
	return 0;
}

/* The stored fingerprint of an existing sysroot, or NULL. */
static char *existing_fingerprint(const char *dest)
{
	struct sysroot_meta m;
	struct xcc_error err = { 0 };
	char *f = NULL;

	if (sysroot_meta_load(dest, &m, &err))
		return NULL;
	if (m.fingerprint)
		f = xstrdup(m.fingerprint);
	sysroot_meta_free(&m);
	return f;
}


int sysroot_commit_begin(struct sysroot_commit *c, const char *dest, const char *fingerprint,
			 int *up_to_date, struct xcc_error *err)
{
	char *parent = file_dir_name(dest), *old;
	int rc;

	memset(c, 0, sizeof *c);
	c->dest = dest;
	c->lock_fd = -1;
	*up_to_date = 0;
	rc = file_mkdir_p(parent, err) || take_lock(dest, &c->lock_fd, err) ? -1 : 0;
	free(parent);
	if (rc)
		return -1;
	remove_stale(dest);
	old = existing_fingerprint(dest);
	*up_to_date = old && strcmp(old, fingerprint) == 0;
	free(old);
	if (*up_to_date)
		return 0;
	if (check_replaceable(dest, err))
		return -1;
	c->tmp = xasprintf("%s.tmp-XXXXXX", dest);
	if (!mkdtemp(c->tmp)) {
		xcc_fail(err, XCC_EFAIL, "cannot create a temporary directory next to %s: %s", dest,
			 strerror(errno));
		free(c->tmp);
		c->tmp = NULL;
		return -1;
	}
	chmod(c->tmp, 0755);
	return 0;
}

int sysroot_commit_finish(struct sysroot_commit *c, struct xcc_error *err)
{
	if (swap_into_place(c->tmp, c->dest, err))
		return -1;
	free(c->tmp);
	c->tmp = NULL;
	return 0;
}

void sysroot_commit_end(struct sysroot_commit *c)
{
	if (c->tmp) {
		file_remove_tree(c->tmp);
		free(c->tmp);
		c->tmp = NULL;
	}
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	c->lock_fd = -1;
}
