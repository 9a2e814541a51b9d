/* sysroot create --from-device: what a cross build needs, copied over ssh from a running
 * board (its CUDA target directory, the JetPack's libraries, /usr/include, the C and C++
 * runtime, /etc/nv_tegra_release), and what the board says it is. Only what changed since
 * the last pull of the same board is copied; the copy is confined to its directory, and a
 * pull that stops half way leaves the copies made before it as they were. */
#ifndef XCC_DEVICE_PULL_H
#define XCC_DEVICE_PULL_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "base/strvec.h"
#include "db/gpus.h"
#include "sysroot/sysroot_meta.h"

struct device_pull_opts {
	const char *device;      /* ssh://[user@]host[:port]: checked as run --device checks it */
	const char *device_root; /* the board's root directory there; NULL: "/" */
	const char *ssh_config;  /* ssh -F FILE, or NULL */
	const char *cuda;        /* --cuda: which of the board's CUDA installations; NULL: the
				  * one /usr/local/cuda names, else its only one */
	const char *cache_dir;   /* NULL: the download cache's default */
	FILE *log;               /* what was copied, or NULL */
};

struct device_pull {
	/* The board's files as pulled: the sysroot's device root. A snapshot
	 * named by the listing's digest, which later pulls leave as it is. */
	char *root;
	/* The board's CUDA target directory as a redist-shaped archive
	 * (cuda_board-<tag>-<version>-archive/...): the sysroot's target side. */
	char *archive;
	const char *target;      /* "sbsa" or "jetson", from the target directory */
	char *cuda;              /* "12.4": the board's CUDA release */
	struct sysroot_board board;
	uint64_t listed;         /* files and links the board has of what is wanted */
	uint64_t copied, copied_bytes; /* what came over ssh this time */
	uint64_t removed;        /* gone from the board since the last pull */
	struct strvec notes;
};

/*
 * Pull what o->device's board has of board.json's device_pull into the cache
 * (CACHE/boards/KEY/, KEY from the device and root): over one ssh connection a
 * listing (GNU find), over another a tar stream of the files that differ from the
 * last pull's by type, size, mtime or link target, read with libarchive into the
 * board's mirror under unpack's path policy, its links kept as data (unpack.h
 * root_links). Then the mirror is snapshotted (hard links) and the target side
 * written. A bad URL is XCC_EUSAGE (exit 2), as for run --device; so is a board
 * without CUDA or with several and no --cuda. SIGINT, SIGTERM and SIGHUP stop it
 * (status 128 + N): the mirror keeps what came, which the next pull does not copy
 * again, and no snapshot or archive is half made.
 */
int device_pull(const struct gpudb *db, const struct device_pull_opts *o, struct device_pull *r,
		struct xcc_error *err);
void device_pull_free(struct device_pull *r);

/* What create makes of a pull: the target (a --target that disagrees is XCC_EUSAGE),
 * the CUDA release unless --cuda named it, the board's root as the device root, the
 * target side among the sources, the board recorded. o points into r afterwards. */
struct sysroot_create_opts;
int device_pull_apply(const struct device_pull *r, struct sysroot_create_opts *o,
		      struct xcc_error *err);

#endif
