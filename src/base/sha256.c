#include <config.h>

#include "base/sha256.h"

void xcc_sha256_init(struct xcc_sha256 *h)
{
	sha256_init(&h->ctx);
}

void xcc_sha256_update(struct xcc_sha256 *h, const void *data, size_t len)
{
	sha256_update(&h->ctx, len, data);
}

void xcc_sha256_hex(struct xcc_sha256 *h, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[SHA256_DIGEST_SIZE];

	sha256_digest(&h->ctx, sizeof md, md);
	for (unsigned i = 0; i < sizeof md; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
}

void xcc_sha256_buffer(const void *data, size_t len, char hex[65])
{
	struct xcc_sha256 h;

	xcc_sha256_init(&h);
	xcc_sha256_update(&h, data, len);
	xcc_sha256_hex(&h, hex);
}
