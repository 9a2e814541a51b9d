/* What a Jetson board gives the programs deployed to it (sysroots/board.json,
 * embedded): the CUDA release each PTX ISA version needs, the libraries
 * every board's root has, those a JetPack line puts there, and those of
 * NVIDIA's cuda-compat package. Each list knows whether it is verified. */
#ifndef XCC_BOARD_H
#define XCC_BOARD_H

#include <stddef.h>

#include "base/error.h"
#include "db/gpus.h"

struct board_libs {
	const char *jetpack;   /* "6.0", "6": a JetPack version prefix; NULL for base, compat */
	const char **names;    /* sonames */
	size_t n;
	int unverified;        /* the list was not confirmed on a board image */
	const char *source;
};

struct board_ptx_isa {
	int major, minor;          /* PTX ISA 8.4 */
	struct cuda_version cuda;  /* the CUDA release whose driver first loads it */
};

/* What sysroot create --from-device copies from a board (board.json
 * device_pull): shell patterns relative to its root, with {triple},
 * {libdir}, {cuda} and {dir} to fill in. */
struct board_pull {
	const char **paths;    /* taken whole where they exist */
	size_t n_paths;
	const char **l4t_dirs; /* the JetPack's libraries, unless nv_tegra_release names theirs */
	size_t n_l4t_dirs;
	const char **links;    /* taken only where they are symlinks */
	size_t n_links;
	int l4t_unverified;
	const char *source;
};

/* A Jetson SoC by its device tree's root compatible string (board.json socs). */
struct board_soc {
	const char *compatible; /* "nvidia,tegra234" */
	const char *gpu;        /* its GPU's capability: "8.7" */
	int unverified;         /* the compatible string was not read from a board */
	const char *source;
};

struct board_db {
	struct board_pull pull;
	struct board_soc *socs;
	size_t n_socs;
	struct board_ptx_isa *ptx;
	size_t n_ptx;
	const char *ptx_source;
	struct board_libs base, compat;
	struct board_libs *jetpacks;
	size_t n_jetpacks;
	void *json_root;
};

/* Load the embedded board.json, checked: only known keys, every list of
 * strings. */
int board_db_load(struct board_db *db, struct xcc_error *err);
void board_db_free(struct board_db *db);

/* The CUDA release a PTX ISA version needs; -1 when the table lacks it
 * (newer than the table: cannot tell). */
int board_ptx_cuda(const struct board_db *db, unsigned isa_major, unsigned isa_minor,
		   struct cuda_version *out);

/* The libraries of JetPack version jp (its longest matching prefix:
 * "6.0.1" -> "6.0", "6.2" -> "6"); NULL when the table has none. */
const struct board_libs *board_jetpack_libs(const struct board_db *db, const char *jp);

/* The SoC whose compatible string is one of the whitespace-separated
 * strings of compatible (a device tree's /proc/device-tree/compatible,
 * its NULs made spaces), or NULL. */
const struct board_soc *board_soc_find(const struct board_db *db, const char *compatible);

/* Whether list has soname. */
int board_libs_has(const struct board_libs *l, const char *soname);

#endif
