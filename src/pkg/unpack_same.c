#include <config.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "pkg/unpack_same.h"

char *unpack_shown_name(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(4 * n + 1), *o = out;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			o += sprintf(o, "\\n");
		else if (*p == '\t')
			o += sprintf(o, "\\t");
		else if (*p == '\\')
			o += sprintf(o, "\\\\");
		else if (*p < 0x20 || *p == 0x7f)
			o += sprintf(o, "\\x%02x", *p);
		else
			*o++ = (char)*p;
	}
	*o = '\0';
	return out;
}

/* Whether the bytes [from, to) of fd are zeros (a hole of the member). */
static int zeros(int fd, uint64_t from, uint64_t to)
{
	char buf[8192];

	while (from < to) {
		size_t want = to - from < sizeof buf ? (size_t)(to - from) : sizeof buf;
		ssize_t n = pread(fd, buf, want, (off_t)from);

		if (n <= 0)
			return 0;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i])
				return 0;
		from += (uint64_t)n;
	}
	return 1;
}

int same_data(struct archive *a, int fd, uint64_t size, const atomic_int *stop)
{
	const void *buf;
	size_t n, cap = 0;
	la_int64_t offset;
	uint64_t pos = 0;
	char *mine = NULL;
	int r, same = 1;

	while (same == 1 && (r = archive_read_data_block(a, &buf, &n, &offset)) == ARCHIVE_OK) {
		if (stop && atomic_load(stop)) {
			same = SAME_STOPPED;
			break;
		}
		if (offset < 0 || (uint64_t)offset + n > size) {
			same = 0;
			break;
		}
		if ((uint64_t)offset > pos)
			same = zeros(fd, pos, (uint64_t)offset);
		XGROW(mine, n, cap);
		if (same == 1 && n && (pread(fd, mine, n, offset) != (ssize_t)n ||
				       memcmp(mine, buf, n) != 0))
			same = 0;
		if ((uint64_t)offset + n > pos)
			pos = (uint64_t)offset + n;
	}
	if (same == 1 && r != ARCHIVE_EOF)
		same = SAME_UNREADABLE;
	if (same == 1 && pos < size)
		same = zeros(fd, pos, size);
	free(mine);
	return same;
}

void same_keep_later_mtime(int fd, const struct stat *st, struct archive_entry *e)
{
	struct timespec times[2] = { { 0, UTIME_OMIT }, { 0, 0 } };

	if (!archive_entry_mtime_is_set(e))
		return;
	times[1].tv_sec = archive_entry_mtime(e);
	times[1].tv_nsec = archive_entry_mtime_nsec(e);
	if (times[1].tv_sec > st->st_mtim.tv_sec ||
	    (times[1].tv_sec == st->st_mtim.tv_sec && times[1].tv_nsec > st->st_mtim.tv_nsec))
		futimens(fd, times);
}

const char *same_symlink(int dirfd, const char *leaf, const char *target)
{
	char have[PATH_MAX];
	ssize_t n = readlinkat(dirfd, leaf, have, sizeof have - 1);

	if (n < 0)
		return "a symlink in one, something else in the other";
	have[n] = '\0';
	return strcmp(have, target) ? "symlinks to different targets" : NULL;
}

/* Two files of the tree, byte for byte. */
static int files_equal(int fa, int fb, uint64_t size)
{
	char x[8192], y[8192];

	for (uint64_t off = 0; off < size;) {
		size_t want = size - off < sizeof x ? (size_t)(size - off) : sizeof x;

		if (pread(fa, x, want, (off_t)off) != (ssize_t)want ||
		    pread(fb, y, want, (off_t)off) != (ssize_t)want || memcmp(x, y, want))
			return 0;
		off += want;
	}
	return 1;
}

const char *same_hardlink(int destfd, const char *target, int dirfd, const char *leaf)
{
	int fa = openat(dirfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int fb = openat(destfd, target, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sa, sb;
	const char *how = NULL;

	if (fa < 0 || fb < 0 || fstat(fa, &sa) || fstat(fb, &sb) || !S_ISREG(sa.st_mode))
		how = "a file in one, something else in the other";
	else if (sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
		how = NULL;
	else if ((sa.st_mode & 0777) != (sb.st_mode & 0777))
		how = "their modes differ";
	else if (sa.st_size != sb.st_size || !files_equal(fa, fb, (uint64_t)sa.st_size))
		how = "their contents differ";
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return how;
}
