/*
 * Poly1305 one-time authenticator (RFC 8439 section 2.5), internal to
 * crypto/. Streaming and one-shot. The 32-byte key (r || s) must never be
 * used for two messages; the AEAD derives a fresh one per nonce.
 *
 * Backends only differ in how whole 16-byte blocks are absorbed
 * (poly1305_blocks_*); init_with picks one. The SIMD ones use powers of
 * r in radix 2^26, computed once per message into the state.
 *
 * Constant time: only the message length is observable.
 */
#ifndef HS_CRYPTO_POLY1305_H
#define HS_CRYPTO_POLY1305_H

#include <stddef.h>
#include <stdint.h>

#define HS_POLY1305_KEY_LEN 32
#define HS_POLY1305_TAG_LEN 16

struct poly1305;

/* Absorb nblocks whole 16-byte blocks (each with its 2^128 bit). */
typedef void poly1305_blocks_fn(struct poly1305 *st, const uint8_t *m, size_t nblocks);

struct poly1305 {
	uint64_t r0, r1;       /* clamped r, radix 2^64 */
	uint64_t h0, h1, h2;   /* accumulator h0 + h1 2^64 + h2 2^128, h2 <= 4 */
	uint64_t s0, s1;       /* s, added at the end */
	uint32_t rpow[8][5];   /* rpow[i] = r^(i+1) in radix 2^26, limbs < 2^26 + 2^10 */
	unsigned npow;         /* how many of rpow are computed */
	poly1305_blocks_fn *blocks;
	uint8_t buf[16];       /* a partial block waiting for more input */
	size_t buf_len;
};

/* Portable backend. */
void poly1305_init(struct poly1305 *st, const uint8_t key[32]);
/* A given backend (call only the ones cpu_has allows). */
void poly1305_init_with(struct poly1305 *st, const uint8_t key[32],
			   poly1305_blocks_fn *blocks);
void poly1305_update(struct poly1305 *st, const uint8_t *m, size_t len);
/* Writes the 16-byte tag and wipes the state. */
void poly1305_final(struct poly1305 *st, uint8_t tag[16]);
void poly1305(const uint8_t key[32], const uint8_t *m, size_t len, uint8_t tag[16]);

/* The block functions. */
void poly1305_blocks_portable(struct poly1305 *st, const uint8_t *m, size_t nblocks);
/* crypto/asm/ (x86-64): HS_CPU_AVX2, 4 blocks at a time. */
void poly1305_blocks_avx2(struct poly1305 *st, const uint8_t *m, size_t nblocks);
/* crypto/asm/ (x86-64): HS_CPU_AVX512F | HS_CPU_AVX2, 8 blocks at a time. */
void poly1305_blocks_avx512(struct poly1305 *st, const uint8_t *m, size_t nblocks);
/* crypto/asm/ (x86-64): HS_CPU_AVX512F | HS_CPU_AVX512IFMA | HS_CPU_AVX2, radix 2^44. */
void poly1305_blocks_avx512ifma(struct poly1305 *st, const uint8_t *m, size_t nblocks);

/* ---- helpers for the SIMD backends (radix 2^26: x = sum l[i] 2^(26 i)) ---- */

/* Make sure rpow[0..n-1] hold r^1..r^n (n <= 8). */
void poly1305_powers(struct poly1305 *st, unsigned n);
/* h as five 26-bit limbs (the top one may reach 2^27). */
void poly1305_h_to26(const struct poly1305 *st, uint64_t l[5]);
/* h = the value of l (limbs < 2^62), carried and partially reduced. */
void poly1305_h_from26(struct poly1305 *st, const uint64_t l[5]);

#endif
