/* apt repositories: sources.list lines, Release and Packages (deb822)
 * read, every index checked against what vouches for it before it is
 * decompressed (libarchive's filters: .xz, .gz or none). */
#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/proc.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "pkg/aptrepo.h"

/* The most a decompressed Packages index may be: NVIDIA's CUDA x86_64
 * index, every release since 2017, is about 30 MB. */
#define APT_INDEX_MAX (512u << 20)

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int apt_is_source(const char *from)
{
	size_t n = strlen(from);

	if (strncmp(from, "deb", 3) == 0 && (from[3] == ' ' || from[3] == '\t'))
		return 1;
	return fetch_is_url(from) && n && from[n - 1] == '/';
}

void apt_source_free(struct apt_source *s)
{
	free(s->line);
	free(s->url);
	free(s->suite);
	strvec_free(&s->components);
	strvec_free(&s->arches);
	free(s->release_sha256);
	free(s->signed_by);
	memset(s, 0, sizeof *s);
}

static int is_sha256_hex(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return i == 64;
}

/* One option of the [...] list. */
static int source_option(struct apt_source *s, const char *opt, struct xcc_error *err)
{
	if (starts_with(opt, "sha256=")) {
		if (!is_sha256_hex(opt + 7))
			return xcc_fail(err, XCC_EUSAGE, "%s: sha256= takes the Release file's "
					"sha256, 64 hex digits (sha256sum Release)", s->line);
		free(s->release_sha256);
		s->release_sha256 = xstrdup(opt + 7);
		for (char *p = s->release_sha256; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	} else if (strcmp(opt, "trusted=yes") == 0) {
		s->trusted = 1;
	} else if (starts_with(opt, "arch=")) {
		strvec_split(&s->arches, opt + 5);
	} else if (starts_with(opt, "signed-by=")) {
		/* A keyring file, as apt takes it (not a fingerprint). */
		if (opt[10] != '/')
			return xcc_fail(err, XCC_EUSAGE, "%s: signed-by= takes the absolute path of "
					"a keyring file (e.g. /usr/share/keyrings/"
					"cuda-archive-keyring.gpg)", s->line);
		if (strlen(opt) > 14 && strcmp(opt + strlen(opt) - 4, ".asc") == 0)
			return xcc_fail(err, XCC_EUSAGE, "%s: gpgv takes a binary keyring, not an "
					"armored one: gpg --dearmor < %s > KEYRING.gpg, and give "
					"signed-by=KEYRING.gpg", s->line, opt + 10);
		free(s->signed_by);
		s->signed_by = xstrdup(opt + 10);
	} else {
		return xcc_fail(err, XCC_EUSAGE, "%s: unknown option '%s' (known: sha256=HEX, "
				"signed-by=KEYRING, trusted=yes, arch=LIST)", s->line, opt);
	}
	return 0;
}

/* The words of text, split on blanks; "[a b]" kept as "[", "a", "b", "]". */
static void source_words(const char *text, struct strvec *w)
{
	const char *p = text;

	while (*p) {
		size_t n;

		p += strspn(p, " \t");
		if (!*p)
			break;
		if (*p == '[' || *p == ']') {
			strvec_pushf(w, "%c", *p++);
			continue;
		}
		n = strcspn(p, " \t[]");
		strvec_pushf(w, "%.*s", (int)n, p);
		p += n;
	}
}

int apt_source_parse(const char *text, struct apt_source *s, struct xcc_error *err)
{
	struct strvec w = STRVEC_INIT;
	size_t i = 1;
	int rc = -1;

	memset(s, 0, sizeof *s);
	s->line = xstrdup(text);
	if (strncmp(text, "deb", 3) != 0 || (text[3] != ' ' && text[3] != '\t')) {
		/* A bare URL: the flat repository there. */
		s->url = xstrdup(text);
		s->suite = xstrdup("./");
		s->flat = 1;
		goto arches;
	}
	source_words(text, &w);
	if (i < w.n && strcmp(w.v[i], "[") == 0) {
		for (i++; i < w.n && strcmp(w.v[i], "]") != 0; i++)
			if (source_option(s, w.v[i], err))
				goto out;
		if (i++ >= w.n)
			goto bad;
	}
	if (i + 1 >= w.n || !fetch_is_url(w.v[i]))
		goto bad;
	s->url = w.v[i][strlen(w.v[i]) - 1] == '/' ? xstrdup(w.v[i]) : xasprintf("%s/", w.v[i]);
	s->suite = xstrdup(w.v[i + 1]);
	s->flat = s->suite[strlen(s->suite) - 1] == '/';
	for (i += 2; i < w.n; i++)
		strvec_push(&s->components, w.v[i]);
	if (s->flat && s->components.n)
		goto bad;
	if (!s->flat && !s->components.n)
		goto bad;
	if (strstr(s->suite, "..") || (s->suite[0] == '/' && strcmp(s->suite, "/") != 0))
		goto bad;
arches:
	if (!s->arches.n)
		strvec_pushl(&s->arches, "amd64", "arm64", NULL);
	rc = 0;
	goto out;
bad:
	xcc_fail(err, XCC_EUSAGE, "'%s' is no apt source: give 'deb URL SUITE COMPONENT...' "
		 "(e.g. 'deb https://repo.download.nvidia.com/jetson/common r36.4 main'), a flat "
		 "repository 'deb URL ./', or its URL ending in '/'", text);
out:
	strvec_free(&w);
	if (rc)
		apt_source_free(s);
	return rc;
}

/* ---- deb822 ------------------------------------------------------------------ */

/* The next stanza of [*p, end): its start and length; 0 at the end. */
static int next_stanza(const char **p, const char *end, const char **st, size_t *len)
{
	const char *q = *p;

	/* Blank lines between stanzas. */
	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		const char *e = nl ? nl : end;
		const char *r = q;

		while (r < e && (*r == ' ' || *r == '\t' || *r == '\r'))
			r++;
		if (r != e)
			break;
		q = nl ? nl + 1 : end;
	}
	if (q >= end)
		return 0;
	*st = q;
	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		const char *e = nl ? nl : end, *r = q;

		while (r < e && (*r == ' ' || *r == '\t' || *r == '\r'))
			r++;
		if (r == e)
			break;
		q = nl ? nl + 1 : end;
	}
	*len = (size_t)(q - *st);
	*p = q;
	return 1;
}

char *deb822_field(const char *st, size_t len, const char *name)
{
	const char *end = st + len, *q = st;
	size_t n = strlen(name);

	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		const char *e = nl ? nl : end;

		if ((size_t)(e - q) > n && strncasecmp(q, name, n) == 0 && q[n] == ':') {
			struct strvec lines = STRVEC_INIT;
			const char *v = q + n + 1;
			char *out;

			v += strspn(v, " \t");
			if (v < e)
				strvec_pushf(&lines, "%.*s", (int)(e - v), v);
			/* Continuation lines begin with a blank. */
			for (q = nl ? nl + 1 : end; q < end && (*q == ' ' || *q == '\t');) {
				nl = memchr(q, '\n', (size_t)(end - q));
				e = nl ? nl : end;
				v = q + strspn(q, " \t");
				strvec_pushf(&lines, "%.*s", (int)(e - v), v);
				q = nl ? nl + 1 : end;
			}
			out = strvec_join(&lines, "\n");
			strvec_free(&lines);
			/* No trailing carriage returns or blanks. */
			for (size_t k = strlen(out); k && isspace((unsigned char)out[k - 1]); k--)
				out[k - 1] = '\0';
			return out;
		}
		q = nl ? nl + 1 : end;
	}
	return NULL;
}

/* ---- versions ------------------------------------------------------------------ */

static int order(int c)
{
	if (isdigit(c))
		return 0;
	if (isalpha(c))
		return c;
	if (c == '~')
		return -1;
	if (c)
		return c + 256;
	return 0;
}

/* dpkg's verrevcmp: non-digit runs by order(), digit runs by value. */
static int verrevcmp(const char *a, const char *b)
{
	while (*a || *b) {
		int first_diff = 0;

		while ((*a && !isdigit((unsigned char)*a)) || (*b && !isdigit((unsigned char)*b))) {
			int ac = order((unsigned char)*a), bc = order((unsigned char)*b);

			if (ac != bc)
				return ac - bc;
			a++;
			b++;
		}
		while (*a == '0')
			a++;
		while (*b == '0')
			b++;
		while (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			if (!first_diff)
				first_diff = *a - *b;
			a++;
			b++;
		}
		if (isdigit((unsigned char)*a))
			return 1;
		if (isdigit((unsigned char)*b))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

/* epoch, upstream and revision of v (s is a copy the parts point into). */
static void version_split(char *s, long *epoch, const char **up, const char **rev)
{
	char *colon = strchr(s, ':'), *dash;

	*epoch = colon ? strtol(s, NULL, 10) : 0;
	*up = colon ? colon + 1 : s;
	dash = strrchr((char *)*up, '-');
	if (dash)
		*dash = '\0';
	*rev = dash ? dash + 1 : "";
}

int apt_version_cmp(const char *a, const char *b)
{
	char *ca = xstrdup(a), *cb = xstrdup(b);
	const char *ua, *ra, *ub, *rb;
	long ea, eb;
	int r;

	version_split(ca, &ea, &ua, &ra);
	version_split(cb, &eb, &ub, &rb);
	r = ea != eb ? (ea < eb ? -1 : 1) : verrevcmp(ua, ub);
	if (!r)
		r = verrevcmp(ra, rb);
	free(ca);
	free(cb);
	return r;
}

const char *apt_arch_machine(const char *arch)
{
	if (!arch)
		return NULL;
	if (strcmp(arch, "amd64") == 0)
		return "x86_64";
	if (strcmp(arch, "arm64") == 0)
		return "aarch64";
	if (strcmp(arch, "all") == 0)
		return "all";
	return NULL;
}

/* ---- Packages ----------------------------------------------------------------- */

/* A Filename is a path below the repository: nothing absolute, no "..",
 * no URL of its own, nothing a line could not hold. */
static int filename_ok(const char *f)
{
	if (!*f || f[0] == '/' || strstr(f, "://") || strpbrk(f, "\n\r\t ?#"))
		return 0;
	for (const char *p = f; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && strncmp(p, "..", 2) == 0)
			return 0;
		p += n;
		p += *p == '/';
	}
	return 1;
}

static int package_fields(const char *st, size_t len, const struct apt_source *s,
			  const char *what, struct apt_package *pk, struct xcc_error *err)
{
	char *file = deb822_field(st, len, "Filename");
	char *sha = deb822_field(st, len, "SHA256");
	char *size = deb822_field(st, len, "Size");
	char *end = NULL;
	int rc = -1;

	memset(pk, 0, sizeof *pk);
	pk->name = deb822_field(st, len, "Package");
	pk->version = deb822_field(st, len, "Version");
	pk->arch = deb822_field(st, len, "Architecture");
	pk->source = s;
	if (!pk->name || !pk->version || !pk->arch || !file || !size) {
		xcc_fail(err, XCC_EFAIL, "%s: a stanza (%s) lacks Package, Version, Architecture, "
			 "Filename or Size", what, pk->name ? pk->name : "no Package");
		goto out;
	}
	if (!sha || !is_sha256_hex(sha)) {
		xcc_fail(err, XCC_EFAIL, "%s: %s %s has no SHA256 of 64 hex digits: a package is "
			 "taken only with the hash it is checked against", what, pk->name,
			 pk->version);
		goto out;
	}
	pk->size = (int64_t)strtoll(size, &end, 10);
	if (!*size || *end || pk->size < 0) {
		xcc_fail(err, XCC_EFAIL, "%s: %s %s: Size '%s' is no number", what, pk->name,
			 pk->version, size);
		goto out;
	}
	if (!filename_ok(file)) {
		xcc_fail(err, XCC_EFAIL, "%s: %s %s: Filename '%s' leaves the repository (an "
			 "absolute path, '..' or a URL of its own); the index is refused", what,
			 pk->name, pk->version, file);
		goto out;
	}
	for (size_t i = 0; i < 64; i++)
		pk->sha256[i] = (char)tolower((unsigned char)sha[i]);
	pk->url = xasprintf("%s%s", s->url, starts_with(file, "./") ? file + 2 : file);
	rc = 0;
out:
	free(file);
	free(sha);
	free(size);
	if (rc) {
		free(pk->name);
		free(pk->version);
		free(pk->arch);
	}
	return rc;
}

int apt_packages_parse(const char *text, size_t len, const struct apt_source *s,
		       const char *what, struct apt_index *idx, struct xcc_error *err)
{
	const char *p = text, *st;
	size_t n;

	while (next_stanza(&p, text + len, &st, &n)) {
		struct apt_package pk;

		if (package_fields(st, n, s, what, &pk, err))
			return -1;
		XGROW(idx->v, idx->n + 1, idx->cap);
		idx->v[idx->n++] = pk;
	}
	return 0;
}

void apt_index_free(struct apt_index *idx)
{
	for (size_t i = 0; i < idx->n; i++) {
		free(idx->v[i].name);
		free(idx->v[i].version);
		free(idx->v[i].arch);
		free(idx->v[i].url);
	}
	free(idx->v);
	memset(idx, 0, sizeof *idx);
}

/* ---- Release and the indexes it lists -------------------------------------------- */

/* The sha256 and size the Release's SHA256 field gives path, or -1. */
static int release_entry(const char *sha256_field, const char *path, char hex[65],
			 int64_t *size)
{
	for (const char *p = sha256_field; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, n), *h, *sz, *name, *save = NULL;
		int found = 0;

		h = strtok_r(line, " \t", &save);
		sz = h ? strtok_r(NULL, " \t", &save) : NULL;
		name = sz ? strtok_r(NULL, " \t", &save) : NULL;
		if (name && strcmp(name, path) == 0 && is_sha256_hex(h)) {
			for (size_t i = 0; i < 65; i++)
				hex[i] = (char)tolower((unsigned char)h[i]);
			*size = (int64_t)strtoll(sz, NULL, 10);
			found = 1;
		}
		free(line);
		if (found)
			return 0;
		p = nl ? nl + 1 : NULL;
	}
	return -1;
}

/* The directory Release and the index paths it lists are relative to. */
static char *release_dir(const struct apt_source *s)
{
	if (s->flat)
		return strcmp(s->suite, "/") == 0 || strcmp(s->suite, "./") == 0 ?
			xstrdup(s->url) : xasprintf("%s%s", s->url, s->suite);
	return xasprintf("%sdists/%s/", s->url, s->suite);
}

/* gpgv's verdict on sig (the Release.gpg) over text (the Release), with
 * s's keyring, both written to a directory of their own for it: what is
 * checked is the very text read afterwards. */
static int check_signature(const struct apt_source *s, const char *url, const char *text,
			   size_t len, const char *sig, size_t sig_len, struct xcc_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/cuda-xcc-gpgv-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *rel = NULL, *gpg = NULL, *out = NULL;
	int rc = -1, st;

	if (!mkdtemp(dir)) {
		xcc_fail(err, XCC_EFAIL, "cannot make a directory for gpgv in %s: %s",
			 tmp && *tmp ? tmp : "/tmp", strerror(errno));
		goto out;
	}
	rel = xasprintf("%s/Release", dir);
	gpg = xasprintf("%s/Release.gpg", dir);
	if (file_write_atomic(rel, text, len, 0600, err) ||
	    file_write_atomic(gpg, sig, sig_len, 0600, err))
		goto out;
	{
		/* Its own empty home: nothing of the user's keys or trust counts. */
		char *argv[] = { "gpgv", "--homedir", dir, "--keyring", s->signed_by, gpg, rel,
				 NULL };

		st = proc_capture(argv, &out, err);
	}
	if (st < 0) {
		xcc_error_prefix(err, "%s: checking the signature needs gpgv (Debian's gpgv "
				 "package); or pin the Release instead ('deb [sha256=HEX] ...')",
				 s->line);
		goto out;
	}
	if (st != 0) {
		xcc_fail(err, XCC_EFAIL, "%s.gpg: gpgv does not accept it as a signature of %s by "
			 "a key of %s (exit %d): the Release is not the one that key signed, or the "
			 "keyring is not the repository's", url, url, s->signed_by, st);
		goto out;
	}
	rc = 0;
out:
	if (rel)
		unlink(rel);
	if (gpg)
		unlink(gpg);
	rmdir(dir);
	free(dir);
	free(rel);
	free(gpg);
	free(out);
	return rc;
}

/* The Release at dir, checked against s's pin and signature. */
static int read_release(const struct fetch_opts *fo, const struct apt_source *s,
			const char *dir, char **text, size_t *len, struct xcc_error *err)
{
	char *url = xasprintf("%sRelease", dir), *sig_url = NULL, *sig = NULL, hex[65];
	size_t sig_len = 0;
	int rc = -1;

	if (!s->release_sha256 && !s->signed_by && !s->trusted) {
		xcc_fail(err, XCC_EUSAGE, "%s: the repository's Release is neither signed by a "
			 "keyring given, nor pinned, nor trusted: name the repository's keyring "
			 "('deb [signed-by=/usr/share/keyrings/KEY.gpg] ...', checked with gpgv), or "
			 "check %s yourself and pin it ('deb [sha256=HEX] ...', HEX from sha256sum "
			 "Release), or take it unchecked with 'deb [trusted=yes] ...'", s->line, url);
		goto out;
	}
	if (fetch_text(fo, url, text, len, err)) {
		xcc_error_prefix(err, "reading the Release of '%s'", s->line);
		goto out;
	}
	xcc_sha256_buffer(*text, *len, hex);
	if (s->release_sha256 && strcmp(hex, s->release_sha256) != 0) {
		xcc_fail(err, XCC_EFAIL, "%s: sha256 mismatch: the line pins %s, got %s; the "
			 "repository changed since it was pinned (check the new Release and pin "
			 "it again) or is not the one pinned", url, s->release_sha256, hex);
		goto out;
	}
	if (s->signed_by) {
		sig_url = xasprintf("%s.gpg", url);
		if (fetch_text(fo, sig_url, &sig, &sig_len, err)) {
			xcc_error_prefix(err, "reading the signature of '%s'", s->line);
			goto out;
		}
		if (check_signature(s, url, *text, *len, sig, sig_len, err))
			goto out;
	}
	rc = 0;
out:
	if (rc) {
		free(*text);
		*text = NULL;
	}
	free(url);
	free(sig_url);
	free(sig);
	return rc;
}

/* Decompress the verified index at fd (xz, gzip or none) into *text. */
static int index_text(int fd, const char *what, char **text, size_t *len,
		      struct xcc_error *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char *at = fetch_fd_path(fd), *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = -1;

	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_filename(a, at, 64 * 1024) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", what, archive_error_string(a));
		goto out;
	}
	for (;;) {
		la_ssize_t r;

		XGROW(buf, n + 65536 + 1, cap);
		r = archive_read_data(a, buf + n, 65536);
		if (r < 0) {
			xcc_fail(err, XCC_EFAIL, "%s: %s", what, archive_error_string(a));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > APT_INDEX_MAX) {
			xcc_fail(err, XCC_EFAIL, "%s: more than %u MB decompressed: no Packages "
				 "index is that large", what, APT_INDEX_MAX >> 20);
			goto out;
		}
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	buf = NULL;
	rc = 0;
out:
	archive_read_free(a);
	free(at);
	free(buf);
	return rc;
}

/* The index at dir/base (.xz, .gz or plain: the first the Release lists),
 * fetched, checked and parsed; 1 when the Release lists none. */
static int read_one_index(const struct fetch_opts *fo, const struct apt_source *s,
			  const char *dir, const char *sums, const char *base,
			  struct apt_index *idx, struct xcc_error *err)
{
	static const char *const exts[] = { ".xz", ".gz", "" };
	char hex[65], *path = NULL, *url = NULL, *local = NULL, *text = NULL;
	int64_t size = -1;
	size_t len = 0;
	int fd = -1, rc = 1;

	for (size_t i = 0; i < sizeof exts / sizeof exts[0] && rc == 1; i++) {
		free(path);
		path = xasprintf("%s%s", base, exts[i]);
		if (release_entry(sums, path, hex, &size) == 0)
			rc = -1;
	}
	if (rc == 1)
		goto out;
	url = xasprintf("%s%s", dir, path);
	if (fetch_file_fd(fo, url, hex, size, &local, &fd, err)) {
		xcc_error_prefix(err, "the index %s, as the Release lists it", url);
		goto out;
	}
	if (index_text(fd, url, &text, &len, err) ||
	    apt_packages_parse(text, len, s, url, idx, err))
		goto out;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(path);
	free(url);
	free(local);
	free(text);
	return rc;
}

int apt_index_read(const struct fetch_opts *fo, const struct apt_source *s,
		   struct apt_index *idx, struct xcc_error *err)
{
	char *dir = release_dir(s), *text = NULL, *sums = NULL;
	size_t len = 0, found = 0;
	int rc = -1;

	if (read_release(fo, s, dir, &text, &len, err))
		goto out;
	{
		const char *p = text, *st;
		size_t n;

		if (next_stanza(&p, text + len, &st, &n))
			sums = deb822_field(st, n, "SHA256");
	}
	if (!sums) {
		xcc_fail(err, XCC_EFAIL, "%sRelease has no SHA256 field: its indexes cannot be "
			 "checked", dir);
		goto out;
	}
	if (s->flat) {
		int r = read_one_index(fo, s, dir, sums, "Packages", idx, err);

		if (r < 0)
			goto out;
		found += r == 0;
	}
	for (size_t c = 0; c < s->components.n; c++)
		for (size_t a = 0; a < s->arches.n; a++) {
			char *base = xasprintf("%s/binary-%s/Packages", s->components.v[c],
					       s->arches.v[a]);
			int r = read_one_index(fo, s, dir, sums, base, idx, err);

			free(base);
			if (r < 0)
				goto out;
			found += r == 0;
		}
	if (!found) {
		xcc_fail(err, XCC_EUSAGE, "%sRelease lists no Packages index for '%s' (in its "
			 "SHA256 field)", dir, s->line);
		goto out;
	}
	rc = 0;
out:
	free(dir);
	free(text);
	free(sums);
	return rc;
}
