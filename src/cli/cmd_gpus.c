#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/flags.h"
#include "db/request.h"
#include "cli/cmd.h"

static const char gpus_usage[] =
	"Usage: cuda-xcc gpus [--cuda V] [--target T] [--jetpack J] [--json]\n"
	"\n"
	"List the GPU capabilities cuda-xcc knows, filtered to those CUDA V and\n"
	"target T accept.\n"
	"\n"
	"  --cuda V     only capabilities CUDA V supports; DEFAULT then says whether\n"
	"               the capability is in V's default set\n"
	"  --target T   only capabilities target T (jetson, sbsa, x86_64) can serve\n"
	"               (with --cuda: exactly those 'cuda-xcc flags' accepts)\n"
	"  --jetpack J  only the boards JetPack J supports (and, with --cuda, runs\n"
	"               that CUDA on)\n"
	"  --json       machine-readable output\n";

/* With a target and a CUDA version, a capability is listed only when
 * 'cuda-xcc flags' accepts it on its own: one set of rules for both. */
static int flags_accepts_alone(const struct gpudb *db, const struct target_profile *t,
			       struct cuda_version v, const struct gpu_cap *cap)
{
	struct strvec spec = STRVEC_INIT;
	struct arch_choice choice;
	struct xcc_error err = { 0 };
	char tok[16];
	int ok;

	strvec_pushf(&spec, "sm_%s", gpu_cap_token(cap, tok, sizeof tok));
	ok = flags_resolve(db, t, v, &spec, PTX_NONE, &choice, &err) == 0;
	if (ok)
		arch_choice_free(&choice);
	strvec_free(&spec);
	return ok;
}

static void range(const struct gpu_cap *c, char *buf, size_t len)
{
	char a[16], b[16];

	snprintf(buf, len, "%s-%s", cuda_version_str(c->min_cuda, a, sizeof a),
		 c->has_max ? cuda_version_str(c->max_cuda, b, sizeof b) : "");
}

static const char *default_text(const struct gpu_cap *c, const struct cuda_version *v,
				char *buf, size_t len)
{
	char b[16];

	if (v)
		return gpu_cap_default_for(c, *v) ? "yes" : "no";
	if (!gpu_cap_in_default_set(c))
		return "never";
	if (!c->has_default_until)
		return "yes";
	snprintf(buf, len, "until %s", cuda_version_str(c->default_until, b, sizeof b));
	return buf;
}

int cmd_gpus(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "cuda", required_argument, NULL, 'c' },
		{ "target", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "jetpack", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xcc_error err = { 0 };
	const struct gpudb *db;
	const struct target_profile *t = NULL;
	struct cuda_version v, *vp = NULL;
	const char *cuda = NULL, *target = NULL, *jetpack = NULL;
	const struct jetpack_release *jp = NULL;
	int json = 0, c;
	cJSON *arr = NULL;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "h", opts, "gpus")) != -1) {
		switch (c) {
		case 'c': cuda = optarg; break;
		case 't': target = optarg; break;
		case 'j': json = 1; break;
		case 'J': jetpack = optarg; break;
		case 'h': fputs(gpus_usage, stdout); return 0;
		default:
			return XCC_EUSAGE;
		}
	}
	if (optind < argc)
		return cmd_usage_error("gpus", "unexpected argument '%s'", argv[optind]);
	if (!(db = cmd_gpudb(ctx, &err)))
		return cmd_report(&err);
	if (jetpack && !(jp = cmd_jetpack(ctx, jetpack, &err)))
		return cmd_report(&err);
	if (cuda) {
		char *warning;

		if (request_cuda(cuda, &v, &err) || flags_check_cuda(db, v, &err))
			return cmd_report(&err);
		if ((warning = flags_cuda_warning(db, v)))
			fprintf(stderr, "cuda-xcc: warning: %s\n", warning);
		free(warning);
		vp = &v;
	}
	if (target && request_target(db, target, &t, &err))
		return cmd_report(&err);

	if (json)
		arr = cJSON_CreateArray();
	else
		printf("%-6s %-8s %-10s %-7s %-10s %-10s %s\n", "CAP", "SM", "ARCH", "JETSON",
		       "CUDA", "DEFAULT", "BOARDS");
	for (size_t i = 0; i < db->n_caps; i++) {
		const struct gpu_cap *cap = &db->caps[i];
		char name[16], tok[16], r[32], d[32], sm[24];

		if (vp && !gpu_cap_supported_by(cap, *vp))
			continue;
		if (t && !flags_target_accepts(db, t, cap, vp))
			continue;
		if (t && vp && !flags_accepts_alone(db, t, *vp, cap))
			continue;
		if (jp && !jetpack_supports_board(jp, cap))
			continue;
		if (jp && vp && cuda_version_cmp(*vp, jetpack_cuda_max(jp)) > 0)
			continue;
		gpu_cap_name(cap, name, sizeof name);
		gpu_cap_token(cap, tok, sizeof tok);
		snprintf(sm, sizeof sm, "sm_%s", tok);
		range(cap, r, sizeof r);
		if (json) {
			cJSON *o = cJSON_CreateObject();
			char b[16];

			cJSON_AddStringToObject(o, "capability", name);
			cJSON_AddStringToObject(o, "sm", sm);
			cJSON_AddStringToObject(o, "arch", cap->arch);
			cJSON_AddBoolToObject(o, "jetson", cap->jetson);
			cJSON_AddBoolToObject(o, "arch_specific", cap->variant == 'a');
			cJSON_AddBoolToObject(o, "family_specific", cap->variant == 'f');
			cJSON_AddStringToObject(o, "min_cuda", cuda_version_str(cap->min_cuda, b, sizeof b));
			if (cap->has_max)
				cJSON_AddStringToObject(o, "max_cuda", cuda_version_str(cap->max_cuda, b, sizeof b));
			else
				cJSON_AddNullToObject(o, "max_cuda");
			if (gpu_cap_in_default_set(cap) && cap->has_default_until)
				cJSON_AddStringToObject(o, "default_until",
							cuda_version_str(cap->default_until, b, sizeof b));
			else
				cJSON_AddNullToObject(o, "default_until");
			if (vp)
				cJSON_AddBoolToObject(o, "default", gpu_cap_default_for(cap, *vp));
			if (cap->boards)
				cJSON_AddStringToObject(o, "boards", cap->boards);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf("%-6s %-8s %-10s %-7s %-10s %-10s %s\n", name, sm, cap->arch,
			       cap->jetson ? "yes" : "no", r, default_text(cap, vp, d, sizeof d),
			       cap->boards ? cap->boards : "");
		}
	}
	if (json) {
		char *s = cJSON_Print(arr);

		puts(s);
		free(s);
		cJSON_Delete(arr);
	}
	return 0;
}
