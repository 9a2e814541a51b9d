#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "sysroot/sysroot_claims.h"

struct claim {
	char *path;
	size_t owner;
	int rank;
	int busy; /* an archive works on it now */
};

/* FNV-1a: short paths, no adversary that gains by collisions here. */
static uint64_t hash_path(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void claims_init(struct claims *c)
{
	memset(c, 0, sizeof *c);
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->freed, NULL);
	c->cap = 1024;
	c->slots = xcalloc(c->cap, sizeof *c->slots);
}

void claims_free(struct claims *c)
{
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i]) {
			free(c->slots[i]->path);
			free(c->slots[i]);
		}
	free(c->slots);
	pthread_cond_destroy(&c->freed);
	pthread_mutex_destroy(&c->mu);
	memset(c, 0, sizeof *c);
}

/* The slot of path (open addressing, linear probing): its claim, or the
 * empty slot where it goes. */
static struct claim **slot_of(struct claim **slots, size_t cap, const char *path)
{
	size_t i = (size_t)hash_path(path) & (cap - 1);

	while (slots[i] && strcmp(slots[i]->path, path) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void grow(struct claims *c)
{
	size_t cap = c->cap * 2;
	struct claim **slots = xcalloc(cap, sizeof *slots);

	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i])
			*slot_of(slots, cap, c->slots[i]->path) = c->slots[i];
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
}

enum claim_verdict claims_take(struct claims *c, const char *path, size_t who, int rank,
			       size_t *owner)
{
	struct claim **s, *k;
	enum claim_verdict v;

	pthread_mutex_lock(&c->mu);
	/* The one who works on it never waits for another path meanwhile:
	 * no cycle, no deadlock. */
	while ((k = *(s = slot_of(c->slots, c->cap, path))) && k->busy)
		pthread_cond_wait(&c->freed, &c->mu);
	if (!k) {
		if (2 * (c->n + 1) > c->cap) {
			grow(c);
			s = slot_of(c->slots, c->cap, path);
		}
		k = *s = xcalloc(1, sizeof *k);
		k->path = xstrdup(path);
		k->owner = who;
		k->rank = rank;
		c->n++;
		v = CLAIM_MAKE;
	} else if (k->owner == who || k->rank < rank) {
		k->owner = who;
		k->rank = rank;
		v = CLAIM_MAKE;
	} else {
		v = k->rank > rank ? CLAIM_SKIP : CLAIM_COMPARE;
	}
	*owner = k->owner;
	k->busy = 1;
	pthread_mutex_unlock(&c->mu);
	return v;
}

void claims_release(struct claims *c, const char *path)
{
	struct claim *k;

	pthread_mutex_lock(&c->mu);
	k = *slot_of(c->slots, c->cap, path);
	if (k)
		k->busy = 0;
	pthread_cond_broadcast(&c->freed);
	pthread_mutex_unlock(&c->mu);
}
