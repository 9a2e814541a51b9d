#include <config.h>

#include <stdio.h>
#include <string.h>

#include "base/error.h"

int xcc_vfail(struct xcc_error *err, int status, const char *fmt, va_list ap)
{
	if (err) {
		err->status = status;
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	}
	return -1;
}

int xcc_fail(struct xcc_error *err, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xcc_vfail(err, status, fmt, ap);
	va_end(ap);
	return -1;
}

int xcc_error_prefix(struct xcc_error *err, const char *fmt, ...)
{
	char prefix[1024];
	size_t plen, mlen;
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix - 2, fmt, ap);
	va_end(ap);
	strcat(prefix, ": ");
	plen = strlen(prefix);
	mlen = strnlen(err->msg, sizeof err->msg - 1);
	if (plen + mlen >= sizeof err->msg)
		mlen = sizeof err->msg - 1 - plen;
	memmove(err->msg + plen, err->msg, mlen);
	memcpy(err->msg, prefix, plen);
	err->msg[plen + mlen] = '\0';
	return -1;
}

void xcc_error_clear(struct xcc_error *err)
{
	err->status = XCC_OK;
	err->msg[0] = '\0';
}
