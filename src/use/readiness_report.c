#include <config.h>

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "use/readiness.h"

/* The report of `cuda-xcc check`, as text and as JSON (doc/check.md). */

static const char *status_word(enum ready_status s)
{
	static const char *const words[] = { "OK", "COMPAT", "UNKNOWN", "FAIL" };

	return words[s];
}

static void cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	char *s;
	size_t n;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	n = strlen(s);
	XGROW(*buf, *len + n + 1, *cap);
	memcpy(*buf + *len, s, n + 1);
	*len += n;
	free(s);
}

static size_t needed_found(const struct ready_file *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_needed; i++)
		n += f->needed[i].by != READY_NEED_MISSING && f->needed[i].by != READY_NEED_UNKNOWN;
	return n;
}

/* "STATUS PATH: gpus 8.7 sass; floors GLIBC_2.17 (JetPack 6.2 ...); needed
 * 3/3; cuda 12.4 (package version ...)" */
static void summary_line(char **b, size_t *len, size_t *cap, const struct ready_file *f)
{
	char v[16];

	cat(b, len, cap, "%-7s %s:", status_word(f->status), f->path);
	if (f->has_device_code && f->n_gpus) {
		cat(b, len, cap, " gpus");
		for (size_t i = 0; i < f->n_gpus; i++)
			cat(b, len, cap, " %s %s%s%s", f->gpus[i].gpu,
			    ready_gpu_verdict_name(f->gpus[i].verdict), *f->gpus[i].by ? " " : "",
			    f->gpus[i].by);
		cat(b, len, cap, ";");
	} else if (f->has_device_code) {
		cat(b, len, cap, " %s;", f->device_summary);
	} else {
		cat(b, len, cap, " no device code;");
	}
	if (f->needs_max.n) {
		char *list = strvec_join(&f->needs_max, " ");

		cat(b, len, cap, " needs %s (%s);", list,
		    f->floor_from ? f->floor_from : "floors not checked");
		free(list);
	}
	cat(b, len, cap, " needed %zu/%zu found", needed_found(f), f->n_needed);
	if (f->cuda_how != READY_CUDA_NONE && f->cuda_how != READY_CUDA_UNKNOWN)
		cat(b, len, cap, "; cuda %s%s (%s)",
		    f->cuda_how == READY_CUDA_MAJOR ? (snprintf(v, sizeof v, "%d.x", f->cuda.major), v)
						    : cuda_version_str(f->cuda, v, sizeof v),
		    f->cuda_how == READY_CUDA_AT_LEAST ? " or newer" : "", f->cuda_from);
	else if (f->cuda_how == READY_CUDA_UNKNOWN)
		cat(b, len, cap, "; cuda unknown");
	cat(b, len, cap, "\n");
}

char *ready_report_text(const struct ready_report *r, int verbose)
{
	char *b = NULL;
	size_t len = 0, cap = 0;

	cat(&b, &len, &cap, "%s", "");
	if (r->board)
		cat(&b, &len, &cap, "board: %s\n", r->board);
	for (size_t i = 0; i < r->n; i++) {
		const struct ready_file *f = &r->files[i];

		summary_line(&b, &len, &cap, f);
		for (size_t k = 0; k < f->problems.n; k++)
			cat(&b, &len, &cap, "  - %s\n", f->problems.v[k]);
		for (size_t k = 0; verbose && k < f->n_needed; k++)
			cat(&b, &len, &cap, "  needed %s: %s%s%s%s\n", f->needed[k].name,
			    ready_need_by_name(f->needed[k].by), f->needed[k].where ? " " : "",
			    f->needed[k].where ? f->needed[k].where : "",
			    f->needed[k].unverified ? " (unverified)" : "");
	}
	for (size_t i = 0; i < r->empty.n; i++)
		cat(&b, &len, &cap, "note: %s holds no program or shared library\n", r->empty.v[i]);
	cat(&b, &len, &cap, "total: %zu files: %zu ok, %zu need cuda-compat, %zu cannot be told, "
	    "%zu will not run\n", r->n, r->count[READY_OK], r->count[READY_COMPAT],
	    r->count[READY_UNKNOWN], r->count[READY_FAIL]);
	return b;
}

static cJSON *gpu_json(const struct ready_gpu *g)
{
	cJSON *o = cJSON_CreateObject();
	char buf[16];

	cJSON_AddStringToObject(o, "gpu", g->gpu);
	cJSON_AddStringToObject(o, "verdict", ready_gpu_verdict_name(g->verdict));
	if (*g->by)
		cJSON_AddStringToObject(o, "by", g->by);
	else
		cJSON_AddNullToObject(o, "by");
	if (g->isa_major) {
		snprintf(buf, sizeof buf, "%u.%u", g->isa_major, g->isa_minor);
		cJSON_AddStringToObject(o, "ptx_isa", buf);
		if (g->has_ptx_cuda)
			cJSON_AddStringToObject(o, "ptx_cuda",
						cuda_version_str(g->ptx_cuda, buf, sizeof buf));
		else
			cJSON_AddNullToObject(o, "ptx_cuda");
	}
	return o;
}

static cJSON *strings_json(const struct strvec *sv)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
	return a;
}

static cJSON *file_json(const struct ready_file *f)
{
	cJSON *o = cJSON_CreateObject(), *gpus, *needed, *cuda;
	char v[16];

	cJSON_AddStringToObject(o, "path", f->path);
	cJSON_AddStringToObject(o, "status", ready_status_name(f->status));
	cJSON_AddStringToObject(o, "machine", f->machine ? f->machine : "unknown");
	cJSON_AddBoolToObject(o, "device_code", f->has_device_code);
	if (f->device_summary)
		cJSON_AddStringToObject(o, "device_summary", f->device_summary);
	gpus = cJSON_AddArrayToObject(o, "gpus");
	for (size_t i = 0; i < f->n_gpus; i++)
		cJSON_AddItemToArray(gpus, gpu_json(&f->gpus[i]));
	if (f->floor_from)
		cJSON_AddStringToObject(o, "floor_from", f->floor_from);
	else
		cJSON_AddNullToObject(o, "floor_from");
	cJSON_AddItemToObject(o, "needs_max", strings_json(&f->needs_max));
	cJSON_AddItemToObject(o, "above_floor", strings_json(&f->above));
	needed = cJSON_AddArrayToObject(o, "needed");
	for (size_t i = 0; i < f->n_needed; i++) {
		cJSON *n = cJSON_CreateObject();

		cJSON_AddStringToObject(n, "name", f->needed[i].name);
		cJSON_AddStringToObject(n, "by", ready_need_by_name(f->needed[i].by));
		if (f->needed[i].where)
			cJSON_AddStringToObject(n, "where", f->needed[i].where);
		else
			cJSON_AddNullToObject(n, "where");
		cJSON_AddBoolToObject(n, "unverified", f->needed[i].unverified);
		cJSON_AddItemToArray(needed, n);
	}
	cuda = cJSON_AddObjectToObject(o, "cuda");
	cJSON_AddStringToObject(cuda, "how", ready_cuda_how_name(f->cuda_how));
	if (f->cuda_how >= READY_CUDA_MAJOR)
		cJSON_AddStringToObject(cuda, "version", cuda_version_str(f->cuda, v, sizeof v));
	else
		cJSON_AddNullToObject(cuda, "version");
	if (f->cuda_from)
		cJSON_AddStringToObject(cuda, "from", f->cuda_from);
	else
		cJSON_AddNullToObject(cuda, "from");
	cJSON_AddStringToObject(cuda, "status", ready_status_name(f->cuda_status));
	cJSON_AddItemToObject(o, "problems", strings_json(&f->problems));
	return o;
}

char *ready_report_json(const struct ready_report *r)
{
	cJSON *root = cJSON_CreateObject(), *files, *total;
	char *s;

	if (r->board)
		cJSON_AddStringToObject(root, "board", r->board);
	else
		cJSON_AddNullToObject(root, "board");
	files = cJSON_AddArrayToObject(root, "files");
	for (size_t i = 0; i < r->n; i++)
		cJSON_AddItemToArray(files, file_json(&r->files[i]));
	cJSON_AddItemToObject(root, "empty_inputs", strings_json(&r->empty));
	total = cJSON_AddObjectToObject(root, "total");
	cJSON_AddNumberToObject(total, "files", (double)r->n);
	for (int s2 = 0; s2 < READY_N_STATUS; s2++)
		cJSON_AddNumberToObject(total, ready_status_name(s2), (double)r->count[s2]);
	s = cJSON_Print(root);
	cJSON_Delete(root);
	return s;
}
