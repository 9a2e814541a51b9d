/* Paths beneath a directory (beneath.h); the tree checks of unpack.h. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif
#endif

#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/beneath.h"
#include "pkg/unpack.h"

/*
 * Resolve `path`, relative to `base` (a canonical directory relative to the
 * destination, "" for the destination itself), into `canon`: a path relative
 * to the destination with no symlinks among the components that exist.
 * Components that do not exist are taken lexically. follow_last says whether
 * a symlink as the last component is followed.
 */
enum resolve_result resolve_beneath(int destfd, const char *base, const char *path,
					   int follow_last, char canon[PATH_MAX])
{
	char *rest, *p;
	size_t n = strlen(base);
	int hops = 0, missing = 0;
	enum resolve_result res = RESOLVE_OK;

	if (n >= PATH_MAX)
		return RESOLVE_TOOLONG;
	memcpy(canon, base, n + 1);
	rest = xstrdup(path);
	p = rest;
	for (;;) {
		char *comp, *end;
		size_t len;
		struct stat st;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		end = strchrnul(p, '/');
		len = (size_t)(end - comp);
		p = end;
		if (len == 1 && comp[0] == '.')
			continue;
		if (len == 2 && comp[0] == '.' && comp[1] == '.') {
			char *slash;

			if (!n) {
				res = RESOLVE_ESCAPES;
				break;
			}
			slash = strrchr(canon, '/');
			n = slash ? (size_t)(slash - canon) : 0;
			canon[n] = '\0';
			/* Going up from a missing component lands on a
			 * directory that may exist again. */
			missing = 0;
			continue;
		}
		if (n + len + 2 > PATH_MAX) {
			res = RESOLVE_TOOLONG;
			break;
		}
		if (n)
			canon[n++] = '/';
		memcpy(canon + n, comp, len);
		n += len;
		canon[n] = '\0';
		if (missing)
			continue;
		if (fstatat(destfd, canon, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT && errno != ENOTDIR) {
				res = RESOLVE_IOERR;
				break;
			}
			missing = 1;
			continue;
		}
		if (S_ISLNK(st.st_mode) && (*p || follow_last)) {
			char target[PATH_MAX];
			ssize_t tlen = readlinkat(destfd, canon, target, sizeof target - 1);
			char *next;

			if (tlen < 0) {
				res = RESOLVE_IOERR;
				break;
			}
			target[tlen] = '\0';
			if (target[0] == '/') {
				res = RESOLVE_ABSOLUTE;
				break;
			}
			if (++hops > MAX_SYMLINK_HOPS) {
				res = RESOLVE_LOOP;
				break;
			}
			/* Replace the link by its target, relative to the
			 * link's directory. */
			n -= len;
			if (n)
				n--;
			canon[n] = '\0';
			next = xasprintf("%s/%s", target, p);
			free(rest);
			rest = p = next;
		}
	}
	free(rest);
	return res;
}

int canon_join(char out[PATH_MAX], const char *dir, const char *leaf)
{
	size_t d = strlen(dir), l = strlen(leaf);

	if (d + l + 2 > PATH_MAX)
		return -1;
	memcpy(out, dir, d);
	if (d)
		out[d++] = '/';
	memcpy(out + d, leaf, l + 1);
	return 0;
}

const char *resolve_problem(enum resolve_result r)
{
	switch (r) {
	case RESOLVE_OK:
		return "";
	case RESOLVE_ESCAPES:
		return "leads outside the destination";
	case RESOLVE_ABSOLUTE:
		return "goes through a symlink to an absolute path";
	case RESOLVE_LOOP:
		return "goes through too many symlinks";
	case RESOLVE_TOOLONG:
		return "is too long";
	case RESOLVE_IOERR:
		break;
	}
	return strerror(errno);
}

/* Open a directory below destfd whose path has no symlinks; the kernel
 * enforces both where it can. */
int open_dir_beneath(int destfd, const char *canon)
{
	const char *path = *canon ? canon : ".";
#if defined(HAVE_OPENAT2) && defined(SYS_openat2)
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, destfd, path, &how, sizeof how);

	if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EINVAL))
		return (int)fd;
#endif
	return openat(destfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}


/* ---------------------------------------------------------------------------
 * Whole trees: several archives unpacked into one
 */

int unpack_open_beneath(int rootfd, const char *rel, int flags)
{
	char canon[PATH_MAX];
	enum resolve_result r;

#if defined(HAVE_OPENAT2) && defined(SYS_openat2)
	struct open_how how = {
		.flags = (unsigned)(flags | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, rootfd, *rel ? rel : ".", &how, sizeof how);

	/* ENOSYS: an older kernel; EPERM: a seccomp filter that blocks it. */
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return (int)fd;
#endif
	r = resolve_beneath(rootfd, "", rel, !(flags & O_NOFOLLOW), canon);
	if (r == RESOLVE_IOERR)
		return -1;
	if (r != RESOLVE_OK) {
		errno = r == RESOLVE_TOOLONG ? ENAMETOOLONG : r == RESOLVE_LOOP ? ELOOP : EXDEV;
		return -1;
	}
	/* canon has no symlinks left: refuse any that appears meanwhile. */
	return openat(rootfd, *canon ? canon : ".", flags | O_NOFOLLOW | O_CLOEXEC);
}

/* Where a refused link leads, for the message: the absolute path when it
 * exists, else what is known. */
static char *link_destination(const char *root, const char *rel, enum resolve_result r)
{
	char *full = xasprintf("%s/%s", root, rel), *where, buf[PATH_MAX];

	if (r == RESOLVE_ESCAPES && realpath(full, buf))
		where = xasprintf("leads outside the tree, to %s", buf);
	else if (r == RESOLVE_ESCAPES)
		where = xasprintf("leads outside the tree (to a path above %s)", root);
	else
		where = xstrdup(resolve_problem(r));
	free(full);
	return where;
}

#define MAX_TREE_DEPTH 256

static int check_links_in(int rootfd, const char *root, const char *dir, int depth,
			  struct strvec *problems, struct xcc_error *err)
{
	int fd = *dir ? openat(rootfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		      : openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int rc = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return xcc_fail(err, XCC_EFAIL, "cannot read %s/%s: %s", root, dir,
				strerror(errno));
	}
	if (depth > MAX_TREE_DEPTH) {
		closedir(d);
		return xcc_fail(err, XCC_EFAIL, "%s/%s: directories nested too deep", root, dir);
	}
	while (rc == 0 && (e = readdir(d))) {
		char rel[PATH_MAX], target[PATH_MAX], resolved[PATH_MAX];
		struct stat st;
		ssize_t n;
		enum resolve_result r;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (canon_join(rel, dir, e->d_name)) {
			rc = xcc_fail(err, XCC_EFAIL, "%s/%s/%s: path too long", root, dir,
				      e->d_name);
			break;
		}
		if (fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW)) {
			rc = xcc_fail(err, XCC_EFAIL, "%s/%s: %s", root, rel, strerror(errno));
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			rc = check_links_in(rootfd, root, rel, depth + 1, problems, err);
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		n = readlinkat(rootfd, rel, target, sizeof target - 1);
		if (n < 0) {
			rc = xcc_fail(err, XCC_EFAIL, "%s/%s: %s", root, rel, strerror(errno));
			break;
		}
		target[n] = '\0';
		r = target[0] == '/' ? RESOLVE_ABSOLUTE
				     : resolve_beneath(rootfd, dir, target, 1, resolved);
		if (r != RESOLVE_OK) {
			char *where = link_destination(root, rel, r);

			strvec_pushf(problems, "symlink %s -> %s %s", rel, target, where);
			free(where);
		}
	}
	closedir(d);
	return rc;
}

int unpack_check_tree_links(const char *root, struct strvec *problems, struct xcc_error *err)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (rootfd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", root, strerror(errno));
	rc = check_links_in(rootfd, root, "", 0, problems, err);
	close(rootfd);
	return rc;
}
