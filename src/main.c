#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

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
	{ "debug", cmd_debug, NULL }, /* internal: fetch/unpack for tests, not in --help */
	{ "autopatch", cmd_autopatch, "resolve libraries per architecture, write $ORIGIN run paths" },
	{ "toolchain", cmd_toolchain, "a CMake toolchain or Meson cross file bound to a sysroot" },
	{ "run", cmd_run, "run a cross-built program under qemu or on a device over ssh" },
	{ "doctor", cmd_doctor, "check the cross toolchain, qemu, sysroot and device floor" },
	{ NULL, NULL, NULL },
};

/* Invoked under another name, cuda-xcc becomes that tool. */
static const struct verb aliases[] = {
	{ "cuda-xcc-patchelf", cmd_patchelf, NULL },
	{ NULL, NULL, NULL },
};

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
		if (v->summary)
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
	      "  --dry-run, -###  print the nvcc command, run nothing\n"
	      "\n"
	      "Exit status: 0 success, 1 failure, 2 usage or validation error;\n"
	      "in driver mode, nvcc's own status.\n"
	      "Run 'cuda-xcc COMMAND --help' for a command's options.\n", f);
}

const struct gpudb *cmd_gpudb(struct cmd_ctx *ctx, struct xcc_error *err)
{
	if (!ctx->db_loaded) {
		if (gpudb_load(&ctx->db, err))
			return NULL;
		ctx->db_loaded = 1;
	}
	return &ctx->db;
}

const struct jetpack_db *cmd_jetpacks(struct cmd_ctx *ctx, struct xcc_error *err)
{
	if (!ctx->jetpacks_loaded) {
		if (jetpack_db_load(&ctx->jetpacks, err))
			return NULL;
		ctx->jetpacks_loaded = 1;
	}
	return &ctx->jetpacks;
}

const struct jetpack_release *cmd_jetpack(struct cmd_ctx *ctx, const char *version,
					  struct xcc_error *err)
{
	const struct jetpack_db *db = cmd_jetpacks(ctx, err);
	const struct jetpack_release *r;
	char *known;

	if (!db)
		return NULL;
	if ((r = jetpack_find(db, version)))
		return r;
	known = jetpack_versions(db);
	xcc_fail(err, XCC_EUSAGE, "--jetpack %s is not a JetPack release cuda-xcc knows; known: %s",
		 version, known);
	free(known);
	return NULL;
}

int cmd_report(const struct xcc_error *err)
{
	fprintf(stderr, "cuda-xcc: %s\n", err->msg);
	return err->status ? err->status : XCC_EFAIL;
}

int cmd_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fputs("cuda-xcc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'cuda-xcc %s%s--help'.\n", verb ? verb : "", verb ? " " : "");
	return XCC_EUSAGE;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
	struct cmd_ctx ctx = { .progname = "cuda-xcc" };
	const char *self = argc > 0 ? base_name(argv[0]) : "cuda-xcc";
	int rc;

	for (const struct verb *a = aliases; a->name; a++)
		if (strcmp(self, a->name) == 0)
			return a->fn(argc, argv, &ctx);

	if (argc < 2) {
		print_help(stderr);
		return XCC_EUSAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("%s\n", PACKAGE_STRING);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			print_help(stdout);
			return 0;
		}
		for (const struct verb *v = verbs; v->name; v++)
			if (strcmp(argv[2], v->name) == 0) {
				char *help_argv[] = { argv[2], "--help", NULL };

				return v->fn(2, help_argv, &ctx);
			}
		return cmd_usage_error(NULL, "no command '%s'", argv[2]);
	}
	for (const struct verb *v = verbs; v->name; v++)
		if (strcmp(argv[1], v->name) == 0) {
			rc = v->fn(argc - 1, argv + 1, &ctx);
			goto out;
		}
	rc = cmd_driver(argc - 1, argv + 1, &ctx);
out:
	if (ctx.db_loaded)
		gpudb_free(&ctx.db);
	if (ctx.jetpacks_loaded)
		jetpack_db_free(&ctx.jetpacks);
	return rc;
}
