/* Where a cross link finds the libraries that the libraries it links NEED:
 * the sysroot's target libraries, and CUDA's stub libcuda as libcuda.so.1.
 * A cross ld follows NEEDED entries through -rpath-link and its own search
 * directories only, never through a library's RUNPATH, and the driver
 * library libcuda.so.1 exists only on the board. */
#ifndef XCC_LINKDIRS_H
#define XCC_LINKDIRS_H

#include "base/error.h"
#include "base/strvec.h"

/* *dir: a directory in the user's cache holding libcuda.so.1, a link to
 * SYSROOT/targets/TARGET_DIR/lib/stubs/libcuda.so (SONAME libcuda.so.1),
 * made or set right now. Never in the sysroot, whose lib/stubs must stay
 * what ld links against with -lcuda. Fails (XCC_EUSAGE) where the sysroot
 * has no stub. */
int stub_libcuda_dir(const char *sysroot, const char *target_dir, char **dir,
		     struct xcc_error *err);

/* Appends to dirs, absolute, what a link against the sysroot needs on
 * -rpath-link: SYSROOT/targets/TARGET_DIR/lib, then the stub's directory
 * (stub_libcuda_dir) where the sysroot has a stub. Fails where that
 * directory cannot be made (dirs then holds the first one). */
int link_rpath_dirs(const char *sysroot, const char *target_dir, struct strvec *dirs,
		    struct xcc_error *err);

/* The same as nvcc options, -Xlinker=-rpath-link=DIR each, appended to argv;
 * a directory with a comma (nvcc splits option values at commas), or a stub
 * directory that cannot be made, is left out with a line in warnings. */
void link_rpath_nvcc_args(const char *sysroot, const char *target_dir, struct strvec *argv,
			  struct strvec *warnings);

#endif
