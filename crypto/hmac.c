/*
 * HMAC (RFC 2104; FIPS 198-1) over any struct hash.
 *
 * Implementation notes:
 * - A key longer than the block is hashed first (RFC 2104, section 2);
 *   the padded key is XORed with ipad (0x36) and opad (0x5c) and absorbed
 *   into the inner and outer contexts at init, so the key is not kept.
 * - The only branch is on key_len, which is public; the key bytes never
 *   steer a branch or an index.
 * - The padded key and the inner digest are wiped; final wipes the whole
 *   struct hmac. A struct hmac may be copied to reuse a keyed state
 *   (HKDF-Expand does this).
 */
#include "crypto/hmac.h"

#include <string.h>

#include "base/wipe.h"

static void xor_bytes(uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		p[i] ^= v;
}

void hmac_init(struct hmac *m, const struct hash *h, const void *key, size_t key_len)
{
	uint8_t k[HS_HASH_MAX_BLOCK];
	size_t bl = h->block_len;

	memset(k, 0, sizeof(k));
	if (key_len > bl)
		hash_digest(h, key, key_len, k);
	else if (key_len > 0)
		memcpy(k, key, key_len);
	m->hash = h;
	xor_bytes(k, bl, 0x36);
	h->init(&m->inner);
	h->update(&m->inner, k, bl);
	xor_bytes(k, bl, 0x36 ^ 0x5c); /* turns K ^ ipad into K ^ opad */
	h->init(&m->outer);
	h->update(&m->outer, k, bl);
	wipe(k, sizeof(k));
}

void hmac_update(struct hmac *m, const void *p, size_t n)
{
	m->hash->update(&m->inner, p, n);
}

void hmac_final(struct hmac *m, uint8_t *out)
{
	uint8_t d[HS_HASH_MAX_LEN];
	const struct hash *h = m->hash;

	h->final(&m->inner, d);
	h->update(&m->outer, d, h->digest_len);
	h->final(&m->outer, out);
	wipe(d, sizeof(d));
	wipe(m, sizeof(*m));
}

void hmac(const struct hash *h, const void *key, size_t key_len, const void *msg,
	     size_t msg_len, uint8_t *out)
{
	struct hmac m;

	hmac_init(&m, h, key, key_len);
	hmac_update(&m, msg, msg_len);
	hmac_final(&m, out);
}
