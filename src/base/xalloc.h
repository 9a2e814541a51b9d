/* Allocation that cannot fail from the caller's point of view: running out
 * of memory in a command-line tool is not recoverable in any useful way. */
#ifndef XCC_XALLOC_H
#define XCC_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
void *xcalloc(size_t n, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* The one way arrays grow: room for at least need elements of elem bytes
 * in p, whose capacity (in elements) is *cap; doubles, so that n pushes
 * cost O(n). Returns the (maybe moved) array. */
void *xgrow(void *p, size_t need, size_t *cap, size_t elem);
#define XGROW(array, need, cap) ((array) = xgrow((array), (need), &(cap), sizeof *(array)))

#endif
