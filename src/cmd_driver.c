#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "driver.h"

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
