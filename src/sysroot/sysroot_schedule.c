#include <config.h>

#include <stdlib.h>

#include "base/xalloc.h"
#include "sysroot/sysroot_schedule.h"

/* qsort has no context argument: sort (phase, size, index) triples. */
struct key {
	int phase;
	uint64_t size;
	size_t index;
};

static int key_cmp(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	if (a->phase != b->phase)
		return a->phase < b->phase ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

void schedule_init(struct schedule *s, size_t n, const int *phase, const uint64_t *size)
{
	struct key *k = xmalloc((n ? n : 1) * sizeof *k);

	s->n = n;
	s->phase = phase;
	s->state = xmalloc((n ? n : 1) * sizeof *s->state);
	s->order = xmalloc((n ? n : 1) * sizeof *s->order);
	s->next_fetch = 0;
	for (size_t i = 0; i < n; i++) {
		k[i] = (struct key){ phase[i], size[i], i };
		s->state[i] = SCHED_WAITING;
	}
	qsort(k, n, sizeof *k, key_cmp);
	for (size_t i = 0; i < n; i++)
		s->order[i] = k[i].index;
	free(k);
}

void schedule_free(struct schedule *s)
{
	free(s->state);
	free(s->order);
}

long schedule_next_fetch(struct schedule *s)
{
	size_t i;

	if (s->next_fetch >= s->n)
		return -1;
	i = s->order[s->next_fetch++];
	s->state[i] = SCHED_FETCHING;
	return (long)i;
}

void schedule_fetched(struct schedule *s, size_t i)
{
	s->state[i] = SCHED_FETCHED;
}

long schedule_next_extract(struct schedule *s)
{
	int have_phase = 0, phase = 0, untaken = 0;

	/* The lowest phase with an archive not in the tree yet. */
	for (size_t i = 0; i < s->n; i++)
		if (s->state[i] != SCHED_DONE && (!have_phase || s->phase[i] < phase)) {
			phase = s->phase[i];
			have_phase = 1;
		}
	for (size_t k = 0; k < s->n; k++) {
		size_t i = s->order[k];

		if (s->state[i] == SCHED_FETCHED && s->phase[i] == phase) {
			s->state[i] = SCHED_EXTRACTING;
			return (long)i;
		}
		if (s->state[i] < SCHED_EXTRACTING)
			untaken = 1;
	}
	return untaken ? SCHED_WAIT : SCHED_END;
}

void schedule_extracted(struct schedule *s, size_t i)
{
	s->state[i] = SCHED_DONE;
}
