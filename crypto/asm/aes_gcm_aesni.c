/*
 * AES-GCM with AES-NI and PCLMULQDQ intrinsics (SSE encodings only: the
 * getter asks for AESNI, PCLMUL, SSSE3 and SSE4.1, nothing more).
 *
 * Implementation notes
 * - Every function carries __attribute__((target(...))), so the file
 *   needs no global compiler flags; helpers are always_inline into them.
 * - The key schedule is AESKEYGENASSIST's (aes_ni_key.h: the same bytes
 *   as crypto/aes_ct.c's, about a sixth of its time); the round keys are
 *   just loaded from the context.
 * - CTR: the counter block is kept with its last 32-bit word in little-
 *   endian order, so one paddd steps it (wrapping mod 2^32 as GCM's inc32
 *   does) and one pshufb turns it back into the block.
 * - GHASH: the reflected representation and the pre-divided key powers
 *   of ghash_clmul.h (shared with the VAES backend); Karatsuba, three
 *   PCLMULQDQ per block, and two for each reduction.
 * - Bulk: 8 blocks in flight. GHASH is aggregated over 8 blocks,
 *   Y' = (Y + C1) H^8 + C2 H^7 + ... + C8 H, with a single reduction; its
 *   multiplies are interleaved with the AES rounds of the next 8 blocks
 *   (sealing hashes the previous 8 ciphertext blocks; opening hashes the
 *   blocks it is decrypting, read before they are overwritten).
 * - open compares tags with ct_memneq and zeroes the output under a mask,
 *   without a branch: only the lengths, and what the caller does with the
 *   return value, are observable.
 */
#include "crypto/asm/aes_gcm_asm.h"

#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/aes_ct.h"
#include "crypto/asm/aes_ni_key.h"
#include "crypto/asm/ghash_clmul.h"
#include "crypto/ct.h"

#define TARGET __attribute__((target("aes,pclmul,ssse3,sse4.1")))
#define INLINE static inline __attribute__((always_inline)) TARGET

typedef struct aes_gcm_aesni_ctx ctx_t;

_Static_assert(sizeof(((ctx_t *)0)->rk) >= 16 * (HS_AES_MAX_ROUNDS + 1), "round keys");

INLINE __m128i load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
INLINE void store(uint8_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }
/* Context loads: 16-byte aligned (aead.h asks for 64). */
INLINE __m128i cload(const uint8_t *p) { return _mm_load_si128((const __m128i *)(const void *)p); }
INLINE __m128i xor(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }

/* Reverse the last 4 bytes only: the counter word, big-endian <-> native. */
INLINE __m128i ctr_swap(__m128i v)
{
	const __m128i m = _mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);

	return _mm_shuffle_epi8(v, m);
}

/* The i-th counter block after ctr (ctr in native counter order). */
INLINE __m128i ctr_block(__m128i ctr, int i)
{
	return ctr_swap(_mm_add_epi32(ctr, _mm_set_epi32(i, 0, 0, 0)));
}

INLINE __m128i aes_block(const ctx_t *c, __m128i x)
{
	x = xor(x, cload(c->rk));
	for (unsigned r = 1; r < c->rounds; r++)
		x = _mm_aesenc_si128(x, cload(c->rk + 16 * r));
	return _mm_aesenclast_si128(x, cload(c->rk + 16 * c->rounds));
}

/* --- GHASH ------------------------------------------------------------- */

INLINE __m128i hk_load(const ctx_t *c, unsigned i) { return cload(c->hk[i]); }
INLINE __m128i hkx_load(const ctx_t *c, unsigned i) { return cload(c->hkx[i]); }

/* y = (y + X1) H^n + X2 H^(n-1) + ... + Xn H, for 1 <= n <= 8 whole blocks. */
INLINE __m128i ghash_n(const ctx_t *c, __m128i y, const uint8_t *p, unsigned n)
{
	struct gacc a;

	gacc_zero(&a);
	for (unsigned j = 0; j < n; j++) {
		__m128i x = ghash_bswap(load(p + 16 * j));
		if (j == 0)
			x = xor(x, y);
		gacc_mul(&a, x, hk_load(c, n - 1 - j), hkx_load(c, n - 1 - j));
	}
	return gacc_reduce(&a);
}

/* Absorb len bytes, zero-padding a last partial block. */
static TARGET __m128i ghash_bytes(const ctx_t *c, __m128i y, const uint8_t *p, size_t len)
{
	for (; len >= 128; p += 128, len -= 128)
		y = ghash_n(c, y, p, 8);
	if (len >= 16) {
		y = ghash_n(c, y, p, (unsigned)(len / 16));
		p += len & ~(size_t)15;
		len &= 15;
	}
	if (len > 0) {
		uint8_t last[16] = { 0 };
		memcpy(last, p, len);
		y = ghash_n(c, y, last, 1);
	}
	return y;
}

/* --- public entry points ------------------------------------------------ */

TARGET int aes_gcm_aesni_init(void *ctx, const uint8_t *key, size_t key_len)
{
	ctx_t *c = ctx;
	__m128i h, p, hk;
	unsigned rounds = aes_expand_aesni(c->rk, key, key_len);

	if (rounds == 0)
		return HS_ERR_ARG;
	c->rounds = rounds;
	h = ghash_bswap(aes_block(c, _mm_setzero_si128()));
	p = h;
	for (unsigned i = 0; i < HS_AESNI_HPOWERS; i++) {
		if (i > 0)
			p = ghash_mul(p, cload(c->hk[0])); /* H^(i+1) */
		hk = ghash_div_x(p);
		store(c->hk[i], hk);
		store(c->hkx[i], ghash_kx(hk));
	}
	return 0;
}

TARGET void aes_gcm_aesni_block(const void *ctx, const uint8_t in[16], uint8_t out[16])
{
	store(out, aes_block(ctx, load(in)));
}

/* The 8 counter blocks from *ctr, whitened with round key 0; *ctr += 8. */
INLINE void aes8_start(const ctx_t *c, __m128i s[8], __m128i *ctr)
{
	__m128i k = cload(c->rk);

#pragma GCC unroll 8
	for (int i = 0; i < 8; i++)
		s[i] = xor(ctr_block(*ctr, i), k);
	*ctr = _mm_add_epi32(*ctr, _mm_set_epi32(8, 0, 0, 0));
}

INLINE void aes8_round(__m128i s[8], __m128i k)
{
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++)
		s[i] = _mm_aesenc_si128(s[i], k);
}

/* Rounds r..last, then out = in ^ s for 8 blocks. */
INLINE void aes8_finish(const ctx_t *c, __m128i s[8], unsigned r, const uint8_t *in,
			uint8_t *out)
{
	__m128i k;

	for (; r < c->rounds; r++)
		aes8_round(s, cload(c->rk + 16 * r));
	k = cload(c->rk + 16 * r);
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++)
		s[i] = _mm_aesenclast_si128(s[i], k);
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++)
		store(out + 16 * i, xor(load(in + 16 * i), s[i]));
}

/* 8 blocks of CTR from *ctr (advanced by 8): out = in ^ keystream. */
static TARGET void ctr8(const ctx_t *c, __m128i *ctr, const uint8_t *in, uint8_t *out)
{
	__m128i s[8];

	aes8_start(c, s, ctr);
	aes8_finish(c, s, 1, in, out);
}

/*
 * ctr8, and y = GHASH over the 8 blocks at gh, one block's multiplies
 * after each of the first 8 AES rounds (the rounds are independent of the
 * hash, so the two units work side by side). gh may be in (it is read
 * before out is written) or the previous 8 blocks of out.
 */
INLINE __m128i ctr8_ghash8(const ctx_t *c, __m128i *ctr, const uint8_t *in, uint8_t *out,
			   const uint8_t *gh, __m128i y)
{
	__m128i s[8];
	struct gacc a;

	gacc_zero(&a);
	aes8_start(c, s, ctr);
#pragma GCC unroll 8
	for (unsigned r = 1; r <= 8; r++) {
		__m128i x = ghash_bswap(load(gh + 16 * (r - 1)));
		aes8_round(s, cload(c->rk + 16 * r));
		if (r == 1)
			x = xor(x, y);
		gacc_mul(&a, x, hk_load(c, 8 - r), hkx_load(c, 8 - r));
	}
	aes8_finish(c, s, 9, in, out);
	return gacc_reduce(&a);
}

/* n8 batches of 8 blocks; hashes each batch's input (the ciphertext). */
static TARGET __m128i bulk_open(const ctx_t *c, __m128i *ctr, const uint8_t *in, uint8_t *out,
				size_t n8, __m128i y)
{
	for (size_t i = 0; i < n8; i++, in += 128, out += 128)
		y = ctr8_ghash8(c, ctr, in, out, in, y);
	return y;
}

/* n8 > 0 batches of 8 blocks; hashes batch i's output during batch i + 1. */
static TARGET __m128i bulk_seal(const ctx_t *c, __m128i *ctr, const uint8_t *in, uint8_t *out,
				size_t n8, __m128i y)
{
	ctr8(c, ctr, in, out);
	for (size_t i = 1; i < n8; i++, in += 128, out += 128)
		y = ctr8_ghash8(c, ctr, in + 128, out + 128, out, y);
	return ghash_n(c, y, out, 8);
}

/* The last len < 128 bytes: one batch of 8 keystream blocks, then hash. */
static TARGET void ctr_tail(const ctx_t *c, __m128i ctr, const uint8_t *in, size_t len,
			    uint8_t *out, int decrypt, __m128i *y)
{
	uint8_t ks[128];
	size_t i = 0;

	if (len == 0)
		return;
	if (decrypt)
		*y = ghash_bytes(c, *y, in, len);
	memset(ks, 0, sizeof(ks));
	ctr8(c, &ctr, ks, ks); /* ks = the next 8 keystream blocks */
	for (; i + 16 <= len; i += 16)
		store(out + i, xor(load(in + i), load(ks + i)));
	for (; i < len; i++)
		out[i] = in[i] ^ ks[i];
	if (!decrypt)
		*y = ghash_bytes(c, *y, out, len);
	wipe(ks, sizeof(ks));
}

/*
 * CTR over len bytes from counter 2, hashing the ciphertext into *y;
 * returns E_K(J0), the tag mask.
 */
static TARGET __m128i gcm_crypt(const ctx_t *c, const uint8_t nonce[12], const uint8_t *in,
				size_t len, uint8_t *out, int decrypt, __m128i *y)
{
	uint8_t j0[16] = { [15] = 1 };
	__m128i ctr, mask;
	size_t n8 = len / 128;

	memcpy(j0, nonce, 12);
	ctr = ctr_swap(load(j0));
	mask = aes_block(c, ctr_block(ctr, 0));
	ctr = _mm_add_epi32(ctr, _mm_set_epi32(1, 0, 0, 0));
	if (decrypt)
		*y = bulk_open(c, &ctr, in, out, n8, *y);
	else if (n8 > 0)
		*y = bulk_seal(c, &ctr, in, out, n8, *y);
	ctr_tail(c, ctr, in + 128 * n8, len % 128, out + 128 * n8, decrypt, y);
	return mask;
}

/* The tag: GHASH of the length block, then masked with E_K(J0). */
INLINE __m128i gcm_tag(const ctx_t *c, __m128i y, size_t ad_len, size_t len, __m128i mask)
{
	/* [len(A)]_64 || [len(C)]_64 in bits, already in reflected order */
	__m128i lens = _mm_set_epi64x((long long)((uint64_t)ad_len * 8),
				      (long long)((uint64_t)len * 8));
	struct gacc a;

	gacc_zero(&a);
	gacc_mul(&a, xor(y, lens), hk_load(c, 0), hkx_load(c, 0));
	return xor(ghash_bswap(gacc_reduce(&a)), mask);
}

TARGET void aes_gcm_aesni_seal(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
				  size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	const ctx_t *c = ctx;
	__m128i y = ghash_bytes(c, _mm_setzero_si128(), ad, ad_len);
	__m128i mask = gcm_crypt(c, nonce, in, len, out, 0, &y);

	store(out + len, gcm_tag(c, y, ad_len, len, mask));
}

TARGET int aes_gcm_aesni_open(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
				 size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	const ctx_t *c = ctx;
	uint8_t tag[16];
	__m128i y, mask, keep;
	uint32_t bad;
	size_t i = 0;

	if (len < 16)
		return HS_ERR_BAD_TAG;
	len -= 16;
	y = ghash_bytes(c, _mm_setzero_si128(), ad, ad_len);
	mask = gcm_crypt(c, nonce, in, len, out, 1, &y);
	store(tag, gcm_tag(c, y, ad_len, len, mask));
	bad = ct_memneq(tag, in + len, 16);
	wipe(tag, sizeof(tag));
	/* keep is all-ones when the tag matched, else zero: out &= keep */
	keep = _mm_set1_epi32((int)(ct_barrier_u32(bad) - 1));
	for (; i + 16 <= len; i += 16)
		store(out + i, _mm_and_si128(load(out + i), keep));
	for (; i < len; i++)
		out[i] &= (uint8_t)_mm_cvtsi128_si32(keep);
	return (int)bad * HS_ERR_BAD_TAG;
}

#endif /* __x86_64__ */
