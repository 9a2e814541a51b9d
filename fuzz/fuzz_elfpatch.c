/* libFuzzer target for ELF patching itself: the input is a valid ELF file
 * mutated by the fuzzer (seeded with real ones), patched with operations
 * chosen by its last byte, and read again. Either the patcher refuses it
 * cleanly, or what it reports as written reads back: the rpath, soname and
 * needed entries that were set. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfinfo.h"
#include "elf/elfpatch.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RPATH "$ORIGIN/../lib:/opt/a/path/long/enough/to/need/a/new/string/table"

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_elfpatch: patched, but %s does not read back\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfpatch_ops ops = ELFPATCH_OPS_INIT;
	struct elfpatch_result res = { 0 };
	struct xcc_error err = { 0 };
	struct elfinfo before, after;
	unsigned variant = size ? data[size - 1] : 0;
	char path[64];
	int fd, rc;

	/* Only what reads as ELF with a dynamic section is worth patching. */
	if (elfinfo_read_memory(data, size, &before, &err))
		return 0;
	if (!before.has_dynamic || before.is_debug) {
		elfinfo_free(&before);
		return 0;
	}
	fd = fuzz_memfile(data, size, path);
	if (fd < 0) {
		elfinfo_free(&before);
		return 0;
	}
	ops.rpath_op = variant & 1 ? ELFPATCH_RPATH_SET : ELFPATCH_RPATH_ADD;
	ops.rpath = variant & 2 ? "$ORIGIN" : RPATH;
	ops.force_rpath = !!(variant & 4);
	if (variant & 8)
		ops.set_soname = "libfuzz-patched.so.1";
	if (variant & 16)
		strvec_push(&ops.add_needed, "libfuzz-added.so.7");
	if ((variant & 32) && before.needed.n) {
		strvec_push(&ops.replace_needed, before.needed.v[0]);
		strvec_push(&ops.replace_needed, "libfuzz-replaced.so.2");
	}
	rc = elfpatch_file(path, &ops, &res, &err);
	if (rc == 0 && res.changed) {
		if (elfinfo_read(path, &after, &err) == 0) {
			/* DT_RPATH or DT_RUNPATH: which one depends on what
			 * the file had, as with patchelf. */
			const char *rp = after.runpath ? after.runpath : after.rpath;

			if (ops.rpath_op == ELFPATCH_RPATH_SET)
				check(rp && strcmp(rp, ops.rpath) == 0, "the rpath set");
			else
				check(rp && strstr(rp, ops.rpath), "the rpath added");
			if (ops.set_soname)
				check(after.soname && strcmp(after.soname, ops.set_soname) == 0,
				      "the soname");
			if (ops.add_needed.n)
				check(strvec_contains(&after.needed, "libfuzz-added.so.7"),
				      "the needed entry added");
			if (ops.replace_needed.n)
				check(strvec_contains(&after.needed, "libfuzz-replaced.so.2"),
				      "the needed entry replaced");
			elfinfo_free(&after);
		} else {
			fprintf(stderr, "fuzz_elfpatch: patched, but no longer readable: %s\n",
				err.msg);
			abort();
		}
	}
	elfpatch_result_free(&res);
	elfpatch_ops_free(&ops);
	elfinfo_free(&before);
	close(fd);
	return 0;
}
