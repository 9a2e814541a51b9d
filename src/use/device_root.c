/* sysroot create --from-device: this machine's side of a board pull. The board's
 * listing read and checked, the mirror snapshotted by it (hard links, so a later pull,
 * which replaces files rather than writing into them, leaves the snapshot a sysroot
 * records as it was), the target side written as a redist-shaped tar with libarchive,
 * and the board's CUDA release read from its version.json. */
#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <cjson/cJSON.h>
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
#include "elf/devroot.h"
#include "pkg/package.h"
#include "use/device_pull_int.h"

/* --- the listing ------------------------------------------------------------ */

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pull_entry *)a)->path, ((const struct pull_entry *)b)->path);
}

/* One record "y size mtime path" and its link target, from data[*at..len). */
static int next_record(const char *data, size_t len, size_t *at, const char **rec,
		       const char **target)
{
	const char *end = memchr(data + *at, '\0', len - *at), *tend;

	if (!end)
		return 0;
	tend = memchr(end + 1, '\0', len - (size_t)(end + 1 - data));
	if (!tend)
		return 0;
	*rec = data + *at;
	*target = end + 1;
	*at = (size_t)(tend + 1 - data);
	return 1;
}

static int bad_listing(struct xcc_error *err, const char *device, const char *path,
		       const char *why)
{
	return xcc_fail(err, XCC_EFAIL, "%s listed %s, which is refused: %s", device, path, why);
}

/* Whether a path of the listing goes through a link the listing holds (the copy
 * would hold it twice, or through a link the device resolves from its own root). */
static const char *through_link(const struct pull_listing *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *p = l->v[i].path;

		for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
			char *parent = xstrndup(p, (size_t)(s - p));
			const struct pull_entry *e = pull_listing_find(l, parent);

			free(parent);
			if (e)
				return p;
		}
	}
	return NULL;
}

static int add_record(struct pull_listing *l, const char *rec, const char *target,
		      const char *device, struct xcc_error *err)
{
	char type, norm[4096];
	unsigned long long size;
	long long mtime;
	int n = 0;
	struct pull_entry *e;

	if (sscanf(rec, "%c %llu %lld %n", &type, &size, &mtime, &n) != 3 || n == 0 ||
	    (type != 'f' && type != 'l'))
		return xcc_fail(err, XCC_EFAIL, "%s: a listing record this is not: '%.80s'",
				device, rec);
	if (strchr(rec + n, '\n') || strchr(target, '\n'))
		return bad_listing(err, device, rec + n, "a newline in its name or target");
	if (package_normalize_member(rec + n, norm, sizeof norm) || !*norm)
		return bad_listing(err, device, rec + n, "an absolute path, a '..' or too long");
	if (type == 'l' && !*target)
		return bad_listing(err, device, rec + n, "a link with no target");
	XGROW(l->v, l->n + 1, l->cap);
	e = &l->v[l->n++];
	e->type = type;
	e->size = type == 'f' ? size : 0;
	e->mtime = type == 'f' ? mtime : 0;
	e->path = xstrdup(norm);
	e->target = xstrdup(type == 'l' ? target : "");
	return 0;
}

int pull_listing_parse(const char *data, size_t len, const char *device, struct pull_listing *l,
		       struct xcc_error *err)
{
	const char *rec, *target, *bad;
	size_t at = 0, out = 0;
	struct xcc_sha256 h;

	memset(l, 0, sizeof *l);
	while (next_record(data, len, &at, &rec, &target))
		if (add_record(l, rec, target, device, err))
			goto fail;
	qsort(l->v, l->n, sizeof *l->v, entry_cmp);
	for (size_t i = 0; i < l->n; i++) {
		if (out && strcmp(l->v[out - 1].path, l->v[i].path) == 0) {
			free(l->v[i].path);
			free(l->v[i].target);
			continue;
		}
		l->v[out++] = l->v[i];
	}
	l->n = out;
	if ((bad = through_link(l))) {
		bad_listing(err, device, bad, "a directory on its way is a symlink it also lists");
		goto fail;
	}
	xcc_sha256_init(&h);
	for (size_t i = 0; i < l->n; i++) {
		char *line = xasprintf("%c %llu %lld %s", l->v[i].type,
				       (unsigned long long)l->v[i].size, (long long)l->v[i].mtime,
				       l->v[i].path);

		xcc_sha256_update(&h, line, strlen(line) + 1);
		xcc_sha256_update(&h, l->v[i].target, strlen(l->v[i].target) + 1);
		free(line);
	}
	xcc_sha256_hex(&h, l->digest);
	return 0;
fail:
	pull_listing_free(l);
	return -1;
}

const struct pull_entry *pull_listing_find(const struct pull_listing *l, const char *path)
{
	struct pull_entry key = { .path = (char *)path };

	return l->n ? bsearch(&key, l->v, l->n, sizeof *l->v, entry_cmp) : NULL;
}

void pull_listing_free(struct pull_listing *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].target);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* --- the snapshot ------------------------------------------------------------ */

/* DIR/parent-of-rel made (no link is among them: the listing has none on a path). */
static int make_parent(const char *dir, const char *rel, struct xcc_error *err)
{
	const char *slash = strrchr(rel, '/');
	char *parent;
	int rc;

	if (!slash)
		return 0;
	parent = xasprintf("%s/%.*s", dir, (int)(slash - rel), rel);
	rc = file_mkdir_p(parent, err);
	free(parent);
	return rc;
}

static int clone_entry(const char *mirror, const char *tmp, const struct pull_entry *e,
		       struct xcc_error *err)
{
	char *from = xasprintf("%s/%s", mirror, e->path), *to = xasprintf("%s/%s", tmp, e->path);
	int rc = make_parent(tmp, e->path, err);

	if (rc == 0 && e->type == 'f' && link(from, to))
		rc = xcc_fail(err, XCC_EFAIL, "cannot link %s to %s: %s", from, to,
			      strerror(errno));
	if (rc == 0 && e->type == 'l' && symlink(e->target, to))
		rc = xcc_fail(err, XCC_EFAIL, "cannot make the link %s: %s", to, strerror(errno));
	free(from);
	free(to);
	return rc;
}

int pull_snapshot(const char *board_dir, const char *mirror, const struct pull_listing *l,
		  char **root, struct xcc_error *err)
{
	char *roots = xasprintf("%s/roots", board_dir), *tmp = NULL;
	struct strvec names = STRVEC_INIT;
	int rc = -1;

	*root = xasprintf("%s/%.16s", roots, l->digest);
	if (file_is_dir(*root)) {
		rc = 0;
		goto out;
	}
	if (file_mkdir_p(roots, err))
		goto out;
	/* What an interrupted snapshot left (the board is locked: none is in the making). */
	if (file_list_dir(roots, &names) == 0)
		for (size_t i = 0; i < names.n; i++)
			if (strncmp(names.v[i], ".tmp-", 5) == 0) {
				char *old = xasprintf("%s/%s", roots, names.v[i]);

				file_remove_tree(old);
				free(old);
			}
	tmp = xasprintf("%s/.tmp-XXXXXX", roots);
	if (!mkdtemp(tmp)) {
		xcc_fail(err, XCC_EFAIL, "cannot make a directory in %s: %s", roots,
			 strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < l->n; i++)
		if (clone_entry(mirror, tmp, &l->v[i], err))
			goto out;
	chmod(tmp, 0755);
	if (rename(tmp, *root)) {
		xcc_fail(err, XCC_EFAIL, "cannot rename %s to %s: %s", tmp, *root, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	rc = 0;
out:
	if (tmp)
		file_remove_tree(tmp);
	if (rc) {
		free(*root);
		*root = NULL;
	}
	free(tmp);
	free(roots);
	strvec_free(&names);
	return rc;
}

/* --- the target side ---------------------------------------------------------- */

static int add_file(struct archive *a, struct archive_entry *e, const char *path,
		    struct xcc_error *err)
{
	char buf[1 << 16];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc = 0;
	struct stat st;

	if (fd < 0)
		return xcc_fail(err, XCC_EFAIL, "cannot read %s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		close(fd);
		return xcc_fail(err, XCC_EFAIL, "cannot read %s: %s", path, strerror(errno));
	}
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, st.st_mode & 0777);
	archive_entry_set_size(e, st.st_size);
	archive_entry_set_mtime(e, st.st_mtime, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK)
		rc = package_archive_fail(err, a, path);
	while (rc == 0 && (n = read(fd, buf, sizeof buf)) > 0)
		if (archive_write_data(a, buf, (size_t)n) != n)
			rc = package_archive_fail(err, a, path);
	if (rc == 0 && n < 0)
		rc = xcc_fail(err, XCC_EFAIL, "cannot read %s: %s", path, strerror(errno));
	close(fd);
	return rc;
}

/* Every entry under prefix into a (a pax archive: any length of name). */
static int write_entries(struct archive *a, const char *root, const struct pull_listing *l,
			 const char *prefix, const char *top, struct xcc_error *err)
{
	size_t plen = strlen(prefix), added = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct pull_entry *pe = &l->v[i];
		struct archive_entry *e;
		char *name, *path;
		int rc = 0;

		if (strncmp(pe->path, prefix, plen) != 0 || !pe->path[plen])
			continue;
		e = archive_entry_new();
		name = xasprintf("%s/%s", top, pe->path + plen);
		path = xasprintf("%s/%s", root, pe->path);
		archive_entry_set_pathname(e, name);
		if (pe->type == 'l') {
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_perm(e, 0777);
			archive_entry_set_symlink(e, pe->target);
			if (archive_write_header(a, e) != ARCHIVE_OK)
				rc = package_archive_fail(err, a, name);
		} else {
			rc = add_file(a, e, path, err);
		}
		archive_entry_free(e);
		free(name);
		free(path);
		if (rc)
			return -1;
		added++;
	}
	if (!added)
		return xcc_fail(err, XCC_EFAIL, "the board's %s holds no files", prefix);
	return 0;
}

int pull_target_archive(const char *board_dir, const char *root, const struct pull_listing *l,
			const char *prefix, const char *tag, const char *version, char **archive,
			struct xcc_error *err)
{
	char *dir = xasprintf("%s/archives/%.16s", board_dir, l->digest);
	char *top = xasprintf("cuda_board-%s-%s-archive", tag, version);
	char *tmp = NULL;
	struct archive *a = NULL;
	int rc = -1;

	*archive = xasprintf("%s/%s.tar", dir, top);
	if (file_exists(*archive)) {
		rc = 0;
		goto out;
	}
	if (file_mkdir_p(dir, err))
		goto out;
	tmp = xasprintf("%s.tmp", *archive);
	a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	if (archive_write_open_filename(a, tmp) != ARCHIVE_OK) {
		package_archive_fail(err, a, tmp);
		goto out;
	}
	if (write_entries(a, root, l, prefix, top, err))
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK) {
		package_archive_fail(err, a, tmp);
		goto out;
	}
	if (rename(tmp, *archive)) {
		xcc_fail(err, XCC_EFAIL, "cannot rename %s: %s", tmp, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (a)
		archive_write_free(a);
	if (tmp && rc)
		unlink(tmp);
	if (rc) {
		free(*archive);
		*archive = NULL;
	}
	free(tmp);
	free(top);
	free(dir);
	return rc;
}

/* --- the board's CUDA release --------------------------------------------------- */

/* A small file inside root, read as the device reads it (its links from its root). */
static char *read_in_root(const char *root, const char *rel)
{
	struct xcc_error err = { 0 };
	int fd = devroot_open(root, rel, O_RDONLY, &err);
	char buf[1 << 16];
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/* Digits and dots only: what goes into an archive's name and sysroot.json. */
static char *plain_version(const char *v)
{
	size_t n = v ? strspn(v, "0123456789.") : 0;

	return n && n < 32 && v[0] != '.' ? xstrndup(v, n) : NULL;
}

char *pull_cuda_version(const char *root, const char *cuda_dir)
{
	char *rel = xasprintf("%s/version.json", cuda_dir), *text = read_in_root(root, rel);
	char *out = NULL;

	if (text) {
		cJSON *j = cJSON_Parse(text);
		const cJSON *cuda = cJSON_GetObjectItemCaseSensitive(j, "cuda");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(cuda, "version");

		if (cJSON_IsString(v))
			out = plain_version(v->valuestring);
		cJSON_Delete(j);
		free(text);
	}
	free(rel);
	if (out)
		return out;
	/* Before CUDA 11.1: "CUDA Version 10.2.89". */
	rel = xasprintf("%s/version.txt", cuda_dir);
	text = read_in_root(root, rel);
	if (text && strncmp(text, "CUDA Version ", 13) == 0)
		out = plain_version(text + 13);
	free(text);
	free(rel);
	return out;
}
