#include <config.h>

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "base/xalloc.h"
#include "elf/fatbin.h"
#include "cli/cmd.h"

static const char fatbin_usage[] =
	"Usage: cuda-xcc fatbin [--summary] [--json] [--fatbin-sections-only] [--gpu LIST] FILE...\n"
	"\n"
	"List the device code in ELF executables, shared libraries, object files,\n"
	"static archives (every member) and bare fatbins, read from their fatbin\n"
	"containers without decompressing anything.\n"
	"\n"
	"  --summary     one line per file, the sets of SASS and PTX architectures:\n"
	"                  FILE: sass sm_75 sm_90a ptx sm_90\n"
	"                \"-\" stands for an empty set; \" lto-ir SM...\" follows when the\n"
	"                file carries LTO-IR. Sorted numerically, then \"\" < a < f.\n"
	"  --json        machine-readable output (with --summary: the sets only)\n"
	"  --fatbin-sections-only\n"
	"                read only the .nv_fatbin and __nv_relfatbin sections; by default\n"
	"                the other data sections are searched too, where libraries that\n"
	"                load their own kernels keep them (cuFFT: .ldata)\n"
	"  --gpu LIST    the serving check instead of the listing: for each file with\n"
	"                device code and each GPU of LIST (8.7, sm_90, 100, ...), one line\n"
	"                FILE: GPU VERDICT [SM], where VERDICT is OK (the SASS of SM runs\n"
	"                as is), PTX-JIT (only the PTX of SM, which the driver must\n"
	"                compile; L4T drivers may be too old for it) or NOT SERVED\n"
	"\n"
	"Without --summary each entry is one line: KIND (sass, ptx, lto-ir), ARCH (sm_90a:\n"
	"'a' arch-specific, 'f' family-specific), COMPRESSION (none, lz4, zstd), SIZE in\n"
	"the file, UNCOMPRESSED size, PTX ISA version, SECTION and, for archives, MEMBER.\n"
	"\n"
	"Exit status: 0 when every file was read (and with --gpu, every GPU served),\n"
	"1 when one is corrupt, unreadable or no ELF file, archive or fatbin, or a GPU\n"
	"is NOT SERVED, 2 on a usage error or a FILE that does not exist.\n";

static void print_table(const struct fatbin_file *f)
{
	int archive = f->n_objects > 0 && f->objects[0].member;

	printf("%s: %zu entries in %zu containers\n", f->path, f->n_entries, f->n_containers);
	if (!f->n_entries)
		return;
	printf("  %-6s %-8s %-11s %12s %12s %-5s %-*s%s\n", "KIND", "ARCH", "COMPRESSION", "SIZE",
	       "UNCOMPRESSED", "PTX", archive ? 14 : 0, "SECTION", archive ? " MEMBER" : "");
	for (size_t i = 0; i < f->n_entries; i++) {
		const struct fatbin_entry *e = &f->entries[i];
		char arch[32], ver[16] = "-";

		if (e->kind == FATBIN_KIND_PTX)
			snprintf(ver, sizeof ver, "%u.%u", e->version_major, e->version_minor);
		printf("  %-6s %-8s %-11s %12" PRIu64 " %12" PRIu64 " %-5s %-*s%s%s\n",
		       fatbin_kind_name(e->kind), fatbin_sm_name(e->sm, e->variant, arch, sizeof arch),
		       fatbin_compression_name(e->compression), e->size, e->uncompressed_size, ver,
		       archive ? 14 : 0, e->section, archive ? " " : "",
		       archive ? f->objects[e->object].member : "");
	}
}

static void add_set(cJSON *o, const char *key, const struct fatbin_file *f, unsigned kind)
{
	cJSON *arr = cJSON_AddArrayToObject(o, key);
	char **names;

	fatbin_sm_set(f, kind, &names);
	for (char **p = names; *p; p++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(*p));
	fatbin_names_free(names);
}

static cJSON *file_json(const struct fatbin_file *f, int summary)
{
	cJSON *o = cJSON_CreateObject(), *entries;

	cJSON_AddStringToObject(o, "path", f->path);
	add_set(o, "sass", f, FATBIN_KIND_SASS);
	add_set(o, "ptx", f, FATBIN_KIND_PTX);
	add_set(o, "lto_ir", f, FATBIN_KIND_LTOIR);
	if (summary)
		return o;
	cJSON_AddNumberToObject(o, "containers", (double)f->n_containers);
	entries = cJSON_AddArrayToObject(o, "entries");
	for (size_t i = 0; i < f->n_entries; i++) {
		const struct fatbin_entry *e = &f->entries[i];
		cJSON *j = cJSON_CreateObject();
		char buf[32];

		if (e->kind == FATBIN_KIND_PTX || e->kind == FATBIN_KIND_SASS ||
		    e->kind == FATBIN_KIND_LTOIR)
			cJSON_AddStringToObject(j, "kind", fatbin_kind_name(e->kind));
		else
			cJSON_AddNumberToObject(j, "kind", e->kind);
		cJSON_AddStringToObject(j, "arch", fatbin_sm_name(e->sm, e->variant, buf, sizeof buf));
		cJSON_AddNumberToObject(j, "sm", e->sm);
		if (e->variant) {
			buf[0] = e->variant;
			buf[1] = '\0';
			cJSON_AddStringToObject(j, "variant", buf);
		} else {
			cJSON_AddNullToObject(j, "variant");
		}
		cJSON_AddStringToObject(j, "compression", fatbin_compression_name(e->compression));
		cJSON_AddNumberToObject(j, "size", (double)e->size);
		cJSON_AddNumberToObject(j, "uncompressed_size", (double)e->uncompressed_size);
		if (e->kind == FATBIN_KIND_PTX) {
			snprintf(buf, sizeof buf, "%u.%u", e->version_major, e->version_minor);
			cJSON_AddStringToObject(j, "ptx_version", buf);
		} else {
			cJSON_AddNullToObject(j, "ptx_version");
		}
		cJSON_AddStringToObject(j, "section", e->section);
		cJSON_AddNumberToObject(j, "offset", (double)e->offset);
		if (f->objects[e->object].member)
			cJSON_AddStringToObject(j, "member", f->objects[e->object].member);
		else
			cJSON_AddNullToObject(j, "member");
		cJSON_AddItemToArray(entries, j);
	}
	return o;
}

/* "8.7", "87", "sm_87", "9.0a", "sm_100f": a GPU, not an output kind. */
static const struct gpu_cap *parse_gpu(const struct gpudb *db, const char *tok)
{
	struct gpu_cap_spelling how;
	const struct gpu_cap *c = gpudb_cap_named(db, tok, &how);

	return c && (how.prefix == GPU_CAP_BARE || how.prefix == GPU_CAP_SM) ? c : NULL;
}

/* One line per GPU; returns 1 when one is not served. */
static int print_serving(const struct gpudb *db, const struct fatbin_file *f, const struct gpu_cap *const *gpus,
			 size_t n_gpus, cJSON *json)
{
	cJSON *serving = json ? cJSON_AddObjectToObject(json, "serving") : NULL;
	int unserved = 0;

	if (!fatbin_has_device_code(f)) {
		if (!json)
			printf("%s: no device code\n", f->path);
		return 0;
	}
	for (size_t i = 0; i < n_gpus; i++) {
		struct fatbin_serving how;
		enum fatbin_verdict v = fatbin_serves(db, f, gpus[i], &how);
		char name[16], sm[16], entry[32] = "";

		gpu_cap_name(gpus[i], name, sizeof name);
		if (v != FATBIN_NOT_SERVED)
			snprintf(entry, sizeof entry, "%s", fatbin_sm_name(how.sm, how.variant, sm, sizeof sm));
		unserved |= v == FATBIN_NOT_SERVED;
		if (json) {
			cJSON *o = cJSON_AddObjectToObject(serving, name);

			cJSON_AddStringToObject(o, "verdict", fatbin_verdict_name(v));
			if (*entry)
				cJSON_AddStringToObject(o, "by", entry);
			else
				cJSON_AddNullToObject(o, "by");
		} else {
			printf("%s: %s %s%s%s\n", f->path, name, fatbin_verdict_name(v),
			       *entry ? " " : "", entry);
		}
	}
	return unserved;
}

int cmd_fatbin(int argc, char **argv, struct cmd_ctx *ctx)
{
	const struct gpudb *db = NULL;
	static const struct option opts[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "fatbin-sections-only", no_argument, NULL, 'o' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fatbin_options fopt = { 0 };
	struct strvec gpu_specs = STRVEC_INIT;
	const struct gpu_cap **gpus = NULL;
	int summary = 0, json = 0, c, rc = 0;
	cJSON *arr = NULL;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "h", opts, "fatbin")) != -1) {
		switch (c) {
		case 's': summary = 1; break;
		case 'j': json = 1; break;
		case 'o': fopt.fatbin_sections_only = 1; break;
		case 'g': strvec_split(&gpu_specs, optarg); break;
		case 'h': strvec_free(&gpu_specs); fputs(fatbin_usage, stdout); return 0;
		default:
			strvec_free(&gpu_specs);
			return XCC_EUSAGE;
		}
	}
	if (optind >= argc) {
		strvec_free(&gpu_specs);
		return cmd_usage_error("fatbin", "no FILE given");
	}
	if (gpu_specs.n) {
		struct xcc_error err = { 0 };

		db = cmd_gpudb(ctx, &err);
		if (!db) {
			strvec_free(&gpu_specs);
			return cmd_report(&err);
		}
		gpus = xmalloc(gpu_specs.n * sizeof *gpus);
		for (size_t i = 0; i < gpu_specs.n; i++)
			if (!(gpus[i] = parse_gpu(db, gpu_specs.v[i]))) {
				rc = cmd_usage_error("fatbin",
						     "'%s' is not a GPU capability cuda-xcc knows "
						     "(e.g. 8.7, sm_90a, 100f; see 'cuda-xcc gpus')",
						     gpu_specs.v[i]);
				free(gpus);
				strvec_free(&gpu_specs);
				return rc;
			}
	}
	if (json)
		arr = cJSON_CreateArray();
	for (int i = optind; i < argc; i++) {
		struct xcc_error err = { 0 };
		struct fatbin_file f;

		if (fatbin_read_file(argv[i], &fopt, &f, &err)) {
			int status = cmd_report(&err);

			if (status > rc)
				rc = status;
			if (json) {
				cJSON *o = cJSON_CreateObject();

				cJSON_AddStringToObject(o, "path", argv[i]);
				cJSON_AddStringToObject(o, "error", err.msg);
				cJSON_AddItemToArray(arr, o);
			}
			continue;
		}
		if (gpus) {
			cJSON *o = json ? file_json(&f, 1) : NULL;

			if (print_serving(db, &f, gpus, gpu_specs.n, o) && rc < XCC_EFAIL)
				rc = XCC_EFAIL;
			if (o)
				cJSON_AddItemToArray(arr, o);
		} else if (json) {
			cJSON_AddItemToArray(arr, file_json(&f, summary));
		} else if (summary) {
			char *line = fatbin_summary_line(&f);

			printf("%s: %s\n", f.path, line);
			free(line);
		} else {
			print_table(&f);
		}
		fatbin_file_free(&f);
	}
	if (json) {
		char *s = cJSON_Print(arr);

		puts(s);
		free(s);
		cJSON_Delete(arr);
	}
	free(gpus);
	strvec_free(&gpu_specs);
	fflush(stdout);
	return rc;
}
