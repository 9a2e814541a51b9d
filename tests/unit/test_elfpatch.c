/* elfpatch's planning on a real aarch64 library built here: what is
 * patched where it is, what makes the file grow by one segment, that the
 * same request twice changes nothing the second time, and what is read
 * back afterwards. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "elf/elfinfo.h"
#include "elf/elfpatch.h"
#include "tap.h"

static char tmp[] = "/tmp/test_elfpatch.XXXXXX";

/* A fresh copy of the library (soname libpatchme.so.1, needs libm.so.6). */
static char *fretap_sh(const char *name)
{
	char *path = xasprintf("%s/%s", tmp, name);

	tap_sh("cp %s/orig.so %s", tmp, path);
	return path;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

static int patch(const char *path, struct elfpatch_ops *ops, struct elfpatch_result *res,
		 struct xcc_error *err)
{
	memset(res, 0, sizeof *res);
	xcc_error_clear(err);
	return elfpatch_file(path, ops, res, err);
}

static void read_back(const char *path, struct elfinfo *info)
{
	struct xcc_error err = { 0 };

	if (elfinfo_read(path, info, &err)) {
		printf("# cannot read %s back: %s\n", path, err.msg);
		memset(info, 0, sizeof *info);
	}
}

static void test_soname_and_needed(void)
{
	struct elfpatch_ops ops = ELFPATCH_OPS_INIT;
	struct elfpatch_result res;
	struct xcc_error err = { 0 };
	struct elfinfo info;
	char *path = fretap_sh("soname.so");
	long before = file_size(path);

	/* A longer soname needs room: one new segment. */
	ops.set_soname = "libpatchme-with-a-longer-name.so.1";
	ok(patch(path, &ops, &res, &err) == 0 && res.changed && res.grew,
	   "a longer soname grows the file by a segment (%s)", err.msg);
	ok(file_size(path) > before, "the file grew");
	before = file_size(path);
	elfpatch_result_free(&res);
	/* As patchelf, only run paths are rewritten where they are: another
	 * soname is a new string even when it is shorter. */
	ops.set_soname = "libp.so.1";
	ok(patch(path, &ops, &res, &err) == 0 && res.changed && res.grew &&
	   file_size(path) > before, "a shorter soname is a new string too (%s)", err.msg);
	read_back(path, &info);
	is_str(info.soname, "libp.so.1", "soname read back");
	elfinfo_free(&info);
	elfpatch_result_free(&res);
	ok(patch(path, &ops, &res, &err) == 0 && !res.changed,
	   "the same request again changes nothing");
	elfpatch_result_free(&res);

	/* Removing a DT_NEEDED never needs room. */
	ops.set_soname = NULL;
	strvec_push(&ops.remove_needed, "libm.so.6");
	ok(patch(path, &ops, &res, &err) == 0 && res.changed && !res.grew,
	   "--remove-needed in place (%s)", err.msg);
	read_back(path, &info);
	ok(!strvec_contains(&info.needed, "libm.so.6"), "libm.so.6 is no longer needed");
	elfinfo_free(&info);
	elfpatch_result_free(&res);
	elfpatch_ops_free(&ops);
	free(path);
}

static void test_growth(void)
{
	struct elfpatch_ops ops = ELFPATCH_OPS_INIT;
	struct elfpatch_result res;
	struct xcc_error err = { 0 };
	struct elfinfo info;
	char *path = fretap_sh("rpath.so");
	long before = file_size(path);
	const char *rp = "$ORIGIN/../lib:$ORIGIN/../targets/sbsa-linux/lib/a/long/way/down";

	ops.rpath_op = ELFPATCH_RPATH_SET;
	ops.rpath = rp;
	ok(patch(path, &ops, &res, &err) == 0 && res.changed && res.grew,
	   "a new run path that does not fit grows the file by a segment (%s)", err.msg);
	ok(file_size(path) > before && (long)res.new_size == file_size(path),
	   "the file grew (%ld -> %ld)", before, file_size(path));
	read_back(path, &info);
	is_str(info.runpath, rp, "DT_RUNPATH read back");
	ok(info.rpath == NULL, "and no DT_RPATH");
	is_str(info.soname, "libpatchme.so.1", "the soname is untouched");
	ok(strvec_contains(&info.needed, "libm.so.6"), "libm.so.6 still needed");
	elfinfo_free(&info);
	elfpatch_result_free(&res);
	ok(patch(path, &ops, &res, &err) == 0 && !res.changed && !res.grew,
	   "the same run path again changes nothing");
	elfpatch_result_free(&res);
	ok(tap_sh("aarch64-linux-gnu-readelf -d %s | grep -q 'RUNPATH.*long/way/down'", path) == 0,
	   "binutils' readelf agrees");

	/* A shorter one now fits in the grown string table. */
	ops.rpath = "$ORIGIN";
	ok(patch(path, &ops, &res, &err) == 0 && res.changed && !res.grew,
	   "a shorter run path is patched in place (%s)", err.msg);
	elfpatch_result_free(&res);
	ops.force_rpath = 1;
	ok(patch(path, &ops, &res, &err) == 0 && res.changed, "--force-rpath (%s)", err.msg);
	read_back(path, &info);
	ok(info.rpath && strcmp(info.rpath, "$ORIGIN") == 0 && info.runpath == NULL,
	   "DT_RPATH instead of DT_RUNPATH");
	elfinfo_free(&info);
	elfpatch_result_free(&res);
	elfpatch_ops_free(&ops);
	free(path);
}

static void test_output(void)
{
	struct elfpatch_ops ops = ELFPATCH_OPS_INIT;
	struct elfpatch_result res;
	struct xcc_error err = { 0 };
	struct elfinfo info;
	char *path = fretap_sh("in.so"), *out = xasprintf("%s/out.so", tmp);
	long before = file_size(path);

	strvec_push(&ops.replace_needed, "libm.so.6");
	strvec_push(&ops.replace_needed, "libm-with-a-much-longer-name.so.6");
	ops.output = out;
	ok(patch(path, &ops, &res, &err) == 0 && res.changed, "--output (%s)", err.msg);
	read_back(out, &info);
	ok(strvec_contains(&info.needed, "libm-with-a-much-longer-name.so.6") &&
	   !strvec_contains(&info.needed, "libm.so.6"), "the output needs the new name");
	elfinfo_free(&info);
	read_back(path, &info);
	ok(strvec_contains(&info.needed, "libm.so.6") && file_size(path) == before,
	   "the input is left as it was");
	elfinfo_free(&info);
	elfpatch_result_free(&res);
	elfpatch_ops_free(&ops);
	free(out);
	free(path);
}

static void test_not_elf(void)
{
	struct elfpatch_ops ops = ELFPATCH_OPS_INIT;
	struct elfpatch_result res;
	struct xcc_error err = { 0 };
	char *path = xasprintf("%s/text.so", tmp);
	FILE *f = fopen(path, "w");

	fputs("not an ELF file at all\n", f);
	fclose(f);
	ops.set_soname = "x";
	ok(patch(path, &ops, &res, &err) == -1 && err.status == XCC_EFAIL &&
	   strstr(err.msg, "not an ELF file"), "a text file is refused: %s", err.msg);
	elfpatch_result_free(&res);
	free(path);
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	if (tap_sh("command -v aarch64-linux-gnu-gcc >/dev/null && "
	       "command -v aarch64-linux-gnu-readelf >/dev/null")) {
		printf("1..0 # SKIP aarch64-linux-gnu-gcc or its readelf is not installed\n");
		return 0;
	}
	if (tap_sh("cd %s && printf 'double f(double x) { return x * 2; }\\n' > l.c && "
	       "aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libpatchme.so.1 -Wl,--no-as-needed "
	       "-o orig.so l.c -lm", tmp)) {
		printf("Bail out! cannot build the library\n");
		return 1;
	}
	test_soname_and_needed();
	test_growth();
	test_output();
	test_not_elf();
	tap_sh("rm -rf %s", tmp);
	return done_testing();
}
