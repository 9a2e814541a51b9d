#include <config.h>

#include <cjson/cJSON.h>
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_field.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "db/data.h"
#include "db/gpus.h"

const char *embedded_file_text(const char *name)
{
	for (const struct embedded_file *f = xcc_embedded_files; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f->text;
	return NULL;
}

/* One decimal component of at most max: digits only (no sign, no space),
 * checked before it can overflow. */
static int version_component(const char **p, int max, int *out)
{
	const char *s = *p;
	int v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (max - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*p = s;
	*out = v;
	return 0;
}

int cuda_version_parse(const char *s, struct cuda_version *v)
{
	int major, minor, patch = -1;

	if (!s || version_component(&s, 99, &major) || *s++ != '.' ||
	    version_component(&s, 99, &minor))
		return -1;
	if (*s == '.' && (s++, version_component(&s, 9999, &patch)))
		return -1;
	if (*s)
		return -1;
	v->major = major;
	v->minor = minor;
	v->patch = patch;
	return 0;
}

int cuda_version_cmp(struct cuda_version a, struct cuda_version b)
{
	if (a.major != b.major)
		return a.major < b.major ? -1 : 1;
	if (a.minor != b.minor)
		return a.minor < b.minor ? -1 : 1;
	return 0;
}

const char *cuda_version_str(struct cuda_version v, char *buf, size_t len)
{
	if (v.patch >= 0)
		snprintf(buf, len, "%d.%d.%d", v.major, v.minor, v.patch);
	else
		snprintf(buf, len, "%d.%d", v.major, v.minor);
	return buf;
}

const char *gpu_cap_name(const struct gpu_cap *c, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d%.1s", c->major, c->minor, c->variant ? &c->variant : "");
	return buf;
}

const char *gpu_cap_token(const struct gpu_cap *c, char *buf, size_t len)
{
	snprintf(buf, len, "%d%d%.1s", c->major, c->minor, c->variant ? &c->variant : "");
	return buf;
}

static int variant_rank(char v)
{
	return v == 'a' ? 1 : v == 'f' ? 2 : 0;
}

int gpu_cap_cmp(const struct gpu_cap *a, const struct gpu_cap *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	return variant_rank(a->variant) - variant_rank(b->variant);
}

int gpu_cap_supported_by(const struct gpu_cap *c, struct cuda_version v)
{
	if (cuda_version_cmp(v, c->min_cuda) < 0)
		return 0;
	return !c->has_max || cuda_version_cmp(v, c->max_cuda) <= 0;
}

int gpu_cap_in_default_set(const struct gpu_cap *c)
{
	return c->is_default && !c->jetson && !c->variant;
}

int gpu_cap_default_for(const struct gpu_cap *c, struct cuda_version v)
{
	if (!gpu_cap_in_default_set(c) || !gpu_cap_supported_by(c, v))
		return 0;
	return !c->has_default_until || cuda_version_cmp(v, c->default_until) <= 0;
}

/* --- loading ---------------------------------------------------------- */

/* The embedded tables' fields, through base/json_field.h: where names the
 * table and the entry ("gpus.json capabilities"). */
static int want(const cJSON *obj, const char *key, const char *where, int type, int optional,
		const cJSON **it, struct xcc_error *err)
{
	char prefix[256];

	snprintf(prefix, sizeof prefix, "embedded data %s", where);
	return json_member(obj, key, type, optional, it, prefix, NULL, err);
}

static int want_string(const cJSON *obj, const char *key, const char *where,
		       const char **out, int optional, struct xcc_error *err)
{
	const cJSON *it;

	*out = NULL;
	if (want(obj, key, where, cJSON_String, optional, &it, err))
		return -1;
	*out = it ? it->valuestring : NULL;
	return 0;
}

static int want_version(const cJSON *obj, const char *key, const char *where,
			struct cuda_version *out, int *present, struct xcc_error *err)
{
	const char *s;

	if (want_string(obj, key, where, &s, present != NULL, err))
		return -1;
	if (present)
		*present = s != NULL;
	if (!s)
		return 0;
	if (cuda_version_parse(s, out))
		return xcc_fail(err, XCC_EFAIL, "embedded data %s: %s must be a version, not %s",
				where, key, s);
	return 0;
}

static int want_bool(const cJSON *obj, const char *key, const char *where, int *out,
		     struct xcc_error *err)
{
	const cJSON *it;

	if (want(obj, key, where, JSON_BOOL, 0, &it, err))
		return -1;
	*out = cJSON_IsTrue(it);
	return 0;
}

static int want_int(const cJSON *obj, const char *key, const char *where, int *out,
		    struct xcc_error *err)
{
	const cJSON *it;

	if (want(obj, key, where, cJSON_Number, 0, &it, err))
		return -1;
	*out = it->valueint;
	return 0;
}

static const cJSON *want_array(const cJSON *obj, const char *key, const char *where,
			       struct xcc_error *err)
{
	const cJSON *it;

	return want(obj, key, where, cJSON_Array, 0, &it, err) ? NULL : it;
}

static cJSON *parse_embedded(struct gpudb *db, const char *name, struct xcc_error *err)
{
	const char *text = embedded_file_text(name);
	cJSON *root;

	if (!text) {
		xcc_fail(err, XCC_EFAIL, "embedded data %s is missing from this build", name);
		return NULL;
	}
	root = cJSON_Parse(text);
	if (!root) {
		xcc_fail(err, XCC_EFAIL, "embedded data %s is not valid JSON", name);
		return NULL;
	}
	if (db->n_json_roots == sizeof db->json_roots / sizeof db->json_roots[0]) {
		cJSON_Delete(root);
		xcc_fail(err, XCC_EFAIL, "too many embedded data files");
		return NULL;
	}
	db->json_roots[db->n_json_roots++] = root;
	return root;
}

/* The data spell a capability as "8.7", its variant apart. */
static int parse_cap_string(const char *s, int *major, int *minor)
{
	struct gpu_cap_spelling sp;

	if (gpu_cap_parse(s, &sp) || sp.prefix != GPU_CAP_BARE || sp.variant)
		return -1;
	*major = sp.major;
	*minor = sp.minor;
	return 0;
}

static int load_cap(struct gpu_cap *c, const cJSON *j, struct xcc_error *err)
{
	const char *where = "gpus.json capabilities";
	const char *cap, *variant;

	memset(c, 0, sizeof *c);
	if (want_string(j, "cap", where, &cap, 0, err) ||
	    want_string(j, "variant", where, &variant, 0, err) ||
	    want_string(j, "arch", where, &c->arch, 0, err) ||
	    want_string(j, "boards", where, &c->boards, 1, err) ||
	    want_string(j, "renamed_to", where, &c->renamed_to, 1, err) ||
	    want_bool(j, "jetson", where, &c->jetson, err) ||
	    want_bool(j, "default", where, &c->is_default, err) ||
	    want_version(j, "min_cuda", where, &c->min_cuda, NULL, err) ||
	    want_version(j, "max_cuda", where, &c->max_cuda, &c->has_max, err) ||
	    want_version(j, "default_until", where, &c->default_until, &c->has_default_until, err) ||
	    want_version(j, "sbsa_from_cuda", where, &c->sbsa_from, &c->has_sbsa_from, err))
		return -1;
	if (parse_cap_string(cap, &c->major, &c->minor))
		return xcc_fail(err, XCC_EFAIL, "%s: bad capability \"%s\"", where, cap);
	if (c->renamed_to && parse_cap_string(c->renamed_to, &c->renamed_major, &c->renamed_minor))
		return xcc_fail(err, XCC_EFAIL, "%s: bad renamed_to \"%s\" for %s", where,
				c->renamed_to, cap);
	if (strlen(variant) > 1 || (variant[0] && variant[0] != 'a' && variant[0] != 'f'))
		return xcc_fail(err, XCC_EFAIL, "%s: bad variant \"%s\" for %s", where, variant, cap);
	c->variant = variant[0];
	/* "tegra" is only written where it differs from "jetson" (8.8). */
	c->tegra = c->jetson;
	if (cJSON_GetObjectItemCaseSensitive(j, "tegra") && want_bool(j, "tegra", where, &c->tegra, err))
		return -1;
	return 0;
}

static int cap_qsort_cmp(const void *a, const void *b)
{
	return gpu_cap_cmp(a, b);
}

/* "unverified": which limits of a row no NVIDIA source confirmed. */
static int load_hostcc_unverified(const cJSON *row, struct host_compiler_limit *h,
				  struct xcc_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(row, "unverified"), *it;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return xcc_fail(err, XCC_EFAIL, "embedded data gpus.json host_compilers: "
				"\"unverified\" must be an array");
	cJSON_ArrayForEach(it, arr) {
		if (cJSON_IsString(it) && strcmp(it->valuestring, "gcc_max") == 0)
			h->gcc_unverified = 1;
		else if (cJSON_IsString(it) && strcmp(it->valuestring, "clang_max") == 0)
			h->clang_unverified = 1;
		else
			return xcc_fail(err, XCC_EFAIL, "embedded data gpus.json host_compilers: "
					"\"unverified\" names gcc_max or clang_max");
	}
	return 0;
}

static int load_hostcc(struct gpudb *db, const cJSON *root, struct xcc_error *err)
{
	static const char *const keys[] = { "min_cuda", "max_cuda", "gcc_max", "clang_max",
					    "unverified", "source", NULL };
	const char *where = "gpus.json host_compilers";
	const cJSON *arr, *it;

	if (!(arr = want_array(root, "host_compilers", "gpus.json", err)))
		return -1;
	db->hostcc = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof *db->hostcc);
	cJSON_ArrayForEach(it, arr) {
		struct host_compiler_limit *h = &db->hostcc[db->n_hostcc];

		memset(h, 0, sizeof *h);
		if (gpudb_only_keys(it, keys, where, err) ||
		    want_version(it, "min_cuda", where, &h->min_cuda, NULL, err) ||
		    want_version(it, "max_cuda", where, &h->max_cuda, &h->has_max, err) ||
		    want_int(it, "gcc_max", where, &h->gcc_max, err) ||
		    want_int(it, "clang_max", where, &h->clang_max, err) ||
		    want_string(it, "source", where, &h->source, 1, err) ||
		    load_hostcc_unverified(it, h, err))
			return -1;
		db->n_hostcc++;
	}
	return 0;
}

static int load_unverified_cuda(struct gpudb *db, const cJSON *root, struct xcc_error *err)
{
	static const char *const keys[] = { "cuda", "what", NULL };
	const char *where = "gpus.json unverified_cuda";
	const cJSON *arr, *it;

	if (!(arr = want_array(root, "unverified_cuda", "gpus.json", err)))
		return -1;
	db->unverified_cuda = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) *
				      sizeof *db->unverified_cuda);
	cJSON_ArrayForEach(it, arr) {
		struct unverified_cuda *u = &db->unverified_cuda[db->n_unverified_cuda];

		if (gpudb_only_keys(it, keys, where, err) ||
		    want_version(it, "cuda", where, &u->cuda, NULL, err) ||
		    want_string(it, "what", where, &u->what, 0, err))
			return -1;
		db->n_unverified_cuda++;
	}
	return 0;
}

static int load_gpus(struct gpudb *db, struct xcc_error *err)
{
	cJSON *root = parse_embedded(db, "gpus.json", err);
	const cJSON *arr, *it;
	size_t i;

	if (!root)
		return -1;
	if (!(arr = want_array(root, "capabilities", "gpus.json", err)))
		return -1;
	db->caps = xmalloc((size_t)cJSON_GetArraySize(arr) * sizeof *db->caps);
	cJSON_ArrayForEach(it, arr) {
		if (load_cap(&db->caps[db->n_caps], it, err))
			return -1;
		db->n_caps++;
	}
	qsort(db->caps, db->n_caps, sizeof *db->caps, cap_qsort_cmp);
	for (i = 1; i < db->n_caps; i++)
		if (gpu_cap_cmp(&db->caps[i - 1], &db->caps[i]) == 0)
			return xcc_fail(err, XCC_EFAIL, "gpus.json: capability %d.%d%c listed twice",
					db->caps[i].major, db->caps[i].minor, db->caps[i].variant);

	if (load_hostcc(db, root, err) || load_unverified_cuda(db, root, err))
		return -1;
	if (want_int(root, "gcc_min", "gpus.json", &db->gcc_min, err))
		return -1;

	if (!(arr = want_array(root, "cuda_never_released", "gpus.json", err)))
		return -1;
	db->never_released = xmalloc((size_t)cJSON_GetArraySize(arr) * sizeof *db->never_released);
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it) ||
		    cuda_version_parse(it->valuestring, &db->never_released[db->n_never_released]))
			return xcc_fail(err, XCC_EFAIL, "gpus.json: bad cuda_never_released entry");
		db->n_never_released++;
	}

	if (want_version(root, "newest_known_cuda", "gpus.json", &db->newest_known, NULL, err))
		return -1;
	arr = cJSON_GetObjectItemCaseSensitive(root, "last_minor");
	if (!cJSON_IsObject(arr))
		return xcc_fail(err, XCC_EFAIL, "embedded data gpus.json: \"last_minor\" must be an object");
	db->last_minor = xmalloc(((size_t)cJSON_GetArraySize(arr) + 1) * sizeof *db->last_minor);
	cJSON_ArrayForEach(it, arr) {
		struct cuda_version *lm = &db->last_minor[db->n_last_minor];

		if (!cJSON_IsString(it) || cuda_version_parse(it->valuestring, lm) ||
		    lm->major != atoi(it->string))
			return xcc_fail(err, XCC_EFAIL, "gpus.json: bad last_minor entry %s", it->string);
		db->n_last_minor++;
	}

	if (!(arr = want_array(root, "sbsa_jetson_threshold", "gpus.json", err)))
		return -1;
	db->thresholds = xmalloc((size_t)cJSON_GetArraySize(arr) * sizeof *db->thresholds);
	cJSON_ArrayForEach(it, arr) {
		struct sbsa_threshold *t = &db->thresholds[db->n_thresholds];
		const char *cap;

		if (want_version(it, "min_cuda", "gpus.json sbsa_jetson_threshold", &t->min_cuda, NULL, err) ||
		    want_string(it, "cap", "gpus.json sbsa_jetson_threshold", &cap, 0, err))
			return -1;
		if (parse_cap_string(cap, &t->major, &t->minor))
			return xcc_fail(err, XCC_EFAIL, "gpus.json sbsa_jetson_threshold: bad cap %s", cap);
		db->n_thresholds++;
	}
	return 0;
}

static int load_target(struct gpudb *db, const char *name, struct xcc_error *err)
{
	char file[64], where[96];
	cJSON *root;
	const cJSON *tags, *it;
	struct target_profile *t = &db->targets[db->n_targets];

	snprintf(file, sizeof file, "targets/%s.json", name);
	snprintf(where, sizeof where, "targets/%s.json", name);
	if (!(root = parse_embedded(db, file, err)))
		return -1;
	memset(t, 0, sizeof *t);
	if (want_string(root, "name", where, &t->name, 0, err) ||
	    want_string(root, "summary", where, &t->summary, 0, err) ||
	    want_string(root, "machine", where, &t->machine, 0, err) ||
	    want_string(root, "triple", where, &t->triple, 0, err) ||
	    want_bool(root, "jetson_only", where, &t->jetson_only, err))
		return -1;
	if (!(tags = want_array(root, "tags", where, err)))
		return -1;
	t->tags = xmalloc((size_t)cJSON_GetArraySize(tags) * sizeof *t->tags);
	cJSON_ArrayForEach(it, tags) {
		struct target_tag *tt = &t->tags[t->n_tags];
		const cJSON *ranges = cJSON_GetObjectItemCaseSensitive(it, "cuda_ranges"), *r;

		memset(tt, 0, sizeof *tt);
		if (want_string(it, "tag", where, &tt->tag, 0, err) ||
		    want_string(it, "target_dir", where, &tt->target_dir, 0, err))
			return -1;
		if (cJSON_IsArray(ranges)) {
			tt->ranges = xmalloc((size_t)cJSON_GetArraySize(ranges) * sizeof *tt->ranges);
			cJSON_ArrayForEach(r, ranges) {
				const cJSON *lo = cJSON_GetArrayItem(r, 0), *hi = cJSON_GetArrayItem(r, 1);

				if (!cJSON_IsString(lo) || !cJSON_IsString(hi) ||
				    cuda_version_parse(lo->valuestring, &tt->ranges[tt->n_ranges][0]) ||
				    cuda_version_parse(hi->valuestring, &tt->ranges[tt->n_ranges][1]))
					return xcc_fail(err, XCC_EFAIL, "%s: bad cuda_ranges", where);
				tt->n_ranges++;
			}
		}
		t->n_tags++;
	}
	db->n_targets++;
	return 0;
}

/* --- components.json ---------------------------------------------------- */

/* Whether obj has only the keys of allowed (NULL-terminated): a misspelt
 * key would otherwise be ignored without a word. */
int gpudb_only_keys(const cJSON *obj, const char *const *allowed, const char *where,
		    struct xcc_error *err)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, obj) {
		size_t i = 0;

		while (allowed[i] && strcmp(allowed[i], it->string) != 0)
			i++;
		if (!allowed[i])
			return xcc_fail(err, XCC_EFAIL, "embedded data %s: unknown key \"%s\"", where,
					it->string);
	}
	return 0;
}

static int load_component(struct gpudb *db, const cJSON *j, enum toolkit_side side,
			  size_t index, struct xcc_error *err)
{
	static const char *const host_keys[] = { "name", "min_cuda", "max_cuda", NULL };
	static const char *const target_keys[] = { "name", "min_cuda", "max_cuda", "optional",
						    "headers_only", NULL };
	struct toolkit_component *c = &db->components[db->n_components];
	char where[96];
	const char *list = side == TOOLKIT_HOST ? "host" : "target";

	snprintf(where, sizeof where, "components.json %s entry %zu", list, index + 1);
	memset(c, 0, sizeof *c);
	c->side = side;
	if (!cJSON_IsObject(j))
		return xcc_fail(err, XCC_EFAIL, "embedded data %s: not an object", where);
	if (want_string(j, "name", where, &c->name, 0, err))
		return -1;
	snprintf(where, sizeof where, "components.json %s %s", list, c->name);
	if (!*c->name)
		return xcc_fail(err, XCC_EFAIL, "embedded data %s: empty \"name\"", where);
	if (gpudb_only_keys(j, side == TOOLKIT_HOST ? host_keys : target_keys, where, err) ||
	    want_version(j, "min_cuda", where, &c->min_cuda, &c->has_min, err) ||
	    want_version(j, "max_cuda", where, &c->max_cuda, &c->has_max, err))
		return -1;
	if (cJSON_GetObjectItemCaseSensitive(j, "optional") &&
	    want_bool(j, "optional", where, &c->optional, err))
		return -1;
	if (cJSON_GetObjectItemCaseSensitive(j, "headers_only") &&
	    want_bool(j, "headers_only", where, &c->headers_only, err))
		return -1;
	if (c->has_min && c->has_max && cuda_version_cmp(c->min_cuda, c->max_cuda) > 0)
		return xcc_fail(err, XCC_EFAIL, "embedded data %s: min_cuda is past max_cuda", where);
	for (size_t i = 0; i < db->n_components; i++)
		if (db->components[i].side == side && strcmp(db->components[i].name, c->name) == 0)
			return xcc_fail(err, XCC_EFAIL, "embedded data %s: listed twice", where);
	db->n_components++;
	return 0;
}

static int load_libraries(struct gpudb *db, const cJSON *table, struct xcc_error *err)
{
	const cJSON *it, *pat;

	if (!cJSON_IsObject(table))
		return xcc_fail(err, XCC_EFAIL, "embedded data components.json: \"libraries\" must "
				"be an object");
	db->libraries = xmalloc(((size_t)cJSON_GetArraySize(table) + 1) * sizeof *db->libraries);
	cJSON_ArrayForEach(it, table) {
		struct component_libraries *l = &db->libraries[db->n_libraries];

		if (!cJSON_IsArray(it))
			return xcc_fail(err, XCC_EFAIL, "embedded data components.json libraries %s: "
					"must be an array of patterns", it->string);
		l->component = it->string;
		l->n_patterns = 0;
		l->patterns = xmalloc(((size_t)cJSON_GetArraySize(it) + 1) * sizeof *l->patterns);
		db->n_libraries++;
		cJSON_ArrayForEach(pat, it) {
			if (!cJSON_IsString(pat) || !*pat->valuestring)
				return xcc_fail(err, XCC_EFAIL, "embedded data components.json "
						"libraries %s: every pattern must be a non-empty "
						"string", it->string);
			l->patterns[l->n_patterns++] = pat->valuestring;
		}
	}
	return 0;
}

static int known_library_component(const struct gpudb *db, const char *name, const char *where,
				   struct xcc_error *err)
{
	if (!gpudb_component_libraries(db, name))
		return xcc_fail(err, XCC_EFAIL, "embedded data components.json %s: %s is not in "
				"the libraries table", where, name);
	return 0;
}

static int load_need(struct gpudb *db, const char *component, const cJSON *j,
		     struct xcc_error *err)
{
	static const char *const keys[] = { "name", "min_cuda", "max_cuda", "source", "unverified",
					    NULL };
	struct component_need *n = &db->needs[db->n_needs];
	const char *source;
	char where[128];

	snprintf(where, sizeof where, "components.json needs %s", component);
	memset(n, 0, sizeof *n);
	n->component = component;
	if (!cJSON_IsObject(j))
		return xcc_fail(err, XCC_EFAIL, "embedded data %s: every need is an object", where);
	if (gpudb_only_keys(j, keys, where, err) || want_string(j, "name", where, &n->need, 0, err) ||
	    want_string(j, "source", where, &source, 0, err) ||
	    (cJSON_GetObjectItemCaseSensitive(j, "unverified") &&
	     want_bool(j, "unverified", where, &n->unverified, err)) ||
	    want_version(j, "min_cuda", where, &n->min_cuda, &n->has_min, err) ||
	    want_version(j, "max_cuda", where, &n->max_cuda, &n->has_max, err) ||
	    known_library_component(db, n->need, "needs", err))
		return -1;
	db->n_needs++;
	return 0;
}

static int load_needs(struct gpudb *db, const cJSON *table, struct xcc_error *err)
{
	const cJSON *it, *need;
	size_t n = 0;

	if (!table)
		return 0;
	if (!cJSON_IsObject(table))
		return xcc_fail(err, XCC_EFAIL, "embedded data components.json: \"needs\" must be "
				"an object");
	cJSON_ArrayForEach(it, table)
		n += cJSON_IsArray(it) ? (size_t)cJSON_GetArraySize(it) : 0;
	db->needs = xmalloc((n + 1) * sizeof *db->needs);
	cJSON_ArrayForEach(it, table) {
		if (!cJSON_IsArray(it))
			return xcc_fail(err, XCC_EFAIL, "embedded data components.json needs %s: "
					"must be an array", it->string);
		if (known_library_component(db, it->string, "needs", err))
			return -1;
		cJSON_ArrayForEach(need, it)
			if (load_need(db, it->string, need, err))
				return -1;
	}
	return 0;
}

/* "licenses": checked, not kept (the Yocto and Buildroot files carry the
 * strings, and their tests compare them with this table). */
static int check_licenses(const struct gpudb *db, const cJSON *table, struct xcc_error *err)
{
	static const char *const keys[] = { "license", "text", "source", "unverified", NULL };
	const cJSON *it, *u;
	const char *s;

	if (table && !cJSON_IsObject(table))
		return xcc_fail(err, XCC_EFAIL, "embedded data components.json: \"licenses\" must "
				"be an object");
	cJSON_ArrayForEach(it, table) {
		char where[128];

		snprintf(where, sizeof where, "components.json licenses %s", it->string);
		if (known_library_component(db, it->string, "licenses", err) ||
		    gpudb_only_keys(it, keys, where, err) ||
		    want_string(it, "license", where, &s, 0, err) ||
		    want_string(it, "text", where, &s, 0, err) ||
		    want_string(it, "source", where, &s, 0, err) ||
		    want(it, "unverified", where, cJSON_Array, 0, &u, err))
			return -1;
		for (u = u->child; u; u = u->next)
			if (!cJSON_IsString(u) || !cJSON_GetObjectItemCaseSensitive(it, u->valuestring))
				return xcc_fail(err, XCC_EFAIL, "embedded data %s: unverified names "
						"no field of the entry", where);
	}
	return 0;
}

/* "packages" (values: a component or null) and "not_target" (values: why). */
static int load_names(const struct gpudb *db, const cJSON *table, const char *key, int packages,
		      struct name_entry **out, size_t *n_out, struct xcc_error *err)
{
	const cJSON *it;

	*out = NULL;
	*n_out = 0;
	if (!table)
		return 0;
	if (!cJSON_IsObject(table))
		return xcc_fail(err, XCC_EFAIL, "embedded data components.json: \"%s\" must be an "
				"object", key);
	*out = xmalloc(((size_t)cJSON_GetArraySize(table) + 1) * sizeof **out);
	cJSON_ArrayForEach(it, table) {
		struct name_entry *e = &(*out)[*n_out];

		if (!(cJSON_IsString(it) && *it->valuestring) && !(packages && cJSON_IsNull(it)))
			return xcc_fail(err, XCC_EFAIL, "embedded data components.json %s %s: must "
					"be %s", key, it->string, packages ?
					"a component's name or null" : "a non-empty reason");
		e->name = it->string;
		e->value = cJSON_IsString(it) ? it->valuestring : NULL;
		if (packages && e->value && known_library_component(db, e->value, key, err))
			return -1;
		if (!packages && gpudb_component_libraries(db, e->name))
			return xcc_fail(err, XCC_EFAIL, "embedded data components.json not_target "
					"%s: it is in the libraries table too", e->name);
		(*n_out)++;
	}
	return 0;
}

static int load_components_root(struct gpudb *db, const cJSON *root, struct xcc_error *err)
{
	static const char *const top_keys[] = { "comment", "host", "target", "libraries_comment",
						 "libraries", "needs_comment", "needs",
						 "packages_comment", "packages",
						 "licenses_comment", "licenses",
						 "not_target_comment", "not_target", NULL };
	const cJSON *host, *target, *it;
	size_t i = 0;

	if (!cJSON_IsObject(root))
		return xcc_fail(err, XCC_EFAIL, "embedded data components.json is not an object");
	if (gpudb_only_keys(root, top_keys, "components.json", err) ||
	    !(host = want_array(root, "host", "components.json", err)) ||
	    !(target = want_array(root, "target", "components.json", err)))
		return -1;
	db->components = xmalloc(((size_t)cJSON_GetArraySize(host) +
				  (size_t)cJSON_GetArraySize(target) + 1) * sizeof *db->components);
	cJSON_ArrayForEach(it, host)
		if (load_component(db, it, TOOLKIT_HOST, i++, err))
			return -1;
	i = 0;
	cJSON_ArrayForEach(it, target)
		if (load_component(db, it, TOOLKIT_TARGET, i++, err))
			return -1;
	if (load_libraries(db, cJSON_GetObjectItemCaseSensitive(root, "libraries"), err) ||
	    load_needs(db, cJSON_GetObjectItemCaseSensitive(root, "needs"), err) ||
	    check_licenses(db, cJSON_GetObjectItemCaseSensitive(root, "licenses"), err))
		return -1;
	return load_names(db, cJSON_GetObjectItemCaseSensitive(root, "packages"), "packages", 1,
			  &db->packages, &db->n_packages, err) ||
	       load_names(db, cJSON_GetObjectItemCaseSensitive(root, "not_target"), "not_target", 0,
			  &db->not_target, &db->n_not_target, err) ? -1 : 0;
}

int gpudb_load_components(struct gpudb *db, const char *text, struct xcc_error *err)
{
	cJSON *root = cJSON_Parse(text);

	if (!root)
		return xcc_fail(err, XCC_EFAIL, "embedded data components.json is not valid JSON");
	if (db->n_json_roots == sizeof db->json_roots / sizeof db->json_roots[0]) {
		cJSON_Delete(root);
		return xcc_fail(err, XCC_EFAIL, "too many embedded data files");
	}
	db->json_roots[db->n_json_roots++] = root;
	return load_components_root(db, root, err);
}

int toolkit_component_applies(const struct toolkit_component *c, struct cuda_version v)
{
	return (!c->has_min || cuda_version_cmp(v, c->min_cuda) >= 0) &&
	       (!c->has_max || cuda_version_cmp(v, c->max_cuda) <= 0);
}

const struct component_libraries *gpudb_component_libraries(const struct gpudb *db,
							    const char *name)
{
	for (size_t i = 0; i < db->n_libraries; i++)
		if (strcmp(db->libraries[i].component, name) == 0)
			return &db->libraries[i];
	return NULL;
}

void gpudb_add_needs(const struct gpudb *db, struct cuda_version v, struct strvec *components)
{
	/* components grows as it is walked: what is added is looked at too. */
	for (size_t i = 0; i < components->n; i++)
		for (size_t k = 0; k < db->n_needs; k++) {
			const struct component_need *n = &db->needs[k];

			if (strcmp(n->component, components->v[i]) != 0 ||
			    (n->has_min && cuda_version_cmp(v, n->min_cuda) < 0) ||
			    (n->has_max && cuda_version_cmp(v, n->max_cuda) > 0) ||
			    strvec_contains(components, n->need))
				continue;
			strvec_push(components, n->need);
		}
}

int gpudb_package_entry(const struct gpudb *db, const char *stem, const char **component)
{
	for (size_t i = 0; i < db->n_packages; i++)
		if (strcmp(db->packages[i].name, stem) == 0) {
			*component = db->packages[i].value;
			return 1;
		}
	return 0;
}

const char *gpudb_not_target(const struct gpudb *db, const char *name)
{
	for (size_t i = 0; i < db->n_not_target; i++)
		if (strcmp(db->not_target[i].name, name) == 0)
			return db->not_target[i].value;
	return NULL;
}

const char *gpudb_library_component(const struct gpudb *db, const char *soname)
{
	/* Only the patterns of lib/ itself: a NEEDED name is never a stub's. */
	for (size_t i = 0; i < db->n_libraries; i++)
		for (size_t k = 0; k < db->libraries[i].n_patterns; k++) {
			const char *pat = db->libraries[i].patterns[k];

			if (!strchr(pat, '/') && fnmatch(pat, soname, FNM_PATHNAME) == 0)
				return db->libraries[i].component;
		}
	return NULL;
}

static const char *const target_files[] = { "jetson", "sbsa", "x86_64" };

int gpudb_load(struct gpudb *db, struct xcc_error *err)
{
	size_t n = sizeof target_files / sizeof target_files[0];
	const char *text;

	memset(db, 0, sizeof *db);
	if (load_gpus(db, err))
		goto fail;
	db->targets = xmalloc(n * sizeof *db->targets);
	for (size_t i = 0; i < n; i++)
		if (load_target(db, target_files[i], err))
			goto fail;
	if (!(text = embedded_file_text("components.json"))) {
		xcc_fail(err, XCC_EFAIL, "embedded data components.json is missing from this build");
		goto fail;
	}
	if (gpudb_load_components(db, text, err))
		goto fail;
	return 0;
fail:
	gpudb_free(db);
	return -1;
}

void gpudb_free(struct gpudb *db)
{
	free(db->caps);
	free(db->hostcc);
	free(db->unverified_cuda);
	free(db->never_released);
	free(db->last_minor);
	free(db->thresholds);
	for (size_t i = 0; i < db->n_targets; i++) {
		for (size_t j = 0; j < db->targets[i].n_tags; j++)
			free(db->targets[i].tags[j].ranges);
		free(db->targets[i].tags);
	}
	free(db->targets);
	free(db->components);
	for (size_t i = 0; i < db->n_libraries; i++)
		free(db->libraries[i].patterns);
	free(db->libraries);
	free(db->needs);
	free(db->packages);
	free(db->not_target);
	for (size_t i = 0; i < db->n_json_roots; i++)
		cJSON_Delete(db->json_roots[i]);
	memset(db, 0, sizeof *db);
}

/* --- queries ----------------------------------------------------------- */

const struct target_profile *gpudb_target(const struct gpudb *db, const char *name)
{
	for (size_t i = 0; i < db->n_targets; i++)
		if (strcmp(db->targets[i].name, name) == 0)
			return &db->targets[i];
	return NULL;
}

const struct target_tag *target_find_tag(const struct target_profile *t, const char *tag)
{
	for (size_t i = 0; i < t->n_tags; i++)
		if (strcmp(t->tags[i].tag, tag) == 0)
			return &t->tags[i];
	return NULL;
}

int target_tag_available(const struct target_tag *tt, struct cuda_version v)
{
	if (!tt->n_ranges)
		return 1;
	for (size_t i = 0; i < tt->n_ranges; i++)
		if (cuda_version_cmp(v, tt->ranges[i][0]) >= 0 &&
		    cuda_version_cmp(v, tt->ranges[i][1]) <= 0)
			return 1;
	return 0;
}

char *gpudb_target_names(const struct gpudb *db)
{
	struct strvec names = STRVEC_INIT;
	char *s;

	for (size_t i = 0; i < db->n_targets; i++)
		strvec_push(&names, db->targets[i].name);
	s = strvec_join(&names, ", ");
	strvec_free(&names);
	return s;
}

const struct gpu_cap *gpudb_find_cap(const struct gpudb *db, int major, int minor, char variant)
{
	for (size_t i = 0; i < db->n_caps; i++) {
		const struct gpu_cap *c = &db->caps[i];

		if (c->major == major && c->minor == minor && c->variant == variant)
			return c;
	}
	return NULL;
}

int gpu_cap_parse(const char *s, struct gpu_cap_spelling *out)
{
	static const struct {
		const char *text;
		enum gpu_cap_prefix prefix;
	} prefixes[] = {
		{ "sm_", GPU_CAP_SM }, { "compute_", GPU_CAP_COMPUTE }, { "lto_", GPU_CAP_LTO },
	};
	const char *p = s;
	size_t digits;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(p, prefixes[i].text, strlen(prefixes[i].text)) == 0) {
			out->prefix = prefixes[i].prefix;
			p += strlen(prefixes[i].text);
			break;
		}
	for (digits = 0; isdigit((unsigned char)p[digits]); digits++)
		;
	if (digits == 0 || digits > 3)
		return -1;
	if (p[digits] == '.') {
		/* 8.7, 10.0f: one digit of minor. */
		if (digits > 2 || !isdigit((unsigned char)p[digits + 1]))
			return -1;
		out->major = atoi(p);
		out->minor = p[digits + 1] - '0';
		p += digits + 2;
	} else {
		int n = atoi(p);

		if (digits < 2)
			return -1;
		out->major = n / 10;
		out->minor = n % 10;
		p += digits;
	}
	if (*p == 'a' || *p == 'f')
		out->variant = *p++;
	return *p ? -1 : 0;
}

const struct gpu_cap *gpudb_cap_named(const struct gpudb *db, const char *s,
				      struct gpu_cap_spelling *how)
{
	struct gpu_cap_spelling sp;

	if (gpu_cap_parse(s, &sp))
		return NULL;
	if (how)
		*how = sp;
	return gpudb_find_cap(db, sp.major, sp.minor, sp.variant);
}

const struct host_compiler_limit *gpudb_host_limit(const struct gpudb *db, struct cuda_version v)
{
	for (size_t i = 0; i < db->n_hostcc; i++) {
		const struct host_compiler_limit *h = &db->hostcc[i];

		if (cuda_version_cmp(v, h->min_cuda) >= 0 &&
		    (!h->has_max || cuda_version_cmp(v, h->max_cuda) <= 0))
			return h;
	}
	return NULL;
}

const char *gpudb_cuda_unverified(const struct gpudb *db, struct cuda_version v)
{
	for (size_t i = 0; i < db->n_unverified_cuda; i++)
		if (cuda_version_cmp(v, db->unverified_cuda[i].cuda) == 0)
			return db->unverified_cuda[i].what;
	return NULL;
}

int gpudb_never_released(const struct gpudb *db, struct cuda_version v)
{
	for (size_t i = 0; i < db->n_never_released; i++)
		if (cuda_version_cmp(v, db->never_released[i]) == 0)
			return 1;
	return 0;
}

int gpudb_is_tegra(const struct gpudb *db, int major, int minor)
{
	for (size_t i = 0; i < db->n_caps; i++)
		if (db->caps[i].major == major && db->caps[i].minor == minor && db->caps[i].tegra)
			return 1;
	return 0;
}

const struct cuda_version *gpudb_last_minor(const struct gpudb *db, int major)
{
	for (size_t i = 0; i < db->n_last_minor; i++)
		if (db->last_minor[i].major == major)
			return &db->last_minor[i];
	return NULL;
}

void gpudb_sbsa_threshold(const struct gpudb *db, struct cuda_version v, int *major, int *minor)
{
	/* The data lists the thresholds newest first; the first that applies wins. */
	for (size_t i = 0; i < db->n_thresholds; i++) {
		if (cuda_version_cmp(v, db->thresholds[i].min_cuda) >= 0) {
			*major = db->thresholds[i].major;
			*minor = db->thresholds[i].minor;
			return;
		}
	}
	*major = 99;
	*minor = 0;
}
