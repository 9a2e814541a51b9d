/* The plan of a sysroot: which archives, from which tag, for which side,
 * and where their parts go. Computed once, up front; every later stage only
 * carries it out. */
#ifndef XCC_PLAN_H
#define XCC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/strvec.h"
#include "db/gpus.h"
#include "pkg/manifest.h"

enum plan_side {
	PLAN_HOST,   /* runs on the build machine: nvcc, ptxas, cicc */
	PLAN_TARGET, /* headers and libraries for the target */
	PLAN_BOTH,   /* one x86_64 archive serving both sides (target x86_64) */
};

/* Which parts of an archive are taken (a bit set). */
enum plan_part {
	PART_TOOLS = 1 << 0,   /* bin/ -> DIR/bin, nvvm/ -> DIR/nvvm */
	PART_HEADERS = 1 << 1, /* include/ -> DIR/targets/<dir>/include */
	PART_LIBS = 1 << 2,    /* lib/, lib64/ -> DIR/targets/<dir>/lib, other dirs beside */
	PART_LICENSE = 1 << 3, /* top-level files -> DIR/licenses/<component>/ */
};

enum plan_format {
	PLAN_FMT_REDIST, /* <name>-<tag>-<ver>-archive.tar.xz (or .zip) */
	PLAN_FMT_DEB,
	PLAN_FMT_WHEEL,
};

struct plan_archive {
	char *component; /* cuda_nvcc (for a .deb or wheel: its package name) */
	char *version;   /* may be NULL */
	char *tag;       /* linux-sbsa; NULL for a single archive given alone */
	char *source;    /* URL or local path to fetch it from */
	char *sha256;    /* NULL until known (single archives are hashed when fetched) */
	int64_t size;    /* -1 until known */
	enum plan_side side;
	unsigned parts;  /* enum plan_part bits */
	enum plan_format format;
	char *dest;      /* where it goes, for people: "bin, nvvm" */
	int phase;       /* extracted after every archive of a lower phase */
	int headers_yield; /* its headers never replace one already in the tree */
};

struct plan {
	char *target;     /* jetson */
	char *cuda;       /* 12.6.3: the release (manifest label when known) */
	char *tag;        /* linux-aarch64 */
	char *target_dir; /* aarch64-linux */
	struct strvec capabilities; /* 8.7 */
	struct plan_archive *archives;
	size_t n_archives, cap_archives;
	/* .debs and wheels may hold many components: their lib/ members are
	 * taken only when they match one of these fnmatch(3) patterns (the
	 * path under lib/, FNM_PATHNAME). Unused while filter_libs is 0. */
	int filter_libs;
	struct strvec lib_patterns;
	/* "cudnn 9.14.0": the release of every other product's manifest. */
	struct strvec products;
	struct strvec notes; /* worth saying, not errors */
};

/* What to plan for. */
struct plan_request {
	const struct gpudb *db; /* components.json's toolkit and library table */
	const char *target;
	struct cuda_version cuda;
	const char *tag;        /* from flags_resolve() */
	const char *target_dir; /* from flags_resolve() */
	const struct strvec *capabilities;
	const struct strvec *components; /* --components and flags' extra components */
};

void plan_init(struct plan *p, const struct plan_request *rq, const char *cuda_label);

/*
 * Add the archives of the redist toolkit for rq, chosen from the manifests
 * (searched in order: cuda first, then e.g. cudnn). base_urls[i] is the
 * directory relative_path is resolved against for manifests[i]. A component
 * the chosen tag lacks is an error naming the tags that have it.
 */
int plan_add_redist(struct plan *p, const struct plan_request *rq,
		    const struct manifest *const *manifests, const char *const *base_urls,
		    size_t n_manifests, struct xcc_error *err);

/*
 * Add one archive given on its own (redist tarball, .deb or wheel). machine
 * is what unpack's package_identify read from it ("x86_64", "aarch64",
 * "all"); the side follows from it and from the target's machine.
 */
int plan_add_single(struct plan *p, const char *source, const char *name, const char *version,
		    const char *machine, const char *target_machine, enum plan_format format,
		    const char *sha256, int64_t size, struct xcc_error *err);

/*
 * The whole plan for a resolved request whose sources are read: the
 * manifests' archives, the archives given alone, the library filter, and
 * each archive's phase, precedence and destinations. Complete when it
 * returns: nothing later changes it. Things worth saying go to notes.
 */
struct sysroot_request;
int plan_make(struct plan *p, const struct sysroot_request *rq, struct strvec *notes,
	      struct xcc_error *err);

/* The components a CUDA v toolkit needs, per side (components.json in db):
 * host, target, target ones taken when the tag has them, and those of
 * which only the headers are taken. */
void plan_components(const struct gpudb *db, struct cuda_version v, struct strvec *host,
		    struct strvec *target, struct strvec *target_optional,
		    struct strvec *headers_only);

/*
 * Set p's library filter (filter_libs, lib_patterns) for the planned
 * components: the target ones components.json lists for v, plus requested.
 * A requested component that components.json's "libraries" table does not
 * know is a usage error naming the ones it knows.
 */
int plan_set_library_filter(struct plan *p, const struct gpudb *db, struct cuda_version v,
			    const struct strvec *requested, struct xcc_error *err);

/*
 * The component a .deb or wheel given with --from stands for, from its
 * name (components.json "packages", else the component its stem spells):
 * libcublaslt12 -> libcublas, nvidia_cufft_cu12 -> libcufft. NULL when the
 * name says nothing known, or (*many set) for a package of many components
 * (nvidia-cuda-dev).
 */
const char *plan_package_component(const struct gpudb *db, const char *package, int *many);
/* Why the package is no target library (components.json "not_target"),
 * or NULL. */
const char *plan_package_not_target(const struct gpudb *db, const char *package);

/* The plan as text, one archive per line (what --dry-run prints). */
char *plan_describe(const struct plan *p);

/* A SHA-256 over everything that decides the tree; equal fingerprints mean
 * an equal sysroot. extra is mixed in (the host compiler). */
char *plan_fingerprint(const struct plan *p, const char *extra);

const char *plan_side_name(enum plan_side s);

void plan_free(struct plan *p);

#endif
