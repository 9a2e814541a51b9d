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

/* The variables of the environment that name another CUDA than sysroot's,
 * one line each ("CUDA_HOME=/usr/local/cuda"), in found. */
void foreign_cuda_scan(const char *sysroot, struct strvec *found);

/* The variables the compilers and the linker read as search paths
 * (LIBRARY_PATH, CPATH, C_INCLUDE_PATH, CPLUS_INCLUDE_PATH), NULL-ended. */
extern const char *const foreign_cuda_search_vars[];

/* Take the entries that lie in another CUDA out of those variables in this
 * process's environment, which the nvcc or linker it runs next inherits
 * (nothing without a sysroot). */
void foreign_cuda_clean_env(const char *sysroot);

#endif
