/*
 * Poly1305 block absorption with AVX2: four blocks at a time. Same result
 * as hs_poly1305_blocks_portable (crypto/poly1305.h).
 *
 * Implementation notes:
 * - Four accumulators, one per 64-bit lane, in radix 2^26 (five limb
 *   registers, one limb of each accumulator per lane). Blocks i, i+4,
 *   i+8, ... go to the same lane, so each step is A = A r^4 + M, and the
 *   last step multiplies the lanes by r^4, r^3, r^2, r instead; summing
 *   the lanes then gives h (m_1 r^n + m_2 r^(n-1) + ... + m_n r).
 * - Products are vpmuludq (32x32 -> 64 bits); 2^130 = 5 mod p folds the
 *   high partial products through s = 5 r.
 * - Bounds: after the partial carry, limbs are below 2^26 + 2^9, so with
 *   a block added A < 2^27 + 2^9 per limb, r^k limbs < 2^26 + 2^10 and
 *   5 r^k < 2^29: each product < 2^56, each sum of five < 2^59.
 * - Loading: unpacking two 32-byte loads splits four blocks into their low
 *   and high 64-bit halves in lane order (0, 2, 1, 3); the final powers are
 *   laid out in the same order.
 * - Scalar copies of h and of the powers are wiped; the vector values
 *   are never stored (their addresses are not taken, so they stay in
 *   registers: wiping them would force them into memory, and a spill
 *   slot the compiler chose cannot be reached from C anyway).
 * - Fewer than 16 blocks go to the portable code (the set-up would cost
 *   more than it saves). Only nblocks steers loops: constant time.
 */
#include <immintrin.h>

#include "base/wipe.h"
#include "crypto/poly1305.h"

#define AVX2 __attribute__((target("avx2")))

#define MUL(a, b) _mm256_mul_epu32((a), (b))
#define ADD(a, b) _mm256_add_epi64((a), (b))

/* Blocks m[0..63] as radix-2^26 limbs with the 2^128 bit, lanes = blocks 0, 2, 1, 3. */
AVX2 static inline void load4(const uint8_t *m, __m256i x[5])
{
	const __m256i mask = _mm256_set1_epi64x(0x3ffffff);
	__m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)m);
	__m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(m + 32));
	__m256i lo = _mm256_unpacklo_epi64(v0, v1);
	__m256i hi = _mm256_unpackhi_epi64(v0, v1);

	x[0] = _mm256_and_si256(lo, mask);
	x[1] = _mm256_and_si256(_mm256_srli_epi64(lo, 26), mask);
	x[2] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(lo, 52),
						_mm256_slli_epi64(hi, 12)), mask);
	x[3] = _mm256_and_si256(_mm256_srli_epi64(hi, 14), mask);
	x[4] = _mm256_or_si256(_mm256_srli_epi64(hi, 40), _mm256_set1_epi64x(1 << 24));
}

/* d = a r (no carry); s[i] = 5 r[i], s[0] unused. */
AVX2 static inline void mul(__m256i d[5], const __m256i a[5], const __m256i r[5],
			    const __m256i s[5])
{
	d[0] = ADD(ADD(ADD(MUL(a[0], r[0]), MUL(a[1], s[4])), ADD(MUL(a[2], s[3]), MUL(a[3], s[2]))),
		   MUL(a[4], s[1]));
	d[1] = ADD(ADD(ADD(MUL(a[0], r[1]), MUL(a[1], r[0])), ADD(MUL(a[2], s[4]), MUL(a[3], s[3]))),
		   MUL(a[4], s[2]));
	d[2] = ADD(ADD(ADD(MUL(a[0], r[2]), MUL(a[1], r[1])), ADD(MUL(a[2], r[0]), MUL(a[3], s[4]))),
		   MUL(a[4], s[3]));
	d[3] = ADD(ADD(ADD(MUL(a[0], r[3]), MUL(a[1], r[2])), ADD(MUL(a[2], r[1]), MUL(a[3], r[0]))),
		   MUL(a[4], s[4]));
	d[4] = ADD(ADD(ADD(MUL(a[0], r[4]), MUL(a[1], r[3])), ADD(MUL(a[2], r[2]), MUL(a[3], r[1]))),
		   MUL(a[4], r[0]));
}

/* d[i] -> d[i+1] carry of the bits above 26 (for i = 4: times 5 into d[0]). */
AVX2 static inline void carry1(__m256i d[5], int i)
{
	const __m256i mask = _mm256_set1_epi64x(0x3ffffff);
	__m256i c = _mm256_srli_epi64(d[i], 26);

	d[i] = _mm256_and_si256(d[i], mask);
	if (i == 4)
		d[0] = ADD(d[0], ADD(c, _mm256_slli_epi64(c, 2)));
	else
		d[i + 1] = ADD(d[i + 1], c);
}

/* Partial carry, two chains interleaved: limbs end below 2^26 + 2^9. */
AVX2 static inline void carry(__m256i d[5])
{
	carry1(d, 0);
	carry1(d, 3);
	carry1(d, 1);
	carry1(d, 4);
	carry1(d, 2);
	carry1(d, 0);
	carry1(d, 3);
}

AVX2 static inline uint64_t hsum(__m256i v)
{
	__m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
	return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
}

AVX2 void hs_poly1305_blocks_avx2(struct hs_poly1305 *st, const uint8_t *m, size_t nblocks)
{
	__m256i r[5], s[5], a[5], d[5], x[5];
	uint64_t h[5];
	size_t groups = nblocks / 4;

	if (nblocks < 16) {
		hs_poly1305_blocks_portable(st, m, nblocks);
		return;
	}
	hs_poly1305_powers(st, 4);
	hs_poly1305_h_to26(st, h);
	for (int i = 0; i < 5; i++) {
		r[i] = _mm256_set1_epi64x(st->rpow[3][i]);
		s[i] = _mm256_set1_epi64x(5 * (uint64_t)st->rpow[3][i]);
	}

	/* h joins the first block (lane 0) */
	load4(m, a);
	for (int i = 0; i < 5; i++)
		a[i] = ADD(a[i], _mm256_setr_epi64x((long long)h[i], 0, 0, 0));
	for (size_t g = 1; g < groups; g++) {
		mul(d, a, r, s);
		carry(d);
		load4(m + 64 * g, x);
		for (int i = 0; i < 5; i++)
			a[i] = ADD(d[i], x[i]);
	}

	/* lanes hold the last group's blocks 0, 2, 1, 3: times r^4, r^2, r^3, r */
	for (int i = 0; i < 5; i++) {
		r[i] = _mm256_setr_epi64x(st->rpow[3][i], st->rpow[1][i], st->rpow[2][i],
					  st->rpow[0][i]);
		s[i] = _mm256_add_epi64(r[i], _mm256_slli_epi64(r[i], 2));
	}
	mul(d, a, r, s);
	for (int i = 0; i < 5; i++)
		h[i] = hsum(d[i]);
	hs_poly1305_h_from26(st, h);
	hs_poly1305_blocks_portable(st, m + 64 * groups, nblocks % 4);

	hs_wipe(h, sizeof(h));
}
