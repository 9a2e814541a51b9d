/* SHA-256, the one hash cuda-xcc checks downloads and files with: nettle's,
 * in the normal and in the static build alike, so that both binaries run
 * the same code (nettle picks the CPU's SHA instructions where it has
 * them). */
#ifndef XCC_SHA256_H
#define XCC_SHA256_H

#include <nettle/sha2.h>
#include <stddef.h>

struct xcc_sha256 {
	struct sha256_ctx ctx;
};

void xcc_sha256_init(struct xcc_sha256 *h);
void xcc_sha256_update(struct xcc_sha256 *h, const void *data, size_t len);
/* The digest of everything fed since init, as 64 lowercase hex digits;
 * h starts over, as after init. */
void xcc_sha256_hex(struct xcc_sha256 *h, char hex[65]);
/* The digest of data[0..len), as 64 lowercase hex digits: the one way a
 * buffer (a plan's text, a path) is hashed. */
void xcc_sha256_buffer(const void *data, size_t len, char hex[65]);

#endif
