/* Another CUDA in the environment: a native toolkit (CUDA_HOME=/usr/local/cuda,
 * its bin on PATH, its stubs on LIBRARY_PATH, as on many workstations and CI
 * images) that would mix into a cross build against a sysroot. */
#ifndef XCC_FOREIGN_CUDA_H
#define XCC_FOREIGN_CUDA_H

#include "base/strvec.h"

/* The root of the CUDA toolkit path lies in (a directory with bin/nvcc or
 * include/cuda_runtime_api.h, path being it or in its bin, include, lib,
 * lib64, nvvm or targets), when that is not the sysroot; NULL when path is
 * in no toolkit, in the sysroot, or does not exist. Caller frees. */
char *foreign_cuda_root(const char *path, const char *sysroot);

/* How a variable that names another CUDA reaches a build. */
enum foreign_cuda_reach {
	FOREIGN_TOOLKIT,  /* CUDA_HOME, CUDA_PATH, CUDA_ROOT, CUDAToolkit_ROOT, CUDACXX:
			   * read by build systems looking for a toolkit */
	FOREIGN_PROGRAMS, /* PATH: another nvcc, found by a bare 'nvcc' */
	FOREIGN_COMPILES, /* CPATH, C_INCLUDE_PATH, CPLUS_INCLUDE_PATH: every compile */
	FOREIGN_LINKS,    /* LIBRARY_PATH: every link */
};

/* One variable's value, or one entry of a ':' list, in another CUDA. */
struct foreign_cuda_finding {
	const char *var; /* static: the variable's name */
	char *entry;     /* the value, or the list's entry */
	char *root;      /* the other toolkit's root */
	enum foreign_cuda_reach reach;
};

struct foreign_cuda_findings {
	struct foreign_cuda_finding *v;
	size_t n, cap;
};

/* What of this process's environment lies in another CUDA than sysroot's,
 * in the order of foreign_cuda_scan()'s lines; out starts empty. */
void foreign_cuda_find(const char *sysroot, struct foreign_cuda_findings *out);
void foreign_cuda_findings_free(struct foreign_cuda_findings *f);

/* The same as lines, one each ("CUDA_HOME=/usr/local/cuda", "CPATH holds
 * /usr/local/cuda/include", "PATH holds /usr/local/cuda/bin"), in found. */
void foreign_cuda_scan(const char *sysroot, struct strvec *found);

/* The variables the compilers and the linker read as search paths
 * (LIBRARY_PATH, CPATH, C_INCLUDE_PATH, CPLUS_INCLUDE_PATH), NULL-ended. */
extern const char *const foreign_cuda_search_vars[];

/* Take the entries that lie in another CUDA out of those variables in this
 * process's environment, which the nvcc or linker it runs next inherits
 * (nothing without a sysroot). */
void foreign_cuda_clean_env(const char *sysroot);

#endif
