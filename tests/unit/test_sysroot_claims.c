/* Who makes a path of the tree: the same answer whichever archive gets
 * there first, so that the tree never depends on the workers' order. */
#include <config.h>

#include "sysroot/sysroot_claims.h"
#include "tap.h"

static enum claim_verdict take(struct claims *c, const char *path, size_t who, int rank,
			       size_t *owner)
{
	enum claim_verdict v = claims_take(c, path, who, rank, owner);

	claims_release(c, path);
	return v;
}

static void ranks(void)
{
	struct claims c;
	size_t owner = 99;

	claims_init(&c);
	ok(take(&c, "lib/a", 0, 0, &owner) == CLAIM_MAKE && owner == 0, "the first makes a path");
	ok(take(&c, "lib/a", 0, 0, &owner) == CLAIM_MAKE, "the same archive again replaces its own");
	ok(take(&c, "lib/a", 1, 0, &owner) == CLAIM_COMPARE && owner == 0,
	   "another of the same rank compares with the first's");
	ok(take(&c, "lib/a", 2, 1, &owner) == CLAIM_MAKE && owner == 2,
	   "a higher rank (a later phase) replaces it");
	ok(take(&c, "lib/a", 3, 0, &owner) == CLAIM_SKIP && owner == 2, "a lower rank leaves it");
	ok(take(&c, "include/h", 4, -1, &owner) == CLAIM_MAKE, "a yielding header makes a new path");
	ok(take(&c, "include/h", 5, 1, &owner) == CLAIM_MAKE && owner == 5,
	   "and any other archive's copy replaces it, whichever came first");
	ok(take(&c, "include/h", 4, -1, &owner) == CLAIM_SKIP, "after which it yields");
	claims_free(&c);
}

/* Past the first table's size: every path is still found. */
static void many(void)
{
	struct claims c;
	char path[32];
	size_t owner;
	int found = 1;

	claims_init(&c);
	for (int i = 0; i < 5000; i++) {
		snprintf(path, sizeof path, "lib/f%d", i);
		take(&c, path, 0, 0, &owner);
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(path, sizeof path, "lib/f%d", i);
		if (take(&c, path, 1, 0, &owner) != CLAIM_COMPARE)
			found = 0;
	}
	ok(found, "5000 paths: each one known after the table grew");
	claims_free(&c);
}

int main(void)
{
	ranks();
	many();
	return done_testing();
}
