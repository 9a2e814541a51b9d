/* Streaming extraction under a path policy, and package identification.
 *
 * Every path is resolved by hand, one component at a time from the
 * destination directory, following symlinks that already exist there, so
 * that a member can never reach outside through a symlink extracted before
 * it. The directory a file is finally created in is opened with
 * openat2(RESOLVE_BENEATH) where the kernel has it, so a mistake in the
 * resolver still cannot write outside. */
#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif
#endif

#ifdef HAVE_LIBLZMA_MT
#include <lzma.h>
#endif

#include "elfinfo.h"
#include "strvec.h"
#include "unpack.h"

#define READ_BLOCK (256 * 1024)
#define MAX_SYMLINK_HOPS 40
#define MAX_SMALL_MEMBER (1024 * 1024) /* control files, WHEEL, METADATA */
#define PROGRESS_STEP (4u << 20)

/* ---------------------------------------------------------------------------
 * Paths
 */

/* Normalize a member path in place: drop "./" and empty components and a
 * trailing slash. Returns 0, or -1 for an absolute path or a ".." component
 * (which the policy refuses, never rewrites). */
static int normalize_member(const char *in, char *out, size_t outsz)
{
	size_t n = 0;
	const char *p = in;

	if (*in == '/')
		return -1;
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);

		if (len == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (len && !(len == 1 && p[0] == '.')) {
			if (n + len + 2 > outsz)
				return -1;
			if (n)
				out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p = *end ? end + 1 : end;
	}
	out[n] = '\0';
	return 0;
}

enum resolve_result {
	RESOLVE_OK,
	RESOLVE_ESCAPES,   /* would lead outside the destination */
	RESOLVE_ABSOLUTE,  /* through a symlink with an absolute target */
	RESOLVE_LOOP,      /* too many symlinks */
	RESOLVE_TOOLONG,
	RESOLVE_IOERR,
};

/*
 * Resolve `path`, relative to `base` (a canonical directory relative to the
 * destination, "" for the destination itself), into `canon`: a path relative
 * to the destination with no symlinks among the components that exist.
 * Components that do not exist are taken lexically. follow_last says whether
 * a symlink as the last component is followed.
 */
static enum resolve_result resolve_beneath(int destfd, const char *base, const char *path,
					   int follow_last, char canon[PATH_MAX])
{
	char *rest, *p;
	size_t n = strlen(base);
	int hops = 0, missing = 0;
	enum resolve_result res = RESOLVE_OK;

	if (n >= PATH_MAX)
		return RESOLVE_TOOLONG;
	memcpy(canon, base, n + 1);
	rest = xstrdup(path);
	p = rest;
	for (;;) {
		char *comp, *end;
		size_t len;
		struct stat st;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		end = strchrnul(p, '/');
		len = (size_t)(end - comp);
		p = end;
		if (len == 1 && comp[0] == '.')
			continue;
		if (len == 2 && comp[0] == '.' && comp[1] == '.') {
			char *slash;

			if (!n) {
				res = RESOLVE_ESCAPES;
				break;
			}
			slash = strrchr(canon, '/');
			n = slash ? (size_t)(slash - canon) : 0;
			canon[n] = '\0';
			/* Going up from a missing component lands on a
			 * directory that may exist again. */
			missing = 0;
			continue;
		}
		if (n + len + 2 > PATH_MAX) {
			res = RESOLVE_TOOLONG;
			break;
		}
		if (n)
			canon[n++] = '/';
		memcpy(canon + n, comp, len);
		n += len;
		canon[n] = '\0';
		if (missing)
			continue;
		if (fstatat(destfd, canon, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT && errno != ENOTDIR) {
				res = RESOLVE_IOERR;
				break;
			}
			missing = 1;
			continue;
		}
		if (S_ISLNK(st.st_mode) && (*p || follow_last)) {
			char target[PATH_MAX];
			ssize_t tlen = readlinkat(destfd, canon, target, sizeof target - 1);
			char *next;

			if (tlen < 0) {
				res = RESOLVE_IOERR;
				break;
			}
			target[tlen] = '\0';
			if (target[0] == '/') {
				res = RESOLVE_ABSOLUTE;
				break;
			}
			if (++hops > MAX_SYMLINK_HOPS) {
				res = RESOLVE_LOOP;
				break;
			}
			/* Replace the link by its target, relative to the
			 * link's directory. */
			n -= len;
			if (n)
				n--;
			canon[n] = '\0';
			next = xasprintf("%s/%s", target, p);
			free(rest);
			rest = p = next;
		}
	}
	free(rest);
	return res;
}

static const char *resolve_problem(enum resolve_result r)
{
	switch (r) {
	case RESOLVE_OK:
		return "";
	case RESOLVE_ESCAPES:
		return "leads outside the destination";
	case RESOLVE_ABSOLUTE:
		return "goes through a symlink to an absolute path";
	case RESOLVE_LOOP:
		return "goes through too many symlinks";
	case RESOLVE_TOOLONG:
		return "is too long";
	case RESOLVE_IOERR:
		break;
	}
	return strerror(errno);
}

/* Open a directory below destfd whose path has no symlinks; the kernel
 * enforces both where it can. */
static int open_dir_beneath(int destfd, const char *canon)
{
	const char *path = *canon ? canon : ".";
#if defined(HAVE_OPENAT2) && defined(SYS_openat2)
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, destfd, path, &how, sizeof how);

	if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EINVAL))
		return (int)fd;
#endif
	return openat(destfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* ---------------------------------------------------------------------------
 * Opening archives
 */

/* A header was read (ARCHIVE_EOF, 1, compares above the warnings). */
static int header_ok(int r)
{
	return r == ARCHIVE_OK || r == ARCHIVE_WARN;
}

static struct archive *reader_new(void)
{
	struct archive *a = archive_read_new();

	/* Only the formats and filters packages use, and never an external
	 * program that libarchive would otherwise run on untrusted input. */
	archive_read_support_format_tar(a);
	archive_read_support_format_ar(a);
	archive_read_support_format_zip(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_lzma(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_zstd(a);
	return a;
}

static int archive_fail(struct xcc_error *err, struct archive *a, const char *what)
{
	const char *msg = archive_error_string(a);

	return xcc_fail(err, XCC_EFAIL, "%s: %s", what, msg ? msg : "unreadable archive");
}

/* Open `path` and read the first header; *kind says what it is. */
static int open_package(const char *path, struct archive **ap, struct archive_entry **first,
			enum package_kind *kind, struct xcc_error *err)
{
	struct archive *a = reader_new();
	int r, fmt;

	if (archive_read_open_filename(a, path, READ_BLOCK) != ARCHIVE_OK) {
		archive_fail(err, a, path);
		archive_read_free(a);
		return -1;
	}
	r = archive_read_next_header(a, first);
	if (r == ARCHIVE_EOF) {
		archive_read_free(a);
		return xcc_fail(err, XCC_EUSAGE, "%s: empty archive", path);
	}
	if (r < ARCHIVE_WARN) {
		archive_fail(err, a, path);
		archive_read_free(a);
		return -1;
	}
	fmt = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	if (fmt == ARCHIVE_FORMAT_AR) {
		*kind = PACKAGE_DEB;
		if (strcmp(archive_entry_pathname(*first), "debian-binary") != 0) {
			archive_read_free(a);
			return xcc_fail(err, XCC_EUSAGE,
					"%s: an ar archive but not a Debian package (no debian-binary "
					"member first)", path);
		}
	} else if (fmt == ARCHIVE_FORMAT_ZIP) {
		*kind = PACKAGE_WHEEL;
	} else if (fmt == ARCHIVE_FORMAT_TAR) {
		*kind = PACKAGE_REDIST;
	} else {
		archive_read_free(a);
		return xcc_fail(err, XCC_EUSAGE,
				"%s: not a .deb, a wheel or a redist .tar.xz (format %s)", path,
				archive_format_name(a));
	}
	*ap = a;
	return 0;
}

/* A member of an outer archive (a .deb's control.tar or data.tar) read as an
 * archive of its own, block by block, without copying it anywhere. */
static la_ssize_t member_read(struct archive *inner, void *arg, const void **buf)
{
	struct archive *outer = arg;
	size_t size;
	la_int64_t offset;
	int r = archive_read_data_block(outer, buf, &size, &offset);

	if (r == ARCHIVE_EOF)
		return 0;
	if (r < ARCHIVE_OK) {
		archive_set_error(inner, archive_errno(outer), "%s", archive_error_string(outer));
		return -1;
	}
	return (la_ssize_t)size;
}

static struct archive *open_member(struct archive *outer, const char *path, const char *member,
				   struct xcc_error *err)
{
	struct archive *inner = archive_read_new();

	archive_read_support_format_tar(inner);
	archive_read_support_filter_xz(inner);
	archive_read_support_filter_lzma(inner);
	archive_read_support_filter_gzip(inner);
	archive_read_support_filter_bzip2(inner);
	archive_read_support_filter_zstd(inner);
	if (archive_read_open(inner, outer, NULL, member_read, NULL) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "%s: member %s: %s", path, member,
			 archive_error_string(inner) ? archive_error_string(inner) : "unreadable");
		archive_read_free(inner);
		return NULL;
	}
	return inner;
}

static const char *entry_path(struct archive_entry *e)
{
	const char *p = archive_entry_pathname(e);

	return p ? p : archive_entry_pathname_utf8(e);
}

static int is_tar_member(const char *name, const char *stem)
{
	size_t n = strlen(stem);

	return strncmp(name, stem, n) == 0 && (name[n] == '\0' || name[n] == '.');
}

/* Advance a .deb's outer reader to the member "<stem>" or "<stem>.<ext>"
 * (its entry into *entry unless NULL). */
static int find_deb_member(struct archive *a, const char *path, const char *stem,
			   const char **name, struct archive_entry **entry, struct xcc_error *err)
{
	struct archive_entry *e;
	int r;

	while (header_ok(r = archive_read_next_header(a, &e))) {
		*name = archive_entry_pathname(e);
		if (*name && is_tar_member(*name, stem)) {
			if (entry)
				*entry = e;
			return 0;
		}
	}
	if (r == ARCHIVE_EOF)
		return xcc_fail(err, XCC_EUSAGE, "%s: a Debian package without a %s member", path,
				stem);
	return archive_fail(err, a, path);
}

/* ---------------------------------------------------------------------------
 * xz with liblzma's multi-threaded decoder
 *
 * libarchive (3.6) decodes xz on one thread. Files compressed in several
 * blocks (Debian's data.tar.xz: 87 of them for nvidia-cuda-dev) decode in
 * parallel with liblzma's own decoder, fed from the compressed bytes that
 * an outer reader hands out block by block; the tar reader then sees a
 * plain tar stream. A single-block file decodes as before, on one thread.
 */
#ifdef HAVE_LIBLZMA_MT
#define XZ_OUT_BLOCK (256 * 1024)
/*
 * What one decoder may hold for its threads. Each thread holds a dictionary
 * (8 MiB for xz -6), its block's compressed input and its decoded output:
 * about 50 MiB for Debian's 24 MiB blocks. With less, liblzma uses fewer
 * threads or decodes in the calling thread; it never fails.
 *  - .deb data: room for two threads, the point of the exercise (dpkg-deb
 *    itself peaks near 160 MiB on nvidia-cuda-dev).
 *  - .tar.xz files: NVIDIA's redist archives are single blocks, where more
 *    threads gain nothing; a small bound keeps create's peak RSS under
 *    64 MiB with two archives unpacked at once.
 */
#define XZ_MEMLIMIT_DEB (128u << 20)
#define XZ_MEMLIMIT_FILE (24u << 20)

struct xz_source {
	struct archive *outer; /* hands out the compressed bytes */
	lzma_stream lz;
	int in_eof, done;
	uint8_t out[XZ_OUT_BLOCK];
};

static const char *lzma_problem(lzma_ret r)
{
	switch (r) {
	case LZMA_MEM_ERROR:
	case LZMA_MEMLIMIT_ERROR:
		return "out of memory";
	case LZMA_FORMAT_ERROR:
		return "not xz data";
	case LZMA_DATA_ERROR:
		return "corrupt xz data";
	case LZMA_BUF_ERROR:
		return "truncated xz data";
	default:
		return "xz decoding failed";
	}
}

static la_ssize_t xz_read(struct archive *inner, void *arg, const void **buf)
{
	struct xz_source *x = arg;

	x->lz.next_out = x->out;
	x->lz.avail_out = sizeof x->out;
	while (!x->done && x->lz.avail_out == sizeof x->out) {
		lzma_ret r;

		if (!x->lz.avail_in && !x->in_eof) {
			const void *block;
			size_t size;
			la_int64_t offset;
			int ar = archive_read_data_block(x->outer, &block, &size, &offset);

			if (ar == ARCHIVE_EOF) {
				x->in_eof = 1;
			} else if (ar < ARCHIVE_OK) {
				archive_set_error(inner, archive_errno(x->outer), "%s",
						  archive_error_string(x->outer));
				return -1;
			} else {
				x->lz.next_in = block;
				x->lz.avail_in = size;
			}
		}
		r = lzma_code(&x->lz, x->in_eof ? LZMA_FINISH : LZMA_RUN);
		if (r == LZMA_STREAM_END) {
			x->done = 1;
		} else if (r != LZMA_OK) {
			archive_set_error(inner, EIO, "%s", lzma_problem(r));
			return -1;
		}
	}
	*buf = x->out;
	return (la_ssize_t)(sizeof x->out - x->lz.avail_out);
}

/* One decoder thread per CPU this process may run on (its affinity mask,
 * which containers and taskset narrow): several archives extracted at once
 * share them, and a single-block file only ever uses one. */
static int xz_threads(void)
{
	cpu_set_t set;
	int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) :
		   (int)sysconf(_SC_NPROCESSORS_ONLN);

	return cpus > 1 ? (cpus > 16 ? 16 : cpus) : 1;
}

/* The tar inside the xz data that `outer` reads out, or NULL with err set.
 * *xp is to be freed (xz_source_free) after the returned archive. */
static struct archive *open_xz_tar(struct archive *outer, uint64_t memlimit, const char *what,
				   struct xz_source **xp, struct xcc_error *err)
{
	struct xz_source *x = xmalloc(sizeof *x);
	lzma_mt mt = {
		.flags = LZMA_CONCATENATED,
		.threads = (uint32_t)xz_threads(),
		.memlimit_stop = UINT64_MAX,
	};
	lzma_stream init = LZMA_STREAM_INIT;
	struct archive *inner;
	lzma_ret r;

	mt.memlimit_threading = memlimit;
	memset(x, 0, offsetof(struct xz_source, out));
	x->outer = outer;
	x->lz = init;
	r = lzma_stream_decoder_mt(&x->lz, &mt);
	if (r != LZMA_OK) {
		free(x);
		xcc_fail(err, XCC_EFAIL, "%s: %s", what, lzma_problem(r));
		return NULL;
	}
	inner = archive_read_new();
	archive_read_support_format_tar(inner);
	if (archive_read_open(inner, x, NULL, xz_read, NULL) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", what,
			 archive_error_string(inner) ? archive_error_string(inner) : "unreadable");
		archive_read_free(inner);
		lzma_end(&x->lz);
		free(x);
		return NULL;
	}
	*xp = x;
	return inner;
}

/* The tar reader stops at its end-of-archive blocks; decoding the rest of
 * the xz data (padding) checks the last block's integrity too. */
static int xz_drain(struct archive *inner, struct xz_source *x, const char *what,
		    struct xcc_error *err)
{
	const void *buf;
	la_ssize_t n;

	while ((n = xz_read(inner, x, &buf)) > 0)
		;
	if (n < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", what, archive_error_string(inner));
	return 0;
}

static void xz_source_free(struct xz_source *x)
{
	if (x) {
		lzma_end(&x->lz);
		free(x);
	}
}
#endif

/* ---------------------------------------------------------------------------
 * Extraction
 */

struct dir_mode {
	char *canon;
	mode_t mode;
	struct timespec mtime; /* tv_nsec UTIME_OMIT when the archive has none */
};

struct unpacker {
	const char *archive;
	const char *dest_dir;
	int destfd;
	const struct unpack_opts *o;
	struct unpack_stats *stats;
	struct archive *outer; /* whose byte count is the progress */
	/* When set, the progress instead: a reader that seeks in the file. */
	uint64_t (*file_pos)(void *arg);
	void *file_pos_arg;
	uint64_t progress_next;
	struct strvec symlinks; /* canonical paths of the symlinks made */
	struct dir_mode *dirs;
	size_t ndirs, dirs_cap;
	/* The last parent directory, as mapped, its canonical path and fd:
	 * archives list a directory's files together. */
	char *parent_key;
	char parent_canon[PATH_MAX];
	int parentfd;
};

static void report_progress(struct unpacker *u, int done_all)
{
	uint64_t done;
	struct stat st;

	if (!u->o || !u->o->progress)
		return;
	done = u->file_pos ? u->file_pos(u->file_pos_arg) :
			    (uint64_t)archive_filter_bytes(u->outer, -1);
	/* Whatever follows the last member (padding, trailing ar members)
	 * is read too, as far as the caller's byte count goes. */
	if (done_all && stat(u->archive, &st) == 0)
		done = (uint64_t)st.st_size;
	if (done_all || done >= u->progress_next) {
		u->o->progress(u->o->progress_arg, done);
		u->progress_next = done + PROGRESS_STEP;
	}
}

static void forget_parent(struct unpacker *u)
{
	if (u->parentfd >= 0)
		close(u->parentfd);
	u->parentfd = -1;
	free(u->parent_key);
	u->parent_key = NULL;
}

/* mkdir -p of a canonical path; existing components must be directories. */
static int make_dirs(struct unpacker *u, const char *canon, const char *member,
		     struct xcc_error *err)
{
	char buf[PATH_MAX];
	size_t n = strlen(canon);

	memcpy(buf, canon, n + 1);
	for (size_t i = 1; i <= n; i++) {
		struct stat st;

		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdirat(u->destfd, buf, 0755)) {
			if (errno != EEXIST)
				return xcc_fail(err, XCC_EFAIL,
						"%s: member %s: cannot create %s/%s: %s", u->archive,
						member, u->dest_dir, buf, strerror(errno));
			if (fstatat(u->destfd, buf, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
				return xcc_fail(err, XCC_EUSAGE,
						"%s: member %s refused: %s/%s is in the way and is "
						"not a directory", u->archive, member, u->dest_dir, buf);
		}
		if (i < n)
			buf[i] = '/';
	}
	return 0;
}

/*
 * Open the directory that will hold `mapped` (created as needed) and return
 * its fd, with *leaf pointing at the last component of `mapped`.
 */
static int open_parent(struct unpacker *u, const char *mapped, const char *member,
		       const char **leaf, struct xcc_error *err)
{
	const char *slash = strrchr(mapped, '/');
	char *key = slash ? strndup(mapped, (size_t)(slash - mapped)) : xstrdup("");
	enum resolve_result r;

	*leaf = slash ? slash + 1 : mapped;
	if (u->parent_key && strcmp(key, u->parent_key) == 0) {
		free(key);
		return u->parentfd;
	}
	forget_parent(u);
	r = resolve_beneath(u->destfd, "", key, 1, u->parent_canon);
	if (r != RESOLVE_OK) {
		xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: its directory %s %s",
			 u->archive, member, key, resolve_problem(r));
		free(key);
		return -1;
	}
	if (make_dirs(u, u->parent_canon, member, err)) {
		free(key);
		return -1;
	}
	u->parentfd = open_dir_beneath(u->destfd, u->parent_canon);
	if (u->parentfd < 0) {
		xcc_fail(err, XCC_EFAIL, "%s: member %s: cannot open %s/%s: %s", u->archive,
			 member, u->dest_dir, u->parent_canon, strerror(errno));
		free(key);
		return -1;
	}
	u->parent_key = key;
	return u->parentfd;
}

static int canon_join(char out[PATH_MAX], const char *dir, const char *leaf)
{
	size_t d = strlen(dir), l = strlen(leaf);

	if (d + l + 2 > PATH_MAX)
		return -1;
	memcpy(out, dir, d);
	if (d)
		out[d++] = '/';
	memcpy(out + d, leaf, l + 1);
	return 0;
}

/* Make room for a new non-directory entry named leaf: an old file or
 * symlink goes (as tar does), a directory is never replaced. */
static int clear_leaf(struct unpacker *u, int dirfd, const char *leaf, const char *member,
		      struct xcc_error *err)
{
	struct stat st;

	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : xcc_fail(err, XCC_EFAIL, "%s: member %s: %s",
						      u->archive, member, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return xcc_fail(err, XCC_EUSAGE,
				"%s: member %s refused: it would replace a directory", u->archive,
				member);
	if (unlinkat(dirfd, leaf, 0) && errno != ENOENT)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s: cannot replace the old one: %s",
				u->archive, member, strerror(errno));
	return 0;
}

static int write_file(struct unpacker *u, struct archive *a, struct archive_entry *e,
		      const char *mapped, const char *member, mode_t perm, struct xcc_error *err)
{
	const char *leaf;
	int dirfd = open_parent(u, mapped, member, &leaf, err);
	int fd = -1;
	uint64_t written = 0;
	int64_t end = 0;
	const void *buf;
	size_t size;
	la_int64_t offset;
	int r;
	struct timespec times[2];

	if (dirfd < 0)
		return -1;
	/* EEXIST again: another archive unpacked into the same tree at the
	 * same time made the same path; the last one wins, as in one archive. */
	for (int tries = 0; tries < 3; tries++) {
		if (clear_leaf(u, dirfd, leaf, member, err))
			return -1;
		fd = openat(dirfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s: cannot create %s/%s: %s",
				u->archive, member, u->dest_dir, mapped, strerror(errno));
	while ((r = archive_read_data_block(a, &buf, &size, &offset)) == ARCHIVE_OK) {
		const char *p = buf;

		while (size) {
			ssize_t w = pwrite(fd, p, size, offset);

			if (w < 0) {
				xcc_fail(err, XCC_EFAIL, "%s: writing %s/%s: %s", u->archive,
					 u->dest_dir, mapped, strerror(errno));
				goto fail;
			}
			p += w;
			size -= (size_t)w;
			offset += w;
			written += (uint64_t)w;
		}
		if (offset > end)
			end = offset;
		report_progress(u, 0);
	}
	if (r != ARCHIVE_EOF) {
		archive_fail(err, a, u->archive);
		xcc_error_prefix(err, "member %s", member);
		goto fail;
	}
	/* A sparse file may end in a hole. */
	if (archive_entry_size_is_set(e) && archive_entry_size(e) > end &&
	    ftruncate(fd, archive_entry_size(e))) {
		xcc_fail(err, XCC_EFAIL, "%s: writing %s/%s: %s", u->archive, u->dest_dir, mapped,
			 strerror(errno));
		goto fail;
	}
	times[0].tv_nsec = UTIME_OMIT;
	times[1].tv_sec = archive_entry_mtime(e);
	times[1].tv_nsec = archive_entry_mtime_is_set(e) ? archive_entry_mtime_nsec(e) : UTIME_OMIT;
	if (fchmod(fd, perm) || futimens(fd, times)) {
		xcc_fail(err, XCC_EFAIL, "%s: %s/%s: %s", u->archive, u->dest_dir, mapped,
			 strerror(errno));
		goto fail;
	}
	if (close(fd))
		return xcc_fail(err, XCC_EFAIL, "%s: writing %s/%s: %s", u->archive, u->dest_dir,
				mapped, strerror(errno));
	u->stats->files++;
	u->stats->bytes += written;
	return 0;
fail:
	close(fd);
	unlinkat(dirfd, leaf, 0);
	return -1;
}

static int make_dir(struct unpacker *u, struct archive_entry *e, const char *mapped,
		    const char *member, mode_t perm, struct xcc_error *err)
{
	char canon[PATH_MAX];
	enum resolve_result r = resolve_beneath(u->destfd, "", mapped, 1, canon);

	if (r != RESOLVE_OK)
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: the directory %s %s",
				u->archive, member, mapped, resolve_problem(r));
	if (make_dirs(u, canon, member, err))
		return -1;
	if (u->ndirs == u->dirs_cap) {
		u->dirs_cap = u->dirs_cap ? 2 * u->dirs_cap : 64;
		u->dirs = xrealloc(u->dirs, u->dirs_cap * sizeof *u->dirs);
	}
	/* The owner keeps full access so that the rest of the archive, and
	 * later a cleanup, can write and delete inside it. */
	u->dirs[u->ndirs].canon = xstrdup(canon);
	u->dirs[u->ndirs].mode = (perm & 0777) | 0700;
	u->dirs[u->ndirs].mtime.tv_sec = archive_entry_mtime(e);
	u->dirs[u->ndirs].mtime.tv_nsec =
		archive_entry_mtime_is_set(e) ? archive_entry_mtime_nsec(e) : UTIME_OMIT;
	u->ndirs++;
	return 0;
}

static int make_symlink(struct unpacker *u, struct archive_entry *e, const char *mapped,
			const char *member, const char *target, struct xcc_error *err)
{
	const char *leaf;
	int dirfd, made;
	char canon[PATH_MAX], resolved[PATH_MAX];
	enum resolve_result r;

	if (!target || !*target)
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: a symlink with no target",
				u->archive, member);
	if (target[0] == '/')
		return xcc_fail(err, XCC_EUSAGE,
				"%s: member %s refused: a symlink to the absolute path %s",
				u->archive, member, target);
	dirfd = open_parent(u, mapped, member, &leaf, err);
	if (dirfd < 0)
		return -1;
	r = resolve_beneath(u->destfd, u->parent_canon, target, 1, resolved);
	if (r != RESOLVE_OK)
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: its target %s %s",
				u->archive, member, target, resolve_problem(r));
	for (int tries = 0;; tries++) {
		if (clear_leaf(u, dirfd, leaf, member, err))
			return -1;
		made = symlinkat(target, dirfd, leaf) == 0;
		if (made || errno != EEXIST || tries == 2)
			break;
	}
	if (!made)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s: cannot create %s/%s: %s",
				u->archive, member, u->dest_dir, mapped, strerror(errno));
	if (archive_entry_mtime_is_set(e)) {
		struct timespec times[2] = {
			{ 0, UTIME_OMIT }, { archive_entry_mtime(e), archive_entry_mtime_nsec(e) }
		};

		/* Some filesystems have no symlink times; that is no error. */
		utimensat(dirfd, leaf, times, AT_SYMLINK_NOFOLLOW);
	}
	if (canon_join(canon, u->parent_canon, leaf) == 0)
		strvec_push(&u->symlinks, canon);
	return 0;
}

static int make_hardlink(struct unpacker *u, const char *mapped, const char *member,
			 const char *link_member, struct xcc_error *err)
{
	char norm[PATH_MAX], canon[PATH_MAX];
	char *link_mapped;
	const char *leaf;
	int dirfd, rc;
	enum resolve_result r;
	struct stat st;

	if (normalize_member(link_member, norm, sizeof norm))
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: a hard link to %s",
				u->archive, member, link_member);
	link_mapped = u->o && u->o->map ? u->o->map(u->o->map_arg, norm) : xstrdup(norm);
	if (!link_mapped)
		return xcc_fail(err, XCC_EUSAGE,
				"%s: member %s is a hard link to %s, which is not extracted",
				u->archive, member, norm);
	if (normalize_member(link_mapped, canon, sizeof canon)) {
		rc = xcc_fail(err, XCC_EFAIL, "%s: member %s: hard link target mapped to %s",
			      u->archive, member, link_mapped);
		free(link_mapped);
		return rc;
	}
	free(link_mapped);
	r = resolve_beneath(u->destfd, "", canon, 0, norm);
	if (r != RESOLVE_OK)
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: its hard link target %s %s",
				u->archive, member, link_member, resolve_problem(r));
	if (fstatat(u->destfd, norm, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return xcc_fail(err, XCC_EUSAGE,
				"%s: member %s refused: a hard link to %s, which is not a file "
				"extracted before it", u->archive, member, link_member);
	dirfd = open_parent(u, mapped, member, &leaf, err);
	if (dirfd < 0)
		return -1;
	if (canon_join(canon, u->parent_canon, leaf))
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: a path too long",
				u->archive, member);
	if (strcmp(canon, norm) == 0)
		return 0;
	for (int tries = 0;; tries++) {
		rc = clear_leaf(u, dirfd, leaf, member, err);
		if (rc)
			return -1;
		rc = linkat(u->destfd, norm, dirfd, leaf, 0);
		if (rc == 0 || errno != EEXIST || tries == 2)
			break;
	}
	if (rc)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s: cannot link %s/%s: %s", u->archive,
				member, u->dest_dir, mapped, strerror(errno));
	u->stats->files++;
	return 0;
}

static int extract_entry(struct unpacker *u, struct archive *a, struct archive_entry *e,
			 struct xcc_error *err)
{
	const char *raw = entry_path(e);
	char member[PATH_MAX], mapped[PATH_MAX];
	char *m;
	mode_t perm = archive_entry_perm(e);
	mode_t type = archive_entry_filetype(e);
	const char *hardlink = archive_entry_hardlink(e);
	int rc;

	if (!raw)
		return xcc_fail(err, XCC_EUSAGE, "%s: a member with an unreadable name", u->archive);
	if (normalize_member(raw, member, sizeof member))
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: %s", u->archive, raw,
				raw[0] == '/' ? "an absolute path" :
				strlen(raw) >= PATH_MAX ? "a path too long" : "a path with ..");
	if (!*member)
		return 0; /* the archive's "./" */
	m = u->o && u->o->map ? u->o->map(u->o->map_arg, member) : xstrdup(member);
	if (!m) {
		u->stats->skipped++;
		return 0;
	}
	rc = normalize_member(m, mapped, sizeof mapped);
	if (rc || !*mapped) {
		rc = xcc_fail(err, XCC_EFAIL, "%s: member %s mapped to the invalid path '%s'",
			      u->archive, member, m);
		free(m);
		return rc;
	}
	free(m);

	if (hardlink)
		return make_hardlink(u, mapped, member, hardlink, err);
	switch (type) {
	case AE_IFREG:
		if (perm & (S_ISUID | S_ISGID))
			return xcc_fail(err, XCC_EUSAGE,
					"%s: member %s refused: a file with the set%s bit",
					u->archive, member, perm & S_ISUID ? "uid" : "gid");
		return write_file(u, a, e, mapped, member, perm & 0777, err);
	case AE_IFDIR:
		/* setgid on a directory only picks the group of new files;
		 * dropped, not refused, as archives made in shared group
		 * directories carry it innocently. */
		return make_dir(u, e, mapped, member, perm, err);
	case AE_IFLNK: {
		const char *target = archive_entry_symlink(e);

		return make_symlink(u, e, mapped, member,
				    target ? target : archive_entry_symlink_utf8(e), err);
	}
	case AE_IFCHR:
	case AE_IFBLK:
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: a device node",
				u->archive, member);
	case AE_IFIFO:
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: a FIFO", u->archive,
				member);
	default:
		return xcc_fail(err, XCC_EUSAGE, "%s: member %s refused: not a file, directory or "
				"link (type %o)", u->archive, member, (unsigned)type);
	}
}

static int extract_all(struct unpacker *u, struct archive *a, struct archive_entry *first,
		       struct xcc_error *err)
{
	struct archive_entry *e = first;
	int r;

	for (;;) {
		if (!e) {
			r = archive_read_next_header(a, &e);
			if (r == ARCHIVE_EOF)
				return 0;
			if (r < ARCHIVE_WARN)
				return archive_fail(err, a, u->archive);
		}
		if (extract_entry(u, a, e, err))
			return -1;
		report_progress(u, 0);
		e = NULL;
	}
}

/* Symlinks made early may lead outside once later members changed what
 * their targets go through; check them all against the final tree. */
static int recheck_symlinks(struct unpacker *u, struct xcc_error *err)
{
	for (size_t i = 0; i < u->symlinks.n; i++) {
		const char *canon = u->symlinks.v[i];
		char target[PATH_MAX], dir[PATH_MAX], resolved[PATH_MAX];
		const char *slash = strrchr(canon, '/');
		ssize_t n = readlinkat(u->destfd, canon, target, sizeof target - 1);
		enum resolve_result r;

		if (n < 0)
			continue; /* replaced by a file since */
		target[n] = '\0';
		snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - canon) : 0, canon);
		r = resolve_beneath(u->destfd, dir, target, 1, resolved);
		if (r != RESOLVE_OK) {
			unlinkat(u->destfd, canon, 0);
			return xcc_fail(err, XCC_EUSAGE,
					"%s: symlink %s -> %s refused: with the archive's later "
					"members in place it %s", u->archive, canon, target,
					resolve_problem(r));
		}
	}
	return 0;
}

/* Directory modes and times go last, as tar does: files written into a
 * directory change its mtime, and a read-only mode would stop them. */
static int finish_dirs(struct unpacker *u, struct xcc_error *err)
{
	for (size_t i = 0; i < u->ndirs; i++) {
		const struct dir_mode *d = &u->dirs[i];
		struct timespec times[2] = { { 0, UTIME_OMIT }, d->mtime };
		const char *path = *d->canon ? d->canon : ".";

		if (fchmodat(u->destfd, path, d->mode, 0) ||
		    utimensat(u->destfd, path, times, AT_SYMLINK_NOFOLLOW))
			return xcc_fail(err, XCC_EFAIL, "%s/%s: %s", u->dest_dir, d->canon,
					strerror(errno));
	}
	return 0;
}

#ifdef HAVE_LIBLZMA_MT
/* ---------------------------------------------------------------------------
 * xz that skips: a .deb's data.tar.xz read through its xz index
 *
 * A sysroot takes a few percent of Debian's nvidia-cuda-dev (cudart, not the
 * 2 GB of math libraries). The tar reader hands the data of the members the
 * map skips to the skip callback below, which, when the skip leaves the xz
 * block being decoded, starts decoding at the block that holds the next
 * member instead: the blocks in between (24 MiB each in Debian's packages)
 * are never decoded. Only for multi-block data in a single xz stream; the
 * other cases go through the decoders above.
 */
#define XZ_SEEK_IN (64 * 1024)

struct xz_seek {
	int fd;
	uint64_t base, size;   /* the xz stream's offset and size in the file */
	lzma_index *idx;
	lzma_stream_flags flags;
	lzma_index_iter it;    /* the block being decoded */
	lzma_stream lz;
	int block_open;
	uint64_t in_off, in_end; /* file offsets: next compressed byte, block end */
	uint64_t out_pos;      /* uncompressed offset of the next byte handed out */
	uint64_t discard;      /* decoded bytes to drop before out_pos */
	/* liblzma's block decoder keeps a pointer to this and reads it while
	 * decoding: it must live as long as the decoder, not on a stack. */
	lzma_block block;
	uint8_t in[XZ_SEEK_IN];
	uint8_t out[XZ_OUT_BLOCK];
};

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* Read the stream's header flags and index; 0 when the data is one xz
 * stream of several blocks, -1 otherwise (then it is decoded as a whole). */
static int xz_seek_index(struct xz_seek *x)
{
	uint8_t head[LZMA_STREAM_HEADER_SIZE], foot[LZMA_STREAM_HEADER_SIZE];
	lzma_stream_flags footer;
	uint64_t memlimit = UINT64_MAX;
	size_t pos = 0;
	uint8_t *ibuf;
	int rc = -1;

	if (x->size < 2 * LZMA_STREAM_HEADER_SIZE ||
	    pread_all(x->fd, head, sizeof head, x->base) ||
	    lzma_stream_header_decode(&x->flags, head) != LZMA_OK ||
	    pread_all(x->fd, foot, sizeof foot, x->base + x->size - sizeof foot) ||
	    lzma_stream_footer_decode(&footer, foot) != LZMA_OK ||
	    lzma_stream_flags_compare(&x->flags, &footer) != LZMA_OK ||
	    footer.backward_size > x->size - 2 * LZMA_STREAM_HEADER_SIZE)
		return -1;
	ibuf = xmalloc(footer.backward_size);
	if (pread_all(x->fd, ibuf, footer.backward_size,
		      x->base + x->size - sizeof foot - footer.backward_size) == 0 &&
	    lzma_index_buffer_decode(&x->idx, &memlimit, NULL, ibuf, &pos,
				     footer.backward_size) == LZMA_OK &&
	    lzma_index_block_count(x->idx) > 1 &&
	    lzma_index_total_size(x->idx) + footer.backward_size + 2 * LZMA_STREAM_HEADER_SIZE ==
		    x->size)
		rc = 0;
	free(ibuf);
	return rc;
}

/* Start decoding at the block holding uncompressed offset x->out_pos. */
static int xz_seek_open_block(struct xz_seek *x, struct archive *inner)
{
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	lzma_block *bp = &x->block;
	uint8_t header[LZMA_BLOCK_HEADER_SIZE_MAX];
	uint64_t off;
	lzma_ret r;

	lzma_index_iter_init(&x->it, x->idx);
	if (lzma_index_iter_locate(&x->it, x->out_pos))
		return 1; /* past the end */
	off = x->base + x->it.block.compressed_file_offset;
	if (pread_all(x->fd, header, 1, off))
		goto broken;
	memset(bp, 0, sizeof *bp);
	bp->version = 1;
	bp->check = x->flags.check;
	bp->filters = filters;
	bp->header_size = lzma_block_header_size_decode(header[0]);
	if (header[0] == 0 || pread_all(x->fd, header, bp->header_size, off) ||
	    lzma_block_header_decode(bp, NULL, header) != LZMA_OK)
		goto broken;
	r = lzma_block_compressed_size(bp, x->it.block.unpadded_size);
	if (r == LZMA_OK)
		r = lzma_block_decoder(&x->lz, bp);
	/* The decoder keeps its own copy of the filter options. */
	for (size_t i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++)
		free(filters[i].options);
	bp->filters = NULL; /* a stack array: nothing may read it from now on */
	if (r != LZMA_OK) {
		archive_set_error(inner, EIO, "%s", lzma_problem(r));
		return -1;
	}
	x->in_off = off + bp->header_size;
	x->in_end = off + x->it.block.total_size;
	x->lz.avail_in = 0;
	x->discard = x->out_pos - x->it.block.uncompressed_file_offset;
	x->block_open = 1;
	return 0;
broken:
	archive_set_error(inner, EIO, "corrupt xz block header");
	return -1;
}

static la_ssize_t xz_seek_read(struct archive *inner, void *arg, const void **buf)
{
	struct xz_seek *x = arg;

	for (;;) {
		size_t made;
		lzma_ret r;

		if (!x->block_open) {
			int o = xz_seek_open_block(x, inner);

			if (o)
				return o > 0 ? 0 : -1;
		}
		if (!x->lz.avail_in && x->in_off < x->in_end) {
			size_t n = x->in_end - x->in_off < sizeof x->in ?
				   (size_t)(x->in_end - x->in_off) : sizeof x->in;

			if (pread_all(x->fd, x->in, n, x->in_off)) {
				archive_set_error(inner, EIO, "truncated xz data");
				return -1;
			}
			x->lz.next_in = x->in;
			x->lz.avail_in = n;
			x->in_off += n;
		}
		x->lz.next_out = x->out;
		x->lz.avail_out = sizeof x->out;
		r = lzma_code(&x->lz, LZMA_RUN);
		if (r == LZMA_STREAM_END)
			x->block_open = 0;
		else if (r != LZMA_OK || (!x->lz.avail_in && x->in_off >= x->in_end &&
					  x->lz.avail_out == sizeof x->out)) {
			archive_set_error(inner, EIO, "%s",
					  lzma_problem(r == LZMA_OK ? LZMA_BUF_ERROR : r));
			return -1;
		}
		made = sizeof x->out - x->lz.avail_out;
		if (x->discard >= made) {
			x->discard -= made;
			continue;
		}
		*buf = x->out + x->discard;
		made -= (size_t)x->discard;
		x->discard = 0;
		x->out_pos += made;
		return (la_ssize_t)made;
	}
}

static la_int64_t xz_seek_skip(struct archive *inner, void *arg, la_int64_t request)
{
	struct xz_seek *x = arg;
	uint64_t block_end = x->it.block.uncompressed_file_offset + x->it.block.uncompressed_size;

	(void)inner;
	if (request <= 0)
		return 0;
	/* Within the block being decoded: decoded and dropped, as the block
	 * must be decoded up to the next member anyway. */
	if (x->block_open && x->out_pos + (uint64_t)request < block_end)
		x->discard += (uint64_t)request;
	else
		x->block_open = 0;
	x->out_pos += (uint64_t)request;
	return request;
}

/* How far into the file decoding has gone (skipped blocks count as read). */
static uint64_t xz_seek_file_pos(void *arg)
{
	const struct xz_seek *x = arg;

	return x->in_off ? x->in_off : x->base;
}

/* Extract the data.tar.xz member the outer reader of a .deb stands on
 * through its index. 1: not applicable (not a multi-block stream the
 * file holds as is), nothing read; 0 done; -1 failed. */
static int extract_xz_seeking(struct unpacker *u, struct archive *outer,
			      struct archive_entry *member, struct xcc_error *err)
{
	struct xz_seek *x;
	struct archive *inner;
	char *what;
	static const uint8_t magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	uint8_t head[6];
	la_int64_t hpos = archive_read_header_position(outer);
	int rc = 1;

	if (hpos < 0 || !archive_entry_size_is_set(member))
		return 1;
	x = xmalloc(sizeof *x);
	memset(x, 0, offsetof(struct xz_seek, in));
	x->lz = (lzma_stream)LZMA_STREAM_INIT;
	/* An ar member's data follows its 60-byte header. */
	x->base = (uint64_t)hpos + 60;
	x->size = (uint64_t)archive_entry_size(member);
	x->fd = open(u->archive, O_RDONLY | O_CLOEXEC);
	if (x->fd < 0 || pread_all(x->fd, head, sizeof head, x->base) ||
	    memcmp(head, magic, sizeof magic) || xz_seek_index(x))
		goto out;
	what = xasprintf("%s: member %s", u->archive, archive_entry_pathname(member));
	inner = archive_read_new();
	archive_read_support_format_tar(inner);
	archive_read_set_callback_data(inner, x);
	archive_read_set_read_callback(inner, xz_seek_read);
	archive_read_set_skip_callback(inner, xz_seek_skip);
	if (archive_read_open1(inner) != ARCHIVE_OK)
		rc = xcc_fail(err, XCC_EFAIL, "%s: %s", what, archive_error_string(inner) ?
			      archive_error_string(inner) : "unreadable");
	else {
		u->file_pos = xz_seek_file_pos;
		u->file_pos_arg = x;
		rc = extract_all(u, inner, NULL, err);
		u->file_pos = NULL;
	}
	archive_read_free(inner);
	free(what);
out:
	if (x->fd >= 0)
		close(x->fd);
	if (x->idx)
		lzma_index_end(x->idx, NULL);
	lzma_end(&x->lz);
	free(x);
	return rc;
}
#endif

static int extract_deb(struct unpacker *u, struct archive *outer, struct xcc_error *err)
{
	const char *name;
	struct archive *inner;
	struct archive_entry *member;
	int rc;

	if (find_deb_member(outer, u->archive, "data.tar", &name, &member, err))
		return -1;
#ifdef HAVE_LIBLZMA_MT
	/* With a map that may skip members, the blocks only they occupy need
	 * no decoding; keeping everything, the threads decode it sooner. */
	if (strcmp(name, "data.tar.xz") == 0 && u->o && u->o->map) {
		rc = extract_xz_seeking(u, outer, member, err);
		if (rc <= 0)
			return rc;
	}
	if (strcmp(name, "data.tar.xz") == 0 && xz_threads() > 1) {
		struct xz_source *x;
		char *what = xasprintf("%s: member %s", u->archive, name);

		inner = open_xz_tar(outer, XZ_MEMLIMIT_DEB, what, &x, err);
		if (!inner) {
			free(what);
			return -1;
		}
		rc = extract_all(u, inner, NULL, err);
		if (!rc)
			rc = xz_drain(inner, x, what, err);
		free(what);
		archive_read_free(inner);
		xz_source_free(x);
		return rc;
	}
#endif
	inner = open_member(outer, u->archive, name, err);
	if (!inner)
		return -1;
	rc = extract_all(u, inner, NULL, err);
	archive_read_free(inner);
	return rc;
}

#ifdef HAVE_LIBLZMA_MT
/* A .tar.xz again from its start, this time as raw bytes for liblzma: *ap
 * (already past the first header) is replaced by the raw reader. */
static int extract_xz_file(struct unpacker *u, struct archive **ap, struct xcc_error *err)
{
	struct archive *raw = archive_read_new();
	struct archive_entry *e;
	struct archive *inner;
	struct xz_source *x;
	int rc;

	archive_read_free(*ap);
	*ap = raw;
	u->outer = raw;
	archive_read_support_format_raw(raw);
	if (archive_read_open_filename(raw, u->archive, READ_BLOCK) != ARCHIVE_OK ||
	    archive_read_next_header(raw, &e) != ARCHIVE_OK)
		return archive_fail(err, raw, u->archive);
	inner = open_xz_tar(raw, XZ_MEMLIMIT_FILE, u->archive, &x, err);
	if (!inner)
		return -1;
	rc = extract_all(u, inner, NULL, err);
	if (!rc)
		rc = xz_drain(inner, x, u->archive, err);
	archive_read_free(inner);
	xz_source_free(x);
	return rc;
}
#endif

int unpack_archive(const char *archive, const char *dest_dir, const struct unpack_opts *o,
		   struct unpack_stats *stats, struct xcc_error *err)
{
	struct unpack_stats local_stats;
	struct unpacker u = {
		.archive = archive, .dest_dir = dest_dir, .o = o,
		.stats = stats ? stats : &local_stats, .symlinks = STRVEC_INIT, .parentfd = -1,
	};
	struct archive *a;
	struct archive_entry *first;
	enum package_kind kind;
	int rc;

	memset(u.stats, 0, sizeof *u.stats);
	u.destfd = open(dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (u.destfd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", dest_dir, strerror(errno));
	if (open_package(archive, &a, &first, &kind, err)) {
		close(u.destfd);
		return -1;
	}
	u.outer = a;
	if (kind == PACKAGE_DEB)
		rc = extract_deb(&u, a, err);
#ifdef HAVE_LIBLZMA_MT
	else if (kind == PACKAGE_REDIST && archive_filter_code(a, 0) == ARCHIVE_FILTER_XZ &&
		 xz_threads() > 1)
		rc = extract_xz_file(&u, &a, err);
#endif
	else
		rc = extract_all(&u, a, first, err);
	if (!rc)
		rc = recheck_symlinks(&u, err);
	if (!rc)
		rc = finish_dirs(&u, err);
	if (!rc)
		report_progress(&u, 1);
	archive_read_free(a);
	forget_parent(&u);
	for (size_t i = 0; i < u.ndirs; i++)
		free(u.dirs[i].canon);
	free(u.dirs);
	strvec_free(&u.symlinks);
	close(u.destfd);
	return rc;
}

/* ---------------------------------------------------------------------------
 * Identification
 */

/* uname-style names, the same spelling package architectures map to
 * (amd64 -> x86_64, ppc64el -> ppc64le), so that a package's machine and its
 * ELF files' machines compare equal. */
static const char *package_machine_name(unsigned machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_AARCH64:
		return "aarch64";
	case EM_PPC64:
		return "ppc64le";
	case EM_ARM:
		return "arm";
	case EM_386:
		return "i686";
	default:
		return NULL;
	}
}

/* The machine of an ELF file from its first bytes (read from the current
 * member), or NULL when it is not ELF. */
static char *member_elf_machine(struct archive *a)
{
	unsigned char head[64];
	la_ssize_t got = 0, n;
	Elf *elf;
	GElf_Ehdr ehdr;
	char *machine = NULL;

	while (got < (la_ssize_t)sizeof head &&
	       (n = archive_read_data(a, head + got, sizeof head - (size_t)got)) > 0)
		got += n;
	if (got < 16 || !elf_is_elf(head, (size_t)got))
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)head, (size_t)got);
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &ehdr)) {
		const char *name = package_machine_name(ehdr.e_machine);

		machine = name ? xstrdup(name) : xasprintf("elf-machine-%u", ehdr.e_machine);
	}
	elf_end(elf);
	return machine;
}

/* Read the current member whole (small files only), NUL-terminated. */
static char *read_small_member(struct archive *a, const char *path, const char *member,
			       struct xcc_error *err)
{
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);
	la_ssize_t n;

	while ((n = archive_read_data(a, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap) {
			if (cap >= MAX_SMALL_MEMBER) {
				free(buf);
				xcc_fail(err, XCC_EUSAGE, "%s: %s is larger than %d bytes", path,
					 member, MAX_SMALL_MEMBER);
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	if (n < 0) {
		free(buf);
		archive_fail(err, a, path);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* The value of an RFC 822-style "Key: value" field (deb control, wheel
 * METADATA and WHEEL), or NULL. Only the header part counts. */
static char *header_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *eol = strchrnul(line, '\n');

		if (line == eol || (*line == '\r' && line + 1 == eol))
			break; /* end of the headers */
		if (strncasecmp(line, key, klen) == 0 && line[klen] == ':') {
			const char *v = line + klen + 1;
			const char *end = eol;

			while (*v == ' ' || *v == '\t')
				v++;
			while (end > v && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
				end--;
			return strndup(v, (size_t)(end - v));
		}
		line = *eol ? eol + 1 : NULL;
	}
	return NULL;
}

static const char *deb_arch_machine(const char *arch)
{
	static const char *const map[][2] = {
		{ "amd64", "x86_64" }, { "arm64", "aarch64" }, { "all", "all" },
		{ "armhf", "arm" },    { "i386", "i686" },     { "ppc64el", "ppc64le" },
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(arch, map[i][0]) == 0)
			return map[i][1];
	return arch;
}

static int identify_deb(struct archive *outer, const char *path, struct package_info *info,
			struct xcc_error *err)
{
	const char *name;
	struct archive *inner;
	struct archive_entry *e;
	char *control = NULL, *arch;
	char norm[PATH_MAX];
	int r;

	if (find_deb_member(outer, path, "control.tar", &name, NULL, err))
		return -1;
	inner = open_member(outer, path, name, err);
	if (!inner)
		return -1;
	while (header_ok(r = archive_read_next_header(inner, &e))) {
		if (normalize_member(entry_path(e) ? entry_path(e) : "", norm, sizeof norm) == 0 &&
		    strcmp(norm, "control") == 0) {
			control = read_small_member(inner, path, "control", err);
			break;
		}
	}
	if (!control) {
		if (r < ARCHIVE_WARN)
			archive_fail(err, inner, path);
		else if (r == ARCHIVE_EOF)
			xcc_fail(err, XCC_EUSAGE, "%s: the Debian package has no control file",
				 path);
		archive_read_free(inner);
		return -1;
	}
	archive_read_free(inner);
	info->name = header_field(control, "Package");
	info->version = header_field(control, "Version");
	arch = header_field(control, "Architecture");
	free(control);
	if (!info->name || !info->version || !arch) {
		free(arch);
		return xcc_fail(err, XCC_EUSAGE, "%s: the control file has no %s field", path,
				!info->name ? "Package" : !info->version ? "Version" :
				"Architecture");
	}
	info->machine = xstrdup(deb_arch_machine(arch));
	free(arch);
	return 0;
}

/* The machine a wheel platform tag names; "any" gives NULL. */
static char *wheel_platform_machine(const char *plat)
{
	static const char *const suffixes[][2] = {
		{ "_x86_64", "x86_64" }, { "_aarch64", "aarch64" }, { "_ppc64le", "ppc64le" },
		{ "_armv7l", "arm" },    { "_i686", "i686" },
	};
	size_t n = strlen(plat);

	if (strcmp(plat, "any") == 0)
		return NULL;
	if (strncmp(plat, "win", 3) == 0 || strncmp(plat, "macosx", 6) == 0)
		return xstrdup(plat); /* nothing a Linux sysroot can use */
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t s = strlen(suffixes[i][0]);

		if (n > s && strcmp(plat + n - s, suffixes[i][0]) == 0)
			return xstrdup(suffixes[i][1]);
	}
	return xstrdup(plat);
}

/* From WHEEL's Tag lines; NULL for pure "any" wheels. */
static int wheel_tags_machine(const char *wheel, const char *path, char **machine,
			      struct xcc_error *err)
{
	*machine = NULL;
	for (const char *line = wheel; line && *line;) {
		const char *eol = strchrnul(line, '\n');

		if (strncasecmp(line, "Tag:", 4) == 0) {
			char *tag = strndup(line + 4, (size_t)(eol - line - 4));
			char *t = tag, *plat, *m, *end;

			while (*t == ' ' || *t == '\t')
				t++;
			end = t + strlen(t);
			while (end > t && (end[-1] == '\r' || end[-1] == ' '))
				*--end = '\0';
			plat = strrchr(t, '-');
			m = wheel_platform_machine(plat ? plat + 1 : t);
			free(tag);
			if (m && *machine && strcmp(m, *machine) != 0) {
				free(m);
				free(*machine);
				*machine = NULL;
				return xcc_fail(err, XCC_EUSAGE,
						"%s: the wheel's tags name two machines", path);
			}
			if (m && !*machine)
				*machine = m;
			else
				free(m);
		}
		line = *eol ? eol + 1 : NULL;
	}
	return 0;
}

/* PEP 427 spelling of a distribution name: runs of "-_." become "_". */
static char *wheel_name(const char *name)
{
	char *out = xmalloc(strlen(name) + 1), *o = out;

	for (const char *p = name; *p; p++) {
		if (*p == '-' || *p == '_' || *p == '.') {
			if (o == out || o[-1] != '_')
				*o++ = '_';
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

static int is_dist_info_file(const char *member, const char *file)
{
	const char *slash = strchr(member, '/');
	size_t dlen;

	if (!slash || strcmp(slash + 1, file) != 0)
		return 0;
	dlen = (size_t)(slash - member);
	return dlen > 10 && memcmp(slash - 10, ".dist-info", 10) == 0;
}

static int identify_wheel(struct archive *a, struct archive_entry *e, const char *path,
			  struct package_info *info, struct xcc_error *err)
{
	char *wheel = NULL, *metadata = NULL, *elf_machine = NULL, *tag_machine = NULL;
	char norm[PATH_MAX];
	int r = ARCHIVE_OK, rc = -1;

	for (; header_ok(r); r = archive_read_next_header(a, &e)) {
		const char *raw = entry_path(e);

		if (!raw || normalize_member(raw, norm, sizeof norm) ||
		    archive_entry_filetype(e) != AE_IFREG)
			continue;
		if (!wheel && is_dist_info_file(norm, "WHEEL")) {
			if (!(wheel = read_small_member(a, path, norm, err)))
				goto out;
		} else if (!metadata && is_dist_info_file(norm, "METADATA")) {
			if (!(metadata = read_small_member(a, path, norm, err)))
				goto out;
		} else if (!elf_machine && (strstr(norm, ".so") || strncmp(norm, "bin/", 4) == 0 ||
					    strstr(norm, "/bin/"))) {
			elf_machine = member_elf_machine(a);
		}
	}
	if (r != ARCHIVE_EOF) {
		archive_fail(err, a, path);
		goto out;
	}
	if (!wheel || !metadata) {
		xcc_fail(err, XCC_EUSAGE, "%s: a zip without *.dist-info/%s: not a wheel", path,
			 !wheel ? "WHEEL" : "METADATA");
		goto out;
	}
	if (wheel_tags_machine(wheel, path, &tag_machine, err))
		goto out;
	info->name = header_field(metadata, "Name");
	info->version = header_field(metadata, "Version");
	if (!info->name || !info->version) {
		xcc_fail(err, XCC_EUSAGE, "%s: the wheel's METADATA has no %s", path,
			 !info->name ? "Name" : "Version");
		goto out;
	}
	{
		char *n = wheel_name(info->name);

		free(info->name);
		info->name = n;
	}
	info->machine = tag_machine ? tag_machine : elf_machine ? elf_machine : xstrdup("all");
	if (info->machine == tag_machine)
		tag_machine = NULL;
	else if (info->machine == elf_machine)
		elf_machine = NULL;
	rc = 0;
out:
	free(wheel);
	free(metadata);
	free(elf_machine);
	free(tag_machine);
	return rc;
}

static const char *redist_tag_machine(const char *name_tag, size_t *tag_len)
{
	static const char *const tags[][2] = {
		{ "linux-x86_64", "x86_64" },   { "linux-sbsa", "aarch64" },
		{ "linux-aarch64", "aarch64" }, { "linux-ppc64le", "ppc64le" },
		{ "windows-x86_64", "windows-x86_64" },
	};
	size_t n = strlen(name_tag);

	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
		size_t t = strlen(tags[i][0]);

		if (n > t + 1 && name_tag[n - t - 1] == '-' &&
		    strcmp(name_tag + n - t, tags[i][0]) == 0) {
			*tag_len = t;
			return tags[i][1];
		}
	}
	return NULL;
}

static int identify_redist(struct archive *a, struct archive_entry *e, const char *path,
			   struct package_info *info, struct xcc_error *err)
{
	char top[PATH_MAX], *slash, *dash, *name_tag;
	const char *machine, *raw = entry_path(e);
	size_t n, tag_len = 0;
	int r;

	/* A leading "./" entry names no directory; the next one does. */
	while (raw && normalize_member(raw, top, sizeof top) == 0 && !*top) {
		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			return xcc_fail(err, XCC_EUSAGE, "%s: an empty archive", path);
		if (!header_ok(r))
			return archive_fail(err, a, path);
		raw = entry_path(e);
	}
	if (!raw || normalize_member(raw, top, sizeof top))
		return xcc_fail(err, XCC_EUSAGE, "%s: unexpected first member %s", path,
				raw ? raw : "(unreadable)");
	slash = strchr(top, '/');
	if (slash)
		*slash = '\0';
	n = strlen(top);
	dash = NULL;
	if (n > 8 && strcmp(top + n - 8, "-archive") == 0) {
		top[n - 8] = '\0';
		dash = strrchr(top, '-');
	}
	if (!dash)
		return xcc_fail(err, XCC_EUSAGE,
				"%s: not a .deb, a wheel or a redist archive: its top directory "
				"%s is not <name>-<platform>-<version>-archive", path, top);
	*dash = '\0';
	name_tag = top;
	info->version = xstrdup(dash + 1);
	machine = redist_tag_machine(name_tag, &tag_len);
	if (machine) {
		info->name = strndup(name_tag, strlen(name_tag) - tag_len - 1);
		info->machine = xstrdup(machine);
		return 0;
	}
	/* An unusual platform: the name ends before "-linux-" if there is
	 * one, and the files themselves say what machine they are for. */
	{
		char *linux_tag = strstr(name_tag, "-linux-");

		info->name = linux_tag ? strndup(name_tag, (size_t)(linux_tag - name_tag))
				       : xstrdup(name_tag);
	}
	do {
		if (archive_entry_filetype(e) == AE_IFREG && !archive_entry_hardlink(e) &&
		    (info->machine = member_elf_machine(a)))
			return 0;
	} while (header_ok(r = archive_read_next_header(a, &e)));
	if (r != ARCHIVE_EOF)
		return archive_fail(err, a, path);
	info->machine = xstrdup("all");
	return 0;
}

int package_identify(const char *path, struct package_info *info, struct xcc_error *err)
{
	struct archive *a;
	struct archive_entry *first;
	int rc;

	memset(info, 0, sizeof *info);
	if (open_package(path, &a, &first, &info->kind, err))
		return -1;
	switch (info->kind) {
	case PACKAGE_DEB:
		rc = identify_deb(a, path, info, err);
		break;
	case PACKAGE_WHEEL:
		rc = identify_wheel(a, first, path, info, err);
		break;
	default:
		rc = identify_redist(a, first, path, info, err);
		break;
	}
	archive_read_free(a);
	if (rc) {
		enum package_kind kind = info->kind;

		package_info_free(info);
		info->kind = kind;
	}
	return rc;
}

void package_info_free(struct package_info *info)
{
	free(info->name);
	free(info->version);
	free(info->machine);
	info->name = info->version = info->machine = NULL;
}
