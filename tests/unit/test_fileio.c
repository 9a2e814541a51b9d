/* fileio: an atomic replace that fails says why, and leaves the old file.
 * RLIMIT_FSIZE makes a write stop short exactly as a full disk does (a
 * partial write, then an error): the error must be the second write's,
 * not whatever errno held before. */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "tap.h"

static char dir[] = "/tmp/test_fileio.XXXXXX";

static void short_write_names_the_real_error(void)
{
	char *path = xasprintf("%s/listing", dir);
	size_t len = 64 * 1024;
	char *data = xmalloc(len);
	struct xcc_error err = { 0 };
	struct rlimit old, small;
	char *text;
	int rc;

	memset(data, 'x', len);
	ok(file_write_atomic(path, "old\n", 4, 0644, &err) == 0, "the old file is written");
	getrlimit(RLIMIT_FSIZE, &old);
	small = old;
	small.rlim_cur = 10000; /* the first write stops at 10000 bytes */
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &small);
	errno = EINVAL; /* what a stale errno would report */
	rc = file_write_atomic(path, data, len, 0644, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	ok(rc == -1, "a write past the limit fails");
	ok(strstr(err.msg, strerror(EFBIG)) != NULL, "the message has the write's own error: %s",
	   err.msg);
	ok(strstr(err.msg, strerror(EINVAL)) == NULL, "and not the stale one");
	text = file_read_text(path, NULL);
	is_str(text, "old\n", "the old file is as it was");
	free(text);
	free(path);
	path = xasprintf("%s/listing.tmp.%ld", dir, (long)getpid());
	ok(access(path, F_OK) != 0, "no temporary file is left");
	free(path);
	free(data);
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	short_write_names_the_real_error();
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	free(cmd);
	return done_testing();
}
