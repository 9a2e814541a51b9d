/* A growable NULL-terminated vector of owned strings: argv building and
 * lists of names. */
#ifndef XCC_STRVEC_H
#define XCC_STRVEC_H

#include <stddef.h>


struct strvec {
	char **v; /* always NULL-terminated once anything was pushed */
	size_t n;
	size_t cap;
};

#define STRVEC_INIT { .v = NULL, .n = 0, .cap = 0 }

void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Push each argument up to a NULL. */
void strvec_pushl(struct strvec *sv, ...) __attribute__((sentinel));
void strvec_extend(struct strvec *sv, const struct strvec *from);
int strvec_contains(const struct strvec *sv, const char *s);
/* Sort the strings in strcmp order. */
void strvec_sort(struct strvec *sv);
void strvec_free(struct strvec *sv);

/* Split on commas (and whitespace) into sv, skipping empty fields. */
void strvec_split(struct strvec *sv, const char *list);

/* s quoted for a POSIX shell where needed; caller frees. */
char *shell_quote(const char *s);
/* The whole vector as one shell-quoted line; caller frees. */
char *strvec_join_quoted(const struct strvec *sv);
/* The vector joined with sep; caller frees. */
char *strvec_join(const struct strvec *sv, const char *sep);

#endif
