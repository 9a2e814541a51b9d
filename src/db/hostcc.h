/* Choosing the host compiler nvcc hands host code to: the target's cross
 * g++ in a version the CUDA release accepts. */
#ifndef XCC_HOSTCC_H
#define XCC_HOSTCC_H

#include "base/error.h"
#include "db/gpus.h"

struct host_compiler {
	char *path;  /* full path */
	char *name;  /* aarch64-linux-gnu-g++-11 */
	int major;   /* gcc major version */
};

/*
 * The highest installed <triple>-g++-N (or <triple>-g++) that CUDA v accepts.
 * With allow_unsupported, the highest installed one whatever its version.
 * When none fits, the error names the Debian package to install.
 */
int hostcc_find(const struct gpudb *db, const struct target_profile *t, struct cuda_version v,
		int allow_unsupported, struct host_compiler *out, struct xcc_error *err);

/* A user's -ccbin: check with -dumpmachine that it builds for the target. */
int hostcc_check_machine(const char *ccbin, const struct target_profile *t,
			 struct xcc_error *err);

/* A user's -ccbin: its gcc version must be one CUDA v accepts (the same
 * limits hostcc_find applies), unless allow_unsupported. */
int hostcc_check_version(const struct gpudb *db, const struct target_profile *t,
			 struct cuda_version v, const char *ccbin, int allow_unsupported,
			 struct xcc_error *err);

/* The Debian package that provides g++ major version N for target t. */
char *hostcc_debian_package(const struct target_profile *t, int major);

void host_compiler_free(struct host_compiler *hc);

#endif
