/* The metadata stage of sysroot create: sysroot.json (what a sysroot was
 * made for; read by the driver, info and verify), written last, after
 * sysroot.files (sysroot_files.h). */
#ifndef XCC_SYSROOT_META_H
#define XCC_SYSROOT_META_H

#include "base/error.h"
#include "base/strvec.h"
#include "elf/fatbin.h"
#include "sysroot/plan.h"

#define SYSROOT_META_FILE "sysroot.json"
#define SYSROOT_META_FORMAT 1

struct sysroot_component {
	char *name;
	char *version;
	char *side;   /* "host" or "target" */
	char *sha256; /* of the archive or package it came from */
	char *source; /* file name of that archive or package */
};

/* The serving table: for each target library with device code (sorted by
 * its path under targets/<dir>), the verdict for each GPU the sysroot was
 * made for. One typed table from the serving pass to sysroot.json and back
 * to info and doctor; JSON only in the file. */
struct sysroot_serving_row {
	char *library;                 /* "lib/libcublas.so.12" */
	enum fatbin_verdict *verdicts; /* one per capability of the table */
};

struct sysroot_serving {
	int recorded;               /* 0: none (no GPUs asked, or an older sysroot) */
	struct strvec capabilities; /* the columns: "8.7" */
	struct sysroot_serving_row *rows;
	size_t n_rows, cap_rows;
};

/* Add a row: library and one verdict per column (both copied). */
void sysroot_serving_add(struct sysroot_serving *t, const char *library,
			 const enum fatbin_verdict *verdicts);
/* Sort the rows by library. */
void sysroot_serving_sort(struct sysroot_serving *t);
/* The number of cells that hold v. */
size_t sysroot_serving_count(const struct sysroot_serving *t, enum fatbin_verdict v);
/* The table as text lines for people, one per library (a line saying so
 * when none carries device code). */
void sysroot_serving_text(const struct sysroot_serving *t, struct strvec *out);
void sysroot_serving_free(struct sysroot_serving *t);

/* The board a sysroot's target side and device root were copied from
 * (sysroot create --from-device), as it said of itself. */
struct sysroot_board {
	char *device;        /* ssh://[user@]host[:port] */
	char *root;          /* the board's root directory there: "/" */
	char *tegra_release; /* the first line of its /etc/nv_tegra_release, or NULL */
	char *l4t;           /* the L4T release that line names: "38.2.0", or NULL */
	char *jetpack;       /* the JetPack of that L4T (jetpack.json), or NULL: unknown */
	char *cuda;          /* its CUDA: version.json's "12.4.1", else the directory's "12.4" */
	char *cuda_dir;      /* "/usr/local/cuda-12.4" */
	char *gpu;           /* the capability of its SoC ("8.7", board.json socs), or NULL */
	char *soc;           /* its device tree's compatible strings, or NULL */
	char *listing;       /* sha256 of the listing of what was copied */
};

void sysroot_board_copy(struct sysroot_board *to, const struct sysroot_board *from);
void sysroot_board_free(struct sysroot_board *b);

struct sysroot_meta {
	char *dir;
	char *cuda;       /* "12.6.3" */
	char *target;     /* "jetson" */
	char *tag;        /* "linux-aarch64" */
	char *target_dir; /* "aarch64-linux" */
	char *host_compiler; /* "aarch64-linux-gnu-g++-12", may be NULL */
	char *target_fs;     /* --target-fs: the device's root filesystem (absolute), may be NULL */
	char *jetpack;       /* --jetpack: the JetPack release it was made for, may be NULL */
	/* Which build of NVIDIA's aarch64 libraries the tree holds, as read
	 * from them: "linux-aarch64" (L4T) or "linux-sbsa"; NULL when nothing
	 * tells (or not aarch64). flavour_evidence says what told it. */
	char *flavour;
	char *flavour_evidence;
	struct strvec capabilities; /* "8.7" */
	struct strvec products; /* "cudnn 9.14.0": other products' releases */
	char *fingerprint;  /* of the plan that made it: equal means up to date */
	char *files_sha256; /* of sysroot.files as create wrote it; NULL: an older cuda-xcc's */
	struct sysroot_serving serving;
	struct sysroot_component *components;
	size_t n_components;
	struct sysroot_board *board; /* NULL: not made from a board */
};

/* Read DIR/sysroot.json; a missing file, or one that lacks what every
 * sysroot records or has a malformed serving table, is an error that says
 * so. */
int sysroot_meta_load(const char *dir, struct sysroot_meta *m, struct xcc_error *err);
/* Write DIR/sysroot.json atomically (temporary file, fsync, rename). */
int sysroot_meta_save(const char *dir, const struct sysroot_meta *m, struct xcc_error *err);
/*
 * What a sysroot's records are now and what they say of themselves.
 * sysroot.json records the sha256 of sysroot.files (which records every
 * entry of the tree with each file's sha256) and, in its member "digest",
 * the sha256 of itself without that member (as cJSON prints it
 * unformatted). That sha256, recomputed, is the tree digest: it changes
 * with any byte of the records, so with the tree checked against them it
 * names the whole tree, and a CI can pin it outside the tree.
 */
struct sysroot_records {
	char tree[65];        /* sysroot.json now, less "digest"; "" when unreadable */
	char *recorded;       /* its "digest": NULL in a sysroot of an older cuda-xcc */
	char files[65];       /* sysroot.files now; "" when unreadable */
	char *files_recorded; /* sysroot.json's files_sha256: NULL likewise */
};

/* Read dir's records into r (which it sets up; errors show as "" digests):
 * sysroot.json, and with files sysroot.files too. */
void sysroot_records_read(const char *dir, int files, struct sysroot_records *r);
/* Whether the records carry both digests (not a sysroot of an older cuda-xcc). */
int sysroot_records_covered(const struct sysroot_records *r);
/* Each digest that does not match, one problem a line naming both values. */
void sysroot_records_problems(const char *dir, const struct sysroot_records *r,
			      struct strvec *problems);
void sysroot_records_free(struct sysroot_records *r);
/* 0 unless dir's sysroot.json differs from the digest it records (one of
 * an older cuda-xcc, which records none, passes): what the driver's
 * --sysroot-fingerprint adds to the fingerprint, which names the inputs,
 * not the tree. -1 with err (XCC_EUSAGE) naming both digests. */
int sysroot_meta_unchanged(const char *dir, struct xcc_error *err);

/* The JSON text of m; caller frees. */
char *sysroot_meta_to_json(const struct sysroot_meta *m);
void sysroot_meta_free(struct sysroot_meta *m);

/* What sysroot.json records for a tree made from p. m takes over what
 * serving holds (serving is left empty). */
void sysroot_meta_from_plan(struct sysroot_meta *m, const struct plan *p, const char *host_compiler,
			    const char *target_fs, const char *jetpack, const char *fingerprint,
			    struct sysroot_serving *serving);

/* The default store: $XDG_DATA_HOME/cuda-xcc/sysroots (or
 * ~/.local/share/...). Caller frees. */
char *sysroot_store_dir(void);
/* Store path of the sysroot for target and cuda ("jetson", "12.6" or
 * "12.6.3": both give .../jetson-12.6). Caller frees. */
char *sysroot_store_path(const char *target, const char *cuda);

#endif
