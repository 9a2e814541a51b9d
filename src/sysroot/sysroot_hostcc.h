/* The host compiler sysroot create records, matched to the board's glibc
 * and libstdc++ (a --jetpack's floors, or a --target-fs root's own). */
#ifndef XCC_SYSROOT_HOSTCC_H
#define XCC_SYSROOT_HOSTCC_H

#include "base/error.h"
#include "base/strvec.h"
#include "db/crosstc.h"
#include "sysroot/sysroot_request.h"

/*
 * Into rq->host_compiler: given (--host-compiler), checked as -ccbin is;
 * else the cross g++ on PATH when it is no newer than the board; else the
 * toolchain matched to the board when fetch-cross-toolchain.sh installed it
 * where cuda-xcc looks. What was chosen, and the command that gets the
 * matched toolchain when it is missing, go to notes. Needs rq's target,
 * CUDA, JetPack and target fs resolved.
 */
int sysroot_choose_host_compiler(const struct gpudb *db, const char *given,
				 struct sysroot_request *rq, struct strvec *notes,
				 struct xcc_error *err);

/* Where fetch-cross-toolchain.sh puts tc's g++ by default. Caller frees. */
char *sysroot_cross_toolchain_path(const struct cross_toolchain *tc, const char *triple);

/* The installed script name ("fetch-cross-toolchain.sh",
 * "fetch-target-root.sh"), or the source tree's from a build tree; the bare
 * name when neither is there. Only named in messages, never run. Caller
 * frees. */
char *sysroot_script_path(const char *name);

/* After a failed link against a --target-fs root (its libc.so.6 and
 * libstdc++.so.6; NULL: none): the cause when the host compiler cc builds
 * against a newer glibc or libstdc++, with the command that gets the
 * toolchain matched to the root. NULL when that is not the cause. */
char *sysroot_hostcc_link_hint(const struct gpudb *db, const char *cc, const char *root_libc,
			       const char *root_libstdcxx, const char *triple);

#endif
