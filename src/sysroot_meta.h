/* sysroot.json: what a sysroot was made for. Written last by sysroot
 * create, read by the driver, info and verify. */
#ifndef XCC_SYSROOT_META_H
#define XCC_SYSROOT_META_H

#include "error.h"
#include "strvec.h"

#define SYSROOT_META_FILE "sysroot.json"
#define SYSROOT_META_FORMAT 1

struct sysroot_component {
	char *name;
	char *version;
	char *side;   /* "host" or "target" */
	char *sha256; /* of the archive or package it came from */
	char *source; /* file name of that archive or package */
};

struct sysroot_meta {
	char *dir;
	char *cuda;       /* "12.6.3" */
	char *target;     /* "jetson" */
	char *tag;        /* "linux-aarch64" */
	char *target_dir; /* "aarch64-linux" */
	char *host_compiler; /* "aarch64-linux-gnu-g++-12", may be NULL */
	char *target_fs;     /* --target-fs: the device's root filesystem (absolute), may be NULL */
	char *jetpack;       /* --jetpack: the JetPack release it was made for, may be NULL */
	struct strvec capabilities; /* "8.7" */
	char *fingerprint;  /* of the plan that made it: equal means up to date */
	char *serving_json; /* the serving table: JSON array text, may be NULL */
	struct sysroot_component *components;
	size_t n_components;
};

/* Read DIR/sysroot.json; a missing file is an error that says so. */
int sysroot_meta_load(const char *dir, struct sysroot_meta *m, struct xcc_error *err);
/* Write DIR/sysroot.json atomically (temporary file, fsync, rename). */
int sysroot_meta_save(const char *dir, const struct sysroot_meta *m, struct xcc_error *err);
/* The JSON text of m; caller frees. */
char *sysroot_meta_to_json(const struct sysroot_meta *m);
void sysroot_meta_free(struct sysroot_meta *m);

/* The default store: $XDG_DATA_HOME/cuda-xcc/sysroots (or
 * ~/.local/share/...). Caller frees. */
char *sysroot_store_dir(void);
/* Store path of the sysroot for target and cuda ("jetson", "12.6" or
 * "12.6.3": both give .../jetson-12.6). Caller frees. */
char *sysroot_store_path(const char *target, const char *cuda);

#endif
