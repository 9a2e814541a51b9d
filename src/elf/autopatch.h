/* auto-patchelf done right: resolve every DT_NEEDED of a tree of ELF files
 * against libraries of the same architecture, and write $ORIGIN-relative
 * search paths so the tree can be moved. Used by `cuda-xcc autopatch` and
 * by `sysroot create` / `sysroot verify`. */
#ifndef XCC_AUTOPATCH_H
#define XCC_AUTOPATCH_H

#include <stdio.h>

#include "base/error.h"
#include "base/strvec.h"

struct autopatch_opts {
	/* Files or directories (walked recursively) to patch. Directories
	 * among them are also searched for libraries, and are the "tree":
	 * only directories inside it go into RUNPATH, always $ORIGIN-relative. */
	struct strvec paths;
	/* Extra library directories searched, in order, after the tree. Those
	 * inside the tree are written to RUNPATH; those outside it (a cross
	 * toolchain's lib dir, a rootfs) only satisfy a dependency and are
	 * recorded as "provided by the target system". */
	struct strvec libs;
	/* "aarch64-linux-gnu-": the target's libstdc++.so.6 and libgcc_s.so.1
	 * are taken from `<prefix>gcc -print-file-name=...`. NULL: none. */
	const char *cross_prefix;
	/* The target's root file system: its lib dirs provide system libraries.
	 * NULL: none. */
	const char *target_fs;
	/* fnmatch(3) globs of library names that may stay unresolved. */
	struct strvec ignore_missing;
	/* Appended to every RUNPATH written, as given (e.g. "/usr/local/cuda/lib64"). */
	struct strvec append_rpath;
	/* Verify: resolve and report, write nothing. */
	int dry_run;
	/* Write DT_RPATH instead of DT_RUNPATH (transitive dependencies then
	 * resolve through it too). Executables always get DT_RPATH when one of
	 * their libraries' own dependencies is found only through it. */
	int force_rpath;
	/* Alignment of a new PT_LOAD when a file must grow; 0: by machine
	 * (64 KiB on aarch64 and ppc64, else 4 KiB). */
	unsigned long page_size;
};

/* What happened to one file. */
enum autopatch_action {
	AUTOPATCH_UNCHANGED,   /* ELF, every dependency already resolves as written */
	AUTOPATCH_PATCHED,     /* RUNPATH/RPATH rewritten (or would be, in dry-run) */
	AUTOPATCH_SKIPPED,     /* not touched; reason says why */
};

struct autopatch_file {
	char *path;
	enum autopatch_action action;
	char *reason;  /* for SKIPPED: "static executable", "not ELF", "symlink", ...; else NULL */
	char *arch;    /* "aarch64", "x86_64", ...; NULL for non-ELF */
	char *old_rpath; /* RUNPATH or RPATH before, NULL if none */
	char *new_rpath; /* for PATCHED: what was (or would be) written */
	int rpath_is_dt_rpath; /* new_rpath goes into DT_RPATH rather than DT_RUNPATH */
};

/* One DT_NEEDED that did not resolve. */
struct autopatch_missing {
	char *file;     /* the file that needs it */
	char *library;  /* "libfoo.so.1" */
	char *arch;     /* "aarch64" */
	char *searched; /* the directories searched, ':'-separated */
	int ignored;    /* matched an --ignore-missing glob */
};

/* One dependency satisfied outside the tree (toolchain dir, --target-fs,
 * libc family, driver): nothing is written for it. */
struct autopatch_provided {
	char *file;
	char *library;
	char *by; /* "target C library", "driver", or the path it was found at */
};

struct autopatch_report {
	struct autopatch_file *files;
	size_t n_files;
	struct autopatch_missing *missing;
	size_t n_missing;
	size_t n_missing_unignored;
	/* Dry run: needed libraries that are in the tree but not on the run
	 * path of the file that needs them (each also a note). */
	size_t n_stale;
	struct autopatch_provided *provided;
	size_t n_provided;
	/* Remarks that are not failures: dangling symlinks, unreadable files. */
	struct strvec notes;
	int dry_run; /* PATCHED means "would be patched" */
};

#define AUTOPATCH_OPTS_INIT { .paths = STRVEC_INIT, .libs = STRVEC_INIT, \
	.ignore_missing = STRVEC_INIT, .append_rpath = STRVEC_INIT }

/*
 * Index, resolve and (unless o->dry_run) patch. r is filled in either way
 * (initialize it with {0}; free with autopatch_report_free). Returns 0 when
 * every dependency resolved or matched --ignore-missing (and, in a dry run,
 * every file's run path reaches its libraries as written); -1 with err set
 * otherwise: XCC_EFAIL for unresolved dependencies (listed in r), stale run
 * paths (dry run, n_stale) or a patch that failed, XCC_EUSAGE for bad
 * options (a path that does not exist).
 */
int autopatch_run(const struct autopatch_opts *o, struct autopatch_report *r,
		  struct xcc_error *err);

/* The human-readable report: one line per patched/skipped file (with
 * verbose), one line per missing dependency:
 *   "missing: FILE needs LIB (ARCH), searched DIR:DIR..." */
void autopatch_report_print(const struct autopatch_report *r, FILE *f, int verbose);
/* The report as JSON text; caller frees. */
char *autopatch_report_json(const struct autopatch_report *r);
void autopatch_report_free(struct autopatch_report *r);
void autopatch_opts_free(struct autopatch_opts *o);

/* Libraries every target system has: the C library's family (libc.so.6,
 * libm.so.6, ld-linux...) and the GPU driver's (libcuda.so.1). They are
 * never copied and never put in RUNPATH. */
int autopatch_is_libc(const char *name);
int autopatch_is_driver_library(const char *name);

#endif
