#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "db/jetpack.h"
#include "db/request.h"
#include "elf/glibc.h"
#include "sysroot/sysroot_apt.h"
#include "sysroot/sysroot_meta.h"
#include "sysroot/sysroot_hostcc.h"
#include "sysroot/sysroot_jetpack_root.h"
#include "sysroot/sysroot_request.h"

/* --jetpack, or the JetPack rules without it: boards x CUDA x release. */
/* What the boards need beyond the program that the plan leaves out
 * (NVIDIA's cuda-compat: the board may have its own), offered. */
static void offer_board_needs(const struct jetpack_db *jdb, const struct jetpack_release *jp,
			      const struct sysroot_create_opts *o, struct sysroot_request *rq,
			      struct strvec *notes, struct strvec *planned)
{
	struct board_needs needs;
	struct strvec asked = STRVEC_INIT;

	for (size_t i = 0; i < o->components.n; i++)
		strvec_split(&asked, o->components.v[i]);
	jetpack_board_needs(jdb, jp, &rq->choice, &needs);
	for (size_t i = 0; i < needs.n; i++)
		if (needs.v[i].planned)
			strvec_push(planned, needs.v[i].component);
	for (size_t i = 0; i < needs.n; i++)
		if (!needs.v[i].planned && !strvec_contains(&asked, needs.v[i].component))
			strvec_pushf(notes, "%s; --components %s puts it in the sysroot "
				     "(targets/%s/%s/), for run --device and the Yocto/Buildroot "
				     "runtime packages to ship it to the board", needs.v[i].why,
				     needs.v[i].component, rq->choice.target_dir, needs.v[i].subdir);
	board_needs_free(&needs);
	strvec_free(&asked);
}

static int resolve_jetpack(const struct gpudb *db, const struct sysroot_create_opts *o,
			   struct sysroot_request *rq, struct strvec *notes, struct strvec *planned,
			   struct xcc_error *err)
{
	struct jetpack_db jdb;
	const struct jetpack_release *jp = NULL;
	int rc;

	if (jetpack_db_load(&jdb, db, err))
		return -1;
	rc = (o->jetpack && request_jetpack(&jdb, o->jetpack, &jp, err)) ||
	     jetpack_check(&jdb, jp, &rq->choice, err) ? -1 : 0;
	if (rc == 0 && jp)
		rq->jetpack = xstrdup(jp->version);
	if (rc == 0)
		offer_board_needs(&jdb, jp, o, rq, notes, planned);
	jetpack_db_free(&jdb);
	return rc;
}

int sysroot_request_resolve(const struct gpudb *db, const struct sysroot_create_opts *o,
			    struct sysroot_request *rq, struct strvec *notes,
			    struct xcc_error *err)
{
	struct strvec planned = STRVEC_INIT;
	char b[32], *cuda_mm;

	memset(rq, 0, sizeof *rq);
	if (request_target(db, o->target, &rq->target, err) ||
	    request_cuda(o->cuda, &rq->cuda, err))
		return -1;
	rq->cuda_label = o->cuda;
	if (flags_resolve(db, rq->target, rq->cuda, &o->arch, PTX_DEFAULT, &rq->choice, err))
		return -1;
	rq->have_choice = 1;
	if (resolve_jetpack(db, o, rq, notes, &planned, err)) {
		strvec_free(&planned);
		return -1;
	}
	strvec_extend(notes, &rq->choice.warnings);
	for (size_t i = 0; i < rq->choice.n; i++)
		strvec_push(&rq->capabilities, gpu_cap_name(rq->choice.entries[i].cap, b, sizeof b));
	for (size_t i = 0; i < o->components.n; i++)
		strvec_split(&rq->components, o->components.v[i]);
	for (size_t i = 0; i < planned.n; i++)
		if (!strvec_contains(&rq->components, planned.v[i]))
			strvec_push(&rq->components, planned.v[i]);
	strvec_free(&planned);
	rq->plan.db = db;
	rq->plan.target = rq->target->name;
	rq->plan.cuda = rq->cuda;
	rq->plan.tag = rq->choice.tag;
	rq->plan.target_dir = rq->choice.target_dir;
	rq->plan.capabilities = &rq->capabilities;
	rq->plan.components = &rq->components;

	/* Recorded for the driver, which runs from anywhere: absolute. Without
	 * one, a --jetpack's root where fetch-target-root.sh puts it. */
	if (o->target_fs) {
		char *libc;

		if (request_rootfs_for_nvcc(o->target_fs, &rq->target_fs, err) ||
		    glibc_check_rootfs(rq->target_fs, rq->target->triple, &libc, err))
			return -1;
		free(libc);
	} else if (rq->jetpack && sysroot_jetpack_root(db, rq, notes, err)) {
		return -1;
	}
	if (rq->target_fs && sysroot_root_description(rq, err))
		return -1;
	if (sysroot_choose_host_compiler(db, o->host_compiler, rq, notes, err))
		return -1;

	cuda_mm = xasprintf("%d.%d", rq->cuda.major, rq->cuda.minor);
	rq->dest = o->dest ? xstrdup(o->dest) : sysroot_store_path(rq->target->name, cuda_mm);
	free(cuda_mm);
	/* Trailing slashes would put the temporary directory inside dest. */
	while (strlen(rq->dest) > 1 && rq->dest[strlen(rq->dest) - 1] == '/')
		rq->dest[strlen(rq->dest) - 1] = '\0';
	return 0;
}

/* ---- sources: manifests and single archives ------------------------------------ */

static int is_manifest_name(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && strcmp(s + n - 5, ".json") == 0;
}

/* The directory a manifest's relative_paths are resolved against. */
static char *manifest_base(const char *src)
{
	const char *slash = strrchr(src, '/');

	if (fetch_is_url(src))
		return slash ? xstrndup(src, (size_t)(slash - src + 1)) : xstrdup(src);
	return file_dir_name(src);
}

static int load_manifest(const struct fetch_opts *fo, const char *src, struct manifest *m,
			 struct xcc_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (fetch_text(fo, src, &text, &len, err))
		return xcc_error_prefix(err, "reading the manifest");
	rc = manifest_parse(text, len, src, m, err);
	free(text);
	return rc;
}

/* "redistrib_12.6.3.json" for --cuda 12.6: the highest patch release the
 * mirror lists (its directory index). */
static char *mirror_manifest_name(const struct fetch_opts *fo, const char *mirror,
				  struct cuda_version v, struct xcc_error *err)
{
	char *text = NULL, prefix[64];
	size_t len = 0, plen;
	long best = -1;

	if (v.patch >= 0)
		return xasprintf("redistrib_%d.%d.%d.json", v.major, v.minor, v.patch);
	plen = (size_t)snprintf(prefix, sizeof prefix, "redistrib_%d.%d.", v.major, v.minor);
	if (!fetch_is_url(mirror)) {
		DIR *d = opendir(mirror);
		struct dirent *e;

		if (!d) {
			xcc_fail(err, XCC_EFAIL, "cannot read the mirror %s: %s", mirror,
				 strerror(errno));
			return NULL;
		}
		while ((e = readdir(d))) {
			char *end;
			long n;

			if (strncmp(e->d_name, prefix, plen) != 0)
				continue;
			n = strtol(e->d_name + plen, &end, 10);
			if (strcmp(end, ".json") == 0 && n > best)
				best = n;
		}
		closedir(d);
	} else {
		const char *p;

		if (fetch_text(fo, mirror, &text, &len, err)) {
			xcc_error_prefix(err, "listing the mirror to find CUDA %d.%d's latest release "
					 "(or give it in full, e.g. --cuda %d.%d.0)", v.major, v.minor,
					 v.major, v.minor);
			return NULL;
		}
		for (p = text; (p = strstr(p, prefix)); p += plen) {
			char *end;
			long n = strtol(p + plen, &end, 10);

			if (strncmp(end, ".json", 5) == 0 && n > best)
				best = n;
		}
		free(text);
	}
	if (best < 0) {
		xcc_fail(err, XCC_EUSAGE, "the mirror %s lists no redistrib_%d.%d.N.json; give the "
			 "full release (e.g. --cuda %d.%d.0) or --from a manifest", mirror, v.major,
			 v.minor, v.major, v.minor);
		return NULL;
	}
	return xasprintf("redistrib_%d.%d.%ld.json", v.major, v.minor, best);
}

/* A single archive: fetched (a URL), hashed and identified now, since its
 * side is read from its content. */
static int read_package(struct sysroot_package *pk, const struct fetch_opts *fo, const char *src,
			struct xcc_error *err)
{
	char *at;
	int fd, rc;

	if (fetch_file_fd(fo, src, NULL, -1, &pk->path, &fd, err))
		return -1;
	/* Hashed and identified through one descriptor: the side is read
	 * from the bytes whose sha256 the plan records. */
	at = fetch_fd_path(fd);
	rc = fetch_sha256_fd(fo, pk->path, fd, pk->sha256, &pk->size, err);
	if (!rc)
		rc = package_identify_as(at, pk->path, &pk->info, err);
	free(at);
	close(fd);
	if (rc)
		return -1;
	pk->name = xstrdup(pk->info.name ? pk->info.name : file_base_name(src));
	return 0;
}

int sysroot_request_read_sources(struct sysroot_request *rq, const struct sysroot_create_opts *o,
				 const struct fetch_opts *fo, struct xcc_error *err)
{
	struct strvec manifest_srcs = STRVEC_INIT, singles = STRVEC_INIT, apts = STRVEC_INIT;
	char *mirror_path = NULL;
	int rc = -1;

	for (size_t i = 0; i < o->from.n; i++)
		strvec_push(apt_is_source(o->from.v[i]) ? &apts :
			    is_manifest_name(o->from.v[i]) ? &manifest_srcs : &singles,
			    o->from.v[i]);
	if (o->from.n == 0) {
		const char *mirror = o->mirror ? o->mirror : SYSROOT_DEFAULT_MIRROR;
		char *name;

		/* file:///dir/ is the directory /dir/: listed like a plain path. */
		if (strncasecmp(mirror, "file://", 7) == 0) {
			if (fetch_file_url_path(mirror, &mirror_path, err))
				goto out;
			mirror = mirror_path;
		}
		if (!(name = mirror_manifest_name(fo, mirror, rq->cuda, err)))
			goto out;
		strvec_pushf(&manifest_srcs, "%s%s%s", mirror,
			     mirror[strlen(mirror) - 1] == '/' ? "" : "/", name);
		free(name);
	}
	if (manifest_srcs.n) {
		rq->manifests = xmalloc(manifest_srcs.n * sizeof *rq->manifests);
		rq->manifest_bases = xmalloc(manifest_srcs.n * sizeof *rq->manifest_bases);
		for (; rq->n_manifests < manifest_srcs.n; rq->n_manifests++) {
			size_t i = rq->n_manifests;

			if (load_manifest(fo, manifest_srcs.v[i], &rq->manifests[i], err))
				goto out;
			rq->manifest_bases[i] = manifest_base(manifest_srcs.v[i]);
		}
	}
	if (singles.n)
		rq->packages = xmalloc(singles.n * sizeof *rq->packages);
	for (size_t i = 0; i < singles.n; i++) {
		struct sysroot_package *pk = &rq->packages[rq->n_packages++];

		memset(pk, 0, sizeof *pk);
		if (read_package(pk, fo, singles.v[i], err))
			goto out;
	}
	/* The apt repositories' packages are chosen together: the host's may
	 * come from one repository and the target's from another. */
	if (apts.n && sysroot_apt_read(rq, &apts, fo, err))
		goto out;
	rc = 0;
out:
	free(mirror_path);
	strvec_free(&manifest_srcs);
	strvec_free(&singles);
	strvec_free(&apts);
	return rc;
}

void sysroot_request_free(struct sysroot_request *rq)
{
	if (rq->have_choice)
		arch_choice_free(&rq->choice);
	free(rq->jetpack);
	strvec_free(&rq->capabilities);
	strvec_free(&rq->components);
	free(rq->target_fs);
	host_compiler_free(&rq->host_compiler);
	free(rq->host_compiler_problem);
	free(rq->dest);
	for (size_t i = 0; i < rq->n_manifests; i++) {
		manifest_free(&rq->manifests[i]);
		free(rq->manifest_bases[i]);
	}
	free(rq->manifests);
	free(rq->manifest_bases);
	for (size_t i = 0; i < rq->n_packages; i++) {
		free(rq->packages[i].path);
		free(rq->packages[i].name);
		package_info_free(&rq->packages[i].info);
	}
	free(rq->packages);
	memset(rq, 0, sizeof *rq);
}
