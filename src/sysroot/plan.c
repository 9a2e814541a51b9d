#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "base/xalloc.h"
#include "pkg/fetch.h"
#include "sysroot/plan.h"
#include "sysroot/sysroot_layout.h"
#include "sysroot/sysroot_request.h"

const char *plan_side_name(enum plan_side s)
{
	return s == PLAN_HOST ? "host" : s == PLAN_TARGET ? "target" : "host+target";
}

void plan_init(struct plan *p, const struct plan_request *rq, const char *cuda_label)
{
	memset(p, 0, sizeof *p);
	p->target = xstrdup(rq->target);
	p->cuda = xstrdup(cuda_label);
	p->tag = xstrdup(rq->tag);
	p->target_dir = xstrdup(rq->target_dir);
	if (rq->capabilities)
		strvec_extend(&p->capabilities, rq->capabilities);
}

void plan_components(const struct gpudb *db, struct cuda_version v, struct strvec *host,
		    struct strvec *target, struct strvec *target_optional,
		    struct strvec *headers_only)
{
	for (size_t i = 0; i < db->n_components; i++) {
		const struct toolkit_component *c = &db->components[i];

		if (!toolkit_component_applies(c, v))
			continue;
		if (c->side == TOOLKIT_HOST)
			strvec_push(host, c->name);
		else
			strvec_push(c->optional ? target_optional : target, c->name);
		if (c->side == TOOLKIT_TARGET && c->headers_only)
			strvec_push(headers_only, c->name);
	}
}

/*
 * A package's name as components.json's "packages" table spells it:
 * nvidia_cublas_cu12 (a wheel), libcublas11 (Debian), libcublas-12-6
 * (NVIDIA's .deb) all have the stem libcublas (cublas for the wheel).
 */
static char *package_stem(const char *package)
{
	char *s = xstrdup(package), *stem;
	size_t n;

	for (char *q = s; *q; q++)
		*q = *q == '-' ? '_' : (char)tolower((unsigned char)*q);
	stem = strncmp(s, "nvidia_", 7) == 0 ? s + 7 : s;
	/* Drop version and flavour suffixes: _cu12, _12_6, 11.0, _dev. */
	for (int changed = 1; changed;) {
		char *us;

		changed = 0;
		n = strlen(stem);
		while (n && (isdigit((unsigned char)stem[n - 1]) || stem[n - 1] == '.')) {
			stem[--n] = '\0';
			changed = 1;
		}
		us = strrchr(stem, '_');
		if (us && (us[1] == '\0' || strcmp(us, "_cu") == 0 || strcmp(us, "_dev") == 0)) {
			*us = '\0';
			changed = 1;
		}
	}
	memmove(s, stem, strlen(stem) + 1);
	return s;
}

/* The component a stem spells: libcublas, cublas -> libcublas; libcudart
 * -> cuda_cudart. */
static const char *spelled_component(const char *stem, const struct gpudb *db)
{
	static const char *const prefixes[] = { "", "lib", "cuda_" };
	const char *found = NULL;

	for (size_t i = 0; !found && i < sizeof prefixes / sizeof prefixes[0]; i++) {
		const char *base = stem;
		const struct component_libraries *l;
		char *cand;

		/* libcudart -> cuda_cudart */
		if (strcmp(prefixes[i], "cuda_") == 0 && strncmp(stem, "lib", 3) == 0)
			base = stem + 3;
		cand = xasprintf("%s%s", prefixes[i], base);
		l = gpudb_component_libraries(db, cand);
		if (l)
			found = l->component;
		free(cand);
	}
	return found;
}

const char *plan_package_component(const struct gpudb *db, const char *package, int *many)
{
	char *stem = package_stem(package);
	const char *found = NULL;

	*many = 0;
	if (gpudb_package_entry(db, stem, &found))
		*many = found == NULL;
	else
		found = spelled_component(stem, db);
	free(stem);
	return found;
}

const char *plan_package_not_target(const struct gpudb *db, const char *package)
{
	char *stem = package_stem(package);
	const char *why = gpudb_not_target(db, stem);

	free(stem);
	return why;
}

static int need_applies(const struct component_need *n, struct cuda_version v,
			const struct strvec *have)
{
	return strvec_contains(have, n->component) && strvec_contains(have, n->need) &&
	       (!n->has_min || cuda_version_cmp(v, n->min_cuda) >= 0) &&
	       (!n->has_max || cuda_version_cmp(v, n->max_cuda) <= 0);
}

/* What have holds because a need components.json marks unverified brought
 * it, and no confirmed one: said, since nothing read here confirmed it. */
static void note_unverified_needs(const struct gpudb *db, struct cuda_version v,
				  const struct strvec *have, struct strvec *notes)
{
	for (size_t k = 0; k < db->n_needs; k++) {
		const struct component_need *n = &db->needs[k];
		int confirmed = 0;
		char *s;

		if (!n->unverified || !need_applies(n, v, have))
			continue;
		for (size_t j = 0; j < db->n_needs; j++)
			confirmed |= !db->needs[j].unverified &&
				     strcmp(db->needs[j].need, n->need) == 0 &&
				     need_applies(&db->needs[j], v, have);
		if (confirmed)
			continue;
		s = xasprintf("%s brings %s along: its libraries are taken to need it "
			      "(sysroots/components.json \"needs\", unverified)", n->component,
			      n->need);
		if (!strvec_contains(notes, s))
			strvec_push(notes, s);
		free(s);
	}
}

int plan_set_library_filter(struct plan *p, const struct gpudb *db, struct cuda_version v,
			    const struct strvec *requested, struct xcc_error *err)
{
	struct strvec host = STRVEC_INIT, target = STRVEC_INIT, optional = STRVEC_INIT,
		headers_only = STRVEC_INIT, known = STRVEC_INIT;
	int rc = -1;

	plan_components(db, v, &host, &target, &optional, &headers_only);
	for (size_t i = 0; i < db->n_libraries; i++)
		strvec_push(&known, db->libraries[i].component);
	for (size_t i = 0; requested && i < requested->n; i++) {
		if (!strvec_contains(&known, requested->v[i])) {
			char *names = strvec_join(&known, ", ");

			xcc_fail(err, XCC_EUSAGE, "component %s: which files of a .deb or wheel belong "
				 "to it is unknown; known components: %s", requested->v[i], names);
			free(names);
			goto out;
		}
		if (!strvec_contains(&target, requested->v[i]))
			strvec_push(&target, requested->v[i]);
	}
	for (size_t i = 0; i < p->n_archives; i++) {
		const struct plan_archive *a = &p->archives[i];
		const char *c;
		int many;

		/* Giving a package says which component is wanted, so its
		 * libraries are kept without --components. */
		if (a->format != PLAN_FMT_REDIST && a->component &&
		    (c = plan_package_component(db, a->component, &many)) &&
		    !strvec_contains(&target, c))
			strvec_push(&target, c);
	}
	strvec_extend(&target, &optional);
	gpudb_add_needs(db, v, &target);
	note_unverified_needs(db, v, &target, &p->notes);
	strvec_free(&p->lib_patterns);
	for (size_t i = 0; i < target.n; i++) {
		const struct component_libraries *l = gpudb_component_libraries(db, target.v[i]);

		for (size_t k = 0; l && k < l->n_patterns; k++)
			if (!strvec_contains(&p->lib_patterns, l->patterns[k]))
				strvec_push(&p->lib_patterns, l->patterns[k]);
	}
	p->filter_libs = 1;
	rc = 0;
out:
	strvec_free(&host);
	strvec_free(&target);
	strvec_free(&optional);
	strvec_free(&headers_only);
	strvec_free(&known);
	return rc;
}

static void plan_archive_free(struct plan_archive *a)
{
	free(a->component);
	free(a->version);
	free(a->tag);
	free(a->source);
	free(a->sha256);
	free(a->dest);
}

static struct plan_archive *plan_push(struct plan *p)
{
	struct plan_archive *a;

	XGROW(p->archives, p->n_archives + 1, p->cap_archives);
	a = &p->archives[p->n_archives++];
	memset(a, 0, sizeof *a);
	a->size = -1;
	return a;
}

static char *join_url(const char *base, const char *rel)
{
	size_t n = strlen(base);

	if (n == 0)
		return xstrdup(rel);
	return xasprintf("%s%s%s", base, base[n - 1] == '/' ? "" : "/", rel);
}

/* Add one manifest archive, merging with an identical one already planned
 * (target x86_64: cuda_nvcc serves both sides). */
static void add_manifest_archive(struct plan *p, const struct manifest_package *pkg,
				 const struct manifest_archive *ma, const char *base,
				 enum plan_side side, unsigned parts)
{
	struct plan_archive *a;

	for (size_t i = 0; i < p->n_archives; i++) {
		a = &p->archives[i];
		if (a->sha256 && strcmp(a->sha256, ma->sha256) == 0) {
			a->parts |= parts;
			if (a->side != side)
				a->side = PLAN_BOTH;
			return;
		}
	}
	a = plan_push(p);
	a->component = xstrdup(pkg->key);
	a->version = pkg->version ? xstrdup(pkg->version) : NULL;
	a->tag = xstrdup(ma->tag);
	a->source = join_url(base, ma->relative_path);
	a->sha256 = xstrdup(ma->sha256);
	a->size = ma->size;
	a->side = side;
	a->parts = parts;
	a->format = PLAN_FMT_REDIST;
}

/* Find component `name` for tag among the manifests. */
static const struct manifest_archive *
find_archive(const struct manifest *const *ms, size_t n, const char *name, const char *tag,
	     struct cuda_version v, const struct manifest_package **pkg, size_t *which)
{
	for (size_t i = 0; i < n; i++) {
		const struct manifest_package *p = manifest_find(ms[i], name);
		const struct manifest_archive *a = p ? manifest_archive_for(p, tag, v) : NULL;

		if (a) {
			*pkg = p;
			*which = i;
			return a;
		}
	}
	return NULL;
}

/* The CUDA variants a nested package (cuDNN) has: "cuda12, cuda13".
 * Returns 0 when it is not nested. */
static int package_variants(const struct manifest_package *p, char *buf, size_t len)
{
	struct strvec seen = STRVEC_INIT;
	char *s;

	for (size_t i = 0; i < p->n_archives; i++)
		if (p->archives[i].variant && !strvec_contains(&seen, p->archives[i].variant))
			strvec_push(&seen, p->archives[i].variant);
	if (!seen.n)
		return 0;
	s = strvec_join(&seen, ", ");
	snprintf(buf, len, "%s", s);
	free(s);
	strvec_free(&seen);
	return 1;
}

/* Why component `name` cannot be had for tag: which tags do have it. */
static int explain_missing(const struct manifest *const *ms, size_t n, const char *name,
			   const char *tag, struct cuda_version v, const char *why,
			   struct xcc_error *err)
{
	struct strvec sources = STRVEC_INIT;
	char *src;

	for (size_t i = 0; i < n; i++) {
		const struct manifest_package *p = manifest_find(ms[i], name);
		char *tags, variants[256];
		int rc;

		if (!p)
			continue;
		tags = manifest_package_tags(p, v);
		if (!*tags && package_variants(p, variants, sizeof variants))
			rc = xcc_fail(err, XCC_EUSAGE, "%s has no variant of %s for CUDA %d (cuda%d); "
				      "its variants are for: %s. Use a %s release built for CUDA %d, "
				      "or --cuda with one of those majors", ms[i]->source, name,
				      v.major, v.major, variants, name, v.major);
		else
			rc = xcc_fail(err, XCC_EUSAGE, "%s has no %s archive of %s%s%s; it has %s for: %s",
				      ms[i]->source, tag, name, why ? " " : "", why ? why : "",
				      name, *tags ? tags : "no tag at all");
		free(tags);
		strvec_free(&sources);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		strvec_push(&sources, ms[i]->source);
	src = strvec_join(&sources, ", ");
	xcc_fail(err, XCC_EUSAGE, "no component %s %s in %s; check the name against the "
		 "manifest's keys (e.g. libcublas, libcufft, cuda_nvrtc)", name, why ? why : "", src);
	free(src);
	strvec_free(&sources);
	return -1;
}

/* Whether any package of m has an archive for tag. */
static int manifest_has_tag(const struct manifest *m, const char *tag)
{
	for (size_t i = 0; i < m->n_packages; i++)
		for (size_t j = 0; j < m->packages[i].n_archives; j++)
			if (strcmp(m->packages[i].archives[j].tag, tag) == 0)
				return 1;
	return 0;
}

static char *manifest_tags(const struct manifest *m)
{
	struct strvec tags = STRVEC_INIT;
	char *s;

	for (size_t i = 0; i < m->n_packages; i++)
		for (size_t j = 0; j < m->packages[i].n_archives; j++)
			if (!strvec_contains(&tags, m->packages[i].archives[j].tag))
				strvec_push(&tags, m->packages[i].archives[j].tag);
	s = tags.n ? strvec_join(&tags, ", ") : xstrdup("none");
	strvec_free(&tags);
	return s;
}

/* The CUDA release a toolkit manifest describes: release_label, else the
 * cudart version (manifests before 12.2 have no label). */
static int manifest_cuda_release(const struct manifest *m, struct cuda_version *v)
{
	const struct manifest_package *rt;

	if (m->release_product && strcmp(m->release_product, "cuda") != 0)
		return -1;
	if (m->release_label && cuda_version_parse(m->release_label, v) == 0)
		return 0;
	rt = manifest_find(m, "cuda_cudart");
	if (rt && rt->version && cuda_version_parse(rt->version, v) == 0)
		return 0;
	return -1;
}

/* The CUDA manifest among ms (the others, cuDNN..., are products of their
 * own and recorded as such), checked against the CUDA release asked for. */
static const struct manifest *plan_cuda_manifest(struct plan *p, const struct plan_request *rq,
						 const struct manifest *const *ms, size_t n,
						 struct xcc_error *err)
{
	const struct manifest *cm = NULL;
	struct cuda_version mv;
	char b[32], b2[32];

	for (size_t i = 0; i < n; i++) {
		if (manifest_cuda_release(ms[i], &mv) == 0) {
			if (!cm)
				cm = ms[i];
		} else if (ms[i]->release_product && ms[i]->release_label) {
			strvec_pushf(&p->products, "%s %s", ms[i]->release_product,
				     ms[i]->release_label);
		}
	}
	if (!cm)
		cm = ms[0];
	if (manifest_cuda_release(cm, &mv) == 0 && cuda_version_cmp(mv, rq->cuda) != 0)
		return xcc_fail(err, XCC_EUSAGE, "%s describes CUDA %d.%d, not %s; pass the "
				"redistrib_%s*.json manifest or --cuda %d.%d", cm->source,
				mv.major, mv.minor, cuda_version_str(rq->cuda, b, sizeof b), b,
				mv.major, mv.minor), NULL;
	if (manifest_cuda_release(cm, &mv) == 0 && rq->cuda.patch >= 0 && mv.patch >= 0 &&
	    mv.patch != rq->cuda.patch)
		strvec_pushf(&p->notes, "--cuda %s asked for, but %s is CUDA %s: the sysroot "
			     "holds %s", cuda_version_str(rq->cuda, b, sizeof b), cm->source,
			     cuda_version_str(mv, b2, sizeof b2), b2);
	if (cm->release_label) {
		free(p->cuda);
		p->cuda = xstrdup(cm->release_label);
	}
	return cm;
}

/* Both tags the plan takes archives of must be in some manifest. */
static int plan_check_tags(const struct plan_request *rq, const struct manifest *cm,
			   const struct manifest *const *ms, size_t n, const char *host_tag,
			   struct xcc_error *err)
{
	const char *tags[] = { rq->tag, host_tag };
	char b[32];

	for (size_t t = 0; t < 2; t++) {
		int found = 0;
		char *have;

		for (size_t i = 0; i < n && !found; i++)
			found = manifest_has_tag(ms[i], tags[t]);
		if (found)
			continue;
		have = manifest_tags(cm);
		xcc_fail(err, XCC_EUSAGE, "%s has no %s archives at all (CUDA %s is not published "
			 "for %s; tags it has: %s)", cm->source, tags[t],
			 cuda_version_str(rq->cuda, b, sizeof b), tags[t], have);
		free(have);
		return -1;
	}
	return 0;
}

/* The three kinds of redist archive a plan takes, in this order: */
enum redist_kind {
	REDIST_OPTIONAL, /* target-side archives taken when the manifest has them */
	REDIST_HOST,     /* the x86_64 tools: nvcc runs on the build machine */
	REDIST_TARGET,   /* the target's headers and libraries */
};

/* Why an archive that must be there is needed, for the refusal. */
static char *redist_missing_why(enum redist_kind kind, const struct plan_request *rq,
				const char *name, int needed)
{
	char vb[16];

	if (kind == REDIST_HOST)
		return xstrdup("(the host side: nvcc runs on x86_64)");
	if (needed)
		return xasprintf("(needed by the libraries of a planned component, "
				 "sysroots/components.json \"needs\"; %s is the tag these GPUs need)",
				 rq->tag);
	/* Who asked for it: the user or the GPUs, or the toolkit set. */
	if (rq->components && strvec_contains(rq->components, name))
		return xasprintf("(named with --components or needed by these GPUs; %s is the tag "
				 "they need)", rq->tag);
	return xasprintf("(part of every CUDA %s cross toolkit, sysroots/components.json; %s is "
			 "the tag these GPUs need)",
			 cuda_version_str((struct cuda_version){ rq->cuda.major, rq->cuda.minor, -1 },
					  vb, sizeof vb), rq->tag);
}

/* The parts of archive name that a kind takes. cuda_nvcc's headers are
 * needed by every compile: the target tag's copy when it has one, else the
 * host's. */
static unsigned redist_parts(enum redist_kind kind, const char *name,
			     const struct strvec *headers_only, int target_has_nvcc)
{
	unsigned parts = PART_LICENSE;

	if (kind == REDIST_HOST)
		return parts | PART_TOOLS |
		       (strcmp(name, "cuda_nvcc") == 0 && !target_has_nvcc ? PART_HEADERS : 0);
	parts |= PART_HEADERS;
	if (!strvec_contains(headers_only, name))
		parts |= PART_LIBS;
	return parts;
}

int plan_add_redist(struct plan *p, const struct plan_request *rq,
		    const struct manifest *const *ms, const char *const *base_urls, size_t n,
		    struct xcc_error *err)
{
	static const char host_tag[] = "linux-x86_64";
	struct strvec names[3] = { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT },
		      headers_only = STRVEC_INIT;
	const struct manifest *cm;
	int target_has_nvcc = 0, rc = -1;
	size_t n_asked;

	if (n == 0)
		return xcc_fail(err, XCC_EUSAGE, "no manifest to plan from");
	if (!(cm = plan_cuda_manifest(p, rq, ms, n, err)) ||
	    plan_check_tags(rq, cm, ms, n, host_tag, err))
		return -1;
	plan_components(rq->db, rq->cuda, &names[REDIST_HOST], &names[REDIST_TARGET],
			&names[REDIST_OPTIONAL], &headers_only);
	if (rq->components)
		for (size_t i = 0; i < rq->components->n; i++)
			if (!strvec_contains(&names[REDIST_TARGET], rq->components->v[i]))
				strvec_push(&names[REDIST_TARGET], rq->components->v[i]);
	/* What the asked components' libraries NEED comes after them. */
	n_asked = names[REDIST_TARGET].n;
	gpudb_add_needs(rq->db, rq->cuda, &names[REDIST_TARGET]);
	note_unverified_needs(rq->db, rq->cuda, &names[REDIST_TARGET], &p->notes);

	for (enum redist_kind k = REDIST_OPTIONAL; k <= REDIST_TARGET; k++) {
		const char *tag = k == REDIST_HOST ? host_tag : rq->tag;

		for (size_t i = 0; i < names[k].n; i++) {
			const char *name = names[k].v[i];
			const struct manifest_package *pkg;
			const struct manifest_archive *ma;
			size_t which;

			if (!(ma = find_archive(ms, n, name, tag, rq->cuda, &pkg, &which))) {
				char *why;

				if (k == REDIST_OPTIONAL)
					continue;
				why = redist_missing_why(k, rq, name, k == REDIST_TARGET && i >= n_asked);
				explain_missing(ms, n, name, tag, rq->cuda, why, err);
				free(why);
				goto out;
			}
			if (k == REDIST_OPTIONAL && strcmp(name, "cuda_nvcc") == 0)
				target_has_nvcc = 1;
			add_manifest_archive(p, pkg, ma, base_urls[which],
					     k == REDIST_HOST ? PLAN_HOST : PLAN_TARGET,
					     redist_parts(k, name, &headers_only, target_has_nvcc));
		}
	}
	rc = 0;
out:
	for (size_t k = 0; k < 3; k++)
		strvec_free(&names[k]);
	strvec_free(&headers_only);
	return rc;
}

int plan_add_single(struct plan *p, const char *source, const char *name, const char *version,
		    const char *machine, const char *target_machine, enum plan_format format,
		    const char *sha256, int64_t size, struct xcc_error *err)
{
	struct plan_archive *a;
	enum plan_side side;
	unsigned parts = PART_LICENSE;

	if (!machine || strcmp(machine, "all") == 0) {
		side = PLAN_TARGET;
		parts |= PART_HEADERS | PART_LIBS;
	} else if (strcmp(machine, target_machine) == 0 && strcmp(machine, "x86_64") == 0) {
		side = PLAN_BOTH;
		parts |= PART_TOOLS | PART_HEADERS | PART_LIBS;
	} else if (strcmp(machine, target_machine) == 0) {
		side = PLAN_TARGET;
		parts |= PART_HEADERS | PART_LIBS;
	} else if (strcmp(machine, "x86_64") == 0) {
		/* nvcc's own headers come with the host package when no target
		 * package brings them; a later target copy overwrites nothing of
		 * value (they are the same files). */
		side = PLAN_HOST;
		parts |= PART_TOOLS | PART_HEADERS;
	} else {
		return xcc_fail(err, XCC_EUSAGE, "%s holds %s code: neither the build machine "
				"(x86_64) nor the target (%s) can use it", source, machine,
				target_machine);
	}
	a = plan_push(p);
	a->component = xstrdup(name);
	a->version = version ? xstrdup(version) : NULL;
	a->source = xstrdup(source);
	a->side = side;
	a->parts = parts;
	a->format = format;
	a->sha256 = sha256 ? xstrdup(sha256) : NULL;
	a->size = size;
	return 0;
}

static enum plan_format format_of(enum package_kind k)
{
	return k == PACKAGE_DEB ? PLAN_FMT_DEB : k == PACKAGE_WHEEL ? PLAN_FMT_WHEEL :
		PLAN_FMT_REDIST;
}

/* Which archive goes when, whose headers win and where each one's parts
 * go: decided here rather than by extraction, so that --dry-run shows it. */
static void plan_freeze(struct plan *p)
{
	for (size_t i = 0; i < p->n_archives; i++) {
		struct plan_archive *a = &p->archives[i];

		free(a->dest);
		a->dest = sysroot_layout_summary(p, a);

		/* A host package's copy of the headers yields to a target
		 * package's (single archives only: a plan from a manifest never
		 * lets two archives write the same header). */
		if ((a->format != PLAN_FMT_REDIST || !a->tag) && a->side == PLAN_HOST &&
		    (a->parts & PART_HEADERS)) {
			a->phase = 1;
			a->headers_yield = 1;
		}
		/* libnvvm's nvvm/ is the newer copy of what a cuda_nvcc may still
		 * carry: it goes second and wins, instead of racing for the same
		 * files. */
		if (a->tag && a->side == PLAN_HOST && (a->parts & PART_TOOLS) &&
		    strcmp(a->component, "cuda_nvcc") != 0)
			a->phase = 1;
	}
}

int plan_make(struct plan *p, const struct sysroot_request *rq, struct strvec *notes,
	      struct xcc_error *err)
{
	const struct manifest **ms = NULL;
	int multi_component = 0, rc = -1;

	plan_init(p, &rq->plan, rq->cuda_label);
	if (rq->n_manifests) {
		ms = xmalloc(rq->n_manifests * sizeof *ms);
		for (size_t i = 0; i < rq->n_manifests; i++)
			ms[i] = &rq->manifests[i];
		if (plan_add_redist(p, &rq->plan, ms, (const char *const *)rq->manifest_bases,
				    rq->n_manifests, err))
			goto out;
		strvec_extend(notes, &p->notes);
	}
	for (size_t i = 0; i < rq->n_packages; i++) {
		const struct sysroot_package *pk = &rq->packages[i];

		if (plan_add_single(p, pk->path, pk->name, pk->info.version, pk->info.machine,
				    rq->target->machine, format_of(pk->info.kind), pk->sha256,
				    (int64_t)pk->size, err))
			goto out;
	}
	for (size_t i = 0; i < p->n_archives; i++)
		if (p->archives[i].format != PLAN_FMT_REDIST)
			multi_component = 1;
	if (multi_component) {
		size_t said = p->notes.n;

		if (plan_set_library_filter(p, rq->plan.db, rq->cuda, &rq->components, err))
			goto out;
		for (size_t i = said; i < p->notes.n; i++)
			if (!strvec_contains(notes, p->notes.v[i]))
				strvec_push(notes, p->notes.v[i]);
	} else if (rq->components.n && !rq->n_manifests) {
		char *list = strvec_join(&rq->components, ", ");

		strvec_pushf(notes, "--components %s only apply to a manifest, a .deb or a "
			     "wheel; the redist archives given are used as they are", list);
		free(list);
	}
	if (p->n_archives == 0) {
		xcc_fail(err, XCC_EUSAGE, "nothing to make a sysroot from");
		goto out;
	}
	plan_freeze(p);
	rc = 0;
out:
	free(ms);
	return rc;
}

static const char *format_name(enum plan_format f)
{
	return f == PLAN_FMT_DEB ? "deb" : f == PLAN_FMT_WHEEL ? "wheel" : "redist";
}

char *plan_describe(const struct plan *p)
{
	struct strvec lines = STRVEC_INIT;
	char *caps = p->capabilities.n ? strvec_join(&p->capabilities, " ") : xstrdup("-");
	char *s;

	strvec_pushf(&lines, "target %s, CUDA %s, tag %s, targets/%s, capabilities %s",
		     p->target, p->cuda, p->tag, p->target_dir, caps);
	for (size_t i = 0; i < p->products.n; i++)
		strvec_pushf(&lines, "product %s", p->products.v[i]);
	for (size_t i = 0; i < p->n_archives; i++) {
		const struct plan_archive *a = &p->archives[i];
		char size[32];

		if (a->size >= 0)
			snprintf(size, sizeof size, "%lld", (long long)a->size);
		else
			snprintf(size, sizeof size, "?");
		strvec_pushf(&lines, "%-6s %-20s %-12s %-14s %10s bytes  %s -> %s%s%s%s%s",
			     plan_side_name(a->side), a->component, a->version ? a->version : "-",
			     a->tag ? a->tag : format_name(a->format), size, a->source,
			     a->dest ? a->dest : "", a->phase ? "  (second" : "",
			     a->phase ? (a->headers_yield ? "; its headers yield to those already "
					 "there)" : ")") : "",
			     a->sha256 ? "  sha256 " : "", a->sha256 ? a->sha256 : "");
	}
	if (p->filter_libs) {
		char *pats = p->lib_patterns.n ? strvec_join(&p->lib_patterns, " ") : xstrdup("-");

		strvec_pushf(&lines, "libraries taken from .debs and wheels: %s", pats);
		free(pats);
	}
	strvec_push(&lines, "");
	s = strvec_join(&lines, "\n");
	free(caps);
	strvec_free(&lines);
	return s;
}

char *plan_fingerprint(const struct plan *p, const char *extra)
{
	struct strvec fields = STRVEC_INIT;
	char *text, hex[65] = "";

	/* Everything that decides the tree, and nothing that does not (where
	 * the bytes came from). The layout version makes a new cuda-xcc redo
	 * sysroots whose shape it changed. */
	strvec_pushf(&fields, "layout 1\ntarget %s\ncuda %s\ntag %s\ndir %s\nextra %s",
		     p->target, p->cuda, p->tag, p->target_dir, extra ? extra : "");
	for (size_t i = 0; i < p->capabilities.n; i++)
		strvec_pushf(&fields, "cap %s", p->capabilities.v[i]);
	if (p->filter_libs)
		for (size_t i = 0; i < p->lib_patterns.n; i++)
			strvec_pushf(&fields, "keep %s", p->lib_patterns.v[i]);
	for (size_t i = 0; i < p->n_archives; i++) {
		const struct plan_archive *a = &p->archives[i];

		strvec_pushf(&fields, "archive %s %s %d %u %d %s", a->component,
			     a->sha256 ? a->sha256 : "-", (int)a->side, a->parts, (int)a->format,
			     a->version ? a->version : "-");
	}
	text = strvec_join(&fields, "\n");
	xcc_sha256_buffer(text, strlen(text), hex);
	free(text);
	strvec_free(&fields);
	return xstrdup(hex);
}

void plan_free(struct plan *p)
{
	free(p->target);
	free(p->cuda);
	free(p->tag);
	free(p->target_dir);
	strvec_free(&p->capabilities);
	strvec_free(&p->lib_patterns);
	strvec_free(&p->products);
	strvec_free(&p->notes);
	for (size_t i = 0; i < p->n_archives; i++)
		plan_archive_free(&p->archives[i]);
	free(p->archives);
	memset(p, 0, sizeof *p);
}
