/* The progress of sysroot create: one bar redrawn in place on a terminal,
 * plain lines otherwise. Updated from the worker threads, so every call
 * takes the lock. */
#ifndef XCC_PROGRESS_H
#define XCC_PROGRESS_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

enum progress_mode {
	PROGRESS_AUTO,   /* a bar on a terminal, plain lines otherwise */
	PROGRESS_ALWAYS, /* the bar even when not on a terminal */
	PROGRESS_NEVER,
};

int progress_mode_parse(const char *s, enum progress_mode *out);

struct progress {
	pthread_mutex_t mu;
	FILE *f;   /* NULL: silent */
	int bar;   /* redraw one line in place; else plain lines */
	uint64_t dl_total, dl_done, ex_total, ex_done;
	size_t n_archives, n_done;
	struct timespec last;
	int drawn;
};

/* Progress on f (may be NULL) for n_archives archives. */
void progress_init(struct progress *pr, enum progress_mode mode, FILE *f, size_t n_archives);
/* Redraw the bar (at most ten times a second unless force). Called with
 * pr->mu held, after the counters changed. */
void progress_draw(struct progress *pr, int force);
/* A plain line (only when there is no bar). */
void progress_line(struct progress *pr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The last state of the bar, and the line it is on ended. */
void progress_end(struct progress *pr);
void progress_free(struct progress *pr);

#endif
