/* Selection of archives per CUDA version and target, from the real
 * manifests. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "db/flags.h"
#include "sysroot/plan.h"
#include "sysroot/sysroot_request.h"
#include "tap.h"

static struct gpudb db;

static int load(const char *rel, struct manifest *m)
{
	const char *src = getenv("XCC_SRCDIR");
	char *path = xasprintf("%s/tests/data/manifests/%s", src && *src ? src : ".", rel), *text;
	struct xcc_error err = { 0 };
	size_t len = 0;
	int rc = -1;

	text = file_read_text(path, &len);
	if (text)
		rc = manifest_parse(text, len, rel, m, &err);
	if (rc)
		printf("# cannot load %s: %s\n", rel, err.msg);
	free(text);
	free(path);
	return rc;
}

static char *manifest_path(const char *rel)
{
	const char *src = getenv("XCC_SRCDIR");

	return xasprintf("%s/tests/data/manifests/%s", src && *src ? src : ".", rel);
}

/* Plan target/cuda/arch from the manifest, through the stages sysroot
 * create runs (request, sources, plan); returns 0 or -1 with err. */
static int make_plan(const char *manifest, const char *target, const char *cuda, const char *arch,
		     const char *components, struct plan *p, struct xcc_error *err)
{
	struct sysroot_create_opts o = { .target = target, .cuda = cuda };
	struct sysroot_request rq;
	struct fetch_opts fo = { .retries = 0 };
	struct strvec notes = STRVEC_INIT;
	char *path;
	int rc;

	memset(p, 0, sizeof *p);
	if (arch)
		strvec_push(&o.arch, arch);
	if (components)
		strvec_push(&o.components, components);
	path = manifest_path(manifest);
	strvec_push(&o.from, path);
	free(path);
	rc = sysroot_request_resolve(&db, &o, &rq, &notes, err) ||
	     sysroot_request_read_sources(&rq, &o, &fo, err) || plan_make(p, &rq, &notes, err) ?
		-1 : 0;
	sysroot_request_free(&rq);
	sysroot_create_opts_free(&o);
	strvec_free(&notes);
	return rc;
}

static const struct plan_archive *find(const struct plan *p, const char *component,
				       enum plan_side side)
{
	for (size_t i = 0; i < p->n_archives; i++)
		if (strcmp(p->archives[i].component, component) == 0 &&
		    (p->archives[i].side == side || p->archives[i].side == PLAN_BOTH))
			return &p->archives[i];
	return NULL;
}

static void sbsa_13(void)
{
	char *url;
	struct plan p;
	struct xcc_error err = { 0 };
	const struct plan_archive *a;
	static const char *const target_comps[] = {
		"cuda_cudart", "cuda_cccl", "cuda_crt", "libnvptxcompiler", "cuda_nvtx",
		"cuda_profiler_api", NULL,
	};

	ok(make_plan("cuda/redistrib_13.0.2.json", "sbsa", "13.0", NULL, NULL, &p, &err) == 0,
	   "sbsa 13.0.2 plans: %s", err.msg);
	is_str(p.cuda, "13.0.2", "the release label becomes the version");
	is_str(p.tag, "linux-sbsa", "sbsa tag");
	a = find(&p, "cuda_nvcc", PLAN_HOST);
	ok(a && strcmp(a->tag, "linux-x86_64") == 0 && (a->parts & PART_TOOLS) &&
	   !(a->parts & PART_HEADERS), "host cuda_nvcc from linux-x86_64, tools only");
	url = manifest_path("cuda/cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-13.0.88-archive.tar.xz");
	is_str(a ? a->source : NULL, url, "URL = manifest dir + relative_path");
	free(url);
	ok(a && a->size == 26657716, "size from the manifest");
	a = find(&p, "libnvvm", PLAN_HOST);
	ok(a && strcmp(a->tag, "linux-x86_64") == 0, "13.x host side has libnvvm");
	a = find(&p, "cuda_nvcc", PLAN_TARGET);
	ok(a && a->side == PLAN_TARGET && strcmp(a->tag, "linux-sbsa") == 0 &&
	   a->parts == (PART_HEADERS | PART_LICENSE), "the target tag's cuda_nvcc gives headers only");
	for (size_t i = 0; target_comps[i]; i++) {
		a = find(&p, target_comps[i], PLAN_TARGET);
		ok(a && strcmp(a->tag, "linux-sbsa") == 0 && (a->parts & PART_LIBS),
		   "target %s from linux-sbsa", target_comps[i]);
	}
	ok(p.n_archives == 9, "9 archives (got %zu)", p.n_archives);
	plan_free(&p);
}

static void jetson(void)
{
	struct plan p;
	struct xcc_error err = { 0 };
	const struct plan_archive *a;
	size_t aarch64 = 0;

	ok(make_plan("cuda/redistrib_11.8.0.json", "jetson", "11.8", "sm_87", NULL, &p, &err) == 0,
	   "jetson 11.8.0 sm_87 plans: %s", err.msg);
	is_str(p.tag, "linux-aarch64", "11.8 Orin uses linux-aarch64");
	is_str(p.target_dir, "aarch64-linux", "into targets/aarch64-linux");
	is_str(p.cuda, "11.8", "no release label: the version asked for");
	for (size_t i = 0; i < p.n_archives; i++)
		if (p.archives[i].side == PLAN_TARGET)
			aarch64 += strstr(p.archives[i].source, "/linux-aarch64/") != NULL;
		else
			ok(strstr(p.archives[i].source, "/linux-x86_64/") != NULL,
			   "host %s from linux-x86_64", p.archives[i].component);
	ok(aarch64 == 5, "the 5 target archives come from linux-aarch64 (%zu)", aarch64);
	ok(!find(&p, "libnvvm", PLAN_HOST) && !find(&p, "cuda_crt", PLAN_TARGET),
	   "no libnvvm, no cuda_crt before 13.0");
	a = find(&p, "cuda_nvcc", PLAN_TARGET);
	ok(a && a->side == PLAN_TARGET && strstr(a->source, "linux-aarch64"),
	   "cuda_nvcc headers from the linux-aarch64 copy");
	plan_free(&p);

	/* Thor on 13.0 is an sbsa device. */
	ok(make_plan("cuda/redistrib_13.0.2.json", "jetson", "13.0", "sm_110", NULL, &p, &err) == 0,
	   "jetson 13.0.2 sm_110 plans: %s", err.msg);
	is_str(p.tag, "linux-sbsa", "Thor on 13.0 uses linux-sbsa");
	plan_free(&p);

	/* Orin on 13.0: refused by the capability rules, with the reason. */
	ok(make_plan("cuda/redistrib_13.0.2.json", "jetson", "13.0", "sm_87", NULL, &p, &err) &&
	   strstr(err.msg, "linux-sbsa serves it only from CUDA 13.2"),
	   "jetson 13.0 sm_87 is refused: %s", err.msg);
	plan_free(&p);
}

/* A manifest without the tag: the plan says so itself, whatever flags said. */
static void missing_tag(void)
{
	struct manifest m;
	struct plan p;
	struct xcc_error err = { 0 };
	struct plan_request rq = { 0 };
	const struct manifest *ms[1] = { &m };
	const char *bases[] = { "/mirror" };

	ok(load("cuda/redistrib_13.0.2.json", &m) == 0, "13.0.2 loads");
	cuda_version_parse("13.0", &rq.cuda);
	rq.db = &db;
	rq.target = "jetson";
	rq.tag = "linux-aarch64";
	rq.target_dir = "aarch64-linux";
	plan_init(&p, &rq, "13.0.2");
	ok(plan_add_redist(&p, &rq, ms, bases, 1, &err) && strstr(err.msg, "has no linux-aarch64 "
	   "archives at all") && strstr(err.msg, "linux-sbsa"),
	   "13.0.2 has no linux-aarch64: %s", err.msg);
	plan_free(&p);
	manifest_free(&m);
}

static void components(void)
{
	struct plan p;
	struct xcc_error err = { 0 };
	const struct plan_archive *a;

	ok(make_plan("cuda/redistrib_12.6.3.json", "jetson", "12.6", "sm_87", "libcublas,libcufft",
		     &p, &err) == 0, "--components libcublas,libcufft: %s", err.msg);
	a = find(&p, "libcublas", PLAN_TARGET);
	ok(a && strstr(a->source, "linux-aarch64") && a->size > 0, "libcublas for linux-aarch64");
	ok(find(&p, "libcufft", PLAN_TARGET) != NULL, "libcufft planned");
	ok(find(&p, "cuda_cccl", PLAN_TARGET) && !find(&p, "cccl", PLAN_TARGET),
	   "12.6 uses cuda_cccl");
	plan_free(&p);

	ok(make_plan("cuda/redistrib_12.6.3.json", "jetson", "12.6", "sm_87", "fabricmanager",
		     &p, &err) && strstr(err.msg, "no linux-aarch64 archive of fabricmanager") &&
	   strstr(err.msg, "linux-sbsa"), "a component the tag lacks names the tags with it: %s",
	   err.msg);
	plan_free(&p);
	ok(make_plan("cuda/redistrib_12.6.3.json", "sbsa", "12.6", NULL, "libfoo", &p, &err) &&
	   strstr(err.msg, "no component libfoo"), "an unknown component: %s", err.msg);
	plan_free(&p);
	ok(make_plan("cuda/redistrib_12.6.3.json", "sbsa", "12.8", NULL, NULL, &p, &err) &&
	   strstr(err.msg, "describes CUDA 12.6, not 12.8"), "a manifest of another release: %s",
	   err.msg);
	plan_free(&p);
}

static void x86_64_target(void)
{
	struct plan p;
	struct xcc_error err = { 0 };
	const struct plan_archive *a;

	ok(make_plan("cuda/redistrib_12.8.1.json", "x86_64", "12.8", NULL, NULL, &p, &err) == 0,
	   "x86_64 12.8.1 plans: %s", err.msg);
	a = find(&p, "cuda_nvcc", PLAN_HOST);
	ok(a && a->side == PLAN_BOTH && a->parts == (PART_TOOLS | PART_HEADERS | PART_LICENSE),
	   "one cuda_nvcc archive serves both sides");
	plan_free(&p);
}

static void fingerprint(void)
{
	struct plan p;
	struct xcc_error err = { 0 };
	char *f1, *f2, *f3;

	make_plan("cuda/redistrib_12.4.1.json", "sbsa", "12.4", NULL, NULL, &p, &err);
	f1 = plan_fingerprint(&p, "g++-12");
	f2 = plan_fingerprint(&p, "g++-12");
	f3 = plan_fingerprint(&p, "g++-13");
	ok(strlen(f1) == 64 && strcmp(f1, f2) == 0, "fingerprint is stable");
	ok(strcmp(f1, f3) != 0, "the host compiler changes it");
	free(f2);
	free(p.archives[0].source);
	p.archives[0].source = xstrdup("/elsewhere/x.tar.xz");
	f2 = plan_fingerprint(&p, "g++-12");
	is_str(f2, f1, "where the bytes come from does not change it");
	free(f2);
	p.archives[0].sha256[0] = p.archives[0].sha256[0] == '0' ? '1' : '0';
	f2 = plan_fingerprint(&p, "g++-12");
	ok(strcmp(f1, f2) != 0, "another archive changes it");
	free(f1);
	free(f2);
	free(f3);
	plan_free(&p);
}

int main(void)
{
	struct xcc_error err = { 0 };

	if (gpudb_load(&db, &err)) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	sbsa_13();
	jetson();
	missing_tag();
	components();
	x86_64_target();
	fingerprint();
	gpudb_free(&db);
	return done_testing();
}
