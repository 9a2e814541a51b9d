/* The ELF passes sysroot create, verify and info run over a tree: the
 * autopatch of both halves and the fatbin serving check of the target
 * libraries. Kept apart from sysroot.c so the orchestration does not
 * depend on how those passes are built. */
#ifndef XCC_SYSROOT_CHECKS_H
#define XCC_SYSROOT_CHECKS_H

#include "error.h"
#include "fatbin.h"
#include "gpus.h"
#include "strvec.h"

/*
 * Resolve the DT_NEEDED of the host half (bin, nvvm: x86_64, against the
 * build machine) and the target half (targets/<dir>: against the tree and
 * the cross toolchain <triple>-gcc, or the device's root filesystem
 * target_fs when not NULL), patching RUNPATHs unless dry_run.
 * Unresolved dependencies are notes, not failures (the device provides
 * more than a sysroot can know); a patch that fails is an error.
 */
int sysroot_autopatch(const char *root, const char *target_dir, const char *triple,
		      const char *target_fs, int dry_run, struct strvec *notes,
		      struct xcc_error *err);

/*
 * The GLIBC_ floor check the driver runs after a --target-fs link, on the
 * target libraries of the tree (targets/<dir>/lib): each one that needs a
 * newer GLIBC_ than target_fs's libc.so.6 defines, or that cannot be
 * checked, adds a warning (the sysroot is still made: the device may be
 * updated, and the tool cannot know).
 */
void sysroot_glibc_floor(const char *root, const char *target_dir, const char *triple,
			 const char *target_fs, struct strvec *warnings);

/*
 * The serving table of every target library with device code:
 * JSON array of {"library": "lib/libx.so.1", "serving": {"8.7": "OK", ...}}
 * (verdicts "OK", "PTX-JIT", "NOT SERVED"). *unserved counts NOT SERVED
 * cells; *table_json is malloc'ed.
 */
int sysroot_serving(const struct gpudb *db, const char *root, const char *target_dir,
		    const struct strvec *capabilities, char **table_json, size_t *unserved,
		    struct xcc_error *err);

/* The fatbin inventory of one library, with memory bounded whatever its
 * size (fatbin_read_file maps and touches all of it). */
struct fatbin_file;
int sysroot_read_library(const char *path, struct fatbin_file *f, struct xcc_error *err);

/* The verdict of a shared or static library for each of caps[0..n) (the
 * best entry of any member); *has_code says whether it has device code at
 * all. Memory stays bounded whatever the library's size. */
int sysroot_library_serving(const struct gpudb *db, const char *path,
			    const struct gpu_cap *const *caps, size_t n, enum fatbin_verdict *v,
			    int *has_code, struct xcc_error *err);

#endif
