#ifndef XCC_USE_PREFIX_MAP_H
#define XCC_USE_PREFIX_MAP_H

#include "base/strvec.h"

/* What every preprocessing pass of nvcc sees the sysroot as, in __FILE__
 * and in debug information: one name on every machine. */
#define PREFIX_MAP_SYSROOT "/cuda-xcc/sysroot"

/*
 * The arguments that keep the sysroot's path and the build's temporary
 * names out of what nvcc writes, appended to argv (nvcc's command line,
 * after the user's nvcc_args):
 *  - -Xcompiler=-ffile-prefix-map=SYSROOT=/cuda-xcc/sysroot for the spelling
 *    given and the real path, so that every host compiler pass (the
 *    device-side and host-side preprocessing, the host compile) writes the
 *    same __FILE__ and DWARF paths wherever the sysroot lies;
 *  - for one CUDA source compiled to an object (-c, -dc, -dw): -objtemp, so
 *    that the host object's file symbol is named after the object and not
 *    after nvcc's process id (/tmp/tmpxft_<pid>_...);
 *  - and where a -ffile-prefix-map, -fdebug-prefix-map or -fmacro-prefix-map
 *    the user gives through -Xcompiler (or the sysroot's) covers that
 *    source, its path as cudafe++ hashes it into the module id (the
 *    _INTERNAL_<hash> names of the object's symbols) mapped the same way.
 * A path nvcc or gcc cannot carry in such an option (a comma, which nvcc
 * splits -Xcompiler values at; an '=', a space or a quote) is left
 * unmapped, with a line in warnings.
 */
void prefix_map_args(const char *sysroot, const struct strvec *nvcc_args, struct strvec *argv,
		     struct strvec *warnings);

/* The same map of the sysroot for a gcc of the target run directly (the
 * Meson cross file's C and C++ compiles), appended to argv; a path with an
 * '=' (gcc splits the map at its first one) is left out. */
void prefix_map_gcc_args(const char *sysroot, struct strvec *argv);

#endif
