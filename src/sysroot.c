#include <config.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fetch.h"
#include "fileio.h"
#include "flags.h"
#include "hostcc.h"
#include "jetpack.h"
#include "manifest.h"
#include "plan.h"
#include "sysroot.h"
#include "sysroot_checks.h"
#include "sysroot_meta.h"
#include "package.h"
#include "unpack.h"
#include "xalloc.h"

int progress_mode_parse(const char *s, enum progress_mode *out)
{
	if (strcmp(s, "auto") == 0)
		*out = PROGRESS_AUTO;
	else if (strcmp(s, "always") == 0)
		*out = PROGRESS_ALWAYS;
	else if (strcmp(s, "never") == 0)
		*out = PROGRESS_NEVER;
	else
		return -1;
	return 0;
}

/* The tests kill create at named points with SIGKILL, the way a crash or
 * kill -9 would, to prove that no point leaves a broken sysroot behind;
 * timing-based kills could not reach each point deterministically. */
static void crash_point(const char *name)
{
	const char *at = getenv("CUDA_XCC_TEST_CRASH_AT");

	if (at && strcmp(at, name) == 0)
		kill(getpid(), SIGKILL);
}

/* ---- progress ------------------------------------------------------------ */

struct progress {
	pthread_mutex_t mu;
	FILE *f;   /* NULL: silent */
	int bar;   /* redraw one line in place; else plain lines */
	uint64_t dl_total, dl_done, ex_total, ex_done;
	size_t n_archives, n_done;
	struct timespec last;
	int drawn;
};

static double now_s(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

/* Called with mu held. */
static void progress_draw(struct progress *pr, int force)
{
	struct timespec t;
	uint64_t total = pr->dl_total + pr->ex_total, done = pr->dl_done + pr->ex_done;
	int filled, pct;
	char bar[31];

	if (!pr->f || !pr->bar)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!force && pr->drawn && now_s(&t) - now_s(&pr->last) < 0.1)
		return;
	pr->last = t;
	pr->drawn = 1;
	if (done > total)
		done = total;
	pct = total ? (int)(done * 100 / total) : 100;
	filled = pct * 30 / 100;
	memset(bar, '#', (size_t)filled);
	memset(bar + filled, '-', (size_t)(30 - filled));
	bar[30] = '\0';
	fprintf(pr->f, "\r[%s] %3d%%  download %.1f/%.1f MB  extract %.1f/%.1f MB  %zu/%zu",
		bar, pct, (double)pr->dl_done / 1e6, (double)pr->dl_total / 1e6,
		(double)pr->ex_done / 1e6, (double)pr->ex_total / 1e6, pr->n_done, pr->n_archives);
	fflush(pr->f);
}

static void progress_line(struct progress *pr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void progress_line(struct progress *pr, const char *fmt, ...)
{
	va_list ap;

	if (!pr->f || pr->bar)
		return;
	pthread_mutex_lock(&pr->mu);
	va_start(ap, fmt);
	vfprintf(pr->f, fmt, ap);
	va_end(ap);
	fputc('\n', pr->f);
	fflush(pr->f);
	pthread_mutex_unlock(&pr->mu);
}

static void progress_end(struct progress *pr)
{
	if (pr->f && pr->bar && pr->drawn) {
		pthread_mutex_lock(&pr->mu);
		progress_draw(pr, 1);
		fputc('\n', pr->f);
		pthread_mutex_unlock(&pr->mu);
	}
}

/* ---- the tree ------------------------------------------------------------ */

static int make_writable(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D && !(st->st_mode & S_IWUSR))
		chmod(path, (st->st_mode & 07777) | S_IRWXU);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* rm -rf, staying on this file system and never following links. */
static int remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	nftw(path, make_writable, 32, FTW_PHYS | FTW_MOUNT);
	nftw(path, remove_entry, 32, FTW_PHYS | FTW_MOUNT | FTW_DEPTH);
	return lstat(path, &st) == 0 ? -1 : 0;
}

static int exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

static char *dir_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return strndup(path, (size_t)(slash - path));
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The tree listing verify compares against: one line per entry, sorted. */
struct listing {
	struct strvec lines;
	size_t root_len;
};

/* nftw has no user argument; the walk is single-threaded and short-lived. */
static __thread struct listing *current_listing;

static int list_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct listing *l = current_listing;
	const char *rel = path + l->root_len;

	(void)ftw;
	if (*rel == '/')
		rel++;
	if (!*rel || strcmp(rel, SYSROOT_META_FILE) == 0 || strcmp(rel, SYSROOT_FILES_LIST) == 0)
		return 0;
	if (flag == FTW_SL || S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof target - 1);

		target[n < 0 ? 0 : n] = '\0';
		strvec_pushf(&l->lines, "l %s -> %s", rel, target);
	} else if (S_ISDIR(st->st_mode)) {
		strvec_pushf(&l->lines, "d %04o %s", (unsigned)(st->st_mode & 07777), rel);
	} else {
		strvec_pushf(&l->lines, "f %04o %lld %s", (unsigned)(st->st_mode & 07777),
			     (long long)st->st_size, rel);
	}
	return 0;
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *tree_listing(const char *root)
{
	struct listing l = { STRVEC_INIT, strlen(root) };
	char *s;

	current_listing = &l;
	nftw(root, list_entry, 32, FTW_PHYS);
	current_listing = NULL;
	if (l.lines.n)
		qsort(l.lines.v, l.lines.n, sizeof *l.lines.v, cmp_lines);
	strvec_push(&l.lines, "");
	s = strvec_join(&l.lines, "\n");
	strvec_free(&l.lines);
	return s;
}

/* ---- nvcc.profile ---------------------------------------------------------- */

char *sysroot_nvcc_profile(int with_cccl)
{
	/* PATH comes first and puts this toolkit's own cicc (nvvm/bin) and
	 * ptxas, fatbinary, nvlink, cudafe++ (bin) in front of whatever the
	 * user's PATH holds: nvcc finds its helpers through PATH, and another
	 * CUDA's tools there would otherwise be used silently. Everything is
	 * relative to _HERE_, so the tree can move. lib64 is mapped to lib at
	 * create time, so the directories are named without _TARGET_SIZE_.
	 * INCLUDES and LIBRARIES are each one complete assignment: CMake's
	 * FindCUDAToolkit reads the first one of each from `nvcc -v`. */
	return xasprintf(
		"# Written by cuda-xcc sysroot create: relocatable, and this toolkit's own\n"
		"# tools come before anything on PATH.\n"
		"PATH            += $(_HERE_)/../nvvm/bin:$(_HERE_):\n"
		"TOP              = $(_HERE_)/..\n"
		"CICC_PATH        = $(TOP)/nvvm/bin\n"
		"NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice\n"
		"\n"
		"INCLUDES        +=  \"-I$(TOP)/$(_TARGET_DIR_)/include\" $(_SPACE_)\n"
		"%s"
		"LIBRARIES        =+ $(_SPACE_) \"-L$(TOP)/$(_TARGET_DIR_)/lib/stubs\" "
		"\"-L$(TOP)/$(_TARGET_DIR_)/lib\"\n"
		"\n"
		"CUDAFE_FLAGS    +=\n"
		"PTXAS_FLAGS     +=\n",
		with_cccl ? "SYSTEM_INCLUDES +=  \"-isystem\" \"$(TOP)/$(_TARGET_DIR_)/include/cccl\" "
			    "$(_SPACE_)\n" : "");
}

/* ---- where archive members go ------------------------------------------------ */

struct map_ctx {
	const struct plan *p;
	const struct plan_archive *a;
	const char *root;      /* the directory being filled */
	int keep_existing_headers; /* a target copy of a header wins */
};

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The member's path inside a toolkit root (bin/..., include/..., lib/...),
 * whatever package format it came in; NULL to skip it. */
static char *toolkit_path(enum plan_format f, const char *m)
{
	const char *rest;

	if (f == PLAN_FMT_REDIST) {
		const char *slash = strchr(m, '/');
		size_t top = slash ? (size_t)(slash - m) : strlen(m);

		/* The top <name>-<tag>-<ver>-archive/ directory goes. */
		if (top > 8 && strncmp(m + top - 8, "-archive", 8) == 0)
			return slash && slash[1] ? xstrdup(slash + 1) : NULL;
		return xstrdup(m);
	}
	if (f == PLAN_FMT_WHEEL) {
		/* nvidia/<component>/{bin,include,lib,nvvm}/... */
		if (!starts_with(m, "nvidia/"))
			return NULL;
		rest = strchr(m + 7, '/');
		return rest && rest[1] ? xstrdup(rest + 1) : NULL;
	}
	/* Debian's and NVIDIA's .deb layouts. */
	if (starts_with(m, "usr/lib/nvidia-cuda-toolkit/")) {
		rest = m + strlen("usr/lib/nvidia-cuda-toolkit/");
		if (starts_with(rest, "libdevice"))
			return xasprintf("nvvm/%s", rest);
		/* Debian's bin/gcc and bin/g++ are scripts that run the build
		 * machine's x86_64 g++ for nvcc when it has no -ccbin (nvcc looks
		 * in its own directory first): a cross sysroot must not have them. */
		if (strcmp(rest, "bin/gcc") == 0 || strcmp(rest, "bin/g++") == 0)
			return NULL;
		/* Debian's include/<triple>/ (12.4 on): a glibc math-vector.h for
		 * the build machine's own -I, which Debian's nvcc.profile leaves
		 * commented out; it is no CUDA header. */
		if (starts_with(rest, "include/"))
			return NULL;
		return *rest ? xstrdup(rest) : NULL;
	}
	if (starts_with(m, "usr/local/cuda")) {
		rest = strchr(m + strlen("usr/local/cuda"), '/');
		if (!rest || !rest[1])
			return NULL;
		rest++;
		if (starts_with(rest, "targets/")) {
			rest = strchr(rest + strlen("targets/"), '/');
			return rest && rest[1] ? xstrdup(rest + 1) : NULL;
		}
		return xstrdup(rest);
	}
	if (starts_with(m, "usr/bin/")) {
		rest = m + strlen("usr/bin/");
		/* Debian's nvcc there is a wrapper that execs an absolute path. */
		if (!*rest || strcmp(rest, "nvcc") == 0)
			return NULL;
		return xasprintf("bin/%s", rest);
	}
	if (starts_with(m, "usr/include/"))
		return m[strlen("usr/include/")] ? xasprintf("include/%s", m + strlen("usr/include/"))
						 : NULL;
	if (starts_with(m, "usr/lib/")) {
		const char *triple = m + strlen("usr/lib/");
		const char *slash = strchr(triple, '/');

		if (slash && slash[1] && strstr(triple, "-linux-gnu") &&
		    strstr(triple, "-linux-gnu") < slash)
			return xasprintf("lib/%s", slash + 1);
	}
	return NULL;
}

char *sysroot_member_destination(const struct plan *p, const struct plan_archive *a,
				 const char *member)
{
	const char *dir = p->target_dir, *slash, *rest;
	char *path = toolkit_path(a->format, member), *out = NULL;
	size_t top_len;

	if (!path)
		return NULL;
	slash = strchr(path, '/');
	top_len = slash ? (size_t)(slash - path) : strlen(path);
	rest = slash ? slash + 1 : "";

#define TOP_IS(s) (top_len == strlen(s) && strncmp(path, s, top_len) == 0)
	if (strcmp(path, "bin/nvcc.profile") == 0) {
		out = NULL; /* ours is written afterwards */
	} else if (!slash && !(TOP_IS("bin") || TOP_IS("nvvm") || TOP_IS("include") ||
			       TOP_IS("lib") || TOP_IS("lib64"))) {
		/* A top-level file: only the license texts are kept (wheels also
		 * have __init__.py there). */
		if ((a->parts & PART_LICENSE) &&
		    (strcasestr(path, "license") || strcasestr(path, "eula") ||
		     strcasestr(path, "notice")))
			out = xasprintf("licenses/%s%s/%s", a->component,
					a->side == PLAN_HOST ? "-host" : "", path);
	} else if (TOP_IS("bin") || TOP_IS("nvvm")) {
		if (a->parts & PART_TOOLS)
			out = xstrdup(path);
		else if (a->parts & PART_LIBS)
			out = xasprintf("targets/%s/%s", dir, path);
	} else if (TOP_IS("include")) {
		if (a->parts & PART_HEADERS)
			out = xasprintf("targets/%s/include%s%s", dir, *rest ? "/" : "", rest);
	} else if (TOP_IS("lib") || TOP_IS("lib64")) {
		/* A .deb or wheel may carry many components (Debian's
		 * nvidia-cuda-dev: all the math libraries, 2 GB); a redist
		 * archive is one. Subdirectories come with the files kept. */
		if ((a->parts & PART_LIBS) &&
		    (a->format == PLAN_FMT_REDIST || !p->filter_libs ||
		     (*rest && plan_keeps_library(p, rest))))
			out = xasprintf("targets/%s/lib%s%s", dir, *rest ? "/" : "", rest);
	} else if (a->parts & PART_LIBS) {
		/* compat/, compat_orin/, res/, share/: beside include and lib. */
		out = xasprintf("targets/%s/%s", dir, path);
	}
#undef TOP_IS
	free(path);
	return out;
}

static char *map_member(void *arg, const char *member)
{
	const struct map_ctx *c = arg;
	char *out = sysroot_member_destination(c->p, c->a, member);
	char *prefix = xasprintf("targets/%s/include/", c->p->target_dir);

	if (out && c->keep_existing_headers && starts_with(out, prefix)) {
		char *full = xasprintf("%s/%s", c->root, out);
		struct stat st;

		if (lstat(full, &st) == 0 && !S_ISDIR(st.st_mode)) {
			free(out);
			out = NULL;
		}
		free(full);
	}
	free(prefix);
	return out;
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
		return slash ? strndup(src, (size_t)(slash - src + 1)) : xstrdup(src);
	return dir_name(src);
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

static enum plan_format format_of(enum package_kind k)
{
	return k == PACKAGE_DEB ? PLAN_FMT_DEB : k == PACKAGE_WHEEL ? PLAN_FMT_WHEEL :
		PLAN_FMT_REDIST;
}

/* A single archive: fetched (a URL) and identified now, since its side is
 * read from its content. */
static int add_single(struct plan *p, const struct fetch_opts *fo, const char *src,
		      const char *target_machine, struct xcc_error *err)
{
	struct package_info info = { 0 };
	char *local = NULL, hex[65];
	uint64_t size = 0;
	struct plan_archive *a;
	int rc = -1;

	if (fetch_file(fo, src, NULL, -1, &local, err))
		return -1;
	if (package_identify(local, &info, err))
		goto out;
	if (fetch_sha256_file(local, hex, &size, err))
		goto out;
	if (plan_add_single(p, local, info.name ? info.name : base_name(src), info.version,
			    info.machine, target_machine, format_of(info.kind), err))
		goto out;
	a = &p->archives[p->n_archives - 1];
	a->sha256 = xstrdup(hex);
	a->size = (int64_t)size;
	rc = 0;
out:
	package_info_free(&info);
	free(local);
	return rc;
}

/* ---- extraction: a pool of workers ------------------------------------------------- */

struct job {
	struct plan_archive *a;
	int phase;
	struct map_ctx map;
	struct unpack_stats stats;
	uint64_t dl_seen, ex_seen;
	struct run *run;
};

struct run {
	pthread_mutex_t mu;
	struct job *jobs;
	size_t n_jobs, next;
	int phase;
	int failed;
	struct xcc_error err; /* the first failure */
	struct fetch_opts fo;
	struct progress *pr;
};

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

	pthread_mutex_lock(&pr->mu);
	if (read > j->ex_seen) {
		pr->ex_done += read - j->ex_seen;
		j->ex_seen = read;
	}
	progress_draw(pr, 0);
	pthread_mutex_unlock(&pr->mu);
}

static int run_job(struct job *j, struct xcc_error *err)
{
	struct plan_archive *a = j->a;
	struct progress *pr = j->run->pr;
	struct fetch_opts fo = j->run->fo;
	struct unpack_opts uo = { map_member, &j->map, on_extract, j };
	char *local = NULL;
	uint64_t size = a->size > 0 ? (uint64_t)a->size : 0;
	int rc;

	fo.progress = on_download;
	fo.progress_arg = j;
	if (fetch_file(&fo, a->source, a->sha256, a->size, &local, err))
		return -1;
	crash_point("fetch");
	pthread_mutex_lock(&pr->mu);
	if (size > j->dl_seen)
		pr->dl_done += size - j->dl_seen;
	j->dl_seen = size;
	pthread_mutex_unlock(&pr->mu);
	progress_line(pr, "fetched   %s %s (%.1f MB)", a->component, plan_side_name(a->side),
		      (double)size / 1e6);
	rc = unpack_archive(local, j->map.root, &uo, &j->stats, err);
	free(local);
	if (rc)
		return -1;
	crash_point("extract");
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

static void *worker(void *arg)
{
	struct run *r = arg;

	for (;;) {
		struct job *j = NULL;
		struct xcc_error err = { 0 };

		pthread_mutex_lock(&r->mu);
		while (!r->failed && r->next < r->n_jobs) {
			struct job *c = &r->jobs[r->next++];

			if (c->phase == r->phase) {
				j = c;
				break;
			}
		}
		pthread_mutex_unlock(&r->mu);
		if (!j)
			return NULL;
		if (run_job(j, &err)) {
			pthread_mutex_lock(&r->mu);
			if (!r->failed) {
				r->failed = 1;
				r->err = err;
			}
			pthread_mutex_unlock(&r->mu);
			return NULL;
		}
	}
}

/* Run every job of the phase on up to n_threads threads. */
static int run_phase(struct run *r, int phase, int n_threads, struct xcc_error *err)
{
	pthread_t *th = xmalloc((size_t)n_threads * sizeof *th);
	int started = 0;

	r->phase = phase;
	r->next = 0;
	for (int i = 0; i < n_threads; i++) {
		if (pthread_create(&th[i], NULL, worker, r))
			break;
		started++;
	}
	if (started == 0)
		worker(r);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	if (r->failed) {
		*err = r->err;
		return -1;
	}
	return 0;
}

/* ---- lock, temporary directory, swap ------------------------------------------------ */

static int take_lock(const char *dest, int *fd_out, struct xcc_error *err)
{
	char *path = xasprintf("%s.lock", dest);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		xcc_fail(err, XCC_EFAIL, "cannot open the lock %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		xcc_fail(err, XCC_EFAIL, "another cuda-xcc is creating %s right now (it holds %s); "
			 "wait for it to finish", dest, path);
		close(fd);
		free(path);
		return -1;
	}
	free(path);
	*fd_out = fd;
	return 0;
}

/* Leftovers of interrupted creates of dest: only ever seen under the lock,
 * so nobody is still writing them. */
static void remove_stale(const char *dest)
{
	char *parent = dir_name(dest), *tmp_prefix, *old_prefix;
	const char *base = base_name(dest);
	DIR *d = opendir(parent);
	struct dirent *e;

	tmp_prefix = xasprintf("%s.tmp-", base);
	old_prefix = xasprintf("%s.old-", base);
	while (d && (e = readdir(d))) {
		if (starts_with(e->d_name, tmp_prefix) || starts_with(e->d_name, old_prefix)) {
			char *p = xasprintf("%s/%s", parent, e->d_name);

			remove_tree(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(tmp_prefix);
	free(old_prefix);
	free(parent);
}

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* Put the finished tree in place: an atomic exchange with the old one when
 * there is one, so that dest is at every moment either the old sysroot or
 * the new one. */
static int swap_into_place(const char *tmp, const char *dest, struct xcc_error *err)
{
	char *old;

	if (!exists(dest)) {
		if (rename(tmp, dest) == 0)
			return 0;
		return xcc_fail(err, XCC_EFAIL, "cannot rename %s to %s: %s", tmp, dest,
				strerror(errno));
	}
#ifdef SYS_renameat2
	if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_EXCHANGE) == 0) {
		crash_point("swap");
		remove_tree(tmp); /* now the old sysroot */
		return 0;
	}
#endif
	/* No exchange on this file system: two renames; an interruption
	 * between them leaves dest.old-* for the next create to clean. */
	old = xasprintf("%s.old-%ld", dest, (long)getpid());
	if (rename(dest, old)) {
		xcc_fail(err, XCC_EFAIL, "cannot move the old %s aside: %s", dest, strerror(errno));
		free(old);
		return -1;
	}
	if (rename(tmp, dest)) {
		xcc_fail(err, XCC_EFAIL, "cannot rename %s to %s: %s", tmp, dest, strerror(errno));
		rename(old, dest);
		free(old);
		return -1;
	}
	remove_tree(old);
	free(old);
	return 0;
}

/* Whether dest may be replaced: absent, empty, or a sysroot. */
static int check_replaceable(const char *dest, struct xcc_error *err)
{
	char *meta;
	DIR *d;
	struct dirent *e;
	int empty = 1, ok;

	if (!exists(dest))
		return 0;
	if (!file_is_dir(dest))
		return xcc_fail(err, XCC_EUSAGE, "%s exists and is not a directory; choose another "
				"--dest", dest);
	meta = xasprintf("%s/%s", dest, SYSROOT_META_FILE);
	ok = exists(meta);
	free(meta);
	if (ok)
		return 0;
	d = opendir(dest);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	if (d)
		closedir(d);
	if (!empty)
		return xcc_fail(err, XCC_EUSAGE, "%s exists and is not a cuda-xcc sysroot (no %s); "
				"refusing to replace it: choose another --dest or remove it", dest,
				SYSROOT_META_FILE);
	return 0;
}

static void serving_text(const char *json, const struct strvec *caps, struct strvec *out);

/* ---- create ---------------------------------------------------------------------- */

static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)(n > 64 ? 64 : n) : 1;
}

static int file_contains_dir(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	int r = file_is_dir(p);

	free(p);
	return r;
}

static int file_exists_in(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	int r = exists(p);

	free(p);
	return r;
}

/* What a finished tree must hold, whatever the sources were. */
static int check_tree(const char *root, const struct plan *p, struct xcc_error *err)
{
	char *inc = xasprintf("targets/%s/include/cuda_runtime.h", p->target_dir);
	char *targets = xasprintf("%s/targets", root);
	DIR *d;
	struct dirent *e;
	struct strvec dirs = STRVEC_INIT;
	int rc = -1;

	if (!file_exists_in(root, "bin/nvcc")) {
		xcc_fail(err, XCC_EUSAGE, "the sources hold no x86_64 nvcc (bin/nvcc): add the "
			 "host side (cuda_nvcc for linux-x86_64, or Debian's nvidia-cuda-toolkit "
			 "amd64 package)");
		goto out;
	}
	if (!file_exists_in(root, inc)) {
		xcc_fail(err, XCC_EUSAGE, "the sources hold no target headers (%s): add cuda_cudart "
			 "for %s (or the target's nvidia-cuda-dev package)", inc, p->tag);
		goto out;
	}
	d = opendir(targets);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			strvec_push(&dirs, e->d_name);
	if (d)
		closedir(d);
	if (dirs.n != 1) {
		char *names = strvec_join(&dirs, ", ");

		xcc_fail(err, XCC_EFAIL, "targets/ holds %s instead of only %s: CMake would pick the "
			 "wrong one", names, p->target_dir);
		free(names);
		goto out;
	}
	rc = 0;
out:
	strvec_free(&dirs);
	free(targets);
	free(inc);
	return rc;
}

static void fill_meta(struct sysroot_meta *m, const struct plan *p, const char *host_compiler,
		      const char *target_fs, const char *jetpack, const char *fingerprint,
		      const char *serving)
{
	memset(m, 0, sizeof *m);
	m->jetpack = jetpack ? xstrdup(jetpack) : NULL;
	m->target_fs = target_fs ? xstrdup(target_fs) : NULL;
	m->cuda = xstrdup(p->cuda);
	m->target = xstrdup(p->target);
	m->tag = xstrdup(p->tag);
	m->target_dir = xstrdup(p->target_dir);
	m->host_compiler = host_compiler ? xstrdup(host_compiler) : NULL;
	m->fingerprint = xstrdup(fingerprint);
	m->serving_json = serving ? xstrdup(serving) : NULL;
	strvec_extend(&m->capabilities, &p->capabilities);
	m->components = xmalloc((p->n_archives ? p->n_archives : 1) * sizeof *m->components);
	for (size_t i = 0; i < p->n_archives; i++) {
		const struct plan_archive *a = &p->archives[i];
		struct sysroot_component *c = &m->components[m->n_components++];

		c->name = xstrdup(a->component);
		c->version = a->version ? xstrdup(a->version) : NULL;
		c->side = xstrdup(a->side == PLAN_HOST ? "host" : a->side == PLAN_TARGET ? "target" :
				  "both");
		c->sha256 = a->sha256 ? xstrdup(a->sha256) : NULL;
		c->source = xstrdup(base_name(a->source));
	}
}

/* The stored fingerprint of an existing sysroot, or NULL. */
static char *existing_fingerprint(const char *dest)
{
	struct sysroot_meta m;
	struct xcc_error err = { 0 };
	char *f = NULL;

	if (sysroot_meta_load(dest, &m, &err))
		return NULL;
	if (m.fingerprint)
		f = xstrdup(m.fingerprint);
	sysroot_meta_free(&m);
	return f;
}

/* Remove the symlinks under dir (relative to root, recursively) that lead
 * nowhere: a .deb's development links (libnvToolsExt.so -> .so.1) whose
 * library is in another package that was not given. They would only make
 * a link fail later with a worse message, and verify report them. Every
 * path is opened beneath root, so a link in the tree cannot take the walk
 * (and its unlinks) anywhere else. */
static void remove_dangling_in(int rootfd, const char *dir, struct strvec *removed, int depth)
{
	int fd = unpack_open_beneath(rootfd, dir, O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (depth < 64 && (e = readdir(d))) {
		char *rel;
		struct stat st;
		int target;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		rel = xasprintf("%s/%s", dir, e->d_name);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISDIR(st.st_mode)) {
				remove_dangling_in(rootfd, rel, removed, depth + 1);
			} else if (S_ISLNK(st.st_mode)) {
				target = unpack_open_beneath(rootfd, rel, O_PATH);
				if (target >= 0)
					close(target);
				else if (errno == ENOENT &&
					 unlinkat(dirfd(d), e->d_name, 0) == 0)
					strvec_push(removed, rel);
			}
		}
		free(rel);
	}
	closedir(d);
}

static void remove_dangling_links(const char *root, const char *dir, struct strvec *removed)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (rootfd < 0)
		return;
	remove_dangling_in(rootfd, dir, removed, 0);
	close(rootfd);
}

/* Write root/dir/name atomically, dir opened beneath root. */
static int write_beneath(const char *root, const char *dir, const char *name, const char *data,
			 struct xcc_error *err)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), dfd = -1, fd = -1, rc = -1;
	char *tmp = xasprintf(".%s.tmp.%ld", name, (long)getpid());
	size_t len = strlen(data), done = 0;

	if (rootfd < 0 || (dfd = unpack_open_beneath(rootfd, dir, O_RDONLY | O_DIRECTORY)) < 0) {
		xcc_fail(err, XCC_EFAIL, "cannot open %s/%s: %s", root, dir, strerror(errno));
		goto out;
	}
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	while (fd >= 0 && done < len) {
		ssize_t n = write(fd, data + done, len - done);

		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			break;
		}
		done += (size_t)n;
	}
	if (fd < 0 || done < len || fsync(fd)) {
		xcc_fail(err, XCC_EFAIL, "cannot write %s/%s/%s: %s", root, dir, tmp,
			 strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;
	if (renameat(dfd, tmp, dfd, name)) {
		xcc_fail(err, XCC_EFAIL, "cannot rename %s/%s/%s to %s: %s", root, dir, tmp, name,
			 strerror(errno));
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0) {
		close(fd);
		unlinkat(dfd, tmp, 0);
	}
	if (dfd >= 0)
		close(dfd);
	if (rootfd >= 0)
		close(rootfd);
	free(tmp);
	return rc;
}

/* Each archive's links were checked alone; together they can still build
 * a path out of the tree (a link in one through a link in another). */
static int refuse_escaping_links(const char *root, struct xcc_error *err)
{
	struct strvec problems = STRVEC_INIT;
	char *list;

	if (unpack_check_tree_links(root, &problems, err))
		return -1;
	if (!problems.n)
		return 0;
	list = strvec_join(&problems, "\n  ");
	xcc_fail(err, XCC_EUSAGE, "refused: the archives' symlinks together lead out of the "
		 "sysroot (each archive was harmless alone):\n  %s\nRemove the archive that "
		 "brings the link, or correct its links.", list);
	free(list);
	strvec_free(&problems);
	return -1;
}

/* Fill the temporary tree: extraction, profile, ELF passes, listing,
 * metadata last. */
static int build_tree(const struct gpudb *db, const struct sysroot_create_opts *o,
		      struct plan *p, const char *tmp, const char *host_compiler,
		      const char *target_fs, const char *jetpack, const char *fingerprint,
		      const char *triple,
		      struct fetch_opts *fo, struct sysroot_create_result *res,
		      struct xcc_error *err)
{
	struct progress pr = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct run run = { .mu = PTHREAD_MUTEX_INITIALIZER };
	int jobs = o->jobs > 0 ? o->jobs : default_jobs(), rc = -1;
	char *profile = NULL, *path = NULL, *listing = NULL, *serving = NULL;
	struct sysroot_meta meta;
	size_t unserved = 0;

	pr.f = o->progress == PROGRESS_NEVER ? NULL : o->log;
	pr.bar = o->progress == PROGRESS_ALWAYS ||
		 (o->progress == PROGRESS_AUTO && o->log && isatty(fileno(o->log)));
	pr.n_archives = p->n_archives;
	run.pr = &pr;
	run.fo = *fo;
	run.n_jobs = p->n_archives;
	run.jobs = xmalloc((p->n_archives ? p->n_archives : 1) * sizeof *run.jobs);
	for (size_t i = 0; i < p->n_archives; i++) {
		struct job *j = &run.jobs[i];
		struct plan_archive *a = &p->archives[i];

		memset(j, 0, sizeof *j);
		j->a = a;
		j->run = &run;
		j->map.p = p;
		j->map.a = a;
		j->map.root = tmp;
		/* A host package's copy of the headers yields to a target
		 * package's (single archives only: a plan from a manifest never
		 * lets two archives write the same header). */
		if (a->format != PLAN_FMT_REDIST || !a->tag) {
			if (a->side == PLAN_HOST && (a->parts & PART_HEADERS)) {
				j->phase = 1;
				j->map.keep_existing_headers = 1;
			}
		}
		/* libnvvm's nvvm/ is the newer copy of what a cuda_nvcc may still
		 * carry: it goes second and wins, instead of racing for the same
		 * files. */
		if (a->tag && a->side == PLAN_HOST && (a->parts & PART_TOOLS) &&
		    strcmp(a->component, "cuda_nvcc") != 0)
			j->phase = 1;
		if (a->size > 0) {
			pr.dl_total += (uint64_t)a->size;
			pr.ex_total += (uint64_t)a->size;
		}
	}
	if (run_phase(&run, 0, jobs, err) || run_phase(&run, 1, jobs, err))
		goto out;
	progress_end(&pr);
	crash_point("tree");

	if (refuse_escaping_links(tmp, err) || check_tree(tmp, p, err))
		goto out;
	if (p->filter_libs) {
		struct strvec removed = STRVEC_INIT;

		path = xasprintf("targets/%s/lib", p->target_dir);
		remove_dangling_links(tmp, path, &removed);
		free(path);
		path = NULL;
		if (removed.n) {
			char *names = strvec_join(&removed, ", ");

			strvec_pushf(&res->notes, "left out, as the libraries they name are in "
				     "packages not given: %s", names);
			free(names);
		}
		strvec_free(&removed);
		/* A package's tool links may name what a cross toolkit does not
		 * take (Debian 12.4's usr/bin/compute-sanitizer). */
		remove_dangling_links(tmp, "bin", &removed);
		if (removed.n) {
			char *names = strvec_join(&removed, ", ");

			strvec_pushf(&res->notes, "left out, as the tools they name are not part "
				     "of a cross toolkit: %s", names);
			free(names);
		}
		strvec_free(&removed);
	}
	path = xasprintf("targets/%s/include/cccl", p->target_dir);
	profile = sysroot_nvcc_profile(file_contains_dir(tmp, path));
	free(path);
	path = NULL;
	if (write_beneath(tmp, "bin", "nvcc.profile", profile, err))
		goto out;

	if (sysroot_autopatch(tmp, p->target_dir, triple, target_fs, 0, &res->notes, err))
		goto out;
	if (target_fs)
		sysroot_glibc_floor(tmp, p->target_dir, triple, target_fs, &res->warnings);
	if (p->capabilities.n &&
	    sysroot_serving(db, tmp, p->target_dir, &p->capabilities, &serving, &unserved, err))
		goto out;
	if (unserved && !o->allow_unserved) {
		struct strvec table = STRVEC_INIT;
		char *text;

		serving_text(serving, &p->capabilities, &table);
		text = strvec_join(&table, "\n");
		xcc_fail(err, XCC_EUSAGE, "%zu library/GPU pair%s NOT SERVED: no SASS and no PTX "
			 "these GPUs can run. Pick other -arch values, or pass --allow-unserved to "
			 "make the sysroot anyway.\n%s", unserved, unserved == 1 ? " is" : "s are",
			 text);
		free(text);
		strvec_free(&table);
		goto out;
	}

	free(path);
	listing = tree_listing(tmp);
	path = xasprintf("%s/%s", tmp, SYSROOT_FILES_LIST);
	if (file_write_atomic(path, listing, strlen(listing), 0644, err))
		goto out;
	fill_meta(&meta, p, host_compiler, target_fs, jetpack, fingerprint, serving);
	rc = sysroot_meta_save(tmp, &meta, err);
	sysroot_meta_free(&meta);
	if (rc == 0)
		crash_point("meta");
out:
	if (rc)
		progress_end(&pr);
	free(serving);
	free(listing);
	free(path);
	free(profile);
	free(run.jobs);
	return rc;
}

int sysroot_create(const struct gpudb *db, const struct sysroot_create_opts *o,
		   struct sysroot_create_result *res, struct xcc_error *err)
{
	const struct target_profile *t;
	struct cuda_version v;
	struct arch_choice choice;
	struct strvec caps = STRVEC_INIT, comps = STRVEC_INIT, singles = STRVEC_INIT,
		manifest_srcs = STRVEC_INIT;
	struct manifest *ms = NULL;
	const struct manifest **mptrs = NULL;
	char **bases = NULL;
	size_t n_ms = 0;
	struct plan plan;
	struct plan_request rq = { 0 };
	struct fetch_opts fo = { .cache_dir = o->cache_dir, .retries = 3 };
	struct host_compiler hc = { 0 };
	struct xcc_error hc_err = { 0 };
	char *dest = NULL, *tmp = NULL, *fingerprint = NULL, *old = NULL, *cuda_mm = NULL;
	char *parent = NULL, *target_fs = NULL, *extra = NULL, *mirror_path = NULL, b[32];
	int lock_fd = -1, have_choice = 0, have_jdb = 0, multi_component = 0, rc = -1;
	struct jetpack_db jdb;
	const char *jetpack = NULL;

	memset(res, 0, sizeof *res);
	memset(&plan, 0, sizeof plan);
	if (!(t = gpudb_target(db, o->target))) {
		char *names = gpudb_target_names(db);

		xcc_fail(err, XCC_EUSAGE, "unknown target '%s'; known targets: %s", o->target, names);
		free(names);
		return -1;
	}
	if (cuda_version_parse(o->cuda, &v))
		return xcc_fail(err, XCC_EUSAGE, "'%s' is not a CUDA version (e.g. 12.6 or 12.6.3)",
				o->cuda);
	if (flags_resolve(db, t, v, &o->arch, PTX_DEFAULT, &choice, err))
		return -1;
	have_choice = 1;
	if (jetpack_db_load(&jdb, err))
		goto out;
	have_jdb = 1;
	if (o->jetpack) {
		const struct jetpack_release *jp = jetpack_find(&jdb, o->jetpack);

		if (!jp) {
			char *known = jetpack_versions(&jdb);

			xcc_fail(err, XCC_EUSAGE, "--jetpack %s is not a JetPack release cuda-xcc "
				 "knows; known: %s", o->jetpack, known);
			free(known);
			goto out;
		}
		if (jetpack_check(&jdb, jp, &choice, err))
			goto out;
		jetpack = jp->version;
	} else if (jetpack_check(&jdb, NULL, &choice, err)) {
		goto out;
	}
	strvec_extend(&res->notes, &choice.warnings);
	for (size_t i = 0; i < choice.n; i++)
		strvec_push(&caps, gpu_cap_name(choice.entries[i].cap, b, sizeof b));
	for (size_t i = 0; i < o->components.n; i++)
		strvec_split(&comps, o->components.v[i]);
	for (size_t i = 0; i < choice.extra_components.n; i++)
		if (!strvec_contains(&comps, choice.extra_components.v[i]))
			strvec_push(&comps, choice.extra_components.v[i]);
	rq.target = t->name;
	rq.cuda = v;
	rq.tag = choice.tag;
	rq.target_dir = choice.target_dir;
	rq.capabilities = &caps;
	rq.components = &comps;
	plan_init(&plan, &rq, o->cuda);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	for (size_t i = 0; i < o->from.n; i++)
		strvec_push(is_manifest_name(o->from.v[i]) ? &manifest_srcs : &singles,
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
		if (!(name = mirror_manifest_name(&fo, mirror, v, err)))
			goto out;
		strvec_pushf(&manifest_srcs, "%s%s%s", mirror,
			     mirror[strlen(mirror) - 1] == '/' ? "" : "/", name);
		free(name);
	}
	if (manifest_srcs.n) {
		ms = xmalloc(manifest_srcs.n * sizeof *ms);
		mptrs = xmalloc(manifest_srcs.n * sizeof *mptrs);
		bases = xmalloc(manifest_srcs.n * sizeof *bases);
		for (; n_ms < manifest_srcs.n; n_ms++) {
			if (load_manifest(&fo, manifest_srcs.v[n_ms], &ms[n_ms], err))
				goto out;
			mptrs[n_ms] = &ms[n_ms];
			bases[n_ms] = manifest_base(manifest_srcs.v[n_ms]);
		}
		if (plan_add_redist(&plan, &rq, mptrs, (const char *const *)bases, n_ms, err))
			goto out;
	}
	for (size_t i = 0; i < singles.n; i++)
		if (add_single(&plan, &fo, singles.v[i], t->machine, err))
			goto out;
	for (size_t i = 0; i < plan.n_archives; i++)
		if (plan.archives[i].format != PLAN_FMT_REDIST)
			multi_component = 1;
	if (multi_component) {
		if (plan_set_library_filter(&plan, v, &comps, err))
			goto out;
	} else if (comps.n && !manifest_srcs.n) {
		char *list = strvec_join(&comps, ", ");

		strvec_pushf(&res->notes, "--components %s only apply to a manifest, a .deb or a "
			     "wheel; the redist archives given are used as they are", list);
		free(list);
	}
	if (plan.n_archives == 0) {
		xcc_fail(err, XCC_EUSAGE, "nothing to make a sysroot from");
		goto out;
	}

	if (hostcc_find(db, t, v, 0, &hc, &hc_err) == 0)
		;
	else
		strvec_pushf(&res->notes, "no host compiler recorded: %s", hc_err.msg);
	if (o->target_fs) {
		struct stat st;

		if (stat(o->target_fs, &st) || !S_ISDIR(st.st_mode)) {
			xcc_fail(err, XCC_EUSAGE, "--target-fs %s is not a directory: pass the "
				 "device's root filesystem (a copy or a mount of it)", o->target_fs);
			goto out;
		}
		if (strchr(o->target_fs, ',')) {
			xcc_fail(err, XCC_EUSAGE, "--target-fs %s: nvcc splits its -Xcompiler and "
				 "-Xlinker values at commas; use a path without ','", o->target_fs);
			goto out;
		}
		/* Recorded for the driver, which runs from anywhere. */
		if (!(target_fs = realpath(o->target_fs, NULL))) {
			xcc_fail(err, XCC_EFAIL, "--target-fs %s: %s", o->target_fs, strerror(errno));
			goto out;
		}
	}
	/* The rootfs decides what the autopatch resolves and is recorded:
	 * another one makes another sysroot. */
	extra = xasprintf("%s%s%s%s%s", hc.name ? hc.name : "", target_fs ? "\ntarget_fs " : "",
			  target_fs ? target_fs : "", jetpack ? "\njetpack " : "",
			  jetpack ? jetpack : "");
	fingerprint = plan_fingerprint(&plan, extra);

	cuda_mm = xasprintf("%d.%d", v.major, v.minor);
	dest = o->dest ? xstrdup(o->dest) : sysroot_store_path(t->name, cuda_mm);
	/* Trailing slashes would put the temporary directory inside dest. */
	while (strlen(dest) > 1 && dest[strlen(dest) - 1] == '/')
		dest[strlen(dest) - 1] = '\0';
	res->dir = xstrdup(dest);
	if (o->dry_run) {
		char *text = plan_describe(&plan);

		res->plan_text = xasprintf("%sdestination %s\nhost compiler %s\n%s%s%sfingerprint "
					   "%s\n", text, dest, hc.name ? hc.name : "(none found)",
					   target_fs ? "target fs " : "", target_fs ? target_fs : "",
					   target_fs ? "\n" : "", fingerprint);
		free(text);
		rc = 0;
		goto out;
	}

	parent = dir_name(dest);
	if (file_mkdir_p(parent, err) || take_lock(dest, &lock_fd, err))
		goto out;
	remove_stale(dest);
	old = existing_fingerprint(dest);
	if (old && strcmp(old, fingerprint) == 0) {
		res->up_to_date = 1;
		rc = 0;
		goto out;
	}
	if (check_replaceable(dest, err))
		goto out;
	tmp = xasprintf("%s.tmp-XXXXXX", dest);
	if (!mkdtemp(tmp)) {
		xcc_fail(err, XCC_EFAIL, "cannot create a temporary directory next to %s: %s", dest,
			 strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	chmod(tmp, 0755);
	if (build_tree(db, o, &plan, tmp, hc.name, target_fs, jetpack, fingerprint, t->triple, &fo, res,
		       err))
		goto out;
	if (swap_into_place(tmp, dest, err))
		goto out;
	free(tmp);
	tmp = NULL;
	rc = 0;
out:
	if (tmp) {
		remove_tree(tmp);
		free(tmp);
	}
	if (lock_fd >= 0)
		close(lock_fd);
	for (size_t i = 0; i < n_ms; i++) {
		manifest_free(&ms[i]);
		free(bases[i]);
	}
	free(ms);
	free(mptrs);
	free(bases);
	free(parent);
	free(old);
	free(dest);
	free(cuda_mm);
	free(fingerprint);
	free(extra);
	free(target_fs);
	free(mirror_path);
	host_compiler_free(&hc);
	plan_free(&plan);
	if (have_choice)
		arch_choice_free(&choice);
	if (have_jdb)
		jetpack_db_free(&jdb);
	strvec_free(&caps);
	strvec_free(&comps);
	strvec_free(&singles);
	strvec_free(&manifest_srcs);
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

/* ---- info, list, verify -------------------------------------------------------------- */

static void push_trimmed(struct strvec *out, char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		line[--n] = '\0';
	strvec_push(out, line);
}

/* The serving table as text lines. */
static void serving_text(const char *json, const struct strvec *caps, struct strvec *out)
{
	cJSON *rows = json ? cJSON_Parse(json) : NULL;
	const cJSON *row;
	char *line;
	size_t width = 7;

	if (!cJSON_IsArray(rows) || cJSON_GetArraySize(rows) == 0) {
		strvec_push(out, "serving: no target library carries device code");
		cJSON_Delete(rows);
		return;
	}
	cJSON_ArrayForEach(row, rows) {
		const cJSON *lib = cJSON_GetObjectItemCaseSensitive(row, "library");

		if (cJSON_IsString(lib) && strlen(lib->valuestring) > width)
			width = strlen(lib->valuestring);
	}
	strvec_push(out, "serving (per target library and GPU):");
	line = xasprintf("  %-*s", (int)width, "library");
	for (size_t i = 0; i < caps->n; i++) {
		char *l = xasprintf("%s  %-10s", line, caps->v[i]);

		free(line);
		line = l;
	}
	push_trimmed(out, line);
	free(line);
	cJSON_ArrayForEach(row, rows) {
		const cJSON *lib = cJSON_GetObjectItemCaseSensitive(row, "library");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(row, "serving");

		line = xasprintf("  %-*s", (int)width, cJSON_IsString(lib) ? lib->valuestring : "?");
		for (size_t i = 0; i < caps->n; i++) {
			const cJSON *vd = cJSON_GetObjectItemCaseSensitive(s, caps->v[i]);
			char *l = xasprintf("%s  %-10s", line,
					    cJSON_IsString(vd) ? vd->valuestring : "-");

			free(line);
			line = l;
		}
		push_trimmed(out, line);
		free(line);
	}
	cJSON_Delete(rows);
}

int sysroot_info(const struct gpudb *db, const char *dir, int json, char **out,
		 struct xcc_error *err)
{
	struct sysroot_meta m;
	struct strvec lines = STRVEC_INIT;
	char *caps;

	(void)db;
	if (sysroot_meta_load(dir, &m, err))
		return -1;
	if (json) {
		*out = sysroot_meta_to_json(&m);
		sysroot_meta_free(&m);
		return 0;
	}
	caps = m.capabilities.n ? strvec_join(&m.capabilities, " ") : xstrdup("-");
	strvec_pushf(&lines, "sysroot        %s", dir);
	strvec_pushf(&lines, "CUDA           %s", m.cuda);
	strvec_pushf(&lines, "target         %s (%s libraries in targets/%s)", m.target, m.tag,
		     m.target_dir);
	strvec_pushf(&lines, "GPUs           %s", caps);
	strvec_pushf(&lines, "host compiler  %s", m.host_compiler ? m.host_compiler :
		     "(none recorded)");
	if (m.target_fs)
		strvec_pushf(&lines, "target fs      %s", m.target_fs);
	strvec_pushf(&lines, "nvcc           %s/bin/nvcc", dir);
	strvec_push(&lines, "components:");
	for (size_t i = 0; i < m.n_components; i++) {
		const struct sysroot_component *c = &m.components[i];

		strvec_pushf(&lines, "  %-6s %-22s %-12s %.12s  %s", c->side ? c->side : "?",
			     c->name ? c->name : "?", c->version ? c->version : "-",
			     c->sha256 ? c->sha256 : "-", c->source ? c->source : "");
	}
	serving_text(m.serving_json, &m.capabilities, &lines);
	strvec_push(&lines, "");
	*out = strvec_join(&lines, "\n");
	free(caps);
	strvec_free(&lines);
	sysroot_meta_free(&m);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sysroot_list(char **out, struct xcc_error *err)
{
	char *store = sysroot_store_dir();
	struct strvec names = STRVEC_INIT, lines = STRVEC_INIT;
	DIR *d = opendir(store);
	struct dirent *e;

	(void)err;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && !strstr(e->d_name, ".tmp-") &&
		    !strstr(e->d_name, ".old-") && !strstr(e->d_name, ".lock"))
			strvec_push(&names, e->d_name);
	if (d)
		closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof *names.v, cmp_str);
	for (size_t i = 0; i < names.n; i++) {
		char *dir = xasprintf("%s/%s", store, names.v[i]);
		struct sysroot_meta m;
		struct xcc_error e2 = { 0 };

		if (sysroot_meta_load(dir, &m, &e2) == 0) {
			char *caps = m.capabilities.n ? strvec_join(&m.capabilities, ",") :
				xstrdup("-");

			strvec_pushf(&lines, "%-24s CUDA %-8s %-7s %-14s GPUs %s", names.v[i],
				     m.cuda, m.target, m.tag, caps);
			free(caps);
			sysroot_meta_free(&m);
		}
		free(dir);
	}
	if (lines.n == 0)
		strvec_pushf(&lines, "no sysroots in %s (make one with 'cuda-xcc sysroot create')",
			     store);
	strvec_push(&lines, "");
	*out = strvec_join(&lines, "\n");
	strvec_free(&names);
	strvec_free(&lines);
	free(store);
	return 0;
}

/* The path of a listing line: "f MODE SIZE PATH", "d MODE PATH",
 * "l PATH -> TARGET". Caller frees. */
static char *listing_path(const char *line)
{
	int skip = line[0] == 'f' ? 3 : line[0] == 'd' ? 2 : 1;
	const char *p = line, *arrow;

	for (int i = 0; i < skip && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return xstrdup(line);
	arrow = line[0] == 'l' ? strstr(p, " -> ") : NULL;
	return arrow ? strndup(p, (size_t)(arrow - p)) : xstrdup(p);
}

struct listing_entry {
	char *path;
	const char *line;
};

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct listing_entry *)a)->path,
		      ((const struct listing_entry *)b)->path);
}

static struct listing_entry *parse_listing(char *text, size_t *n)
{
	struct listing_entry *v = NULL;
	size_t cap = 0;
	char *save = NULL;

	*n = 0;
	for (char *tok = strtok_r(text, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		if (*n == cap)
			v = xrealloc(v, (cap = cap ? 2 * cap : 256) * sizeof *v);
		v[*n].path = listing_path(tok);
		v[(*n)++].line = tok;
	}
	if (*n)
		qsort(v, *n, sizeof *v, cmp_entry);
	return v;
}

/* What differs between the listing create wrote and the tree now. */
static void listing_diff(const char *want_text, const char *have_text, struct strvec *problems)
{
	char *wt = xstrdup(want_text), *ht = xstrdup(have_text);
	size_t nw, nh, shown = 0;
	struct listing_entry *w = parse_listing(wt, &nw), *h = parse_listing(ht, &nh);

	for (size_t i = 0; i < nw && shown < 50; i++) {
		struct listing_entry *f = nh ? bsearch(&w[i], h, nh, sizeof *h, cmp_entry) : NULL;

		if (!f) {
			strvec_pushf(problems, "missing: %s", w[i].path);
			shown++;
		} else if (strcmp(f->line, w[i].line) != 0) {
			strvec_pushf(problems, "changed: %s (made as '%s', now '%s')", w[i].path,
				     w[i].line, f->line);
			shown++;
		}
	}
	for (size_t i = 0; i < nh && shown < 50; i++)
		if (!nw || !bsearch(&h[i], w, nw, sizeof *w, cmp_entry)) {
			strvec_pushf(problems, "not made by create: %s", h[i].path);
			shown++;
		}
	for (size_t i = 0; i < nw; i++)
		free(w[i].path);
	for (size_t i = 0; i < nh; i++)
		free(h[i].path);
	free(w);
	free(h);
	free(wt);
	free(ht);
}

int sysroot_verify(const struct gpudb *db, const char *dir, struct strvec *problems,
		   struct xcc_error *err)
{
	struct sysroot_meta m;
	const struct target_profile *t;
	char *path, *want, *have, *profile, *inc;
	struct xcc_error e2 = { 0 };
	struct strvec notes = STRVEC_INIT;
	size_t n_before;

	if (sysroot_meta_load(dir, &m, err))
		return -1;
	path = xasprintf("%s/%s", dir, SYSROOT_FILES_LIST);
	want = file_read_text(path, NULL);
	if (!want) {
		strvec_pushf(problems, "%s is missing: the tree cannot be checked", path);
	} else {
		have = tree_listing(dir);
		listing_diff(want, have, problems);
		free(have);
		free(want);
	}
	free(path);
	n_before = problems->n;
	if (unpack_check_tree_links(dir, problems, err)) {
		sysroot_meta_free(&m);
		return -1;
	}
	/* The checks below follow links: not where one leads out. */
	if (problems->n > n_before)
		goto done;
	path = xasprintf("%s/bin/nvcc.profile", dir);
	have = file_read_text(path, NULL);
	inc = xasprintf("%s/targets/%s/include/cccl", dir, m.target_dir);
	profile = sysroot_nvcc_profile(file_is_dir(inc));
	if (!have || strcmp(have, profile) != 0)
		strvec_pushf(problems, "%s is not the profile cuda-xcc writes", path);
	free(have);
	free(profile);
	free(inc);
	free(path);
	path = xasprintf("%s/bin/nvcc", dir);
	if (access(path, X_OK))
		strvec_pushf(problems, "%s is not executable", path);
	free(path);
	t = gpudb_target(db, m.target);
	if (!t)
		strvec_pushf(problems, "unknown target '%s' in %s", m.target, SYSROOT_META_FILE);
	else if (sysroot_autopatch(dir, m.target_dir, t->triple, m.target_fs, 1, &notes, &e2))
		strvec_pushf(problems, "ELF dependencies: %s", e2.msg);
done:
	strvec_free(&notes);
	sysroot_meta_free(&m);
	if (problems->n)
		return xcc_fail(err, XCC_EFAIL, "%s has %zu problem%s", dir, problems->n,
				problems->n == 1 ? "" : "s");
	return 0;
}
