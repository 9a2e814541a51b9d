/* The cross toolchains a board's userland can be matched with
 * (sysroots/toolchains.json): Debian's aarch64 g++ of each release and the
 * glibc and libstdc++ it builds against. */
#ifndef XCC_CROSSTC_H
#define XCC_CROSSTC_H

#include "base/error.h"

struct cross_toolchain {
	char *debian;         /* "bullseye" */
	char *debian_version; /* "11" */
	int gcc;              /* 10: aarch64-linux-gnu-g++-10 */
	char *glibc;          /* "2.31": the release of its C library */
	char *glibc_defines;  /* "2.30": the newest GLIBC_ its libc defines, what a
	                       * program can need */
	char *glibcxx;        /* "3.4.28" */
	char *cxxabi;         /* "1.3.12" */
	char *source;
};

struct cross_toolchains {
	struct cross_toolchain *v; /* oldest release first */
	size_t n;
};

int cross_toolchains_load(struct cross_toolchains *out, struct xcc_error *err);
void cross_toolchains_free(struct cross_toolchains *t);

/* Order dotted version numbers ("2.31" < "2.35" < "2.35.1"). */
int crosstc_version_cmp(const char *a, const char *b);

/*
 * The newest toolchain whose libc defines no GLIBC_ newer than glibc and whose
 * libstdc++ is no newer than glibcxx (NULL: not known, not compared), with
 * a gcc between gcc_min and gcc_max (0: no limit), the ones nvcc accepts.
 * NULL when none fits.
 */
const struct cross_toolchain *cross_toolchain_match(const struct cross_toolchains *t,
						    const char *glibc, const char *glibcxx,
						    int gcc_min, int gcc_max);

#endif
