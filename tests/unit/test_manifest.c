/* The redistrib manifest parser: every real manifest, every era's quirks,
 * and bad input that must fail with the offending key named. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/manifest.h"
#include "tap.h"

static char *data_path(const char *rel)
{
	const char *src = getenv("XCC_SRCDIR");

	return xasprintf("%s/tests/data/manifests/%s", src && *src ? src : ".", rel);
}

static int load(const char *rel, struct manifest *m, struct xcc_error *err)
{
	char *path = data_path(rel), *text;
	size_t len = 0;
	int rc;

	text = file_read_text(path, &len);
	if (!text) {
		free(path);
		return xcc_fail(err, XCC_EFAIL, "cannot read %s", rel);
	}
	rc = manifest_parse(text, len, rel, m, err);
	free(text);
	free(path);
	return rc;
}

static struct cuda_version ver(const char *s)
{
	struct cuda_version v;

	cuda_version_parse(s, &v);
	return v;
}

/* Parse text and return the error message ("" on success). */
static char *parse_msg(const char *text)
{
	struct manifest m;
	struct xcc_error err = { 0 };

	if (manifest_parse(text, strlen(text), "t.json", &m, &err) == 0) {
		manifest_free(&m);
		return xstrdup("");
	}
	return xstrdup(err.msg);
}

static void refused(const char *text, const char *needle, const char *what)
{
	char *msg = parse_msg(text);

	ok(*msg && strstr(msg, needle), "%s is refused naming '%s'", what, needle);
	if (!strstr(msg, needle))
		printf("#   got: %s\n", msg);
	free(msg);
}

static void real_manifests(void)
{
	static const char *const files[] = {
		"cuda/redistrib_11.8.0.json", "cuda/redistrib_12.0.1.json",
		"cuda/redistrib_12.4.1.json", "cuda/redistrib_12.6.3.json",
		"cuda/redistrib_12.8.1.json", "cuda/redistrib_13.0.2.json",
		"cudnn/redistrib_9.14.0.json", NULL,
	};

	for (size_t i = 0; files[i]; i++) {
		struct manifest m;
		struct xcc_error err = { 0 };
		int rc = load(files[i], &m, &err);

		ok(rc == 0, "%s parses%s%s", files[i], rc ? ": " : "", rc ? err.msg : "");
		if (rc)
			continue;
		ok(m.n_packages > 0 && m.release_date, "%s: %zu packages, released %s", files[i],
		   m.n_packages, m.release_date ? m.release_date : "?");
		for (size_t j = 0; j < m.n_packages; j++)
			for (size_t k = 0; k < m.packages[j].n_archives; k++)
				if (!manifest_tag_known(m.packages[j].archives[k].tag))
					ok(0, "%s: unknown tag %s kept", files[i],
					   m.packages[j].archives[k].tag);
		manifest_free(&m);
	}
}

static void era_details(void)
{
	struct manifest m;
	struct xcc_error err = { 0 };
	const struct manifest_package *p;
	const struct manifest_archive *a;

	ok(load("cuda/redistrib_11.8.0.json", &m, &err) == 0, "11.8.0 loads");
	ok(m.release_label == NULL, "11.8.0 has no release_label");
	p = manifest_find(&m, "cuda_nvcc");
	ok(p && p->license_path == NULL, "11.8.0 packages have no license_path");
	a = p ? manifest_archive_for(p, "linux-aarch64", ver("11.8")) : NULL;
	ok(a && strstr(a->relative_path, "linux-aarch64") && a->size > 1000000 &&
	   strlen(a->sha256) == 64, "11.8.0 cuda_nvcc has a linux-aarch64 archive with a size");
	manifest_free(&m);

	ok(load("cuda/redistrib_13.0.2.json", &m, &err) == 0, "13.0.2 loads");
	is_str(m.release_label, "13.0.2", "13.0.2 release_label");
	p = manifest_find(&m, "cuda_nvcc");
	ok(p && !manifest_archive_for(p, "linux-aarch64", ver("13.0")),
	   "13.0.2 has no linux-aarch64 cuda_nvcc");
	a = p ? manifest_archive_for(p, "linux-x86_64", ver("13.0")) : NULL;
	ok(a && a->size == 26657716, "size read from the decimal string");
	is_str(a ? a->sha256 : NULL,
	       "48e35be3cfbf4b4fbc16828eaec8a7048ee789403049dc409f7b643d6259cf7a", "sha256 read");
	if (p) {
		char *tags = manifest_package_tags(p, ver("13.0"));

		is_str(tags, "linux-x86_64, linux-sbsa, windows-x86_64", "cuda_nvcc tags of 13.0.2");
		free(tags);
	}
	/* linux-all (driver_assistant) is skipped, not kept and not an error. */
	p = manifest_find(&m, "driver_assistant");
	ok(p && p->n_archives == 0, "linux-all entries are skipped");
	manifest_free(&m);

	ok(load("cudnn/redistrib_9.14.0.json", &m, &err) == 0, "cudnn 9.14.0 loads");
	p = manifest_find(&m, "cudnn");
	a = p ? manifest_archive_for(p, "linux-sbsa", ver("13.0")) : NULL;
	is_str(a ? a->variant : NULL, "cuda13", "cudnn for CUDA 13 takes the cuda13 variant");
	ok(a && strstr(a->relative_path, "_cuda13-archive"), "and its archive");
	a = p ? manifest_archive_for(p, "linux-sbsa", ver("12.6")) : NULL;
	is_str(a ? a->variant : NULL, "cuda12", "cudnn for CUDA 12.6 takes cuda12");
	ok(p && !manifest_archive_for(p, "linux-sbsa", ver("11.8")), "no variant for CUDA 11");
	manifest_free(&m);
}

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ENTRY(size) "{\"relative_path\": \"x/y.tar.xz\", \"sha256\": \"" SHA "\", \"size\": " size "}"

static void synthetic(void)
{
	struct manifest m;
	struct xcc_error err = { 0 };
	const struct manifest_package *p;
	const struct manifest_archive *a;
	const char *variants =
		"{\"release_date\": \"2026-01-01\", \"lib\": {\"name\": \"L\","
		" \"linux-sbsa\": {\"cuda13\": " ENTRY("\"1\"") ", \"cuda13.1\": " ENTRY("\"2\"") "},"
		" \"cuda_variant\": [\"13\", \"13.1\"],"
		" \"linux-all\": [1, 2, 3], \"source\": \"whatever\", \"windows-arm64\": " ENTRY("3") ","
		" \"linux-future\": {\"nested\": {\"deeper\": true}}}}";

	ok(manifest_parse(variants, strlen(variants), "v.json", &m, &err) == 0,
	   "variants with cuda_variant after them, numeric size, unknown tags: parses %s", err.msg);
	p = manifest_find(&m, "lib");
	a = p ? manifest_archive_for(p, "linux-sbsa", ver("13.1")) : NULL;
	ok(a && a->size == 2 && strcmp(a->variant, "cuda13.1") == 0,
	   "cuda13.1 variant wins for CUDA 13.1");
	a = p ? manifest_archive_for(p, "linux-sbsa", ver("13.0")) : NULL;
	ok(a && a->size == 1, "cuda13 variant for CUDA 13.0");
	a = p ? manifest_archive_for(p, "windows-arm64", ver("13.0")) : NULL;
	ok(a && a->size == 3, "a numeric size is accepted");
	ok(p && p->n_archives == 3, "linux-all, source and linux-future are skipped");
	manifest_free(&m);

	refused("", "is not valid JSON", "an empty file");
	refused("<html>404 Not Found</html>", "is not valid JSON", "an HTML error page");
	refused("{\"release_date\": \"x\", \"a\": {\"linux-sbsa\": {\"relative_path\": \"x",
		"ends too early", "a truncated manifest");
	refused("[1, 2]", "top level must be an object", "an array");
	refused("{\"release_date\": 5}", "release_date must be a string", "numeric release_date");
	refused("{\"a\": {\"name\": 3}}", "a.name must be a string", "numeric package name");
	refused("{\"a\": {\"version\": [\"1\"]}}", "a.version must be a string", "array version");
	refused("{\"a\": {\"cuda_variant\": \"12\"}}", "a.cuda_variant must be an array",
		"string cuda_variant");
	refused("{\"a\": {\"linux-sbsa\": \"x.tar.xz\"}}", "a.linux-sbsa must be an object",
		"a string platform entry");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": 7, \"sha256\": \"" SHA "\", "
		"\"size\": \"1\"}}}", "a.linux-sbsa.relative_path must be a string", "numeric path");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"x\", \"sha256\": 1, "
		"\"size\": \"1\"}}}", "a.linux-sbsa.sha256 must be a string", "numeric sha256");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"x\", \"sha256\": \"abc\", "
		"\"size\": \"1\"}}}", "a.linux-sbsa.sha256 'abc' is not 64 hex digits", "short sha256");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"x\", \"sha256\": \"" SHA "\", "
		"\"size\": true}}}", "a.linux-sbsa.size must be a decimal string", "boolean size");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"x\", \"sha256\": \"" SHA "\", "
		"\"size\": \"12kB\"}}}", "a.linux-sbsa.size is '12kB'", "size with a unit");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"x\", \"sha256\": \"" SHA "\"}}}",
		"a.linux-sbsa.size must be a decimal string, not missing", "missing size");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"../../etc/passwd\", \"sha256\": \""
		SHA "\", \"size\": \"1\"}}}", "leaves the manifest's directory: refused", "a path with ..");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"/etc/passwd\", \"sha256\": \""
		SHA "\", \"size\": \"1\"}}}", "'/etc/passwd' is absolute", "an absolute path");
	/* Issue 16: what file:// or an HTTP server would decode to ../ */
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"%2e%2e/%2e%2e/etc/passwd\", "
		"\"sha256\": \"" SHA "\", \"size\": \"1\"}}}", "holds a percent-encoded character",
		"percent-encoded dots");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"x%2fy.tar.xz\", "
		"\"sha256\": \"" SHA "\", \"size\": \"1\"}}}", "holds a percent-encoded character",
		"a percent-encoded slash");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"x/y.tar.xz?../../z\", "
		"\"sha256\": \"" SHA "\", \"size\": \"1\"}}}", "other than letters, digits",
		"a query string (HTTP would cut it off, a file path would not)");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"x y.tar.xz\", "
		"\"sha256\": \"" SHA "\", \"size\": \"1\"}}}", "other than letters, digits",
		"a space");
	refused("{\"a\": {\"linux-sbsa\": {\"relative_path\": \"x//y.tar.xz\", "
		"\"sha256\": \"" SHA "\", \"size\": \"1\"}}}", "has an empty component",
		"an empty component");
	refused("{\"a\": {\"version\": \"4294967308.6\"}}", "a.version '4294967308.6' is refused",
		"a version number too large");
	refused("{\"a\": {\"version\": \"12.6 beta\"}}", "a.version '12.6 beta' is refused",
		"a version with a space");
	refused("{\"a\": {\"version\": \"12..6\"}}", "is refused", "a version with an empty part");
	refused("{\"cuda nvcc\": {\"version\": \"12.6\"}}", "package key 'cuda nvcc' is refused",
		"a key with a space");
	refused("{\"cuda_nvcc\\u00e9\": {\"version\": \"12.6\"}}", "is refused",
		"a non-ASCII key");
	refused("{\"a\": {\"linux-sbsa\": {\"cuda12\": 5}}}", "a.linux-sbsa.cuda12 must be an object",
		"a numeric variant");
	refused("{\"a\": {\"linux-sbsa\": {\"md5\": \"x\"}}}",
		"a.linux-sbsa.md5 has neither relative_path nor a cuda<V> variant key",
		"an entry without relative_path");
	refused("{}", "holds no packages", "an empty object");
}

/* Every prefix of a real manifest fails cleanly (and never crashes). */
static void truncations(void)
{
	char *path = data_path("cuda/redistrib_12.6.3.json"), *text;
	size_t len = 0, bad = 0, tried = 0;

	text = file_read_text(path, &len);
	ok(text != NULL, "read 12.6.3 for truncation");
	for (size_t cut = 0; text && cut + 1 < len; cut += 397) {
		struct manifest m;
		struct xcc_error err = { 0 };

		tried++;
		if (manifest_parse(text, cut, "cut.json", &m, &err) == 0) {
			bad++;
			manifest_free(&m);
		} else if (!strstr(err.msg, "cut.json")) {
			bad++;
		}
	}
	ok(tried > 100 && bad == 0, "%zu truncated copies all refused with the file named", tried);
	free(text);
	free(path);
}

int main(void)
{
	real_manifests();
	era_details();
	synthetic();
	truncations();
	return done_testing();
}
