/* sysroot.files: every entry of a sysroot's tree as create left it, with
 * each regular file's SHA-256, which verify compares with the tree (as
 * `rpm -V` and `dpkg --verify` do with what a package installed). Written
 * by create's metadata stage, before sysroot.json. */
#ifndef XCC_SYSROOT_FILES_H
#define XCC_SYSROOT_FILES_H

#include "base/strvec.h"

#define SYSROOT_FILES_LIST "sysroot.files"

/* The first line of a listing with digests; listings of older sysroots
 * have none and no digests. */
#define SYSROOT_FILES_HEADER \
	"# cuda-xcc sysroot.files 2: f MODE SIZE SHA256 PATH | d MODE PATH | l PATH -> TARGET"

/* The listing of the tree at root: one sorted line per entry but
 * sysroot.json and sysroot.files ("f MODE SIZE PATH", "d MODE PATH",
 * "l PATH -> TARGET"); with digests, the header first and each regular
 * file's sha256 before its path. Caller frees. */
char *sysroot_files_listing(const char *root, int digests);

/* Whether a listing records digests (starts with the header). */
int sysroot_files_has_digests(const char *text);

/* What differs between the listing create wrote (want) and the tree's now
 * (have), one problem a line (at most 50). Contents are compared where
 * both record digests; type, mode, size and link targets always. */
void sysroot_files_diff(const char *want_text, const char *have_text, struct strvec *problems);

/* One entry of a listing, as sysroot_files_parse reads it. */
struct sysroot_files_entry {
	char type;       /* 'f', 'd' or 'l' */
	unsigned mode;   /* f and d */
	long long size;  /* f */
	char sha256[65]; /* f, in a listing with digests; "" otherwise */
	char *path;
	char *target;    /* l */
};

/* The entries of a listing, in its order; -1 (nothing in *v) when a line
 * is none that create writes. */
int sysroot_files_parse(const char *text, struct sysroot_files_entry **v, size_t *n);
void sysroot_files_entries_free(struct sysroot_files_entry *v, size_t n);

#endif
