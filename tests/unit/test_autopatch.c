/* autopatch's resolution on a tree of real ELF files built here with the
 * cross and native compilers: what resolves where, by architecture, what
 * is written, and that a second run finds nothing to do. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "elf/autopatch.h"
#include "elf/elfinfo.h"
#include "tap.h"

static char tmp[] = "/tmp/test_autopatch.XXXXXX";

/* tree/bin/a (aarch64) needs libb.so, which tree/lib has; arm/ and x86/
 * hold an aarch64 and an x86_64 libb.so outside the tree; bare/bin/a is
 * the same program with no libb.so beside it. */
static int build_fixtures(void)
{
	return tap_sh("cd %s && mkdir -p tree/bin tree/lib arm x86 bare/bin && "
		  "printf 'int b(void) { return 7; }\\n' > b.c && "
		  "printf 'int b(void);\\nint main(void) { return b(); }\\n' > a.c && "
		  "aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libb.so -o tree/lib/libb.so b.c && "
		  "cp tree/lib/libb.so arm/libb.so && "
		  "gcc -shared -fPIC -Wl,-soname,libb.so -o x86/libb.so b.c && "
		  "aarch64-linux-gnu-gcc -o tree/bin/a a.c -Ltree/lib -lb && "
		  "cp tree/bin/a bare/bin/a", tmp);
}

static const struct autopatch_file *file_named(const struct autopatch_report *r,
					       const char *suffix)
{
	size_t n = strlen(suffix);

	for (size_t i = 0; i < r->n_files; i++) {
		size_t m = strlen(r->files[i].path);

		if (m >= n && strcmp(r->files[i].path + m - n, suffix) == 0)
			return &r->files[i];
	}
	return NULL;
}

/* Run autopatch over tmp/tree_rel with the --libs dirs given (rel to tmp). */
static int run(const char *tree_rel, const char *libs_rel, const char *ignore, int dry_run,
	       struct autopatch_report *r, struct xcc_error *err)
{
	struct autopatch_opts o = AUTOPATCH_OPTS_INIT;
	int rc;

	memset(r, 0, sizeof *r);
	xcc_error_clear(err);
	strvec_pushf(&o.paths, "%s/%s", tmp, tree_rel);
	if (libs_rel)
		strvec_pushf(&o.libs, "%s/%s", tmp, libs_rel);
	if (ignore)
		strvec_push(&o.ignore_missing, ignore);
	o.dry_run = dry_run;
	rc = autopatch_run(&o, r, err);
	autopatch_opts_free(&o);
	return rc;
}

static void test_in_tree(void)
{
	struct autopatch_report r;
	struct xcc_error err = { 0 };
	const struct autopatch_file *a;
	struct elfinfo info;
	char *path;
	int rc;

	ok(run("tree", NULL, NULL, 1, &r, &err) == -1 && r.n_stale == 1,
	   "dry run: bin/a's libb.so is in the tree but off its run path (%s)", err.msg);
	a = file_named(&r, "/bin/a");
	ok(a && a->action == AUTOPATCH_PATCHED && a->new_rpath &&
	   strcmp(a->new_rpath, "$ORIGIN/../lib") == 0,
	   "it would get $ORIGIN/../lib (%s)", a && a->new_rpath ? a->new_rpath : "-");
	is_str(a ? a->arch : NULL, "aarch64", "read as aarch64");
	autopatch_report_free(&r);

	ok(run("tree", NULL, NULL, 0, &r, &err) == 0, "patched (%s)", err.msg);
	ok(r.n_missing == 0, "nothing missing");
	ok(r.n_provided >= 1 && strcmp(r.provided[0].library, "libc.so.6") == 0 &&
	   strcmp(r.provided[0].by, "target C library") == 0,
	   "libc.so.6 is the target's C library, not looked for");
	autopatch_report_free(&r);
	path = xasprintf("%s/tree/bin/a", tmp);
	memset(&info, 0, sizeof info);
	rc = elfinfo_read(path, &info, &err);
	ok(rc == 0 && info.runpath && strcmp(info.runpath, "$ORIGIN/../lib") == 0,
	   "the file now says RUNPATH $ORIGIN/../lib (%s)", info.runpath ? info.runpath : "-");
	elfinfo_free(&info);
	free(path);

	ok(run("tree", NULL, NULL, 1, &r, &err) == 0 && r.n_stale == 0,
	   "a dry run after it finds nothing to do (%s)", err.msg);
	a = file_named(&r, "/bin/a");
	ok(a && a->action == AUTOPATCH_UNCHANGED, "bin/a is unchanged the second time");
	autopatch_report_free(&r);
}

static void test_by_architecture(void)
{
	struct autopatch_report r;
	struct xcc_error err = { 0 };

	/* An x86_64 libb.so does not serve an aarch64 program. */
	ok(run("bare", "x86", NULL, 1, &r, &err) == -1 && err.status == XCC_EFAIL &&
	   r.n_missing == 1 && r.n_missing_unignored == 1,
	   "an x86_64 libb.so leaves aarch64 bin/a's need unresolved (%s)", err.msg);
	if (r.n_missing) {
		is_str(r.missing[0].library, "libb.so", "the missing library is named");
		is_str(r.missing[0].arch, "aarch64", "with the architecture it must have");
		ok(r.missing[0].searched && strstr(r.missing[0].searched, "/x86"),
		   "and the directories searched (%s)", r.missing[0].searched);
	}
	autopatch_report_free(&r);

	/* An aarch64 one outside the tree satisfies it without a RUNPATH. */
	ok(run("bare", "arm", NULL, 0, &r, &err) == 0 && r.n_missing == 0,
	   "an aarch64 libb.so in --libs satisfies it (%s)", err.msg);
	for (size_t i = 0; i < r.n_provided; i++)
		if (strcmp(r.provided[i].library, "libb.so") == 0)
			ok(strstr(r.provided[i].by, "/arm/libb.so") != NULL,
			   "recorded as provided by %s", r.provided[i].by);
	ok(file_named(&r, "/bin/a") && file_named(&r, "/bin/a")->action == AUTOPATCH_UNCHANGED,
	   "nothing outside the tree goes into RUNPATH");
	autopatch_report_free(&r);

	ok(run("bare", "x86", "libb*", 1, &r, &err) == 0 && r.n_missing == 1 &&
	   r.missing[0].ignored && r.n_missing_unignored == 0,
	   "--ignore-missing libb* lets it stay unresolved (%s)", err.msg);
	autopatch_report_free(&r);
}

static void test_libc_family(void)
{
	ok(autopatch_is_libc("libc.so.6") && autopatch_is_libc("libm.so.6") &&
	   autopatch_is_libc("ld-linux-aarch64.so.1"), "the C library's family");
	ok(!autopatch_is_libc("libcudart.so.12") && !autopatch_is_libc("libstdc++.so.6"),
	   "not CUDA's or the C++ runtime");
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	if (tap_sh("command -v aarch64-linux-gnu-gcc >/dev/null && command -v gcc >/dev/null")) {
		printf("1..0 # SKIP aarch64-linux-gnu-gcc or gcc is not installed\n");
		return 0;
	}
	if (build_fixtures()) {
		printf("Bail out! cannot build the fixtures\n");
		return 1;
	}
	test_in_tree();
	test_by_architecture();
	test_libc_family();
	tap_sh("rm -rf %s", tmp);
	return done_testing();
}
