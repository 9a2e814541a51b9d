/* A finished tree into the file store, and a tree out of it
 * (sysroot_store.h). The record is the tree's own sysroot.files: every
 * directory, file (mode, size, sha256: the object's name) and symbolic
 * link, so that the tree made from it is the tree recorded, entry for
 * entry, and `sysroot verify` checks it as it checks any other. */
#include <config.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "sysroot/sysroot.h"
#include "sysroot/sysroot_commit.h"
#include "sysroot/sysroot_files.h"
#include "sysroot/sysroot_store.h"

void sysroot_store_key(const char *fingerprint, char key[65])
{
	char *text = xasprintf("cuda-xcc file store record\nfingerprint %s\nversion %s\n",
			       fingerprint, PACKAGE_VERSION);

	xcc_sha256_buffer(text, strlen(text), key);
	free(text);
}

void sysroot_store_tree_free(struct sysroot_store_tree *t)
{
	free(t->files);
	free(t->meta);
	strvec_free(&t->notes);
	strvec_free(&t->warnings);
	memset(t, 0, sizeof *t);
}

static int cmp_stamp(const void *a, const void *b)
{
	return strcmp(((const struct store_stamp *)a)->name, ((const struct store_stamp *)b)->name);
}

/* Sorted by name, each once (a file linked twice in the tree is one
 * object). */
static void unique_stamps(struct store_stamp *v, size_t *n)
{
	size_t out = 0;

	if (*n)
		qsort(v, *n, sizeof *v, cmp_stamp);
	for (size_t i = 0; i < *n; i++)
		if (!out || strcmp(v[out - 1].name, v[i].name))
			v[out++] = v[i];
	*n = out;
}

static int open_root(const char *root, struct xcc_error *err)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		xcc_fail(err, XCC_EFAIL, "%s: %s", root, strerror(errno));
	return fd;
}

int sysroot_store_share(struct file_store *s, const char *root, const char *listing,
			struct store_stamp **objs, size_t *n, struct strvec *notes,
			struct xcc_error *err)
{
	struct sysroot_files_entry *v = NULL;
	size_t nv = 0, cap = 0, files = 0, left = 0;
	struct stat st;
	int rootfd = -1, rc = -1;

	*objs = NULL;
	*n = 0;
	if (sysroot_files_parse(listing, &v, &nv)) {
		strvec_pushf(notes, "%s: its files are not shared with the file store: its listing "
			     "cannot be read back", root);
		rc = 0;
		goto out;
	}
	if ((rootfd = open_root(root, err)) < 0)
		goto out;
	if (fstat(rootfd, &st)) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", root, strerror(errno));
		goto out;
	}
	if (st.st_dev != s->dev) {
		strvec_pushf(notes, "the file store %s is on another file system than %s: its "
			     "files are not shared (give --cache a directory on the sysroot's "
			     "file system, or --no-file-store)", s->dir, root);
		rc = 0;
		goto out;
	}
	rc = 1;
	for (size_t i = 0; i < nv; i++) {
		int r;

		if (v[i].type != 'f')
			continue;
		files++;
		if (!v[i].sha256[0]) {
			left++;
			continue;
		}
		XGROW(*objs, *n + 1, cap);
		r = store_share(s, rootfd, v[i].path, v[i].sha256, v[i].mode, &(*objs)[*n], err);
		if (r < 0) {
			rc = -1;
			goto out;
		}
		if (r)
			(*n)++;
		else
			left++;
	}
	if (left)
		strvec_pushf(notes, "%zu of %zu files are not shared with the file store %s "
			     "(another user's objects there, or too many links to one)", left,
			     files, s->dir);
	unique_stamps(*objs, n);
	rc = left ? 0 : 1;
out:
	if (rootfd >= 0)
		close(rootfd);
	sysroot_files_entries_free(v, nv);
	if (rc < 0) {
		free(*objs);
		*objs = NULL;
		*n = 0;
	}
	return rc;
}

static void add_lines(cJSON *root, const char *key, const struct strvec *v)
{
	cJSON *arr = cJSON_AddArrayToObject(root, key);

	for (size_t i = 0; i < v->n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v->v[i]));
}

int sysroot_store_record(struct file_store *s, const char *key,
			 const struct sysroot_store_tree *t, const struct store_stamp *objs,
			 size_t n, struct xcc_error *err)
{
	cJSON *root = cJSON_CreateObject();
	char *data;
	int rc;

	cJSON_AddStringToObject(root, "files", t->files);
	cJSON_AddStringToObject(root, "meta", t->meta);
	add_lines(root, "notes", &t->notes);
	add_lines(root, "warnings", &t->warnings);
	data = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	rc = store_record_write(s, key, data, objs, n, err);
	free(data);
	return rc;
}

static void read_lines(const cJSON *root, const char *key, struct strvec *out)
{
	const cJSON *it, *arr = cJSON_GetObjectItemCaseSensitive(root, key);

	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it))
			strvec_push(out, it->valuestring);
}

/* The record's data into t; -1 when it is not what sysroot_store_record
 * writes. */
static int parse_tree(const char *data, struct sysroot_store_tree *t)
{
	cJSON *root = cJSON_Parse(data);
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "files");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "meta");
	int rc = -1;

	memset(t, 0, sizeof *t);
	if (cJSON_IsString(files) && cJSON_IsString(meta) &&
	    sysroot_files_has_digests(files->valuestring)) {
		t->files = xstrdup(files->valuestring);
		t->meta = xstrdup(meta->valuestring);
		read_lines(root, "notes", &t->notes);
		read_lines(root, "warnings", &t->warnings);
		rc = 0;
	}
	cJSON_Delete(root);
	return rc;
}

/* A path beneath the root: relative, no empty, "." or ".." part. */
static int path_ok(const char *p)
{
	if (!*p || *p == '/')
		return 0;
	for (const char *c = p; *c;) {
		size_t len = strcspn(c, "/");

		if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += len;
		if (*c == '/')
			c++;
		if (!*c && c[-1] == '/')
			return 0;
	}
	return 1;
}

/* Each file's object, found among the record's stamps and as stamped, in
 * want[i] (NULL for what is no file); 0 when one is missing or changed. */
static int find_objects(struct file_store *s, const struct sysroot_files_entry *v, size_t nv,
			struct store_stamp *objs, size_t nobjs, const struct store_stamp **want)
{
	qsort(objs, nobjs, sizeof *objs, cmp_stamp);
	for (size_t i = 0; i < nv; i++) {
		struct store_stamp key;

		want[i] = NULL;
		if (!path_ok(v[i].path))
			return 0;
		if (v[i].type != 'f')
			continue;
		store_object_name(v[i].sha256, v[i].mode, key.name);
		want[i] = bsearch(&key, objs, nobjs, sizeof *objs, cmp_stamp);
		if (!want[i] || !store_object_fresh(s, want[i]))
			return 0;
	}
	return 1;
}

static int cmp_dir_path(const void *a, const void *b)
{
	return strcmp((*(const struct sysroot_files_entry *const *)a)->path,
		      (*(const struct sysroot_files_entry *const *)b)->path);
}

/* Directories first, parents before children (a parent's path is a prefix
 * of its children's, so it sorts first), then files, then the symbolic
 * links, last, so that nothing is ever made through one; the directories'
 * modes at the end, children first, since a read-only one takes no more
 * entries. 1 made, 0 an object changed meanwhile, -1. */
static int make_entries(struct file_store *s, int rootfd, const struct sysroot_files_entry *v,
			size_t nv, const struct store_stamp *const *want, struct xcc_error *err)
{
	const struct sysroot_files_entry **dirs = xmalloc((nv + 1) * sizeof *dirs);
	size_t nd = 0;
	int rc = -1;

	for (size_t i = 0; i < nv; i++)
		if (v[i].type == 'd')
			dirs[nd++] = &v[i];
	if (nd)
		qsort(dirs, nd, sizeof *dirs, cmp_dir_path);
	for (size_t i = 0; i < nd; i++)
		if (mkdirat(rootfd, dirs[i]->path, 0700)) {
			xcc_fail(err, XCC_EFAIL, "%s: %s", dirs[i]->path, strerror(errno));
			goto out;
		}
	for (size_t i = 0; i < nv; i++) {
		int r = want[i] ? store_link_out(s, want[i], rootfd, v[i].path, err) : 1;

		if (r <= 0) {
			rc = r;
			goto out;
		}
	}
	for (size_t i = 0; i < nv; i++)
		if (v[i].type == 'l' && symlinkat(v[i].target, rootfd, v[i].path)) {
			xcc_fail(err, XCC_EFAIL, "%s: %s", v[i].path, strerror(errno));
			goto out;
		}
	for (size_t i = nd; i-- > 0;)
		if (fchmodat(rootfd, dirs[i]->path, dirs[i]->mode, 0)) {
			xcc_fail(err, XCC_EFAIL, "%s: %s", dirs[i]->path, strerror(errno));
			goto out;
		}
	rc = 1;
out:
	free(dirs);
	return rc;
}

/* Everything in root, root itself kept (it is the create's locked
 * temporary tree). */
static void empty_dir(const char *root)
{
	struct strvec names = STRVEC_INIT;

	if (file_list_dir(root, &names) == 0)
		for (size_t i = 0; i < names.n; i++) {
			char *p = xasprintf("%s/%s", root, names.v[i]);

			file_remove_tree(p);
			free(p);
		}
	strvec_free(&names);
}

int sysroot_store_materialise(struct file_store *s, const char *key, const char *root,
			      struct sysroot_store_tree *t, struct xcc_error *err)
{
	struct sysroot_files_entry *v = NULL;
	const struct store_stamp **want = NULL;
	struct store_stamp *objs = NULL;
	char *data = NULL;
	size_t nv = 0, nobjs = 0;
	int rootfd = -1, rc = 0;

	memset(t, 0, sizeof *t);
	if (!store_record_read(s, key, &data, &objs, &nobjs) || parse_tree(data, t) ||
	    sysroot_files_parse(t->files, &v, &nv))
		goto out;
	want = xmalloc((nv + 1) * sizeof *want);
	if (!find_objects(s, v, nv, objs, nobjs, want))
		goto out;
	if ((rootfd = open_root(root, err)) < 0) {
		rc = -1;
		goto out;
	}
	rc = make_entries(s, rootfd, v, nv, want, err);
	if (rc == 1)
		sysroot_crash_point("linked");
out:
	if (rc != 1) {
		empty_dir(root);
		sysroot_store_tree_free(t);
	}
	if (rootfd >= 0)
		close(rootfd);
	sysroot_files_entries_free(v, nv);
	free(want);
	free(objs);
	free(data);
	return rc;
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

int sysroot_gc(const char *cache_dir, char **out, struct xcc_error *err)
{
	struct file_store s;
	struct store_gc_result r;
	int rc = -1;

	*out = NULL;
	rc = store_open(&s, cache_dir, 0, err);
	if (rc) {
		if (rc == 1)
			*out = xasprintf("%s: no file store there: nothing to remove\n", s.dir);
		store_close(&s);
		return rc < 0 ? -1 : 0;
	}
	rc = -1;
	/* Exclusive: no create is between checking an object and linking it. */
	if (store_lock(&s, 1, NULL, err) || store_gc(&s, &r, err))
		goto out;
	*out = xasprintf("%s: removed %zu file%s no sysroot links (%.1f MiB) and %zu record%s; "
			 "kept %zu file%s (%.1f MiB) and %zu record%s%s\n", s.dir,
			 r.objects_removed, r.objects_removed == 1 ? "" : "s",
			 mib(r.bytes_removed), r.records_removed,
			 r.records_removed == 1 ? "" : "s", r.objects_kept,
			 r.objects_kept == 1 ? "" : "s", mib(r.bytes_kept), r.records_kept,
			 r.records_kept == 1 ? "" : "s",
			 r.other_removed ? "; removed what was neither (links, leftovers)" : "");
	rc = 0;
out:
	store_close(&s);
	return rc;
}
