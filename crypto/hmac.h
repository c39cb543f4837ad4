/*
 * HMAC (RFC 2104) over any struct hs_hash. The key is absorbed at init, so
 * a keyed struct hs_hmac may be copied to MAC several messages, and out
 * may overlap the key or the message.
 */
#ifndef HS_CRYPTO_HMAC_H
#define HS_CRYPTO_HMAC_H

#include "crypto/hash.h"

struct hs_hmac {
	const struct hs_hash *hash;
	union hs_hash_ctx inner;
	union hs_hash_ctx outer;
};

void hs_hmac_init(struct hs_hmac *m, const struct hs_hash *h, const void *key, size_t key_len);
void hs_hmac_update(struct hs_hmac *m, const void *p, size_t n);
/* Writes hash->digest_len bytes and wipes the context. */
void hs_hmac_final(struct hs_hmac *m, uint8_t *out);
void hs_hmac(const struct hs_hash *h, const void *key, size_t key_len, const void *msg,
	     size_t msg_len, uint8_t *out);

#endif
