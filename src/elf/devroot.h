/* A device's root filesystem (--target-fs) as the cross compiler and linker
 * see it: the directories they search, the absolute symlinks a root taken
 * as it is holds, and the arguments that build against it. */
#ifndef XCC_DEVROOT_H
#define XCC_DEVROOT_H

#include "base/error.h"
#include "base/strvec.h"

/* Follow rel (relative to rootfs) through symlinks the way the device would
 * see them: an absolute link target is read relative to rootfs. Returns a
 * host path to an existing regular file, or NULL; caller frees. */
char *devroot_resolve(const char *rootfs, const char *rel);

/* One symlink among the root's linker-visible files whose target is an
 * absolute path: on the build machine it names the build machine's file. */
struct devroot_link {
	char *path;     /* relative to the root: usr/lib/aarch64-linux-gnu/libm.so */
	char *target;   /* as written: /lib/aarch64-linux-gnu/libm.so.6 */
	char *resolved; /* the file it names inside the root (host path), NULL if none */
};

struct devroot_links {
	struct devroot_link *v;
	size_t n, cap;
};

/* The absolute symlinks ld would meet first by their name (libraries and
 * start files in lib/<triple>, usr/lib/<triple>, lib, usr/lib, in ld's
 * search order). None is not an error. */
int devroot_absolute_links(const char *rootfs, const char *triple, struct devroot_links *out,
			   struct xcc_error *err);
void devroot_links_free(struct devroot_links *links);

/* What builds against rootfs (absolute, no comma), for the compiler driver
 * of the cross toolchain: */
struct devroot_args {
	char *sysroot;            /* --sysroot= */
	struct strvec prefixes;   /* -B, in order: the overlay first, then the multiarch dirs */
	struct strvec rpath_link; /* -rpath-link, in order: the overlay first */
	char *overlay;            /* the overlay directory, or NULL when the root needs none */
	struct devroot_links links; /* the absolute links the overlay stands in for */
};

/* Fill args. When the root holds absolute links, their corrected twins
 * are made (once per root and set of links) in an overlay directory under
 * cache_dir, which goes first in the search paths. */
int devroot_args_make(const char *rootfs, const char *triple, const char *cache_dir,
		      struct devroot_args *args, struct xcc_error *err);
void devroot_args_free(struct devroot_args *args);

/* args as options of the cross compiler's driver (gcc, g++), or with
 * for_nvcc as nvcc passes them on (-Xcompiler=, -Xlinker=), appended to out:
 * one order, one spelling for the cuda-xcc driver and the toolchain files. */
void devroot_args_format(const struct devroot_args *args, int for_nvcc, struct strvec *out);

#endif
