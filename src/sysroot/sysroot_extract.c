#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/interrupt.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/package.h"
#include "pkg/unpack.h"
#include "sysroot/sysroot_claims.h"
#include "sysroot/sysroot_commit.h"
#include "sysroot/sysroot_extract.h"
#include "sysroot/sysroot_layout.h"
#include "sysroot/sysroot_schedule.h"

/* Where a member goes: the plan's layout. */
struct map_ctx {
	const struct plan *p;
	const struct plan_archive *a;
	const char *root;      /* the directory being filled */
};

static char *map_member(void *arg, const char *member)
{
	const struct map_ctx *c = arg;

	return sysroot_member_destination(c->p, c->a, member);
}

struct job {
	const struct plan_archive *a;
	struct map_ctx map;
	struct unpack_stats stats;
	uint64_t dl_seen, ex_seen;
	char *local; /* the verified file, once fetched */
	int fd;      /* its descriptor, the one it was verified through, or -1 */
	struct run *run;
	size_t index;  /* in the plan */
	size_t owner;  /* who made the path this job claimed last */
};

/* A path two archives of the same rank made differently. */
struct conflict {
	char *path;
	size_t first, second; /* plan indices, first < second */
	const char *how;
};

/* One download pipeline and `jobs` extraction workers around one schedule
 * (sysroot_schedule.h): an archive is extracted as soon as it is fetched
 * and verified, while the next ones download. Nothing is extracted before
 * its hash matched, so no unverified byte reaches the tree; streaming an
 * archive into the tree while it downloads would save only the last
 * archive's extraction, and would need a scratch tree to throw away. */
struct run {
	pthread_mutex_t mu;
	pthread_cond_t changed; /* the schedule moved on, or a failure */
	struct schedule sched;
	int *phases;
	uint64_t *sizes;
	struct job *jobs;
	int failed;
	struct xcc_error err; /* the first failure */
	struct fetch_opts fo;
	struct progress *pr;
	uint64_t max_expand; /* --max-expand: every archive's bound; 0: each its own */
	struct claims claims; /* who made each path */
	const char *header_prefix; /* targets/DIR/include/ */
	struct conflict *conflicts; /* under mu */
	size_t n_conflicts, cap_conflicts;
};

/* A job's rank for a path (sysroot_claims.h): its phase, and below every
 * phase for a header of an archive whose headers yield. */
static enum unpack_claim claim_path(void *arg, const char *path)
{
	struct job *j = arg;
	struct run *r = j->run;
	int rank = j->a->phase;

	if (j->a->headers_yield && strncmp(path, r->header_prefix, strlen(r->header_prefix)) == 0)
		rank = -1;
	switch (claims_take(&r->claims, path, j->index, rank, &j->owner)) {
	case CLAIM_SKIP: return UNPACK_SKIP;
	case CLAIM_COMPARE: return UNPACK_COMPARE;
	default: return UNPACK_MAKE;
	}
}

static void release_path(void *arg, const char *path)
{
	struct job *j = arg;

	claims_release(&j->run->claims, path);
}

static void path_differs(void *arg, const char *path, const char *member, const char *how)
{
	struct job *j = arg;
	struct run *r = j->run;
	struct conflict *c;

	(void)member;
	pthread_mutex_lock(&r->mu);
	XGROW(r->conflicts, r->n_conflicts + 1, r->cap_conflicts);
	c = &r->conflicts[r->n_conflicts++];
	c->path = xstrdup(path);
	c->first = j->owner < j->index ? j->owner : j->index;
	c->second = j->owner < j->index ? j->index : j->owner;
	c->how = how;
	pthread_mutex_unlock(&r->mu);
}

static int conflict_cmp(const void *x, const void *y)
{
	const struct conflict *a = x, *b = y;
	int c = strcmp(a->path, b->path);

	if (c)
		return c;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->second < b->second ? -1 : a->second > b->second;
}

/* Every path two archives of the same phase made differently, sorted, so
 * that the refusal is the same whatever the order of extraction. */
#define CONFLICTS_SHOWN 10
static int refuse_conflicts(struct run *r, struct xcc_error *err)
{
	struct strvec lines = STRVEC_INIT;
	char *text;
	size_t n = r->n_conflicts;

	qsort(r->conflicts, n, sizeof *r->conflicts, conflict_cmp);
	for (size_t i = 0; i < n && i < CONFLICTS_SHOWN; i++) {
		const struct conflict *c = &r->conflicts[i];
		const struct plan_archive *a = r->jobs[c->first].a, *b = r->jobs[c->second].a;

		strvec_pushf(&lines, "  %s: in %s (%s) and in %s (%s): %s", c->path, a->component,
			     file_base_name(a->source), b->component, file_base_name(b->source),
			     c->how);
	}
	if (n > CONFLICTS_SHOWN)
		strvec_pushf(&lines, "  and %zu more", n - CONFLICTS_SHOWN);
	text = strvec_join(&lines, "\n");
	xcc_fail(err, XCC_EFAIL, "%zu path%s of the tree %s in two archives of the same phase "
		 "with different contents, and which copy lands would depend on the order of "
		 "extraction:\n%s\nLeave one of the two archives out (--components, --from), or "
		 "make their copies the same", n, n == 1 ? "" : "s", n == 1 ? "is" : "are", text);
	free(text);
	strvec_free(&lines);
	return -1;
}

static void on_download(void *arg, uint64_t done, uint64_t total)
{
	struct job *j = arg;
	struct progress *pr = j->run->pr;

	(void)total;
	pthread_mutex_lock(&pr->mu);
	if (done > j->dl_seen) {
		pr->dl_done += done - j->dl_seen;
		j->dl_seen = done;
	}
	progress_draw(pr, 0);
	pthread_mutex_unlock(&pr->mu);
}

static void on_extract(void *arg, uint64_t read)
{
	struct job *j = arg;
	struct progress *pr = j->run->pr;
	int first;

	pthread_mutex_lock(&pr->mu);
	first = j->ex_seen == 0;
	if (read > j->ex_seen) {
		pr->ex_done += read - j->ex_seen;
		j->ex_seen = read;
	}
	progress_draw(pr, 0);
	pthread_mutex_unlock(&pr->mu);
	if (first)
		sysroot_crash_point("extracting");
}

/* The fetch stage of one archive: into the cache, verified against the
 * plan's sha256 and size (fetch.c); *local is the cached file. */
static int fetch_archive(struct job *j, char **local, int *fd, struct xcc_error *err)
{
	const struct plan_archive *a = j->a;
	struct progress *pr = j->run->pr;
	struct fetch_opts fo = j->run->fo;
	uint64_t size = a->size > 0 ? (uint64_t)a->size : 0;

	fo.progress = on_download;
	fo.progress_arg = j;
	if (fetch_file_fd(&fo, a->source, a->sha256, a->size, local, fd, err))
		return -1;
	sysroot_crash_point("fetch");
	pthread_mutex_lock(&pr->mu);
	if (size > j->dl_seen)
		pr->dl_done += size - j->dl_seen;
	j->dl_seen = size;
	pthread_mutex_unlock(&pr->mu);
	progress_line(pr, "fetched   %s %s (%.1f MB)", a->component, plan_side_name(a->side),
		      (double)size / 1e6);
	return 0;
}

/* How far one archive may expand. NVIDIA's manifests give no unpacked
 * sizes; a .deb's Installed-Size does (in KiB, counted as unpack counts);
 * for the rest, a ratio to the archive's own size, never less than a floor
 * (small archives of headers compress well) and never more than a cap.
 * Real CUDA archives expand 2 to 20 times; a bomb, thousands of times. */
#define EXPAND_RATIO 100u
#define EXPAND_FLOOR (64ull << 20)
#define EXPAND_CAP (16ull << 30)
#define RAISE_HINT "--max-expand SIZE raises the bound for an archive you trust"

static uint64_t expansion_bound(const struct plan_archive *a, const char *local,
				uint64_t max_expand, char **note)
{
	struct package_info info = { 0 };
	struct xcc_error ignored = { 0 };
	struct stat st;
	uint64_t size = a->size > 0 ? (uint64_t)a->size :
			stat(local, &st) == 0 ? (uint64_t)st.st_size : 0, bound;

	if (max_expand) {
		*note = xstrdup("the bound --max-expand set");
		return max_expand;
	}
	if (a->format == PLAN_FMT_DEB && package_identify(local, &info, &ignored) == 0 &&
	    info.installed_bytes) {
		/* dpkg's own count, with room for its rounding */
		bound = info.installed_bytes + info.installed_bytes / 8 + (1u << 20);
		bound = bound < EXPAND_CAP ? bound : EXPAND_CAP;
		*note = xasprintf("the package declares Installed-Size: %llu KiB; " RAISE_HINT,
				  (unsigned long long)(info.installed_bytes / 1024));
		package_info_free(&info);
		return bound;
	}
	package_info_free(&info);
	bound = size > EXPAND_CAP / EXPAND_RATIO ? EXPAND_CAP : size * EXPAND_RATIO;
	bound = bound < EXPAND_FLOOR ? EXPAND_FLOOR : bound;
	*note = xasprintf("the bound is %u times the archive's %.1f MB, at least %llu MiB and at "
			  "most %llu GiB; " RAISE_HINT, EXPAND_RATIO, (double)size / 1e6,
			  EXPAND_FLOOR >> 20, EXPAND_CAP >> 30);
	return bound;
}

/* The extract stage of one archive: every member to where the plan's
 * layout puts it (unpack.c refuses what would leave the tree). */
static int extract_archive(struct job *j, const char *local, struct xcc_error *err)
{
	const struct plan_archive *a = j->a;
	struct progress *pr = j->run->pr;
	struct unpack_opts uo = {
		.map = map_member, .map_arg = &j->map, .progress = on_extract, .progress_arg = j,
		.claim = claim_path, .release = release_path, .differs = path_differs,
		.claim_arg = j, .stop = j->run->fo.stop,
	};
	uint64_t size = a->size > 0 ? (uint64_t)a->size : 0;
	char *note = NULL, *src = fetch_fd_path(j->fd);
	int rc;

	progress_line(pr, "extracting %s %s", a->component, plan_side_name(a->side));
	/* Read through the descriptor the fetch verified, never the path
	 * again: a file swapped under that name since is not read. */
	uo.open_path = src;
	uo.max_bytes = expansion_bound(a, src, j->run->max_expand, &note);
	uo.max_bytes_note = note;
	rc = unpack_archive(local, j->map.root, &uo, &j->stats, err);
	/* A download's cached file is named by its sha256: say what it is. */
	if (rc && fetch_is_url(a->source))
		xcc_error_prefix(err, "%s %s (%s)", a->component, a->version ? a->version : "",
				 a->source);
	free(note);
	free(src);
	close(j->fd);
	j->fd = -1;
	if (rc)
		return -1;
	sysroot_crash_point("extract");
	pthread_mutex_lock(&pr->mu);
	if (size > j->ex_seen)
		pr->ex_done += size - j->ex_seen;
	j->ex_seen = size;
	pr->n_done++;
	progress_draw(pr, 1);
	pthread_mutex_unlock(&pr->mu);
	progress_line(pr, "extracted %s %s: %llu files, %.1f MB -> %s", a->component,
		      plan_side_name(a->side), (unsigned long long)j->stats.files,
		      (double)j->stats.bytes / 1e6, a->dest);
	return 0;
}

static void record_failure(struct run *r, const struct xcc_error *err)
{
	if (!r->failed) {
		r->failed = 1;
		r->err = *err;
	}
	pthread_cond_broadcast(&r->changed);
}

/* The download pipeline: one archive at a time, in the schedule's order.
 * One transfer at a time because the link is shared: two at once would
 * each take half of it, and the archive the workers wait for would arrive
 * later. A failure stops it; what it had verified stays in the cache. */
static void *fetcher(void *arg)
{
	struct run *r = arg;

	for (;;) {
		struct xcc_error err = { 0 };
		long i;
		int rc;

		pthread_mutex_lock(&r->mu);
		if (!r->failed && interrupt_signal(r->fo.stop)) {
			interrupt_fail(&err, interrupt_signal(r->fo.stop), "sysroot create");
			record_failure(r, &err);
		}
		i = r->failed ? -1 : schedule_next_fetch(&r->sched);
		pthread_mutex_unlock(&r->mu);
		if (i < 0)
			return NULL;
		rc = fetch_archive(&r->jobs[i], &r->jobs[i].local, &r->jobs[i].fd, &err);
		pthread_mutex_lock(&r->mu);
		if (rc) {
			record_failure(r, &err);
		} else {
			schedule_fetched(&r->sched, (size_t)i);
			pthread_cond_broadcast(&r->changed);
		}
		pthread_mutex_unlock(&r->mu);
		if (rc)
			return NULL;
	}
}

/* An extraction worker: the next verified archive the phases allow. */
static void *worker(void *arg)
{
	struct run *r = arg;

	for (;;) {
		struct xcc_error err = { 0 };
		long i = SCHED_END;
		int rc;

		pthread_mutex_lock(&r->mu);
		while (!r->failed && (i = schedule_next_extract(&r->sched)) == SCHED_WAIT)
			pthread_cond_wait(&r->changed, &r->mu);
		if (!r->failed && i >= 0 && interrupt_signal(r->fo.stop)) {
			interrupt_fail(&err, interrupt_signal(r->fo.stop), "sysroot create");
			record_failure(r, &err);
		}
		if (r->failed)
			i = SCHED_END;
		pthread_mutex_unlock(&r->mu);
		if (i == SCHED_END)
			return NULL;
		rc = extract_archive(&r->jobs[i], r->jobs[i].local, &err);
		pthread_mutex_lock(&r->mu);
		if (rc) {
			record_failure(r, &err);
		} else {
			schedule_extracted(&r->sched, (size_t)i);
			pthread_cond_broadcast(&r->changed);
		}
		pthread_mutex_unlock(&r->mu);
		if (rc)
			return NULL;
	}
}

/* The pipeline and n_workers workers until every archive is in the tree
 * or one failed. Where threads cannot be had, the same work runs here in
 * turn: every download, then the extractions. */
static int run_all(struct run *r, int n_workers, struct xcc_error *err)
{
	pthread_t fetch_th, *th = xmalloc((size_t)n_workers * sizeof *th);
	int fetch_started = pthread_create(&fetch_th, NULL, fetcher, r) == 0, started = 0;

	if (!fetch_started)
		fetcher(r);
	for (int i = 0; i < n_workers; i++) {
		if (pthread_create(&th[i], NULL, worker, r))
			break;
		started++;
	}
	if (started == 0)
		worker(r);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (fetch_started)
		pthread_join(fetch_th, NULL);
	free(th);
	if (r->failed) {
		*err = r->err;
		return -1;
	}
	return r->n_conflicts ? refuse_conflicts(r, err) : 0;
}

static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)(n > 64 ? 64 : n) : 1;
}

/* Before anything is written: the archives (those taken whole) unpack to
 * at least their own size, so a file system with less free is refused
 * now, with the numbers, rather than filled. More than that cannot be
 * known before extracting; a full disk later fails cleanly. */
static int check_free_space(const struct plan *p, const char *root, struct xcc_error *err)
{
	struct statvfs vfs;
	uint64_t need = 0, avail;

	for (size_t i = 0; i < p->n_archives; i++) {
		const struct plan_archive *a = &p->archives[i];

		/* of a .deb holding many libraries only some may be taken */
		if (a->size > 0 && !(a->format != PLAN_FMT_REDIST && p->filter_libs))
			need += (uint64_t)a->size;
	}
	if (statvfs(root, &vfs))
		return xcc_fail(err, XCC_EFAIL, "%s: %s", root, strerror(errno));
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail < need)
		return xcc_fail(err, XCC_EFAIL, "not enough free space next to the destination: "
				"%.1f MB free, and the archives alone are %.1f MB (they unpack to "
				"more); free some space or choose another --dest",
				(double)avail / 1e6, (double)need / 1e6);
	return 0;
}

/* What the schedule sorts by: the archive's size from the plan, else the
 * local file's; unknown sizes go last. */
static uint64_t archive_size(const struct plan_archive *a)
{
	struct stat st;

	if (a->size > 0)
		return (uint64_t)a->size;
	if (!fetch_is_url(a->source) && stat(a->source, &st) == 0)
		return (uint64_t)st.st_size;
	return 0;
}

int sysroot_extract(const struct plan *p, const char *root, const struct fetch_opts *fo,
		    int jobs, uint64_t max_expand, struct progress *pr, struct xcc_error *err)
{
	struct run run = { .mu = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };
	size_t n = p->n_archives;
	char *header_prefix;
	int rc;

	if (check_free_space(p, root, err))
		return -1;
	if (jobs <= 0)
		jobs = default_jobs();
	run.pr = pr;
	run.fo = *fo;
	run.max_expand = max_expand;
	run.jobs = xmalloc((n ? n : 1) * sizeof *run.jobs);
	run.phases = xmalloc((n ? n : 1) * sizeof *run.phases);
	run.sizes = xmalloc((n ? n : 1) * sizeof *run.sizes);
	for (size_t i = 0; i < n; i++) {
		struct job *j = &run.jobs[i];
		const struct plan_archive *a = &p->archives[i];

		memset(j, 0, sizeof *j);
		j->a = a;
		j->index = i;
		j->fd = -1;
		j->run = &run;
		j->map.p = p;
		j->map.a = a;
		j->map.root = root;
		run.phases[i] = a->phase;
		run.sizes[i] = archive_size(a);
		if (a->size > 0) {
			pr->dl_total += (uint64_t)a->size;
			pr->ex_total += (uint64_t)a->size;
		}
	}
	schedule_init(&run.sched, n, run.phases, run.sizes);
	claims_init(&run.claims);
	header_prefix = xasprintf("targets/%s/include/", p->target_dir);
	run.header_prefix = header_prefix;
	rc = run_all(&run, jobs, err);
	progress_end(pr);
	claims_free(&run.claims);
	free(header_prefix);
	for (size_t i = 0; i < run.n_conflicts; i++)
		free(run.conflicts[i].path);
	free(run.conflicts);
	for (size_t i = 0; i < n; i++) {
		free(run.jobs[i].local);
		if (run.jobs[i].fd >= 0)
			close(run.jobs[i].fd);
	}
	schedule_free(&run.sched);
	free(run.sizes);
	free(run.phases);
	free(run.jobs);
	return rc;
}
