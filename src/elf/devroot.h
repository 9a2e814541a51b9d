/* A device's root filesystem (--target-fs) read as the device reads it,
 * and as the cross compiler and linker see it: the directories they
 * search, the symlinks a root taken as it is holds that would lead this
 * machine out of it, and the arguments that build against it. */
#ifndef XCC_DEVROOT_H
#define XCC_DEVROOT_H

#include "base/error.h"
#include "base/strvec.h"

/*
 * Paths in a device root are read as the device reads them, with the root
 * as /: a link's absolute target starts again at the root and .. never
 * climbs above it (Linux's openat2 RESOLVE_IN_ROOT; where the kernel lacks
 * it, a walk of our own with the same rules and at most 40 links). The
 * host paths returned hold no link below the root, so whoever opens them
 * (libelf, the linker) reads the device's file and nothing outside.
 */
enum {
	DEVROOT_ABSENT = 1,   /* no such name in the root; no link broke on the way */
	DEVROOT_DANGLING = 2, /* a link on the way names nothing in the root (err says which) */
};

/* rel (relative to rootfs) resolved inside rootfs: 0 and the host path of
 * what it names (rootfs as given, then the canonical path) in *out, caller
 * frees; DEVROOT_ABSENT; DEVROOT_DANGLING; -1 for links that loop or are
 * more than 40 deep (err names the link, XCC_EUSAGE). */
int devroot_lookup(const char *rootfs, const char *rel, char **out, struct xcc_error *err);

/* devroot_lookup by the walk of our own alone (what it falls back to where
 * openat2 is missing, and how it names a broken link). */
int devroot_walk(const char *rootfs, const char *rel, char **out, struct xcc_error *err);

/* open(2) of rel inside rootfs, flags as open's: an fd, or -1 with err. */
int devroot_open(const char *rootfs, const char *rel, int flags, struct xcc_error *err);

/* Whether this machine, following rel's links itself, would leave rootfs or
 * read another file than the device does: a link on the way is absolute or
 * climbs above the root. */
int devroot_escapes(const char *rootfs, const char *rel);

/* devroot_lookup of a regular file, errors as NULL; caller frees. */
char *devroot_resolve(const char *rootfs, const char *rel);

/* One symlink among the root's linker-visible files whose target is an
 * absolute path or climbs above the root: on the build machine it names
 * the build machine's file. */
struct devroot_link {
	char *path;     /* relative to the root: usr/lib/aarch64-linux-gnu/libm.so */
	char *target;   /* as written: /lib/aarch64-linux-gnu/libm.so.6 */
	char *resolved; /* the file it names inside the root (host path), NULL if none */
};

struct devroot_links {
	struct devroot_link *v;
	size_t n, cap;
};

/* Those symlinks ld would meet first by their name (libraries and start
 * files in lib/<triple>, usr/lib/<triple>, lib, usr/lib, in ld's search
 * order). None is not an error; links that loop are (-1, err names one). */
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
	struct strvec scripts;      /* pairs: a linker script's name, the text of its twin */
	struct strvec moved;        /* lib dirs reached by a link that leaves the root on this
				     * machine, by their in-root paths (in prefixes too) */
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
