#include <config.h>

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_field.h"
#include "base/xalloc.h"
#include "db/crosstc.h"
#include "db/data.h"

static int field_string(const cJSON *o, const char *key, char **out, struct xcc_error *err)
{
	const cJSON *it;

	if (json_member(o, key, cJSON_String, 0, &it, "embedded data toolchains.json", "toolchains",
			err))
		return -1;
	*out = xstrdup(it->valuestring);
	return 0;
}

static int load_one(struct cross_toolchain *tc, const cJSON *o, struct xcc_error *err)
{
	const cJSON *gcc;

	if (json_member(o, "gcc", cJSON_Number, 0, &gcc, "embedded data toolchains.json",
			"toolchains", err))
		return -1;
	tc->gcc = gcc->valueint;
	return field_string(o, "debian", &tc->debian, err) ||
	       field_string(o, "debian_version", &tc->debian_version, err) ||
	       field_string(o, "glibc", &tc->glibc, err) ||
	       field_string(o, "glibc_defines", &tc->glibc_defines, err) ||
	       field_string(o, "glibcxx", &tc->glibcxx, err) ||
	       field_string(o, "cxxabi", &tc->cxxabi, err) ||
	       field_string(o, "source", &tc->source, err) ? -1 : 0;
}

int cross_toolchains_load(struct cross_toolchains *out, struct xcc_error *err)
{
	const char *text = embedded_file_text("toolchains.json");
	cJSON *root = text ? cJSON_Parse(text) : NULL;
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "toolchains"), *o;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (!cJSON_IsArray(list)) {
		xcc_fail(err, XCC_EFAIL, "embedded data toolchains.json is missing or has no "
			 "\"toolchains\" array");
		goto out;
	}
	out->v = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof *out->v);
	cJSON_ArrayForEach(o, list) {
		if (load_one(&out->v[out->n++], o, err))
			goto out;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	if (rc)
		cross_toolchains_free(out);
	return rc;
}

void cross_toolchains_free(struct cross_toolchains *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].debian);
		free(t->v[i].debian_version);
		free(t->v[i].glibc);
		free(t->v[i].glibc_defines);
		free(t->v[i].glibcxx);
		free(t->v[i].cxxabi);
		free(t->v[i].source);
	}
	free(t->v);
	memset(t, 0, sizeof *t);
}

int crosstc_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		char *ea, *eb;
		long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);

		if (x != y)
			return x < y ? -1 : 1;
		a = *ea == '.' ? ea + 1 : ea;
		b = *eb == '.' ? eb + 1 : eb;
		if (ea == a && eb == b && (*a || *b))
			break; /* neither moved: not a number; equal so far */
	}
	return 0;
}

const struct cross_toolchain *cross_toolchain_match(const struct cross_toolchains *t,
						    const char *glibc, const char *glibcxx,
						    int gcc_min, int gcc_max)
{
	const struct cross_toolchain *best = NULL;

	for (size_t i = 0; i < t->n; i++) {
		const struct cross_toolchain *c = &t->v[i];

		if ((glibc && crosstc_version_cmp(c->glibc_defines, glibc) > 0) ||
		    (glibcxx && crosstc_version_cmp(c->glibcxx, glibcxx) > 0) ||
		    (gcc_min && c->gcc < gcc_min) || (gcc_max && c->gcc > gcc_max))
			continue;
		if (!best || crosstc_version_cmp(c->glibc, best->glibc) > 0)
			best = c;
	}
	return best;
}
