/* Errors travel up as return values with a message; only the cmd_* layer
 * prints them and picks the exit code. */
#ifndef XCC_ERROR_H
#define XCC_ERROR_H

#include <stdarg.h>

/*
 * Exit statuses, also the error classes. The one rule: what the words of
 * the command line decide is XCC_EUSAGE (an unknown option or target, a
 * GPU or CUDA version that does not validate, a combination refused, a
 * path that does not exist or is not the kind of file the option wants);
 * what the operation meets is XCC_EFAIL, and that includes what is found
 * inside a file (not an ELF file, a corrupt or hostile archive, a sha256
 * or size that differs from the manifest's).
 */
enum xcc_status {
	XCC_OK = 0,
	XCC_EFAIL = 1,  /* the operation failed, or an input's content is wrong */
	XCC_EUSAGE = 2, /* the command line or the request does not validate */
};

struct xcc_error {
	int status;
	char msg[4096];
};

/* Record an error and return -1, so callers can write
 * `return xcc_fail(err, XCC_EUSAGE, "...")`. */
int xcc_fail(struct xcc_error *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int xcc_vfail(struct xcc_error *err, int status, const char *fmt, va_list ap);

/* Put "context: " in front of an error already recorded; returns -1. */
int xcc_error_prefix(struct xcc_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void xcc_error_clear(struct xcc_error *err);

#endif
