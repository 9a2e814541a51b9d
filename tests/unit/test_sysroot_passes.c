/* The bounded-memory fatbin inventory must find exactly what
 * fatbin_read_file finds, on the real CUDA libraries where there are some. */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strvec.h"
#include "elf/fatbin.h"
#include "sysroot/sysroot_passes.h"
#include "tap.h"

static void same_inventory(const char *path)
{
	struct fatbin_file a, b;
	struct fatbin_options opt = { 0 };
	struct xcc_error err = { 0 };
	char *la, *lb;

	if (access(path, R_OK)) {
		ok(1, "# SKIP %s is not here", path);
		return;
	}
	ok(fatbin_read_file(path, &opt, &a, &err) == 0, "fatbin_read_file %s", path);
	ok(fatbin_read_file_bounded(path, &b, &err) == 0, "fatbin_read_file_bounded %s %s", path, err.msg);
	la = fatbin_summary_line(&a);
	lb = fatbin_summary_line(&b);
	is_str(lb, la, "same SASS and PTX sets in %s", path);
	ok(a.n_entries == b.n_entries, "same number of entries (%zu, %zu)", a.n_entries,
	   b.n_entries);
	free(la);
	free(lb);
	fatbin_file_free(&a);
	fatbin_file_free(&b);
}

int main(int argc, char **argv)
{
	static const char *const libs[] = {
		"/usr/local/cuda/lib/libcufft.so.12", "/usr/local/cuda/lib/libcusparse.so.12",
		"/usr/local/cuda/lib/libcurand.so.10", "/usr/local/cuda/lib/libcudart_static.a",
		NULL,
	};

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			same_inventory(argv[i]);
	} else {
		for (size_t i = 0; libs[i]; i++)
			same_inventory(libs[i]);
	}
	return done_testing();
}
