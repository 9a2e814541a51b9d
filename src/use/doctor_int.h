/* What doctor's checks share, across the files they are in (doctor.c, and
 * the device's runtime floor in doctor_floor.c). Private to use/doctor*. */
#ifndef XCC_DOCTOR_INT_H
#define XCC_DOCTOR_INT_H

#include "db/jetpack.h"
#include "sysroot/sysroot_open.h"
#include "use/doctor.h"

/* What the checks share: the target and CUDA release, and the sysroot. */
struct doctor_ctx {
	const struct gpudb *db;
	const struct doctor_opts *o;
	const struct target_profile *target;
	struct cuda_version cuda;
	int have_cuda;
	char *sysroot;          /* the sysroot's directory, or NULL */
	struct sysroot sr;      /* opened when have_meta */
	int have_meta;
	char *meta_error;       /* why the sysroot could not be read */
	char *host_compiler;    /* the cross g++ found, or NULL */
	const struct jetpack_release *jp; /* --jetpack, or the sysroot's; NULL when neither */
};

/* Append a check to r; r takes detail and fix (either may be NULL). */
void doctor_add(struct doctor_report *r, const char *name, enum doctor_status st, char *detail,
		char *fix);

/* glibc-floor: the device's C and C++ runtime against the cross toolchain's
 * and the JetPack floor. */
void doctor_check_floor(struct doctor_ctx *c, struct doctor_report *r);
/* target-fs-links: the root's links the linker would not find inside it. */
void doctor_check_target_fs_links(struct doctor_ctx *c, struct doctor_report *r);

#endif
