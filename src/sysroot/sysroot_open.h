/* The one opener of a finished sysroot. Every verb that uses a sysroot (the
 * driver, toolchain, run, doctor, check-link, info, verify) opens it here, so
 * that each problem is found the same way and refused with one wording and
 * one exit status:
 *
 *   the named directory is missing, or holds no sysroot.json   XCC_EUSAGE
 *   sysroot.json unreadable, malformed, or naming a target
 *     or CUDA release this cuda-xcc does not know              XCC_EFAIL
 *   --target, --cuda or --jetpack other than the sysroot's     XCC_EUSAGE
 *   the device root (--target-fs, else the recorded one) gone,
 *     or not a device root (no libc.so.6)                      XCC_EUSAGE
 */
#ifndef XCC_SYSROOT_OPEN_H
#define XCC_SYSROOT_OPEN_H

#include "base/error.h"
#include "db/gpus.h"
#include "sysroot/sysroot_meta.h"

/* What the command line asks of the sysroot; NULL where it asks nothing. */
struct sysroot_want {
	const char *target;    /* --target */
	const char *cuda;      /* --cuda: 12.6 or 12.6.3 */
	const char *jetpack;   /* --jetpack, compared as written (see doctor for aliases) */
	const char *target_fs; /* --target-fs: overrides the device root the sysroot records */
	/* info and verify: a device root that does not hold is not an error
	 * but s->target_fs_problem, for them to show. */
	int inspect;
};

struct sysroot {
	struct sysroot_meta meta;             /* sysroot.json; meta.dir is absolute */
	const struct target_profile *target;  /* meta.target's profile */
	struct cuda_version cuda;             /* meta.cuda */
	/* The device root in force (absolute): --target-fs, else the recorded
	 * one, else NULL; and its libc.so.6. */
	char *target_fs;
	char *target_libc;
	int target_fs_recorded; /* target_fs is the sysroot's own, not --target-fs */
	char *target_fs_problem; /* with want->inspect: why the device root does not hold */
};

/* Open DIR, check it and check want against it. On failure s is empty and
 * err says why, with the status above. */
int sysroot_open(const struct gpudb *db, const char *dir, const struct sysroot_want *want,
		 struct sysroot *s, struct xcc_error *err);
void sysroot_close(struct sysroot *s);

/* Whether want's target, CUDA and JetPack are s's (sysroot_open checks
 * them; doctor, which reports an unopenable sysroot, checks them after). */
int sysroot_check_want(const struct sysroot *s, const struct sysroot_want *want,
		       struct xcc_error *err);

/* What sysroot_open checks of sysroot.json's content alone: the target and
 * CUDA release it names (for verify, which lists every problem). */
int sysroot_meta_check(const struct gpudb *db, const struct sysroot_meta *m,
		       const struct target_profile **target, struct cuda_version *cuda,
		       struct xcc_error *err);

/* Whether the --cuda the user gave (12.6 or 12.6.3) names release have. */
int sysroot_cuda_matches(const char *asked, const char *have);

#endif
