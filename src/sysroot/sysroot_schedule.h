/* The order of sysroot create's work, apart from the threads that do it:
 * one download pipeline fetches and verifies the archives one after the
 * other, and the extraction workers take the verified ones. Pure
 * bookkeeping (no locks, no I/O), so that a unit test can drive it.
 *
 * Order: phase by phase (the plan's precedence: an archive is extracted
 * only once every archive of a lower phase is in the tree), and within a
 * phase the largest archive first, so that the last to finish is a small
 * one and no worker is left alone with a big archive at the end; the plan's
 * order breaks ties. Downloads follow the same order, so the archive the
 * workers need next is the one on the wire. */
#ifndef XCC_SYSROOT_SCHEDULE_H
#define XCC_SYSROOT_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

enum sched_state {
	SCHED_WAITING,    /* not fetched yet */
	SCHED_FETCHING,
	SCHED_FETCHED,    /* verified in the cache, waiting for a worker */
	SCHED_EXTRACTING,
	SCHED_DONE,
};

struct schedule {
	size_t n;
	const int *phase;         /* per archive, in plan order */
	enum sched_state *state;  /* per archive, in plan order */
	size_t *order;            /* plan indices in the order of work */
	size_t next_fetch;        /* position in order */
};

/* phase[i] and size[i] of the plan's archive i (size 0: unknown, last). */
void schedule_init(struct schedule *s, size_t n, const int *phase, const uint64_t *size);
void schedule_free(struct schedule *s);

/* The archive to download next (now SCHED_FETCHING), or -1: none left. */
long schedule_next_fetch(struct schedule *s);
void schedule_fetched(struct schedule *s, size_t i);

#define SCHED_WAIT (-1L) /* nothing can be extracted now: wait for a change */
#define SCHED_END (-2L)  /* every archive is extracted or being extracted */

/* The archive a free worker extracts next (now SCHED_EXTRACTING): the
 * first fetched one in order whose phase is the lowest not yet done; else
 * SCHED_WAIT or SCHED_END. */
long schedule_next_extract(struct schedule *s);
void schedule_extracted(struct schedule *s, size_t i);

#endif
