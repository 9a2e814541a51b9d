/*
 * cuda-xcc-nvcc: the driver alone, "cuda-xcc-nvcc ARGS" being "cuda-xcc
 * ARGS" in driver mode, with no verbs: every argument is the driver's or
 * nvcc's, so --version and --help are nvcc's. Build systems call it once
 * per CUDA compile (Meson's cuda entry, a Makefile's NVCC); being its own
 * program, linked --as-needed, it does not load libcurl's and libarchive's
 * libraries, whose relocation is most of cuda-xcc's start-up.
 */
#include <config.h>

#include "cli/cmd.h"

int main(int argc, char **argv)
{
	struct cmd_ctx ctx = { 0 };
	int rc;

	if (argc < 2)
		return cmd_usage_error(NULL, "cuda-xcc-nvcc takes nvcc's arguments and the driver's "
				       "(--sysroot DIR, -arch sm_XX...): see 'cuda-xcc --help'");
	rc = cmd_driver(argc - 1, argv + 1, &ctx);
	cmd_ctx_free(&ctx);
	return rc;
}
