/* Stopping cleanly on SIGINT, SIGTERM and SIGHUP. While a long operation
 * that has something to undo runs (sysroot create's temporary tree), the
 * signals are blocked in every thread and one thread waits for them with
 * sigtimedwait: nothing runs in a signal handler, and the threads doing the
 * work see `signo` change and give up at their next check, so that their
 * caller can clean up and exit 128 + N. A signal the process ignored when
 * it began (nohup, `trap '' HUP`, a script's `cmd &`) stays ignored. The
 * one mechanism for these signals: sysroot create and run --device use it.
 * Children spawned meanwhile (base/proc.h) get the signals unblocked. */
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
	/* Called from the waiter's thread at each signal, the first and every
	 * later one (not in a signal handler: it may do what a thread may). */
	void (*notify)(int signo, void *arg);
	void *notify_arg;
};

/* Call from the main thread before it starts the threads that do the work
 * (they inherit the blocked mask). Returns -1 only when nothing could be
 * set up: the signals then keep their default action. */
int interrupt_begin(struct interrupt *in);
/* interrupt_begin, with notify(signo, arg) called at each signal. */
int interrupt_begin_notify(struct interrupt *in, void (*notify)(int signo, void *arg),
			   void *arg);
/* Stop the waiter and restore the mask: a signal that came after the
 * waiter stopped is delivered then, with its usual action. */
void interrupt_end(struct interrupt *in);

/* Take the watched signals out of mask: the mask a child gets, so that
 * a tool run meanwhile (ssh of run --device) still stops on them. */
void interrupt_child_mask(sigset_t *mask);

/* The signal that asked to stop, or 0. */
int interrupt_signal(const atomic_int *signo);
/* "SIGINT", or "a signal" for one not watched. */
const char *interrupt_signal_name(int signo);
/* The exit status of a command that signo stopped: 128 + signo, as the
 * shell reports a process the signal killed. */
int interrupt_status(int signo);
/* Record "WHAT: interrupted by SIGxxx" with the status interrupt_status(). */
int interrupt_fail(struct xcc_error *err, int signo, const char *what);

#endif
