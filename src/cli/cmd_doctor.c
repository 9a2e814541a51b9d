#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "use/doctor.h"
#include "cli/cmd.h"

static const char doctor_usage[] =
	"Usage: cuda-xcc doctor [--sysroot DIR] [--target T] [--cuda V] [--target-fs ROOTFS]\n"
	"                       [--jetpack V] [--json]\n"
	"\n"
	"Check that this machine can cross-build, run and test CUDA programs for a target,\n"
	"one line per check with the way to fix it:\n"
	"  cross-g++    the target's cross g++ is installed and accepted by that CUDA release\n"
	"  qemu         qemu-user runs the target's programs here (cuda-xcc run, ctest)\n"
	"  sysroot      the sysroot verifies (what 'cuda-xcc sysroot verify' checks)\n"
	"  serving      its libraries have code for every GPU it was made for\n"
	"  nvcc-path    its nvcc cannot pick up another CUDA's tools from PATH\n"
	"  jetpack      the JetPack release (--jetpack, or the sysroot's) supports its GPUs\n"
	"               and runs its CUDA release\n"
	"  glibc-floor  the device's glibc and libstdc++ (--target-fs, the one the sysroot\n"
	"               was made with, else the JetPack release's) are not older than what\n"
	"               the cross toolchain links with\n"
	"  target-fs-links that root's absolute symlinks among the linker's files name\n"
	"               files inside it (they are read there through an overlay)\n"
	"  binfmt       qemu is registered with binfmt_misc, so target programs start\n"
	"               directly by path (a Makefile running ./prog); cuda-xcc run, ctest\n"
	"               and try_run go through the emulator and do not need it ('warn')\n"
	"  ccache       ccache is installed\n"
	"\n"
	"Options:\n"
	"  --sysroot DIR      the sysroot (default: $CUDA_XCC_SYSROOT, else the store's for\n"
	"                     --target and --cuda); it gives the target and CUDA release\n"
	"  --target T         jetson, sbsa or x86_64\n"
	"  --cuda V           CUDA release\n"
	"  --target-fs ROOTFS the device's root filesystem, for glibc-floor and\n"
	"                     target-fs-links\n"
	"  --jetpack V        the board's JetPack release (default: the sysroot's, if any)\n"
	"  --json             the report as JSON\n"
	"\n"
	"Exit status: 0 when every check is ok, a warning or does not apply, 1 when one\n"
	"failed, 2 for bad options. A FAIL means the use it names will fail; 'warn' names\n"
	"what still works and what does not. A check that cannot know says so ('skip');\n"
	"it never guesses.\n";

int cmd_doctor(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "target", required_argument, NULL, 't' },
		{ "cuda", required_argument, NULL, 'c' },
		{ "target-fs", required_argument, NULL, 'F' },
		{ "jetpack", required_argument, NULL, 'J' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor_opts o = { 0 };
	struct doctor_report r;
	struct xcc_error err = { 0 };
	const struct gpudb *db;
	int c, json = 0, rc;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "h", opts, "doctor")) != -1) {
		switch (c) {
		case 's': o.sysroot = optarg; break;
		case 't': o.target = optarg; break;
		case 'c': o.cuda = optarg; break;
		case 'F': o.target_fs = optarg; break;
		case 'J': o.jetpack = optarg; break;
		case 'j': json = 1; break;
		case 'h':
			fputs(doctor_usage, stdout);
			return 0;
		default:
			return XCC_EUSAGE;
		}
	}
	if (optind < argc)
		return cmd_usage_error("doctor", "unexpected argument '%s'", argv[optind]);
	/* Where binfmt_misc is mounted, when not at the usual place. */
	o.binfmt_dir = getenv("CUDA_XCC_BINFMT_MISC");
	if (!(db = cmd_gpudb(ctx, &err)) || !(o.jetpacks = cmd_jetpacks(ctx, &err)) ||
	    doctor_run(db, &o, &r, &err))
		return cmd_report(&err);
	if (json) {
		char *text = doctor_report_json(&r);

		puts(text);
		free(text);
	} else {
		size_t width = 0;

		printf("cuda-xcc doctor: target %s, CUDA %s, sysroot %s\n",
		       r.target ? r.target : "(none given)", r.cuda ? r.cuda : "(none given)",
		       r.sysroot ? r.sysroot : "(none)");
		for (size_t i = 0; i < r.n; i++)
			if (strlen(r.v[i].name) > width)
				width = strlen(r.v[i].name);
		for (size_t i = 0; i < r.n; i++) {
			printf("%-4s  %-*s  %s", doctor_status_name(r.v[i].status), (int)width,
			       r.v[i].name, r.v[i].detail);
			if (r.v[i].fix)
				printf("; fix: %s", r.v[i].fix);
			putchar('\n');
		}
	}
	rc = doctor_failed(&r) ? XCC_EFAIL : 0;
	doctor_report_free(&r);
	return rc;
}
