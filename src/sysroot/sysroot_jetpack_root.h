/* The device root sysroot create records for a --jetpack without a
 * --target-fs: the one fetch-target-root.sh --jetpack made in the cache
 * (roots/jetpack-N), read as it is, never made here; and the description
 * (cuda-xcc-root.json) any root may carry, checked against the JetPack and
 * fingerprinted with the request. */
#ifndef XCC_SYSROOT_JETPACK_ROOT_H
#define XCC_SYSROOT_JETPACK_ROOT_H

#include "base/error.h"
#include "base/strvec.h"
#include "db/gpus.h"
#include "sysroot/sysroot_request.h"

/* The file a root made by fetch-target-root.sh describes itself in. */
#define ROOT_DESCRIPTION "cuda-xcc-root.json"

/* Where fetch-target-root.sh --jetpack puts the root of JetPack major
 * version major ("5") by default. Caller frees. */
char *sysroot_jetpack_root_path(const char *major);

/*
 * rq->jetpack's cached root into rq->target_fs (checked as --target-fs is)
 * when it is there, with a note naming it and its Debian release; when it
 * is not, a note with the command that makes it. rq->target_fs stays NULL
 * then, and where no Debian root fits the JetPack.
 */
int sysroot_jetpack_root(const struct gpudb *db, struct sysroot_request *rq,
			 struct strvec *notes, struct xcc_error *err);

/*
 * The description of root rq->target_fs, when it has one: its sha256 into
 * rq->target_fs_described (fingerprinted: a root made again from other
 * packages is another request), and its JetPack checked against
 * rq->jetpack (XCC_EUSAGE when they differ).
 */
int sysroot_root_description(struct sysroot_request *rq, struct xcc_error *err);

/* "JetPack 5's root: Debian bullseye 11.11: glibc 2.31, ...", from root's
 * description; NULL when it has none (or an unreadable one). Caller frees. */
char *sysroot_root_summary(const char *root);

#endif
