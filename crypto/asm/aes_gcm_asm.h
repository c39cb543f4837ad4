/*
 * AES-GCM backends built from compiler intrinsics (x86-64 only), called
 * through the aead tables of crypto/aes_gcm.c. Each needs the CPU
 * features its getter checks; nothing here checks them again.
 *
 * The context layouts are spelled out with plain C types so that the
 * tables can state their size; the .c files reinterpret them as vectors.
 */
#ifndef HS_CRYPTO_ASM_AES_GCM_ASM_H
#define HS_CRYPTO_ASM_AES_GCM_ASM_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/*
 * AES-NI + PCLMULQDQ (+ SSSE3, SSE4.1). rk: the expanded key in FIPS-197
 * byte order. hk[i]: H^(i+1) divided by x, in GHASH's reflected order read
 * as a 128-bit integer (byte-reversed block), so that a product needs no
 * shift; hkx[i] holds the XOR of hk[i]'s two 64-bit halves in its low half
 * (the middle Karatsuba factor).
 */
#define HS_AESNI_HPOWERS 8

struct aes_gcm_aesni_ctx {
	alignas(16) uint8_t rk[16 * 15];
	uint8_t hk[HS_AESNI_HPOWERS][16];
	uint8_t hkx[HS_AESNI_HPOWERS][16];
	unsigned rounds;
};

HS_MUST_CHECK int aes_gcm_aesni_init(void *ctx, const uint8_t *key, size_t key_len);
void aes_gcm_aesni_seal(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
			   size_t ad_len, const uint8_t *in, size_t len, uint8_t *out);
HS_MUST_CHECK int aes_gcm_aesni_open(const void *ctx, const uint8_t *nonce,
					const uint8_t *ad, size_t ad_len, const uint8_t *in,
					size_t len, uint8_t *out);
/* One raw AES block with the context's key (for the FIPS-197 tests). */
void aes_gcm_aesni_block(const void *ctx, const uint8_t in[16], uint8_t out[16]);

/*
 * VAES + VPCLMULQDQ on 512-bit vectors (AVX-512 F/BW/VL): four blocks per
 * register, 32 per batch, two batches per GHASH reduction. hk[i] =
 * H^(64 - i) divided by x (reflected), so a run of n <= 64 blocks uses
 * hk[64 - n ..]; four zero blocks follow, so that 64-byte loads near the
 * end stay inside the array and multiply by 0.
 */
#define HS_VAES_HPOWERS 64

struct aes_gcm_vaes512_ctx {
	alignas(64) uint8_t rk[16 * 15];
	alignas(64) uint8_t hk[HS_VAES_HPOWERS + 4][16];
	unsigned rounds;
};

HS_MUST_CHECK int aes_gcm_vaes512_init(void *ctx, const uint8_t *key, size_t key_len);
void aes_gcm_vaes512_seal(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
			  size_t ad_len, const uint8_t *in, size_t len, uint8_t *out);
HS_MUST_CHECK int aes_gcm_vaes512_open(const void *ctx, const uint8_t *nonce,
				       const uint8_t *ad, size_t ad_len, const uint8_t *in,
				       size_t len, uint8_t *out);
void aes_gcm_vaes512_block(const void *ctx, const uint8_t in[16], uint8_t out[16]);

#endif
