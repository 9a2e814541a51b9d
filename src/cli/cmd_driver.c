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

/* What the plan says before nvcc runs: the GPUs' warnings, the compute_XX
 * notes, and what the board needs beyond the program. */
static void print_plan_notes(const struct gpudb *db, const struct jetpack_db *jdb,
			     const struct jetpack_release *jp, const struct driver_opts *opts,
			     const struct driver_plan *plan)
{
	for (size_t i = 0; i < plan->arch.warnings.n; i++)
		fprintf(stderr, "cuda-xcc: warning: %s\n", plan->arch.warnings.v[i]);
	print_compute_notes(db, &opts->arch);
	for (size_t i = 0; i < plan->warnings.n; i++)
		fprintf(stderr, "cuda-xcc: warning: %s\n", plan->warnings.v[i]);
	/* Only while the sysroot lacks it: a note on every compile that the
	 * sysroot already answers would be noise. A missing sysroot's create
	 * command brings the GPUs' own components. */
	if (plan->sysroot_exists) {
		struct board_needs needs;

		jetpack_board_needs(jdb, jp, &plan->arch, &needs);
		cmd_note_board_needs(&needs, &plan->components, plan->arch.target_dir);
		board_needs_free(&needs);
	}
}

static int print_dry_run(const struct driver_plan *plan)
{
	char *line = strvec_join_quoted(&plan->argv);

	puts(line);
	free(line);
	if (!plan->sysroot_exists && plan->sysroot)
		fprintf(stderr, "cuda-xcc: note: %s does not exist yet; create it with '%s'\n",
			plan->sysroot, plan->create_command);
	return 0;
}

/* nvcc links: run it as a child, then check what it wrote against the
 * board's floor, removing an output that fails the check. */
static int run_and_check_link(const struct gpudb *db, const struct driver_plan *plan,
			      const struct jetpack_release *floor, int strict)
{
	struct xcc_error err = { 0 };
	struct linked_program lp = {
		plan->linked_output, plan->sysroot, plan->arch.target_dir,
		plan->target_libc, plan->target_libstdcxx, plan->target_libgcc_s,
		plan->arch.target ? plan->arch.target->triple : NULL,
	};
	int rc = driver_run_child(plan, &err);

	if (rc < 0)
		return cmd_report(&err);
	if (rc > 0) {
		explain_failed_link(db, plan);
		return rc;
	}
	rc = cmd_check_linked(&lp, floor, strict);
	if (rc)
		cmd_remove_failed_output(plan->linked_output);
	return rc;
}

int cmd_driver(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct xcc_error err = { 0 };
	struct driver_opts opts;
	struct driver_plan plan = { 0 };
	const struct gpudb *db;
	const struct jetpack_db *jdb;
	const struct jetpack_release *jp = NULL;
	int rc;

	if (driver_parse_args(argc, argv, &opts, &err) || !(db = cmd_gpudb(ctx, &err)) ||
	    driver_plan(db, &opts, &plan, &err) || !(jdb = cmd_jetpacks(ctx, &err)) ||
	    (plan.jetpack && !(jp = cmd_jetpack(ctx, plan.jetpack, &err))) ||
	    jetpack_check(jdb, jp, &plan.arch, &err)) {
		rc = cmd_report(&err);
		goto out;
	}
	/* nvcc and the gcc under it read LIBRARY_PATH and CPATH: another CUDA's
	 * stubs or headers there would mix into the build (its x86_64 headers
	 * where the sysroot lacks one). nvcc reads no CUDA_HOME nor CUDA_PATH,
	 * and is run by its full path, so PATH needs nothing. */
	foreign_cuda_clean_env(plan.sysroot);
	print_plan_notes(db, jdb, jp, &opts, &plan);
	if (opts.dry_run) {
		rc = print_dry_run(&plan);
	} else if (plan.linked_output) {
		rc = run_and_check_link(db, &plan, jetpack_floor_for(jdb, jp, &plan.arch),
					opts.strict);
	} else {
		fflush(stdout);
		execv(plan.argv.v[0], plan.argv.v);
		fprintf(stderr, "cuda-xcc: cannot run %s: %s\n", plan.argv.v[0], strerror(errno));
		rc = XCC_EFAIL;
	}
out:
	driver_plan_free(&plan);
	driver_opts_free(&opts);
	return rc;
}
