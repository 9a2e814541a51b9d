#include <config.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/json_field.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "sysroot/sysroot_files.h"
#include "sysroot/sysroot_meta.h"

/* A string field, or NULL: absent, null or of another type (the opener
 * validates the fields it needs). */
static char *dup_string(const cJSON *obj, const char *key)
{
	const cJSON *it;

	if (json_member(obj, key, cJSON_String, 1, &it, "sysroot.json", NULL, NULL) || !it)
		return NULL;
	return xstrdup(it->valuestring);
}

/* ---- the serving table ------------------------------------------------------ */

void sysroot_serving_add(struct sysroot_serving *t, const char *library,
			 const enum fatbin_verdict *verdicts)
{
	struct sysroot_serving_row *r;
	size_t n = t->capabilities.n;

	XGROW(t->rows, t->n_rows + 1, t->cap_rows);
	r = &t->rows[t->n_rows++];
	r->library = xstrdup(library);
	r->verdicts = xmalloc((n ? n : 1) * sizeof *r->verdicts);
	if (n)
		memcpy(r->verdicts, verdicts, n * sizeof *r->verdicts);
}

static int cmp_rows(const void *a, const void *b)
{
	return strcmp(((const struct sysroot_serving_row *)a)->library,
		      ((const struct sysroot_serving_row *)b)->library);
}

void sysroot_serving_sort(struct sysroot_serving *t)
{
	if (t->n_rows)
		qsort(t->rows, t->n_rows, sizeof *t->rows, cmp_rows);
}

size_t sysroot_serving_count(const struct sysroot_serving *t, enum fatbin_verdict v)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_rows; i++)
		for (size_t k = 0; k < t->capabilities.n; k++)
			n += t->rows[i].verdicts[k] == v;
	return n;
}

static void push_trimmed(struct strvec *out, char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		line[--n] = '\0';
	strvec_push(out, line);
}

void sysroot_serving_text(const struct sysroot_serving *t, struct strvec *out)
{
	const struct strvec *caps = &t->capabilities;
	size_t width = 7;
	char *line;

	if (!t->recorded || t->n_rows == 0) {
		strvec_push(out, "serving: no target library carries device code");
		return;
	}
	for (size_t i = 0; i < t->n_rows; i++)
		if (strlen(t->rows[i].library) > width)
			width = strlen(t->rows[i].library);
	strvec_push(out, "serving (per target library and GPU):");
	line = xasprintf("  %-*s", (int)width, "library");
	for (size_t k = 0; k < caps->n; k++) {
		char *l = xasprintf("%s  %-10s", line, caps->v[k]);

		free(line);
		line = l;
	}
	push_trimmed(out, line);
	free(line);
	for (size_t i = 0; i < t->n_rows; i++) {
		line = xasprintf("  %-*s", (int)width, t->rows[i].library);
		for (size_t k = 0; k < caps->n; k++) {
			char *l = xasprintf("%s  %-10s", line,
					    fatbin_verdict_name(t->rows[i].verdicts[k]));

			free(line);
			line = l;
		}
		push_trimmed(out, line);
		free(line);
	}
}

void sysroot_serving_free(struct sysroot_serving *t)
{
	for (size_t i = 0; i < t->n_rows; i++) {
		free(t->rows[i].library);
		free(t->rows[i].verdicts);
	}
	free(t->rows);
	strvec_free(&t->capabilities);
	memset(t, 0, sizeof *t);
}

/* sysroot.json's form: [{"library": "lib/x.so", "serving": {"8.7": "OK"}}] */
static cJSON *serving_to_json(const struct sysroot_serving *t)
{
	cJSON *rows = cJSON_CreateArray();

	for (size_t i = 0; i < t->n_rows; i++) {
		cJSON *row = cJSON_CreateObject(), *cells;

		cJSON_AddStringToObject(row, "library", t->rows[i].library);
		cells = cJSON_AddObjectToObject(row, "serving");
		for (size_t k = 0; k < t->capabilities.n; k++)
			cJSON_AddStringToObject(cells, t->capabilities.v[k],
						fatbin_verdict_name(t->rows[i].verdicts[k]));
		cJSON_AddItemToArray(rows, row);
	}
	return rows;
}

/* The table in json, one column per capability the sysroot was made for;
 * anything else is refused, naming what is wrong. */
static int serving_from_json(const cJSON *json, const struct strvec *caps,
			     struct sysroot_serving *t, const char *path, struct xcc_error *err)
{
	enum fatbin_verdict *v = xmalloc((caps->n ? caps->n : 1) * sizeof *v);
	const cJSON *row;
	int rc = -1;

	memset(t, 0, sizeof *t);
	strvec_extend(&t->capabilities, caps);
	t->recorded = 1;
	if (!cJSON_IsArray(json)) {
		xcc_fail(err, XCC_EFAIL, "%s: \"serving\" is not a list; recreate the sysroot", path);
		goto out;
	}
	cJSON_ArrayForEach(row, json) {
		const cJSON *lib = cJSON_GetObjectItemCaseSensitive(row, "library");
		const cJSON *cells = cJSON_GetObjectItemCaseSensitive(row, "serving");

		if (!cJSON_IsString(lib) || !cJSON_IsObject(cells)) {
			xcc_fail(err, XCC_EFAIL, "%s: a serving row lacks its \"library\" or its "
				 "\"serving\" object; recreate the sysroot", path);
			goto out;
		}
		for (size_t k = 0; k < caps->n; k++) {
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(cells, caps->v[k]);

			if (!cJSON_IsString(c) || fatbin_verdict_parse(c->valuestring, &v[k])) {
				xcc_fail(err, XCC_EFAIL, "%s: the serving row of %s has no verdict "
					 "(OK, PTX-JIT, NOT SERVED) for %s; recreate the sysroot",
					 path, lib->valuestring, caps->v[k]);
				goto out;
			}
		}
		sysroot_serving_add(t, lib->valuestring, v);
	}
	rc = 0;
out:
	free(v);
	return rc;
}

static void add_str(cJSON *obj, const char *key, const char *val);

/* The board's fields, each a string or null. */
#define BOARD_FIELDS(X) X(device) X(root) X(tegra_release) X(l4t) X(jetpack) X(cuda) \
	X(cuda_dir) X(gpu) X(soc) X(listing)

static struct sysroot_board *board_from_json(const cJSON *o)
{
	struct sysroot_board *b = xcalloc(1, sizeof *b);

#define LOAD(f) b->f = dup_string(o, #f);
	BOARD_FIELDS(LOAD)
#undef LOAD
	return b;
}

static void board_to_json(cJSON *root, const struct sysroot_board *b)
{
	cJSON *o = cJSON_AddObjectToObject(root, "board");

#define SAVE(f) add_str(o, #f, b->f);
	BOARD_FIELDS(SAVE)
#undef SAVE
}

void sysroot_board_copy(struct sysroot_board *to, const struct sysroot_board *from)
{
#define COPY(f) to->f = from->f ? xstrdup(from->f) : NULL;
	BOARD_FIELDS(COPY)
#undef COPY
}

void sysroot_board_free(struct sysroot_board *b)
{
#define FREE(f) free(b->f);
	BOARD_FIELDS(FREE)
#undef FREE
	memset(b, 0, sizeof *b);
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
		/* A directory without the file is not the kind the option wants; one
		 * whose file cannot be read is damaged. */
		if (errno == ENOENT)
			xcc_fail(err, XCC_EUSAGE, "%s is not a cuda-xcc sysroot (no %s): make one "
				 "with 'cuda-xcc sysroot create' and the --target, --cuda and -arch "
				 "it is for", dir, SYSROOT_META_FILE);
		else
			xcc_fail(err, XCC_EFAIL, "%s is not a cuda-xcc sysroot: cannot read %s: %s",
				 dir, path, strerror(errno));
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
	m->flavour = dup_string(root, "flavour");
	m->flavour_evidence = dup_string(root, "flavour_evidence");
	m->fingerprint = dup_string(root, "fingerprint");
	m->files_sha256 = dup_string(root, "files_sha256");
	if (!m->cuda || !m->target || !m->tag || !m->target_dir) {
		xcc_fail(err, XCC_EFAIL, "%s lacks one of cuda, target, tag, target_dir; "
			 "recreate the sysroot", path);
		goto out;
	}
	arr = cJSON_GetObjectItemCaseSensitive(root, "capabilities");
	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it))
			strvec_push(&m->capabilities, it->valuestring);
	arr = cJSON_GetObjectItemCaseSensitive(root, "serving");
	if (arr && !cJSON_IsNull(arr) &&
	    serving_from_json(arr, &m->capabilities, &m->serving, path, err))
		goto out;
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
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "board")))
		m->board = board_from_json(cJSON_GetObjectItemCaseSensitive(root, "board"));
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

static cJSON *meta_object(const struct sysroot_meta *m)
{
	cJSON *root = cJSON_CreateObject(), *caps, *comps;

	cJSON_AddNumberToObject(root, "format", SYSROOT_META_FORMAT);
	add_str(root, "cuda", m->cuda);
	add_str(root, "target", m->target);
	add_str(root, "tag", m->tag);
	add_str(root, "target_dir", m->target_dir);
	add_str(root, "host_compiler", m->host_compiler);
	add_str(root, "target_fs", m->target_fs);
	add_str(root, "jetpack", m->jetpack);
	add_str(root, "flavour", m->flavour);
	add_str(root, "flavour_evidence", m->flavour_evidence);
	{
		/* Every product's release: CUDA's, and cuDNN's etc. beside it. */
		cJSON *prods = cJSON_AddObjectToObject(root, "products");

		cJSON_AddStringToObject(prods, "cuda", m->cuda ? m->cuda : "");
		for (size_t i = 0; i < m->products.n; i++) {
			const char *sp = strchr(m->products.v[i], ' ');
			char *name;

			if (!sp)
				continue;
			name = xasprintf("%.*s", (int)(sp - m->products.v[i]), m->products.v[i]);
			cJSON_AddStringToObject(prods, name, sp + 1);
			free(name);
		}
	}
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
	if (m->files_sha256)
		cJSON_AddStringToObject(root, "files_sha256", m->files_sha256);
	if (m->serving.recorded)
		cJSON_AddItemToObject(root, "serving", serving_to_json(&m->serving));
	if (m->board)
		board_to_json(root, m->board);
	cJSON_AddStringToObject(root, "created_by", PACKAGE_STRING);
	return root;
}

char *sysroot_meta_to_json(const struct sysroot_meta *m)
{
	cJSON *root = meta_object(m);
	char *text = cJSON_Print(root);

	cJSON_Delete(root);
	return text;
}

/* The sha256 of obj as cJSON prints it unformatted: the same for the
 * object create built and for the one parsed back from its file. */
static void object_sha256(const cJSON *obj, char hex[65])
{
	char *text = cJSON_PrintUnformatted(obj);
	struct xcc_sha256 h;

	xcc_sha256_init(&h);
	xcc_sha256_update(&h, text, strlen(text));
	xcc_sha256_hex(&h, hex);
	free(text);
}

int sysroot_meta_save(const char *dir, const struct sysroot_meta *m, struct xcc_error *err)
{
	char *path = xasprintf("%s/%s", dir, SYSROOT_META_FILE), *json, *text, hex[65];
	cJSON *root = meta_object(m);
	int rc;

	object_sha256(root, hex);
	cJSON_AddStringToObject(root, "digest", hex);
	json = cJSON_Print(root);
	text = xasprintf("%s\n", json);
	rc = file_write_atomic(path, text, strlen(text), 0644, err);
	cJSON_Delete(root);
	free(text);
	free(json);
	free(path);
	return rc;
}

void sysroot_records_read(const char *dir, int files, struct sysroot_records *r)
{
	char *path = xasprintf("%s/%s", dir, SYSROOT_FILES_LIST), *text;
	size_t len = 0;
	cJSON *root, *digest;
	struct xcc_sha256 h;

	memset(r, 0, sizeof *r);
	if (files && (text = file_read_text(path, &len))) {
		xcc_sha256_init(&h);
		xcc_sha256_update(&h, text, len);
		xcc_sha256_hex(&h, r->files);
		free(text);
	}
	free(path);
	path = xasprintf("%s/%s", dir, SYSROOT_META_FILE);
	text = file_read_text(path, NULL);
	free(path);
	root = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return;
	}
	r->files_recorded = dup_string(root, "files_sha256");
	digest = cJSON_DetachItemFromObjectCaseSensitive(root, "digest");
	if (cJSON_IsString(digest))
		r->recorded = xstrdup(digest->valuestring);
	cJSON_Delete(digest);
	object_sha256(root, r->tree);
	cJSON_Delete(root);
}

int sysroot_records_covered(const struct sysroot_records *r)
{
	return r->recorded && r->files_recorded;
}

void sysroot_records_problems(const char *dir, const struct sysroot_records *r,
			      struct strvec *problems)
{
	if (!r->tree[0])
		strvec_pushf(problems, "%s/%s cannot be read as JSON: its digest cannot be checked",
			     dir, SYSROOT_META_FILE);
	else if (r->recorded && strcmp(r->recorded, r->tree) != 0)
		strvec_pushf(problems, "changed: %s (digest made as %s, now %s): edited after "
			     "create; make the sysroot again", SYSROOT_META_FILE, r->recorded, r->tree);
	if (r->files_recorded && strcmp(r->files_recorded, r->files) != 0)
		strvec_pushf(problems, "changed: %s (sha256 made as %s, now %s): edited after "
			     "create; make the sysroot again", SYSROOT_FILES_LIST,
			     r->files_recorded, r->files[0] ? r->files : "unreadable");
}

int sysroot_meta_unchanged(const char *dir, struct xcc_error *err)
{
	struct sysroot_records r;
	int rc = 0;

	sysroot_records_read(dir, 0, &r);
	if (r.recorded && strcmp(r.recorded, r.tree) != 0)
		rc = xcc_fail(err, XCC_EUSAGE, "the sysroot %s has the fingerprint asked, but its %s "
			      "was edited after create (digest made as %s, now %s): its host "
			      "compiler, GPUs or device root may not be what the fingerprint "
			      "stands for. Make the sysroot again, or see 'cuda-xcc sysroot verify "
			      "%s'", dir, SYSROOT_META_FILE, r.recorded, r.tree, dir);
	sysroot_records_free(&r);
	return rc;
}

void sysroot_records_free(struct sysroot_records *r)
{
	free(r->recorded);
	free(r->files_recorded);
	memset(r, 0, sizeof *r);
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
	free(m->flavour);
	free(m->flavour_evidence);
	strvec_free(&m->products);
	free(m->fingerprint);
	free(m->files_sha256);
	sysroot_serving_free(&m->serving);
	strvec_free(&m->capabilities);
	for (size_t i = 0; i < m->n_components; i++) {
		free(m->components[i].name);
		free(m->components[i].version);
		free(m->components[i].side);
		free(m->components[i].sha256);
		free(m->components[i].source);
	}
	free(m->components);
	if (m->board)
		sysroot_board_free(m->board);
	free(m->board);
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

void sysroot_meta_from_plan(struct sysroot_meta *m, const struct plan *p, const char *host_compiler,
			    const char *target_fs, const char *jetpack, const char *fingerprint,
			    struct sysroot_serving *serving)
{
	memset(m, 0, sizeof *m);
	m->jetpack = jetpack ? xstrdup(jetpack) : NULL;
	m->target_fs = target_fs ? xstrdup(target_fs) : NULL;
	m->cuda = xstrdup(p->cuda);
	m->target = xstrdup(p->target);
	m->tag = xstrdup(p->tag);
	m->target_dir = xstrdup(p->target_dir);
	m->host_compiler = host_compiler ? xstrdup(host_compiler) : NULL;
	m->fingerprint = xstrdup(fingerprint);
	m->serving = *serving;
	memset(serving, 0, sizeof *serving);
	strvec_extend(&m->capabilities, &p->capabilities);
	strvec_extend(&m->products, &p->products);
	m->components = xmalloc((p->n_archives ? p->n_archives : 1) * sizeof *m->components);
	for (size_t i = 0; i < p->n_archives; i++) {
		const struct plan_archive *a = &p->archives[i];
		struct sysroot_component *c = &m->components[m->n_components++];

		c->name = xstrdup(a->component);
		c->version = a->version ? xstrdup(a->version) : NULL;
		c->side = xstrdup(a->side == PLAN_HOST ? "host" : a->side == PLAN_TARGET ? "target" :
				  "both");
		c->sha256 = a->sha256 ? xstrdup(a->sha256) : NULL;
		c->source = xstrdup(file_base_name(a->source));
	}
}
