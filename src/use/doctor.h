/* `cuda-xcc doctor`: is this machine ready to cross-build, run and test
 * CUDA programs for a target? One check per thing that can be missing,
 * each with the way to fix it. */
#ifndef XCC_DOCTOR_H
#define XCC_DOCTOR_H

#include "base/error.h"
#include "db/gpus.h"
#include "db/jetpack.h"

enum doctor_status {
	DOCTOR_OK,
	DOCTOR_FAIL,
	DOCTOR_SKIP, /* not applicable, or nothing to check against: said, never guessed */
	DOCTOR_WARN, /* works for what cuda-xcc drives, not for every use: said with the fix */
};

struct doctor_check {
	const char *name;  /* "cross-g++", "qemu", ... */
	enum doctor_status status;
	char *detail;      /* what was found */
	char *fix;         /* how to fix it (FAIL), or NULL */
};

struct doctor_report {
	struct doctor_check *v;
	size_t n, cap;
	char *target;  /* the target and CUDA release checked for, when known */
	char *cuda;
	char *sysroot;
};

struct doctor_opts {
	const char *sysroot;    /* --sysroot, else $CUDA_XCC_SYSROOT, else the store's */
	const char *target;     /* --target */
	const char *cuda;       /* --cuda */
	const char *target_fs;  /* --target-fs: the device's root filesystem */
	const char *binfmt_dir; /* where binfmt_misc is mounted (/proc/sys/fs/binfmt_misc) */
	const char *jetpack;    /* --jetpack, else the one the sysroot records */
	const struct jetpack_db *jetpacks;
};

/* Run every check. -1 only for bad options (an unknown target or JetPack
 * release, a CUDA version that does not parse, options that contradict the
 * sysroot); a --sysroot that is no sysroot is a failed check instead. */
int doctor_run(const struct gpudb *db, const struct doctor_opts *o, struct doctor_report *r,
	       struct xcc_error *err);
/* 1 when a check failed (a warning is not a failure). */
int doctor_failed(const struct doctor_report *r);
const char *doctor_status_name(enum doctor_status s);
/* The report as JSON; caller frees. */
char *doctor_report_json(const struct doctor_report *r);
void doctor_report_free(struct doctor_report *r);

#endif
