/*
 * 128-bit GHASH pieces shared by the AES-NI and VAES backends (x86-64,
 * PCLMULQDQ). Header-only: static always_inline functions carrying their
 * own target attribute; they inline into any function whose target
 * includes pclmul and ssse3.
 *
 * Representation: a GCM block with its 16 bytes reversed, read as a
 * 128-bit integer ("reflected": the top bit is the coefficient of x^0).
 * Key powers are stored divided by x (div_x), so that the raw 255-bit
 * carry-less product of a value and a stored power is already the 256-bit
 * reflected product, with no shift (Gueron and Kounavis, "Intel
 * Carry-Less Multiplication Instruction and its Usage for Computing the
 * GCM Mode", 2010). Products are summed unreduced, then reduced once.
 */
#ifndef HS_CRYPTO_ASM_GHASH_CLMUL_H
#define HS_CRYPTO_ASM_GHASH_CLMUL_H

#include <immintrin.h>

#define GHASH_TARGET __attribute__((target("pclmul,ssse3")))
#define GHASH_INLINE static inline __attribute__((always_inline)) GHASH_TARGET

/* Reverse the 16 bytes: a GCM block <-> its reflected 128-bit integer. */
GHASH_INLINE __m128i ghash_bswap(__m128i v)
{
	const __m128i m = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);

	return _mm_shuffle_epi8(v, m);
}

/*
 * Reduce a 256-bit reflected value (hi: degrees 0..127, lo: 128..255)
 * modulo x^128 + x^7 + x^2 + x + 1. Each fold moves the low 64 bits of lo
 * (the highest degrees left) 128 degrees down: the x^0 term by swapping
 * the halves of lo, x + x^2 + x^7 by one PCLMULQDQ by 0xc2 << 56 (that
 * polynomial reflected in 64 bits and divided by x, to match the one-bit
 * offset of reflected products). After two folds lo holds degrees 0..127.
 */
GHASH_INLINE __m128i ghash_reduce(__m128i hi, __m128i lo)
{
	const __m128i poly = _mm_set_epi64x(0, (long long)0xc200000000000000u);

	lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), _mm_clmulepi64_si128(lo, poly, 0x00));
	lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), _mm_clmulepi64_si128(lo, poly, 0x00));
	return _mm_xor_si128(hi, lo);
}

/* Unreduced Karatsuba sums of a batch of products. */
struct gacc {
	__m128i lo, hi, mid;
};

GHASH_INLINE void gacc_zero(struct gacc *a)
{
	a->lo = a->hi = a->mid = _mm_setzero_si128();
}

/* a += x * hk, with hkx holding hk.lo ^ hk.hi in its low half. */
GHASH_INLINE void gacc_mul(struct gacc *a, __m128i x, __m128i hk, __m128i hkx)
{
	__m128i xx = _mm_xor_si128(x, _mm_shuffle_epi32(x, 0x4e));

	a->lo = _mm_xor_si128(a->lo, _mm_clmulepi64_si128(x, hk, 0x00));
	a->hi = _mm_xor_si128(a->hi, _mm_clmulepi64_si128(x, hk, 0x11));
	a->mid = _mm_xor_si128(a->mid, _mm_clmulepi64_si128(xx, hkx, 0x00));
}

/* The reduced sum: Karatsuba's middle term is mid - lo - hi. */
GHASH_INLINE __m128i gacc_reduce(const struct gacc *a)
{
	__m128i mid = _mm_xor_si128(a->mid, _mm_xor_si128(a->lo, a->hi));

	return ghash_reduce(_mm_xor_si128(a->hi, _mm_srli_si128(mid, 8)),
			    _mm_xor_si128(a->lo, _mm_slli_si128(mid, 8)));
}

/* hk.lo ^ hk.hi in the low half (the middle Karatsuba factor). */
GHASH_INLINE __m128i ghash_kx(__m128i hk)
{
	return _mm_move_epi64(_mm_xor_si128(hk, _mm_shuffle_epi32(hk, 0x4e)));
}

/* x * y for reflected x and a stored (divided) y: one multiply, reduced. */
GHASH_INLINE __m128i ghash_mul(__m128i x, __m128i hk)
{
	struct gacc a;

	gacc_zero(&a);
	gacc_mul(&a, x, hk, ghash_kx(hk));
	return gacc_reduce(&a);
}

/*
 * h divided by x mod P: shift the 128-bit integer left by one; if the x^0
 * bit fell out, add P / x = x^127 + x^6 + x + 1 (0xc2...01 reflected).
 * Branch-free: the mask comes from an arithmetic shift of the top bit.
 */
GHASH_INLINE __m128i ghash_div_x(__m128i h)
{
	__m128i top = _mm_shuffle_epi32(_mm_srai_epi32(h, 31), 0xff);
	__m128i shl = _mm_or_si128(_mm_slli_epi64(h, 1), _mm_slli_si128(_mm_srli_epi64(h, 63), 8));
	const __m128i p = _mm_set_epi64x((long long)0xc200000000000000u, 1);

	return _mm_xor_si128(shl, _mm_and_si128(top, p));
}

#endif
