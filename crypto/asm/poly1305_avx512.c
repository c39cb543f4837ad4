/*
 * Poly1305 block absorption with AVX-512F: eight blocks at a time. Same
 * result as poly1305_blocks_portable (crypto/poly1305.h).
 *
 * Implementation notes:
 * - The method of poly1305_avx2.c on eight 64-bit lanes: eight radix-2^26
 *   accumulators, A = A r^8 + M per step, and a last step by r^8 .. r
 *   (lane order below) before the lanes are summed. Same limb bounds.
 * - Two such chains, A on the even groups of eight blocks and B on the odd
 *   ones, each stepped by r^16: a step is a long dependency chain (products,
 *   sums, carries at two cycles each on Zen 5), and two independent ones
 *   overlap (measured: 0.216 -> 0.153 TSC cycles per byte). At the end
 *   A r^8 + B joins them, then a lone last group if the count is odd.
 *   r^16 is (r^8)^2, computed here in the vectors (one step's work).
 * - Loading: unpacking two 64-byte loads gives lanes in block order
 *   (0, 4, 1, 5, 2, 6, 3, 7); the final powers follow that order.
 * - Limbs in a struct of named registers through always-inline helpers,
 *   as in poly1305_avx2.c (kept in registers; only scalar h is wiped).
 * - Fewer than 32 blocks go to the AVX2 code (which itself sends fewer
 *   than 16 to the portable code). Only nblocks steers loops: constant
 *   time. Call only when cpu_has(HS_CPU_AVX512F | HS_CPU_AVX2).
 */
#include <immintrin.h>

#include "base/wipe.h"
#include "crypto/poly1305.h"

#define AVX512 __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((target("avx512f"), always_inline))

#define VEC __m512i
#define V_ADD _mm512_add_epi64
#define V_MUL _mm512_mul_epu32
#define V_AND _mm512_and_si512
#define V_OR _mm512_or_si512
#define V_SRLI _mm512_srli_epi64
#define V_SLLI _mm512_slli_epi64
#define V_SET1 _mm512_set1_epi64
#include "crypto/asm/poly1305_r26_ops.h"

/* Blocks m[0..127] as limbs, lanes = blocks 0, 4, 1, 5, 2, 6, 3, 7. */
INLINE struct v5 load8(const uint8_t *m)
{
	__m512i v0 = _mm512_loadu_si512(m);
	__m512i v1 = _mm512_loadu_si512(m + 64);

	return limbs(_mm512_unpacklo_epi64(v0, v1), _mm512_unpackhi_epi64(v0, v1));
}

/* Limb i, lane k = p[idx[k]][i]. */
INLINE __m512i lane_limb(const uint32_t (*p)[5], const int idx[8], int i)
{
	return _mm512_setr_epi64(p[idx[0]][i], p[idx[1]][i], p[idx[2]][i], p[idx[3]][i],
				 p[idx[4]][i], p[idx[5]][i], p[idx[6]][i], p[idx[7]][i]);
}

/* p[0..4] in every lane. */
INLINE struct v5 broadcast(const uint32_t p[5])
{
	struct v5 x;

	x.l0 = _mm512_set1_epi64(p[0]);
	x.l1 = _mm512_set1_epi64(p[1]);
	x.l2 = _mm512_set1_epi64(p[2]);
	x.l3 = _mm512_set1_epi64(p[3]);
	x.l4 = _mm512_set1_epi64(p[4]);
	return x;
}

INLINE struct v5 lanes(const uint32_t (*p)[5], const int idx[8])
{
	struct v5 x;

	x.l0 = lane_limb(p, idx, 0);
	x.l1 = lane_limb(p, idx, 1);
	x.l2 = lane_limb(p, idx, 2);
	x.l3 = lane_limb(p, idx, 3);
	x.l4 = lane_limb(p, idx, 4);
	return x;
}

/* Eight blocks m[0..127] joined to the accumulators: a r^k + m, carried. */
INLINE struct v5 step(struct v5 a, struct v5 rk, const uint8_t *m)
{
	return add5(carry(mul(a, rk)), load8(m));
}

AVX512 void poly1305_blocks_avx512(struct poly1305 *st, const uint8_t *m, size_t nblocks)
{
	/* rpow indexes: for lanes holding blocks 0, 4, 1, 5, 2, 6, 3, 7 of the
	 * last group, r^8, r^4, r^7, r^3, ... */
	static const int last[8] = { 7, 3, 6, 2, 5, 1, 4, 0 };
	size_t groups = nblocks / 8, g;
	struct v5 a, b, r8, r16, h0;
	uint64_t h[5];

	if (nblocks < 32) {
		poly1305_blocks_avx2(st, m, nblocks);
		return;
	}
	poly1305_powers(st, 8);
	r8 = broadcast(st->rpow[7]);

	/* h joins the first block (lane 0) */
	poly1305_h_to26(st, h);
	h0.l0 = _mm512_setr_epi64((long long)h[0], 0, 0, 0, 0, 0, 0, 0);
	h0.l1 = _mm512_setr_epi64((long long)h[1], 0, 0, 0, 0, 0, 0, 0);
	h0.l2 = _mm512_setr_epi64((long long)h[2], 0, 0, 0, 0, 0, 0, 0);
	h0.l3 = _mm512_setr_epi64((long long)h[3], 0, 0, 0, 0, 0, 0, 0);
	h0.l4 = _mm512_setr_epi64((long long)h[4], 0, 0, 0, 0, 0, 0, 0);
	/* two chains: a takes the even groups, b the odd ones, each step by r^16
	 * = (r^8)^2, carried: limbs below 2^26 + 2^9 like the rpow entries */
	r16 = carry(mul(r8, r8));
	a = add5(load8(m), h0);
	b = load8(m + 128);
	for (g = 2; g + 2 <= groups; g += 2) {
		a = step(a, r16, m + 128 * g);
		b = step(b, r16, m + 128 * g + 128);
	}
	/* a is one group behind b: a r^8 + b, then the odd group left, if any */
	a = add5(carry(mul(a, r8)), b);
	if (g < groups)
		a = step(a, r8, m + 128 * g);

	a = mul(a, lanes(st->rpow, last));
	h[0] = (uint64_t)_mm512_reduce_add_epi64(a.l0);
	h[1] = (uint64_t)_mm512_reduce_add_epi64(a.l1);
	h[2] = (uint64_t)_mm512_reduce_add_epi64(a.l2);
	h[3] = (uint64_t)_mm512_reduce_add_epi64(a.l3);
	h[4] = (uint64_t)_mm512_reduce_add_epi64(a.l4);
	poly1305_h_from26(st, h);
	wipe(h, sizeof(h));
	/* the rest (< 8 blocks) */
	poly1305_blocks_portable(st, m + 128 * groups, nblocks % 8);
}
