#include <config.h>

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_field.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/manifest.h"

/* Tags whose entries we read and validate. Anything else that appears as a
 * platform key (linux-all, source, whatever NVIDIA adds next) is skipped:
 * its shape is not ours to judge. */
static const char *const known_tags[] = {
	"linux-x86_64", "linux-sbsa", "linux-aarch64", "linux-ppc64le",
	"windows-x86_64", "windows-arm64", NULL,
};

/* Package fields that are not platform keys. */
static const char *const package_fields[] = {
	"name", "license", "license_path", "version", "cuda_variant", NULL,
};

int manifest_tag_known(const char *tag)
{
	for (size_t i = 0; known_tags[i]; i++)
		if (strcmp(tag, known_tags[i]) == 0)
			return 1;
	return 0;
}

static int in_list(const char *s, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

/* An optional string field: absent or null is fine, another type is not. */
static int opt_string(const cJSON *obj, const char *key, const char *path, char **out,
		      const char *src, struct xcc_error *err)
{
	const cJSON *it;

	*out = NULL;
	if (json_member(obj, key, cJSON_String, 1, &it, src, path, err))
		return -1;
	if (it)
		*out = xstrdup(it->valuestring);
	return 0;
}

static int is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return i == n;
}

/* Why a relative_path is refused, or NULL. It names a file below the
 * manifest's directory, read as a local path, through file:// (which
 * percent-decodes) or over HTTP (where the server decodes): so only
 * characters that mean the same to all three are taken, and "%" is not
 * one of them ("%2e%2e/" is "../" to two of them). NVIDIA's paths are
 * letters, digits and "._+-~/". */
static const char *relative_path_problem(const char *p)
{
	const char *c = p;

	if (!*p)
		return "is empty";
	if (*p == '/')
		return "is absolute";
	for (; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._+-~/", *c))
			return *c == '%' ? "holds a percent-encoded character, which a file path, "
					   "file:// and HTTP read differently"
					 : "holds a character other than letters, digits and ._+-~/";
	for (c = p; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return "leaves the manifest's directory";
		if (n == 0)
			return "has an empty component";
		c += n;
		if (*c == '/')
			c++;
	}
	return NULL;
}

/* Package keys (cuda_nvcc) and versions (12.6.77) as NVIDIA writes them;
 * anything else is no NVIDIA manifest, and would only reach file names,
 * messages and sysroot.json. */
static int valid_package_key(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64 || !isalnum((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.+-", *s))
			return 0;
	return 1;
}

static int valid_version(const char *s)
{
	int parts = 0;

	while (*s) {
		size_t digits = strspn(s, "0123456789");

		if (digits == 0 || digits > 9 || ++parts > 6)
			return 0;
		s += digits;
		if (*s == '.' && s[1])
			s++;
		else if (*s)
			return 0;
	}
	return parts > 0;
}

static int parse_size(const cJSON *it, const char *path, int64_t *out, const char *src,
		      struct xcc_error *err)
{
	if (cJSON_IsNumber(it)) {
		if (it->valuedouble < 0 || it->valuedouble > 9.0e15 ||
		    it->valuedouble != (double)(int64_t)it->valuedouble)
			return xcc_fail(err, XCC_EFAIL, "%s: %s.size is not a byte count", src, path);
		*out = (int64_t)it->valuedouble;
		return 0;
	}
	if (cJSON_IsString(it)) {
		const char *s = it->valuestring;
		char *end;
		long long v;

		errno = 0;
		v = strtoll(s, &end, 10);
		if (!isdigit((unsigned char)*s) || *end || errno || v < 0)
			return xcc_fail(err, XCC_EFAIL, "%s: %s.size is '%s', not a decimal byte count",
					src, path, s);
		*out = v;
		return 0;
	}
	return xcc_fail(err, XCC_EFAIL, "%s: %s.size must be a decimal string, not %s", src, path,
			it ? json_type_name(it) : "missing");
}

static int parse_archive(const cJSON *e, const char *path, struct manifest_archive *a,
			 const char *src, struct xcc_error *err)
{
	const cJSON *rp = cJSON_GetObjectItemCaseSensitive(e, "relative_path");
	const cJSON *sha = cJSON_GetObjectItemCaseSensitive(e, "sha256");
	const char *problem;

	if (!cJSON_IsString(rp))
		return xcc_fail(err, XCC_EFAIL, "%s: %s.relative_path must be a string, not %s", src,
				path, rp ? json_type_name(rp) : "missing");
	if ((problem = relative_path_problem(rp->valuestring)))
		return xcc_fail(err, XCC_EFAIL, "%s: %s.relative_path '%s' %s: refused", src, path,
				rp->valuestring, problem);
	if (!cJSON_IsString(sha))
		return xcc_fail(err, XCC_EFAIL, "%s: %s.sha256 must be a string, not %s", src, path,
				sha ? json_type_name(sha) : "missing");
	if (!is_hex(sha->valuestring, 64))
		return xcc_fail(err, XCC_EFAIL, "%s: %s.sha256 '%s' is not 64 hex digits", src, path,
				sha->valuestring);
	if (parse_size(cJSON_GetObjectItemCaseSensitive(e, "size"), path, &a->size, src, err))
		return -1;
	if (opt_string(e, "md5", path, &a->md5, src, err))
		return -1;
	a->relative_path = xstrdup(rp->valuestring);
	a->sha256 = xstrdup(sha->valuestring);
	for (char *p = a->sha256; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return 0;
}

static void archive_free(struct manifest_archive *a)
{
	free(a->tag);
	free(a->variant);
	free(a->relative_path);
	free(a->sha256);
	free(a->md5);
}

static struct manifest_archive *add_archive(struct manifest_package *p)
{
	struct manifest_archive *a;

	XGROW(p->archives, p->n_archives + 1, p->archives_cap);
	a = &p->archives[p->n_archives++];
	memset(a, 0, sizeof *a);
	return a;
}

/* One platform key of a package: a plain entry, or a map of "cuda<V>"
 * variants to entries. */
static int parse_platform(const cJSON *val, const char *pkg, struct manifest_package *p,
			  const char *src, struct xcc_error *err)
{
	const char *tag = val->string;
	char *path = xasprintf("%s.%s", pkg, tag);
	const cJSON *v;
	int rc = -1;

	if (!cJSON_IsObject(val)) {
		xcc_fail(err, XCC_EFAIL, "%s: %s must be an object, not %s", src, path,
			 json_type_name(val));
		goto out;
	}
	if (cJSON_GetObjectItemCaseSensitive(val, "relative_path")) {
		struct manifest_archive *a = add_archive(p);

		a->tag = xstrdup(tag);
		if (parse_archive(val, path, a, src, err))
			goto out;
		rc = 0;
		goto out;
	}
	cJSON_ArrayForEach(v, val) {
		char *vpath = xasprintf("%s.%s", path, v->string);
		struct manifest_archive *a;
		int bad;

		if (strncmp(v->string, "cuda", 4) != 0 || !isdigit((unsigned char)v->string[4])) {
			xcc_fail(err, XCC_EFAIL, "%s: %s has neither relative_path nor a cuda<V> "
				 "variant key", src, vpath);
			free(vpath);
			goto out;
		}
		if (!cJSON_IsObject(v)) {
			xcc_fail(err, XCC_EFAIL, "%s: %s must be an object, not %s", src, vpath,
				 json_type_name(v));
			free(vpath);
			goto out;
		}
		a = add_archive(p);
		a->tag = xstrdup(tag);
		a->variant = xstrdup(v->string);
		bad = parse_archive(v, vpath, a, src, err);
		free(vpath);
		if (bad)
			goto out;
	}
	rc = 0;
out:
	free(path);
	return rc;
}

static int parse_package(const cJSON *obj, struct manifest_package *p, const char *src,
			 struct xcc_error *err)
{
	const char *key = obj->string;
	const cJSON *it;

	p->key = xstrdup(key);
	if (!valid_package_key(key))
		return xcc_fail(err, XCC_EFAIL, "%s: package key '%s' is refused: NVIDIA's are up to "
				"64 letters, digits and _.+- (e.g. cuda_nvcc)", src, key);
	if (opt_string(obj, "name", key, &p->name, src, err) ||
	    opt_string(obj, "license", key, &p->license, src, err) ||
	    opt_string(obj, "license_path", key, &p->license_path, src, err) ||
	    opt_string(obj, "version", key, &p->version, src, err))
		return -1;
	if (p->version && !valid_version(p->version))
		return xcc_fail(err, XCC_EFAIL, "%s: %s.version '%s' is refused: a version is up to 6 "
				"dot-separated numbers of up to 9 digits (e.g. 12.6.77)", src, key,
				p->version);
	it = cJSON_GetObjectItemCaseSensitive(obj, "cuda_variant");
	if (it) {
		const cJSON *v;

		if (!cJSON_IsArray(it))
			return xcc_fail(err, XCC_EFAIL, "%s: %s.cuda_variant must be an array, not %s",
					src, key, json_type_name(it));
		cJSON_ArrayForEach(v, it)
			if (!cJSON_IsString(v))
				return xcc_fail(err, XCC_EFAIL, "%s: %s.cuda_variant holds %s, not "
						"only strings", src, key, json_type_name(v));
	}
	cJSON_ArrayForEach(it, obj) {
		if (in_list(it->string, package_fields) || !manifest_tag_known(it->string))
			continue;
		if (parse_platform(it, key, p, src, err))
			return -1;
	}
	return 0;
}

static void package_free(struct manifest_package *p)
{
	free(p->key);
	free(p->name);
	free(p->license);
	free(p->license_path);
	free(p->version);
	for (size_t i = 0; i < p->n_archives; i++)
		archive_free(&p->archives[i]);
	free(p->archives);
}

/* Whether text ends inside a string or with objects still open: the mark
 * of a download cut short, worth telling apart from a syntax error. */
static int looks_truncated(const char *text, size_t len)
{
	int depth = 0, in_string = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = 0;
		} else if (c == '"') {
			in_string = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	return in_string || depth > 0;
}

/* Line and column of a byte offset, for parse errors. */
static void position(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

int manifest_parse(const char *text, size_t len, const char *source, struct manifest *m,
		   struct xcc_error *err)
{
	const char *end = NULL;
	cJSON *root;
	const cJSON *it;
	size_t n = 0;

	memset(m, 0, sizeof *m);
	m->source = xstrdup(source);
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root) {
		size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
		int line, col;

		position(text, off, &line, &col);
		xcc_fail(err, XCC_EFAIL, "%s is not valid JSON: %s at line %d, column %d%s", source,
			 looks_truncated(text, len) ? "it ends too early (truncated?)" : "syntax error", line, col,
			 len == 0 ? " (the file is empty)" : "");
		manifest_free(m);
		return -1;
	}
	if (!cJSON_IsObject(root)) {
		xcc_fail(err, XCC_EFAIL, "%s: the top level must be an object, not %s; is this a "
			 "redistrib_<version>.json manifest?", source, json_type_name(root));
		goto fail;
	}
	if (opt_string(root, "release_date", NULL, &m->release_date, source, err) ||
	    opt_string(root, "release_label", NULL, &m->release_label, source, err) ||
	    opt_string(root, "release_product", NULL, &m->release_product, source, err))
		goto fail;
	cJSON_ArrayForEach(it, root)
		if (cJSON_IsObject(it))
			n++;
	m->packages = xmalloc((n ? n : 1) * sizeof *m->packages);
	cJSON_ArrayForEach(it, root) {
		struct manifest_package *p;

		if (!cJSON_IsObject(it))
			continue;
		p = &m->packages[m->n_packages++];
		memset(p, 0, sizeof *p);
		if (parse_package(it, p, source, err))
			goto fail;
	}
	if (m->n_packages == 0 && !m->release_date) {
		xcc_fail(err, XCC_EFAIL, "%s holds no packages and no release_date; is this a "
			 "redistrib_<version>.json manifest?", source);
		goto fail;
	}
	cJSON_Delete(root);
	return 0;
fail:
	cJSON_Delete(root);
	manifest_free(m);
	return -1;
}

void manifest_free(struct manifest *m)
{
	free(m->source);
	free(m->release_date);
	free(m->release_label);
	free(m->release_product);
	for (size_t i = 0; i < m->n_packages; i++)
		package_free(&m->packages[i]);
	free(m->packages);
	memset(m, 0, sizeof *m);
}

const struct manifest_package *manifest_find(const struct manifest *m, const char *key)
{
	for (size_t i = 0; i < m->n_packages; i++)
		if (strcmp(m->packages[i].key, key) == 0)
			return &m->packages[i];
	return NULL;
}

const struct manifest_archive *manifest_archive_for(const struct manifest_package *p,
						    const char *tag, struct cuda_version v)
{
	char exact[32], major[32];
	const struct manifest_archive *by_major = NULL;

	snprintf(exact, sizeof exact, "cuda%d.%d", v.major, v.minor);
	snprintf(major, sizeof major, "cuda%d", v.major);
	for (size_t i = 0; i < p->n_archives; i++) {
		const struct manifest_archive *a = &p->archives[i];

		if (strcmp(a->tag, tag) != 0)
			continue;
		if (!a->variant || strcmp(a->variant, exact) == 0)
			return a;
		if (strcmp(a->variant, major) == 0)
			by_major = a;
	}
	return by_major;
}

char *manifest_package_tags(const struct manifest_package *p, struct cuda_version v)
{
	struct strvec tags = STRVEC_INIT;
	char *s;

	for (size_t i = 0; i < p->n_archives; i++) {
		const char *tag = p->archives[i].tag;

		if (!strvec_contains(&tags, tag) && manifest_archive_for(p, tag, v))
			strvec_push(&tags, tag);
	}
	s = tags.n ? strvec_join(&tags, ", ") : xstrdup("");
	strvec_free(&tags);
	return s;
}
