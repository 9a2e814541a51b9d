/* From what the user asked for (-arch lists, a target, a CUDA version) to a
 * validated set of capabilities, the redist tag that serves them, and the
 * nvcc / CMake spellings of that set. */
#ifndef XCC_FLAGS_H
#define XCC_FLAGS_H

#include "base/error.h"
#include "base/strvec.h"
#include "db/gpus.h"

enum ptx_policy {
	PTX_DEFAULT, /* by GPU: none for Jetson (Tegra) GPUs, whose drivers come
		      * with JetPack and lag the toolkit, so newer PTX would not
		      * JIT; else the highest other capability, whatever the
		      * target */
	PTX_NONE,
	PTX_HIGHEST, /* the highest capability without an a/f suffix */
	PTX_ALL,     /* every capability without an a/f suffix */
};

int ptx_policy_parse(const char *s, enum ptx_policy *out);

/* One validated capability of the set. */
struct arch_entry {
	const struct gpu_cap *cap;
	int sass;
	int ptx;
	int lto;          /* LTO-IR (lto_87, or sm_87 under -dlto) */
	int from_keyword; /* only all-major brought it in */
};

struct arch_choice {
	const struct target_profile *target;
	struct cuda_version cuda;
	struct arch_entry *entries; /* ascending, one per capability */
	size_t n, cap_entries;
	const char *tag;        /* linux-aarch64, linux-sbsa, linux-x86_64 */
	const char *target_dir; /* aarch64-linux, sbsa-linux, x86_64-linux */
	struct strvec warnings;         /* for the command to print */
};

/* Checks that depend only on the CUDA version: never released, too old,
 * past the last minor of its major, or a major the tables do not know. */
int flags_check_cuda(const struct gpudb *db, struct cuda_version v, struct xcc_error *err);
/* A warning when v is newer than the newest release the tables were
 * checked against (a minor of a known major); NULL otherwise. Caller
 * frees. */
char *flags_cuda_warning(const struct gpudb *db, struct cuda_version v);

/*
 * Validate specs (each a comma-separated list: sm_87, 87, 8.7, compute_87,
 * lto_87, sm_90a, 100f, all, all-major, default) for target t and CUDA v.
 * An empty specs means "default".  compute_XX asks for PTX of XX on top of
 * its SASS, whatever the policy; lto_XX asks for LTO-IR instead of SASS.
 */
int flags_resolve(const struct gpudb *db, const struct target_profile *t,
		  struct cuda_version v, const struct strvec *specs,
		  enum ptx_policy ptx, struct arch_choice *out, struct xcc_error *err);

/* Record the capabilities mentioned by nvcc arch/code values such as
 * "compute_87", "sm_87", "[sm_80,compute_80]", "lto_90" into specs, in the
 * spelling flags_resolve() reads: sm_XX for SASS, compute_XX for PTX. */
void flags_specs_from_nvcc_value(struct strvec *specs, const char *value);

/* Whether target t can serve capability c at all (with CUDA *v when v is not
 * NULL; else with some CUDA version). */
int flags_target_accepts(const struct gpudb *db, const struct target_profile *t,
			 const struct gpu_cap *c, const struct cuda_version *v);

void arch_choice_free(struct arch_choice *c);

/* Push one -gencode=... flag per SASS, LTO-IR and PTX output. */
void arch_choice_gencode(const struct arch_choice *c, struct strvec *out);
/* -dlto as nvcc reads it: a compile makes LTO-IR where it would make SASS
 * (sass_to_lto); the device link makes SASS from the LTO-IR (lto_to_sass). */
void arch_choice_sass_to_lto(struct arch_choice *c);
void arch_choice_lto_to_sass(struct arch_choice *c);
/* The CUDA_ARCHITECTURES value: "75-real;86". Caller frees. */
char *arch_choice_cmake(const struct arch_choice *c);

/* For commands the messages suggest, which must work as printed: the newest
 * CUDA release ("13.0") the tables hold verified that serves specs on t, or
 * NULL; and the newest Jetson capability ("sm_87") that t serves with CUDA
 * v, or NULL. Caller frees. */
char *flags_newest_cuda(const struct gpudb *db, const struct target_profile *t,
			const struct strvec *specs);
char *flags_newest_jetson_arch(const struct gpudb *db, const struct target_profile *t,
			       struct cuda_version v);

/* The list of Jetson boards known for CUDA v (for error messages). */
char *flags_jetson_boards(const struct gpudb *db, struct cuda_version v);
/* For the driver, which rewrites nvcc's -arch: a note per compute_XX among
 * the -arch spellings arch, saying that it is SASS and PTX here, where
 * nvcc's own -arch=compute_XX is PTX only. */
void flags_compute_notes(const struct gpudb *db, const struct strvec *arch, struct strvec *notes);

#endif
