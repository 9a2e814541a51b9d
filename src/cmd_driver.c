#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "driver.h"
#include "glibc.h"

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

int cmd_driver(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct xcc_error err = { 0 };
	struct driver_opts opts;
	struct driver_plan plan;
	const struct gpudb *db;
	int rc;

	if (driver_parse_args(argc, argv, &opts, &err)) {
		driver_opts_free(&opts);
		return cmd_report(&err);
	}
	if (!(db = cmd_gpudb(ctx, &err)) || driver_plan(db, &opts, &plan, &err)) {
		driver_opts_free(&opts);
		return cmd_report(&err);
	}
	for (size_t i = 0; i < plan.arch.extra_components.n; i++)
		fprintf(stderr, "cuda-xcc: note: these GPUs need the %s component in the sysroot\n",
			plan.arch.extra_components.v[i]);
	if (opts.dry_run) {
		char *line = strvec_join_quoted(&plan.argv);

		puts(line);
		free(line);
		if (!plan.sysroot_exists && plan.sysroot)
			fprintf(stderr, "cuda-xcc: note: %s does not exist yet; create it with "
				"'cuda-xcc sysroot create --target %s --cuda %s'\n",
				plan.sysroot, plan.arch.target->name, opts.cuda);
		rc = 0;
	} else if (plan.linked_output) {
		rc = driver_run_child(&plan, &err);
		if (rc < 0)
			rc = cmd_report(&err);
		else if (rc == 0)
			warn_glibc(&plan);
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
