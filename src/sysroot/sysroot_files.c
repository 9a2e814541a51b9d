#include <config.h>

#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "pkg/fetch.h"
#include "sysroot/sysroot_files.h"
#include "sysroot/sysroot_meta.h"

/* A regular file whose digest is to be read: its line is made once the
 * digests are (they are read on several threads). */
struct pending_file {
	char *path;
	char *rel;
	unsigned mode;
	long long size;
	char hex[65];
};

/* The tree listing verify compares against: one line per entry, sorted. */
struct listing {
	struct strvec lines;
	size_t root_len;
	int digests;
	struct pending_file *files;
	size_t n_files, cap_files;
};

/* nftw has no user argument; the walk is single-threaded and short-lived. */
static __thread struct listing *current_listing;

/* A regular file's line, or with digests its place in the files to hash. */
static void list_file(struct listing *l, const char *path, const struct stat *st,
		      const char *rel)
{
	unsigned mode = (unsigned)(st->st_mode & 07777);
	struct pending_file *f;

	if (!l->digests) {
		strvec_pushf(&l->lines, "f %04o %lld %s", mode, (long long)st->st_size, rel);
		return;
	}
	XGROW(l->files, l->n_files + 1, l->cap_files);
	f = &l->files[l->n_files++];
	f->path = xstrdup(path);
	f->rel = xstrdup(rel);
	f->mode = mode;
	f->size = (long long)st->st_size;
}

/* The hashing threads share the files by an atomic index. */
struct hash_work {
	struct pending_file *files;
	size_t n;
	atomic_size_t next;
};

/* A file that cannot be read gets a digest no file has, so it never
 * matches. */
static void *hash_worker(void *arg)
{
	struct hash_work *w = arg;

	for (size_t i; (i = atomic_fetch_add(&w->next, 1)) < w->n;) {
		struct xcc_error e = { 0 };

		if (fetch_sha256_file(w->files[i].path, w->files[i].hex, NULL, &e))
			snprintf(w->files[i].hex, sizeof w->files[i].hex, "unreadable");
	}
	return NULL;
}

/* Hash l's files on up to one thread per CPU (at most 8: the page cache
 * feeds them, and SHA-256 is the cost), then make their lines. */
static void hash_files(struct listing *l)
{
	struct hash_work w = { l->files, l->n_files, 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus < 1 ? 1 : cpus > 8 ? 8 : (size_t)cpus, started = 0;
	pthread_t th[8];

	for (size_t i = 1; i < n && n < l->n_files; i++)
		if (pthread_create(&th[started], NULL, hash_worker, &w) == 0)
			started++;
	hash_worker(&w);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < l->n_files; i++) {
		struct pending_file *f = &l->files[i];

		strvec_pushf(&l->lines, "f %04o %lld %s %s", f->mode, f->size, f->hex, f->rel);
		free(f->path);
		free(f->rel);
	}
	free(l->files);
	l->files = NULL;
	l->n_files = l->cap_files = 0;
}

static int list_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct listing *l = current_listing;
	const char *rel = path + l->root_len;

	(void)ftw;
	if (*rel == '/')
		rel++;
	if (!*rel || strcmp(rel, SYSROOT_META_FILE) == 0 || strcmp(rel, SYSROOT_FILES_LIST) == 0)
		return 0;
	if (flag == FTW_SL || S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof target - 1);

		target[n < 0 ? 0 : n] = '\0';
		strvec_pushf(&l->lines, "l %s -> %s", rel, target);
	} else if (S_ISDIR(st->st_mode)) {
		strvec_pushf(&l->lines, "d %04o %s", (unsigned)(st->st_mode & 07777), rel);
	} else {
		list_file(l, path, st, rel);
	}
	return 0;
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *sysroot_files_listing(const char *root, int digests)
{
	struct listing l = { STRVEC_INIT, strlen(root), digests, NULL, 0, 0 };
	struct strvec out = STRVEC_INIT;
	char *s;

	current_listing = &l;
	nftw(root, list_entry, 32, FTW_PHYS);
	current_listing = NULL;
	hash_files(&l);
	if (l.lines.n)
		qsort(l.lines.v, l.lines.n, sizeof *l.lines.v, cmp_lines);
	if (digests)
		strvec_push(&out, SYSROOT_FILES_HEADER);
	strvec_extend(&out, &l.lines);
	strvec_push(&out, "");
	s = strvec_join(&out, "\n");
	strvec_free(&out);
	strvec_free(&l.lines);
	return s;
}

int sysroot_files_has_digests(const char *text)
{
	size_t n = strlen(SYSROOT_FILES_HEADER);

	return strncmp(text, SYSROOT_FILES_HEADER, n) == 0 && (text[n] == '\n' || !text[n]);
}

/* One entry of a listing: its line without the digest (what type, mode,
 * size and link target compare by), the digest, and the path. */
struct listing_entry {
	char *path;
	char *meta;
	char *digest; /* NULL: none recorded */
};

/* The start of the n-th space-separated field of line (0: the type). */
static const char *field(const char *line, int n)
{
	const char *p = line;

	for (int i = 0; i < n && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p;
}

/* "f MODE SIZE [SHA256] PATH", "d MODE PATH", "l PATH -> TARGET". */
static void parse_entry(const char *line, int digests, struct listing_entry *e)
{
	int with_digest = digests && line[0] == 'f';
	int skip = line[0] == 'f' ? 3 + with_digest : line[0] == 'd' ? 2 : 1;
	const char *p = field(line, skip), *arrow, *d;

	e->digest = NULL;
	if (!p) {
		e->path = xstrdup(line);
		e->meta = xstrdup(line);
		return;
	}
	arrow = line[0] == 'l' ? strstr(p, " -> ") : NULL;
	e->path = arrow ? xstrndup(p, (size_t)(arrow - p)) : xstrdup(p);
	if (!with_digest) {
		e->meta = xstrdup(line);
		return;
	}
	d = field(line, 3);
	e->digest = xstrndup(d, (size_t)(p - 1 - d));
	e->meta = xasprintf("%.*s%s", (int)(d - line), line, p);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct listing_entry *)a)->path,
		      ((const struct listing_entry *)b)->path);
}

static struct listing_entry *parse_listing(const char *text, size_t *n)
{
	struct listing_entry *v = NULL;
	size_t cap = 0;
	char *copy = xstrdup(text), *save = NULL;
	int digests = sysroot_files_has_digests(text);

	*n = 0;
	for (char *tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		if (tok[0] == '#')
			continue;
		XGROW(v, *n + 1, cap);
		parse_entry(tok, digests, &v[(*n)++]);
	}
	free(copy);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_entry);
	return v;
}

static void free_listing(struct listing_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].meta);
		free(v[i].digest);
	}
	free(v);
}

/* What differs between one entry as made and as it is now, or nothing. */
static int entry_problem(const struct listing_entry *w, const struct listing_entry *h,
			 struct strvec *problems)
{
	if (strcmp(w->meta, h->meta) != 0) {
		strvec_pushf(problems, "changed: %s (made as '%s', now '%s')", w->path, w->meta,
			     h->meta);
		return 1;
	}
	if (w->digest && h->digest && strcmp(w->digest, h->digest) != 0) {
		strvec_pushf(problems, "changed contents: %s (sha256 made as %s, now %s)", w->path,
			     w->digest, h->digest);
		return 1;
	}
	return 0;
}

void sysroot_files_diff(const char *want_text, const char *have_text, struct strvec *problems)
{
	size_t nw, nh, shown = 0;
	struct listing_entry *w = parse_listing(want_text, &nw), *h = parse_listing(have_text, &nh);

	for (size_t i = 0; i < nw && shown < 50; i++) {
		struct listing_entry *f = nh ? bsearch(&w[i], h, nh, sizeof *h, cmp_entry) : NULL;

		if (!f) {
			strvec_pushf(problems, "missing: %s", w[i].path);
			shown++;
		} else {
			shown += (size_t)entry_problem(&w[i], f, problems);
		}
	}
	for (size_t i = 0; i < nh && shown < 50; i++)
		if (!nw || !bsearch(&h[i], w, nw, sizeof *w, cmp_entry)) {
			strvec_pushf(problems, "not made by create: %s", h[i].path);
			shown++;
		}
	free_listing(w, nw);
	free_listing(h, nh);
}

/* "f MODE SIZE [SHA256] PATH", "d MODE PATH" or "l PATH -> TARGET" into e. */
static int parse_line(char *line, int digests, struct sysroot_files_entry *e)
{
	char *end, *arrow;
	int need = line[0] == 'f' ? 3 + digests : line[0] == 'd' ? 2 : 1;
	const char *p = field(line, need);

	memset(e, 0, sizeof *e);
	e->type = line[0];
	if (!p || !*p || line[1] != ' ' || !strchr("fdl", line[0]))
		return -1;
	if (e->type == 'l') {
		arrow = strstr(line + 2, " -> ");
		if (!arrow || arrow == line + 2 || !arrow[4])
			return -1;
		e->path = xstrndup(line + 2, (size_t)(arrow - line - 2));
		e->target = xstrdup(arrow + 4);
		return 0;
	}
	e->mode = (unsigned)strtoul(line + 2, &end, 8);
	if (end != line + 6 || *end != ' ' || e->mode > 07777)
		return -1;
	if (e->type == 'f') {
		e->size = strtoll(end + 1, &end, 10);
		if (*end != ' ' || e->size < 0)
			return -1;
		/* A file that could not be read has a word there, no digest. */
		if (digests && strspn(end + 1, "0123456789abcdef") == 64 && end[65] == ' ')
			memcpy(e->sha256, end + 1, 64);
	}
	e->path = xstrdup(p);
	return 0;
}

int sysroot_files_parse(const char *text, struct sysroot_files_entry **v, size_t *n)
{
	char *copy = xstrdup(text), *save = NULL;
	int digests = sysroot_files_has_digests(text), rc = 0;
	size_t cap = 0;

	*v = NULL;
	*n = 0;
	for (char *tok = strtok_r(copy, "\n", &save); tok && !rc; tok = strtok_r(NULL, "\n", &save)) {
		if (tok[0] == '#')
			continue;
		XGROW(*v, *n + 1, cap);
		rc = parse_line(tok, digests, &(*v)[(*n)++]);
	}
	free(copy);
	if (rc) {
		sysroot_files_entries_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return rc;
}

void sysroot_files_entries_free(struct sysroot_files_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].target);
	}
	free(v);
}
