/* libFuzzer target for the redistrib_<V>.json reader: any bytes give a
 * manifest or an error; what parsed can be queried for every tag and
 * release without a crash. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>

#include "db/gpus.h"
#include "pkg/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const tags[] = { "linux-x86_64", "linux-sbsa", "linux-aarch64" };
	static const char *const releases[] = { "11.8", "12.6", "13.0", "13.2" };
	struct manifest m;
	struct xcc_error err = { 0 };

	if (manifest_parse((const char *)data, size, "fuzz.json", &m, &err))
		return 0;
	for (size_t i = 0; i < m.n_packages; i++) {
		const struct manifest_package *p = &m.packages[i];

		if (manifest_find(&m, p->key) == NULL)
			abort(); /* a package it holds must be found by its key */
		for (size_t t = 0; t < sizeof tags / sizeof *tags; t++)
			for (size_t r = 0; r < sizeof releases / sizeof *releases; r++) {
				struct cuda_version v;

				if (cuda_version_parse(releases[r], &v) == 0)
					(void)manifest_archive_for(p, tags[t], v);
			}
	}
	manifest_free(&m);
	return 0;
}
