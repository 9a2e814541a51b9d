#include <config.h>

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_field.h"
#include "base/xalloc.h"
#include "db/data.h"
#include "db/devroots.h"

#define WHERE "embedded data device-roots.json"

static int take_string(const cJSON *o, const char *key, int optional, const char *path,
		       char **out, struct xcc_error *err)
{
	const cJSON *it;

	*out = NULL;
	if (json_member(o, key, cJSON_String, optional, &it, WHERE, path, err))
		return -1;
	if (it)
		*out = xstrdup(it->valuestring);
	return 0;
}

/* The fields the binary reads; the script reads the rest (versions, packages). */
static int load_release(struct device_root_release *r, const cJSON *o, struct xcc_error *err)
{
	return take_string(o, "debian", 0, "debian", &r->debian, err) ||
	       take_string(o, "glibc", 0, "debian", &r->glibc, err) ||
	       take_string(o, "glibcxx", 0, "debian", &r->glibcxx, err) ? -1 : 0;
}

static int load_line(const struct device_roots *rs, struct device_root_line *l, const cJSON *o,
		     struct xcc_error *err)
{
	char *debian = NULL;
	int rc = -1;

	if (take_string(o, "jetpack", 0, "jetpack", &l->jetpack, err) ||
	    take_string(o, "debian", 1, "jetpack", &debian, err))
		goto out;
	if (!debian) { /* none fits: the table says why (the script tells it) */
		const cJSON *why;

		rc = json_member(o, "why", cJSON_String, 0, &why, WHERE, "jetpack", err);
		goto out;
	}
	for (size_t i = 0; i < rs->n_releases; i++)
		if (strcmp(rs->releases[i].debian, debian) == 0)
			l->release = &rs->releases[i];
	if (!l->release) {
		xcc_fail(err, XCC_EFAIL, WHERE ": JetPack %s names Debian %s, which it does not "
			 "describe", l->jetpack, debian);
		goto out;
	}
	rc = 0;
out:
	free(debian);
	return rc;
}

int device_roots_load(struct device_roots *out, struct xcc_error *err)
{
	const char *text = embedded_file_text("device-roots.json");
	cJSON *root = text ? cJSON_Parse(text) : NULL;
	const cJSON *rels = cJSON_GetObjectItemCaseSensitive(root, "debian");
	const cJSON *lines = cJSON_GetObjectItemCaseSensitive(root, "jetpack"), *o;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (!cJSON_IsArray(rels) || !cJSON_IsArray(lines)) {
		xcc_fail(err, XCC_EFAIL, WHERE " is missing or lacks its \"debian\" and "
			 "\"jetpack\" arrays");
		goto out;
	}
	out->releases = xcalloc((size_t)cJSON_GetArraySize(rels) + 1, sizeof *out->releases);
	out->lines = xcalloc((size_t)cJSON_GetArraySize(lines) + 1, sizeof *out->lines);
	cJSON_ArrayForEach(o, rels) {
		if (load_release(&out->releases[out->n_releases++], o, err))
			goto out;
	}
	cJSON_ArrayForEach(o, lines) {
		if (load_line(out, &out->lines[out->n_lines++], o, err))
			goto out;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	if (rc)
		device_roots_free(out);
	return rc;
}

void device_roots_free(struct device_roots *r)
{
	for (size_t i = 0; i < r->n_releases; i++) {
		struct device_root_release *d = &r->releases[i];

		free(d->debian);
		free(d->glibc);
		free(d->glibcxx);
	}
	for (size_t i = 0; i < r->n_lines; i++)
		free(r->lines[i].jetpack);
	free(r->releases);
	free(r->lines);
	memset(r, 0, sizeof *r);
}

const struct device_root_line *device_root_for_jetpack(const struct device_roots *r,
						       const char *jetpack)
{
	size_t n = strcspn(jetpack, ".");

	for (size_t i = 0; i < r->n_lines; i++)
		if (strlen(r->lines[i].jetpack) == n && strncmp(r->lines[i].jetpack, jetpack, n) == 0)
			return &r->lines[i];
	return NULL;
}
