/* apt repositories as sources (NVIDIA's CUDA and Jetson repositories): a
 * sources.list line read, its Release checked (pinned by its own sha256,
 * or taken unchecked only where the line says trusted=yes), the Packages
 * indexes it lists fetched and checked against it, and their stanzas read
 * into plain structs. Every .deb a stanza names keeps the stanza's sha256
 * and size, which the download is checked against before it is read. */
#ifndef XCC_APTREPO_H
#define XCC_APTREPO_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/strvec.h"
#include "pkg/fetch.h"

/* One sources.list line: "deb [sha256=HEX signed-by=KEYRING trusted=yes arch=a,b] URL SUITE
 * [COMP...]"; a
 * flat repository has a SUITE ending in '/' ("/", "./") and no component. A
 * bare URL ending in '/' is the flat repository "URL ./". */
struct apt_source {
	char *line;          /* as given, for messages */
	char *url;           /* ends in '/' */
	char *suite;         /* "r36.4"; for a flat repository the directory ("./") */
	int flat;
	struct strvec components; /* "main" (none for a flat repository) */
	struct strvec arches;     /* arch=: the binary-ARCH indexes read (default amd64,
	                           * arm64) */
	char *release_sha256;     /* sha256=: the Release file's pin, or NULL */
	char *signed_by;          /* signed-by=: a keyring gpgv checks Release.gpg with */
	int trusted;              /* trusted=yes: the Release taken unchecked */
};

/* One stanza of a Packages index. */
struct apt_package {
	char *name, *version, *arch; /* Package, Version, Architecture */
	char *url;                   /* Filename, resolved against the source's URL */
	char sha256[65];
	int64_t size;
	const struct apt_source *source; /* the index it was listed in */
};

struct apt_index {
	struct apt_package *v;
	size_t n, cap;
};

/* Whether a --from names an apt repository: a "deb ..." line, or a URL
 * ending in '/'. */
int apt_is_source(const char *from);
int apt_source_parse(const char *text, struct apt_source *s, struct xcc_error *err);
void apt_source_free(struct apt_source *s);

/*
 * Read s's Release and the Packages indexes it lists into idx (appended).
 * The Release is checked against s's pin and its Release.gpg by gpgv
 * against s's keyring, or refused (a usage error naming the ways out) when
 * s has neither and no trusted=yes; each index is
 * checked against the Release's SHA256 line before it is decompressed
 * (.xz, .gz or plain, as the Release lists them).
 */
int apt_index_read(const struct fetch_opts *fo, const struct apt_source *s,
		   struct apt_index *idx, struct xcc_error *err);
void apt_index_free(struct apt_index *idx);

/* Parse a Packages index (text) of source s into idx; `what` names it. */
int apt_packages_parse(const char *text, size_t len, const struct apt_source *s,
		       const char *what, struct apt_index *idx, struct xcc_error *err);

/* The value of field `name` in the deb822 stanza [st, st+len), its
 * continuation lines joined by '\n' (leading blank trimmed), or NULL. */
char *deb822_field(const char *st, size_t len, const char *name);

/* Debian's version order (dpkg's verrevcmp over epoch, upstream and
 * revision): <0, 0, >0. */
int apt_version_cmp(const char *a, const char *b);

/* "amd64" -> "x86_64", "arm64" -> "aarch64", "all" -> "all"; NULL else. */
const char *apt_arch_machine(const char *arch);

#endif
