#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "elf/devroot.h"

/* As Linux's path walk: more links than this on one lookup is ELOOP. */
#define DEVROOT_MAX_LINKS 40

/* The root without trailing slashes, the prefix of every host path made from it. */
static int root_len(const char *rootfs)
{
	int n = (int)strlen(rootfs);

	while (n > 1 && rootfs[n - 1] == '/')
		n--;
	return n;
}

static char *host_path(const char *rootfs, const char *canon)
{
	int n = root_len(rootfs);

	if (!canon[0])
		return xasprintf("%.*s", n, rootfs);
	return xasprintf("%.*s%s%s", n, rootfs, rootfs[n - 1] == '/' ? "" : "/", canon);
}

/* One walk of the fallback resolver: cur is the canonical path resolved so
 * far (no links, no dots, "" for the root), todo what is left to walk. */
struct walk {
	char *cur, *todo;
	char *link, *target; /* the last link followed, for the messages */
	char *tend;          /* todo before this came from links' targets */
	int links;
	int escaped;         /* an absolute target or a .. at the root was met */
	int in_link;         /* the walk failed on a component a link's target named */
};

static char *next_component(char **todo)
{
	char *s = *todo, *c;

	while (*s == '/')
		s++;
	if (!*s)
		return NULL;
	c = s;
	s += strcspn(s, "/");
	if (*s)
		*s++ = '\0';
	*todo = s;
	return c;
}

static void walk_up(struct walk *w)
{
	char *slash = strrchr(w->cur, '/');

	/* The root's .. is the root: on the device /.. is /. */
	if (slash)
		*slash = '\0';
	else if (w->cur[0])
		w->cur[0] = '\0';
	else
		w->escaped = 1;
}

/* The link at cand (in the root) replaces it by its target, read inside the root. */
static int walk_link(int rootfd, struct walk *w, const char *cand, const char *rest)
{
	char target[PATH_MAX], *todo;
	ssize_t len = readlinkat(rootfd, cand, target, sizeof target - 1);
	/* rest points into w->todo: what of it came from earlier links' targets. */
	size_t from_links = w->tend && w->tend > rest ? (size_t)(w->tend - rest) : 0;
	size_t rest_len = strlen(rest);

	if (len < 0)
		return -1;
	target[len] = '\0';
	free(w->link);
	free(w->target);
	w->link = xstrdup(cand);
	w->target = xstrdup(target);
	if (++w->links > DEVROOT_MAX_LINKS) {
		errno = ELOOP;
		return -1;
	}
	/* An absolute target starts again at the root, as on the device. */
	if (target[0] == '/') {
		w->cur[0] = '\0';
		w->escaped = 1;
	}
	if (from_links > rest_len)
		from_links = rest_len;
	todo = xasprintf("%s/%s", target, rest);
	free(w->todo);
	w->todo = todo;
	w->tend = todo + strlen(target) + 1 + from_links;
	return 0;
}

/* Resolve rel as RESOLVE_IN_ROOT does, one component at a time, never
 * letting the kernel follow a link: each prefix walked is link-free. */
static int walk_in_root(int rootfd, const char *rel, struct walk *w)
{
	char *pos;

	memset(w, 0, sizeof *w);
	w->cur = xmalloc(1);
	w->cur[0] = '\0';
	w->todo = xstrdup(rel);
	pos = w->todo;
	for (;;) {
		char *c = next_component(&pos), *cand;
		struct stat st;
		int rc;

		if (!c)
			return 0;
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			walk_up(w);
			continue;
		}
		cand = w->cur[0] ? xasprintf("%s/%s", w->cur, c) : xstrdup(c);
		if (fstatat(rootfd, cand, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			w->in_link = w->tend && c < w->tend;
			free(cand);
			return -1;
		}
		if (S_ISLNK(st.st_mode)) {
			rc = walk_link(rootfd, w, cand, pos);
			free(cand);
			if (rc)
				return -1;
			pos = w->todo;
			continue;
		}
		if (!S_ISDIR(st.st_mode) && pos[strspn(pos, "/")]) {
			w->in_link = w->tend && c < w->tend;
			free(cand);
			errno = ENOTDIR;
			return -1;
		}
		free(w->cur);
		w->cur = cand;
	}
}

static void walk_free(struct walk *w)
{
	free(w->cur);
	free(w->todo);
	free(w->link);
	free(w->target);
}

static long openat2_in_root(int rootfd, const char *rel, int flags)
{
	struct open_how how;

	memset(&how, 0, sizeof how);
	how.flags = (unsigned long long)flags | O_CLOEXEC;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	return syscall(SYS_openat2, rootfd, rel, &how, sizeof how);
}

/* The canonical in-root path of what fd (opened inside the root) names, from
 * the kernel's own record of it. NULL when /proc cannot say. */
static char *fd_canon(int rootfd, int fd)
{
	char buf[PATH_MAX], rbuf[PATH_MAX], *proc;
	ssize_t n, rn;
	char *out = NULL;

	proc = xasprintf("/proc/self/fd/%d", rootfd);
	rn = readlink(proc, rbuf, sizeof rbuf - 1);
	free(proc);
	proc = xasprintf("/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sizeof buf - 1);
	free(proc);
	if (rn <= 0 || n <= 0)
		return NULL;
	rbuf[rn] = '\0';
	buf[n] = '\0';
	if (strcmp(rbuf, "/") == 0)
		rn = 0;
	if (strncmp(buf, rbuf, (size_t)rn) == 0 && buf[rn] == '\0')
		out = xstrdup("");
	else if (strncmp(buf, rbuf, (size_t)rn) == 0 && buf[rn] == '/')
		out = xstrdup(buf + rn + 1);
	return out;
}

/* Why rel cannot be resolved inside the root, naming the link, from the
 * fallback walk (which also serves when openat2 is missing). */
static int walk_failure(const char *rootfs, const char *rel, const struct walk *w, int e,
			struct xcc_error *err)
{
	/* A name the device lacks too, no link broken on the way. */
	if ((e == ENOENT || e == ENOTDIR) && !w->in_link)
		return DEVROOT_ABSENT;
	if (!w->link)
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s: %s: %s", rootfs, rel, strerror(e));
	if (e == ELOOP)
		xcc_fail(err, XCC_EUSAGE, "--target-fs %s: the links from %s loop or are more than "
			 "%d deep (the last: %s -> %s), on the device too: fix the link in the root",
			 rootfs, rel, DEVROOT_MAX_LINKS, w->link, w->target);
	else
		xcc_fail(err, XCC_EUSAGE, "--target-fs %s: %s -> %s names no file in that root "
			 "(read as the device reads it, / being the root)%s%s: copy the device's "
			 "file into the root or fix the link", rootfs, w->link, w->target,
			 strcmp(w->link, rel) ? ", on the way to " : "", strcmp(w->link, rel) ? rel : "");
	return e == ELOOP ? -1 : DEVROOT_DANGLING;
}

int devroot_walk(const char *rootfs, const char *rel, char **out, struct xcc_error *err)
{
	int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC), rc = 0;
	struct walk w;

	*out = NULL;
	if (rootfd < 0)
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s: %s", rootfs, strerror(errno));
	if (walk_in_root(rootfd, rel, &w) == 0)
		*out = host_path(rootfs, w.cur);
	else
		rc = walk_failure(rootfs, rel, &w, errno, err);
	walk_free(&w);
	close(rootfd);
	return rc;
}

int devroot_lookup(const char *rootfs, const char *rel, char **out, struct xcc_error *err)
{
	int rootfd;
	long fd;
	char *canon = NULL;

	*out = NULL;
	rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s: %s", rootfs, strerror(errno));
	fd = openat2_in_root(rootfd, rel, O_PATH);
	if (fd >= 0) {
		canon = fd_canon(rootfd, (int)fd);
		close((int)fd);
	}
	close(rootfd);
	if (canon) {
		*out = host_path(rootfs, canon);
		free(canon);
		return 0;
	}
	/* The walk of our own: where the kernel lacks openat2 (ENOSYS), where
	 * /proc cannot say what it opened, and to name the link when the
	 * lookup failed (the kernel says only ELOOP or ENOENT). */
	return devroot_walk(rootfs, rel, out, err);
}

int devroot_open(const char *rootfs, const char *rel, int flags, struct xcc_error *err)
{
	int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;
	char *host;
	int rc;

	if (rootfd < 0)
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s: %s", rootfs, strerror(errno));
	fd = (int)openat2_in_root(rootfd, rel, flags);
	close(rootfd);
	if (fd >= 0)
		return fd;
	/* ENOSYS: a kernel before 5.6; EPERM: a container's seccomp profile
	 * older than openat2. The walk of our own then; and it names the link
	 * when the kernel's lookup failed. */
	if (errno != ENOSYS && errno != EPERM && errno != ENOENT && errno != ELOOP &&
	    errno != ENOTDIR)
		return xcc_fail(err, XCC_EFAIL, "--target-fs %s: %s: %s", rootfs, rel, strerror(errno));
	/* The resolved path holds no link below the root: opening it follows none. */
	rc = devroot_lookup(rootfs, rel, &host, err);
	if (rc == DEVROOT_ABSENT)
		xcc_fail(err, XCC_EFAIL, "--target-fs %s: %s: %s", rootfs, rel, strerror(ENOENT));
	if (rc)
		return -1;
	fd = open(host, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		xcc_fail(err, XCC_EFAIL, "--target-fs %s: %s: %s", rootfs, host, strerror(errno));
	free(host);
	return fd;
}

int devroot_escapes(const char *rootfs, const char *rel)
{
	int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC), escaped;
	struct walk w;

	if (rootfd < 0)
		return 0;
	walk_in_root(rootfd, rel, &w);
	escaped = w.escaped;
	walk_free(&w);
	close(rootfd);
	return escaped;
}

static int devroot_resolve_is_file(const char *host)
{
	struct stat st;

	return stat(host, &st) == 0 && S_ISREG(st.st_mode);
}

char *devroot_resolve(const char *rootfs, const char *rel)
{
	struct xcc_error err = { 0 };
	char *host;

	if (devroot_lookup(rootfs, rel, &host, &err) || !devroot_resolve_is_file(host)) {
		xcc_error_clear(&err);
		free(host);
		return NULL;
	}
	return host;
}

/* The root's directories in the order ld searches them with the arguments
 * below: the multiarch ones (-B) before the plain ones (the sysroot's
 * defaults). The first two get -B; all get -rpath-link. */
static const char *const libdir_patterns[] = { "lib/%s", "usr/lib/%s", "lib", "usr/lib", NULL };
#define MULTIARCH_DIRS 2

/* Names ld opens by name: libraries (-lfoo, NEEDED sonames) and start files. */
static int linker_visible(const char *name)
{
	size_t n = strlen(name);

	if (strstr(name, ".so.") || (n > 3 && strcmp(name + n - 3, ".so") == 0))
		return 1;
	return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'a' || name[n - 1] == 'o');
}

struct entry {
	char *name;
	size_t dir; /* index into libdir_patterns */
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->dir > y->dir) - (x->dir < y->dir);
}

static void links_push(struct devroot_links *l, char *path, char *target, char *resolved)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n].path = path;
	l->v[l->n].target = target;
	l->v[l->n].resolved = resolved;
	l->n++;
}

/*
 * The root's lib dir for pattern, as a path relative to the root that
 * leads to the dir the device has there: as written unless a link on the
 * way would take this machine out of the root (lib -> /usr/lib), else the
 * dir the device resolves it to. 1 when the root has none.
 */
static int libdir_rel(const char *rootfs, const char *pattern, const char *triple, char **rel,
		      struct xcc_error *err)
{
	char *as_written = xasprintf(pattern, triple), *host;
	struct stat st;
	int rc = devroot_lookup(rootfs, as_written, &host, err);

	*rel = NULL;
	if (rc == DEVROOT_DANGLING)
		rc = -1;
	if (rc == 0 && (stat(host, &st) || !S_ISDIR(st.st_mode)))
		rc = DEVROOT_ABSENT;
	if (rc == 0 && devroot_escapes(rootfs, as_written)) {
		*rel = xstrdup(host + root_len(rootfs) + (host[root_len(rootfs)] == '/'));
		free(as_written);
	} else if (rc == 0) {
		*rel = as_written;
	} else {
		free(as_written);
	}
	free(host);
	return rc;
}

/* The linker-visible names in the root's dir rel, read inside the root. */
static int list_libdir(const char *rootfs, const char *rel, size_t d, struct entry **ents,
		       size_t *n, size_t *cap, struct xcc_error *err)
{
	int fd = devroot_open(rootfs, rel, O_RDONLY | O_DIRECTORY, err);
	DIR *dh;
	struct dirent *de;

	if (fd < 0)
		return -1;
	if (!(dh = fdopendir(fd))) {
		close(fd);
		return xcc_fail(err, XCC_EFAIL, "--target-fs %s: %s: %s", rootfs, rel, strerror(errno));
	}
	while ((de = readdir(dh))) {
		if (!linker_visible(de->d_name))
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			*ents = xrealloc(*ents, *cap * sizeof **ents);
		}
		(*ents)[*n].name = xstrdup(de->d_name);
		(*ents)[*n].dir = d;
		(*n)++;
	}
	closedir(dh);
	return 0;
}

/* The characters that end a name in a linker script (ld's lexer reads a
 * file name as a run of other characters, or as a "quoted" string). */
#define SCRIPT_DELIMS " \t\n\r\f\v(),;{}\""

/* Whether path has a .. component. */
static int has_dotdot(const char *path)
{
	for (const char *s = path; (s = strstr(s, "..")); s += 2)
		if ((s == path || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
			return 1;
	return 0;
}

/*
 * One name of a linker script as ld would read it, as the device reads it:
 * an absolute path (ld puts the sysroot in front of /PATH, =/PATH and
 * $SYSROOT/PATH) appended to out as the quoted host path of the file the
 * device has there, with *escapes set where this machine would read
 * another file than the device (a .. above the root, a link leaving it).
 * Names that are no paths go through as they are. Refused, naming the
 * script and the name: a path that names nothing in the root and that
 * ld here would read outside it; a relative path with .. (ld tries it
 * against the current directory and every search directory: outside the
 * root on this machine); a = or $SYSROOT not followed by / (ld joins the
 * rest to the root's own path: a file beside the root). A host path that
 * no script can quote (a '"', a line break) goes to *unquotable.
 */
static int script_name(const char *rootfs, const char *script, const char *tok,
		       struct strvec *out, int *escapes, int *paths, char **unquotable,
		       struct xcc_error *err)
{
	const char *path = tok;
	char *host = NULL;
	int esc, rc;

	/* A lone = or == is an assignment's or a comparison's, no file. */
	if ((*tok == '=' && tok[1] && tok[1] != '=') || strncmp(tok, "$SYSROOT", 8) == 0)
		path = tok + (*tok == '=' ? 1 : 8);
	if (path != tok && *path != '/')
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s: the linker script %s names %s, "
				"which ld joins to the root's path without a '/' (a file beside the "
				"root, not in it): write it as =/PATH", rootfs, script, tok);
	if (*path != '/') {
		if (has_dotdot(tok))
			return xcc_fail(err, XCC_EUSAGE, "--target-fs %s: the linker script %s names "
					"%s, a relative path with '..', which ld looks up from the "
					"current directory and each search directory, outside the root: "
					"name the file by its absolute path in the root", rootfs, script,
					tok);
		strvec_push(out, tok);
		return 0;
	}
	esc = devroot_escapes(rootfs, path);
	rc = devroot_lookup(rootfs, path, &host, err);
	if (rc == DEVROOT_DANGLING || rc < 0) {
		xcc_error_prefix(err, "the linker script %s", script);
		return -1;
	}
	if (rc == DEVROOT_ABSENT && esc)
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s: the linker script %s names %s, "
				"no file in that root (read as the device reads it, / being the root "
				"and .. stopping there), and ld on this machine would read a file "
				"outside the root: fix the path in the script, or copy the device's "
				"file into the root", rootfs, script, tok);
	/* Nothing there, and nothing on the way leaves the root: ld's own
	 * "cannot find", naming the root's path. */
	if (rc == DEVROOT_ABSENT)
		host = host_path(rootfs, path + strspn(path, "/"));
	/* Refused only when the script must be written again (check_script):
	 * a script ld reads inside the root as it is needs no quoting. */
	if (strpbrk(host, "\"\n") && !*unquotable)
		*unquotable = xstrdup(host);
	*escapes |= esc;
	(*paths)++;
	strvec_pushf(out, "\"%s\"", host);
	free(host);
	return 0;
}

/*
 * The linker script at host (in the root), which ld finds by the name
 * rel: when ld here would read another file than the device for one of
 * its paths (a .. above the root, a link that leaves it), or when ld
 * finds the script through the overlay (via_overlay: rel is a link that
 * leaves the root, so the script is not read as in the sysroot), its twin,
 * each absolute path replaced by the quoted host path of the device's
 * file, goes in the overlay: ld finds the overlay's first and reads the
 * paths of a script outside the sysroot as they are. Only scripts are
 * read: an ELF file's first bytes say it is none. 1 when a twin was made.
 */
static int check_script(const char *rootfs, const char *rel, const char *host, int via_overlay,
			struct strvec *scripts, struct xcc_error *err)
{
	struct strvec parts = STRVEC_INIT;
	char *text, *joined, *tok, *unquotable = NULL;
	struct stat st;
	size_t len = 0, n;
	int escapes = 0, paths = 0, rc = 0;
	const char *p;

	/* ELF libraries are large, scripts a few lines: only small files are read. */
	text = stat(host, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= 65536 ?
		       file_read_text(host, &len) : NULL;
	if (!text || strlen(text) != len || strncmp(text, "\177ELF", 4) == 0) {
		free(text);
		return 0;
	}
	for (p = text; *p && !rc;) {
		if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");

			n = end ? (size_t)(end + 2 - p) : strlen(p);
			strvec_pushf(&parts, "%.*s", (int)n, p);
			p += n;
			continue;
		}
		if (*p != '"' && strchr(SCRIPT_DELIMS, *p)) {
			strvec_pushf(&parts, "%c", *p++);
			continue;
		}
		/* A quoted name is a name without its quotes (ld has no escapes in it). */
		n = *p == '"' ? strcspn(p + 1, "\"") : strcspn(p, SCRIPT_DELIMS);
		tok = xasprintf("%.*s", (int)n, p + (*p == '"'));
		p += n + (*p == '"' ? 1 + (p[n + 1] == '"') : 0);
		rc = script_name(rootfs, rel, tok, &parts, &escapes, &paths, &unquotable, err);
		free(tok);
	}
	if (!rc && (escapes || (via_overlay && paths)) && unquotable) {
		rc = xcc_fail(err, XCC_EUSAGE, "--target-fs %s: the linker script %s must be "
			      "written again with the root's paths, and the path %s holds a '\"' "
			      "or a line break, which a linker script cannot quote: move the root",
			      rootfs, rel, unquotable);
	} else if (!rc && (escapes || (via_overlay && paths))) {
		joined = strvec_join(&parts, "");
		strvec_push(scripts, strrchr(rel, '/') + 1);
		strvec_push(scripts, joined);
		free(joined);
		rc = 1;
	}
	strvec_free(&parts);
	free(unquotable);
	free(text);
	return rc;
}

static int is_so(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

/* rel (a link in the root) if this machine would follow it elsewhere than
 * the device does: an absolute target, or more .. than its depth. A loop
 * refuses the root; a link to nothing in the root goes in with no file.
 * With scripts, a link to a linker script gets the script checked too. */
static int check_link(const char *rootfs, char *rel, struct devroot_links *out,
		      struct strvec *scripts, struct xcc_error *err)
{
	char target[PATH_MAX], *host = xasprintf("%s/%s", rootfs, rel), *resolved = NULL;
	ssize_t len = readlink(host, target, sizeof target - 1);
	struct xcc_error why = { 0 };
	int rc, esc = len > 0 && devroot_escapes(rootfs, rel);

	free(host);
	if (len <= 0 || (!esc && !(scripts && is_so(rel)))) {
		free(rel);
		return 0;
	}
	target[len] = '\0';
	rc = devroot_lookup(rootfs, rel, &resolved, &why);
	/* A link that stays in the root is ld's to follow; only a script behind it matters. */
	if (!esc) {
		rc = rc == 0 ? check_script(rootfs, rel, resolved, 0, scripts, err) : 0;
		free(resolved);
		free(rel);
		return rc < 0 ? -1 : 0;
	}
	if (rc < 0) {
		*err = why;
		free(rel);
		return -1;
	}
	if (rc == 0 && !devroot_resolve_is_file(resolved)) {
		free(resolved);
		resolved = NULL;
	}
	/* Found through the overlay, a script's paths are read as they are: its twin. */
	if (resolved && scripts && is_so(rel) &&
	    check_script(rootfs, rel, resolved, 1, scripts, err) < 0) {
		free(resolved);
		free(rel);
		return -1;
	}
	links_push(out, rel, xstrdup(target), resolved);
	return 0;
}

static int scan_libdirs(const char *rootfs, const char *triple, struct devroot_links *out,
			struct strvec *scripts, struct xcc_error *err)
{
	struct entry *ents = NULL;
	size_t n = 0, cap = 0;
	char *rels[4] = { NULL }, *rel, *host;
	struct stat st;
	int rc = 0;

	memset(out, 0, sizeof *out);
	for (size_t d = 0; libdir_patterns[d] && !rc; d++) {
		int found = libdir_rel(rootfs, libdir_patterns[d], triple, &rels[d], err);

		/* A root without one of these dirs is normal (no multiarch, or no /lib). */
		if (found < 0 || (found == 0 && list_libdir(rootfs, rels[d], d, &ents, &n, &cap, err)))
			rc = -1;
	}
	if (n)
		qsort(ents, n, sizeof *ents, entry_cmp);
	for (size_t i = 0; i < n && !rc; i++) {
		/* ld takes a name from the first directory that has it. */
		if (i > 0 && strcmp(ents[i].name, ents[i - 1].name) == 0)
			continue;
		rel = xasprintf("%s/%s", rels[ents[i].dir], ents[i].name);
		host = host_path(rootfs, rel);
		if (lstat(host, &st) == 0 && S_ISREG(st.st_mode)) {
			if (scripts && is_so(ents[i].name))
				rc = check_script(rootfs, rel, host, 0, scripts, err) < 0 ? -1 : 0;
			free(rel);
		} else {
			rc = check_link(rootfs, rel, out, scripts, err);
		}
		free(host);
	}
	for (size_t i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
	for (size_t d = 0; libdir_patterns[d]; d++)
		free(rels[d]);
	if (rc)
		devroot_links_free(out);
	return rc;
}

int devroot_absolute_links(const char *rootfs, const char *triple, struct devroot_links *out,
			   struct xcc_error *err)
{
	return scan_libdirs(rootfs, triple, out, NULL, err);
}

void devroot_links_free(struct devroot_links *links)
{
	for (size_t i = 0; i < links->n; i++) {
		free(links->v[i].path);
		free(links->v[i].target);
		free(links->v[i].resolved);
	}
	free(links->v);
	memset(links, 0, sizeof *links);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * Why an overlay, not a fix in the root or a refusal: a board's root is
 * often read-only to the builder (a mounted image, an NFS export, a
 * JetPack rootfs owned by root) and must stay exactly as the device has
 * it, and Debian 11, Ubuntu 20.04 and L4T all ship these links. The
 * overlay holds only the corrected twins of the links that would leave
 * the root on this machine (absolute, or with more .. than their depth),
 * each pointing at the file the device would load by a path with no link
 * below the root, and of the linker scripts that name such links; it goes
 * first in the search path, so ld sees the root as the device does. Its name is a hash
 * of the root's path and of the links, so it never goes stale (other
 * links, another place: another overlay) and parallel builds share it.
 */
/* The overlay's twin of each linker script (devroot_args.scripts), in tmp. */
static int write_scripts(const char *tmp, const struct strvec *scripts, struct xcc_error *err)
{
	for (size_t i = 0; i + 1 < scripts->n; i += 2) {
		char *twin = xasprintf("%s/%s", tmp, scripts->v[i]);
		int rc = file_write_atomic(twin, scripts->v[i + 1], strlen(scripts->v[i + 1]), 0644,
					   err);

		free(twin);
		if (rc)
			return -1;
	}
	return 0;
}

static int make_overlay(const char *rootfs, const struct devroot_links *links,
			const struct strvec *scripts, const char *cache_dir, char **out,
			struct xcc_error *err)
{
	struct xcc_sha256 h;
	char hex[65], *parent, *final, *tmp;
	int used = 0;

	*out = NULL;
	xcc_sha256_init(&h);
	xcc_sha256_update(&h, rootfs, strlen(rootfs) + 1);
	for (size_t i = 0; i < links->n; i++) {
		if (!links->v[i].resolved)
			continue;
		xcc_sha256_update(&h, links->v[i].path, strlen(links->v[i].path) + 1);
		xcc_sha256_update(&h, links->v[i].resolved, strlen(links->v[i].resolved) + 1);
		used++;
	}
	for (size_t i = 0; i < scripts->n; i++)
		xcc_sha256_update(&h, scripts->v[i], strlen(scripts->v[i]) + 1);
	used += (int)scripts->n;
	if (!used)
		return 0;
	xcc_sha256_hex(&h, hex);
	hex[16] = '\0';
	parent = xasprintf("%s/target-fs", cache_dir);
	final = xasprintf("%s/%s", parent, hex);
	if (file_is_dir(final)) {
		free(parent);
		*out = final;
		return 0;
	}
	if (file_mkdir_p(parent, err)) {
		xcc_error_prefix(err, "the overlay for --target-fs %s's absolute links (set "
				 "XDG_CACHE_HOME to a writable directory)", rootfs);
		free(parent);
		free(final);
		return -1;
	}
	tmp = xasprintf("%s/.tmp-%s-XXXXXX", parent, hex);
	free(parent);
	if (!mkdtemp(tmp)) {
		xcc_fail(err, XCC_EFAIL, "cannot create %s: %s", tmp, strerror(errno));
		goto fail;
	}
	for (size_t i = 0; i < links->n; i++) {
		char *twin;
		int rc;

		if (!links->v[i].resolved)
			continue;
		twin = xasprintf("%s/%s", tmp, base_name(links->v[i].path));
		rc = symlink(links->v[i].resolved, twin);
		if (rc) {
			xcc_fail(err, XCC_EFAIL, "cannot create %s: %s", twin, strerror(errno));
			free(twin);
			file_remove_tree(tmp);
			goto fail;
		}
		free(twin);
	}
	if (write_scripts(tmp, scripts, err)) {
		file_remove_tree(tmp);
		goto fail;
	}
	chmod(tmp, 0755);
	/* Another build may have made the same overlay meanwhile: it is as good. */
	if (rename(tmp, final) && !file_is_dir(final)) {
		xcc_fail(err, XCC_EFAIL, "cannot create %s: %s", final, strerror(errno));
		file_remove_tree(tmp);
		goto fail;
	}
	file_remove_tree(tmp);
	free(tmp);
	*out = final;
	return 0;
fail:
	free(tmp);
	free(final);
	return -1;
}

int devroot_args_make(const char *rootfs, const char *triple, const char *cache_dir,
		      struct devroot_args *args, struct xcc_error *err)
{
	memset(args, 0, sizeof *args);
	args->sysroot = xstrdup(rootfs);
	if (scan_libdirs(rootfs, triple, &args->links, &args->scripts, err) ||
	    make_overlay(rootfs, &args->links, &args->scripts, cache_dir, &args->overlay, err)) {
		devroot_args_free(args);
		return -1;
	}
	if (args->overlay) {
		strvec_push(&args->prefixes, args->overlay);
		strvec_push(&args->rpath_link, args->overlay);
	}
	for (size_t d = 0; libdir_patterns[d]; d++) {
		char *rel, *dir, *as_written;
		int rc = libdir_rel(rootfs, libdir_patterns[d], triple, &rel, err);

		if (rc < 0) {
			devroot_args_free(args);
			return -1;
		}
		if (rc)
			continue;
		dir = host_path(rootfs, rel);
		/* A plain dir reached by a link that leaves the root here: ld's
		 * own search of the sysroot would read this machine's, so the
		 * device's goes before it. */
		as_written = xasprintf(libdir_patterns[d], triple);
		if (strcmp(rel, as_written) != 0)
			strvec_push(&args->moved, dir);
		if (d < MULTIARCH_DIRS || strcmp(rel, as_written) != 0)
			strvec_push(&args->prefixes, dir);
		strvec_push(&args->rpath_link, dir);
		free(as_written);
		free(dir);
		free(rel);
	}
	return 0;
}

void devroot_args_free(struct devroot_args *args)
{
	free(args->sysroot);
	strvec_free(&args->prefixes);
	strvec_free(&args->rpath_link);
	free(args->overlay);
	devroot_links_free(&args->links);
	strvec_free(&args->scripts);
	strvec_free(&args->moved);
	memset(args, 0, sizeof *args);
}

void devroot_args_format(const struct devroot_args *args, int for_nvcc, struct strvec *out)
{
	strvec_pushf(out, for_nvcc ? "-Xcompiler=--sysroot=%s" : "--sysroot=%s", args->sysroot);
	for (size_t i = 0; i < args->prefixes.n; i++)
		strvec_pushf(out, for_nvcc ? "-Xcompiler=-B%s/" : "-B%s/", args->prefixes.v[i]);
	for (size_t i = 0; i < args->rpath_link.n; i++)
		strvec_pushf(out, for_nvcc ? "-Xlinker=-rpath-link=%s" : "-Wl,-rpath-link,%s",
			     args->rpath_link.v[i]);
	/* A root without libstdc++'s development link (a board's, bullseye's
	 * libstdc++6) leaves ld the cross g++'s own libstdc++.so, built against
	 * the cross toolchain's newer glibc: ld would refuse its GLIBC_2.34
	 * needs although the device never loads that file. The device loads its
	 * own libstdc++.so.6, and the program's GLIBCXX_ needs are checked
	 * against that one after the link (cuda-xcc's floor check). */
	strvec_push(out, for_nvcc ? "-Xlinker=--allow-shlib-undefined" : "-Wl,--allow-shlib-undefined");
}
