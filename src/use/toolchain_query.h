/* What the shipped wrappers (the CMake toolchain file, the Yocto class,
 * the Buildroot package) ask of a sysroot: its directories, compilers,
 * GPUs and fingerprint, whether another CUDA in the environment would mix
 * into the build, and whether CMake can carry its paths. One answer, from
 * the rules that own each part (sysroot_open, flags, foreign_cuda, the
 * CMake quoting of toolchain.h), so that no wrapper keeps a copy of them.
 * 'cuda-xcc toolchain query' prints it. */
#ifndef XCC_TOOLCHAIN_QUERY_H
#define XCC_TOOLCHAIN_QUERY_H

#include "base/error.h"
#include "base/strvec.h"
#include "db/gpus.h"

enum toolchain_query_form {
	QUERY_JSON,        /* every field, as JSON */
	QUERY_GET,         /* one field, plain: a value per line */
	QUERY_CMAKE,       /* set() lines of CUDA_XCC_QUERY_<FIELD> for the toolchain file */
	QUERY_CMAKE_CACHE, /* an initial cache (cmake -C) of the toolkit's entries */
};

struct toolchain_query {
	const char *sysroot;   /* as the caller names it (CUDA_XCC_SYSROOT) */
	const char *cuda_xcc;  /* the cuda-xcc the caller runs, or NULL: checked, never run */
	const char *target_fs; /* --target-fs, or NULL: the sysroot's */
	struct strvec arch;    /* -arch lists; empty: the sysroot's capabilities */
	/* NAME=PATH: values of the caller's (a -DCMAKE_CUDA_COMPILER) checked
	 * for another CUDA as the environment's are. */
	struct strvec check;
	/* NAME=VALUE: QUERY_CMAKE_CACHE's entries of the caller's, after its own. */
	struct strvec cache;
	enum toolchain_query_form form;
	const char *field; /* QUERY_GET */
};

/* The answer to q in q->form; caller frees. The CMake forms refuse
 * (XCC_EUSAGE, naming the way out) what the JSON reports as cmake_refusal:
 * a path CMake cannot carry, another CUDA's headers on a compiler search
 * path, and (QUERY_CMAKE) a sysroot that records no host compiler. */
char *toolchain_query(const struct gpudb *db, const struct toolchain_query *q,
		      struct xcc_error *err);

#endif
