#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/flags.h"
#include "db/request.h"
#include "cli/cmd.h"

static const char flags_usage[] =
	"Usage: cuda-xcc flags --target T --cuda V [-arch LIST]... [--ptx none|highest|all]\n"
	"                      [--format nvcc|cmake|json] [--print-tag]\n"
	"\n"
	"Validate GPU capabilities for a target and CUDA version and print them as\n"
	"nvcc -gencode flags (one line), a CMake CUDA_ARCHITECTURES value, or JSON.\n"
	"\n"
	"  --target T    jetson, sbsa or x86_64\n"
	"  --cuda V      CUDA version, e.g. 12.6 or 12.6.3\n"
	"  -arch LIST    comma-separated, repeatable: sm_87, 87, 8.7, compute_87 (adds PTX),\n"
	"                sm_90a, 100f, all, all-major, default (default: default);\n"
	"                --gpu-architecture LIST is the same, as nvcc spells it\n"
	"                compute_87 is SASS and PTX for 8.7 here, where nvcc's own\n"
	"                -arch=compute_87 alone is PTX only\n"
	"  --ptx P       PTX to embed: none, highest (the highest capability without an\n"
	"                a/f suffix) or all; default: by GPU, none for Jetson GPUs and\n"
	"                the highest of the others\n"
	"  --format F    nvcc (default), cmake or json\n"
	"  --print-tag   print only the redist tag that serves these GPUs\n"
	"  --jetpack J   the board's JetPack release, a line (4.6, 5.0, 5.1, 6.0, ...) or\n"
	"                a point release of one (5.0.2, 5.1.2, 6.2.1, ...):\n"
	"                its boards and CUDA versions are checked too\n";

/* "board_needs": what the board needs installed beyond the program. */
static void json_board_needs(cJSON *o, const struct board_needs *b)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "board_needs");

	for (size_t i = 0; i < b->n; i++) {
		cJSON *e = board_need_to_json(&b->v[i]);

		cJSON_AddItemToArray(arr, e);
	}
}

static void print_json(const struct arch_choice *c, const struct board_needs *needs)
{
	cJSON *o = cJSON_CreateObject(), *caps, *gencode;
	struct strvec flags = STRVEC_INIT;
	char name[16], b[16], *cmake = arch_choice_cmake(c), *s;

	cJSON_AddStringToObject(o, "target", c->target->name);
	cJSON_AddStringToObject(o, "cuda", cuda_version_str(c->cuda, b, sizeof b));
	cJSON_AddStringToObject(o, "tag", c->tag);
	cJSON_AddStringToObject(o, "target_dir", c->target_dir);
	cJSON_AddStringToObject(o, "triple", c->target->triple);
	caps = cJSON_AddArrayToObject(o, "capabilities");
	for (size_t i = 0; i < c->n; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "capability", gpu_cap_name(c->entries[i].cap, name, sizeof name));
		cJSON_AddBoolToObject(e, "sass", c->entries[i].sass);
		cJSON_AddBoolToObject(e, "ptx", c->entries[i].ptx);
		cJSON_AddBoolToObject(e, "lto", c->entries[i].lto);
		cJSON_AddItemToArray(caps, e);
	}
	arch_choice_gencode(c, &flags);
	gencode = cJSON_AddArrayToObject(o, "gencode");
	for (size_t i = 0; i < flags.n; i++)
		cJSON_AddItemToArray(gencode, cJSON_CreateString(flags.v[i]));
	cJSON_AddStringToObject(o, "cmake", cmake);
	/* The components sysroot create adds for these boards (board_needs'
	 * planned ones). */
	gencode = cJSON_AddArrayToObject(o, "extra_components");
	for (size_t i = 0; i < needs->n; i++)
		if (needs->v[i].planned)
			cJSON_AddItemToArray(gencode, cJSON_CreateString(needs->v[i].component));
	json_board_needs(o, needs);
	s = cJSON_Print(o);
	puts(s);
	free(s);
	free(cmake);
	strvec_free(&flags);
	cJSON_Delete(o);
}

struct flags_args {
	const char *target, *cuda, *format, *jetpack;
	struct strvec arch;
	enum ptx_policy ptx;
	int print_tag;
};

/* Reads the verb's options: 0 to go on, 1 when --help was printed, or the
 * usage status. */
static int parse_flags_args(int argc, char **argv, struct flags_args *a)
{
	static const struct option opts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "cuda", required_argument, NULL, 'c' },
		{ "arch", required_argument, NULL, 'a' },
		{ "gpu-architecture", required_argument, NULL, 'a' },
		{ "ptx", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "print-tag", no_argument, NULL, 'T' },
		{ "jetpack", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "h", opts, "flags")) != -1) {
		switch (c) {
		case 't': a->target = optarg; break;
		case 'c': a->cuda = optarg; break;
		case 'a': strvec_push(&a->arch, optarg); break;
		case 'p':
			if (ptx_policy_parse(optarg, &a->ptx))
				return cmd_usage_error("flags", "--ptx takes none, highest or all, "
						       "not '%s'", optarg);
			break;
		case 'f': a->format = optarg; break;
		case 'T': a->print_tag = 1; break;
		case 'J': a->jetpack = optarg; break;
		case 'h': fputs(flags_usage, stdout); return 1;
		default: return XCC_EUSAGE;
		}
	}
	if (optind < argc)
		return cmd_usage_error("flags", "unexpected argument '%s'", argv[optind]);
	if (strcmp(a->format, "nvcc") && strcmp(a->format, "cmake") && strcmp(a->format, "json"))
		return cmd_usage_error("flags", "--format takes nvcc, cmake or json, not '%s'",
				       a->format);
	if (!a->target || !a->cuda)
		return cmd_usage_error("flags", "--target and --cuda are required");
	return 0;
}

static void print_choice(const struct flags_args *a, const struct arch_choice *choice,
			 const struct board_needs *needs)
{
	char *s;

	if (a->print_tag) {
		puts(choice->tag);
		return;
	}
	if (strcmp(a->format, "json") == 0) {
		print_json(choice, needs);
	} else if (strcmp(a->format, "cmake") == 0) {
		s = arch_choice_cmake(choice);
		puts(s);
		free(s);
	} else {
		struct strvec out = STRVEC_INIT;

		arch_choice_gencode(choice, &out);
		s = strvec_join(&out, " ");
		puts(s);
		free(s);
		strvec_free(&out);
	}
	cmd_note_board_needs(needs, NULL, choice->target_dir);
}

int cmd_flags(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct flags_args a = { .format = "nvcc", .arch = STRVEC_INIT, .ptx = PTX_DEFAULT };
	struct xcc_error err = { 0 };
	struct arch_choice choice = { 0 };
	struct board_needs needs;
	const struct gpudb *db;
	const struct target_profile *t;
	const struct jetpack_release *jp = NULL;
	const struct jetpack_db *jdb;
	struct cuda_version v;
	int rc = parse_flags_args(argc, argv, &a);

	if (rc) {
		rc = rc == 1 ? 0 : rc;
		goto out;
	}
	if (!(db = cmd_gpudb(ctx, &err)) || request_target(db, a.target, &t, &err) ||
	    request_cuda(a.cuda, &v, &err) || !(jdb = cmd_jetpacks(ctx, &err)) ||
	    (a.jetpack && !(jp = cmd_jetpack(ctx, a.jetpack, &err))) ||
	    flags_resolve(db, t, v, &a.arch, a.ptx, &choice, &err) ||
	    jetpack_check(jdb, jp, &choice, &err)) {
		rc = cmd_report(&err);
		goto out;
	}
	for (size_t i = 0; i < choice.warnings.n; i++)
		fprintf(stderr, "cuda-xcc: warning: %s\n", choice.warnings.v[i]);
	jetpack_board_needs(jdb, jp, &choice, &needs);
	print_choice(&a, &choice, &needs);
	board_needs_free(&needs);
out:
	arch_choice_free(&choice);
	strvec_free(&a.arch);
	return rc;
}
