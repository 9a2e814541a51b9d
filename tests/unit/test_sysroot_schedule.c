/* The order of create's work: largest first within a phase, a phase only
 * after the one before it is in the tree, a verified archive taken while
 * others still download, and an unfetched one never. */
#include <config.h>

#include "sysroot/sysroot_schedule.h"
#include "tap.h"

/* Sizes in plan order; phase 0 unless given. */
static void largest_first(void)
{
	int phase[] = { 0, 0, 0, 0, 0 };
	uint64_t size[] = { 10, 500, 0, 500, 70 };
	size_t want[] = { 1, 3, 4, 0, 2 }; /* ties in plan order, unknown last */
	struct schedule s;
	int same = 1;

	schedule_init(&s, 5, phase, size);
	for (size_t k = 0; k < 5; k++) {
		long i = schedule_next_fetch(&s);

		if (i != (long)want[k]) {
			printf("#   fetch %zu: got %ld, expected %zu\n", k, i, want[k]);
			same = 0;
		}
	}
	ok(same, "downloads go largest first, ties in the plan's order, unknown sizes last");
	ok(schedule_next_fetch(&s) == -1, "then none is left to download");
	schedule_free(&s);
}

static void overlap(void)
{
	int phase[] = { 0, 0, 0 };
	uint64_t size[] = { 100, 300, 200 };
	struct schedule s;
	long a, b, c;

	schedule_init(&s, 3, phase, size);
	ok(schedule_next_extract(&s) == SCHED_WAIT, "nothing is extracted before it is fetched");
	a = schedule_next_fetch(&s);
	ok(a == 1, "the largest downloads first");
	ok(schedule_next_extract(&s) == SCHED_WAIT, "nor while it is downloading");
	schedule_fetched(&s, (size_t)a);
	b = schedule_next_fetch(&s);
	ok(b == 2, "the next download starts when the first is verified");
	ok(schedule_next_extract(&s) == a, "and the first is extracted meanwhile");
	ok(schedule_next_extract(&s) == SCHED_WAIT,
	   "a second worker waits: the second archive is still on the wire");
	schedule_fetched(&s, (size_t)b);
	c = schedule_next_fetch(&s);
	ok(schedule_next_extract(&s) == b, "the second worker takes it while the third downloads");
	schedule_extracted(&s, (size_t)a);
	schedule_fetched(&s, (size_t)c);
	ok(schedule_next_extract(&s) == c, "the third");
	ok(schedule_next_extract(&s) == SCHED_END, "then every archive is taken");
	schedule_free(&s);
}

/* A verified small archive does not wait for a bigger one still on the
 * wire (several downloads, or a cache holding some). */
static void ready_first(void)
{
	int phase[] = { 0, 0 };
	uint64_t size[] = { 900, 5 };
	struct schedule s;

	schedule_init(&s, 2, phase, size);
	schedule_next_fetch(&s);
	schedule_next_fetch(&s);
	schedule_fetched(&s, 1);
	ok(schedule_next_extract(&s) == 1, "a fetched archive is taken though a larger one is not");
	schedule_free(&s);
}

static void phases(void)
{
	/* plan order: a phase-1 archive (the largest), two of phase 0 */
	int phase[] = { 1, 0, 0 };
	uint64_t size[] = { 1000, 10, 20 };
	struct schedule s;

	schedule_init(&s, 3, phase, size);
	ok(schedule_next_fetch(&s) == 2, "phase 0 downloads first, its largest first");
	ok(schedule_next_fetch(&s) == 1, "then the rest of phase 0");
	ok(schedule_next_fetch(&s) == 0, "then phase 1");
	schedule_fetched(&s, 0);
	ok(schedule_next_extract(&s) == SCHED_WAIT, "phase 1 waits for phase 0, even when fetched");
	schedule_fetched(&s, 2);
	schedule_fetched(&s, 1);
	ok(schedule_next_extract(&s) == 2, "phase 0's largest");
	ok(schedule_next_extract(&s) == 1, "phase 0's other");
	ok(schedule_next_extract(&s) == SCHED_WAIT,
	   "phase 1 waits while phase 0 is still being extracted");
	schedule_extracted(&s, 2);
	ok(schedule_next_extract(&s) == SCHED_WAIT, "and while one of phase 0 is");
	schedule_extracted(&s, 1);
	ok(schedule_next_extract(&s) == 0, "phase 1 once phase 0 is in the tree");
	schedule_extracted(&s, 0);
	ok(schedule_next_extract(&s) == SCHED_END, "then the end");
	schedule_free(&s);
}

static void empty(void)
{
	struct schedule s;

	schedule_init(&s, 0, NULL, NULL);
	ok(schedule_next_fetch(&s) == -1, "an empty plan downloads nothing");
	ok(schedule_next_extract(&s) == SCHED_END, "and extracts nothing");
	schedule_free(&s);
}

int main(void)
{
	largest_first();
	overlap();
	ready_first();
	phases();
	empty();
	return done_testing();
}
