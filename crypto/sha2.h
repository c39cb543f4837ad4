/*
 * SHA-256, SHA-384 and SHA-512 (FIPS 180-4). Streaming and one-shot.
 * sha256_* use SHA-NI when cpu_has() reports it (checked on each
 * call; both backends give identical bits). p may be NULL when n is 0.
 */
#ifndef HS_CRYPTO_SHA2_H
#define HS_CRYPTO_SHA2_H

#include <stddef.h>
#include <stdint.h>

#define HS_SHA256_LEN 32
#define HS_SHA384_LEN 48
#define HS_SHA512_LEN 64

struct sha256 {
	uint32_t h[8];
	uint64_t count; /* bytes hashed so far */
	uint8_t buf[64];
};

/* SHA-384 shares the SHA-512 state; only IV and output length differ. */
struct sha512 {
	uint64_t h[8];
	uint64_t count; /* bytes hashed so far (2^64 bytes is plenty) */
	uint8_t buf[128];
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *p, size_t n);
/* Writes 32 bytes and wipes the context. */
void sha256_final(struct sha256 *c, uint8_t out[32]);
void sha256(const void *p, size_t n, uint8_t out[32]);

void sha384_init(struct sha512 *c);
void sha384_update(struct sha512 *c, const void *p, size_t n);
void sha384_final(struct sha512 *c, uint8_t out[48]);
void sha384(const void *p, size_t n, uint8_t out[48]);

void sha512_init(struct sha512 *c);
void sha512_update(struct sha512 *c, const void *p, size_t n);
void sha512_final(struct sha512 *c, uint8_t out[64]);
void sha512(const void *p, size_t n, uint8_t out[64]);

#endif
