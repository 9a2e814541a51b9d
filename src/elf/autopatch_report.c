/* autopatch's report: for people (autopatch_report_print) and as JSON. */
#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "elf/autopatch.h"

static const char *action_name(enum autopatch_action a)
{
	return a == AUTOPATCH_PATCHED ? "patched" : a == AUTOPATCH_UNCHANGED ? "unchanged"
									     : "skipped";
}

void autopatch_report_print(const struct autopatch_report *r, FILE *f, int verbose)
{
	size_t counts[3] = { 0 };

	for (size_t i = 0; i < r->n_files; i++) {
		const struct autopatch_file *x = &r->files[i];

		counts[x->action]++;
		if (x->action == AUTOPATCH_PATCHED)
			fprintf(f, "%s: %s (%s): %s %s\n", r->dry_run ? "would patch" : "patched",
				x->path, x->arch ? x->arch : "?",
				x->rpath_is_dt_rpath ? "RPATH" : "RUNPATH",
				*x->new_rpath ? x->new_rpath : "(removed)");
		else if (verbose)
			fprintf(f, "%s: %s%s%s%s\n", action_name(x->action), x->path,
				x->reason ? " (" : "", x->reason ? x->reason : "",
				x->reason ? ")" : "");
	}
	if (verbose)
		for (size_t i = 0; i < r->n_provided; i++)
			fprintf(f, "provided: %s needs %s: %s\n", r->provided[i].file,
				r->provided[i].library, r->provided[i].by);
	for (size_t i = 0; i < r->notes.n; i++)
		fprintf(f, "note: %s\n", r->notes.v[i]);
	for (size_t i = 0; i < r->n_missing; i++) {
		const struct autopatch_missing *m = &r->missing[i];

		fprintf(f, "%s: %s needs %s (%s), searched %s\n",
			m->ignored ? "missing (ignored)" : "missing", m->file, m->library, m->arch,
			m->searched);
	}
	fprintf(f, "autopatch: %zu %s, %zu unchanged, %zu skipped; %zu missing (%zu ignored)\n",
		counts[AUTOPATCH_PATCHED], r->dry_run ? "to patch" : "patched",
		counts[AUTOPATCH_UNCHANGED], counts[AUTOPATCH_SKIPPED],
		r->n_missing, r->n_missing - r->n_missing_unignored);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

char *autopatch_report_json(const struct autopatch_report *r)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *files = cJSON_AddArrayToObject(root, "files");
	cJSON *missing = cJSON_AddArrayToObject(root, "missing");
	cJSON *provided = cJSON_AddArrayToObject(root, "provided");
	cJSON *notes = cJSON_AddArrayToObject(root, "notes");
	char *s;

	for (size_t i = 0; i < r->n_files; i++) {
		const struct autopatch_file *x = &r->files[i];
		cJSON *o = cJSON_CreateObject();

		add_str(o, "path", x->path);
		add_str(o, "action", action_name(x->action));
		add_str(o, "reason", x->reason);
		add_str(o, "arch", x->arch);
		add_str(o, "old_rpath", x->old_rpath);
		add_str(o, "new_rpath", x->new_rpath);
		if (x->action == AUTOPATCH_PATCHED)
			add_str(o, "tag", x->rpath_is_dt_rpath ? "DT_RPATH" : "DT_RUNPATH");
		cJSON_AddItemToArray(files, o);
	}
	for (size_t i = 0; i < r->n_missing; i++) {
		cJSON *o = cJSON_CreateObject();

		add_str(o, "file", r->missing[i].file);
		add_str(o, "library", r->missing[i].library);
		add_str(o, "arch", r->missing[i].arch);
		add_str(o, "searched", r->missing[i].searched);
		cJSON_AddBoolToObject(o, "ignored", r->missing[i].ignored);
		cJSON_AddItemToArray(missing, o);
	}
	for (size_t i = 0; i < r->n_provided; i++) {
		cJSON *o = cJSON_CreateObject();

		add_str(o, "file", r->provided[i].file);
		add_str(o, "library", r->provided[i].library);
		add_str(o, "by", r->provided[i].by);
		cJSON_AddItemToArray(provided, o);
	}
	for (size_t i = 0; i < r->notes.n; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(r->notes.v[i]));
	s = cJSON_Print(root);
	cJSON_Delete(root);
	return s;
}

void autopatch_report_free(struct autopatch_report *r)
{
	for (size_t i = 0; i < r->n_files; i++) {
		free(r->files[i].path);
		free(r->files[i].reason);
		free(r->files[i].arch);
		free(r->files[i].old_rpath);
		free(r->files[i].new_rpath);
	}
	free(r->files);
	for (size_t i = 0; i < r->n_missing; i++) {
		free(r->missing[i].file);
		free(r->missing[i].library);
		free(r->missing[i].arch);
		free(r->missing[i].searched);
	}
	free(r->missing);
	for (size_t i = 0; i < r->n_provided; i++) {
		free(r->provided[i].file);
		free(r->provided[i].library);
		free(r->provided[i].by);
	}
	free(r->provided);
	strvec_free(&r->notes);
	memset(r, 0, sizeof *r);
}

