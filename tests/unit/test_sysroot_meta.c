/* sysroot.json: the serving table stays typed from the serving pass to the
 * file and back, and a malformed one is refused with its reason. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "sysroot/sysroot_meta.h"
#include "tap.h"

static char dir[] = "/tmp/test_sysroot_meta.XXXXXX";

/* A minimal sysroot.json with the given serving value (NULL: none). */
static void write_meta(const char *serving)
{
	char *path = xasprintf("%s/%s", dir, SYSROOT_META_FILE);
	char *text = xasprintf("{\"format\": 1, \"cuda\": \"12.6.3\", \"target\": \"jetson\", "
			       "\"tag\": \"linux-aarch64\", \"target_dir\": \"aarch64-linux\", "
			       "\"capabilities\": [\"8.7\", \"9.0\"]%s%s}",
			       serving ? ", \"serving\": " : "", serving ? serving : "");
	struct xcc_error err = { 0 };

	if (file_write_atomic(path, text, strlen(text), 0644, &err))
		printf("Bail out! %s\n", err.msg);
	free(text);
	free(path);
}

static void test_round_trip(void)
{
	static const enum fatbin_verdict cublas[] = { FATBIN_SERVED_SASS, FATBIN_NOT_SERVED };
	static const enum fatbin_verdict cufft[] = { FATBIN_SERVED_PTX_JIT, FATBIN_SERVED_SASS };
	struct sysroot_meta m = { 0 }, back;
	struct sysroot_serving t = { 0 };
	struct xcc_error err = { 0 };
	struct strvec text = STRVEC_INIT;

	t.recorded = 1;
	strvec_push(&t.capabilities, "8.7");
	strvec_push(&t.capabilities, "9.0");
	sysroot_serving_add(&t, "lib/libcufft.so.11", cufft);
	sysroot_serving_add(&t, "lib/libcublas.so.12", cublas);
	sysroot_serving_sort(&t);
	is_str(t.rows[0].library, "lib/libcublas.so.12", "rows sorted by library");
	ok(sysroot_serving_count(&t, FATBIN_NOT_SERVED) == 1 &&
	   sysroot_serving_count(&t, FATBIN_SERVED_SASS) == 2, "cells counted by verdict");
	m.cuda = xstrdup("12.6.3");
	m.target = xstrdup("jetson");
	m.tag = xstrdup("linux-aarch64");
	m.target_dir = xstrdup("aarch64-linux");
	strvec_push(&m.capabilities, "8.7");
	strvec_push(&m.capabilities, "9.0");
	m.serving = t;
	ok(sysroot_meta_save(dir, &m, &err) == 0, "saved (%s)", err.msg);
	ok(sysroot_meta_load(dir, &back, &err) == 0, "loaded (%s)", err.msg);
	ok(back.serving.recorded && back.serving.n_rows == 2 &&
	   back.serving.rows[1].verdicts[0] == FATBIN_SERVED_PTX_JIT &&
	   back.serving.rows[0].verdicts[1] == FATBIN_NOT_SERVED,
	   "the table comes back as it was written");
	sysroot_serving_text(&back.serving, &text);
	ok(text.n == 4 && strstr(text.v[2], "lib/libcublas.so.12") &&
	   strstr(text.v[2], "OK") && strstr(text.v[2], "NOT SERVED"), "as text: %s",
	   text.n > 2 ? text.v[2] : "(none)");
	strvec_free(&text);
	sysroot_meta_free(&back);
	sysroot_meta_free(&m);
}

static void test_no_table(void)
{
	struct sysroot_meta m;
	struct xcc_error err = { 0 };
	struct strvec text = STRVEC_INIT;

	write_meta(NULL);
	ok(sysroot_meta_load(dir, &m, &err) == 0 && !m.serving.recorded,
	   "no \"serving\": no table recorded (%s)", err.msg);
	sysroot_serving_text(&m.serving, &text);
	is_str(text.n ? text.v[0] : NULL, "serving: no target library carries device code",
	       "which info says");
	strvec_free(&text);
	sysroot_meta_free(&m);
	write_meta("[]");
	ok(sysroot_meta_load(dir, &m, &err) == 0 && m.serving.recorded && m.serving.n_rows == 0,
	   "an empty table is recorded, with no row (%s)", err.msg);
	sysroot_meta_free(&m);
}

static void test_malformed(void)
{
	static const struct {
		const char *serving, *want;
	} bad[] = {
		{ "{}", "\"serving\" is not a list" },
		{ "[{\"serving\": {\"8.7\": \"OK\", \"9.0\": \"OK\"}}]", "lacks its \"library\"" },
		{ "[{\"library\": \"lib/x.so\", \"serving\": {\"8.7\": \"OK\"}}]",
		  "lib/x.so has no verdict (OK, PTX-JIT, NOT SERVED) for 9.0" },
		{ "[{\"library\": \"lib/x.so\", \"serving\": {\"8.7\": \"OK\", \"9.0\": \"fine\"}}]",
		  "lib/x.so has no verdict (OK, PTX-JIT, NOT SERVED) for 9.0" },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct sysroot_meta m;
		struct xcc_error err = { 0 };

		write_meta(bad[i].serving);
		ok(sysroot_meta_load(dir, &m, &err) == -1 && strstr(err.msg, bad[i].want) &&
		   strstr(err.msg, "recreate the sysroot"),
		   "a malformed table is refused: %s (%s)", bad[i].want, err.msg);
	}
}

int main(void)
{
	char *path;

	if (!mkdtemp(dir)) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	test_round_trip();
	test_no_table();
	test_malformed();
	path = xasprintf("%s/%s", dir, SYSROOT_META_FILE);
	unlink(path);
	free(path);
	rmdir(dir);
	return done_testing();
}
