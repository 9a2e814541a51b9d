/* Driver mode: from cuda-xcc's own options plus nvcc's arguments to the one
 * nvcc command line that builds for the target. */
#ifndef XCC_DRIVER_H
#define XCC_DRIVER_H

#include "base/error.h"
#include "base/strvec.h"
#include "db/flags.h"
#include "db/gpus.h"
#include "use/nvcc_options.h"

struct driver_opts {
	const char *sysroot;   /* --sysroot */
	const char *cuda;      /* --cuda */
	const char *target;    /* --target */
	const char *target_fs; /* --target-fs: the device's root filesystem */
	const char *jetpack;   /* --jetpack: the board's JetPack release */
	const char *fingerprint; /* --sysroot-fingerprint: the sysroot's, as the caller knew it */
	int strict;            /* --strict: a runtime floor not met is an error */
	struct strvec arch;    /* -arch lists owned by cuda-xcc */
	enum ptx_policy ptx;
	int dry_run;           /* --dry-run or -### */
	int verbose;
	struct strvec nvcc_args; /* everything else, in order */
	struct nvcc_args nvcc;   /* the same, typed: read once, by nvcc's table */
};

/* Split argv (after the program name) into cuda-xcc's options and nvcc's. */
int driver_parse_args(int argc, char **argv, struct driver_opts *o, struct xcc_error *err);

struct driver_plan {
	struct strvec argv;   /* nvcc and its arguments */
	char *sysroot;        /* the sysroot used, or NULL */
	int sysroot_exists;
	char *create_command; /* the 'cuda-xcc sysroot create' for these GPUs */
	struct arch_choice arch;
	/* When nvcc links a program: the file it writes; with --target-fs the
	 * device's libc.so.6 to check it against afterwards. */
	char *linked_output;
	/* nvcc's host compiler: the user's -ccbin, else the one chosen. */
	char *host_compiler;
	char *target_libc;
	/* The same root's libstdc++.so.6 and libgcc_s.so.1 (NULL when it has
	 * none): the GLIBCXX_, CXXABI_ and GCC_ floor of the device. */
	char *target_libstdcxx;
	char *target_libgcc_s;
	/* The JetPack from --jetpack or the sysroot's sysroot.json, or NULL. */
	char *jetpack;
	/* The existing sysroot's components (sysroot.json), what it can ship
	 * to the board; empty without one. */
	struct strvec components;
	/* What the user should know about the --target-fs (links that name no
	 * file in it), one message each. */
	struct strvec warnings;
};

/* Locate the sysroot, validate everything, choose the host compiler and
 * build the nvcc command line. Runs nothing but probes (-dumpmachine). */
int driver_plan(const struct gpudb *db, const struct driver_opts *o, struct driver_plan *plan,
		struct xcc_error *err);

/* Run the planned nvcc as a child and wait for it. Returns its exit status
 * (128 + signal when killed), or -1 with err set when it cannot start. */
int driver_run_child(const struct driver_plan *plan, struct xcc_error *err);

void driver_plan_free(struct driver_plan *plan);

/* Whether the sysroot in dir, whose sysroot.json records the fingerprint
 * have (NULL for none), is the one a command line written for the
 * fingerprint want (--sysroot-fingerprint) names: 0, or -1 with err set
 * (a usage error, with the way out). */
int driver_check_fingerprint(const char *dir, const char *have, const char *want,
			     struct xcc_error *err);
void driver_opts_init(struct driver_opts *o);
void driver_opts_free(struct driver_opts *o);

#endif
