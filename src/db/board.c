#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "db/board.h"
#include "db/data.h"

static int bad(struct xcc_error *err, const char *where, const char *what)
{
	return xcc_fail(err, XCC_EFAIL, "embedded data board.json %s: %s", where, what);
}

static int str_item(const cJSON *o, const char *key, const char *where, const char **out,
		    struct xcc_error *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(it))
		return bad(err, where, "a string is missing");
	*out = it->valuestring;
	return 0;
}

/* { "libraries": [...], "unverified": [...], "source": "..." (, "jetpack") } */
static int load_libs(const cJSON *o, const char *where, int with_jetpack, struct board_libs *l,
		     struct xcc_error *err)
{
	static const char *const keys[] = { "libraries", "unverified", "source", NULL };
	static const char *const jp_keys[] = { "jetpack", "libraries", "unverified", "source", NULL };
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "libraries");
	const cJSON *unv = cJSON_GetObjectItemCaseSensitive(o, "unverified"), *it;
	size_t cap = 0;

	memset(l, 0, sizeof *l);
	if (!cJSON_IsObject(o))
		return bad(err, where, "must be an object");
	if (gpudb_only_keys(o, with_jetpack ? jp_keys : keys, where, err))
		return -1;
	if (str_item(o, "source", where, &l->source, err) ||
	    (with_jetpack && str_item(o, "jetpack", where, &l->jetpack, err)))
		return -1;
	if (!cJSON_IsArray(arr) || !cJSON_IsArray(unv))
		return bad(err, where, "libraries and unverified must be lists");
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it))
			return bad(err, where, "a library must be a string");
		XGROW(l->names, l->n + 1, cap);
		l->names[l->n++] = it->valuestring;
	}
	cJSON_ArrayForEach(it, unv) {
		if (!cJSON_IsString(it) || strcmp(it->valuestring, "libraries") != 0)
			return bad(err, where, "unverified may name only \"libraries\"");
		l->unverified = 1;
	}
	return 0;
}

/* A list of strings at o[key] into *out (pointing into the JSON). */
static int str_array(const cJSON *o, const char *key, const char *where, const char ***out,
		     size_t *n, struct xcc_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key), *it;

	*out = NULL;
	*n = 0;
	if (!cJSON_IsArray(arr))
		return bad(err, where, "a list is missing");
	*out = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof **out);
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it))
			return bad(err, where, "a list holds strings only");
		(*out)[(*n)++] = it->valuestring;
	}
	return 0;
}

/* Whether o's unverified list names field; anything but the fields given
 * is an error. */
static int unverified_field(const cJSON *o, const char *where, const char *field, int *out,
			    struct xcc_error *err)
{
	const cJSON *it, *unv = cJSON_GetObjectItemCaseSensitive(o, "unverified");

	*out = 0;
	if (!cJSON_IsArray(unv))
		return bad(err, where, "unverified must be a list");
	cJSON_ArrayForEach(it, unv) {
		if (!cJSON_IsString(it) || strcmp(it->valuestring, field) != 0)
			return bad(err, where, "unverified names a field it does not have");
		*out = 1;
	}
	return 0;
}

static int load_pull(struct board_db *db, const cJSON *root, struct xcc_error *err)
{
	static const char *const keys[] = { "comment", "paths", "l4t_dirs", "links", "unverified",
					    "source", NULL };
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "device_pull");
	struct board_pull *p = &db->pull;

	if (!cJSON_IsObject(o))
		return bad(err, "device_pull", "must be an object");
	if (gpudb_only_keys(o, keys, "board.json device_pull", err) ||
	    str_item(o, "source", "device_pull", &p->source, err) ||
	    str_array(o, "paths", "device_pull paths", &p->paths, &p->n_paths, err) ||
	    str_array(o, "l4t_dirs", "device_pull l4t_dirs", &p->l4t_dirs, &p->n_l4t_dirs, err) ||
	    str_array(o, "links", "device_pull links", &p->links, &p->n_links, err))
		return -1;
	return unverified_field(o, "device_pull", "l4t_dirs", &p->l4t_unverified, err);
}

static int load_socs(struct board_db *db, const cJSON *root, struct xcc_error *err)
{
	static const char *const keys[] = { "compatible", "gpu", "unverified", "source", NULL };
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "socs"), *it;
	size_t cap = 0;

	if (!cJSON_IsArray(arr))
		return bad(err, "socs", "must be a list");
	cJSON_ArrayForEach(it, arr) {
		struct board_soc s;

		if (gpudb_only_keys(it, keys, "board.json socs", err) ||
		    str_item(it, "compatible", "socs", &s.compatible, err) ||
		    str_item(it, "gpu", "socs", &s.gpu, err) ||
		    str_item(it, "source", "socs", &s.source, err) ||
		    unverified_field(it, "socs", "compatible", &s.unverified, err))
			return -1;
		XGROW(db->socs, db->n_socs + 1, cap);
		db->socs[db->n_socs++] = s;
	}
	return 0;
}

static int load_ptx(struct board_db *db, const cJSON *root, struct xcc_error *err)
{
	static const char *const keys[] = { "isa", "cuda", NULL };
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "ptx_isa"), *it;
	size_t cap = 0;

	if (!cJSON_IsArray(arr))
		return bad(err, "ptx_isa", "must be a list");
	if (str_item(root, "ptx_isa_source", "", &db->ptx_source, err))
		return -1;
	cJSON_ArrayForEach(it, arr) {
		struct board_ptx_isa p;
		const char *isa = NULL, *cuda = NULL;

		if (gpudb_only_keys(it, keys, "board.json ptx_isa", err) ||
		    str_item(it, "isa", "ptx_isa", &isa, err) ||
		    str_item(it, "cuda", "ptx_isa", &cuda, err))
			return -1;
		if (sscanf(isa, "%d.%d", &p.major, &p.minor) != 2 || cuda_version_parse(cuda, &p.cuda))
			return bad(err, "ptx_isa", "isa and cuda must be versions");
		XGROW(db->ptx, db->n_ptx + 1, cap);
		db->ptx[db->n_ptx++] = p;
	}
	return 0;
}

int board_db_load(struct board_db *db, struct xcc_error *err)
{
	static const char *const top[] = { "comment", "ptx_isa_source", "ptx_isa", "base",
					   "libraries", "device_pull", "socs", "cuda_compat",
					   NULL };
	const char *text = embedded_file_text("board.json");
	cJSON *root;
	const cJSON *arr, *it;
	size_t cap = 0;

	memset(db, 0, sizeof *db);
	if (!text || !(root = cJSON_Parse(text)))
		return xcc_fail(err, XCC_EFAIL, "embedded data board.json is missing or not JSON");
	db->json_root = root;
	if (gpudb_only_keys(root, top, "board.json", err) || load_ptx(db, root, err) ||
	    load_pull(db, root, err) || load_socs(db, root, err) ||
	    load_libs(cJSON_GetObjectItemCaseSensitive(root, "base"), "base", 0, &db->base, err) ||
	    load_libs(cJSON_GetObjectItemCaseSensitive(root, "cuda_compat"), "cuda_compat", 0,
		      &db->compat, err))
		goto fail;
	arr = cJSON_GetObjectItemCaseSensitive(root, "libraries");
	if (!cJSON_IsArray(arr)) {
		bad(err, "libraries", "must be a list");
		goto fail;
	}
	cJSON_ArrayForEach(it, arr) {
		XGROW(db->jetpacks, db->n_jetpacks + 1, cap);
		if (load_libs(it, "libraries", 1, &db->jetpacks[db->n_jetpacks++], err))
			goto fail;
	}
	return 0;
fail:
	board_db_free(db);
	return -1;
}

static void libs_free(struct board_libs *l)
{
	free(l->names);
	memset(l, 0, sizeof *l);
}

void board_db_free(struct board_db *db)
{
	libs_free(&db->base);
	libs_free(&db->compat);
	for (size_t i = 0; i < db->n_jetpacks; i++)
		libs_free(&db->jetpacks[i]);
	free(db->jetpacks);
	free(db->ptx);
	free(db->pull.paths);
	free(db->pull.l4t_dirs);
	free(db->pull.links);
	free(db->socs);
	cJSON_Delete(db->json_root);
	memset(db, 0, sizeof *db);
}

int board_ptx_cuda(const struct board_db *db, unsigned isa_major, unsigned isa_minor,
		   struct cuda_version *out)
{
	for (size_t i = 0; i < db->n_ptx; i++)
		if ((unsigned)db->ptx[i].major == isa_major && (unsigned)db->ptx[i].minor == isa_minor) {
			*out = db->ptx[i].cuda;
			return 0;
		}
	return -1;
}

/* "6" is a prefix of "6.2" and "6", not of "60". */
static size_t prefix_len(const char *prefix, const char *version)
{
	size_t n = strlen(prefix);

	if (strncmp(prefix, version, n) != 0 || (version[n] && version[n] != '.'))
		return 0;
	return n;
}

const struct board_libs *board_jetpack_libs(const struct board_db *db, const char *jp)
{
	const struct board_libs *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < db->n_jetpacks; i++) {
		size_t n = prefix_len(db->jetpacks[i].jetpack, jp);

		if (n > best_len) {
			best = &db->jetpacks[i];
			best_len = n;
		}
	}
	return best;
}

int board_libs_has(const struct board_libs *l, const char *soname)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (strcmp(l->names[i], soname) == 0)
			return 1;
	return 0;
}

const struct board_soc *board_soc_find(const struct board_db *db, const char *compatible)
{
	const char *p = compatible;

	while (p && *p) {
		size_t n = strcspn(p, " \t\n");

		for (size_t i = 0; i < db->n_socs; i++)
			if (strlen(db->socs[i].compatible) == n &&
			    strncmp(db->socs[i].compatible, p, n) == 0)
				return &db->socs[i];
		p += n;
		p += strspn(p, " \t\n");
	}
	return NULL;
}
