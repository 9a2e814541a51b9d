#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "driver.h"
#include "elfinfo.h"
#include "glibc.h"
#include "xalloc.h"

/* After a --target-fs link: will the program start on the device? A
 * failed check only warns; the build itself succeeded. */
static void warn_glibc(const struct driver_plan *plan)
{
	struct xcc_error err = { 0 };
	struct glibc_report r;

	if (glibc_check(plan->linked_output, plan->target_libc, &r, &err)) {
		fprintf(stderr, "cuda-xcc: warning: cannot check %s against the device's glibc: %s\n",
			plan->linked_output, err.msg);
		return;
	}
	if (r.missing.n) {
		char *list = strvec_join(&r.missing, " ");

		fprintf(stderr,
			"cuda-xcc: warning: %s needs %s, but the --target-fs C library %s provides only "
			"up to %s (missing: %s): it will not start on that device.\n"
			"cuda-xcc: warning: the newer versions come from the cross toolchain's own glibc "
			"(start files, libraries or headers the --target-fs lacks, e.g. its libc6-dev) "
			"or from functions newer than the device's glibc.\n",
			plan->linked_output, r.needed_max, plan->target_libc, r.provided_max, list);
		free(list);
	}
	glibc_report_free(&r);
}

/* The program and the libraries it needs that the sysroot provides (they
 * go to the device with it): the files whose version needs count. */
static void program_files(const struct driver_plan *plan, struct strvec *files)
{
	struct xcc_error err = { 0 };
	struct elfinfo info;

	strvec_push(files, plan->linked_output);
	if (!plan->sysroot || elfinfo_read(plan->linked_output, &info, &err))
		return;
	for (size_t i = 0; i < info.needed.n; i++) {
		char *lib = xasprintf("%s/targets/%s/lib/%s", plan->sysroot, plan->arch.target_dir,
				      info.needed.v[i]);

		if (access(lib, R_OK) == 0)
			strvec_push(files, lib);
		free(lib);
	}
	elfinfo_free(&info);
}

/* "3.4.28" of libstdc++'s newest GLIBCXX_3.4.28, or NULL. */
static char *newest_number(const char *lib, const char *prefix)
{
	struct xcc_error err = { 0 };
	char *name = lib ? glibc_version_defs_max(lib, prefix, &err) : NULL, *num;

	if (!name)
		return NULL;
	num = xstrdup(name + strlen(prefix));
	free(name);
	return num;
}

/*
 * After a --target-fs link: the C++ runtime's floor is that root's own
 * libstdc++ and libgcc_s, whatever the JetPack tables say. Debian's cross
 * g++ links its own (newer) libstdc++ when the root has no development
 * link, so a program may need a GLIBCXX_, CXXABI_ or GCC_ version the
 * device does not define. Returns 1 when a need is above it.
 */
static int check_target_fs_cxx(const struct driver_plan *plan, int strict)
{
	char *glibcxx = newest_number(plan->target_libstdcxx, "GLIBCXX_");
	char *cxxabi = newest_number(plan->target_libstdcxx, "CXXABI_");
	char *gcc_s = newest_number(plan->target_libgcc_s, "GCC_");
	struct runtime_floor floor = { NULL, glibcxx, cxxabi, gcc_s };
	struct strvec files = STRVEC_INIT, above = STRVEC_INIT;
	const char *what = strict ? "error" : "warning";
	int found = 0;

	if (glibcxx || cxxabi || gcc_s)
		program_files(plan, &files);
	for (size_t i = 0; i < files.n && !found; i++) {
		struct xcc_error err = { 0 };

		if (runtime_floor_check(files.v[i], &floor, &above, &err)) {
			fprintf(stderr, "cuda-xcc: warning: cannot read the version needs of %s: %s\n",
				files.v[i], err.msg);
			continue;
		}
		for (size_t k = 0; k < above.n; k++) {
			int is_gcc = strncmp(above.v[k], "GCC_", 4) == 0;
			int is_abi = strncmp(above.v[k], "CXXABI_", 7) == 0;

			fprintf(stderr, "cuda-xcc: %s: %s needs %s, newer than the --target-fs %s "
				"defines (up to %s%s): it will not start on that device\n", what,
				files.v[i], above.v[k],
				is_gcc ? plan->target_libgcc_s : plan->target_libstdcxx,
				is_gcc ? "GCC_" : is_abi ? "CXXABI_" : "GLIBCXX_",
				is_gcc ? gcc_s : is_abi ? cxxabi : glibcxx);
		}
		if (above.n) {
			fprintf(stderr, "cuda-xcc: %s: the cross g++ linked its own, newer C++ "
				"runtime; link it into the program (-Xcompiler -static-libstdc++ "
				"-Xcompiler -static-libgcc) or use a cross g++ no newer than the "
				"device's\n", what);
			found = 1;
		}
	}
	strvec_free(&above);
	strvec_free(&files);
	free(glibcxx);
	free(cxxabi);
	free(gcc_s);
	return found;
}

/*
 * After any link for a Jetson: will the program start on the JetPack it is
 * for (--jetpack, the sysroot's, else the oldest one that runs these GPUs
 * with this CUDA)? The program's version needs, and those of the libraries
 * it takes from the sysroot, are compared with that JetPack's glibc,
 * libstdc++ and libgcc_s. Returns 1 when a need is above the floor.
 */
static int check_floor(const struct driver_plan *plan, const struct jetpack_release *jp,
		       int strict)
{
	struct runtime_floor floor = { jp->glibc, jp->glibcxx, jp->cxxabi, jp->gcc_s };
	struct strvec files = STRVEC_INIT, above = STRVEC_INIT;
	struct xcc_error err = { 0 };
	const char *what = strict ? "error" : "warning";

	program_files(plan, &files);
	for (size_t i = 0; i < files.n; i++) {
		xcc_error_clear(&err);
		if (runtime_floor_check(files.v[i], &floor, &above, &err)) {
			fprintf(stderr, "cuda-xcc: warning: cannot read the version needs of %s: %s\n",
				files.v[i], err.msg);
			continue;
		}
		for (size_t k = 0; k < above.n; k++)
			fprintf(stderr, "cuda-xcc: %s: %s needs %s, newer than JetPack %s (Ubuntu %s: "
				"glibc %s, GLIBCXX_%s, CXXABI_%s, GCC_%s) provides: it will not start "
				"there\n", what, files.v[i], above.v[k], jp->version, jp->ubuntu,
				jp->glibc, jp->glibcxx, jp->cxxabi, jp->gcc_s);
		if (above.n)
			fprintf(stderr, "cuda-xcc: %s: build against a root filesystem with that "
				"runtime (--target-fs ROOTFS: the board's own, or a distribution "
				"root with the same glibc, e.g. Debian bullseye's arm64 packages for "
				"glibc 2.31); for GLIBCXX_/CXXABI_/GCC_ needs also -Xcompiler "
				"-static-libstdc++ -Xcompiler -static-libgcc, or an older g++\n", what);
		if (above.n) {
			strvec_free(&above);
			strvec_free(&files);
			return 1;
		}
	}
	strvec_free(&files);
	return 0;
}

int cmd_driver(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct xcc_error err = { 0 };
	struct driver_opts opts;
	struct driver_plan plan;
	const struct gpudb *db;
	const struct jetpack_db *jdb;
	const struct jetpack_release *jp = NULL, *floor;
	int rc;

	if (driver_parse_args(argc, argv, &opts, &err)) {
		driver_opts_free(&opts);
		return cmd_report(&err);
	}
	if (!(db = cmd_gpudb(ctx, &err)) || driver_plan(db, &opts, &plan, &err)) {
		driver_opts_free(&opts);
		return cmd_report(&err);
	}
	if (!(jdb = cmd_jetpacks(ctx, &err)) ||
	    (plan.jetpack && !(jp = cmd_jetpack(ctx, plan.jetpack, &err))) ||
	    jetpack_check(jdb, jp, &plan.arch, &err)) {
		driver_plan_free(&plan);
		driver_opts_free(&opts);
		return cmd_report(&err);
	}
	floor = jetpack_floor_for(jdb, jp, &plan.arch);
	for (size_t i = 0; i < plan.arch.warnings.n; i++)
		fprintf(stderr, "cuda-xcc: warning: %s\n", plan.arch.warnings.v[i]);
	for (size_t i = 0; i < plan.warnings.n; i++)
		fprintf(stderr, "cuda-xcc: warning: %s\n", plan.warnings.v[i]);
	for (size_t i = 0; i < plan.arch.extra_components.n; i++)
		fprintf(stderr, "cuda-xcc: note: these GPUs need the %s component in the sysroot\n",
			plan.arch.extra_components.v[i]);
	if (opts.dry_run) {
		char *line = strvec_join_quoted(&plan.argv);

		puts(line);
		free(line);
		if (!plan.sysroot_exists && plan.sysroot)
			fprintf(stderr, "cuda-xcc: note: %s does not exist yet; create it with "
				"'%s'\n", plan.sysroot, plan.create_command);
		rc = 0;
	} else if (plan.linked_output) {
		rc = driver_run_child(&plan, &err);
		if (rc < 0)
			rc = cmd_report(&err);
		else if (rc == 0 && plan.target_libc)
			warn_glibc(&plan);
		if (rc == 0 && plan.target_libc && check_target_fs_cxx(&plan, opts.strict) &&
		    opts.strict)
			rc = XCC_EFAIL;
		if (rc == 0 && floor && check_floor(&plan, floor, opts.strict) && opts.strict)
			rc = XCC_EFAIL;
	} else {
		fflush(stdout);
		execv(plan.argv.v[0], plan.argv.v);
		fprintf(stderr, "cuda-xcc: cannot run %s: %s\n", plan.argv.v[0], strerror(errno));
		rc = XCC_EFAIL;
	}
	driver_plan_free(&plan);
	driver_opts_free(&opts);
	return rc;
}
