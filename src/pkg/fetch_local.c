/* Files on this machine: sha256 of buffers and files, a local archive
 * checked through one descriptor, and texts read from paths. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "pkg/cache.h"
#include "pkg/fetch.h"
#include "pkg/fetch_local.h"

int fetch_sha256_file(const char *path, char hex[65], uint64_t *size, struct xcc_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct xcc_sha256 h;
	uint64_t n;
	int rc = 0;

	if (fd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
	xcc_sha256_init(&h);
	if (cache_hash_fd(fd, &h, &n)) {
		rc = xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
	} else {
		xcc_sha256_hex(&h, hex);
		if (size)
			*size = n;
	}
	close(fd);
	return rc;
}

int fetch_sha256_fd(const struct fetch_opts *o, const char *path, int fd, char hex[65],
		    uint64_t *size, struct xcc_error *err)
{
	char *dir = o->cache_dir ? xstrdup(o->cache_dir) : fetch_default_cache_dir();
	char *abs = file_absolute(path);
	struct fetch_cache c;
	struct xcc_error ignored = { 0 };
	struct xcc_sha256 h;
	int rc = 0;

	/* Without a cache to keep the record in, the file is only hashed. */
	if (cache_open(&c, dir, &ignored) == 0) {
		rc = cache_local_sha256(&c, abs, fd, hex, size);
		cache_close(&c);
	} else {
		xcc_sha256_init(&h);
		rc = lseek(fd, 0, SEEK_SET) != 0 || cache_hash_fd(fd, &h, size) ||
		     lseek(fd, 0, SEEK_SET) != 0 ? -1 : 0;
		if (!rc)
			xcc_sha256_hex(&h, hex);
	}
	free(dir);
	free(abs);
	if (rc)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
	return 0;
}

/* A local file, opened once: its size and hash are checked through the
 * descriptor handed back (at offset 0), so that what is read from it later
 * is what was checked, whatever happens to the path meanwhile. */
int fetch_verify_local(const char *path, const char *sha, int64_t size, int *fdp,
		       struct xcc_error *err)
{
	struct xcc_sha256 h;
	struct stat st;
	uint64_t n;
	char actual[65];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), rc = -1;

	if (fd < 0)
		return xcc_fail(err, errno == ENOENT ? XCC_EUSAGE : XCC_EFAIL, "%s: %s", path,
				strerror(errno));
	if (fstat(fd, &st) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		xcc_fail(err, XCC_EUSAGE, "%s: not a regular file", path);
		goto out;
	}
	/* The size first: it costs nothing and catches most mix-ups. */
	if (size >= 0 && st.st_size != size) {
		xcc_fail(err, XCC_EFAIL, "%s: size mismatch: expected %" PRId64 " bytes, the file "
			 "has %jd", path, size, (intmax_t)st.st_size);
		goto out;
	}
	if (sha) {
		xcc_sha256_init(&h);
		if (cache_hash_fd(fd, &h, &n) || lseek(fd, 0, SEEK_SET) != 0) {
			xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
			goto out;
		}
		xcc_sha256_hex(&h, actual);
		if (strcmp(actual, sha) != 0) {
			xcc_fail(err, XCC_EFAIL, "%s: sha256 mismatch: expected %s, got %s", path,
				 sha, actual);
			goto out;
		}
	}
	*fdp = fd;
	fd = -1;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

int fetch_read_local_text(const char *path, char **text, size_t *len, struct xcc_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 64 * 1024, n = 0;
	char *buf;
	ssize_t r;

	if (fd < 0)
		return xcc_fail(err, errno == ENOENT ? XCC_EUSAGE : XCC_EFAIL, "%s: %s", path,
				strerror(errno));
	buf = xmalloc(cap);
	while ((r = read(fd, buf + n, cap - n - 1)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
			goto fail;
		}
		n += (size_t)r;
		if (n + 1 == cap) {
			if (cap >= FETCH_MAX_TEXT) {
				xcc_fail(err, XCC_EFAIL, "%s: larger than %u MiB: not a manifest",
					 path, FETCH_MAX_TEXT >> 20);
				goto fail;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	if (len)
		*len = n;
	return 0;
fail:
	close(fd);
	free(buf);
	return -1;
}
