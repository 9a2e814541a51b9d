/* Who made each path of the tree being extracted, so that the tree never
 * depends on which worker got to a path first. Every archive has a rank
 * for each path it makes (its phase; below every phase for a header of an
 * archive whose headers yield): a higher rank replaces what a lower one
 * made, a lower one leaves it, and an equal rank compares its copy with
 * what is there. Thread-safe; one path is worked on by one archive at a
 * time. */
#ifndef XCC_SYSROOT_CLAIMS_H
#define XCC_SYSROOT_CLAIMS_H

#include <pthread.h>
#include <stddef.h>

enum claim_verdict {
	CLAIM_MAKE,    /* make it (replacing what a lower rank made) */
	CLAIM_SKIP,    /* a higher rank made it: leave it */
	CLAIM_COMPARE, /* an equal rank made it: compare with it */
};

struct claim;

struct claims {
	pthread_mutex_t mu;
	pthread_cond_t freed; /* a path was released */
	struct claim **slots;
	size_t n, cap; /* cap: a power of two */
};

void claims_init(struct claims *c);
void claims_free(struct claims *c);

/* Archive `who` of rank `rank` is about to make the non-directory entry
 * path. Waits while another archive works on path; on return the caller
 * works on it until claims_release, whatever the verdict. For
 * CLAIM_COMPARE and CLAIM_SKIP *owner is the archive that made it. */
enum claim_verdict claims_take(struct claims *c, const char *path, size_t who, int rank,
			       size_t *owner);
void claims_release(struct claims *c, const char *path);

#endif
