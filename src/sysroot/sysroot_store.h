/* sysroot create and the file store (pkg/store.h): a finished tree's files
 * shared with the store and what the tree was made of recorded under the
 * request's fingerprint; a later create of the same request made from that
 * record by hard links, with no download, no extraction and no pass. */
#ifndef XCC_SYSROOT_STORE_H
#define XCC_SYSROOT_STORE_H

#include <stddef.h>

#include "base/error.h"
#include "base/strvec.h"
#include "pkg/store.h"

/* The record's key for a fingerprint: it and this cuda-xcc's version
 * (another version may make another tree of the same inputs). */
void sysroot_store_key(const char *fingerprint, char key[65]);

/* What a record holds besides the stamps: the tree's sysroot.files (with
 * digests) and sysroot.json as create wrote them, and what the passes
 * said, to be said again. */
struct sysroot_store_tree {
	char *files;
	char *meta;
	struct strvec notes;
	struct strvec warnings;
};

void sysroot_store_tree_free(struct sysroot_store_tree *t);

/*
 * The regular files of the finished tree at root (listing: its
 * sysroot.files) shared with the store; the stamps of the objects the tree
 * then links in *objs (caller frees). A file that cannot be shared (the
 * store on another file system) stays as it is, and a note says why once.
 * 1: every file is shared; 0: not every one; -1 with err.
 */
int sysroot_store_share(struct file_store *s, const char *root, const char *listing,
			struct store_stamp **objs, size_t *n, struct strvec *notes,
			struct xcc_error *err);

/* Record t and the objects under key. */
int sysroot_store_record(struct file_store *s, const char *key,
			 const struct sysroot_store_tree *t, const struct store_stamp *objs,
			 size_t n, struct xcc_error *err);

/*
 * The tree recorded under key made at root (an empty directory): its
 * directories, each file a link to its object (a copy on another file
 * system) and its symbolic links, every object checked first against its
 * stamp. 1 with *t filled (sysroot.files and sysroot.json are the
 * caller's to write); 0 when there is no record, or one of its objects is
 * gone or changed: root is left empty; -1 with err.
 */
int sysroot_store_materialise(struct file_store *s, const char *key, const char *root,
			      struct sysroot_store_tree *t, struct xcc_error *err);

#endif
