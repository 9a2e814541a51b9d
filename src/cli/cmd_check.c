#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "db/board.h"
#include "db/request.h"
#include "elf/glibc.h"
#include "use/readiness.h"
#include "cli/cmd.h"

static const char check_usage[] =
	"Usage: cuda-xcc check (--jetpack J | --gpu LIST) [--target-fs ROOTFS] [--sysroot DIR]\n"
	"                      [--cuda V] [--with-compat] [--json] [--verbose] INPUT...\n"
	"\n"
	"Will it run on that board? For programs and libraries cuda-xcc did not build.\n"
	"INPUT is an ELF file, a directory (walked; a device root too), a .deb or a\n"
	"wheel (.whl), read in place, never unpacked. For each program and shared\n"
	"library in them:\n"
	"  - each GPU asked for: served by SASS (sass), by PTX the board's driver can\n"
	"    JIT (ptx; ptx-compat: only with cuda-compat; ptx-too-new), or not served;\n"
	"    Jetson SASS serves only exactly its own GPU;\n"
	"  - its GLIBC_, GLIBCXX_, CXXABI_ and GCC_ needs against the board's floors\n"
	"    (the --target-fs root's libraries, else the JetPack's);\n"
	"  - each DT_NEEDED: in the inputs, the root, the sysroot, the C library, the\n"
	"    driver, the JetPack's own libraries or cuda-compat, else missing;\n"
	"  - the CUDA it was built with against what the board's driver runs.\n"
	"\n"
	"  --jetpack J     the board's JetPack (5.1, 6.2, 7.0, ...); its boards are the\n"
	"                  GPUs unless --gpu names some\n"
	"  --gpu LIST      the GPUs (8.7, sm_90, 110, ...)\n"
	"  --target-fs ROOTFS\n"
	"                  the board's root filesystem: its libraries and floors\n"
	"  --sysroot DIR   libraries of this sysroot's targets/*/lib resolve DT_NEEDED\n"
	"                  (they go to the board with the program)\n"
	"  --cuda V        the CUDA the files were built with, where they do not say\n"
	"  --with-compat   the board has NVIDIA's cuda-compat package: what needs it\n"
	"                  counts as served\n"
	"  --json          the report as JSON (doc/check.md)\n"
	"  --verbose       where each DT_NEEDED was found\n"
	"\n"
	"One line per file (OK, COMPAT: runs with cuda-compat, UNKNOWN: cuda-xcc\n"
	"cannot tell, FAIL: will not run), each problem under it, and a total.\n"
	"Exit status: 0 when every file is OK (COMPAT too with --with-compat), 1 when\n"
	"one will not run or cannot be told, 2 on a usage error or an INPUT that does\n"
	"not exist or is no kind it checks.\n";

/* "8.7", "87", "sm_87": a GPU. */
static int parse_gpus(const struct gpudb *db, const struct strvec *specs,
		      const struct gpu_cap ***out, size_t *n, struct xcc_error *err)
{
	*out = xcalloc(specs->n ? specs->n : 1, sizeof **out);
	*n = 0;
	for (size_t i = 0; i < specs->n; i++) {
		struct gpu_cap_spelling how;
		const struct gpu_cap *c = gpudb_cap_named(db, specs->v[i], &how);

		if (!c || (how.prefix != GPU_CAP_BARE && how.prefix != GPU_CAP_SM))
			return xcc_fail(err, XCC_EUSAGE, "--gpu: '%s' is not a GPU capability "
					"cuda-xcc knows (e.g. 8.7, sm_90a, 110; see 'cuda-xcc gpus')",
					specs->v[i]);
		(*out)[(*n)++] = c;
	}
	return 0;
}

/* Without --gpu, the JetPack's boards; with it, each must be one. */
static int board_gpus(const struct gpudb *db, const struct jetpack_release *jp,
		      const struct gpu_cap ***gpus, size_t *n, struct xcc_error *err)
{
	const struct jetpack_release *line = jetpack_line(jp);

	if (*n) {
		for (size_t i = 0; i < *n; i++) {
			char name[16];

			if (!jetpack_supports_board(line, (*gpus)[i]))
				return xcc_fail(err, XCC_EUSAGE, "--gpu %s is no board of JetPack %s: "
						"leave --gpu out for its boards, or name another "
						"--jetpack", gpu_cap_name((*gpus)[i], name, sizeof name),
						jp->version);
		}
		return 0;
	}
	*gpus = xrealloc(*gpus, (line->n_boards ? line->n_boards : 1) * sizeof **gpus);
	for (size_t i = 0; i < line->n_boards; i++) {
		const struct gpu_cap *c = gpudb_find_cap(db, line->boards[i].major,
							 line->boards[i].minor, '\0');

		if (c)
			(*gpus)[(*n)++] = c;
	}
	return 0;
}

static char *board_text(const struct ready_target *t)
{
	struct strvec parts = STRVEC_INIT;
	char *s, *gpus, v[16], top[16];
	struct strvec names = STRVEC_INIT;

	if (t->jp) {
		const struct jetpack_release *l = jetpack_line(t->jp);

		cuda_version_str(t->jp->cuda, v, sizeof v);
		cuda_version_str(jetpack_cuda_max(l), top, sizeof top);
		s = xasprintf("JetPack %s (Ubuntu %s, CUDA %s, up to %s through cuda-compat or "
			      "minor version compatibility)", t->jp->version, l->ubuntu, v, top);
		strvec_push(&parts, s);
		free(s);
	}
	for (size_t i = 0; i < t->n_gpus; i++)
		strvec_push(&names, gpu_cap_name(t->gpus[i], v, sizeof v));
	gpus = strvec_join(&names, " ");
	s = xasprintf("GPUs %s", gpus);
	strvec_push(&parts, s);
	free(s);
	if (t->target_fs) {
		s = xasprintf("root %s", t->target_fs);
		strvec_push(&parts, s);
		free(s);
	}
	s = strvec_join(&parts, ", ");
	free(gpus);
	strvec_free(&names);
	strvec_free(&parts);
	return s;
}

struct check_opts {
	const char *jetpack, *target_fs, *sysroot, *cuda;
	struct strvec gpus;
	int json, verbose, with_compat;
};

static int check_target(struct cmd_ctx *ctx, const struct check_opts *o, struct ready_target *t,
			struct xcc_error *err)
{
	char *libc = NULL;

	if (!(t->gdb = cmd_gpudb(ctx, err)))
		return -1;
	if (o->jetpack && !(t->jp = cmd_jetpack(ctx, o->jetpack, err)))
		return -1;
	if (!o->jetpack && !o->gpus.n)
		return xcc_fail(err, XCC_EUSAGE, "name the board: --jetpack J (5.1, 6.2, 7.0, ...) "
				"and/or --gpu LIST (8.7, 90, ...)");
	if (parse_gpus(t->gdb, &o->gpus, &t->gpus, &t->n_gpus, err) ||
	    (t->jp && board_gpus(t->gdb, t->jp, &t->gpus, &t->n_gpus, err)))
		return -1;
	if (o->cuda) {
		if (request_cuda(o->cuda, &t->cuda, err))
			return -1;
		t->has_cuda = 1;
	}
	t->triple = "aarch64-linux-gnu";
	if (o->target_fs) {
		if (request_rootfs(o->target_fs, err) ||
		    glibc_check_rootfs(o->target_fs, t->triple, &libc, err))
			return -1;
		free(libc);
		t->target_fs = o->target_fs;
	}
	if (o->sysroot && !file_is_dir(o->sysroot))
		return xcc_fail(err, XCC_EUSAGE, "--sysroot %s is not a directory: give a sysroot "
				"that 'cuda-xcc sysroot create' made", o->sysroot);
	t->sysroot = o->sysroot;
	t->with_compat = o->with_compat;
	return 0;
}

static int run_check(struct cmd_ctx *ctx, const struct check_opts *o, const struct strvec *inputs)
{
	struct xcc_error err = { 0 };
	struct ready_target t = { 0 };
	struct ready_report r = { 0 };
	struct board_db bdb = { 0 };
	int rc;
	char *out;

	if (check_target(ctx, o, &t, &err) || board_db_load(&bdb, &err)) {
		rc = cmd_report(&err);
		goto out;
	}
	t.bdb = &bdb;
	if (readiness_check(&t, inputs, &r, &err)) {
		rc = cmd_report(&err);
		goto out;
	}
	r.board = board_text(&t);
	out = o->json ? ready_report_json(&r) : ready_report_text(&r, o->verbose);
	fputs(out, stdout);
	if (o->json)
		putchar('\n');
	free(out);
	fflush(stdout);
	rc = ready_report_status(&r, o->with_compat);
	if (rc && !o->json)
		fprintf(stderr, "cuda-xcc: check: %zu of %zu files will not run or cannot be told "
			"to run on %s (the lines above say why)\n",
			r.count[READY_FAIL] + r.count[READY_UNKNOWN] +
				(o->with_compat ? 0 : r.count[READY_COMPAT]),
			r.n, r.board);
out:
	ready_report_free(&r);
	board_db_free(&bdb);
	free(t.gpus);
	fflush(stdout);
	return rc;
}

int cmd_check(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "jetpack", required_argument, NULL, 'J' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "target-fs", required_argument, NULL, 'R' },
		{ "sysroot", required_argument, NULL, 'S' },
		{ "cuda", required_argument, NULL, 'c' },
		{ "with-compat", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_opts o = { 0 };
	struct strvec inputs = STRVEC_INIT;
	int c, rc;

	o.gpus = (struct strvec)STRVEC_INIT;
	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "-h", opts, "check")) != -1) {
		switch (c) {
		case 1: strvec_push(&inputs, optarg); break;
		case 'J': o.jetpack = optarg; break;
		case 'g': strvec_split(&o.gpus, optarg); break;
		case 'R': o.target_fs = optarg; break;
		case 'S': o.sysroot = optarg; break;
		case 'c': o.cuda = optarg; break;
		case 'w': o.with_compat = 1; break;
		case 'j': o.json = 1; break;
		case 'v': o.verbose = 1; break;
		case 'h': fputs(check_usage, stdout); rc = 0; goto out;
		default: rc = XCC_EUSAGE; goto out;
		}
	}
	for (int i = optind; i < argc; i++)
		strvec_push(&inputs, argv[i]);
	if (!inputs.n) {
		rc = cmd_usage_error("check", "no INPUT given: name the files, directories, .deb "
				     "packages or wheels to check");
		goto out;
	}
	rc = run_check(ctx, &o, &inputs);
out:
	strvec_free(&inputs);
	strvec_free(&o.gpus);
	return rc;
}
