/* Running a cross-built program: locally under the qemu for its ELF
 * machine (natively when it is this machine's), with the loader prefix and
 * library path of the sysroot and the target root, or on a device over
 * OpenSSH with the libraries the device lacks copied next to it. */
#ifndef XCC_RUN_H
#define XCC_RUN_H

#include "base/error.h"
#include "base/strvec.h"
#include "db/gpus.h"

struct run_opts {
	const char *sysroot;    /* --sysroot; NULL: $CUDA_XCC_SYSROOT, else none */
	const char *target_fs;  /* --target-fs; NULL: the sysroot's, else /usr/<triple> */
	const char *device;     /* --device ssh://[user@]host[:port]; NULL: run here */
	const char *ssh_config; /* --ssh-config: ssh -F FILE */
	int keep;               /* --keep: leave the files on the device */
	int stub_libcuda;       /* --stub-libcuda: the sysroot's stub as libcuda.so.1 */
	struct strvec libs;     /* --lib FILE: copy exactly these, not the computed set */
	const char *device_cuda; /* --device-cuda: the board's CUDA directory; NULL:
				  * /usr/local/cuda-X.Y, X.Y the sysroot's */
	/* Where a device run's notes and warnings go ("note: ..."), or NULL. */
	void (*say)(const char *line);
	char *const *argv;      /* PROGRAM ARGS..., NULL-terminated */
};

/* What the board needs installed beyond the program for the sysroot's
 * CUDA and GPUs (db/jetpack.h's board needs), and the sysroot's copy. */
struct run_compat {
	char *component;     /* "cuda_compat" */
	char *package;       /* "cuda-compat-12-2", or NULL */
	char *device_dir;    /* where the board has it ("/usr/local/cuda-12.2/compat"), or
			      * NULL when not known */
	char *why;
	struct strvec files; /* the sysroot's copy of its libraries; may be empty */
};

/* What was worked out about the program and where it runs. */
struct run_plan {
	char *program;        /* the program's path as given (found on PATH otherwise) */
	char *machine;        /* its ELF machine: "aarch64" */
	char *sysroot;        /* the sysroot used, or NULL */
	char *triple;         /* "aarch64-linux-gnu", or NULL when unknown */
	char *prefix;         /* the loader prefix (qemu -L), or NULL (native, static) */
	struct strvec lib_dirs; /* put on LD_LIBRARY_PATH, in order */
	int native;           /* runs on this machine's own loader */
	struct strvec argv;   /* local: what to execute */
	char *ld_library_path; /* local, native: the value to set, or NULL */
	struct run_compat *compat; /* for a device run */
	size_t n_compat;
};

/* The program, its machine, the sysroot, loader prefix and library dirs:
 * what a local and a device run both need. */
int run_plan_target(const struct gpudb *db, const struct run_opts *o, struct run_plan *plan,
		    struct xcc_error *err);

/*
 * Work out how to run o->argv here. A program for another machine runs
 * under qemu-<machine> -L PREFIX -E LD_LIBRARY_PATH=...; a missing qemu is
 * an error naming the Debian package. Runs nothing.
 */
int run_plan_local(const struct gpudb *db, const struct run_opts *o, struct run_plan *plan,
		   struct xcc_error *err);

struct ssh_target {
	char *user; /* NULL: ssh's default */
	char *host;
	char *port; /* NULL: ssh's default */
};

/* ssh://[user@]host[:port] (host may be [v6-address]): user and host of
 * letters, digits, '-', '.' and '_', never starting with '-'; anything
 * else, an error (XCC_EUSAGE) before ssh sees it. */
int run_parse_device(const char *url, struct ssh_target *t, struct xcc_error *err);
/* The same for another option's URL: the message names option. */
int ssh_parse_url(const char *option, const char *url, struct ssh_target *t,
		  struct xcc_error *err);
void ssh_target_free(struct ssh_target *t);
/* ssh [-F ssh_config] -o BatchMode=yes [-n] [-p PORT] [-l USER] -- HOST onto argv: keys or
 * an agent only (a password prompt would hang a build), every option before the host;
 * the remote command follows. */
/* A marker no output can hold by chance: PREFIX and 32 random hex digits (SIZE >= 48
 * with the prefixes used). */
int ssh_marker(char *marker, size_t size, const char *prefix, struct xcc_error *err);

void ssh_argv(struct strvec *argv, const char *ssh_config, const struct ssh_target *t,
	      int no_stdin);

/* A library the program needs, found on the build machine. */
struct run_library {
	char *name; /* the DT_NEEDED name: libcudart.so.11.0 */
	char *path; /* where it was found */
};

struct run_libraries {
	struct run_library *v;
	size_t n;
	struct strvec unresolved; /* needed names found nowhere here */
};

/*
 * Every shared library the program needs (transitively) that is not the C
 * library or the GPU driver's, looked up in its own RPATH/RUNPATH, the
 * sysroot's target lib dir, the target root and /usr/<triple>/lib, with the
 * program's ELF machine.
 */
int run_needed_libraries(const struct run_plan *plan, struct run_libraries *out,
			 struct xcc_error *err);
void run_libraries_free(struct run_libraries *l);

/* What to say before a local run of a program that needs libcuda.so.1 (or
 * a library of it does) where no directory of the run has one: that
 * --stub-libcuda exists. NULL when nothing is to be said. */
char *run_libcuda_hint(const struct run_plan *plan);

struct run_remote_result {
	int status;       /* the program's exit status (128 + N for signal N on the device;
			   * 128 + N too when signal N interrupted the run here) */
	int interrupted;  /* the signal that interrupted the run here (its program stopped,
			   * its directory removed), or 0 */
	char *device_dir; /* the private directory used on the device */
	struct strvec copied; /* names of the files copied */
};

/*
 * Copy the program and the libraries the device lacks (or o->libs) into a
 * private temporary directory on the device, run it there with that
 * directory on LD_LIBRARY_PATH and this process's stdin/stdout/stderr, and
 * remove the directory unless o->keep. Returns 0 with r->status set, or -1
 * when ssh or the copy failed (ssh's 255 and a killed ssh included: the
 * program's own status comes back on a line of its own, marked with a
 * random marker and kept out of its stderr). On SIGINT, SIGTERM or SIGHUP
 * the program's process group on the device is stopped, the directory
 * removed, and r->interrupted set.
 */
int run_remote(const struct run_opts *o, const struct run_plan *plan,
	       struct run_remote_result *r, struct xcc_error *err);
void run_remote_result_free(struct run_remote_result *r);

void run_plan_free(struct run_plan *plan);
void run_opts_free(struct run_opts *o);

#endif
