/* Making, describing and checking sysroots. sysroot create runs the stages
 * (request, plan, fetch and extract, passes, metadata, commit: one module
 * each, see sysroot.c) and puts the result in place atomically. */
#ifndef XCC_SYSROOT_H
#define XCC_SYSROOT_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "base/progress.h"
#include "base/strvec.h"
#include "db/gpus.h"

struct sysroot_board;

struct sysroot_create_opts {
	const char *target;
	const char *cuda;
	struct strvec arch;       /* -arch specs */
	struct strvec from;       /* --from: manifests (.json) and single archives */
	const char *mirror;       /* NULL: NVIDIA's */
	struct strvec components; /* --components */
	const char *dest;         /* NULL: the store */
	int jobs;                 /* 0: the number of CPUs */
	uint64_t max_expand;      /* --max-expand: bytes each archive may unpack to; 0: its own bound */
	int no_sync;              /* --no-sync: the tree is not synced to disk before the swap */
	enum progress_mode progress;
	int allow_unserved;
	int dry_run;
	int print_fingerprint;    /* --print-fingerprint: a dry run that gives only the
	                           * fingerprint the sysroot would record (a CI cache key) */
	const char *cache_dir;    /* NULL: fetch's default */
	int no_file_store;        /* --no-file-store: neither read nor fill the file store */
	uint64_t max_download;    /* --max-download: the most a URL with no promised size
	                           * may send; 0: fetch's default */
	const char *target_fs;    /* --target-fs: the device's root filesystem, or NULL */
	const char *jetpack;      /* --jetpack: the board's JetPack release, or NULL */
	const char *host_compiler; /* --host-compiler: the cross g++ to record, or NULL */
	/* --from-device: the board the target side (an archive in from) and the
	 * device root (target_fs) were copied from, recorded as it is; or NULL. */
	const struct sysroot_board *board;
	FILE *log;                /* progress and notes go here (stderr) */
};

struct sysroot_create_result {
	char *dir;         /* the sysroot made (or that was already up to date) */
	int up_to_date;    /* nothing was done */
	int from_store;    /* made by links to the file store's files */
	char *plan_text;   /* --dry-run: the plan; --print-fingerprint: the fingerprint */
	struct strvec notes; /* things worth saying that are not errors */
	struct strvec warnings; /* the device's glibc cannot run what was made */
};

#define SYSROOT_DEFAULT_MIRROR "https://developer.download.nvidia.com/compute/cuda/redist/"

int sysroot_create(const struct gpudb *db, const struct sysroot_create_opts *o,
		   struct sysroot_create_result *r, struct xcc_error *err);
void sysroot_create_result_free(struct sysroot_create_result *r);
void sysroot_create_opts_free(struct sysroot_create_opts *o);

/* What `sysroot info` prints: the description as text or JSON, the
 * fingerprint alone (a cache key: equal for equal trees at any path), or
 * the tree digest alone (sysroot_meta.h: what verify --expect checks). */
enum sysroot_info_form {
	SYSROOT_INFO_TEXT,
	SYSROOT_INFO_JSON,
	SYSROOT_INFO_FINGERPRINT,
	SYSROOT_INFO_TREE_DIGEST,
};

/* `sysroot info`: the description in form. Caller frees. */
int sysroot_info(const struct gpudb *db, const char *dir, enum sysroot_info_form form, char **out,
		 struct xcc_error *err);
/* `sysroot gc`: the file store of cache_dir (NULL: the default cache)
 * rid of the files no sysroot links and of the records that name them,
 * under its lock; what it did as text. Caller frees. */
int sysroot_gc(const char *cache_dir, char **out, struct xcc_error *err);
/* `sysroot list`: one line per sysroot in the store. Caller frees. */
int sysroot_list(int json, char **out, struct xcc_error *err);
/* How far sysroot verify looked into the files. */
enum sysroot_verify_depth {
	SYSROOT_VERIFY_CONTENTS,   /* each file's sha256 too */
	SYSROOT_VERIFY_METADATA,   /* type, mode, size, link target: as asked */
	SYSROOT_VERIFY_NO_DIGESTS, /* the same: the sysroot records no digests */
	/* An older cuda-xcc's sysroot: sysroot.json and sysroot.files carry no
	 * digest of their own, so an edit of them cannot be told. */
	SYSROOT_VERIFY_UNCOVERED,          /* each file's sha256 against sysroot.files */
	SYSROOT_VERIFY_METADATA_UNCOVERED, /* --metadata-only on such a sysroot */
};

/* `sysroot verify`: every problem found goes to problems; returns 0 when
 * there is none, -1 with err otherwise. metadata_only skips hashing the
 * files; *depth says what was checked. */
int sysroot_verify(const struct gpudb *db, const char *dir, int metadata_only,
		   struct strvec *problems, enum sysroot_verify_depth *depth,
		   struct xcc_error *err);
/* sysroot_verify, and with expect (a tree digest kept outside the tree,
 * 64 lowercase hex digits) a problem unless the tree digest is that one. */
int sysroot_verify_expect(const struct gpudb *db, const char *dir, int metadata_only,
			  const char *expect, struct strvec *problems,
			  enum sysroot_verify_depth *depth, struct xcc_error *err);
/* Whether depth is a verdict of OK (the records covered by their digests). */
int sysroot_verify_depth_ok(enum sysroot_verify_depth depth);
struct sysroot;
/* The cross compiler (TRIPLE-gcc) that verify finds the target's libstdc++
 * and libgcc_s with, when s records no device root and it is not on PATH:
 * caller frees; NULL when it is there or not needed. Its absence is this
 * machine's problem, not the sysroot's: making the sysroot again would not
 * help. */
char *sysroot_missing_cross_gcc(const struct sysroot *s);
/* The problem verify lists for it; caller frees. */
char *sysroot_missing_cross_gcc_problem(const char *gcc);
/* What depth means, for a line after "OK". */
const char *sysroot_verify_depth_text(enum sysroot_verify_depth depth);

#endif
