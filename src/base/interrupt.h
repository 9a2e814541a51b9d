/* Stopping cleanly on SIGINT, SIGTERM and SIGHUP. While a long operation
 * that has something to undo runs (sysroot create's temporary tree), the
 * signals are blocked in every thread and one thread waits for them with
 * sigtimedwait: nothing runs in a signal handler, and the threads doing the
 * work see `signo` change and give up at their next check, so that their
 * caller can clean up and exit 128 + N. A signal the process ignored when
 * it began (nohup, a script's `cmd &`) stays ignored. */
#ifndef XCC_INTERRUPT_H
#define XCC_INTERRUPT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "base/error.h"

struct interrupt {
	atomic_int signo; /* 0 until one of the signals arrived, then its number */
	atomic_int done;  /* asks the waiter to stop */
	sigset_t set;     /* the signals watched */
	sigset_t old;     /* the calling thread's mask before */
	pthread_t waiter;
	int started;
};

/* Call from the main thread before it starts the threads that do the work
 * (they inherit the blocked mask). Returns -1 only when nothing could be
 * set up: the signals then keep their default action. */
int interrupt_begin(struct interrupt *in);
/* Stop the waiter and restore the mask: a signal that came after the
 * waiter stopped is delivered then, with its usual action. */
void interrupt_end(struct interrupt *in);

/* The signal that asked to stop, or 0. */
int interrupt_signal(const atomic_int *signo);
/* "SIGINT" */
const char *interrupt_signal_name(int signo);
/* Record "WHAT: interrupted by SIGxxx" with the status 128 + signo. */
int interrupt_fail(struct xcc_error *err, int signo, const char *what);

#endif
