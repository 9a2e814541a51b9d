/* Version needs and definitions read with libelf, version order, and the
 * rootfs libc lookup. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "elf/glibc.h"
#include "tap.h"

static void test_version_cmp(void)
{
	ok(glibc_version_cmp("GLIBC_2.17", "GLIBC_2.34") < 0, "2.17 < 2.34");
	ok(glibc_version_cmp("GLIBC_2.9", "GLIBC_2.17") < 0, "2.9 < 2.17: numbers, not text");
	ok(glibc_version_cmp("GLIBC_2.34", "GLIBC_2.34") == 0, "2.34 == 2.34");
	ok(glibc_version_cmp("GLIBC_2.34.1", "GLIBC_2.34") > 0, "2.34.1 > 2.34");
	ok(glibc_version_cmp("GLIBC_2.2.5", "GLIBC_2.3") < 0, "2.2.5 < 2.3");
	ok(glibc_version_cmp("GLIBC_PRIVATE", "GLIBC_2.36") > 0, "PRIVATE after numbers");
}

static char *host_libc(void)
{
	static const char *const triples[] = { "x86_64-linux-gnu", "aarch64-linux-gnu", NULL };

	for (size_t i = 0; triples[i]; i++) {
		char *p = glibc_find_libc("/", triples[i]);

		if (p)
			return p;
	}
	return glibc_find_libc("/", NULL);
}

static void test_real_files(const char *self)
{
	struct glibc_version_needs needs;
	struct strvec defs = STRVEC_INIT;
	struct glibc_report r;
	struct xcc_error err = { 0 };
	char *libc = host_libc();
	int from_libc = 0, has_glibc = 0;

	ok(libc != NULL, "the host's libc.so.6 is found under /");
	ok(glibc_version_needs_read(self, &needs, &err) == 0, "needs of this test program: %s",
	   err.msg);
	for (size_t i = 0; i < needs.n; i++)
		if (strcmp(needs.v[i].file, "libc.so.6") == 0 &&
		    strncmp(needs.v[i].version, "GLIBC_2.", 8) == 0)
			from_libc = 1;
	ok(from_libc, "this program needs some GLIBC_2.x from libc.so.6");
	glibc_version_needs_free(&needs);
	if (!libc)
		return;
	ok(glibc_version_defs_read(libc, &defs, &err) == 0, "definitions of %s", libc);
	for (size_t i = 0; i < defs.n; i++)
		has_glibc |= strncmp(defs.v[i], "GLIBC_2.", 8) == 0;
	ok(has_glibc, "libc defines GLIBC_2.x versions");
	ok(!strvec_contains(&defs, "libc.so.6"), "the base entry (the soname) is left out");
	strvec_free(&defs);

	ok(glibc_check(self, libc, &r, &err) == 0, "check against the libc it runs with");
	ok(r.missing.n == 0, "a program runs with its own libc: nothing missing");
	ok(r.needed_max && r.provided_max && glibc_version_cmp(r.needed_max, r.provided_max) <= 0,
	   "needed %s <= provided %s", r.needed_max, r.provided_max);
	glibc_report_free(&r);

	ok(glibc_check(self, self, &r, &err) == -1 && err.status == XCC_EFAIL &&
		   strstr(err.msg, "defines no GLIBC_"),
	   "a 'libc' without GLIBC_ versions is refused: %s", err.msg);
	free(libc);
}

static void test_bad_input(const char *dir)
{
	struct glibc_version_needs needs;
	struct xcc_error err = { 0 };
	char *text = xasprintf("%s/not-elf", dir), *none = xasprintf("%s/missing", dir);
	FILE *f = fopen(text, "w");

	fputs("just text\n", f);
	fclose(f);
	ok(glibc_version_needs_read(text, &needs, &err) == -1 && err.status == XCC_EFAIL &&
		   strstr(err.msg, "not-elf: not an ELF file"),
	   "text file: %s", err.msg);
	ok(glibc_version_needs_read(none, &needs, &err) == -1 && err.status == XCC_EFAIL &&
		   strstr(err.msg, "missing: No such file"),
	   "missing file: %s", err.msg);
	free(text);
	free(none);
}

static void mkdirs(const char *dir, const char *rel)
{
	char *cmd = xasprintf("mkdir -p '%s/%s'", dir, rel);

	if (system(cmd) != 0)
		printf("# %s failed\n", cmd);
	free(cmd);
}

static void test_find_libc(const char *dir)
{
	char *root = xasprintf("%s/rootfs", dir), *real, *link, *got, *want;
	FILE *f;

	/* Like an old Ubuntu rootfs: libc.so.6 -> libc-2.31.so, and a link
	 * with an absolute target that must stay inside the rootfs. */
	mkdirs(root, "lib/aarch64-linux-gnu");
	mkdirs(root, "usr/lib");
	real = xasprintf("%s/lib/aarch64-linux-gnu/libc-2.31.so", root);
	f = fopen(real, "w");
	fputs("x", f);
	fclose(f);
	link = xasprintf("%s/lib/aarch64-linux-gnu/libc.so.6", root);
	ok(symlink("/lib/aarch64-linux-gnu/libc-2.31.so", link) == 0, "absolute symlink made");
	got = glibc_find_libc(root, "aarch64-linux-gnu");
	is_str(got, real, "an absolute link target is read inside the rootfs");
	free(got);

	got = glibc_find_libc(root, "x86_64-linux-gnu");
	ok(got == NULL, "no libc for another triple: %s", got ? got : "NULL");
	free(got);

	/* An absolute link to something only the build machine has. */
	unlink(link);
	ok(symlink("/proc/self/exe", link) == 0, "link to a host-only path");
	got = glibc_find_libc(root, "aarch64-linux-gnu");
	ok(got == NULL, "a link out of the rootfs does not reach the host: %s",
	   got ? got : "NULL");
	free(got);

	want = xasprintf("%s/usr/lib/libc.so.6", root);
	f = fopen(want, "w");
	fputs("x", f);
	fclose(f);
	got = glibc_find_libc(root, "aarch64-linux-gnu");
	is_str(got, want, "plain usr/lib is searched too");
	free(got);
	free(want);
	free(real);
	free(link);
	free(root);
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/test_glibc.XXXXXX";
	char *dir = mkdtemp(tmpl), *cmd;

	(void)argc;
	test_version_cmp();
	test_real_files(argv[0]);
	if (dir) {
		test_bad_input(dir);
		test_find_libc(dir);
		cmd = xasprintf("rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# cleanup of %s failed\n", dir);
		free(cmd);
	}
	return done_testing();
}
