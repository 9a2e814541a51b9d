/* The passes sysroot create runs over the extracted tree, in this order:
 * the symlinks of all archives together, what the tree must hold, links
 * that lead nowhere, nvcc.profile, the autopatch of both halves, the
 * device's glibc floor (with --target-fs) and the fatbin serving check of
 * the target libraries. verify runs the profile and autopatch checks again
 * on a finished sysroot; info prints the serving table. */
#ifndef XCC_SYSROOT_PASSES_H
#define XCC_SYSROOT_PASSES_H

#include "base/error.h"
#include "base/strvec.h"
#include "db/gpus.h"
#include "elf/fatbin.h"
#include "sysroot/plan.h"

/* Each archive's links were checked alone when it was extracted; together
 * they can still build a path out of the tree (a link in one through a link
 * in another): refused (XCC_EUSAGE), naming them. */
int sysroot_refuse_escaping_links(const char *root, struct xcc_error *err);

/* What a finished tree must hold, whatever the sources were: an x86_64
 * nvcc, the target's headers, and only p's directory under targets/. */
int sysroot_check_tree(const char *root, const struct plan *p, struct xcc_error *err);

/* Remove the symlinks under targets/<target_dir>/lib and bin that lead
 * nowhere (a .deb's development links whose library is in a package not
 * given; tool links to what a cross toolkit does not take), with a note
 * naming them. Every path is opened beneath root. */
void sysroot_remove_dangling_links(const char *root, const char *target_dir,
				   struct strvec *notes);

/* The relocatable bin/nvcc.profile for a sysroot (with_cccl: CUDA 13's
 * include/cccl is on the system include path). Caller frees. */
char *sysroot_nvcc_profile(int with_cccl);
/* Write it into the tree at root (bin/ opened beneath root). */
int sysroot_write_profile(const char *root, const char *target_dir, struct xcc_error *err);
/* The top-level include and lib64 links of NVIDIA's toolkit, to
 * targets/<dir>/include and lib, where nothing of that name is. */
int sysroot_write_toolkit_links(const char *root, const char *target_dir, struct xcc_error *err);

/*
 * Resolve the DT_NEEDED of the host half (bin, nvvm: x86_64, against the
 * build machine) and the target half (targets/<dir>: against the tree and
 * the cross toolchain <triple>-gcc, or the device's root filesystem
 * target_fs when not NULL), patching RUNPATHs unless dry_run.
 * Unresolved dependencies are notes, not failures (the device provides
 * more than a sysroot can know); a patch that fails is an error. When
 * unresolved is not NULL, the target half's also go there, each library
 * beside the file (relative to root) that needs it, for the caller to judge.
 */
struct sysroot_unresolved {
	struct strvec library; /* libnvJitLink.so.12 */
	struct strvec file;    /* targets/sbsa-linux/lib/libcusparse.so.12.3.1.170 */
};
int sysroot_autopatch(const char *root, const char *target_dir, const char *triple,
		      const char *target_fs, int dry_run, struct strvec *notes,
		      struct sysroot_unresolved *unresolved, struct xcc_error *err);
void sysroot_unresolved_free(struct sysroot_unresolved *u);

/*
 * The GLIBC_ floor check the driver runs after a --target-fs link, on the
 * target libraries of the tree (targets/<dir>/lib): each one that needs a
 * newer GLIBC_ than target_fs's libc.so.6 defines, or that cannot be
 * checked, adds a warning (the sysroot is still made: the device may be
 * updated, and the tool cannot know).
 */
void sysroot_glibc_floor(const char *root, const char *target_dir, const char *triple,
			 const char *target_fs, struct strvec *warnings);

/*
 * The serving table of every target library with device code (the files
 * under targets/<target_dir> whose device code can be read), one column
 * per capability; *table is set up here (sysroot_serving_free).
 */
struct sysroot_serving;
int sysroot_serving(const struct gpudb *db, const char *root, const char *target_dir,
		    const struct strvec *capabilities, struct sysroot_serving *table,
		    struct xcc_error *err);

/* The verdict of a shared or static library for each of caps[0..n) (the
 * best entry of any member); *has_code says whether it has device code at
 * all. Memory stays bounded whatever the library's size. */
int sysroot_library_serving(const struct gpudb *db, const char *path,
			    const struct gpu_cap *const *caps, size_t n, enum fatbin_verdict *v,
			    int *has_code, struct xcc_error *err);

/*
 * The library flavour check. NVIDIA's aarch64 libraries of CUDA 11.8-12.9
 * come in two builds that are not interchangeable: L4T for Jetson's
 * integrated GPU (redist tag linux-aarch64) and SBSA for Arm servers with a
 * discrete GPU (linux-sbsa). Which one a tree holds is read from what its
 * target libraries carry (only the L4T build has SASS for the Jetson GPUs
 * of that release, see fatbin_l4t_sass) and, when none carries SASS, from
 * the packages where they say so (a redist archive's tag). A flavour other
 * than p's tag is refused (XCC_EUSAGE) with what tells it apart and what to
 * use instead; when nothing tells, a note says so. Nothing is checked for a
 * target that is not aarch64.
 */
struct plan;
struct sysroot_flavour {
	char *tag;      /* "linux-aarch64" or "linux-sbsa"; NULL when nothing tells */
	char *evidence; /* what says so, for sysroot.json and people; NULL with tag */
};

int sysroot_check_flavour(const struct gpudb *db, const char *root, const struct plan *p,
			  struct sysroot_flavour *out, struct strvec *notes, struct xcc_error *err);
void sysroot_flavour_free(struct sysroot_flavour *f);

#endif
