/* Will it run on that board? `cuda-xcc check` for files cuda-xcc did not
 * build: ELF files, directories (a device root among them), wheels and
 * .deb packages (read in place through libarchive, never unpacked), each
 * ELF file checked for its device code against the GPUs asked for, its
 * C and C++ runtime floors, its DT_NEEDED and the CUDA it was built
 * with, against a board named by a JetPack release, GPUs and a root. */
#ifndef XCC_READINESS_H
#define XCC_READINESS_H

#include <stddef.h>

#include "base/error.h"
#include "base/strvec.h"
#include "db/board.h"
#include "db/gpus.h"
#include "db/jetpack.h"

/* A file's verdict, worst last: the total's exit status follows it. */
enum ready_status {
	READY_OK,      /* everything asked for is served, as far as the facts go */
	READY_COMPAT,  /* runs only with NVIDIA's cuda-compat package on the board */
	READY_UNKNOWN, /* cuda-xcc cannot tell (an unverified fact, no driver given) */
	READY_FAIL,    /* something will not run */
};
#define READY_N_STATUS 4

enum ready_gpu_verdict {
	READY_GPU_SASS,        /* SASS that runs as is */
	READY_GPU_PTX,         /* PTX the board's driver can JIT */
	READY_GPU_PTX_COMPAT,  /* PTX newer than the driver: JIT with cuda-compat only */
	READY_GPU_PTX_UNKNOWN, /* PTX, and the driver (or the ISA) is not known */
	READY_GPU_PTX_TOO_NEW, /* PTX no driver of the board can JIT */
	READY_GPU_NOT_SERVED,  /* neither SASS nor PTX for it */
};

struct ready_gpu {
	char gpu[16];       /* "8.7" */
	enum ready_gpu_verdict verdict;
	char by[16];        /* the entry that serves it: "sm_87"; "" when none */
	unsigned isa_major, isa_minor; /* the PTX's ISA (PTX verdicts) */
	int has_ptx_cuda;
	struct cuda_version ptx_cuda;  /* the CUDA whose driver first loads that ISA */
};

/* Where a DT_NEEDED is found on the board. */
enum ready_need_by {
	READY_NEED_INPUT,   /* another of the files checked (the package itself) */
	READY_NEED_ROOT,    /* the --target-fs root */
	READY_NEED_SYSROOT, /* the --sysroot's target libraries (deploy them with it) */
	READY_NEED_LIBC,    /* the board's C library */
	READY_NEED_DRIVER,  /* the GPU driver (libcuda.so.1) */
	READY_NEED_BASE,    /* every board root (libstdc++, libgcc_s) */
	READY_NEED_JETPACK, /* the JetPack's own libraries */
	READY_NEED_COMPAT,  /* NVIDIA's cuda-compat package */
	READY_NEED_UNKNOWN, /* not in the inputs, and no board named to look in */
	READY_NEED_MISSING,
};

struct ready_need {
	char *name;
	enum ready_need_by by;
	char *where;    /* the file or list that has it; NULL when none */
	int unverified; /* found only in an unverified list */
};

/* How the CUDA a file was built with is known. */
enum ready_cuda_how {
	READY_CUDA_NONE,     /* no device code and no CUDA runtime: nothing to compare */
	READY_CUDA_UNKNOWN,  /* CUDA code, but nothing says which release */
	READY_CUDA_MAJOR,    /* only the major (libcudart.so.12) */
	READY_CUDA_AT_LEAST, /* from its newest PTX: this release or newer */
	READY_CUDA_EXACT,    /* a package version, a libcudart beside it, --cuda */
};

struct ready_file {
	char *path;     /* FILE, or PACKAGE:MEMBER */
	char *machine;  /* "aarch64" */
	enum ready_status status;
	int has_device_code;
	char *device_summary; /* "sass sm_87 ptx sm_87" (fatbin --summary's line) */
	struct ready_gpu *gpus;
	size_t n_gpus;
	/* The runtime floors: where from (NULL: not checked), the file's
	 * newest need of each library ("GLIBC_2.34"), those above the floor. */
	char *floor_from;
	struct strvec needs_max, above;
	struct ready_need *needed;
	size_t n_needed;
	enum ready_cuda_how cuda_how;
	struct cuda_version cuda;
	char *cuda_from;   /* what says so: "package version 12.4.5.8~12.4.1-2" */
	enum ready_status cuda_status;
	/* What will not run, or what cannot be told, one line each. */
	struct strvec problems;
	/* Internal: the soname (or basename) the file is found by, its
	 * e_machine, its DT_NEEDED until resolved. */
	char *soname, *base;
	int e_machine;
	struct strvec raw_needed;
};

struct ready_report {
	struct ready_file *files;
	size_t n, cap;
	size_t count[READY_N_STATUS];
	/* What the board is, in words: "JetPack 6.2 (Ubuntu 22.04, CUDA 12.6),
	 * GPUs 8.7". */
	char *board;
	/* Inputs that hold no ELF file at all (said, not counted). */
	struct strvec empty;
};

struct ready_target {
	const struct gpudb *gdb;
	const struct board_db *bdb;
	const struct jetpack_release *jp;  /* NULL: none named */
	const struct gpu_cap **gpus;       /* the GPUs asked for (from --gpu or jp's boards) */
	size_t n_gpus;
	const char *target_fs;  /* the board's root, NULL */
	const char *sysroot;    /* NULL */
	const char *triple;     /* the root's multiarch triple: "aarch64-linux-gnu" */
	int has_cuda;           /* --cuda: what the files were built with, where they do not say */
	struct cuda_version cuda;
	int with_compat;        /* the board has cuda-compat installed: COMPAT counts as OK */
};

/* Check every input (an ELF file, a directory, a .deb, a .whl). Returns 0
 * with r filled whatever the verdicts (r->count says them); -1 with err
 * when an input cannot be read: XCC_EUSAGE for one that does not exist or
 * is no kind cuda-xcc checks, XCC_EFAIL for a damaged one. */
int readiness_check(const struct ready_target *t, const struct strvec *inputs,
		    struct ready_report *r, struct xcc_error *err);
void ready_report_free(struct ready_report *r);

/* The exit status the report gives: 0 when every file is OK (or COMPAT
 * with with_compat), else 1. */
int ready_report_status(const struct ready_report *r, int with_compat);

const char *ready_status_name(enum ready_status s);         /* "ok", "compat", ... */
const char *ready_gpu_verdict_name(enum ready_gpu_verdict v); /* "sass", "ptx", ... */
const char *ready_need_by_name(enum ready_need_by b);         /* "input", "root", ... */
const char *ready_cuda_how_name(enum ready_cuda_how h);       /* "exact", "major", ... */

/* The report as text: one summary line per file (with verbose, the
 * detail under it), the problems, and the total. Caller frees. */
char *ready_report_text(const struct ready_report *r, int verbose);
/* The report as JSON text (doc/check.md). Caller frees. */
char *ready_report_json(const struct ready_report *r);

#endif
