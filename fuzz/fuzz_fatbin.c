/* libFuzzer target for the fatbin parser. The first input byte picks the
 * entry point, the rest is the data:
 *   0  one .nv_fatbin section, strict
 *   1  a data section, searched for containers by magic
 *   2  a whole file: ELF, static archive or bare fatbin (libelf underneath)
 * Whatever parses is also summarised and run through the serving check, so
 * every field the parser accepts is used. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The GPU database the serving check reads (which SMs are Tegra ones),
 * loaded once for the whole run. */
static const struct gpudb *fuzz_gpudb(void)
{
	static struct gpudb db;
	static int loaded;
	struct xcc_error err = { 0 };

	if (!loaded && gpudb_load(&db, &err))
		abort();
	loaded = 1;
	return &db;
}

static void use(const struct fatbin_file *f)
{
	static const int gpus[][2] = { { 7, 5 }, { 8, 7 }, { 9, 0 }, { 10, 3 }, { 11, 0 }, { 12, 1 } };
	const struct gpudb *db = fuzz_gpudb();
	char *line = fatbin_summary_line(f);

	free(line);
	for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++) {
		const struct gpu_cap *known = gpudb_find_cap(db, gpus[i][0], gpus[i][1], 0);
		struct fatbin_serving how;

		fatbin_serves(db, f, known, &how);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fatbin_file f;
	struct xcc_error err;
	unsigned mode;

	if (size < 1)
		return 0;
	mode = data[0] % 3;
	data++;
	size--;
	memset(&f, 0, sizeof f);
	if (mode < 2) {
		/* An exact-size copy, so ASan sees any read past the end. */
		unsigned char *copy = malloc(size ? size : 1);

		memcpy(copy, data, size);
		if (fatbin_parse_section(copy, size, mode == 0, ".nv_fatbin", 0, 0, &f, &err) == 0)
			use(&f);
		free(copy);
		free(f.entries);
		return 0;
	}
	{
		char *copy = malloc(size ? size : 1);

		memcpy(copy, data, size);
		if (fatbin_read_memory(copy, size, "fuzz", NULL, &f, &err) == 0) {
			use(&f);
			fatbin_file_free(&f);
		}
		free(copy);
	}
	return 0;
}
