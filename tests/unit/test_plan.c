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
#include "sysroot/sysroot_layout.h"
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

/* A manifest key names a component (of the toolkit or the libraries
 * table) or something components.json says is no target library. */
static int key_is_known(const char *key)
{
	for (size_t i = 0; i < db.n_components; i++)
		if (strcmp(db.components[i].name, key) == 0)
			return 1;
	return gpudb_component_libraries(&db, key) || gpudb_not_target(&db, key);
}

/* Every key of every real manifest in tests/data/manifests is known: a
 * library NVIDIA ships that the table lacks would be dropped from .debs
 * and wheels without a word (nvJitLink was). */
static void manifest_keys_covered(void)
{
	static const char *const products[] = { "cuda", "cudnn" };

	for (size_t k = 0; k < sizeof products / sizeof products[0]; k++) {
		char *dir = manifest_path(products[k]);
		struct strvec names = STRVEC_INIT;

		ok(file_list_dir(dir, &names) == 0 && names.n > 0, "manifests in %s", dir);
		for (size_t i = 0; i < names.n; i++) {
			char *rel = xasprintf("%s/%s", products[k], names.v[i]);
			struct strvec unknown = STRVEC_INIT;
			struct manifest m;
			char *list;

			if (load(rel, &m) == 0) {
				for (size_t j = 0; j < m.n_packages; j++)
					if (!key_is_known(m.packages[j].key))
						strvec_push(&unknown, m.packages[j].key);
				manifest_free(&m);
			} else {
				strvec_push(&unknown, "(unreadable)");
			}
			list = strvec_join(&unknown, ", ");
			ok(unknown.n == 0, "%s: every key is a component or not_target: %s", rel,
			   unknown.n ? list : "yes");
			free(list);
			free(rel);
			strvec_free(&unknown);
		}
		strvec_free(&names);
		free(dir);
	}
}

/* Every Debian CUDA package apt-cache listed (tests/data/
 * debian-cuda-packages.txt) stands for a component, for many, or is no
 * target library. */
static void debian_packages_covered(void)
{
	const char *src = getenv("XCC_SRCDIR");
	char *path = xasprintf("%s/tests/data/debian-cuda-packages.txt", src && *src ? src : ".");
	char *text = file_read_text(path, NULL), *save = NULL, *line;
	struct strvec unknown = STRVEC_INIT;
	size_t checked = 0;
	char *list;

	ok(text != NULL, "read %s", path);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char release[32], package[96];
		int many;

		if (line[0] == '#' || sscanf(line, "%31s %95s", release, package) != 2)
			continue;
		checked++;
		if (!plan_package_component(&db, package, &many) && !many &&
		    !plan_package_not_target(&db, package))
			strvec_pushf(&unknown, "%s (%s)", package, release);
	}
	list = strvec_join(&unknown, ", ");
	ok(checked > 100 && unknown.n == 0, "%zu Debian packages, each a component or not_target: %s",
	   checked, unknown.n ? list : "yes");
	free(list);
	strvec_free(&unknown);
	free(text);
	free(path);
}

static void package_names(void)
{
	static const char *const cases[][2] = {
		{ "libnvjitlink12", "libnvjitlink" }, { "libcublaslt12", "libcublas" },
		{ "libcusparse12", "libcusparse" }, { "libcusolvermg11", "libcusolver" },
		{ "libnvrtc-builtins12.4", "cuda_nvrtc" }, { "libcudart11.0", "cuda_cudart" },
		{ "nvidia_nvjitlink_cu12", "libnvjitlink" }, { "nvidia-cuda-runtime-cu12", "cuda_cudart" },
		{ "libnppif12", "libnpp" }, { "libnvfatbin12", "libnvfatbin" },
	};
	int many;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *c = plan_package_component(&db, cases[i][0], &many);

		is_str(c, cases[i][1], "package %s stands for %s", cases[i][0], cases[i][1]);
	}
	ok(!plan_package_component(&db, "nvidia-cuda-dev", &many) && many,
	   "nvidia-cuda-dev holds many components");
	ok(!plan_package_component(&db, "libfoo1", &many) && !many, "libfoo1 stands for nothing");
	is_str(gpudb_library_component(&db, "libnvJitLink.so.12"), "libnvjitlink",
	       "libnvJitLink.so.12 comes with libnvjitlink");
	is_str(gpudb_library_component(&db, "libcublasLt.so.12"), "libcublas",
	       "libcublasLt.so.12 comes with libcublas");
	ok(!gpudb_library_component(&db, "libcuda.so.1"), "libcuda.so.1 is the driver's");
	ok(!gpudb_library_component(&db, "libc.so.6"), "libc.so.6 is no component's");
}

/* A chosen component brings what its libraries NEED, as Debian's Depends
 * say: 12.4's cuSPARSE and cuSOLVER need nvJitLink; 11.8's do not. */
static void needs(void)
{
	struct plan p;
	struct xcc_error err = { 0 };
	struct strvec want = STRVEC_INIT;

	ok(make_plan("cuda/redistrib_12.4.1.json", "sbsa", "12.4", "sm_90", "libcusparse", &p,
		     &err) == 0, "12.4 with libcusparse: %s", err.msg);
	ok(find(&p, "libnvjitlink", PLAN_TARGET) != NULL, "12.4: libcusparse brings libnvjitlink");
	plan_free(&p);
	ok(make_plan("cuda/redistrib_12.4.1.json", "sbsa", "12.4", "sm_90", "libcusolver", &p,
		     &err) == 0, "12.4 with libcusolver: %s", err.msg);
	ok(find(&p, "libcublas", PLAN_TARGET) && find(&p, "libcusparse", PLAN_TARGET) &&
	   find(&p, "libnvjitlink", PLAN_TARGET), "12.4: libcusolver brings cuBLAS, cuSPARSE, "
	   "nvJitLink");
	plan_free(&p);
	ok(make_plan("cuda/redistrib_11.8.0.json", "sbsa", "11.8", "sm_80", "libcusolver", &p,
		     &err) == 0, "11.8 with libcusolver: %s", err.msg);
	ok(find(&p, "libcublas", PLAN_TARGET) && !find(&p, "libcusparse", PLAN_TARGET),
	   "11.8: libcusolver brings cuBLAS only");
	plan_free(&p);

	/* .debs: the library filter takes nvJitLink's files. */
	memset(&p, 0, sizeof p);
	strvec_push(&want, "libcusparse");
	ok(plan_set_library_filter(&p, &db, (struct cuda_version){ 12, 4, 1 }, &want, &err) == 0,
	   "filter for libcusparse: %s", err.msg);
	ok(sysroot_layout_keeps_library(&p, "libnvJitLink.so.12.4.127"), "the filter keeps libnvJitLink");
	ok(!sysroot_layout_keeps_library(&p, "libcufft.so.11"), "...and not cuFFT");
	strvec_free(&want);
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
	manifest_keys_covered();
	debian_packages_covered();
	package_names();
	needs();
	gpudb_free(&db);
	return done_testing();
}
