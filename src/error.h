/* Errors travel up as return values with a message; only the cmd_* layer
 * prints them and picks the exit code. */
#ifndef XCC_ERROR_H
#define XCC_ERROR_H

#include <stdarg.h>

/* Exit statuses, also the error classes. */
enum xcc_status {
	XCC_OK = 0,
	XCC_EFAIL = 1,  /* the operation failed: I/O, network, a tool failed */
	XCC_EUSAGE = 2, /* bad command line or input that does not validate */
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
