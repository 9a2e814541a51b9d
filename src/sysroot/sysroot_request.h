/* The first stage of sysroot create: what is asked for, checked and
 * resolved (target, CUDA release, GPUs, JetPack, components, the device's
 * root filesystem, the host compiler, the destination), and the sources
 * read: the manifests parsed, and each archive given alone fetched, hashed
 * and identified (which side of the sysroot a package serves is read from
 * its content). Nothing after this stage decides anything from the
 * network: the plan is made from what is here. */
#ifndef XCC_SYSROOT_REQUEST_H
#define XCC_SYSROOT_REQUEST_H

#include <stdint.h>

#include "base/error.h"
#include "base/strvec.h"
#include "db/flags.h"
#include "db/gpus.h"
#include "db/hostcc.h"
#include "pkg/fetch.h"
#include "pkg/manifest.h"
#include "pkg/package.h"
#include "sysroot/plan.h"
#include "sysroot/sysroot.h"

/* An archive given alone (--from a .deb, a wheel or a redist archive). */
struct sysroot_package {
	char *path;   /* the local file (fetched into the cache when a URL) */
	char *name;   /* its package name, or the file's name when it has none */
	struct package_info info;
	char sha256[65];
	uint64_t size;
};

struct sysroot_request {
	const struct target_profile *target;
	struct cuda_version cuda;
	const char *cuda_label;     /* as asked ("12.6"); the manifest may refine it */
	struct arch_choice choice;
	int have_choice;
	char *jetpack;              /* --jetpack's release, checked; or NULL */
	struct strvec capabilities; /* "8.7" */
	struct strvec components;   /* --components plus what the GPUs need */
	struct plan_request plan;   /* the above, as the planner reads it */
	char *target_fs;            /* absolute, or NULL */
	char target_fs_described[65]; /* sha256 of its cuda-xcc-root.json, or "" */
	struct host_compiler host_compiler; /* .name NULL when none is installed */
	char *host_compiler_problem;        /* why not, then */
	char *dest;                 /* where the sysroot goes */
	/* Sources. */
	struct manifest *manifests;
	char **manifest_bases;      /* what each manifest's relative paths start from */
	size_t n_manifests;
	struct sysroot_package *packages;
	size_t n_packages;
};

/* Check and resolve o (nothing is read but the local file system and the
 * embedded data). The GPU table's warnings go to notes. */
int sysroot_request_resolve(const struct gpudb *db, const struct sysroot_create_opts *o,
			    struct sysroot_request *rq, struct strvec *notes,
			    struct xcc_error *err);

/* Read the sources o names (the mirror's manifest when o names none). */
int sysroot_request_read_sources(struct sysroot_request *rq, const struct sysroot_create_opts *o,
				 const struct fetch_opts *fo, struct xcc_error *err);

void sysroot_request_free(struct sysroot_request *rq);

#endif
