/*
 * The hash table: what HMAC, HKDF, the TLS transcript and signatures see of
 * a hash function. Contexts live in caller memory (union hash_ctx fits
 * every hash); a faster backend (SHA-NI) is one more table.
 */
#ifndef HS_CRYPTO_HASH_H
#define HS_CRYPTO_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/sha2.h"

#define HS_HASH_MAX_LEN 64
#define HS_HASH_MAX_BLOCK 128

union hash_ctx {
	struct sha256 sha256;
	struct sha512 sha512;
};

struct hash {
	const char *name;
	size_t digest_len;
	size_t block_len;
	void (*init)(union hash_ctx *c);
	void (*update)(union hash_ctx *c, const void *p, size_t n);
	/* writes digest_len bytes and wipes the context */
	void (*final)(union hash_ctx *c, uint8_t *out);
	/* digest_len bytes: the hash of the empty string (TLS 1.3's
	 * Derive-Secret(., ., "") hashes it), a constant shared by every
	 * backend of a hash, so the pointer also tells which hash h is */
	const uint8_t *empty;
};

/* The best implementation for this CPU (honours cpu_force_portable). */
const struct hash *hash_sha256(void);
const struct hash *hash_sha384(void);
const struct hash *hash_sha512(void);

/* One-shot convenience. */
void hash_digest(const struct hash *h, const void *p, size_t n, uint8_t *out);

#endif
