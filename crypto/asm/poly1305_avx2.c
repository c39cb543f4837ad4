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

#define VEC __m256i
#define V_ADD _mm256_add_epi64
#define V_MUL _mm256_mul_epu32
#define V_AND _mm256_and_si256
#define V_OR _mm256_or_si256
#define V_SRLI _mm256_srli_epi64
#define V_SLLI _mm256_slli_epi64
#define V_SET1 _mm256_set1_epi64x
#include "crypto/asm/poly1305_r26_ops.h"

/* Blocks m[0..63] as limbs, lanes = blocks 0, 2, 1, 3. */
INLINE struct v5 load4(const uint8_t *m)
{
	__m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)m);
	__m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(m + 32));

	return limbs(_mm256_unpacklo_epi64(v0, v1), _mm256_unpackhi_epi64(v0, v1));
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
