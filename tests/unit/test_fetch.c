/* The download cache: content-addressed, checked before it is kept. */
#include <config.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/sha256.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/fetch.h"
#include "tap.h"

static char dir[] = "/tmp/test_fetch.XXXXXX";
static pid_t httpd_pid;
static char base_url[64];

/* tests/lib/httpd.py serving dir: URLs go through the cache, file:// and
 * paths do not. */
static int start_httpd(void)
{
	const char *src = getenv("XCC_SRCDIR");
	char *script, port[16] = "";
	int fds[2];
	FILE *f;

	if (!src || pipe(fds))
		return -1;
	script = xasprintf("%s/tests/lib/httpd.py", src);
	httpd_pid = fork();
	if (httpd_pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execlp("python3", "python3", script, "--root", dir, "--timeout", "120", (char *)NULL);
		_exit(127);
	}
	free(script);
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f || !fgets(port, sizeof port, f))
		return -1;
	fclose(f);
	port[strcspn(port, "\n")] = '\0';
	snprintf(base_url, sizeof base_url, "http://127.0.0.1:%s", port);
	return 0;
}

static char *write_file(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
	return path;
}

static void test_url_lands_in_cache_under_its_sha256(void)
{
	struct fetch_opts o = { .cache_dir = NULL };
	struct xcc_error err = { 0 };
	char *src = write_file("a.txt", "hello cache\n"), *url = xasprintf("%s/a.txt", base_url);
	char *cache = xasprintf("%s/cache", dir), *want, *got = NULL, hex[65];

	o.cache_dir = cache;
	xcc_sha256_buffer("hello cache\n", 12, hex);
	want = xasprintf("%s/%s", cache, hex);
	ok(fetch_file(&o, url, hex, 12, &got, &err) == 0, "a file:// URL is fetched (%s)", err.msg);
	is_str(got, want, "it lands in the cache under its sha256");
	free(got);
	got = NULL;
	/* The source is gone: the cache answers. */
	unlink(src);
	ok(fetch_file(&o, url, hex, 12, &got, &err) == 0, "fetched again from the cache (%s)",
	   err.msg);
	is_str(got, want, "the same cached file");
	free(got);
	unlink(want);
	rmdir(cache);
	free(want);
	free(cache);
	free(url);
	free(src);
}

static void test_mismatch_keeps_nothing(void)
{
	struct fetch_opts o = { .cache_dir = NULL };
	struct xcc_error err = { 0 };
	char *src = write_file("b.txt", "other bytes\n"), *url = xasprintf("%s/b.txt", base_url);
	char *cache = xasprintf("%s/cache2", dir), *got = NULL, *cmd;
	const char *bad = "0000000000000000000000000000000000000000000000000000000000000000";

	o.cache_dir = cache;
	o.retries = -1;
	ok(fetch_file(&o, url, bad, -1, &got, &err) == -1 && err.status == XCC_EFAIL &&
		   strstr(err.msg, "sha256 mismatch"),
	   "a wrong sha256 is a failure that says so: %s", err.msg);
	cmd = xasprintf("test -z \"$(ls -A '%s' 2>/dev/null)\"", cache);
	ok(system(cmd) == 0, "nothing is left in the cache");
	free(cmd);
	ok(fetch_file(&o, src, NULL, 5, &got, &err) == -1 && err.status == XCC_EFAIL &&
		   strstr(err.msg, "size mismatch"),
	   "a local file of another size: %s", err.msg);
	cmd = xasprintf("rm -rf '%s'", cache);
	ok(system(cmd) == 0, "clean up");
	free(cmd);
	unlink(src);
	free(url);
	free(src);
	free(cache);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		ok(0, "a scratch directory");
		return done_testing();
	}
	if (!getenv("XCC_SRCDIR") || start_httpd()) {
		ok(1, "# SKIP tests/lib/httpd.py did not start (XCC_SRCDIR unset, or no python3)");
		return done_testing();
	}
	test_url_lands_in_cache_under_its_sha256();
	test_mismatch_keeps_nothing();
	kill(httpd_pid, SIGTERM);
	waitpid(httpd_pid, NULL, 0);
	rmdir(dir);
	return done_testing();
}
