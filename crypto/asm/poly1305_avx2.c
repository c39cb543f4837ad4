/*
 * Poly1305 block absorption with AVX2: four blocks at a time. Same result
 * as poly1305_blocks_portable (crypto/poly1305.h).
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
 * - The limbs live in a struct of named registers passed by value through
 *   always-inline helpers, so the compiler keeps them in registers (an
 *   array indexed in loops ended up in memory). Their addresses are never
 *   taken, so nothing vector-sized is stored to wipe; the scalar copies of
 *   h are wiped.
 * - Fewer than 16 blocks go to the portable code (the set-up would cost
 *   more than it saves). Only nblocks steers loops: constant time.
 */
#include <immintrin.h>

#include "base/wipe.h"
#include "crypto/poly1305.h"

#define AVX2 __attribute__((target("avx2")))
#define INLINE static inline __attribute__((target("avx2"), always_inline))

#define MUL(a, b) _mm256_mul_epu32((a), (b))
#define ADD(a, b) _mm256_add_epi64((a), (b))

/* Five radix-2^26 limbs of four accumulators (one per 64-bit lane). */
struct v5 {
	__m256i l0, l1, l2, l3, l4;
};

/* Blocks m[0..63] as limbs with the 2^128 bit, lanes = blocks 0, 2, 1, 3. */
INLINE struct v5 load4(const uint8_t *m)
{
	const __m256i mask = _mm256_set1_epi64x(0x3ffffff);
	__m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)m);
	__m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(m + 32));
	__m256i lo = _mm256_unpacklo_epi64(v0, v1);
	__m256i hi = _mm256_unpackhi_epi64(v0, v1);
	struct v5 x;

	x.l0 = _mm256_and_si256(lo, mask);
	x.l1 = _mm256_and_si256(_mm256_srli_epi64(lo, 26), mask);
	x.l2 = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(lo, 52),
						_mm256_slli_epi64(hi, 12)), mask);
	x.l3 = _mm256_and_si256(_mm256_srli_epi64(hi, 14), mask);
	x.l4 = _mm256_or_si256(_mm256_srli_epi64(hi, 40), _mm256_set1_epi64x(1 << 24));
	return x;
}

INLINE struct v5 add5(struct v5 a, struct v5 b)
{
	a.l0 = ADD(a.l0, b.l0);
	a.l1 = ADD(a.l1, b.l1);
	a.l2 = ADD(a.l2, b.l2);
	a.l3 = ADD(a.l3, b.l3);
	a.l4 = ADD(a.l4, b.l4);
	return a;
}

/* 5 x, as x + 4 x */
INLINE __m256i times5(__m256i x) { return ADD(x, _mm256_slli_epi64(x, 2)); }

/* a r mod p, not carried (the 2^130 wrap goes through 5 r). */
INLINE struct v5 mul(struct v5 a, struct v5 r)
{
	const __m256i s1 = times5(r.l1), s2 = times5(r.l2), s3 = times5(r.l3),
		      s4 = times5(r.l4);
	struct v5 d;

	d.l0 = ADD(ADD(ADD(MUL(a.l0, r.l0), MUL(a.l1, s4)), ADD(MUL(a.l2, s3), MUL(a.l3, s2))),
		   MUL(a.l4, s1));
	d.l1 = ADD(ADD(ADD(MUL(a.l0, r.l1), MUL(a.l1, r.l0)), ADD(MUL(a.l2, s4), MUL(a.l3, s3))),
		   MUL(a.l4, s2));
	d.l2 = ADD(ADD(ADD(MUL(a.l0, r.l2), MUL(a.l1, r.l1)), ADD(MUL(a.l2, r.l0), MUL(a.l3, s4))),
		   MUL(a.l4, s3));
	d.l3 = ADD(ADD(ADD(MUL(a.l0, r.l3), MUL(a.l1, r.l2)),
		       ADD(MUL(a.l2, r.l1), MUL(a.l3, r.l0))),
		   MUL(a.l4, s4));
	d.l4 = ADD(ADD(ADD(MUL(a.l0, r.l4), MUL(a.l1, r.l3)),
		       ADD(MUL(a.l2, r.l2), MUL(a.l3, r.l1))),
		   MUL(a.l4, r.l0));
	return d;
}

/* Partial carry, chains 0->1->2->3 and 3->4->0->1 interleaved: limbs end below 2^26 + 2^9. */
INLINE struct v5 carry(struct v5 d)
{
	const __m256i mask = _mm256_set1_epi64x(0x3ffffff);
	__m256i c;

	c = _mm256_srli_epi64(d.l0, 26);
	d.l0 = _mm256_and_si256(d.l0, mask);
	d.l1 = ADD(d.l1, c);
	c = _mm256_srli_epi64(d.l3, 26);
	d.l3 = _mm256_and_si256(d.l3, mask);
	d.l4 = ADD(d.l4, c);
	c = _mm256_srli_epi64(d.l1, 26);
	d.l1 = _mm256_and_si256(d.l1, mask);
	d.l2 = ADD(d.l2, c);
	c = _mm256_srli_epi64(d.l4, 26);
	d.l4 = _mm256_and_si256(d.l4, mask);
	d.l0 = ADD(d.l0, times5(c));
	c = _mm256_srli_epi64(d.l2, 26);
	d.l2 = _mm256_and_si256(d.l2, mask);
	d.l3 = ADD(d.l3, c);
	c = _mm256_srli_epi64(d.l0, 26);
	d.l0 = _mm256_and_si256(d.l0, mask);
	d.l1 = ADD(d.l1, c);
	c = _mm256_srli_epi64(d.l3, 26);
	d.l3 = _mm256_and_si256(d.l3, mask);
	d.l4 = ADD(d.l4, c);
	return d;
}

/* Lane k of limb i = p[k][i] (k = 0..3). */
INLINE struct v5 lanes(const uint32_t *p0, const uint32_t *p1, const uint32_t *p2,
		       const uint32_t *p3)
{
	struct v5 x;

	x.l0 = _mm256_setr_epi64x(p0[0], p1[0], p2[0], p3[0]);
	x.l1 = _mm256_setr_epi64x(p0[1], p1[1], p2[1], p3[1]);
	x.l2 = _mm256_setr_epi64x(p0[2], p1[2], p2[2], p3[2]);
	x.l3 = _mm256_setr_epi64x(p0[3], p1[3], p2[3], p3[3]);
	x.l4 = _mm256_setr_epi64x(p0[4], p1[4], p2[4], p3[4]);
	return x;
}

INLINE uint64_t hsum(__m256i v)
{
	__m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
	return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
}

AVX2 void poly1305_blocks_avx2(struct poly1305 *st, const uint8_t *m, size_t nblocks)
{
	const uint32_t(*p)[5] = st->rpow;
	size_t groups = nblocks / 4;
	struct v5 a, r, h0;
	uint64_t h[5];

	if (nblocks < 16) {
		poly1305_blocks_portable(st, m, nblocks);
		return;
	}
	poly1305_powers(st, 4);
	r = lanes(p[3], p[3], p[3], p[3]);

	/* h joins the first block (lane 0) */
	poly1305_h_to26(st, h);
	h0.l0 = _mm256_setr_epi64x((long long)h[0], 0, 0, 0);
	h0.l1 = _mm256_setr_epi64x((long long)h[1], 0, 0, 0);
	h0.l2 = _mm256_setr_epi64x((long long)h[2], 0, 0, 0);
	h0.l3 = _mm256_setr_epi64x((long long)h[3], 0, 0, 0);
	h0.l4 = _mm256_setr_epi64x((long long)h[4], 0, 0, 0);
	a = add5(load4(m), h0);
	for (size_t g = 1; g < groups; g++)
		a = add5(carry(mul(a, r)), load4(m + 64 * g));

	/* lanes hold the last group's blocks 0, 2, 1, 3: times r^4, r^2, r^3, r */
	a = mul(a, lanes(p[3], p[1], p[2], p[0]));
	h[0] = hsum(a.l0);
	h[1] = hsum(a.l1);
	h[2] = hsum(a.l2);
	h[3] = hsum(a.l3);
	h[4] = hsum(a.l4);
	poly1305_h_from26(st, h);
	wipe(h, sizeof(h));
	poly1305_blocks_portable(st, m + 64 * groups, nblocks % 4);
}
