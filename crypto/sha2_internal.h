/*
 * Private to the SHA-2 family (sha256.c, sha512.c, hash.c, asm/): the
 * SHA-256 compression backends and the streaming code parameterised by
 * one of them, so hash.c can build one struct hash per backend.
 *
 * A blocks function compresses nblocks whole 64-byte blocks at p into h.
 * Every backend gives bit-identical results.
 */
#ifndef HS_CRYPTO_SHA2_INTERNAL_H
#define HS_CRYPTO_SHA2_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/sha2.h"

typedef void sha256_blocks_fn(uint32_t h[8], const uint8_t *p, size_t nblocks);

/* FIPS 180-4, 4.2.2: the 64 round constants, shared by every backend. */
extern const uint32_t sha256_k[64];

void sha256_blocks_portable(uint32_t h[8], const uint8_t *p, size_t nblocks);

#if defined(__x86_64__)
#define HS_HAVE_SHA256_SHANI 1
/* Needs cpu_has(HS_CPU_SHANI | HS_CPU_SSE41 | HS_CPU_SSSE3). */
void sha256_blocks_shani(uint32_t h[8], const uint8_t *p, size_t nblocks);
#endif

/* The backend sha256_update/final use now: SHA-NI when the CPU has it. */
sha256_blocks_fn *sha256_blocks_best(void);

void sha256_update_with(struct sha256 *c, const void *p, size_t n,
			   sha256_blocks_fn *blocks);
void sha256_final_with(struct sha256 *c, uint8_t out[32], sha256_blocks_fn *blocks);

#endif
