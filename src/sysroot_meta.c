#include <config.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "sysroot_meta.h"
#include "xalloc.h"

static char *dup_string(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(it) ? xstrdup(it->valuestring) : NULL;
}

int sysroot_meta_load(const char *dir, struct sysroot_meta *m, struct xcc_error *err)
{
	char *path = xasprintf("%s/%s", dir, SYSROOT_META_FILE);
	char *text = file_read_text(path, NULL);
	cJSON *root = NULL;
	const cJSON *arr, *it;
	int rc = -1;

	memset(m, 0, sizeof *m);
	if (!text) {
		xcc_fail(err, XCC_EFAIL, "%s is not a cuda-xcc sysroot: cannot read %s: %s%s", dir,
			 path, strerror(errno),
			 errno == ENOENT ? "\nCreate one with 'cuda-xcc sysroot create'." : "");
		goto out;
	}
	root = cJSON_Parse(text);
	if (!cJSON_IsObject(root)) {
		xcc_fail(err, XCC_EFAIL, "%s is not valid JSON; recreate the sysroot", path);
		goto out;
	}
	m->dir = xstrdup(dir);
	m->cuda = dup_string(root, "cuda");
	m->target = dup_string(root, "target");
	m->tag = dup_string(root, "tag");
	m->target_dir = dup_string(root, "target_dir");
	m->host_compiler = dup_string(root, "host_compiler");
	m->target_fs = dup_string(root, "target_fs");
	m->jetpack = dup_string(root, "jetpack");
	m->fingerprint = dup_string(root, "fingerprint");
	arr = cJSON_GetObjectItemCaseSensitive(root, "serving");
	if (cJSON_IsArray(arr))
		m->serving_json = cJSON_PrintUnformatted(arr);
	if (!m->cuda || !m->target || !m->tag || !m->target_dir) {
		xcc_fail(err, XCC_EFAIL, "%s lacks one of cuda, target, tag, target_dir; "
			 "recreate the sysroot", path);
		goto out;
	}
	arr = cJSON_GetObjectItemCaseSensitive(root, "capabilities");
	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it))
			strvec_push(&m->capabilities, it->valuestring);
	arr = cJSON_GetObjectItemCaseSensitive(root, "components");
	if (cJSON_IsArray(arr)) {
		m->components = xmalloc((size_t)cJSON_GetArraySize(arr) * sizeof *m->components);
		cJSON_ArrayForEach(it, arr) {
			struct sysroot_component *c = &m->components[m->n_components++];

			c->name = dup_string(it, "name");
			c->version = dup_string(it, "version");
			c->side = dup_string(it, "side");
			c->sha256 = dup_string(it, "sha256");
			c->source = dup_string(it, "source");
		}
	}
	rc = 0;
out:
	if (rc)
		sysroot_meta_free(m);
	cJSON_Delete(root);
	free(text);
	free(path);
	return rc;
}

static void add_str(cJSON *obj, const char *key, const char *val)
{
	if (val)
		cJSON_AddStringToObject(obj, key, val);
	else
		cJSON_AddNullToObject(obj, key);
}

char *sysroot_meta_to_json(const struct sysroot_meta *m)
{
	cJSON *root = cJSON_CreateObject(), *caps, *comps;
	char *text;

	cJSON_AddNumberToObject(root, "format", SYSROOT_META_FORMAT);
	add_str(root, "cuda", m->cuda);
	add_str(root, "target", m->target);
	add_str(root, "tag", m->tag);
	add_str(root, "target_dir", m->target_dir);
	add_str(root, "host_compiler", m->host_compiler);
	add_str(root, "target_fs", m->target_fs);
	add_str(root, "jetpack", m->jetpack);
	caps = cJSON_AddArrayToObject(root, "capabilities");
	for (size_t i = 0; i < m->capabilities.n; i++)
		cJSON_AddItemToArray(caps, cJSON_CreateString(m->capabilities.v[i]));
	comps = cJSON_AddArrayToObject(root, "components");
	for (size_t i = 0; i < m->n_components; i++) {
		const struct sysroot_component *c = &m->components[i];
		cJSON *o = cJSON_CreateObject();

		add_str(o, "name", c->name);
		add_str(o, "version", c->version);
		add_str(o, "side", c->side);
		add_str(o, "sha256", c->sha256);
		add_str(o, "source", c->source);
		cJSON_AddItemToArray(comps, o);
	}
	if (m->fingerprint)
		cJSON_AddStringToObject(root, "fingerprint", m->fingerprint);
	if (m->serving_json) {
		cJSON *serving = cJSON_Parse(m->serving_json);

		if (serving)
			cJSON_AddItemToObject(root, "serving", serving);
	}
	cJSON_AddStringToObject(root, "created_by", PACKAGE_STRING);
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

int sysroot_meta_save(const char *dir, const struct sysroot_meta *m, struct xcc_error *err)
{
	char *path = xasprintf("%s/%s", dir, SYSROOT_META_FILE);
	char *json = sysroot_meta_to_json(m), *text = xasprintf("%s\n", json);
	int rc = file_write_atomic(path, text, strlen(text), 0644, err);

	free(text);
	free(json);
	free(path);
	return rc;
}

void sysroot_meta_free(struct sysroot_meta *m)
{
	free(m->dir);
	free(m->cuda);
	free(m->target);
	free(m->tag);
	free(m->target_dir);
	free(m->host_compiler);
	free(m->target_fs);
	free(m->jetpack);
	free(m->fingerprint);
	free(m->serving_json);
	strvec_free(&m->capabilities);
	for (size_t i = 0; i < m->n_components; i++) {
		free(m->components[i].name);
		free(m->components[i].version);
		free(m->components[i].side);
		free(m->components[i].sha256);
		free(m->components[i].source);
	}
	free(m->components);
	memset(m, 0, sizeof *m);
}

char *sysroot_store_dir(void)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return xasprintf("%s/cuda-xcc/sysroots", xdg);
	return xasprintf("%s/.local/share/cuda-xcc/sysroots", home && *home ? home : "/tmp");
}

char *sysroot_store_path(const char *target, const char *cuda)
{
	int major, minor, n = 0;
	char *store = sysroot_store_dir(), *p;

	/* One sysroot per major.minor: --cuda 12.6 and --cuda 12.6.3 find the
	 * same one (patch releases do not change what nvcc accepts). */
	if (sscanf(cuda, "%d.%d%n", &major, &minor, &n) == 2 && n > 0)
		p = xasprintf("%s/%s-%d.%d", store, target, major, minor);
	else
		p = xasprintf("%s/%s-%s", store, target, cuda);

	free(store);
	return p;
}
