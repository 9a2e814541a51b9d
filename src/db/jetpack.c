#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_field.h"
#include "base/xalloc.h"
#include "db/data.h"
#include "db/jetpack.h"

static int str_field(const cJSON *o, const char *key, const char *where, const char **out,
		     struct xcc_error *err)
{
	char prefix[256];
	const cJSON *it;

	snprintf(prefix, sizeof prefix, "embedded data jetpack.json %s", where);
	if (json_member(o, key, cJSON_String, 0, &it, prefix, NULL, err))
		return -1;
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

/* cuda_compat_from: absent or null when no CUDA needs cuda-compat; else
 * above the shipped CUDA and not above cuda_reachable. */
static int load_compat_from(struct jetpack_release *r, const cJSON *o, struct xcc_error *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "cuda_compat_from");

	if (!it || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsString(it) || cuda_version_parse(it->valuestring, &r->compat_from))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: cuda_compat_from must be a CUDA "
				"version or null", r->version);
	if (!r->has_reachable || cuda_version_cmp(r->compat_from, r->cuda) <= 0 ||
	    cuda_version_cmp(r->compat_from, r->reachable) > 0)
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: cuda_compat_from %s must be above "
				"the CUDA it ships and not above cuda_reachable", r->version,
				it->valuestring);
	r->has_compat_from = 1;
	return 0;
}

static int version_field(const cJSON *o, const char *key, const char *where,
			 struct cuda_version *out, struct xcc_error *err)
{
	const char *t = NULL;

	if (str_field(o, key, where, &t, err))
		return -1;
	if (cuda_version_parse(t, out))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: bad %s %s", where, key, t);
	return 0;
}

/* One gpu_compat rule: a board of the line, a redist component, a CUDA
 * range past cuda_reachable, its source and whether it is unverified. */
static int load_gpu_compat_rule(struct jetpack_release *r, const cJSON *o,
				struct jetpack_gpu_compat *g, struct xcc_error *err)
{
	static const char *const keys[] = { "board", "component", "cuda_from", "cuda_to",
					    "unverified", "source", NULL };
	const cJSON *uv = cJSON_GetObjectItemCaseSensitive(o, "unverified");
	const char *board = NULL;
	struct gpu_cap_spelling sp;

	memset(g, 0, sizeof *g);
	if (!cJSON_IsObject(o))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: each gpu_compat rule is an object",
				r->version);
	if (gpudb_only_keys(o, keys, "jetpack.json gpu_compat", err) ||
	    str_field(o, "board", r->version, &board, err) ||
	    str_field(o, "component", r->version, &g->component, err) ||
	    str_field(o, "source", r->version, &g->source, err) ||
	    version_field(o, "cuda_from", r->version, &g->from, err) ||
	    version_field(o, "cuda_to", r->version, &g->to, err))
		return -1;
	if (gpu_cap_parse(board, &sp) || sp.prefix != GPU_CAP_BARE || sp.variant)
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: gpu_compat board %s is no "
				"capability", r->version, board);
	g->major = sp.major;
	g->minor = sp.minor;
	g->unverified = cJSON_IsTrue(uv);
	if (uv && !cJSON_IsBool(uv))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: gpu_compat unverified is true or "
				"false", r->version);
	if (!jetpack_supports_board(r, &(struct gpu_cap){ .major = g->major, .minor = g->minor }))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: gpu_compat board %s is not one of "
				"its boards", r->version, board);
	if (cuda_version_cmp(g->from, jetpack_cuda_max(r)) <= 0 || cuda_version_cmp(g->to, g->from) < 0)
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: gpu_compat's CUDA range must start "
				"past cuda_reachable and not end before it starts", r->version);
	return 0;
}

/* gpu_compat (optional, after boards) and cuda_min (optional). */
static int load_line_extras(struct jetpack_release *r, const cJSON *o, struct xcc_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "gpu_compat"), *it;

	if (cJSON_GetObjectItemCaseSensitive(o, "cuda_min")) {
		const char *src;

		if (version_field(o, "cuda_min", r->version, &r->cuda_min, err) ||
		    str_field(o, "cuda_min_source", r->version, &src, err))
			return -1;
		r->has_min = 1;
	}
	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: gpu_compat must be an array",
				r->version);
	r->gpu_compat = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof *r->gpu_compat);
	cJSON_ArrayForEach(it, arr)
		if (load_gpu_compat_rule(r, it, &r->gpu_compat[r->n_gpu_compat++], err))
			return -1;
	return 0;
}

/* A list of strings (l4t, unverified); unverified entries must name one of
 * fields, so that a misspelt field is refused instead of never said. */
static int str_list(const cJSON *o, const char *key, const char *version,
		    const char *const *fields, const char ***out, size_t *n, struct xcc_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key), *it;

	if (!cJSON_IsArray(arr))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: %s must be an array", version, key);
	*out = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof **out);
	cJSON_ArrayForEach(it, arr) {
		size_t i = 0;

		if (!cJSON_IsString(it))
			return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: %s entries are strings",
					version, key);
		while (fields && fields[i] && strcmp(fields[i], it->valuestring) != 0)
			i++;
		if (fields && !fields[i])
			return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: %s names no field of the "
					"entry: \"%s\"", version, key, it->valuestring);
		(*out)[(*n)++] = it->valuestring;
	}
	return 0;
}

static int load_cuda(const cJSON *o, const char *version, struct jetpack_release *r,
		     struct xcc_error *err)
{
	const char *cuda = NULL, *reach = NULL;
	const cJSON *rj;

	if (str_field(o, "cuda", version, &cuda, err))
		return -1;
	if (cuda_version_parse(cuda, &r->cuda))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: bad cuda %s", version, cuda);
	if (r->line)
		return 0;
	rj = cJSON_GetObjectItemCaseSensitive(o, "cuda_reachable");
	if (cJSON_IsString(rj))
		reach = rj->valuestring;
	else if (!cJSON_IsNull(rj))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: cuda_reachable must be a string or null",
				version);
	if (reach) {
		if (cuda_version_parse(reach, &r->reachable))
			return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: bad cuda_reachable %s",
					version, reach);
		r->has_reachable = 1;
	}
	return load_compat_from(r, o, err);
}

static int load_boards(const cJSON *o, struct jetpack_release *r, const struct gpudb *gdb,
		       struct xcc_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "boards"), *it;

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

/* "5.1" or "5.1.N" for the line "5.1". */
static int point_of_line(const char *point, const char *line)
{
	size_t n = strlen(line);
	int patch, used = 0;

	if (strncmp(point, line, n) != 0)
		return 0;
	if (!point[n])
		return 1;
	return point[n] == '.' && sscanf(point + n + 1, "%d%n", &patch, &used) == 1 &&
	       !point[n + 1 + (size_t)used];
}

/* A point release: its own version, L4T, CUDA and Ubuntu; the line's
 * floors and boards, which the line's Ubuntu decides. */
static int load_point(struct jetpack_release *p, const cJSON *o, const struct jetpack_release *line,
		      struct xcc_error *err)
{
	static const char *const keys[] = { "jetpack", "l4t", "cuda", "ubuntu", "unverified",
					    "source", NULL };
	static const char *const fields[] = { "l4t", "cuda", "ubuntu", NULL };
	char b1[16], b2[16];

	*p = *line;
	p->l4t = NULL;
	p->n_l4t = 0;
	p->unverified = NULL;
	p->n_unverified = 0;
	p->points = NULL;
	p->n_points = 0;
	p->line = line;
	if (!cJSON_IsObject(o))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: each point release is an object",
				line->version);
	if (str_field(o, "jetpack", line->version, &p->version, err) ||
	    gpudb_only_keys(o, keys, "jetpack.json point release", err) ||
	    str_list(o, "l4t", p->version, NULL, &p->l4t, &p->n_l4t, err) ||
	    str_list(o, "unverified", p->version, fields, &p->unverified, &p->n_unverified, err) ||
	    str_field(o, "ubuntu", p->version, &p->ubuntu, err) ||
	    str_field(o, "source", p->version, &p->source, err) || load_cuda(o, p->version, p, err))
		return -1;
	if (!point_of_line(p->version, line->version))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: point release %s is not of that line",
				line->version, p->version);
	if (strcmp(p->ubuntu, line->ubuntu) != 0)
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: Ubuntu %s, but its line's floors are "
				"Ubuntu %s's", p->version, p->ubuntu, line->ubuntu);
	if (cuda_version_cmp(p->cuda, jetpack_cuda_max(line)) > 0)
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: CUDA %s, past its line's %s",
				p->version, cuda_version_str(p->cuda, b1, sizeof b1),
				cuda_version_str(jetpack_cuda_max(line), b2, sizeof b2));
	return 0;
}

/* The line's L4T releases: its points', newest first. */
static void line_l4t(struct jetpack_release *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_points; i++)
		n += r->points[i].n_l4t;
	r->l4t = xmalloc((n + 1) * sizeof *r->l4t);
	for (size_t i = r->n_points; i-- > 0;)
		for (size_t k = 0; k < r->points[i].n_l4t; k++)
			r->l4t[r->n_l4t++] = r->points[i].l4t[k];
}

static int load_points(struct jetpack_release *r, const cJSON *o, struct xcc_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "points"), *it;

	if (!cJSON_IsArray(arr))
		return xcc_fail(err, XCC_EFAIL, "jetpack.json %s: points must be an array", r->version);
	r->points = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof *r->points);
	cJSON_ArrayForEach(it, arr) {
		if (load_point(&r->points[r->n_points], it, r, err)) {
			r->n_points++;
			return -1;
		}
		r->n_points++;
	}
	line_l4t(r);
	return 0;
}

static int load_release(struct jetpack_release *r, const cJSON *o, const struct gpudb *gdb,
			struct xcc_error *err)
{
	static const char *const keys[] = { "jetpack", "ubuntu", "glibc", "glibcxx", "cxxabi",
					    "gcc_s", "cuda", "cuda_reachable", "cuda_compat_from",
					    "cuda_min", "cuda_min_source", "gpu_compat",
					    "boards", "unverified", "source", "points", NULL };
	static const char *const fields[] = { "ubuntu", "glibc", "glibcxx", "cxxabi", "gcc_s",
					      "cuda", "cuda_reachable", "cuda_compat_from",
					      "boards", NULL };
	const char *where = "releases";

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
	    str_field(o, "source", r->version, &r->source, err) ||
	    load_cuda(o, r->version, r, err) || load_boards(o, r, gdb, err) ||
	    load_line_extras(r, o, err) ||
	    str_list(o, "unverified", r->version, fields, &r->unverified, &r->n_unverified, err))
		return -1;
	return load_points(r, o, err);
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
	static const char *const top_keys[] = { "comment", "releases", "cuda_compat_comment", NULL };
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
		struct jetpack_release *r = &db->releases[i];

		for (size_t k = 0; k < r->n_points; k++) {
			free(r->points[k].l4t);
			free(r->points[k].unverified);
		}
		free(r->points);
		free(r->l4t);
		free(r->unverified);
		free(r->boards);
		free(r->gpu_compat);
	}
	free(db->releases);
	cJSON_Delete(db->json_root);
	memset(db, 0, sizeof *db);
}

/* "5", "5.1" or "5.1.2": major, minor (0 when absent), patch (-1 when
 * absent). */
static int parse_jetpack(const char *version, int *major, int *minor, int *patch)
{
	int n = 0, m = 0;

	*minor = 0;
	*patch = -1;
	if (!version || sscanf(version, "%d%n", major, &n) != 1)
		return -1;
	if (version[n] == '.') {
		if (sscanf(version + n + 1, "%d%n", minor, &m) != 1)
			return -1;
		n += 1 + m;
	}
	if (version[n] == '.') {
		if (sscanf(version + n + 1, "%d%n", patch, &m) != 1)
			return -1;
		n += 1 + m;
	}
	return version[n] ? -1 : 0;
}

const struct jetpack_release *jetpack_find_line(const struct jetpack_db *db, const char *version)
{
	int major, minor, patch;

	if (parse_jetpack(version, &major, &minor, &patch))
		return NULL;
	for (size_t i = 0; i < db->n; i++) {
		int rmaj = 0, rmin = 0;

		sscanf(db->releases[i].version, "%d.%d", &rmaj, &rmin);
		if (rmaj == major && rmin == minor)
			return &db->releases[i];
	}
	return NULL;
}

const struct jetpack_release *jetpack_find(const struct jetpack_db *db, const char *version)
{
	const struct jetpack_release *line = jetpack_find_line(db, version);
	int major, minor, patch;

	if (!line || parse_jetpack(version, &major, &minor, &patch))
		return NULL;
	if (patch < 0)
		return line;
	/* A point release is known only when listed: its L4T and CUDA are its own. */
	for (size_t i = 0; i < line->n_points; i++) {
		const struct jetpack_release *p = &line->points[i];
		int pmaj, pmin, ppatch;

		if (parse_jetpack(p->version, &pmaj, &pmin, &ppatch) == 0 &&
		    (ppatch < 0 ? 0 : ppatch) == patch)
			return p;
	}
	return NULL;
}

char *jetpack_point_versions(const struct jetpack_release *line)
{
	struct strvec v = STRVEC_INIT;
	char *s;

	for (size_t i = 0; i < line->n_points; i++)
		strvec_push(&v, line->points[i].version);
	s = v.n ? strvec_join(&v, ", ") : xstrdup("none");
	strvec_free(&v);
	return s;
}

const struct jetpack_release *jetpack_line(const struct jetpack_release *r)
{
	return r->line ? r->line : r;
}

static int listed(const struct jetpack_release *r, const char *field)
{
	for (size_t i = 0; i < r->n_unverified; i++)
		if (strcmp(r->unverified[i], field) == 0)
			return 1;
	return 0;
}

int jetpack_unverified(const struct jetpack_release *r, const char *field)
{
	if (listed(r, field))
		return 1;
	if (r->line)
		return listed(r->line, field) && strcmp(field, "l4t") != 0;
	/* A line's L4T releases are its points'; its other facts its own. */
	for (size_t i = 0; strcmp(field, "l4t") == 0 && i < r->n_points; i++)
		if (listed(&r->points[i], field))
			return 1;
	return 0;
}

char *jetpack_l4t_text(const struct jetpack_release *r)
{
	const char *head = jetpack_unverified(r, "l4t") ? "unverified " : "";

	if (!r->n_l4t)
		return NULL;
	if (r->n_l4t == 1)
		return xasprintf("%sL4T %s", head, r->l4t[0]);
	return xasprintf("%sL4T %s to %s", head, r->l4t[r->n_l4t - 1], r->l4t[0]);
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

int jetpack_needs_compat(const struct jetpack_release *r, struct cuda_version v)
{
	return r->has_compat_from && cuda_version_cmp(v, r->compat_from) >= 0 &&
	       cuda_version_cmp(v, jetpack_cuda_max(r)) <= 0;
}

char *jetpack_compat_dir(struct cuda_version v)
{
	return xasprintf("/usr/local/cuda-%d.%d/compat", v.major, v.minor);
}

const struct jetpack_gpu_compat *jetpack_gpu_compat_for(const struct jetpack_release *r,
							const struct gpu_cap *cap,
							struct cuda_version v)
{
	const struct jetpack_release *line = jetpack_line(r);

	for (size_t i = 0; i < line->n_gpu_compat; i++) {
		const struct jetpack_gpu_compat *g = &line->gpu_compat[i];

		if (g->major == cap->major && g->minor == cap->minor &&
		    cuda_version_cmp(v, g->from) >= 0 && cuda_version_cmp(v, g->to) <= 0)
			return g;
	}
	return NULL;
}

const struct jetpack_gpu_compat *jetpack_gpu_compat_any(const struct jetpack_release *r,
							struct cuda_version v)
{
	const struct jetpack_release *line = jetpack_line(r);

	for (size_t i = 0; i < line->n_gpu_compat; i++)
		if (cuda_version_cmp(v, line->gpu_compat[i].from) >= 0 &&
		    cuda_version_cmp(v, line->gpu_compat[i].to) <= 0)
			return &line->gpu_compat[i];
	return NULL;
}

int jetpack_runs(const struct jetpack_release *r, const struct gpu_cap *cap, struct cuda_version v)
{
	const struct jetpack_release *line = jetpack_line(r);

	if (!jetpack_supports_board(r, cap) ||
	    (line->has_min && cuda_version_cmp(v, line->cuda_min) < 0))
		return 0;
	return cuda_version_cmp(v, jetpack_cuda_max(r)) <= 0 || jetpack_gpu_compat_for(r, cap, v);
}

static int runs(const struct jetpack_release *r, const struct gpu_cap *cap, struct cuda_version v)
{
	return jetpack_runs(r, cap, v);
}

static int runs_all(const struct jetpack_release *r, const struct arch_choice *c)
{
	int any = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (!c->entries[i].cap->jetson)
			continue;
		if (!runs(r, c->entries[i].cap, c->cuda))
			return 0;
		any = 1;
	}
	return any;
}

void jetpack_compat_releases(const struct jetpack_db *db, const struct jetpack_release *jp,
			     const struct arch_choice *c, struct strvec *needs,
			     struct strvec *plain)
{
	/* A point release has its line's cuda_compat_from but its own name. */
	if (jp) {
		if (runs_all(jp, c))
			strvec_push(jetpack_needs_compat(jp, c->cuda) ? needs : plain, jp->version);
		return;
	}
	for (size_t k = 0; k < db->n; k++) {
		const struct jetpack_release *r = &db->releases[k];

		if (!runs_all(r, c))
			continue;
		strvec_push(jetpack_needs_compat(r, c->cuda) ? needs : plain, r->version);
	}
}

static struct board_need *add_need(struct board_needs *b, const char *component)
{
	struct board_need *n;

	b->v = xrealloc(b->v, (b->n + 1) * sizeof *b->v);
	n = &b->v[b->n++];
	memset(n, 0, sizeof *n);
	n->component = xstrdup(component);
	/* cuda_compat's archive holds compat/, cuda_compat_orin's compat_orin/. */
	n->subdir = strncmp(n->component, "cuda_", 5) == 0 ? n->component + 5 : n->component;
	return n;
}

/* "5.1's", "5.0's and 5.1's": the releases whose boards need something. */
static char *owners(const struct strvec *v)
{
	struct strvec o = STRVEC_INIT;
	char *s, *last;

	for (size_t i = 0; i + 1 < v->n; i++)
		strvec_pushf(&o, "%s's", v->v[i]);
	s = strvec_join(&o, ", ");
	last = xasprintf("%s%s%s's", s, o.n ? " and " : "", v->v[v->n - 1]);
	free(s);
	strvec_free(&o);
	return last;
}

/* The gpu_compat rule that every release running c (jp alone when given)
 * needs for Jetson GPU cap, or NULL; into owner the releases' names. */
static const struct jetpack_gpu_compat *gpu_need(const struct jetpack_db *db,
						 const struct jetpack_release *jp,
						 const struct arch_choice *c, const struct gpu_cap *cap,
						 struct strvec *owner)
{
	const struct jetpack_gpu_compat *rule = NULL;
	size_t n = jp ? 1 : db->n;

	for (size_t k = 0; k < n; k++) {
		const struct jetpack_release *r = jp ? jp : &db->releases[k];
		const struct jetpack_gpu_compat *g;

		if (!runs_all(r, c))
			continue;
		if (!(g = jetpack_gpu_compat_for(r, cap, c->cuda)) ||
		    (rule && strcmp(rule->component, g->component) != 0))
			return NULL;
		rule = g;
		strvec_push(owner, r->version);
	}
	return rule;
}

/* "cuda_compat_orin" -> "cuda-compat-orin-13-2": NVIDIA's board package of
 * a compat component, named as cuda-compat-X-Y is. */
static char *compat_package(const char *component, struct cuda_version v)
{
	char *s = xasprintf("%s-%d-%d", component, v.major, v.minor);

	for (char *p = s; *p; p++)
		if (*p == '_')
			*p = '-';
	return s;
}

static void add_gpu_needs(const struct jetpack_db *db, const struct jetpack_release *jp,
			  const struct arch_choice *c, struct board_needs *out)
{
	char tok[16];

	for (size_t i = 0; i < c->n; i++) {
		const struct gpu_cap *cap = c->entries[i].cap;
		struct strvec owner = STRVEC_INIT;
		const struct jetpack_gpu_compat *g;
		struct board_need *n;
		char *list;
		int dup = 0;

		if (!cap->jetson || !(g = gpu_need(db, jp, c, cap, &owner)) || !owner.n) {
			strvec_free(&owner);
			continue;
		}
		for (size_t k = 0; k < out->n; k++)
			dup |= strcmp(out->v[k].component, g->component) == 0;
		if (dup) {
			strvec_free(&owner);
			continue;
		}
		n = add_need(out, g->component);
		n->planned = 1;
		n->package = compat_package(g->component, c->cuda);
		n->dir = xasprintf("/usr/local/cuda-%d.%d/%s", c->cuda.major, c->cuda.minor,
				   n->subdir);
		list = owners(&owner);
		gpu_cap_token(cap, tok, sizeof tok);
		n->why = xasprintf("JetPack %s sm_%s (%s) runs CUDA %d.%d only with NVIDIA's compat "
				   "libraries for it installed on the board (%s, libcuda.so.* in %s; "
				   "the %s component %s)%s", list, tok, cap->boards, c->cuda.major,
				   c->cuda.minor, n->package, n->dir, c->tag, g->component,
				   g->unverified ? "; unverified: no NVIDIA page states this pairing, "
				   "cuda-xcc's table has it from NVIDIA's container toolkit and the "
				   "projects that run it" : "");
		free(list);
		strvec_free(&owner);
	}
}

void jetpack_board_needs(const struct jetpack_db *db, const struct jetpack_release *jp,
			 const struct arch_choice *c, struct board_needs *out)
{
	struct strvec needs = STRVEC_INIT, plain = STRVEC_INIT;

	memset(out, 0, sizeof *out);
	jetpack_compat_releases(db, jp, c, &needs, &plain);
	if (needs.n && !plain.n) {
		struct board_need *n = add_need(out, JETPACK_COMPAT_COMPONENT);
		char *list = owners(&needs);

		n->package = xasprintf("cuda-compat-%d-%d", c->cuda.major, c->cuda.minor);
		n->dir = jetpack_compat_dir(c->cuda);
		n->why = xasprintf("JetPack %s boards run CUDA %d.%d only with NVIDIA's "
				   "cuda-compat package installed on the board (%s, libcuda.so.* "
				   "in %s)", list, c->cuda.major, c->cuda.minor, n->package, n->dir);
		free(list);
	}
	add_gpu_needs(db, jp, c, out);
	strvec_free(&needs);
	strvec_free(&plain);
}

void board_needs_free(struct board_needs *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].component);
		free(b->v[i].package);
		free(b->v[i].dir);
		free(b->v[i].why);
	}
	free(b->v);
	memset(b, 0, sizeof *b);
}

struct cJSON *board_need_to_json(const struct board_need *n)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "component", n->component);
	if (n->package)
		cJSON_AddStringToObject(e, "package", n->package);
	else
		cJSON_AddNullToObject(e, "package");
	if (n->dir)
		cJSON_AddStringToObject(e, "device_dir", n->dir);
	else
		cJSON_AddNullToObject(e, "device_dir");
	cJSON_AddStringToObject(e, "why", n->why);
	return e;
}

/* "CUDA 12.6, up to 12.9": what r runs on cap ("CUDA 13.2, 13.0 to 13.4"
 * with a floor; "; 13.2 with cuda_compat_orin" through a gpu_compat rule,
 * "unverified" when so). Caller frees. */
static char *runs_text(const struct jetpack_release *r, const struct gpu_cap *cap)
{
	const struct jetpack_release *line = jetpack_line(r);
	struct cuda_version max = jetpack_cuda_max(r);
	char b1[16], b2[16], b3[16], *s;

	cuda_version_str(r->cuda, b1, sizeof b1);
	cuda_version_str(max, b2, sizeof b2);
	if (line->has_min && cuda_version_cmp(line->cuda_min, r->cuda) < 0)
		s = xasprintf("CUDA %s, %s to %s", b1,
			      cuda_version_str(line->cuda_min, b3, sizeof b3), b2);
	else if (cuda_version_cmp(max, r->cuda) > 0)
		s = xasprintf("CUDA %s, up to %s", b1, b2);
	else
		s = xasprintf("CUDA %s", b1);
	for (size_t i = 0; i < line->n_gpu_compat; i++) {
		const struct jetpack_gpu_compat *g = &line->gpu_compat[i];
		char *t;

		if (g->major != cap->major || g->minor != cap->minor)
			continue;
		cuda_version_str(g->from, b1, sizeof b1);
		cuda_version_str(g->to, b2, sizeof b2);
		t = xasprintf("%s; %s%s%s with %s%s", s, b1, strcmp(b1, b2) ? " to " : "",
			      strcmp(b1, b2) ? b2 : "", g->component, g->unverified ? ", unverified" : "");
		free(s);
		s = t;
	}
	return s;
}

/* "CUDA up to 12.9", "CUDA 13.0 to 13.4": the range of r's line. */
static char *range_text(const struct jetpack_release *r)
{
	const struct jetpack_release *line = jetpack_line(r);
	char b1[16], b2[16];

	cuda_version_str(jetpack_cuda_max(r), b2, sizeof b2);
	if (line->has_min)
		return xasprintf("CUDA %s to %s", cuda_version_str(line->cuda_min, b1, sizeof b1), b2);
	return xasprintf("CUDA up to %s", b2);
}

/* "5.1 (CUDA 11.4, up to 12.2), 6.0 (...)": the releases that support
 * cap, or with only_v those that run CUDA *only_v on it; NULL when none. */
static char *releases_for(const struct jetpack_db *db, const struct gpu_cap *cap,
			  const struct cuda_version *only_v)
{
	struct strvec v = STRVEC_INIT;
	char *s = NULL;

	for (size_t i = 0; i < db->n; i++) {
		const struct jetpack_release *r = &db->releases[i];
		char *t;

		if (!jetpack_supports_board(r, cap) || (only_v && !runs(r, cap, *only_v)))
			continue;
		t = runs_text(r, cap);
		strvec_pushf(&v, "%s (%s)", r->version, t);
		free(t);
	}
	if (v.n)
		s = strvec_join(&v, ", ");
	strvec_free(&v);
	return s;
}

/* What to name when JetPack jp cannot run CUDA v on cap: exactly the
 * releases that can, else the ones that support the board at all. */
static char *releases_that_run(const struct jetpack_db *db, const struct gpu_cap *cap,
			       struct cuda_version v)
{
	char *run = releases_for(db, cap, &v), *any, *s, b[16];

	cuda_version_str(v, b, sizeof b);
	if (run) {
		s = xasprintf("JetPack releases that run CUDA %s on it: %s", b, run);
		free(run);
		return s;
	}
	if ((any = releases_for(db, cap, NULL))) {
		s = xasprintf("No JetPack release runs CUDA %s on it; the releases that support it: "
			      "%s", b, any);
		free(any);
		return s;
	}
	if (cap->renamed_to)
		return xasprintf("No JetPack release runs CUDA %s on it (from CUDA %d.0 it is "
				 "sm_%d%d, with JetPack 7)", b, cap->max_cuda.major + 1,
				 cap->renamed_major, cap->renamed_minor);
	return xasprintf("No JetPack release runs CUDA %s on it", b);
}

/* The releases for cap, when none runs c's CUDA on it (the warning). */
static char *releases_any(const struct jetpack_db *db, const struct gpu_cap *cap)
{
	char *s = releases_for(db, cap, NULL);

	if (s)
		return s;
	if (cap->renamed_to)
		return xasprintf("none (from CUDA %d.0 it is sm_%d%d, with JetPack 7)",
				 cap->max_cuda.major + 1, cap->renamed_major, cap->renamed_minor);
	return xstrdup("none");
}

/* A release the board runs: the facts it rests on that are unverified are
 * said, never passed over as checked. */
static void warn_unverified(const struct jetpack_release *jp, struct arch_choice *c)
{
	char b[16];

	if (jetpack_unverified(jp, "cuda"))
		strvec_pushf(&c->warnings,
			     "JetPack %s ships CUDA %s in cuda-xcc's table, which is unverified (no "
			     "NVIDIA page confirmed it): check the board's CUDA (nvcc --version or "
			     "/usr/local/cuda/version.json there)", jp->version,
			     cuda_version_str(jp->cuda, b, sizeof b));
	if (jetpack_unverified(jp, "cuda_reachable") && jp->has_reachable &&
	    cuda_version_cmp(c->cuda, jp->cuda) > 0)
		strvec_pushf(&c->warnings,
			     "that JetPack %s runs CUDA up to %s is unverified in cuda-xcc's table",
			     jp->version, cuda_version_str(jp->reachable, b, sizeof b));
	for (size_t i = 0; i < c->n; i++) {
		const struct gpu_cap *cap = c->entries[i].cap;
		const struct jetpack_gpu_compat *g;
		char tok[16];

		if (!cap->jetson || !(g = jetpack_gpu_compat_for(jp, cap, c->cuda)) || !g->unverified)
			continue;
		gpu_cap_token(cap, tok, sizeof tok);
		strvec_pushf(&c->warnings,
			     "that JetPack %s runs CUDA %d.%d on sm_%s through %s is unverified in "
			     "cuda-xcc's table (no NVIDIA page states it; sysroots/jetpack.json names "
			     "what it rests on)", jp->version, c->cuda.major, c->cuda.minor, tok,
			     g->component);
	}
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
		if (jp && !jetpack_supports_board(jp, cap)) {
			rel = releases_that_run(db, cap, c->cuda);
			xcc_fail(err, XCC_EUSAGE, "JetPack %s does not support %s (%s). %s",
				 jp->version, name, cap->boards, rel);
		} else if (jp) {
			char *t = range_text(jp);

			rel = releases_that_run(db, cap, c->cuda);
			xcc_fail(err, XCC_EUSAGE,
				 "JetPack %s runs %s on %s (%s), not CUDA %s. %s",
				 jp->version, t, name, cap->boards,
				 cuda_version_str(c->cuda, b2, sizeof b2), rel);
			free(t);
		} else {
			rel = releases_any(db, cap);
			strvec_pushf(&c->warnings,
				     "no JetPack runs CUDA %s on %s (%s), so the program will not run "
				     "there; JetPack releases for it: %s",
				     cuda_version_str(c->cuda, b1, sizeof b1), name, cap->boards, rel);
		}
		free(rel);
		if (jp)
			return -1;
	}
	if (jp)
		warn_unverified(jp, c);
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
