/* Paths in a device root resolved as the device resolves them (the root as
 * /), by openat2 and by the walk of our own it falls back to, on a root
 * made here with a decoy outside it where this machine's own walk would go. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/devroot.h"
#include "tap.h"
#include "base/xalloc.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(99);
	}
}

static void mkdirs(const char *top, const char *rel)
{
	char *p = xasprintf("%s/%s", top, rel);

	for (char *s = p + strlen(top) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
	free(p);
}

static void link_at(const char *root, const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);

	if (symlink(target, p)) {
		perror(p);
		exit(99);
	}
	free(p);
}

/*
 * top/root is the device's root; top/usr/aarch64-linux-gnu/lib/libc.so.6
 * ("out") is where this machine would land following root's links itself,
 * root/usr/aarch64-linux-gnu/lib/libc.so.6 ("in") the device's file.
 */
static char *make_root(const char *top)
{
	char *root = xasprintf("%s/root", top), *p;

	mkdirs(top, "usr/aarch64-linux-gnu/lib");
	p = xasprintf("%s/usr/aarch64-linux-gnu/lib/libc.so.6", top);
	put(p, "out");
	free(p);
	mkdirs(top, "root/usr/aarch64-linux-gnu/lib");
	mkdirs(top, "root/lib/aarch64-linux-gnu");
	p = xasprintf("%s/usr/aarch64-linux-gnu/lib/libc.so.6", root);
	put(p, "in");
	free(p);
	/* Three .. climb from root/lib/aarch64-linux-gnu to top on this machine. */
	link_at(root, "../../../usr/aarch64-linux-gnu/lib/libc.so.6", "lib/aarch64-linux-gnu/libc.so.6");
	link_at(root, "/usr/aarch64-linux-gnu/lib/libc.so.6", "lib/abs.so");
	link_at(root, "/usr/aarch64-linux-gnu", "dirlink");
	link_at(root, "../usr/aarch64-linux-gnu/lib/libc.so.6", "lib/inside.so");
	link_at(root, "b", "lib/a");
	link_at(root, "/lib/a", "lib/b");
	link_at(root, "/nowhere/libc.so.6", "lib/dangling.so");
	link_at(root, "../dirlink/lib/missing.so", "lib/nested-dangling.so");
	link_at(root, "../dirlink", "lib/dl2");
	/* A chain of 40 links resolves (Linux's limit), of 41 does not. */
	for (int i = 0; i < 41; i++) {
		char *name = xasprintf("lib/chain%d", i), *next = xasprintf("chain%d", i + 1);

		link_at(root, i == 40 ? "../usr/aarch64-linux-gnu/lib/libc.so.6" : next, name);
		free(name);
		free(next);
	}
	return root;
}

/* rel looked up both ways: the same status and path, want_rel under root. */
static void check(const char *root, const char *rel, int want, const char *want_rel)
{
	struct xcc_error e1 = { 0 }, e2 = { 0 };
	char *a = NULL, *b = NULL, *want_path = want_rel ? xasprintf("%s/%s", root, want_rel) : NULL;
	int ra = devroot_lookup(root, rel, &a, &e1), rb = devroot_walk(root, rel, &b, &e2);

	ok(ra == want, "%s: lookup gives %d (want %d) %s", rel, ra, want, ra ? e1.msg : "");
	ok(rb == want, "%s: the walk gives %d (want %d) %s", rel, rb, want, rb ? e2.msg : "");
	is_str(a, want_path, "%s: lookup's path", rel);
	is_str(b, want_path, "%s: the walk's path", rel);
	free(a);
	free(b);
	free(want_path);
}

static void test_resolution(const char *root)
{
	const char *libc = "usr/aarch64-linux-gnu/lib/libc.so.6";

	check(root, "lib/aarch64-linux-gnu/libc.so.6", 0, libc);
	check(root, "lib/abs.so", 0, libc);
	check(root, "dirlink/lib/libc.so.6", 0, libc);
	check(root, "/dirlink/lib/libc.so.6", 0, libc);
	check(root, "../../../usr/aarch64-linux-gnu/lib/libc.so.6", 0, libc);
	check(root, "lib/inside.so", 0, libc);
	check(root, "lib/chain1", 0, libc);
	check(root, "lib", 0, "lib");
	check(root, "lib/chain0", -1, NULL);
	check(root, "lib/a", -1, NULL);
	check(root, "lib/dangling.so", DEVROOT_DANGLING, NULL);
	check(root, "no/such/file", DEVROOT_ABSENT, NULL);
	check(root, "dirlink/lib/none", DEVROOT_ABSENT, NULL);
	/* A name missing at the end of a link's target: that link dangles;
	 * missing after the links, in the name asked for: absent. */
	check(root, "lib/nested-dangling.so", DEVROOT_DANGLING, NULL);
	check(root, "lib/dl2/lib/none", DEVROOT_ABSENT, NULL);
	check(root, "lib/dl2/lib/libc.so.6", 0, libc);
	check(root, "lib/dl2/../../usr/aarch64-linux-gnu/lib/libc.so.6", 0, libc);
}

static void test_messages(const char *root)
{
	struct xcc_error err = { 0 };
	char *p;

	ok(devroot_lookup(root, "lib/dangling.so", &p, &err) == DEVROOT_DANGLING, "dangling");
	ok(strstr(err.msg, "lib/dangling.so -> /nowhere/libc.so.6 names no file in that root") != NULL,
	   "the dangling link is named: %s", err.msg);
	err.msg[0] = '\0';
	ok(devroot_lookup(root, "lib/a", &p, &err) == -1, "loop");
	ok(err.status == XCC_EUSAGE, "a loop is a usage error (exit 2)");
	ok(strstr(err.msg, "the links from lib/a loop") != NULL, "the loop is named: %s", err.msg);
}

static void test_open_and_escapes(const char *root)
{
	struct xcc_error err = { 0 };
	char buf[8] = { 0 };
	int fd = devroot_open(root, "lib/aarch64-linux-gnu/libc.so.6", O_RDONLY, &err);

	ok(fd >= 0, "devroot_open opens the escaping link's in-root file %s", err.msg);
	if (fd >= 0) {
		ok(read(fd, buf, sizeof buf - 1) == 2, "it reads two bytes");
		close(fd);
	}
	is_str(buf, "in", "the device's file, not the decoy outside the root");
	ok(devroot_escapes(root, "lib/aarch64-linux-gnu/libc.so.6"), "more .. than its depth escapes");
	ok(devroot_escapes(root, "lib/abs.so"), "an absolute link escapes");
	ok(devroot_escapes(root, "dirlink/lib"), "an absolute dir link escapes");
	ok(!devroot_escapes(root, "lib/inside.so"), "a relative link inside does not");
	ok(!devroot_escapes(root, "usr/aarch64-linux-gnu/lib/libc.so.6"), "no link does not");
}

static void test_resolve(const char *root)
{
	char *p = devroot_resolve(root, "lib/aarch64-linux-gnu/libc.so.6");
	char *want = xasprintf("%s/usr/aarch64-linux-gnu/lib/libc.so.6", root);

	is_str(p, want, "devroot_resolve: the in-root file");
	free(p);
	ok(devroot_resolve(root, "lib") == NULL, "devroot_resolve: a dir is no file");
	free(want);
}

int main(void)
{
	char tmpl[] = "/tmp/xcc-devroot-XXXXXX", *root, *cmd;

	if (!mkdtemp(tmpl))
		return 99;
	root = make_root(tmpl);
	test_resolution(root);
	test_messages(root);
	test_open_and_escapes(root);
	test_resolve(root);
	cmd = xasprintf("rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpl);
	free(cmd);
	free(root);
	return done_testing();
}
