/* The verbs called as functions: this program links src/libcmd.a and the
 * library, not main.c, so each test here also proves that a cmd_* stands
 * on its own. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "tap.h"

static struct cmd_ctx ctx;

/* Run fn with argv (NULL-terminated), its stdout and stderr caught in
 * out/errout (caller frees); returns its exit status. */
static int run(cmd_fn *fn, char **out, char **errout, char **argv)
{
	FILE *o = tmpfile(), *e = tmpfile();
	int saved_out = dup(1), saved_err = dup(2), argc = 0, rc;
	char **bufs[] = { out, errout };
	FILE *files[] = { o, e };

	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(o), 1);
	dup2(fileno(e), 2);
	rc = fn(argc, argv, &ctx);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	for (int i = 0; i < 2; i++) {
		long n;

		fseek(files[i], 0, SEEK_END);
		n = ftell(files[i]);
		rewind(files[i]);
		*bufs[i] = calloc(1, (size_t)n + 1);
		if (fread(*bufs[i], 1, (size_t)n, files[i]) != (size_t)n)
			(*bufs[i])[0] = '\0';
		fclose(files[i]);
	}
	return rc;
}

#define RUN(fn, out, err, ...) run(fn, out, err, (char *[]){ __VA_ARGS__, NULL })

static void test_flags_prints_gencode(void)
{
	char *out, *err;
	int rc = RUN(cmd_flags, &out, &err, "flags", "--target", "jetson", "--cuda", "12.6",
		     "-arch", "sm_87");

	ok(rc == 0, "flags: exit 0 (%d; %s)", rc, err);
	is_str(out, "-gencode=arch=compute_87,code=sm_87\n", "flags: the -gencode of sm_87");
	free(out);
	free(err);
}

static void test_flags_unknown_target_is_usage(void)
{
	char *out, *err;
	int rc = RUN(cmd_flags, &out, &err, "flags", "--target", "nope", "--cuda", "12.6");

	ok(rc == XCC_EUSAGE, "flags: an unknown target is a usage error (%d)", rc);
	ok(strstr(err, "unknown target 'nope'") != NULL, "flags: the message names it: %s", err);
	free(out);
	free(err);
}

static void test_gpus_lists_orin(void)
{
	char *out, *err;
	int rc = RUN(cmd_gpus, &out, &err, "gpus", "--target", "jetson", "--cuda", "12.6");

	ok(rc == 0, "gpus: exit 0 (%d; %s)", rc, err);
	ok(strstr(out, "sm_87") != NULL, "gpus: lists sm_87 for jetson");
	free(out);
	free(err);
}

static void test_sysroot_without_action_is_usage(void)
{
	char *out, *err;
	int rc = RUN(cmd_sysroot, &out, &err, "sysroot");

	ok(rc == XCC_EUSAGE, "sysroot: no action is a usage error (%d)", rc);
	free(out);
	free(err);
}

static void test_fatbin_help(void)
{
	char *out, *err;
	int rc = RUN(cmd_fatbin, &out, &err, "fatbin", "--help");

	ok(rc == 0, "fatbin --help: exit 0 (%d)", rc);
	ok(strncmp(out, "Usage: cuda-xcc fatbin", 22) == 0, "fatbin --help: prints the usage");
	free(out);
	free(err);
}

int main(void)
{
	test_flags_prints_gencode();
	test_flags_unknown_target_is_usage();
	test_gpus_lists_orin();
	test_sysroot_without_action_is_usage();
	test_fatbin_help();
	cmd_ctx_free(&ctx);
	return done_testing();
}
