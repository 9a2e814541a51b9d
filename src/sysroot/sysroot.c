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
 *   store     sysroot_store.c    the files shared with the file store, and
 *                                the tree recorded there once in place; a
 *                                create of a recorded request is made from
 *                                that record by links instead of all the
 *                                stages from fetch to the passes
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
#include "sysroot/sysroot_store.h"

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

/* sysroot.files (listing), then sysroot.json: the tree is complete once it
 * exists. */
static int write_metadata(const struct plan *p, const struct sysroot_request *rq,
			  const char *root, const char *fingerprint, const char *listing,
			  struct sysroot_serving *serving, const struct sysroot_flavour *flavour,
			  const struct sysroot_board *board, struct xcc_error *err)
{
	char *path = xasprintf("%s/%s", root, SYSROOT_FILES_LIST), hex[65];
	struct sysroot_meta meta;
	struct xcc_sha256 h;
	int rc = file_write_atomic(path, listing, strlen(listing), 0644, err);

	/* sysroot.json records the list's digest, and its own (sysroot_meta_save). */
	xcc_sha256_init(&h);
	xcc_sha256_update(&h, listing, strlen(listing));
	xcc_sha256_hex(&h, hex);
	free(path);
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

/* A create's use of the file store. */
struct create_store {
	struct file_store fs;
	const char *cache_dir; /* where it is; NULL: the default cache */
	int use;      /* not --no-file-store, and not refused */
	int open;     /* fs is usable */
	int records;  /* the fingerprint names the whole tree: its record is read and written */
	char key[65];
	struct store_stamp *objs; /* what the new tree links, for its record */
	size_t n_objs;
	int shared;   /* the tree was shared: record it once it is in place */
	struct sysroot_store_tree tree;
};

/* Whether equal fingerprints make equal trees: every archive's sha256 is
 * known, and a --target-fs (whose libraries the autopatch resolves
 * against) is described by a cuda-xcc-root.json the fingerprint covers. */
static int fingerprint_covers(const struct plan *p, const struct sysroot_request *rq)
{
	for (size_t i = 0; i < p->n_archives; i++)
		if (!p->archives[i].sha256)
			return 0;
	return !rq->target_fs || rq->target_fs_described[0];
}

static void create_store_begin(struct create_store *cs, const struct sysroot_create_opts *o,
			const struct plan *p, const struct sysroot_request *rq,
			const char *fingerprint, struct sysroot_create_result *res)
{
	struct xcc_error e = { 0 };

	int rc;

	memset(cs, 0, sizeof *cs);
	if (o->no_file_store)
		return;
	cs->cache_dir = o->cache_dir;
	cs->records = fingerprint_covers(p, rq);
	sysroot_store_key(fingerprint, cs->key);
	/* Made only once there is something to put in it: a create that
	 * fails leaves the cache as it was. */
	rc = store_open(&cs->fs, o->cache_dir, 0, &e);
	if (rc < 0)
		strvec_pushf(&res->notes, "not using the file store: %s", e.msg);
	if (rc)
		store_close(&cs->fs);
	cs->use = rc >= 0;
	cs->open = rc == 0;
}

/* The store's lock, shared. A signal that stops the wait fails the create;
 * a lock that cannot be had (a link planted in its place) only leaves the
 * store alone, with a note. 1 locked, 0 not, -1. */
static int create_lock(struct create_store *cs, const atomic_int *stop,
		       struct sysroot_create_result *res, struct xcc_error *err)
{
	struct xcc_error e = { 0 };

	if (store_lock(&cs->fs, 0, stop, &e) == 0)
		return 1;
	if (e.status > 2) {
		*err = e;
		return -1;
	}
	strvec_pushf(&res->notes, "not using the file store: %s", e.msg);
	cs->use = 0;
	return 0;
}

static void create_store_end(struct create_store *cs)
{
	if (cs->open)
		store_close(&cs->fs);
	free(cs->objs);
	sysroot_store_tree_free(&cs->tree);
	memset(cs, 0, sizeof *cs);
}

/* The tree at root (metadata written, listing its sysroot.files) shared
 * with the store, and what its record will hold kept: sysroot.json and
 * what the passes said (the notes and warnings from n_notes, n_warnings). */
static int create_share(struct create_store *cs, const char *root, const char *listing,
		       size_t n_notes, size_t n_warnings, const atomic_int *stop,
		       struct sysroot_create_result *res, struct xcc_error *err)
{
	struct xcc_error e = { 0 };
	char *path;
	int rc;

	if (!cs->use)
		return 0;
	if (!cs->open && store_open(&cs->fs, cs->cache_dir, 1, &e)) {
		strvec_pushf(&res->notes, "not using the file store: %s", e.msg);
		return 0;
	}
	cs->open = 1;
	for (size_t i = n_notes; i < res->notes.n; i++)
		strvec_push(&cs->tree.notes, res->notes.v[i]);
	for (size_t i = n_warnings; i < res->warnings.n; i++)
		strvec_push(&cs->tree.warnings, res->warnings.v[i]);
	rc = create_lock(cs, stop, res, err);
	if (rc <= 0)
		return rc;
	rc = sysroot_store_share(&cs->fs, root, listing, &cs->objs, &cs->n_objs, &res->notes,
				 err);
	store_unlock(&cs->fs);
	/* Only a tree whose every file is an object can be made from a record. */
	if (rc <= 0 || !cs->records)
		return rc < 0 ? -1 : 0;
	path = xasprintf("%s/%s", root, SYSROOT_META_FILE);
	cs->tree.meta = file_read_text(path, NULL);
	free(path);
	cs->tree.files = xstrdup(listing);
	cs->shared = cs->tree.meta != NULL;
	return 0;
}

/* After the swap: the record, so that the next create of the same request
 * is links. Failing costs only that. */
static void create_record(struct create_store *cs, struct sysroot_create_result *res)
{
	struct xcc_error e = { 0 };

	if (!cs->shared)
		return;
	if (store_lock(&cs->fs, 0, NULL, &e) ||
	    sysroot_store_record(&cs->fs, cs->key, &cs->tree, cs->objs, cs->n_objs, &e))
		strvec_pushf(&res->notes, "the file store keeps no record of this sysroot: %s",
			     e.msg);
	store_unlock(&cs->fs);
}

/* The tree made from the store's record of this request, when it has a
 * usable one: links, then sysroot.files and a sysroot.json of this
 * request's own with the recorded serving table and flavour. 1 made, 0
 * not (root is empty), -1. */
static int create_materialise(struct create_store *cs, const struct plan *p,
			     const struct sysroot_request *rq, const char *root,
			     const char *fingerprint, const atomic_int *stop,
			     struct sysroot_create_result *res, struct xcc_error *err)
{
	struct sysroot_store_tree t = { 0 };
	struct sysroot_meta m = { 0 };
	struct sysroot_flavour flavour = { 0 };
	struct xcc_error e = { 0 };
	char *path = xasprintf("%s/%s", root, SYSROOT_META_FILE);
	int rc = 0;

	if (!cs->open || !cs->records)
		goto out;
	rc = create_lock(cs, stop, res, err);
	if (rc <= 0)
		goto out;
	rc = sysroot_store_materialise(&cs->fs, cs->key, root, &t, err);
	store_unlock(&cs->fs);
	if (rc <= 0)
		goto out;
	/* The recorded sysroot.json gives the serving table and the flavour. */
	if (file_write_atomic(path, t.meta, strlen(t.meta), 0644, &e) ||
	    sysroot_meta_load(root, &m, &e)) {
		file_remove_tree(path);
		rc = xcc_fail(err, XCC_EFAIL, "%s", e.msg);
		goto out;
	}
	flavour.tag = m.flavour;
	flavour.evidence = m.flavour_evidence;
	if (write_metadata(p, rq, root, fingerprint, t.files, &m.serving, &flavour, m.board,
			   err)) {
		rc = -1;
		goto out;
	}
	strvec_extend(&res->notes, &t.notes);
	strvec_extend(&res->warnings, &t.warnings);
	res->from_store = 1;
out:
	sysroot_meta_free(&m);
	sysroot_store_tree_free(&t);
	free(path);
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

/* Fill the temporary tree at root: fetch and extract, passes, metadata,
 * then share its files with the store. */
static int build_tree(const struct gpudb *db, const struct sysroot_create_opts *o,
		      const struct plan *p, const struct sysroot_request *rq,
		      const struct fetch_opts *fo, const char *root, const char *fingerprint,
		      struct create_store *cs, struct sysroot_create_result *res,
		      struct xcc_error *err)
{
	struct progress pr;
	struct sysroot_serving serving = { 0 };
	struct sysroot_flavour flavour = { 0 };
	size_t n_notes = res->notes.n, n_warnings = res->warnings.n;
	char *listing = NULL;
	int rc;

	progress_init(&pr, o->progress, o->log, p->n_archives);
	rc = sysroot_extract(p, root, fo, o->jobs, o->max_expand, &pr, err);
	progress_free(&pr);
	if (rc)
		return -1;
	sysroot_crash_point("tree");
	rc = stopped(fo, err) || run_passes(db, o, p, rq, root, &serving, &flavour, res, err) ||
	     stopped(fo, err) ? -1 : 0;
	if (!rc) {
		listing = sysroot_files_listing(root, 1);
		rc = write_metadata(p, rq, root, fingerprint, listing, &serving, &flavour, o->board,
				    err) ||
		     create_share(cs, root, listing, n_notes, n_warnings, fo->stop, res, err) ? -1
											      : 0;
	}
	free(listing);
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
	struct create_store store = { 0 };
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
	if (!res->up_to_date) {
		int made;

		create_store_begin(&store, o, &plan, &rq, fingerprint, res);
		made = create_materialise(&store, &plan, &rq, commit.tmp, fingerprint, fo.stop, res,
					 err);
		if (made < 0 ||
		    (!made &&
		     build_tree(db, o, &plan, &rq, &fo, commit.tmp, fingerprint, &store, res, err)) ||
		    sysroot_commit_finish(&commit, o->no_sync, fo.stop, err))
			goto out;
		create_record(&store, res);
	}
	rc = 0;
out:
	create_store_end(&store);
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
