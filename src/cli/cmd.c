/* What every cmd_* shares: the lazily loaded capability database and the
 * one way errors reach the user. Kept apart from main.c so that each verb
 * links (and can be unit-tested) without the dispatcher. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/request.h"
#include "cli/cmd.h"

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
		const struct gpudb *gdb = cmd_gpudb(ctx, err);

		if (!gdb || jetpack_db_load(&ctx->jetpacks, gdb, err))
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

	if (!db || request_jetpack(db, version, &r, err))
		return NULL;
	return r;
}

void cmd_ctx_free(struct cmd_ctx *ctx)
{
	if (ctx->db_loaded)
		gpudb_free(&ctx->db);
	if (ctx->jetpacks_loaded)
		jetpack_db_free(&ctx->jetpacks);
	ctx->db_loaded = ctx->jetpacks_loaded = 0;
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

void cmd_getopt_begin(void)
{
	optind = 0; /* 0, not 1: GNU getopt also forgets a half-read "-abc" */
	opterr = 0;
}

int cmd_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const char *verb)
{
	char spec[64];
	int c;

	/* ':' first (after a leading '-' or '+'): a missing value is told
	 * apart from an unknown option. */
	if (*shortopts == '-' || *shortopts == '+')
		snprintf(spec, sizeof spec, "%c:%s", *shortopts, shortopts + 1);
	else
		snprintf(spec, sizeof spec, ":%s", shortopts);
	c = getopt_long_only(argc, argv, spec, longopts, NULL);
	if (c == ':')
		return cmd_usage_error(verb, "%s needs a value", argv[optind - 1]), '?';
	if (c == '?')
		return cmd_usage_error(verb, "unknown option '%s'", argv[optind - 1]), '?';
	return c;
}

int cmd_parse_page_size(const char *verb, const char *value, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(value, &end, 0);
	if (errno || end == value || *end || !*out || (*out & (*out - 1)))
		return cmd_usage_error(verb, "--page-size '%s' is not a power of two", value);
	return 0;
}

void cmd_note_board_needs(const struct board_needs *b, const struct strvec *have,
			  const char *target_dir)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct board_need *n = &b->v[i];
		const char *sub = n->subdir;

		if (!have && n->planned) {
			fprintf(stderr, "cuda-xcc: note: %s; 'cuda-xcc sysroot create' puts it in "
				"the sysroot (targets/%s/%s/), for run --device and the Yocto/Buildroot "
				"runtime packages to ship it to the board\n", n->why, target_dir, sub);
			continue;
		}
		if (!have) {
			fprintf(stderr, "cuda-xcc: note: %s; 'cuda-xcc sysroot create ... "
				"--components %s' puts it in the sysroot (targets/%s/%s/), for run "
				"--device and the Yocto/Buildroot runtime packages to ship it to the "
				"board\n", n->why, n->component, target_dir, sub);
			continue;
		}
		if (strvec_contains(have, n->component))
			continue;
		fprintf(stderr, "cuda-xcc: note: %s; this sysroot lacks the %s component, so run "
			"--device and the runtime packages cannot ship it: install %s on the board, "
			"or make the sysroot again with --components %s\n", n->why, n->component,
			n->package ? n->package : "it", n->component);
	}
}
