/* Streaming extraction of one package under a path policy.
 *
 * Every path is resolved by hand, one component at a time from the
 * destination directory, following symlinks that already exist there, so
 * that a member can never reach outside through a symlink extracted before
 * it. The directory a file is finally created in is opened with
 * openat2(RESOLVE_BENEATH) where the kernel has it, so a mistake in the
 * resolver still cannot write outside.
 *
 * Why not libarchive's archive_write_disk with ARCHIVE_EXTRACT_SECURE_*:
 * those flags refuse "..", absolute paths and writing through a symlink,
 * but they check paths with lstat from the process's working directory
 * (a race with anything else changing the tree, and no openat2 safety net),
 * they cannot say where a member goes (the sysroot's layout maps every
 * member to another path, or skips it, which archive_write_disk has no hook
 * for), they do not refuse a symlink whose target leads outside (only
 * writing through one), nor hardlinks to outside, device nodes, FIFOs or
 * setuid bits as a whole-archive failure, and a refusal there is a warning
 * per entry rather than a failed extraction that names the member. */
#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif
#endif

#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/beneath.h"
#include "pkg/package.h"
#include "pkg/unpack.h"
#include "pkg/unpack_same.h"
#include "pkg/xz.h"

#define PROGRESS_STEP (4u << 20)

/* ---------------------------------------------------------------------------
 * Paths
 */

/* ---------------------------------------------------------------------------
 * Extraction
 */

/* What an archive's mode becomes in the tree: a sysroot's headers and
 * libraries are trusted by every later build, so no one but their owner
 * (whoever runs cuda-xcc; an archive's owner is never kept) may change
 * them. Group and other write go; read and execute bits stay as packed,
 * as a tool's execute bit matters. */
static mode_t tree_perm(mode_t archive_perm)
{
	return archive_perm & 0777 & ~(mode_t)(S_IWGRP | S_IWOTH);
}

struct dir_mode {
	char *canon;
	mode_t mode;
	struct timespec mtime; /* tv_nsec UTIME_OMIT when the archive has none */
};

struct unpacker {
	const char *archive; /* its name, in messages */
	const char *src;     /* where it is read from */
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
	if (done_all && stat(u->src, &st) == 0)
		done = (uint64_t)st.st_size;
	if (done_all || done >= u->progress_next) {
		u->o->progress(u->o->progress_arg, done);
		u->progress_next = done + PROGRESS_STEP;
	}
}

/* Whether the caller asked to give up (a signal); recorded in err. */
static int stopped(struct unpacker *u, struct xcc_error *err)
{
	int sig = u->o && u->o->stop ? atomic_load(u->o->stop) : 0;

	if (!sig)
		return 0;
	xcc_fail(err, 128 + sig, "%s: extraction interrupted", u->archive);
	return 1;
}

/* A newline in a name or a link target would split sysroot.files, which
 * holds one entry a line, and verify would fail on the tree create made. */
static int refuse_newline(struct unpacker *u, const char *member, const char *what,
			  const char *s, struct xcc_error *err)
{
	char *m, *t;

	if (!strchr(s, '\n'))
		return 0;
	m = unpack_shown_name(member);
	t = unpack_shown_name(s);
	if (s == member)
		xcc_fail(err, XCC_EFAIL, "%s: member \"%s\" refused: a newline in its name; "
			 "a sysroot lists one entry a line", u->archive, m);
	else
		xcc_fail(err, XCC_EFAIL, "%s: member \"%s\" refused: a newline in its %s \"%s\"; "
			 "a sysroot lists one entry a line", u->archive, m, what, t);
	free(m);
	free(t);
	return -1;
}

/* ---------------------------------------------------------------------------
 * Paths more than one archive makes (unpack_opts.claim)
 */

static enum unpack_claim claim(struct unpacker *u, const char *canon)
{
	return u->o && u->o->claim ? u->o->claim(u->o->claim_arg, canon) : UNPACK_MAKE;
}

static void release(struct unpacker *u, const char *canon)
{
	if (u->o && u->o->release)
		u->o->release(u->o->claim_arg, canon);
}

static void differs(struct unpacker *u, const char *canon, const char *member, const char *how)
{
	if (u->o && u->o->differs)
		u->o->differs(u->o->claim_arg, canon, member, how);
}

/* A regular member against what another archive made at its path. */
static int compare_file(struct unpacker *u, struct archive *a, struct archive_entry *e,
			int dirfd, const char *leaf, const char *canon, const char *member,
			mode_t perm, struct xcc_error *err)
{
	int fd = openat(dirfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), same;
	uint64_t size = archive_entry_size_is_set(e) && archive_entry_size(e) > 0 ?
			(uint64_t)archive_entry_size(e) : 0;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		differs(u, canon, member, "a file in one, something else in the other");
		return 0;
	}
	if ((st.st_mode & 0777) != perm) {
		close(fd);
		differs(u, canon, member, "their modes differ");
		return 0;
	}
	same = (uint64_t)st.st_size != size ? 0 : same_data(a, fd, size, u->o->stop);
	if (same == 1)
		same_keep_later_mtime(fd, &st, e);
	close(fd);
	if (same == SAME_STOPPED && stopped(u, err))
		return -1;
	if (same < 0) {
		package_archive_fail(err, a, u->archive);
		return xcc_error_prefix(err, "member %s", member);
	}
	if (!same)
		differs(u, canon, member, "their contents differ");
	return 0;
}

/* ---------------------------------------------------------------------------
 * The expansion bound: an archive of a few KB can hold gigabytes of zeros
 * or millions of empty files.
 */

/* dpkg's unit for Installed-Size: what a .deb declares compares as is. */
#define CHARGE_BLOCK 1024u

static uint64_t in_blocks(uint64_t bytes)
{
	uint64_t n = bytes / CHARGE_BLOCK + (bytes % CHARGE_BLOCK != 0);

	return (n ? n : 1) * CHARGE_BLOCK;
}

/* Count an entry that now takes `bytes` (it took *charged so far) against
 * the bound. */
static int charge(struct unpacker *u, uint64_t bytes, uint64_t *charged, const char *member,
		  struct xcc_error *err)
{
	uint64_t want = in_blocks(bytes), max = u->o ? u->o->max_bytes : 0;

	if (want <= *charged)
		return 0;
	if (max && u->stats->charged + (want - *charged) > max)
		return xcc_fail(err, XCC_EFAIL, "%s: refused: it expands to more than %.1f MB "
				"(at member %s)%s%s", u->archive, (double)max / 1e6, member,
				u->o->max_bytes_note ? "; " : "",
				u->o->max_bytes_note ? u->o->max_bytes_note : "");
	u->stats->charged += want - *charged;
	*charged = want;
	return 0;
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
				return xcc_fail(err, XCC_EFAIL,
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
	char *key = slash ? xstrndup(mapped, (size_t)(slash - mapped)) : xstrdup("");
	enum resolve_result r;

	*leaf = slash ? slash + 1 : mapped;
	if (u->parent_key && strcmp(key, u->parent_key) == 0) {
		free(key);
		return u->parentfd;
	}
	forget_parent(u);
	r = resolve_beneath(u->destfd, "", key, 1, u->parent_canon);
	if (r != RESOLVE_OK) {
		xcc_fail(err, XCC_EFAIL, "%s: member %s refused: its directory %s %s",
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
		return xcc_fail(err, XCC_EFAIL,
				"%s: member %s refused: it would replace a directory", u->archive,
				member);
	if (unlinkat(dirfd, leaf, 0) && errno != ENOENT)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s: cannot replace the old one: %s",
				u->archive, member, strerror(errno));
	return 0;
}

static int make_file(struct unpacker *u, struct archive *a, struct archive_entry *e,
		     int dirfd, const char *leaf, const char *mapped, const char *member,
		     mode_t perm, struct xcc_error *err)
{
	int fd = -1;
	uint64_t written = 0;
	int64_t end = 0;
	const void *buf;
	size_t size;
	la_int64_t offset;
	int r;
	struct timespec times[2];
	uint64_t charged = 0;

	/* What the member says it holds is refused before a byte is written;
	 * a member that holds more than it says is caught as it grows. */
	if (charge(u, archive_entry_size_is_set(e) && archive_entry_size(e) > 0 ?
			      (uint64_t)archive_entry_size(e) : 0, &charged, member, err))
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

		if (stopped(u, err))
			goto fail;
		if (offset >= 0 && charge(u, (uint64_t)offset + size, &charged, member, err))
			goto fail;

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
		package_archive_fail(err, a, u->archive);
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

static int write_file(struct unpacker *u, struct archive *a, struct archive_entry *e,
		      const char *mapped, const char *member, mode_t perm, struct xcc_error *err)
{
	const char *leaf;
	int dirfd = open_parent(u, mapped, member, &leaf, err), rc = 0;
	char canon[PATH_MAX];

	if (dirfd < 0)
		return -1;
	if (canon_join(canon, u->parent_canon, leaf))
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: a path too long",
				u->archive, member);
	switch (claim(u, canon)) {
	case UNPACK_SKIP:
		u->stats->skipped++;
		break;
	case UNPACK_COMPARE:
		rc = compare_file(u, a, e, dirfd, leaf, canon, member, perm, err);
		break;
	default:
		rc = make_file(u, a, e, dirfd, leaf, mapped, member, perm, err);
		break;
	}
	release(u, canon);
	return rc;
}

static int make_dir(struct unpacker *u, struct archive_entry *e, const char *mapped,
		    const char *member, mode_t perm, struct xcc_error *err)
{
	char canon[PATH_MAX];
	enum resolve_result r = resolve_beneath(u->destfd, "", mapped, 1, canon);

	if (r != RESOLVE_OK)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: the directory %s %s",
				u->archive, member, mapped, resolve_problem(r));
	if (make_dirs(u, canon, member, err))
		return -1;
	XGROW(u->dirs, u->ndirs + 1, u->dirs_cap);
	/* The owner keeps full access so that the rest of the archive, and
	 * later a cleanup, can write and delete inside it. */
	u->dirs[u->ndirs].canon = xstrdup(canon);
	u->dirs[u->ndirs].mode = tree_perm(perm) | 0700;
	u->dirs[u->ndirs].mtime.tv_sec = archive_entry_mtime(e);
	u->dirs[u->ndirs].mtime.tv_nsec =
		archive_entry_mtime_is_set(e) ? archive_entry_mtime_nsec(e) : UTIME_OMIT;
	u->ndirs++;
	return 0;
}

static int place_symlink(struct unpacker *u, int dirfd, const char *leaf, const char *target,
			 const char *member, struct xcc_error *err);

static int make_symlink(struct unpacker *u, struct archive_entry *e, const char *mapped,
			const char *member, const char *target, struct xcc_error *err)
{
	const char *leaf;
	int dirfd, made;
	char canon[PATH_MAX], resolved[PATH_MAX];
	enum resolve_result r;
	enum unpack_claim verdict;
	const char *how;
	int as_data = u->o && u->o->root_links;

	if (!target || !*target)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: a symlink with no target",
				u->archive, member);
	if (target[0] == '/' && !as_data)
		return xcc_fail(err, XCC_EFAIL,
				"%s: member %s refused: a symlink to the absolute path %s",
				u->archive, member, target);
	if (refuse_newline(u, member, "target", target, err))
		return -1;
	dirfd = open_parent(u, mapped, member, &leaf, err);
	if (dirfd < 0)
		return -1;
	r = target[0] == '/' ? RESOLVE_ABSOLUTE
			     : resolve_beneath(u->destfd, u->parent_canon, target, 1, resolved);
	if (r != RESOLVE_OK && !(as_data && (r == RESOLVE_ABSOLUTE || r == RESOLVE_ESCAPES)))
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: its target %s %s",
				u->archive, member, target, resolve_problem(r));
	if (canon_join(canon, u->parent_canon, leaf))
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: a path too long",
				u->archive, member);
	verdict = claim(u, canon);
	if (verdict == UNPACK_COMPARE && (how = same_symlink(dirfd, leaf, target)))
		differs(u, canon, member, how);
	if (verdict != UNPACK_MAKE) {
		release(u, canon);
		return 0;
	}
	made = place_symlink(u, dirfd, leaf, target, member, err);
	release(u, canon);
	if (made < 0)
		return -1;
	if (archive_entry_mtime_is_set(e)) {
		struct timespec times[2] = {
			{ 0, UTIME_OMIT }, { archive_entry_mtime(e), archive_entry_mtime_nsec(e) }
		};

		/* Some filesystems have no symlink times; that is no error. */
		utimensat(dirfd, leaf, times, AT_SYMLINK_NOFOLLOW);
	}
	/* A device root's links are the device's to resolve, not checked
	 * against the tree at the end. */
	if (!as_data)
		strvec_push(&u->symlinks, canon);
	return 0;
}

/* symlinkat, replacing a file or symlink there (as tar does). */
static int place_symlink(struct unpacker *u, int dirfd, const char *leaf, const char *target,
			 const char *member, struct xcc_error *err)
{
	int made;

	for (int tries = 0;; tries++) {
		if (clear_leaf(u, dirfd, leaf, member, err))
			return -1;
		made = symlinkat(target, dirfd, leaf) == 0;
		if (made || errno != EEXIST || tries == 2)
			break;
	}
	if (!made)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s: cannot create %s/%s: %s",
				u->archive, member, u->dest_dir, leaf, strerror(errno));
	return 0;
}

/* linkat to the tree's file target, replacing a file or symlink there. */
static int place_hardlink(struct unpacker *u, int dirfd, const char *leaf, const char *target,
			  const char *mapped, const char *member, struct xcc_error *err)
{
	int rc;

	for (int tries = 0;; tries++) {
		rc = clear_leaf(u, dirfd, leaf, member, err);
		if (rc)
			return -1;
		rc = linkat(u->destfd, target, dirfd, leaf, 0);
		if (rc == 0 || errno != EEXIST || tries == 2)
			break;
	}
	if (rc)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s: cannot link %s/%s: %s", u->archive,
				member, u->dest_dir, mapped, strerror(errno));
	u->stats->files++;
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
	enum unpack_claim verdict;
	const char *how;
	struct stat st;

	if (package_normalize_member(link_member, norm, sizeof norm))
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: a hard link to %s",
				u->archive, member, link_member);
	link_mapped = u->o && u->o->map ? u->o->map(u->o->map_arg, norm) : xstrdup(norm);
	if (!link_mapped)
		return xcc_fail(err, XCC_EFAIL,
				"%s: member %s is a hard link to %s, which is not extracted",
				u->archive, member, norm);
	if (package_normalize_member(link_mapped, canon, sizeof canon)) {
		rc = xcc_fail(err, XCC_EFAIL, "%s: member %s: hard link target mapped to %s",
			      u->archive, member, link_mapped);
		free(link_mapped);
		return rc;
	}
	free(link_mapped);
	r = resolve_beneath(u->destfd, "", canon, 0, norm);
	if (r != RESOLVE_OK)
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: its hard link target %s %s",
				u->archive, member, link_member, resolve_problem(r));
	if (fstatat(u->destfd, norm, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return xcc_fail(err, XCC_EFAIL,
				"%s: member %s refused: a hard link to %s, which is not a file "
				"extracted before it", u->archive, member, link_member);
	dirfd = open_parent(u, mapped, member, &leaf, err);
	if (dirfd < 0)
		return -1;
	if (canon_join(canon, u->parent_canon, leaf))
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: a path too long",
				u->archive, member);
	if (strcmp(canon, norm) == 0)
		return 0;
	verdict = claim(u, canon);
	if (verdict == UNPACK_COMPARE && (how = same_hardlink(u->destfd, norm, dirfd, leaf)))
		differs(u, canon, member, how);
	rc = verdict == UNPACK_MAKE ? place_hardlink(u, dirfd, leaf, norm, mapped, member, err) : 0;
	release(u, canon);
	return rc;
}

static int extract_entry(struct unpacker *u, struct archive *a, struct archive_entry *e,
			 struct xcc_error *err)
{
	const char *raw = package_entry_path(e);
	char member[PATH_MAX], mapped[PATH_MAX];
	char *m;
	mode_t perm = archive_entry_perm(e);
	mode_t type = archive_entry_filetype(e);
	const char *hardlink = archive_entry_hardlink(e);
	int rc;

	if (!raw)
		return xcc_fail(err, XCC_EFAIL, "%s: a member with an unreadable name", u->archive);
	if (refuse_newline(u, raw, "name", raw, err) ||
	    (hardlink && refuse_newline(u, raw, "hard link target", hardlink, err)))
		return -1;
	if (package_normalize_member(raw, member, sizeof member))
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: %s", u->archive, raw,
				raw[0] == '/' ? "an absolute path" :
				strlen(raw) >= PATH_MAX ? "a path too long" : "a path with ..");
	if (!*member)
		return 0; /* the archive's "./" */
	m = u->o && u->o->map ? u->o->map(u->o->map_arg, member) : xstrdup(member);
	if (!m) {
		u->stats->skipped++;
		return 0;
	}
	rc = package_normalize_member(m, mapped, sizeof mapped);
	if (rc || !*mapped) {
		rc = xcc_fail(err, XCC_EFAIL, "%s: member %s mapped to the invalid path '%s'",
			      u->archive, member, m);
		free(m);
		return rc;
	}
	free(m);

	if (hardlink || type != AE_IFREG) {
		uint64_t charged = 0;

		if (charge(u, 0, &charged, member, err))
			return -1;
	}
	if (hardlink)
		return make_hardlink(u, mapped, member, hardlink, err);
	switch (type) {
	case AE_IFREG:
		if (perm & (S_ISUID | S_ISGID))
			return xcc_fail(err, XCC_EFAIL,
					"%s: member %s refused: a file with the set%s bit",
					u->archive, member, perm & S_ISUID ? "uid" : "gid");
		return write_file(u, a, e, mapped, member, tree_perm(perm), err);
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
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: a device node",
				u->archive, member);
	case AE_IFIFO:
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: a FIFO", u->archive,
				member);
	default:
		return xcc_fail(err, XCC_EFAIL, "%s: member %s refused: not a file, directory or "
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
				return package_archive_fail(err, a, u->archive);
		}
		if (stopped(u, err) || extract_entry(u, a, e, err))
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
			return xcc_fail(err, XCC_EFAIL,
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
/* Extract the data.tar.xz member the outer reader of a .deb stands on
 * through its index. 1: not applicable (not a multi-block stream the
 * file holds as is), nothing read; 0 done; -1 failed. */
static int extract_xz_seeking(struct unpacker *u, struct archive *outer,
			      struct archive_entry *member, struct xcc_error *err)
{
	la_int64_t hpos = archive_read_header_position(outer);
	struct xz_seek *x;
	struct archive *inner;
	char *what;
	int rc = -1;

	if (hpos < 0 || !archive_entry_size_is_set(member))
		return 1;
	/* An ar member's data follows its 60-byte header. */
	x = xz_seek_open(u->src, (uint64_t)hpos + 60, (uint64_t)archive_entry_size(member));
	if (!x)
		return 1;
	what = xasprintf("%s: member %s", u->archive, archive_entry_pathname(member));
	inner = xz_seek_tar(x, what, err);
	if (inner) {
		u->file_pos = xz_seek_file_pos;
		u->file_pos_arg = x;
		rc = extract_all(u, inner, NULL, err);
		u->file_pos = NULL;
		archive_read_free(inner);
	}
	free(what);
	xz_seek_free(x);
	return rc;
}
#endif

static int extract_deb(struct unpacker *u, struct archive *outer, struct xcc_error *err)
{
	const char *name;
	struct archive *inner;
	struct archive_entry *member;
	int rc;

	if (package_find_deb_member(outer, u->archive, "data.tar", &name, &member, err))
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

		inner = xz_open_tar(outer, XZ_MEMLIMIT_DEB, what, &x, err);
		if (!inner) {
			free(what);
			return -1;
		}
		u->file_pos = xz_source_file_pos;
		u->file_pos_arg = x;
		rc = extract_all(u, inner, NULL, err);
		if (!rc)
			rc = xz_drain(inner, x, what, err);
		u->file_pos = NULL;
		free(what);
		archive_read_free(inner);
		xz_source_free(x);
		return rc;
	}
#endif
	inner = package_open_member(outer, u->archive, name, err);
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
	if (archive_read_open_filename(raw, u->src, PACKAGE_READ_BLOCK) != ARCHIVE_OK ||
	    archive_read_next_header(raw, &e) != ARCHIVE_OK)
		return package_archive_fail(err, raw, u->archive);
	inner = xz_open_tar(raw, XZ_MEMLIMIT_FILE, u->archive, &x, err);
	if (!inner)
		return -1;
	u->file_pos = xz_source_file_pos;
	u->file_pos_arg = x;
	rc = extract_all(u, inner, NULL, err);
	if (!rc)
		rc = xz_drain(inner, x, u->archive, err);
	u->file_pos = NULL;
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
		.archive = archive, .src = o && o->open_path ? o->open_path : archive,
		.dest_dir = dest_dir, .o = o,
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
	if (package_open_as(u.src, archive, &a, &first, &kind, err)) {
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
