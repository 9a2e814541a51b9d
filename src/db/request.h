/* What the user asks for, checked once: the target, the CUDA version and
 * the device's root filesystem, with one wording of each message for every
 * verb that takes them (driver mode, flags, gpus, sysroot create,
 * autopatch). Errors are XCC_EUSAGE: the command line is wrong. */
#ifndef XCC_REQUEST_H
#define XCC_REQUEST_H

#include "base/error.h"
#include "db/gpus.h"
#include "db/jetpack.h"

/* --target NAME: a target of the database. */
int request_target(const struct gpudb *db, const char *name, const struct target_profile **out,
		   struct xcc_error *err);

/* --cuda V: 12.6 or 12.6.3. Only the spelling; what the database says of
 * the version is flags_check_cuda's. */
int request_cuda(const char *s, struct cuda_version *out, struct xcc_error *err);

/* --jetpack J: a release of db. */
int request_jetpack(const struct jetpack_db *db, const char *version,
		    const struct jetpack_release **out, struct xcc_error *err);

/* --target-fs ROOTFS: an existing directory. */
int request_rootfs(const char *rootfs, struct xcc_error *err);

/* --target-fs ROOTFS for a build: as request_rootfs, and a path nvcc can
 * pass on (no ','); *abs is its absolute path (caller frees). */
int request_rootfs_for_nvcc(const char *rootfs, char **abs, struct xcc_error *err);

#endif
