/* libFuzzer target for the glibc check's readers: the version needs
 * (SHT_GNU_verneed) and definitions (SHT_GNU_verdef) of any bytes, behind
 * a valid ELF identification so that the tables get the fuzzer's time. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strvec.h"
#include "elf/glibc.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct glibc_version_needs needs;
	struct strvec defs = STRVEC_INIT;
	struct xcc_error err = { 0 };
	size_t len = size < 64 ? 64 : size;
	uint8_t *buf = calloc(1, len);
	char path[64];
	int fd;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (size < 4 || memcmp(data, "\177ELF", 4) != 0) {
		memcpy(buf, "\177ELF", 4);
		buf[4] = (uint8_t)(1 + (buf[4] & 1));
		buf[5] = (uint8_t)(1 + (buf[5] & 1));
		buf[6] = 1;
	}
	fd = fuzz_memfile(buf, len, path);
	free(buf);
	if (fd < 0)
		return 0;
	if (glibc_version_needs_read(path, &needs, &err) == 0)
		glibc_version_needs_free(&needs);
	if (glibc_version_defs_read(path, &defs, &err) == 0) {
		/* Versions sort: compare each with its neighbour both ways. */
		for (size_t i = 1; i < defs.n; i++) {
			int ab = glibc_version_cmp(defs.v[i - 1], defs.v[i]);
			int ba = glibc_version_cmp(defs.v[i], defs.v[i - 1]);

			if ((ab > 0) - (ab < 0) != (ba < 0) - (ba > 0))
				abort();
		}
	}
	strvec_free(&defs);
	close(fd);
	return 0;
}
