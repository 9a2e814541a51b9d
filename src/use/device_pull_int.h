/* What the two halves of a board pull share: the listing of the board's files
 * (device_pull.c reads it from the board and copies what differs into the mirror;
 * device_root.c snapshots the mirror by it and writes the target side). */
#ifndef XCC_DEVICE_PULL_INT_H
#define XCC_DEVICE_PULL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct pull_entry {
	char type;     /* 'f' (a regular file) or 'l' (a symlink) */
	uint64_t size; /* a file's */
	int64_t mtime; /* seconds */
	char *path;    /* relative to the board's root, normalized */
	char *target;  /* a link's target as written; "" for a file */
};

struct pull_listing {
	struct pull_entry *v; /* sorted by path, each path once */
	size_t n, cap;
	char digest[65];      /* sha256 of the whole listing: names the snapshot */
};

/* find -printf '%y %s %Ts %p\0%l\0' records (after the marker line) into l:
 * sorted, each path once, refused when a path is absolute, has a '..' or a
 * newline, or goes through a link the listing also holds. */
int pull_listing_parse(const char *data, size_t len, const char *device, struct pull_listing *l,
		       struct xcc_error *err);
const struct pull_entry *pull_listing_find(const struct pull_listing *l, const char *path);
void pull_listing_free(struct pull_listing *l);

/* The snapshot of mirror that l describes, board_dir/roots/DIGEST: made by hard
 * links in a temporary directory renamed into place, or found made. */
int pull_snapshot(const char *board_dir, const char *mirror, const struct pull_listing *l,
		  char **root, struct xcc_error *err);

/* The entries of l under prefix ("usr/local/cuda-12.4/targets/sbsa-linux/") as a
 * redist-shaped tar, top directory cuda_board-<tag>-<version>-archive, read from the
 * snapshot root; board_dir/archives/DIGEST/<top>.tar, written once. */
int pull_target_archive(const char *board_dir, const char *root, const struct pull_listing *l,
			const char *prefix, const char *tag, const char *version, char **archive,
			struct xcc_error *err);

/* The CUDA release version.json (or version.txt) in cuda_dir of root records
 * ("12.4.1"), read inside the root; NULL when neither says. */
char *pull_cuda_version(const char *root, const char *cuda_dir);

#endif
