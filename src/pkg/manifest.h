/* NVIDIA's redistrib_<label>.json manifests, every era of them, read into
 * plain structs. */
#ifndef XCC_MANIFEST_H
#define XCC_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "db/gpus.h"

/* One downloadable archive of a package: one platform tag, and for
 * variant-nested packages (cuDNN) one CUDA variant of it. */
struct manifest_archive {
	char *tag;           /* linux-sbsa */
	char *variant;       /* "cuda12", "cuda13.1", or NULL when not nested */
	char *relative_path; /* relative to the manifest's directory */
	char *sha256;        /* 64 lowercase hex digits */
	char *md5;           /* may be NULL */
	int64_t size;
};

struct manifest_package {
	char *key;          /* cuda_cudart: the component name */
	char *name;         /* "CUDA Runtime (cudart)", may be NULL */
	char *license;      /* may be NULL */
	char *license_path; /* may be NULL (before 12.2) */
	char *version;      /* may be NULL */
	struct manifest_archive *archives;
	size_t n_archives, archives_cap;
};

struct manifest {
	char *source; /* what it was read from, for messages */
	char *release_date, *release_label, *release_product; /* may be NULL */
	struct manifest_package *packages;
	size_t n_packages;
};

/*
 * Parse a manifest. source names it in error messages. Platform tags this
 * parser does not know (linux-all, source, ...) are skipped without being
 * looked at; known tags, package fields and the top level must have the
 * right types, else the error names the offending key.
 */
int manifest_parse(const char *text, size_t len, const char *source, struct manifest *m,
		   struct xcc_error *err);
void manifest_free(struct manifest *m);

/* The platform tags an archive may be listed under and that we read. */
int manifest_tag_known(const char *tag);

const struct manifest_package *manifest_find(const struct manifest *m, const char *key);

/*
 * The archive of package p for tag. For variant-nested packages, the variant
 * for CUDA v: "cuda<major>.<minor>" if listed, else "cuda<major>". NULL
 * when there is none.
 */
const struct manifest_archive *manifest_archive_for(const struct manifest_package *p,
						    const char *tag, struct cuda_version v);

/* Tags for which p has an archive (for CUDA v where nested), comma-separated;
 * caller frees. "" when none. */
char *manifest_package_tags(const struct manifest_package *p, struct cuda_version v);

#endif
