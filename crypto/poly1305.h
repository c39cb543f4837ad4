/*
 * Poly1305 one-time authenticator (RFC 8439 section 2.5), internal to
 * crypto/. Streaming and one-shot. The 32-byte key (r || s) must never be
 * used for two messages; the AEAD derives a fresh one per nonce.
 *
 * Constant time: only the message length is observable.
 */
#ifndef HS_CRYPTO_POLY1305_H
#define HS_CRYPTO_POLY1305_H

#include <stddef.h>
#include <stdint.h>

#define HS_POLY1305_KEY_LEN 32
#define HS_POLY1305_TAG_LEN 16

struct hs_poly1305 {
	uint64_t r0, r1;     /* clamped r, radix 2^64 */
	uint64_t h0, h1, h2; /* accumulator h0 + h1 2^64 + h2 2^128, h2 small */
	uint64_t s0, s1;     /* s, added at the end */
	uint8_t buf[16];     /* a partial block waiting for more input */
	size_t buf_len;
};

void hs_poly1305_init(struct hs_poly1305 *st, const uint8_t key[32]);
void hs_poly1305_update(struct hs_poly1305 *st, const uint8_t *m, size_t len);
/* Writes the 16-byte tag and wipes the state. */
void hs_poly1305_final(struct hs_poly1305 *st, uint8_t tag[16]);
void hs_poly1305(const uint8_t key[32], const uint8_t *m, size_t len, uint8_t tag[16]);

#endif
