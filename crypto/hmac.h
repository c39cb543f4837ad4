/*
 * HMAC (RFC 2104) over any struct hash. The key is absorbed at init, so
 * a keyed struct hmac may be copied to MAC several messages, and out
 * may overlap the key or the message.
 */
#ifndef HS_CRYPTO_HMAC_H
#define HS_CRYPTO_HMAC_H

#include "crypto/hash.h"

struct hmac {
	const struct hash *hash;
	union hash_ctx inner;
	union hash_ctx outer;
};

void hmac_init(struct hmac *m, const struct hash *h, const void *key, size_t key_len);
void hmac_update(struct hmac *m, const void *p, size_t n);
/* Writes hash->digest_len bytes and wipes the context. */
void hmac_final(struct hmac *m, uint8_t *out);
void hmac(const struct hash *h, const void *key, size_t key_len, const void *msg,
	     size_t msg_len, uint8_t *out);

#endif
