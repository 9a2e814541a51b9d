#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "db/data.h"
#include "db/jetpack.h"

static int str_field(const cJSON *o, const char *key, const char *where, const char **out,
		     struct xcc_error *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(it))
		return xcc_fail(err, XCC_EFAIL, "embedded data jetpack.json %s: \"%s\" must be a string",
				where, key);
	*out = it->valuestring;
	return 0;
}

/* A board is a Jetson GPU of the GPU table: one source of truth for both. */
static int check_board(const struct gpudb *gdb, const struct jetpack_release *r,
		       const struct gpu_cap_spelling *sp, struct xcc_error *err)
{
	const struct gpu_cap *cap = gpudb_find_cap(gdb, sp->major, sp->minor, 0);

	if (!cap || !cap->jetson)
		return xcc_fail(err, XCC_EFAIL, "embedded data jetpack.json %s: board %d.%d is no "
				"Jetson GPU of gpus.json", r->version, sp->major, sp->minor);
	return 0;
}

static int load_release(struct jetpack_release *r, const cJSON *o, const struct gpudb *gdb,
			struct xcc_error *err)
{
	static const char *const keys[] = { "jetpack", "l4t", "ubuntu", "glibc", "glibcxx",
					    "cxxabi", "gcc_s", "cuda", "cuda_reachable",
					    "boards", "source", NULL };
	const char *where = "releases", *cuda = NULL, *reach = NULL;
	const cJSON *arr, *it, *rj;

	memset(r, 0, sizeof *r);
	if (!cJSON_IsObject(o))
		return xcc_fail(err, XCC_EFAIL, "embedded data jetpack.json: each release is an object");
	if (str_field(o, "jetpack", where, &r->version, err) ||
	    gpudb_only_keys(o, keys, "jetpack.json release", err) ||
	    str_field(o, "ubuntu", r->version, &r->ubuntu, err) ||
	    str_field(o, "glibc", r->version, &r->glibc, err) ||
	    str_field(o, "glibcxx", r->version, &r->glibcxx, err) ||
	    str_field(o, "cxxabi", r->version, &r->cxxabi, err) ||
	    str_field(o, "gcc_s", r->version, &r->gcc_s, err) ||
	    str_field(o, "cuda", r->version, &cuda, err) ||
	    str_field(o, "source", r->version, &r->source, err))
		return -1;
	if (cuda_version_parse(cuda, &r->cuda))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: bad cuda %s", r->version, cuda);
	rj = cJSON_GetObjectItemCaseSensitive(o, "cuda_reachable");
	if (cJSON_IsString(rj))
		reach = rj->valuestring;
	else if (!cJSON_IsNull(rj))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: cuda_reachable must be a string or null",
				r->version);
	if (reach) {
		if (cuda_version_parse(reach, &r->reachable))
			return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: bad cuda_reachable %s",
					r->version, reach);
		r->has_reachable = 1;
	}
	arr = cJSON_GetObjectItemCaseSensitive(o, "l4t");
	if (!cJSON_IsArray(arr))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: l4t must be an array", r->version);
	r->l4t = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof *r->l4t);
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it))
			return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: l4t entries are strings",
					r->version);
		r->l4t[r->n_l4t++] = it->valuestring;
	}
	arr = cJSON_GetObjectItemCaseSensitive(o, "boards");
	if (!cJSON_IsArray(arr))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: boards must be an array", r->version);
	r->boards = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof *r->boards);
	cJSON_ArrayForEach(it, arr) {
		struct gpu_cap_spelling sp;

		if (!cJSON_IsString(it) || gpu_cap_parse(it->valuestring, &sp) ||
		    sp.prefix != GPU_CAP_BARE || sp.variant)
			return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: bad board capability",
					r->version);
		if (check_board(gdb, r, &sp, err))
			return -1;
		r->boards[r->n_boards].major = sp.major;
		r->boards[r->n_boards].minor = sp.minor;
		r->n_boards++;
	}
	return 0;
}

int jetpack_db_load(struct jetpack_db *db, const struct gpudb *gdb, struct xcc_error *err)
{
	const char *text = embedded_file_text("jetpack.json");

	memset(db, 0, sizeof *db);
	if (!text)
		return xcc_fail(err, XCC_EFAIL, "embedded data jetpack.json is missing from this build");
	return jetpack_db_parse(db, text, gdb, err);
}

int jetpack_db_parse(struct jetpack_db *db, const char *text, const struct gpudb *gdb,
		     struct xcc_error *err)
{
	static const char *const top_keys[] = { "comment", "releases", NULL };
	const cJSON *arr, *it;
	cJSON *root;

	memset(db, 0, sizeof *db);
	if (!(root = cJSON_Parse(text)))
		return xcc_fail(err, XCC_EFAIL, "embedded data jetpack.json is not valid JSON");
	db->json_root = root;
	if (gpudb_only_keys(root, top_keys, "jetpack.json", err))
		goto fail;
	arr = cJSON_GetObjectItemCaseSensitive(root, "releases");
	if (!cJSON_IsArray(arr)) {
		xcc_fail(err, XCC_EFAIL, "embedded data jetpack.json: \"releases\" must be an array");
		goto fail;
	}
	db->releases = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof *db->releases);
	cJSON_ArrayForEach(it, arr) {
		if (load_release(&db->releases[db->n], it, gdb, err)) {
			db->n++;
			goto fail;
		}
		db->n++;
	}
	return 0;
fail:
	jetpack_db_free(db);
	return -1;
}

void jetpack_db_free(struct jetpack_db *db)
{
	for (size_t i = 0; i < db->n; i++) {
		free(db->releases[i].l4t);
		free(db->releases[i].boards);
	}
	free(db->releases);
	cJSON_Delete(db->json_root);
	memset(db, 0, sizeof *db);
}

const struct jetpack_release *jetpack_find(const struct jetpack_db *db, const char *version)
{
	int major, minor = 0, n = 0;

	if (!version || sscanf(version, "%d%n", &major, &n) != 1)
		return NULL;
	if (version[n] == '.') {
		int m = 0;

		if (sscanf(version + n + 1, "%d%n", &minor, &m) != 1)
			return NULL;
		n += 1 + m;
	}
	/* A point release (5.1.2) belongs to its line (5.1). */
	if (version[n] == '.') {
		int patch, m = 0;

		if (sscanf(version + n + 1, "%d%n", &patch, &m) != 1)
			return NULL;
		n += 1 + m;
	}
	if (version[n])
		return NULL;
	for (size_t i = 0; i < db->n; i++) {
		int rmaj = 0, rmin = 0;

		sscanf(db->releases[i].version, "%d.%d", &rmaj, &rmin);
		if (rmaj == major && rmin == minor)
			return &db->releases[i];
	}
	return NULL;
}

char *jetpack_versions(const struct jetpack_db *db)
{
	struct strvec v = STRVEC_INIT;
	char *s;

	for (size_t i = 0; i < db->n; i++)
		strvec_push(&v, db->releases[i].version);
	s = strvec_join(&v, ", ");
	strvec_free(&v);
	return s;
}

int jetpack_supports_board(const struct jetpack_release *r, const struct gpu_cap *cap)
{
	for (size_t i = 0; i < r->n_boards; i++)
		if (r->boards[i].major == cap->major && r->boards[i].minor == cap->minor)
			return 1;
	return 0;
}

struct cuda_version jetpack_cuda_max(const struct jetpack_release *r)
{
	return r->has_reachable && cuda_version_cmp(r->reachable, r->cuda) > 0 ? r->reachable
									       : r->cuda;
}

static int runs(const struct jetpack_release *r, const struct gpu_cap *cap, struct cuda_version v)
{
	return jetpack_supports_board(r, cap) && cuda_version_cmp(v, jetpack_cuda_max(r)) <= 0;
}

/* "5.1 (CUDA 11.4, up to 12.2), 6.0 (...)": the releases that run cap. */
static char *releases_for(const struct jetpack_db *db, const struct gpu_cap *cap)
{
	struct strvec v = STRVEC_INIT;
	char *s, b1[16], b2[16];

	for (size_t i = 0; i < db->n; i++) {
		const struct jetpack_release *r = &db->releases[i];
		struct cuda_version max = jetpack_cuda_max(r);

		if (!jetpack_supports_board(r, cap))
			continue;
		if (cuda_version_cmp(max, r->cuda) > 0)
			strvec_pushf(&v, "%s (CUDA %s, up to %s)", r->version,
				     cuda_version_str(r->cuda, b1, sizeof b1),
				     cuda_version_str(max, b2, sizeof b2));
		else
			strvec_pushf(&v, "%s (CUDA %s)", r->version,
				     cuda_version_str(r->cuda, b1, sizeof b1));
	}
	if (v.n)
		s = strvec_join(&v, ", ");
	else if (cap->renamed_to)
		s = xasprintf("none (from CUDA %d.0 it is sm_%d%d, with JetPack 7)",
			      cap->max_cuda.major + 1, cap->renamed_major, cap->renamed_minor);
	else
		s = xstrdup("none");
	strvec_free(&v);
	return s;
}

int jetpack_check(const struct jetpack_db *db, const struct jetpack_release *jp,
		  struct arch_choice *c, struct xcc_error *err)
{
	char name[32], tok[16], b1[16], b2[16];

	for (size_t i = 0; i < c->n; i++) {
		const struct gpu_cap *cap = c->entries[i].cap;
		char *rel;
		int ok;

		gpu_cap_token(cap, tok, sizeof tok);
		snprintf(name, sizeof name, "sm_%s", tok);
		if (!cap->jetson) {
			if (jp && !c->entries[i].from_keyword)
				return xcc_fail(err, XCC_EUSAGE,
						"%s (%s) is no Jetson GPU, and JetPack %s runs only on "
						"Jetson boards; drop --jetpack for a server build",
						name, cap->arch, jp->version);
			continue;
		}
		ok = jp ? runs(jp, cap, c->cuda) : 0;
		for (size_t k = 0; !jp && k < db->n; k++)
			ok |= runs(&db->releases[k], cap, c->cuda);
		if (ok)
			continue;
		rel = releases_for(db, cap);
		if (jp && !jetpack_supports_board(jp, cap))
			xcc_fail(err, XCC_EUSAGE,
				 "JetPack %s does not support %s (%s). JetPack releases for it: %s",
				 jp->version, name, cap->boards, rel);
		else if (jp)
			xcc_fail(err, XCC_EUSAGE,
				 "JetPack %s runs CUDA up to %s on %s (%s), not CUDA %s. JetPack "
				 "releases for it: %s",
				 jp->version, cuda_version_str(jetpack_cuda_max(jp), b1, sizeof b1), name,
				 cap->boards, cuda_version_str(c->cuda, b2, sizeof b2), rel);
		else
			strvec_pushf(&c->warnings,
				     "no JetPack runs CUDA %s on %s (%s), so the program will not run "
				     "there; JetPack releases for it: %s",
				     cuda_version_str(c->cuda, b1, sizeof b1), name, cap->boards, rel);
		free(rel);
		if (jp)
			return -1;
	}
	return 0;
}

const struct jetpack_release *jetpack_floor_for(const struct jetpack_db *db,
						const struct jetpack_release *jp,
						const struct arch_choice *c)
{
	int any = 0;

	if (jp)
		return jp;
	for (size_t i = 0; i < c->n; i++)
		any |= c->entries[i].cap->jetson;
	if (!any)
		return NULL;
	for (size_t k = 0; k < db->n; k++) {
		int all = 1;

		for (size_t i = 0; i < c->n && all; i++)
			if (c->entries[i].cap->jetson && !runs(&db->releases[k], c->entries[i].cap, c->cuda))
				all = 0;
		if (all)
			return &db->releases[k];
	}
	return NULL;
}
