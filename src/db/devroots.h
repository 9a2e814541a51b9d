/* Device roots without a board (sysroots/device-roots.json): for each
 * JetPack line, the Debian release whose arm64 C library is the newest not
 * above the board's, which scripts/fetch-target-root.sh --jetpack unpacks
 * (the script reads the same table). */
#ifndef XCC_DEVROOTS_H
#define XCC_DEVROOTS_H

#include <stddef.h>

#include "base/error.h"

struct device_root_release {
	char *debian;  /* "bullseye" */
	char *glibc;   /* "2.31": its libc6's release */
	char *glibcxx; /* "3.4.28": the newest GLIBCXX_ its libstdc++ defines */
};

struct device_root_line {
	char *jetpack; /* the major version: "5" */
	const struct device_root_release *release; /* NULL: none fits */
};

struct device_roots {
	struct device_root_release *releases;
	size_t n_releases;
	struct device_root_line *lines;
	size_t n_lines;
};

int device_roots_load(struct device_roots *out, struct xcc_error *err);
void device_roots_free(struct device_roots *r);

/* The line of a JetPack version ("5.1.2", "6", "7.0": its major version
 * counts), NULL when the table has none. */
const struct device_root_line *device_root_for_jetpack(const struct device_roots *r,
						       const char *jetpack);

#endif
