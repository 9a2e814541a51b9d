/* The GPU capability database: capabilities, host compiler limits and
 * target profiles, parsed from the JSON files under sysroots/ that the build
 * embeds into the binary. */
#ifndef XCC_GPUS_H
#define XCC_GPUS_H

#include <stddef.h>

#include "base/error.h"
#include "base/strvec.h"

/* A CUDA toolkit version; patch is -1 when not given. Only major.minor
 * matter for every rule in the database. */
struct cuda_version {
	int major, minor, patch;
};

int cuda_version_parse(const char *s, struct cuda_version *v);
/* Compare on major.minor only. */
int cuda_version_cmp(struct cuda_version a, struct cuda_version b);
/* "12.6" (or "12.6.3" when the patch level is known); static buffer-free:
 * writes into buf. */
const char *cuda_version_str(struct cuda_version v, char *buf, size_t len);

/* A capability such as 8.7, 9.0a or 10.0f. */
struct gpu_cap {
	int major, minor;
	char variant; /* '\0', 'a' (arch-specific) or 'f' (family-specific) */
	const char *arch;
	const char *boards; /* Jetson boards, or NULL */
	/* "11.0" for 10.1: the same GPU under a new name from the next major
	 * CUDA on; NULL when never renamed. */
	const char *renamed_to;
	int renamed_major, renamed_minor; /* renamed_to, parsed */
	int jetson;
	/* An integrated (Tegra) GPU: every Jetson, and 8.8 (T239). NVIDIA's
	 * binary compatibility between minor revisions does not hold for
	 * them (see fatbin_sass_runs_on). */
	int tegra;
	struct cuda_version min_cuda;
	int has_max;
	struct cuda_version max_cuda;
	int is_default;
	int has_default_until;
	struct cuda_version default_until;
	/* A Jetson capability served by linux-sbsa only from this version on
	 * (Orin: 13.2); what its boards then need is the JetPack table's
	 * (jetpack.json gpu_compat). */
	int has_sbsa_from;
	struct cuda_version sbsa_from;
};

/* "8.7", "9.0a": writes the dotted name. */
const char *gpu_cap_name(const struct gpu_cap *c, char *buf, size_t len);
/* "87", "90a", "100f": the dotless name used by nvcc and CMake. */
const char *gpu_cap_token(const struct gpu_cap *c, char *buf, size_t len);
/* Numeric major, numeric minor, then "" < "a" < "f". */
int gpu_cap_cmp(const struct gpu_cap *a, const struct gpu_cap *b);
int gpu_cap_supported_by(const struct gpu_cap *c, struct cuda_version v);
int gpu_cap_default_for(const struct gpu_cap *c, struct cuda_version v);
/* Whether c belongs to the default GPU set of some CUDA release: marked
 * default, neither a Jetson GPU nor an 'a'/'f' variant. The one place of
 * that rule; gpu_cap_default_for adds the release's range to it. */
int gpu_cap_in_default_set(const struct gpu_cap *c);

struct host_compiler_limit {
	struct cuda_version min_cuda;
	int has_max;
	struct cuda_version max_cuda;
	int gcc_max, clang_max;
	/* A limit no NVIDIA source confirmed: nothing is refused on it. */
	int gcc_unverified, clang_unverified;
	const char *source; /* or NULL */
};

/* A release some of whose facts are unverified (gpus.json unverified_cuda). */
struct unverified_cuda {
	struct cuda_version cuda;
	const char *what; /* "its GPU list: ..." */
};

struct target_tag {
	const char *tag;        /* linux-aarch64 */
	const char *target_dir; /* aarch64-linux */
	/* Inclusive version ranges in which NVIDIA publishes this tag for the
	 * target; none means every version. */
	struct cuda_version (*ranges)[2];
	size_t n_ranges;
};

struct target_profile {
	const char *name;
	const char *summary;
	const char *machine; /* aarch64, x86_64 */
	const char *triple;  /* aarch64-linux-gnu */
	int jetson_only;
	struct target_tag *tags;
	size_t n_tags;
};

struct sbsa_threshold {
	struct cuda_version min_cuda;
	int major, minor;
};

/* A component of a cross toolkit (sysroots/components.json): host ones
 * come from linux-x86_64, target ones from the tag the GPUs choose. */
enum toolkit_side {
	TOOLKIT_HOST,
	TOOLKIT_TARGET,
};

struct toolkit_component {
	const char *name;          /* the redist key: "cuda_nvcc" */
	enum toolkit_side side;
	int has_min, has_max;      /* min_cuda, max_cuda: inclusive */
	struct cuda_version min_cuda, max_cuda;
	int optional;              /* target: taken when the tag has it */
	int headers_only;          /* target: only its include/ tree is taken */
};

/* The library files a component owns inside .debs and wheels, which may
 * hold many components at once: fnmatch(3) patterns (FNM_PATHNAME) of the
 * path under lib/. */
struct component_libraries {
	const char *component;
	const char **patterns;
	size_t n_patterns;
};

/* A component that another one's libraries NEED ("needs"). */
struct component_need {
	const char *component; /* libcusparse */
	const char *need;      /* libnvjitlink */
	int has_min, has_max;  /* the CUDA releases where it holds, inclusive */
	struct cuda_version min_cuda, max_cuda;
	int unverified;        /* no package or file read confirmed it */
};

/* A name and what it stands for: a package stem and its component (NULL:
 * a package of many), or a name that is no target library and why. */
struct name_entry {
	const char *name;
	const char *value;
};

struct gpudb {
	struct gpu_cap *caps; /* sorted */
	size_t n_caps;
	struct host_compiler_limit *hostcc;
	size_t n_hostcc;
	struct unverified_cuda *unverified_cuda;
	size_t n_unverified_cuda;
	int gcc_min;
	struct cuda_version *never_released;
	size_t n_never_released;
	/* The newest CUDA release the tables were checked against, and the
	 * last minor release of each finished major. */
	struct cuda_version newest_known;
	struct cuda_version *last_minor;
	size_t n_last_minor;
	struct sbsa_threshold *thresholds; /* highest min_cuda first */
	size_t n_thresholds;
	struct target_profile *targets;
	size_t n_targets;
	struct toolkit_component *components; /* components.json: host, then target */
	size_t n_components;
	struct component_libraries *libraries; /* components.json "libraries" */
	size_t n_libraries;
	struct component_need *needs; /* components.json "needs" */
	size_t n_needs;
	struct name_entry *packages; /* components.json "packages" */
	size_t n_packages;
	struct name_entry *not_target; /* components.json "not_target" */
	size_t n_not_target;
	void *json_roots[8]; /* owned cJSON trees the strings point into */
	size_t n_json_roots;
};

int gpudb_load(struct gpudb *db, struct xcc_error *err);
void gpudb_free(struct gpudb *db);
/* The components.json part of gpudb_load, from text (the tests give it
 * malformed ones): an entry that is not what the file's comment describes
 * is refused, naming it. */
int gpudb_load_components(struct gpudb *db, const char *text, struct xcc_error *err);

/* Whether component c is part of a CUDA v toolkit (min_cuda..max_cuda). */
int toolkit_component_applies(const struct toolkit_component *c, struct cuda_version v);
/* The library patterns of component name, or NULL when components.json
 * does not say which files of a .deb or wheel belong to it. */
const struct component_libraries *gpudb_component_libraries(const struct gpudb *db,
							    const char *name);

/* Add to components what they NEED, for CUDA v, until nothing more is
 * needed ("needs"): each added once, after those already there. */
void gpudb_add_needs(const struct gpudb *db, struct cuda_version v, struct strvec *components);
/* The "packages" entry for a package stem: 1 with *component set (NULL
 * for a package of many components), 0 when there is none. */
int gpudb_package_entry(const struct gpudb *db, const char *stem, const char **component);
/* Why name (a manifest key or package stem) is no target library, or NULL. */
const char *gpudb_not_target(const struct gpudb *db, const char *name);
/* The component whose library patterns name the shared library soname
 * (libnvJitLink.so.12 -> libnvjitlink), or NULL. */
const char *gpudb_library_component(const struct gpudb *db, const char *soname);

const struct target_profile *gpudb_target(const struct gpudb *db, const char *name);
const struct target_tag *target_find_tag(const struct target_profile *t, const char *tag);
int target_tag_available(const struct target_tag *tt, struct cuda_version v);
/* "jetson, sbsa, x86_64" */
char *gpudb_target_names(const struct gpudb *db);

const struct gpu_cap *gpudb_find_cap(const struct gpudb *db, int major, int minor, char variant);

/* A capability as the user or the data spell it: "8.7", "87", "sm_87",
 * "compute_87", "lto_90", "9.0a", "sm_90a", "100f". The one parser of
 * these spellings. */
enum gpu_cap_prefix {
	GPU_CAP_BARE,    /* 8.7, 87 */
	GPU_CAP_SM,      /* sm_87: SASS */
	GPU_CAP_COMPUTE, /* compute_87: PTX */
	GPU_CAP_LTO,     /* lto_87: LTO-IR */
};

struct gpu_cap_spelling {
	int major, minor;
	char variant; /* '\0', 'a' or 'f' */
	enum gpu_cap_prefix prefix;
};

/* Parse s (already lower case); -1 when it is no capability spelling.
 * A dotless number's last digit is the minor: 87 is 8.7, 100 is 10.0. */
int gpu_cap_parse(const char *s, struct gpu_cap_spelling *out);
/* The capability of the database that s names, or NULL; *how (may be
 * NULL) gets the spelling. */
const struct gpu_cap *gpudb_cap_named(const struct gpudb *db, const char *s,
				      struct gpu_cap_spelling *how);
const struct host_compiler_limit *gpudb_host_limit(const struct gpudb *db, struct cuda_version v);
/* What of release v the tables hold unverified, or NULL. */
const char *gpudb_cuda_unverified(const struct gpudb *db, struct cuda_version v);
int gpudb_never_released(const struct gpudb *db, struct cuda_version v);
/* The last minor release of v's major, when that major is finished. */
const struct cuda_version *gpudb_last_minor(const struct gpudb *db, int major);
/* Whether major.minor is an integrated (Tegra) GPU. */
int gpudb_is_tegra(const struct gpudb *db, int major, int minor);
/* T(V): Jetson capabilities below it are served by linux-aarch64. */
void gpudb_sbsa_threshold(const struct gpudb *db, struct cuda_version v, int *major, int *minor);

/* Whether the JSON object obj (a cJSON *) has only the keys of allowed
 * (NULL-terminated): a misspelt key in the embedded data would otherwise be
 * ignored without a word. where names the object in the message. */
struct cJSON;
int gpudb_only_keys(const struct cJSON *obj, const char *const *allowed, const char *where,
		    struct xcc_error *err);

#endif
