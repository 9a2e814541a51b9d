#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "use/run.h"
#include "cli/cmd.h"

static const char run_usage[] =
	"Usage: cuda-xcc run [--sysroot DIR] [--target-fs ROOTFS] [--dry-run] PROGRAM [ARGS...]\n"
	"       cuda-xcc run --device ssh://[user@]host[:port] [--ssh-config FILE] [--keep]\n"
	"                    [--lib FILE]... [--device-cuda DIR] [--sysroot DIR]\n"
	"                    [--target-fs ROOTFS] PROGRAM [ARGS...]\n"
	"\n"
	"Run a cross-built program. Here: under the qemu for its ELF machine (natively when it\n"
	"is this machine's), with the loader prefix and library path of the sysroot and the\n"
	"target root, so it finds libcudart, libcublas and the target's libstdc++ by itself.\n"
	"On a device: copy it and the libraries the device lacks into a private temporary\n"
	"directory there over ssh, run it with that directory on its library path, remove it.\n"
	"Its output and exit status are the program's own.\n"
	"\n"
	"Options:\n"
	"  --sysroot DIR      the sysroot (default: $CUDA_XCC_SYSROOT; none: no CUDA libraries)\n"
	"  --target-fs ROOTFS the device's root filesystem: its loader and libraries (default:\n"
	"                     the one the sysroot was made with, else /usr/<triple>)\n"
	"  --device URL       run on ssh://[user@]host[:port] instead of here\n"
	"  --ssh-config FILE  an ssh configuration file for --device (ssh -F)\n"
	"  --lib FILE         with --device: copy these libraries (repeatable) instead of\n"
	"                     those the program needs that the device lacks\n"
	"  --keep             with --device: leave the directory on the device\n"
	"  --device-cuda DIR  with --device: the board's CUDA directory, whose compat/ holds\n"
	"                     NVIDIA's cuda-compat libraries when the sysroot's CUDA needs\n"
	"                     them (default: /usr/local/cuda-X.Y, X.Y the sysroot's)\n"
	"  --stub-libcuda     put the sysroot's stub libcuda.so on the library path as\n"
	"                     libcuda.so.1, so driver-API programs start under qemu and\n"
	"                     fail cleanly (CUDA_ERROR_STUB_LIBRARY): for CI smoke tests\n"
	"  --dry-run          print the command that would run here, run nothing\n"
	"\n"
	"Exit status: the program's own (here a signal that kills it kills cuda-xcc too;\n"
	"on a device it comes back as 128 + N); 1 or 2 when it could not be started, or\n"
	"when ssh failed. SIGINT, SIGTERM or SIGHUP during a device run stop the program\n"
	"there (its process group), remove its directory, and exit 128 + N.\n";

/* A device run's exit status, with what was kept or stopped there. */
static int device_status(const struct run_opts *o, const struct run_remote_result *r)
{
	if (r->interrupted)
		fprintf(stderr, "cuda-xcc: interrupted by signal %d (%s): stopped the program on "
			"%s%s%s\n", r->interrupted, interrupt_signal_name(r->interrupted), o->device,
			r->device_dir ? (o->keep ? ", kept " : " and removed ") : "",
			r->device_dir ? r->device_dir : "");
	else if (o->keep)
		fprintf(stderr, "cuda-xcc: kept %s on %s\n", r->device_dir, o->device);
	return r->status;
}

static void say_line(const char *line)
{
	fprintf(stderr, "cuda-xcc: %s\n", line);
}

int cmd_run(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "target-fs", required_argument, NULL, 'F' },
		{ "device", required_argument, NULL, 'D' },
		{ "ssh-config", required_argument, NULL, 'S' },
		{ "lib", required_argument, NULL, 'l' },
		{ "keep", no_argument, NULL, 'k' },
		{ "device-cuda", required_argument, NULL, 'U' },
		{ "stub-libcuda", no_argument, NULL, 'C' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts o = { 0 };
	struct run_plan plan = { 0 };
	struct run_remote_result r = { 0 };
	struct xcc_error err = { 0 };
	const struct gpudb *db;
	int c, dry_run = 0, rc = 0;

	/* '+': options end at PROGRAM; everything after it is the program's. */
	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "+h", opts, "run")) != -1) {
		switch (c) {
		case 's': o.sysroot = optarg; break;
		case 'F': o.target_fs = optarg; break;
		case 'D': o.device = optarg; break;
		case 'S': o.ssh_config = optarg; break;
		case 'l': strvec_push(&o.libs, optarg); break;
		case 'k': o.keep = 1; break;
		case 'U': o.device_cuda = optarg; break;
		case 'C': o.stub_libcuda = 1; break;
		case 'n': dry_run = 1; break;
		case 'h':
			fputs(run_usage, stdout);
			goto out;
		default:
			rc = XCC_EUSAGE;
			goto out;
		}
	}
	if (optind >= argc) {
		rc = cmd_usage_error("run", "no program to run: give PROGRAM [ARGS...]");
		goto out;
	}
	if (o.device && o.stub_libcuda) {
		rc = cmd_usage_error("run", "--stub-libcuda stands in for a driver this machine "
				       "lacks; a device has its own: drop it with --device");
		goto out;
	}
	if (!o.device && (o.keep || o.libs.n || o.ssh_config || o.device_cuda)) {
		rc = cmd_usage_error("run", "--keep, --lib, --ssh-config and --device-cuda go with "
				     "--device");
		goto out;
	}
	if (o.device && dry_run) {
		rc = cmd_usage_error("run", "--dry-run shows a local run; it does not go with --device");
		goto out;
	}
	o.argv = argv + optind;
	o.say = say_line;
	if (!(db = cmd_gpudb(ctx, &err))) {
		rc = cmd_report(&err);
		goto out;
	}
	if (o.device) {
		/* The plan's local half gives the machine, sysroot and library
		 * dirs; qemu is not needed for a device. */
		if (run_plan_target(db, &o, &plan, &err)) {
			rc = cmd_report(&err);
			goto out;
		}
		rc = run_remote(&o, &plan, &r, &err) ? cmd_report(&err) : device_status(&o, &r);
		goto out;
	}
	if (run_plan_local(db, &o, &plan, &err)) {
		rc = cmd_report(&err);
		goto out;
	}
	if (dry_run) {
		char *line = strvec_join_quoted(&plan.argv);

		if (plan.ld_library_path) {
			char *q = shell_quote(plan.ld_library_path);

			printf("LD_LIBRARY_PATH=%s ", q);
			free(q);
		}
		puts(line);
		free(line);
		goto out;
	}
	if (!o.stub_libcuda && plan.sysroot) {
		/* The loader's "libcuda.so.1: cannot open shared object file"
		 * follows; say the way out first. */
		char *hint = run_libcuda_hint(&plan);

		if (hint)
			fprintf(stderr, "cuda-xcc: note: %s\n", hint);
		free(hint);
	}
	if (plan.ld_library_path)
		setenv("LD_LIBRARY_PATH", plan.ld_library_path, 1);
	fflush(NULL);
	/* exec: the program's (or qemu's) output, status and signals are
	 * this process's own, with nothing in between. */
	execv(plan.argv.v[0], plan.argv.v);
	fprintf(stderr, "cuda-xcc: cannot run %s: %s\n", plan.argv.v[0], strerror(errno));
	rc = XCC_EFAIL;
out:
	run_remote_result_free(&r);
	run_plan_free(&plan);
	run_opts_free(&o);
	return rc;
}
