#include <config.h>

#include <cjson/cJSON.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "autopatch.h"
#include "fatbin.h"
#include "sysroot_checks.h"

int sysroot_autopatch(const char *root, const char *target_dir, const char *triple,
		      int dry_run, struct strvec *notes, struct xcc_error *err)
{
	struct autopatch_opts host = AUTOPATCH_OPTS_INIT, target = AUTOPATCH_OPTS_INIT;
	struct autopatch_report r = { 0 };
	struct xcc_error e2 = { 0 };
	char *prefix = xasprintf("%s-", triple);
	int rc = -1;

	/* Host half: x86_64 tools, whose system libraries are the build
	 * machine's own. */
	for (size_t i = 0; i < 2; i++) {
		char *d = xasprintf("%s/%s", root, i == 0 ? "bin" : "nvvm");
		struct stat st;

		if (stat(d, &st) == 0 && S_ISDIR(st.st_mode))
			strvec_push(&host.paths, d);
		free(d);
	}
	host.target_fs = "/";
	host.dry_run = dry_run;
	if (autopatch_run(&host, &r, &e2)) {
		if (r.n_missing_unignored == 0) {
			xcc_fail(err, e2.status, "autopatch of the host half: %s", e2.msg);
			goto out;
		}
		strvec_pushf(notes, "host half: %zu dependencies not found (%s)",
			     r.n_missing_unignored, e2.msg);
	}
	autopatch_report_free(&r);
	memset(&r, 0, sizeof r);
	/* Target half: the target's own libraries, then its cross toolchain
	 * for libstdc++ and libgcc_s. */
	strvec_pushf(&target.paths, "%s/targets/%s", root, target_dir);
	target.cross_prefix = prefix;
	target.dry_run = dry_run;
	if (autopatch_run(&target, &r, &e2)) {
		if (r.n_missing_unignored == 0) {
			xcc_fail(err, e2.status, "autopatch of the target half: %s", e2.msg);
			goto out;
		}
		strvec_pushf(notes, "target half: %zu dependencies not found; the device must "
			     "provide them (%s)", r.n_missing_unignored, e2.msg);
	}
	rc = 0;
out:
	autopatch_report_free(&r);
	autopatch_opts_free(&host);
	autopatch_opts_free(&target);
	free(prefix);
	return rc;
}

/* ---- the serving check ---- */

struct serving_walk {
	const struct gpudb *db;
	size_t prefix_len;
	const struct gpu_cap **caps;
	const struct strvec *cap_names;
	cJSON *rows;
	size_t unserved;
	struct xcc_error *err;
	int failed;
};

/* nftw has no user argument. */
static __thread struct serving_walk *current_walk;

static int looks_like_library(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	return strstr(base, ".so") != NULL || (n > 2 && strcmp(base + n - 2, ".a") == 0);
}

static int has_object_magic(const char *path)
{
	unsigned char m[8] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(m, 1, sizeof m, f);
	fclose(f);
	return (n >= 4 && memcmp(m, "\177ELF", 4) == 0) ||
	       (n == 8 && memcmp(m, "!<arch>\n", 8) == 0);
}

static int serving_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct serving_walk *w = current_walk;
	struct fatbin_file f = { 0 };
	struct fatbin_options opt = { 0 };
	struct xcc_error e2 = { 0 };
	cJSON *row, *verdicts;

	(void)ftw;
	if (flag != FTW_F || !S_ISREG(st->st_mode) || !looks_like_library(path) ||
	    !has_object_magic(path))
		return 0;
	if (fatbin_read_file(path, &opt, &f, &e2))
		return 0; /* not ours to judge: a library without readable device code */
	if (!fatbin_has_device_code(&f)) {
		fatbin_file_free(&f);
		return 0;
	}
	row = cJSON_CreateObject();
	cJSON_AddStringToObject(row, "library", path + w->prefix_len);
	verdicts = cJSON_AddObjectToObject(row, "serving");
	for (size_t i = 0; i < w->cap_names->n; i++) {
		struct fatbin_serving how;
		enum fatbin_verdict v = fatbin_serves(&f, w->caps[i], &how);

		if (v == FATBIN_NOT_SERVED)
			w->unserved++;
		cJSON_AddStringToObject(verdicts, w->cap_names->v[i], fatbin_verdict_name(v));
	}
	cJSON_AddItemToArray(w->rows, row);
	fatbin_file_free(&f);
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;

	return strcmp(cJSON_GetObjectItemCaseSensitive(x, "library")->valuestring,
		      cJSON_GetObjectItemCaseSensitive(y, "library")->valuestring);
}

int sysroot_serving(const struct gpudb *db, const char *root, const char *target_dir,
		    const struct strvec *capabilities, char **table_json, size_t *unserved,
		    struct xcc_error *err)
{
	struct serving_walk w = { 0 };
	char *dir = xasprintf("%s/targets/%s/", root, target_dir);
	cJSON **rows, *sorted, *it;
	size_t n = 0;

	w.db = db;
	w.prefix_len = strlen(dir);
	w.cap_names = capabilities;
	w.caps = xmalloc((capabilities->n ? capabilities->n : 1) * sizeof *w.caps);
	w.err = err;
	for (size_t i = 0; i < capabilities->n; i++) {
		int major = 0, minor = 0;
		char variant = '\0';

		if (sscanf(capabilities->v[i], "%d.%d%c", &major, &minor, &variant) < 2 ||
		    !(w.caps[i] = gpudb_find_cap(db, major, minor, variant))) {
			free(w.caps);
			free(dir);
			return xcc_fail(err, XCC_EFAIL, "unknown capability %s", capabilities->v[i]);
		}
	}
	w.rows = cJSON_CreateArray();
	current_walk = &w;
	nftw(dir, serving_entry, 32, FTW_PHYS);
	current_walk = NULL;

	/* nftw's order is the directory's: sort for a stable table. */
	rows = xmalloc(((size_t)cJSON_GetArraySize(w.rows) + 1) * sizeof *rows);
	while ((it = cJSON_DetachItemFromArray(w.rows, 0)))
		rows[n++] = it;
	qsort(rows, n, sizeof *rows, cmp_rows);
	sorted = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(sorted, rows[i]);
	*table_json = cJSON_PrintUnformatted(sorted);
	*unserved = w.unserved;
	cJSON_Delete(sorted);
	cJSON_Delete(w.rows);
	free(rows);
	free(w.caps);
	free(dir);
	return 0;
}
