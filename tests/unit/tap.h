/* A minimal TAP producer for the C unit tests: automake's TAP driver counts
 * every assertion. */
#ifndef XCC_TAP_H
#define XCC_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

/* A failure names the test case: the function it is in, and the line. */
#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __func__, __VA_ARGS__)

static void tap_ok(int pass, const char *file, int line, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 5, 6), unused));

#include <stdarg.h>
static void tap_ok(int pass, const char *file, int line, const char *func, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", pass ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		printf("#   failed in %s at %s:%d\n", func, file, line);
		tap_failed++;
	}
}

#define is_str(got, want, ...)                                                       \
	do {                                                                           \
		const char *g_ = (got), *w_ = (want);                                  \
		int p_ = g_ && w_ ? strcmp(g_, w_) == 0 : g_ == w_;                    \
		ok(p_, __VA_ARGS__);                                                   \
		if (!p_)                                                               \
			printf("#   got:      '%s'\n#   expected: '%s'\n", g_ ? g_ : "(null)", \
			       w_ ? w_ : "(null)");                                    \
	} while (0)

/* Run a shell command made from fmt (fixtures built at test time); its
 * exit status, with the command shown as a TAP comment when it fails. */
static int tap_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static int tap_sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	rc = system(cmd);
	if (rc)
		printf("# failed: %s\n", cmd);
	free(cmd);
	return rc;
}

static int __attribute__((unused)) done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
