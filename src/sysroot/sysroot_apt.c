/* Choosing a request's packages from apt indexes by NVIDIA's names, and
 * fetching them checked against the index. */
#include <config.h>

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "sysroot/plan.h"
#include "sysroot/sysroot_apt.h"
#include "sysroot/sysroot_request.h"

/*
 * The package names of a component, as fnmatch(3) patterns: %F is the
 * target directory's flavour (sbsa, aarch64), %V CUDA's X-Y, %M its major.
 * cross: NVIDIA's -cross- packages (Architecture: all, files under
 * usr/local/cuda-X.Y/targets/<dir>/); native: the Jetson L4T repository's
 * arm64 packages. A component not here is "<stem>-cross-%F-%V", else
 * "<stem>-%V" and "<stem>-dev-%V", its stem the component's name with '-'
 * for '_' (cuda_nvtx: cuda-nvtx-cross-sbsa-12-4, cuda-nvtx-12-6).
 */
struct apt_rule {
	const char *component;
	const char *cross[4];
	const char *native[4];
};

static const struct apt_rule rules[] = {
	{ "cuda_cudart", { "cuda-cudart-cross-%F-%V", "cuda-driver-cross-%F-%V" },
	  { "cuda-cudart-%V", "cuda-cudart-dev-%V", "cuda-driver-dev-%V" } },
	/* Target headers of nvcc's: the L4T cuda-nvcc-X-Y is an arm64 nvcc. */
	{ "cuda_nvcc", { "cuda-nvcc-cross-%F-%V" }, { NULL } },
	{ "cudnn", { "libcudnn[0-9]-cross-%F-cuda-%M", "libcudnn[0-9]-dev-cross-%F-cuda-%M" },
	  { "libcudnn[0-9]-cuda-%M", "libcudnn[0-9]-dev-cuda-%M" } },
	{ "tensorrt", { "libnvinfer[0-9]*-cross-%F", "libnvinfer-dev-cross-%F",
			"libnvinfer-headers-dev-cross-%F" },
	  { "libnvinfer[0-9]*", "libnvinfer-dev", "libnvinfer-headers-dev" } },
	{ "vpi", { "vpi[0-9]-cross-%F*" }, { "libnvvpi[0-9]", "vpi[0-9]-dev" } },
	{ "l4t_multimedia", { NULL },
	  { "nvidia-l4t-multimedia", "nvidia-l4t-multimedia-utils",
	    "nvidia-l4t-jetson-multimedia-api" } },
};

/* pattern with %F, %V and %M filled in. */
static char *expand(const char *pattern, const char *flavour, int major, int minor)
{
	struct strvec parts = STRVEC_INIT;
	char *out;

	for (const char *p = pattern; *p; p++) {
		if (p[0] == '%' && p[1] == 'F')
			strvec_push(&parts, flavour);
		else if (p[0] == '%' && p[1] == 'V')
			strvec_pushf(&parts, "%d-%d", major, minor);
		else if (p[0] == '%' && p[1] == 'M')
			strvec_pushf(&parts, "%d", major);
		else {
			strvec_pushf(&parts, "%c", *p);
			continue;
		}
		p++;
	}
	out = strvec_join(&parts, "");
	strvec_free(&parts);
	return out;
}

/* The patterns of component for one kind of package (cross, native, host). */
static void patterns_of(const char *component, int host, int cross, const char *flavour,
			int major, int minor, struct strvec *out)
{
	char *stem = xstrdup(component);

	for (char *p = stem; *p; p++)
		if (*p == '_')
			*p = '-';
	for (size_t i = 0; !host && i < sizeof rules / sizeof rules[0]; i++) {
		const char *const *list = cross ? rules[i].cross : rules[i].native;

		if (strcmp(rules[i].component, component) != 0)
			continue;
		for (size_t j = 0; j < 4 && list[j]; j++) {
			char *e = expand(list[j], flavour, major, minor);

			strvec_push(out, e);
			free(e);
		}
		free(stem);
		return;
	}
	/* The host's: NVIDIA's x86_64 repository (cuda-nvcc-12-4, libnvvm-13-0). */
	if (host || !cross)
		strvec_pushf(out, "%s-%d-%d", stem, major, minor);
	if (host && strcmp(component, "libnvvm") == 0)
		strvec_pushf(out, "cuda-nvvm-%d-%d", major, minor);
	if (!host && !cross)
		strvec_pushf(out, "%s-dev-%d-%d", stem, major, minor);
	if (!host && cross)
		strvec_pushf(out, "%s-cross-%s-%d-%d", stem, flavour, major, minor);
	free(stem);
}

static int matches(const struct strvec *patterns, const char *name)
{
	for (size_t i = 0; i < patterns->n; i++)
		if (fnmatch(patterns->v[i], name, 0) == 0)
			return 1;
	return 0;
}

/* Whether a package of arch may serve the side: amd64 the host, arm64 or
 * all the target; a native (L4T) one must be arm64, a cross one all. */
static int arch_fits(const char *arch, int host, int cross)
{
	if (host)
		return strcmp(arch, "amd64") == 0;
	return strcmp(arch, cross ? "all" : "arm64") == 0 ||
	       (cross && strcmp(arch, "arm64") == 0);
}

/* The candidates of one kind; *wrong_arch names a package that matched
 * by name but is for another architecture. */
static size_t choose_kind(const struct apt_index *idx, const struct strvec *pat, int host,
			  int cross, size_t *chosen, const struct apt_package **wrong_arch)
{
	size_t n = 0;

	for (size_t i = 0; i < idx->n; i++) {
		const struct apt_package *pk = &idx->v[i];
		size_t j;

		if (!matches(pat, pk->name))
			continue;
		/* A native pattern (libnvinfer[0-9]*) never takes a cross package. */
		if (!host && !cross && strstr(pk->name, "-cross-"))
			continue;
		/* A -cross- package or the host's nvcc for another machine is a
		 * repository not for this sysroot; a native name for amd64 is the
		 * x86_64 repository's own package (cuda-cccl-12-6), no candidate. */
		if (!arch_fits(pk->arch, host, cross)) {
			if (!*wrong_arch && (host || cross))
				*wrong_arch = pk;
			continue;
		}
		/* The newest version of each name. */
		for (j = 0; j < n; j++)
			if (strcmp(idx->v[chosen[j]].name, pk->name) == 0)
				break;
		if (j == n)
			chosen[n++] = i;
		else if (apt_version_cmp(pk->version, idx->v[chosen[j]].version) > 0)
			chosen[j] = i;
	}
	return n;
}

int sysroot_apt_choose(const struct apt_index *idx, const char *component, int host,
		       const char *flavour, int cuda_major, int cuda_minor, size_t *chosen,
		       size_t *n_chosen, struct strvec *looked, struct xcc_error *err)
{
	const struct apt_package *wrong = NULL;

	*n_chosen = 0;
	for (int cross = 1; cross >= 0 && !*n_chosen; cross--) {
		struct strvec pat = STRVEC_INIT;

		if (host && !cross) /* one kind of host package */
			break;
		patterns_of(component, host, cross, flavour, cuda_major, cuda_minor, &pat);
		strvec_extend(looked, &pat);
		*n_chosen = choose_kind(idx, &pat, host, host || cross, chosen, &wrong);
		strvec_free(&pat);
	}
	if (!*n_chosen && wrong)
		return xcc_fail(err, XCC_EUSAGE, "%s lists %s %s for %s only, but the %s side of "
				"the sysroot takes %s packages: %s is not for this sysroot; give the "
				"repository of the %s packages", wrong->source->line, wrong->name,
				wrong->version, wrong->arch, host ? "host" : "target",
				host ? "amd64" : "arm64 or all", wrong->url,
				host ? "amd64 (x86_64)" : "arm64 or cross-");
	return 0;
}

/* The components of the request: side[0] the host's and side[1] the
 * target's that are needed, side[2] and side[3] those taken when there. Of
 * the toolkit only nvcc and cudart are needed by name: NVIDIA's packages
 * fold some components into others (CUDA 12's crt headers are cuda-nvcc's),
 * and what the tree lacks is named by create's own checks afterwards. */
static void request_components(const struct sysroot_request *rq, struct strvec side[4])
{
	struct strvec h = STRVEC_INIT, t = STRVEC_INIT, headers_only = STRVEC_INIT;

	plan_components(rq->plan.db, rq->cuda, &h, &t, &side[3], &headers_only);
	for (size_t i = 0; i < h.n; i++)
		strvec_push(&side[strcmp(h.v[i], "cuda_nvcc") == 0 ? 0 : 2], h.v[i]);
	for (size_t i = 0; i < t.n; i++)
		strvec_push(&side[strcmp(t.v[i], "cuda_cudart") == 0 ? 1 : 3], t.v[i]);
	for (size_t i = 0; i < headers_only.n; i++)
		if (!strvec_contains(&side[3], headers_only.v[i]))
			strvec_push(&side[3], headers_only.v[i]);
	/* What is asked for, and what its libraries NEED, is needed. */
	for (size_t i = 0; i < rq->components.n; i++)
		if (!strvec_contains(&side[1], rq->components.v[i]))
			strvec_push(&side[1], rq->components.v[i]);
	gpudb_add_needs(rq->plan.db, rq->cuda, &side[1]);
	strvec_free(&h);
	strvec_free(&t);
	strvec_free(&headers_only);
}

/* A package fetched: what it says of itself is what its index entry says. */
static int fetch_checked(struct sysroot_package *sp, const struct apt_package *pk,
			 const struct fetch_opts *fo, struct xcc_error *err)
{
	char *at;
	int fd, rc;

	if (fetch_file_fd(fo, pk->url, pk->sha256, pk->size, &sp->path, &fd, err))
		return xcc_error_prefix(err, "%s %s from '%s'", pk->name, pk->version,
					pk->source->line);
	at = fetch_fd_path(fd);
	rc = package_identify_as(at, sp->path, &sp->info, err);
	free(at);
	close(fd);
	if (rc)
		return -1;
	if (sp->info.kind != PACKAGE_DEB || !sp->info.name || strcmp(sp->info.name, pk->name) ||
	    !sp->info.version || strcmp(sp->info.version, pk->version) ||
	    !apt_arch_machine(pk->arch) ||
	    strcmp(sp->info.machine ? sp->info.machine : "", apt_arch_machine(pk->arch)))
		return xcc_fail(err, XCC_EFAIL, "%s: the index of '%s' lists it as %s %s for %s, "
				"but the package says it is %s %s for %s: the repository is not "
				"consistent, and none of it is taken", pk->url, pk->source->line,
				pk->name, pk->version, pk->arch,
				sp->info.name ? sp->info.name : "-",
				sp->info.version ? sp->info.version : "-",
				sp->info.machine ? sp->info.machine : "-");
	/* Its URL, for the plan and messages; the cache has it under its sha256. */
	free(sp->path);
	sp->path = xstrdup(pk->url);
	sp->name = xstrdup(pk->name);
	memcpy(sp->sha256, pk->sha256, sizeof sp->sha256);
	sp->size = (uint64_t)pk->size;
	return 0;
}

/* Choose every component's packages: positions in idx into *order. */
static int choose_all(const struct sysroot_request *rq, const struct apt_index *idx,
		      size_t *order, size_t *n_order, struct xcc_error *err)
{
	struct strvec side[4] = { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT };
	const char *dir = rq->choice.target_dir;
	char *flavour = xstrndup(dir, strcspn(dir, "-"));
	size_t *some = xmalloc((idx->n + 1) * sizeof *some), n;
	int rc = -1;

	request_components(rq, side);
	*n_order = 0;
	for (int k = 0; k < 4; k++)
		for (size_t i = 0; i < side[k].n; i++) {
			struct strvec looked = STRVEC_INIT;
			int host = k % 2 == 0, needed = k < 2, r;
			char *list;

			r = sysroot_apt_choose(idx, side[k].v[i], host, flavour, rq->cuda.major,
					       rq->cuda.minor, some, &n, &looked, err);
			list = strvec_join(&looked, ", ");
			strvec_free(&looked);
			/* A target package of another architecture is refused, needed or
			 * not; a host one taken only when there may be the board's own
			 * (the Jetson repository's arm64 libnvvm-X-Y). */
			if (r && host && !needed) {
				xcc_error_clear(err);
				r = 0;
				n = 0;
			}
			if (!r && !n && needed)
				xcc_fail(err, XCC_EUSAGE, "no package of the apt repositories given "
					 "is %s's (%s side, CUDA %d.%d): looked for %s; give the "
					 "repository that has it with another --from", side[k].v[i],
					 host ? "host" : "target", rq->cuda.major, rq->cuda.minor,
					 list);
			free(list);
			if (r || (!n && needed))
				goto out;
			for (size_t j = 0; j < n; j++) {
				size_t m;

				for (m = 0; m < *n_order && order[m] != some[j]; m++)
					;
				if (m == *n_order)
					order[(*n_order)++] = some[j];
			}
		}
	rc = 0;
out:
	for (int k = 0; k < 4; k++)
		strvec_free(&side[k]);
	free(flavour);
	free(some);
	return rc;
}

int sysroot_apt_read(struct sysroot_request *rq, const struct strvec *sources,
		     const struct fetch_opts *fo, struct xcc_error *err)
{
	struct apt_source *src = xcalloc(sources->n ? sources->n : 1, sizeof *src);
	struct apt_index idx = { 0 };
	size_t n_src = 0, *order = NULL, n_order = 0;
	int rc = -1;

	for (; n_src < sources->n; n_src++)
		if (apt_source_parse(sources->v[n_src], &src[n_src], err))
			goto out;
	for (size_t i = 0; i < n_src; i++)
		if (apt_index_read(fo, &src[i], &idx, err))
			goto out;
	order = xmalloc((idx.n + 1) * sizeof *order);
	if (choose_all(rq, &idx, order, &n_order, err))
		goto out;
	rq->packages = xrealloc(rq->packages, (rq->n_packages + n_order + 1) *
				sizeof *rq->packages);
	for (size_t i = 0; i < n_order; i++) {
		struct sysroot_package *sp = &rq->packages[rq->n_packages++];

		memset(sp, 0, sizeof *sp);
		if (fetch_checked(sp, &idx.v[order[i]], fo, err))
			goto out;
	}
	rc = 0;
out:
	free(order);
	apt_index_free(&idx);
	for (size_t i = 0; i < n_src; i++)
		apt_source_free(&src[i]);
	free(src);
	return rc;
}
