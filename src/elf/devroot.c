#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "elf/devroot.h"

char *devroot_resolve(const char *rootfs, const char *rel)
{
	int rootlen = (int)strlen(rootfs);
	char *cur;

	while (rootlen > 0 && rootfs[rootlen - 1] == '/')
		rootlen--;
	cur = xasprintf("%.*s/%s", rootlen, rootfs, rel);

	for (int hops = 0; hops < 16; hops++) {
		struct stat st;
		char target[PATH_MAX], *slash, *next;
		ssize_t len;

		if (lstat(cur, &st) != 0)
			break;
		if (S_ISREG(st.st_mode))
			return cur;
		if (!S_ISLNK(st.st_mode))
			break;
		len = readlink(cur, target, sizeof target - 1);
		if (len < 0)
			break;
		target[len] = '\0';
		if (target[0] == '/') {
			next = xasprintf("%.*s%s", rootlen, rootfs, target);
		} else {
			slash = strrchr(cur, '/');
			next = xasprintf("%.*s/%s", (int)(slash - cur), cur, target);
		}
		free(cur);
		cur = next;
	}
	free(cur);
	return NULL;
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

int devroot_absolute_links(const char *rootfs, const char *triple, struct devroot_links *out,
			   struct xcc_error *err)
{
	struct entry *ents = NULL;
	size_t n = 0, cap = 0;
	char *rels[4];

	(void)err;
	memset(out, 0, sizeof *out);
	for (size_t d = 0; libdir_patterns[d]; d++) {
		char *dir;
		DIR *dh;
		struct dirent *de;

		rels[d] = xasprintf(libdir_patterns[d], triple);
		dir = xasprintf("%s/%s", rootfs, rels[d]);
		dh = opendir(dir);
		free(dir);
		/* A root without one of these dirs is normal (no multiarch, or no /lib). */
		if (!dh)
			continue;
		while ((de = readdir(dh))) {
			if (!linker_visible(de->d_name))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				ents = xrealloc(ents, cap * sizeof *ents);
			}
			ents[n].name = xstrdup(de->d_name);
			ents[n].dir = d;
			n++;
		}
		closedir(dh);
	}
	if (n)
		qsort(ents, n, sizeof *ents, entry_cmp);
	for (size_t i = 0; i < n; i++) {
		char *path, target[PATH_MAX];
		ssize_t len;

		/* ld takes a name from the first directory that has it. */
		if (i > 0 && strcmp(ents[i].name, ents[i - 1].name) == 0)
			continue;
		path = xasprintf("%s/%s/%s", rootfs, rels[ents[i].dir], ents[i].name);
		len = readlink(path, target, sizeof target - 1);
		free(path);
		if (len <= 0 || target[0] != '/')
			continue;
		target[len] = '\0';
		path = xasprintf("%s/%s", rels[ents[i].dir], ents[i].name);
		links_push(out, path, xstrdup(target), devroot_resolve(rootfs, path));
	}
	for (size_t i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
	for (size_t d = 0; libdir_patterns[d]; d++)
		free(rels[d]);
	return 0;
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
 * overlay holds only the corrected twins of the absolute links, each
 * pointing at the file the device would load, and goes first in the
 * search path, so ld sees the root as the device does. Its name is a hash
 * of the root's path and of the links, so it never goes stale (other
 * links, another place: another overlay) and parallel builds share it.
 */
static int make_overlay(const char *rootfs, const struct devroot_links *links,
			const char *cache_dir, char **out, struct xcc_error *err)
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
	if (devroot_absolute_links(rootfs, triple, &args->links, err) ||
	    make_overlay(rootfs, &args->links, cache_dir, &args->overlay, err)) {
		devroot_args_free(args);
		return -1;
	}
	if (args->overlay) {
		strvec_push(&args->prefixes, args->overlay);
		strvec_push(&args->rpath_link, args->overlay);
	}
	for (size_t d = 0; libdir_patterns[d]; d++) {
		char *rel = xasprintf(libdir_patterns[d], triple);
		char *dir = xasprintf("%s/%s", rootfs, rel);

		if (file_is_dir(dir)) {
			if (d < MULTIARCH_DIRS)
				strvec_push(&args->prefixes, dir);
			strvec_push(&args->rpath_link, dir);
		}
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
