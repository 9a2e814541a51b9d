/* sysroot create: the stages, one module each, in the order they run.
 *
 *   request   sysroot_request.c  what is asked, checked; the sources read
 *   plan      plan.c             every archive, its side, parts, phase and
 *             sysroot_layout.c   precedence; where each member goes. Frozen
 *                                from here: --dry-run prints it
 *   fetch,    sysroot_extract.c  overlapped: one download pipeline fetches and
 *   extract   sysroot_schedule.c verifies the archives one after the other
 *                                (fetch.c), phase by phase and largest first,
 *                                while up to --jobs workers extract the
 *                                verified ones (unpack.c)
 *   passes    sysroot_passes.c   links, tree check, nvcc.profile, autopatch,
 *                                glibc floor, serving
 *   metadata  sysroot_meta.c     sysroot.files and sysroot.json, last
 *   commit    sysroot_commit.c   lock, temporary tree, atomic swap
 *
 * info, list and verify read finished sysroots (sysroot_inspect.c). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/interrupt.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "sysroot/plan.h"
#include "sysroot/sysroot.h"
#include "sysroot/sysroot_commit.h"
#include "sysroot/sysroot_cuda.h"
#include "sysroot/sysroot_extract.h"
#include "sysroot/sysroot_files.h"
#include "sysroot/sysroot_meta.h"
#include "sysroot/sysroot_passes.h"
#include "sysroot/sysroot_request.h"

/* Everything that decides the tree: the plan, and the host compiler, root
 * filesystem (with its description, where fetch-target-root.sh wrote one)
 * and JetPack it is made for (another rootfs resolves the autopatch
 * differently and is recorded: another sysroot). */
static char *create_fingerprint(const struct plan *p, const struct sysroot_request *rq)
{
	const char *hc = rq->host_compiler.name, *fs = rq->target_fs, *jp = rq->jetpack;
	const char *desc = rq->target_fs_described;
	char *extra = xasprintf("%s%s%s%s%s%s%s", hc ? hc : "", fs ? "\ntarget_fs " : "",
				fs ? fs : "", jp ? "\njetpack " : "", jp ? jp : "",
				*desc ? "\ntarget_fs_description " : "", desc);
	char *f = plan_fingerprint(p, extra);

	free(extra);
	return f;
}

/* What --dry-run prints: the plan, and what the real run would record. */
static char *dry_run_text(const struct plan *p, const struct sysroot_request *rq,
			  const char *fingerprint)
{
	char *plan = plan_describe(p), *s;
	const char *fs = rq->target_fs;

	s = xasprintf("%sdestination %s\nhost compiler %s\n%s%s%sfingerprint %s\n", plan, rq->dest,
		      rq->host_compiler.name ? rq->host_compiler.name : "(none found)",
		      fs ? "target fs " : "", fs ? fs : "", fs ? "\n" : "", fingerprint);
	free(plan);
	return s;
}

/* A sysroot whose libraries cannot run on a requested GPU is refused
 * unless asked for. */
static int refuse_unserved(const struct sysroot_serving *serving, size_t unserved,
			   struct xcc_error *err)
{
	struct strvec table = STRVEC_INIT;
	char *text;

	sysroot_serving_text(serving, &table);
	text = strvec_join(&table, "\n");
	xcc_fail(err, XCC_EUSAGE, "%zu library/GPU pair%s NOT SERVED: no SASS and no PTX these "
		 "GPUs can run. Pick other -arch values, or pass --allow-unserved to make the "
		 "sysroot anyway.\n%s", unserved, unserved == 1 ? " is" : "s are", text);
	free(text);
	strvec_free(&table);
	return -1;
}

/* The passes over the extracted tree; serving gets the serving table,
 * flavour the build of the target libraries. */
static int run_passes(const struct gpudb *db, const struct sysroot_create_opts *o,
		      const struct plan *p, const struct sysroot_request *rq, const char *root,
		      struct sysroot_serving *serving, struct sysroot_flavour *flavour,
		      struct sysroot_create_result *res, struct xcc_error *err)
{
	const char *triple = rq->target->triple;
	size_t unserved;

	if (sysroot_refuse_escaping_links(root, err) || sysroot_check_tree(root, p, err) ||
	    sysroot_check_cuda_headers(root, p->target_dir, p->cuda, err))
		return -1;
	if (p->filter_libs)
		sysroot_remove_dangling_links(root, p->target_dir, &res->notes);
	if (sysroot_write_profile(root, p->target_dir, err) ||
	    sysroot_write_toolkit_links(root, p->target_dir, err) ||
	    sysroot_autopatch(root, p->target_dir, triple, rq->target_fs, 0, &res->notes, NULL,
			      err))
		return -1;
	if (rq->target_fs)
		sysroot_glibc_floor(root, p->target_dir, triple, rq->target_fs, &res->warnings);
	if (sysroot_check_flavour(db, root, p, flavour, &res->notes, err))
		return -1;
	if (!p->capabilities.n)
		return 0;
	if (sysroot_serving(db, root, p->target_dir, &p->capabilities, serving, err))
		return -1;
	unserved = sysroot_serving_count(serving, FATBIN_NOT_SERVED);
	if (unserved && !o->allow_unserved)
		return refuse_unserved(serving, unserved, err);
	return 0;
}

/* sysroot.files, then sysroot.json: the tree is complete once it exists. */
static int write_metadata(const struct plan *p, const struct sysroot_request *rq,
			  const char *root, const char *fingerprint,
			  struct sysroot_serving *serving, const struct sysroot_flavour *flavour,
			  const struct sysroot_board *board, struct xcc_error *err)
{
	char *listing = sysroot_files_listing(root, 1), hex[65];
	char *path = xasprintf("%s/%s", root, SYSROOT_FILES_LIST);
	struct sysroot_meta meta;
	struct xcc_sha256 h;
	int rc = file_write_atomic(path, listing, strlen(listing), 0644, err);

	/* sysroot.json records the list's digest, and its own (sysroot_meta_save). */
	xcc_sha256_init(&h);
	xcc_sha256_update(&h, listing, strlen(listing));
	xcc_sha256_hex(&h, hex);
	free(path);
	free(listing);
	if (rc)
		return -1;
	sysroot_meta_from_plan(&meta, p, rq->host_compiler.name, rq->target_fs, rq->jetpack,
			       fingerprint, serving);
	meta.files_sha256 = xstrdup(hex);
	meta.flavour = flavour->tag ? xstrdup(flavour->tag) : NULL;
	meta.flavour_evidence = flavour->evidence ? xstrdup(flavour->evidence) : NULL;
	if (board) {
		meta.board = xcalloc(1, sizeof *meta.board);
		sysroot_board_copy(meta.board, board);
	}
	rc = sysroot_meta_save(root, &meta, err);
	sysroot_meta_free(&meta);
	if (rc == 0)
		sysroot_crash_point("meta");
	return rc;
}

/* Whether a signal asked create to stop: the passes are not interrupted
 * within, so they are checked between. */
static int stopped(const struct fetch_opts *fo, struct xcc_error *err)
{
	int sig = interrupt_signal(fo->stop);

	return sig ? interrupt_fail(err, sig, "sysroot create") : 0;
}

/* What a signal did, said once for the whole create, whatever stage
 * noticed it: the tree was removed and dest left as it was, unless the
 * new tree was in place already. */
static int interrupted(int sig, int committed, const char *dest, struct xcc_error *err)
{
	if (committed)
		return xcc_fail(err, 128 + sig, "sysroot create: interrupted by %s after the new "
				"sysroot was in place: %s is complete", interrupt_signal_name(sig),
				dest);
	return xcc_fail(err, 128 + sig, "sysroot create: interrupted by %s: %s is as it was, "
			"and nothing of this create is left but its downloads, which the same "
			"command resumes", interrupt_signal_name(sig), dest);
}

/* Fill the temporary tree at root: fetch and extract, passes, metadata. */
static int build_tree(const struct gpudb *db, const struct sysroot_create_opts *o,
		      const struct plan *p, const struct sysroot_request *rq,
		      const struct fetch_opts *fo, const char *root, const char *fingerprint,
		      struct sysroot_create_result *res, struct xcc_error *err)
{
	struct progress pr;
	struct sysroot_serving serving = { 0 };
	struct sysroot_flavour flavour = { 0 };
	int rc;

	progress_init(&pr, o->progress, o->log, p->n_archives);
	rc = sysroot_extract(p, root, fo, o->jobs, o->max_expand, &pr, err);
	progress_free(&pr);
	if (rc)
		return -1;
	sysroot_crash_point("tree");
	rc = stopped(fo, err) || run_passes(db, o, p, rq, root, &serving, &flavour, res, err) ||
	     stopped(fo, err) ||
	     write_metadata(p, rq, root, fingerprint, &serving, &flavour, o->board, err) ? -1 : 0;
	sysroot_flavour_free(&flavour);
	sysroot_serving_free(&serving);
	return rc;
}

/* Each archive is read through /proc/self/fd/N of the descriptor its
 * sha256 was checked on (fetch_fd_path), so that the bytes extracted are
 * the bytes verified: said before anything is fetched where /proc is not
 * there (an empty chroot), not as libarchive's open error later. */
static int need_proc_fd(struct xcc_error *err)
{
	if (access("/proc/self/fd", X_OK) == 0)
		return 0;
	return xcc_fail(err, XCC_EFAIL, "sysroot create reads each archive through the "
			"descriptor its sha256 was checked on, as /proc/self/fd/N, and /proc is not "
			"mounted here: mount it (mount -t proc proc /proc) or run where it is");
}

int sysroot_create(const struct gpudb *db, const struct sysroot_create_opts *o,
		   struct sysroot_create_result *res, struct xcc_error *err)
{
	struct fetch_opts fo = { .cache_dir = o->cache_dir, .retries = 3,
				 .max_size = o->max_download };
	struct sysroot_request rq;
	struct plan plan;
	struct sysroot_commit commit = { .lock_fd = -1, .tmp_fd = -1 };
	struct interrupt intr;
	char *fingerprint = NULL;
	int rc = -1;

	memset(res, 0, sizeof *res);
	memset(&plan, 0, sizeof plan);
	if (!o->dry_run && !o->print_fingerprint && need_proc_fd(err))
		return -1;
	/* SIGINT, SIGTERM and SIGHUP stop the work, which then cleans up: the
	 * partial downloads stay to be resumed, the tree goes, the lock is
	 * released. */
	if (!o->dry_run && !o->print_fingerprint && interrupt_begin(&intr) == 0)
		fo.stop = &intr.signo;
	if (sysroot_request_resolve(db, o, &rq, &res->notes, err) ||
	    sysroot_request_read_sources(&rq, o, &fo, err) ||
	    sysroot_check_packages_cuda(&rq, err) ||
	    plan_make(&plan, &rq, &res->notes, err))
		goto out;
	if (rq.host_compiler_problem)
		strvec_pushf(&res->notes, "no host compiler recorded: %s", rq.host_compiler_problem);
	fingerprint = create_fingerprint(&plan, &rq);
	res->dir = xstrdup(rq.dest);
	if (o->dry_run || o->print_fingerprint) {
		res->plan_text = o->print_fingerprint ? xasprintf("%s\n", fingerprint)
						      : dry_run_text(&plan, &rq, fingerprint);
		rc = 0;
		goto out;
	}
	if (stopped(&fo, err) ||
	    sysroot_commit_begin(&commit, rq.dest, fingerprint, &res->up_to_date, err))
		goto out;
	if (!res->up_to_date &&
	    (build_tree(db, o, &plan, &rq, &fo, commit.tmp, fingerprint, res, err) ||
	     sysroot_commit_finish(&commit, o->no_sync, fo.stop, err)))
		goto out;
	rc = 0;
out:
	sysroot_commit_end(&commit);
	if (fo.stop && interrupt_signal(fo.stop))
		rc = interrupted(interrupt_signal(fo.stop), rc == 0 && !res->up_to_date, rq.dest,
				 err);
	if (fo.stop)
		interrupt_end(&intr);
	free(fingerprint);
	plan_free(&plan);
	sysroot_request_free(&rq);
	return rc;
}

void sysroot_create_result_free(struct sysroot_create_result *r)
{
	free(r->dir);
	free(r->plan_text);
	strvec_free(&r->notes);
	strvec_free(&r->warnings);
	memset(r, 0, sizeof *r);
}

void sysroot_create_opts_free(struct sysroot_create_opts *o)
{
	strvec_free(&o->arch);
	strvec_free(&o->from);
	strvec_free(&o->components);
}
