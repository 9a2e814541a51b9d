#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "elf/elfinfo.h"
#include "elf/glibc.h"
#include "use/driver.h"
#include "use/foreign_cuda.h"
#include "sysroot/sysroot_hostcc.h"
#include "cli/cmd.h"

/* A failed link against a --target-fs root: say so when the host compiler
 * is newer than the root, the cause the linker's undefined references hide. */
static void explain_failed_link(const struct gpudb *db, const struct driver_plan *plan)
{
	const char *cc = plan->host_compiler;
	char *hint;

	if (!cc || !plan->target_libc || !plan->arch.target)
		return;
	hint = sysroot_hostcc_link_hint(db, cc, plan->target_libc, plan->target_libstdcxx,
					plan->arch.target->triple);
	if (hint)
		fprintf(stderr, "cuda-xcc: the link may have failed because the %s\n", hint);
	free(hint);
}

/* -arch=compute_XX means more here than in nvcc: said as it is rewritten. */
static void print_compute_notes(const struct gpudb *db, const struct strvec *arch)
{
	struct strvec notes = STRVEC_INIT;

	flags_compute_notes(db, arch, &notes);
	for (size_t i = 0; i < notes.n; i++)
		fprintf(stderr, "cuda-xcc: note: %s\n", notes.v[i]);
	strvec_free(&notes);
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
	/* nvcc and the gcc under it read LIBRARY_PATH and CPATH: another CUDA's
	 * stubs or headers there would mix into the build (its x86_64 headers
	 * where the sysroot lacks one). nvcc reads no CUDA_HOME nor CUDA_PATH,
	 * and is run by its full path, so PATH needs nothing. */
	foreign_cuda_clean_env(plan.sysroot);
	for (size_t i = 0; i < plan.arch.warnings.n; i++)
		fprintf(stderr, "cuda-xcc: warning: %s\n", plan.arch.warnings.v[i]);
	print_compute_notes(db, &opts.arch);
	for (size_t i = 0; i < plan.warnings.n; i++)
		fprintf(stderr, "cuda-xcc: warning: %s\n", plan.warnings.v[i]);
	/* What the board needs beyond the program, only while the sysroot
	 * lacks it: a note on every compile that the sysroot already answers
	 * would be noise. A missing sysroot's create command brings the GPUs'
	 * own components. */
	if (plan.sysroot_exists) {
		struct board_needs needs;

		jetpack_board_needs(jdb, jp, &plan.arch, &needs);
		cmd_note_board_needs(&needs, &plan.components, plan.arch.target_dir);
		board_needs_free(&needs);
	}
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
		else if (rc > 0)
			explain_failed_link(db, &plan);
		if (rc == 0) {
			struct linked_program lp = {
				plan.linked_output, plan.sysroot, plan.arch.target_dir,
				plan.target_libc, plan.target_libstdcxx, plan.target_libgcc_s,
				plan.arch.target ? plan.arch.target->triple : NULL,
			};

			rc = cmd_check_linked(&lp, floor, opts.strict);
			if (rc)
				cmd_remove_failed_output(plan.linked_output);
		}
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
