/* The last stage of sysroot create, and what makes it safe to interrupt:
 * the lock on the destination, the temporary tree next to it, and the
 * atomic swap that puts the finished tree in place. At every moment the
 * destination is either the old sysroot or the new one. */
#ifndef XCC_SYSROOT_COMMIT_H
#define XCC_SYSROOT_COMMIT_H

#include <stdatomic.h>

#include "base/error.h"

struct sysroot_commit {
	const char *dest; /* the sysroot's place */
	char *tmp;        /* the tree being made, next to it; NULL once swapped in */
	int lock_fd;      /* -1: not held */
	int tmp_fd;       /* tmp, locked while this create lives; -1: none */
};

/*
 * Take dest's lock and clean what interrupted creates left: siblings named
 * DEST.tmp-cuda-xcc-* and DEST.old-cuda-xcc-* (names no user chooses; a
 * user's DEST.old-2024 stays) that are directories no live create holds
 * locked (each locks its temporary tree while it runs). When dest
 * already holds a sysroot made from the same fingerprint, *up_to_date is
 * set and nothing else is done. Otherwise dest must be absent, empty or a
 * sysroot, and c->tmp is made for the new tree.
 */
int sysroot_commit_begin(struct sysroot_commit *c, const char *dest, const char *fingerprint,
			 int *up_to_date, struct xcc_error *err);
/* Put c->tmp in place of dest, its files first synced to disk (syncfs of
 * its file system; no_sync skips that), and the rename synced too: after
 * a power cut dest is the old sysroot or the whole new one. A signal
 * noticed in stop before the swap (the sync can take long) stops it. */
int sysroot_commit_finish(struct sysroot_commit *c, int no_sync, const atomic_int *stop,
			  struct xcc_error *err);
/* Release the lock; a tree that was not put in place is removed. */
void sysroot_commit_end(struct sysroot_commit *c);

/* The tests kill create at named points (CUDA_XCC_TEST_CRASH_AT) to prove
 * that none leaves a broken sysroot behind; with CUDA_XCC_TEST_CRASH_SIGNAL
 * (a number) that signal is sent instead of SIGKILL, to prove that create
 * cleans up after it. */
void sysroot_crash_point(const char *name);

#endif
