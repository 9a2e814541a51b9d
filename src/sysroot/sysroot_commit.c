#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "sysroot/sysroot_commit.h"
#include "sysroot/sysroot_meta.h"

/* The tests kill create at named points with SIGKILL, the way a crash or
 * kill -9 would, to prove that no point leaves a broken sysroot behind;
 * timing-based kills could not reach each point deterministically. */
void sysroot_crash_point(const char *name)
{
	const char *at = getenv("CUDA_XCC_TEST_CRASH_AT");

	const char *sig = getenv("CUDA_XCC_TEST_CRASH_SIGNAL");
	/* Time for the signal to be noticed, as one that came at this
	 * moment would be, before create goes on. */
	struct timespec settle = { 0, 200000000L };

	if (!at || strcmp(at, name) != 0)
		return;
	if (!sig) {
		kill(getpid(), SIGKILL);
		return;
	}
	kill(getpid(), atoi(sig));
	nanosleep(&settle, NULL);
}

/* *unwritable: the lock could not be opened because dest's directory is
 * read-only to us (a read-only mount, an image, another user's tree). */
static int take_lock(const char *dest, int *fd_out, int *unwritable, struct xcc_error *err)
{
	char *path = xasprintf("%s.lock", dest);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	*unwritable = 0;
	if (fd < 0) {
		*unwritable = errno == EROFS || errno == EACCES || errno == EPERM;
		xcc_fail(err, XCC_EFAIL, "cannot open the lock %s: %s%s", path, strerror(errno),
			 *unwritable ? "; a sysroot can be made or changed only where it can be "
				       "written: choose a --dest on a writable file system" : "");
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

/* What a create makes next to dest: the tree being built, and (where the
 * file system has no exchange) the old sysroot moved aside. No user names
 * a backup like that, so DEST.old-2024 or DEST.tmp-mine is never taken for
 * a leftover. */
#define TMP_INFIX ".tmp-cuda-xcc-"
#define OLD_INFIX ".old-cuda-xcc-"

static int has_infix(const char *name, const char *base, const char *infix)
{
	size_t n = strlen(base);

	return strncmp(name, base, n) == 0 && strncmp(name + n, infix, strlen(infix)) == 0;
}

/* Leftovers of interrupted creates of dest: our names, directories (never
 * a link), and not locked by a live create (each holds a lock on its
 * temporary tree for as long as it runs; the lock dies with it). */
static void remove_stale(const char *dest)
{
	char *parent = file_dir_name(dest);
	const char *base = file_base_name(dest);
	DIR *d = opendir(parent);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *p;
		int fd;

		if (!has_infix(e->d_name, base, TMP_INFIX) && !has_infix(e->d_name, base, OLD_INFIX))
			continue;
		p = xasprintf("%s/%s", parent, e->d_name);
		fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
			file_remove_tree(p);
		if (fd >= 0)
			close(fd);
		free(p);
	}
	if (d)
		closedir(d);
	free(parent);
}

/* Every file of the tree on disk before it is put in place: syncfs (one
 * call for the tree's file system) where the kernel has it, else each
 * file and directory by itself. */
static int sync_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	int fd;

	(void)ftw;
	if (flag != FTW_F && flag != FTW_D && flag != FTW_DP)
		return 0;
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fsync(fd)) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	close(fd);
	return 0;
}

static int sync_tree(const char *root, int rootfd, struct xcc_error *err)
{
#ifdef HAVE_SYNCFS
	if (syncfs(rootfd) == 0)
		return 0;
	if (errno != ENOSYS)
		return xcc_fail(err, XCC_EFAIL, "cannot sync %s to disk: %s", root,
				strerror(errno));
#else
	(void)rootfd;
#endif
	if (nftw(root, sync_file, 32, FTW_PHYS | FTW_MOUNT))
		return xcc_fail(err, XCC_EFAIL, "cannot sync %s to disk: %s", root,
				strerror(errno));
	return 0;
}

static int sync_dir_of(const char *path)
{
	char *parent = file_dir_name(path);
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1;

	free(parent);
	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	return rc;
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
	old = xasprintf("%s" OLD_INFIX "%ld", dest, (long)getpid());
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

/* The stored fingerprint of an existing sysroot, or NULL; NULL too where
 * its sysroot.json was edited after create (it is then made again). */
static char *existing_fingerprint(const char *dest)
{
	struct sysroot_meta m;
	struct xcc_error err = { 0 };
	char *f = NULL;

	if (sysroot_meta_unchanged(dest, &err) || sysroot_meta_load(dest, &m, &err))
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
	int rc, unwritable = 0;

	memset(c, 0, sizeof *c);
	c->dest = dest;
	c->lock_fd = -1;
	c->tmp_fd = -1;
	*up_to_date = 0;
	rc = file_mkdir_p(parent, err) || take_lock(dest, &c->lock_fd, &unwritable, err) ? -1 : 0;
	free(parent);
	/* Where this create can write nothing next to dest it changes nothing
	 * either: an up-to-date sysroot there is what was asked, and the lock,
	 * which keeps writers apart, is not needed to read it (a swap is atomic). */
	if (rc && unwritable) {
		old = existing_fingerprint(dest);
		*up_to_date = old && strcmp(old, fingerprint) == 0;
		free(old);
		if (*up_to_date)
			xcc_error_clear(err);
		return *up_to_date ? 0 : -1;
	}
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
	c->tmp = xasprintf("%s" TMP_INFIX "XXXXXX", dest);
	if (!mkdtemp(c->tmp)) {
		xcc_fail(err, XCC_EFAIL, "cannot create a temporary directory next to %s: %s", dest,
			 strerror(errno));
		free(c->tmp);
		c->tmp = NULL;
		return -1;
	}
	c->tmp_fd = open(c->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->tmp_fd < 0 || flock(c->tmp_fd, LOCK_EX))
		return xcc_fail(err, XCC_EFAIL, "cannot lock %s: %s", c->tmp, strerror(errno));
	chmod(c->tmp, 0755);
	return 0;
}

int sysroot_commit_finish(struct sysroot_commit *c, int no_sync, const atomic_int *stop,
			  struct xcc_error *err)
{
	if (!no_sync && sync_tree(c->tmp, c->tmp_fd, err))
		return -1;
	sysroot_crash_point("synced");
	if (stop && atomic_load(stop))
		return xcc_fail(err, 128 + atomic_load(stop), "sysroot create: interrupted");
	if (swap_into_place(c->tmp, c->dest, err))
		return -1;
	/* The rename itself, on disk too. */
	if (!no_sync && sync_dir_of(c->dest))
		return xcc_fail(err, XCC_EFAIL, "cannot sync the directory of %s: %s", c->dest,
				strerror(errno));
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
	if (c->tmp_fd >= 0)
		close(c->tmp_fd);
	c->tmp_fd = -1;
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	c->lock_fd = -1;
}
