/* doctor's report: its checks in order, what fails, and the JSON form. The
 * checks (doctor.c, doctor_floor.c) only add to it. */
#include <config.h>

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "use/doctor.h"
#include "use/doctor_int.h"

void doctor_add(struct doctor_report *r, const char *name, enum doctor_status st, char *detail,
		char *fix)
{
	struct doctor_check *c;

	XGROW(r->v, r->n + 1, r->cap);
	c = &r->v[r->n++];
	c->name = name;
	c->status = st;
	c->detail = detail;
	c->fix = fix;
}

int doctor_failed(const struct doctor_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status == DOCTOR_FAIL)
			return 1;
	return 0;
}

const char *doctor_status_name(enum doctor_status s)
{
	switch (s) {
	case DOCTOR_OK:
		return "ok";
	case DOCTOR_FAIL:
		return "FAIL";
	case DOCTOR_WARN:
		return "warn";
	default:
		return "skip";
	}
}

static void add_str(cJSON *obj, const char *key, const char *val)
{
	if (val)
		cJSON_AddStringToObject(obj, key, val);
	else
		cJSON_AddNullToObject(obj, key);
}

char *doctor_report_json(const struct doctor_report *r)
{
	cJSON *root = cJSON_CreateObject(), *checks;
	char *text;

	add_str(root, "target", r->target);
	add_str(root, "cuda", r->cuda);
	add_str(root, "sysroot", r->sysroot);
	cJSON_AddBoolToObject(root, "ok", !doctor_failed(r));
	checks = cJSON_AddArrayToObject(root, "checks");
	for (size_t i = 0; i < r->n; i++) {
		cJSON *c = cJSON_CreateObject();
		static const char *const names[] = { "ok", "fail", "skip", "warn" };

		cJSON_AddStringToObject(c, "check", r->v[i].name);
		cJSON_AddStringToObject(c, "status", names[r->v[i].status]);
		add_str(c, "detail", r->v[i].detail);
		add_str(c, "fix", r->v[i].fix);
		cJSON_AddItemToArray(checks, c);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

void doctor_report_free(struct doctor_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].detail);
		free(r->v[i].fix);
	}
	free(r->v);
	free(r->target);
	free(r->cuda);
	free(r->sysroot);
	memset(r, 0, sizeof *r);
}
