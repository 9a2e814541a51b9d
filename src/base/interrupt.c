#include <config.h>

#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/interrupt.h"

static const int watched[] = { SIGINT, SIGTERM, SIGHUP };

/* A tenth of a second between looks at `done`: how long the end of an
 * operation may wait for the waiter. */
static void *wait_signals(void *arg)
{
	struct interrupt *in = arg;
	const struct timespec tick = { 0, 100000000L };

	while (!atomic_load(&in->done)) {
		int sig = sigtimedwait(&in->set, NULL, &tick);
		int none = 0;

		if (sig <= 0)
			continue;
		atomic_compare_exchange_strong(&in->signo, &none, sig);
		if (in->notify)
			in->notify(sig, in->notify_arg);
	}
	return NULL;
}

int interrupt_begin(struct interrupt *in)
{
	return interrupt_begin_notify(in, NULL, NULL);
}

int interrupt_begin_notify(struct interrupt *in, void (*notify)(int signo, void *arg), void *arg)
{
	int n = 0;

	memset(in, 0, sizeof *in);
	in->notify = notify;
	in->notify_arg = arg;
	atomic_init(&in->signo, 0);
	atomic_init(&in->done, 0);
	sigemptyset(&in->set);
	for (size_t i = 0; i < sizeof watched / sizeof *watched; i++) {
		struct sigaction sa;

		if (sigaction(watched[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			continue;
		sigaddset(&in->set, watched[i]);
		n++;
	}
	if (!n)
		return 0;
	if (pthread_sigmask(SIG_BLOCK, &in->set, &in->old))
		return -1;
	if (pthread_create(&in->waiter, NULL, wait_signals, in)) {
		pthread_sigmask(SIG_SETMASK, &in->old, NULL);
		return -1;
	}
	in->started = 1;
	return 0;
}

void interrupt_end(struct interrupt *in)
{
	if (!in->started)
		return;
	atomic_store(&in->done, 1);
	pthread_join(in->waiter, NULL);
	in->started = 0;
	pthread_sigmask(SIG_SETMASK, &in->old, NULL);
}

void interrupt_child_mask(sigset_t *mask)
{
	for (size_t i = 0; i < sizeof watched / sizeof *watched; i++)
		sigdelset(mask, watched[i]);
}

int interrupt_signal(const atomic_int *signo)
{
	return signo ? atomic_load(signo) : 0;
}

const char *interrupt_signal_name(int signo)
{
	switch (signo) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "a signal";
	}
}

int interrupt_status(int signo)
{
	return 128 + signo;
}

int interrupt_fail(struct xcc_error *err, int signo, const char *what)
{
	return xcc_fail(err, interrupt_status(signo), "%s: interrupted by %s", what,
			interrupt_signal_name(signo));
}
