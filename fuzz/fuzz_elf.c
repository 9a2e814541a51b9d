/* libFuzzer target for the ELF reader and the patcher: any bytes must give
 * either a result or an error, never a crash or an out-of-bounds access. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/elfinfo.h"
#include "elf/elfpatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Patch a copy in a memory file: exercises the in-place and growth paths. */
static void try_patch(const uint8_t *buf, size_t len, unsigned variant)
{
	struct elfpatch_ops ops = ELFPATCH_OPS_INIT;
	struct elfpatch_result res = { 0 };
	struct xcc_error err = { 0 };
	char path[64];
	int fd = memfd_create("fuzz_elf", 0);

	if (fd < 0)
		return;
	if (write(fd, buf, len) == (ssize_t)len) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ops.rpath_op = variant & 1 ? ELFPATCH_RPATH_SET : ELFPATCH_RPATH_REMOVE;
		ops.rpath = "$ORIGIN/../lib:/a/path/long/enough/to/need/a/new/string/table";
		if (variant & 2)
			strvec_push(&ops.add_needed, "libextra.so.1");
		if (variant & 4)
			ops.set_interp = "/lib/a/much/longer/interpreter/path/ld-linux.so.2";
		if (variant & 8)
			ops.set_soname = "libfuzz.so.1";
		elfpatch_file(path, &ops, &res, &err);
		elfpatch_result_free(&res);
		elfpatch_ops_free(&ops);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfinfo info;
	struct xcc_error err = { 0 };
	uint8_t *buf;
	size_t len = size < 64 ? 64 : size;

	/* The bytes as they are: mostly "not an ELF file". */
	if (elfinfo_read_memory(data, size, &info, &err) == 0)
		elfinfo_free(&info);

	/* The same bytes behind a valid ELF identification, so the fuzzer
	 * spends its time on headers and tables rather than on the magic. */
	buf = calloc(1, len);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memcpy(buf, "\177ELF", 4);
	buf[4] = (uint8_t)(1 + (buf[4] & 1));
	buf[5] = (uint8_t)(1 + (buf[5] & 1));
	buf[6] = 1;
	if (elfinfo_read_memory(buf, len, &info, &err) == 0) {
		elfinfo_free(&info);
		try_patch(buf, len, size ? data[size - 1] : 0);
	}
	free(buf);
	return 0;
}
