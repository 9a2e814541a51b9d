#include <config.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "base/xalloc.h"

static void strvec_push_owned(struct strvec *sv, char *s)
{
	XGROW(sv->v, sv->n + 2, sv->cap);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_owned(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strvec_push_owned(sv, xvasprintf(fmt, ap));
	va_end(ap);
}

void strvec_pushl(struct strvec *sv, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}

void strvec_extend(struct strvec *sv, const struct strvec *from)
{
	for (size_t i = 0; i < from->n; i++)
		strvec_push(sv, from->v[i]);
}

int strvec_contains(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}

static int strvec_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strvec_sort(struct strvec *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof *sv->v, strvec_cmp);
}

void strvec_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

void strvec_split(struct strvec *sv, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len;

		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		len = strcspn(p, ", \t\n");
		if (len) {
			char *s = xmalloc(len + 1);

			memcpy(s, p, len);
			s[len] = '\0';
			strvec_push_owned(sv, s);
		}
		p += len;
	}
}

/* Characters that never need quoting in a POSIX shell word. */
static int shell_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("@%_+=:,./-", *s))
			return 0;
	return 1;
}

char *shell_quote(const char *s)
{
	size_t n = 3;
	char *out, *o;

	if (shell_safe(s))
		return xstrdup(s);
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	o = out = xmalloc(n);
	*o++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *s;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

static char *join(const struct strvec *sv, const char *sep, int quote)
{
	size_t len = 1, seplen = strlen(sep);
	char *out, *o;
	struct strvec parts = STRVEC_INIT;

	for (size_t i = 0; i < sv->n; i++) {
		char *q = quote ? shell_quote(sv->v[i]) : xstrdup(sv->v[i]);

		len += strlen(q) + seplen;
		strvec_push_owned(&parts, q);
	}
	o = out = xmalloc(len);
	for (size_t i = 0; i < parts.n; i++) {
		size_t l = strlen(parts.v[i]);

		if (i) {
			memcpy(o, sep, seplen);
			o += seplen;
		}
		memcpy(o, parts.v[i], l);
		o += l;
	}
	*o = '\0';
	strvec_free(&parts);
	return out;
}

char *strvec_join_quoted(const struct strvec *sv)
{
	return join(sv, " ", 1);
}

char *strvec_join(const struct strvec *sv, const char *sep)
{
	return join(sv, sep, 0);
}
