/* The fetch and extract stages of sysroot create, overlapped: one download
 * pipeline fetches the planned archives into the cache and verifies them
 * (fetch.c), one after the other, while up to `jobs` workers extract the
 * verified ones (unpack.c) into the tree at the destinations the plan's
 * layout gives, phase by phase as the plan orders them, the largest first
 * (sysroot_schedule.h). Nothing here decides anything: the plan is frozen. */
#ifndef XCC_SYSROOT_EXTRACT_H
#define XCC_SYSROOT_EXTRACT_H

#include <stdint.h>

#include "base/error.h"
#include "base/progress.h"
#include "pkg/fetch.h"
#include "sysroot/plan.h"

/* Fetch and extract every archive of p into root, extracting on up to
 * jobs threads (0: one per CPU) while the next archives download. The first failure stops the rest and is returned.
 * Refused before anything is written: a file system with less free space
 * than the archives' own size. Each archive may expand only so far (a
 * .deb's Installed-Size, else 100 times its size, at least 64 MiB, at most
 * 16 GiB), or to max_expand bytes when that is not 0. */
int sysroot_extract(const struct plan *p, const char *root, const struct fetch_opts *fo,
		    int jobs, uint64_t max_expand, struct progress *pr, struct xcc_error *err);

#endif
