#include <config.h>

#include <stdio.h>
#include <string.h>

#include "base/fileio.h"
#include "base/libinfo.h"
#include "base/strvec.h"
#include "cli/cmd.h"

struct verb {
	const char *name;
	cmd_fn *fn;
	const char *summary;
};

/* The dispatch table: one line per verb. */
static const struct verb verbs[] = {
	{ "gpus", cmd_gpus, "list GPU capabilities a CUDA version and target accept" },
	{ "flags", cmd_flags, "validated -gencode flags, CMake architectures, redist tag" },
	{ "sysroot", cmd_sysroot, "create, describe, list and verify cross-compilation sysroots" },
	{ "fatbin", cmd_fatbin, "list the SASS and PTX that files carry, per architecture" },
	{ "patchelf", cmd_patchelf, "patchelf's interface: interpreter, rpath, needed, soname" },
	{ "autopatch", cmd_autopatch, "resolve libraries per architecture, write $ORIGIN run paths" },
	{ "toolchain", cmd_toolchain, "a CMake toolchain or Meson cross file bound to a sysroot" },
	{ "run", cmd_run, "run a cross-built program under qemu or on a device over ssh" },
	{ "doctor", cmd_doctor, "check the cross toolchain, qemu, sysroot and device floor" },
	{ "check-link", cmd_check_link, "check linked files against the device's runtime floor" },
	{ "check", cmd_check, "will these files, packages or roots run on that board" },
	{ NULL, NULL, NULL },
};

/* Invoked under another name, cuda-xcc becomes that tool. */
static const struct verb aliases[] = {
	{ "cuda-xcc-patchelf", cmd_patchelf, NULL },
	{ NULL, NULL, NULL },
};

/* --version, and with --verbose (-v) the libraries inside and their
 * versions: a static binary carries its TLS library for life. */
static int print_version(int argc, char **argv)
{
	struct strvec libs = STRVEC_INIT, sources = STRVEC_INIT;
	int verbose = 0;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else
			return cmd_usage_error(NULL, "--version takes only --verbose, not '%s'", argv[i]);
	}
	printf("%s\n", PACKAGE_STRING);
	if (!verbose)
		return 0;
	libinfo_versions(&libs);
	libinfo_embedded_sources(&sources);
	printf("libraries (as linked%s):\n", sources.n ? " into this static binary" : " at run time");
	for (size_t i = 0; i < libs.n; i++)
		printf("  %s\n", libs.v[i]);
	if (sources.n) {
		printf("built from Debian source packages:\n");
		for (size_t i = 0; i < sources.n; i++)
			printf("  %s\n", sources.v[i]);
	}
	strvec_free(&libs);
	strvec_free(&sources);
	return 0;
}

static void print_help(FILE *f)
{
	fputs("Usage: cuda-xcc [--sysroot DIR] [--cuda V] --target T [-arch LIST] [NVCC ARGS...]\n"
	      "       cuda-xcc COMMAND [ARGS...]\n"
	      "\n"
	      "Cross-compile CUDA code for Arm (Jetson boards, Arm servers) from x86_64.\n"
	      "Without a command, cuda-xcc runs nvcc from the sysroot with the target's cross\n"
	      "compiler and validated -gencode flags; every argument it does not own goes to\n"
	      "nvcc unchanged. -### or --dry-run print the command instead of running it.\n"
	      "\n"
	      "Commands:\n", f);
	for (const struct verb *v = verbs; v->name; v++)
		fprintf(f, "  %-10s %s\n", v->name, v->summary);
	fputs("\n"
	      "Driver options:\n"
	      "  --target T       jetson, sbsa or x86_64\n"
	      "  --cuda V         CUDA version (taken from the sysroot when there is one)\n"
	      "  --sysroot DIR    sysroot made by 'cuda-xcc sysroot create'\n"
	      "                   (default: $CUDA_XCC_SYSROOT, then the store)\n"
	      "  -arch LIST       capabilities: sm_87, 8.7, 87, sm_90a, all, all-major, default\n"
	      "  --ptx P          none, highest or all (default: none for jetson, else highest)\n"
	      "  --target-fs DIR  link against the device's root filesystem; warn about glibc\n"
	      "  --sysroot-fingerprint FP  refuse a sysroot whose fingerprint (of its inputs,\n"
	      "                   not its tree) is not FP, or whose sysroot.json was edited\n"
	      "                   (the Meson cross file's: compiler caches hash it)\n"
	      "  --dry-run, -###  print the nvcc command, run nothing\n"
	      "\n"
	      "\n"
	      "--version [--verbose] prints the version [and the libraries inside].\n"
	      "Exit status: 0 success, 1 failure, 2 usage or validation error;\n"
	      "in driver mode, nvcc's own status.\n"
	      "Run 'cuda-xcc COMMAND --help' for a command's options.\n", f);
}

static const struct verb *find_verb(const struct verb *table, const char *name)
{
	for (const struct verb *v = table; v->name; v++)
		if (strcmp(name, v->name) == 0)
			return v;
	return NULL;
}

int main(int argc, char **argv)
{
	struct cmd_ctx ctx = { 0 };
	const char *self = argc > 0 ? file_base_name(argv[0]) : "cuda-xcc";
	static const struct verb driver = { "", cmd_driver, NULL };
	const struct verb *v;
	int rc;

	if ((v = find_verb(aliases, self)))
		return v->fn(argc, argv, &ctx);

	if (argc < 2) {
		print_help(stderr);
		return XCC_EUSAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return print_version(argc, argv);
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			print_help(stdout);
			return 0;
		}
		if ((v = find_verb(verbs, argv[2]))) {
			char *help_argv[] = { argv[2], "--help", NULL };

			return v->fn(2, help_argv, &ctx);
		}
		return cmd_usage_error(NULL, "no command '%s'", argv[2]);
	}
	if (!(v = find_verb(verbs, argv[1])))
		v = &driver;
	rc = v->fn(argc - 1, argv + 1, &ctx);
	cmd_ctx_free(&ctx);
	return rc;
}
