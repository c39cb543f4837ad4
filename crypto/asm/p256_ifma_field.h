/*
 * The P-256 field in AVX-512 IFMA lanes, radix 2^52: the one home of its
 * vector arithmetic, used by the fixed-base sum in eight lanes
 * (crypto/asm/p256_base_ifma.c, struct p256_fe8) and by ECDH's window, whose
 * products beside the scalar ones take four (crypto/asm/p256_point_adx.c,
 * struct p256_fe4: 256-bit vectors; lanes of 512-bit ones measured 6% slower
 * an ECDH). Internal to crypto/asm; the functions are static inline with
 * their width's target attributes (no global flags). The operations both
 * widths use are written once (p256_ifma_ops.h, included for each width:
 * p256_name_x4, p256_name_x8).
 *
 * - Limb i of every lane's element in l[i], five limbs. Stored elements
 *   are normalised (limbs below 2^52: IFMA reads only 52 bits) and below
 *   2^258, not necessarily below p.
 * - Montgomery form with R' = 2^260: a product is 25 low and 25 high
 *   IFMA halves into ten column sums, then five word-by-word reduction
 *   steps; for a, b < 2^258 the result (a b + M p) / 2^260 < 2^257, for
 *   a < 2^260 and b < p below 2p. A value of the scalar code (R = 2^256)
 *   read four bits up is the same element in R' form (from_u64, sh = 4).
 * - Subtractions (a - b + 8p, never negative) give limbs of either
 *   sign; fold() replaces the bits at and above 2^256 (t < 64 of them) by
 *   t (2^256 mod p) = t (2^224 - 2^192 - 2^96 + 1), a few shifts, adds p
 *   (so the uncarried low limbs cannot take the total below 0) and
 *   carries once with arithmetic shifts: normalised and below 2^258.
 * - Constant time: no branch, no index on values; lane selects by masks.
 */
#ifndef HS_CRYPTO_ASM_P256_IFMA_FIELD_H
#define HS_CRYPTO_ASM_P256_IFMA_FIELD_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define P256_IFMA_TGT8 __attribute__((target("avx512f,avx512ifma")))
#define P256_IFMA_TGT4 __attribute__((target("avx512f,avx512vl,avx512ifma")))
#define P256_IFMA_INL8 static inline __attribute__((always_inline)) P256_IFMA_TGT8
#define P256_IFMA_INL4 static inline __attribute__((always_inline)) P256_IFMA_TGT4
#define P256_IFMA_M52 (((uint64_t)1 << 52) - 1)

/* limb i of eight field elements in l[i] */
struct p256_fe8 {
	__m512i l[5];
};

/* limb i of four field elements in l[i] */
struct p256_fe4 {
	__m256i l[5];
};

static const uint64_t p_limbs[5] = { 0xfffffffffffffull, 0xfffffffffffull, 0, 0x1000000000ull,
				     0xffffffff0000ull };
static const uint64_t p8_limbs[5] = { 0xffffffffffff8ull, 0x7fffffffffffull, 0, 0x8000000000ull,
				      0x7fffffff80000ull };
static const uint64_t p16_limbs[5] = { 0xffffffffffff0ull, 0xffffffffffffull, 0, 0x10000000000ull,
				       0xffffffff00000ull };

#define VEC __m256i
#define FEV struct p256_fe4
#define VN(name) p256_##name##_x4
#define INLINE P256_IFMA_INL4
#define V_ADD _mm256_add_epi64
#define V_SUB _mm256_sub_epi64
#define V_AND _mm256_and_si256
#define V_OR _mm256_or_si256
#define V_SRLI _mm256_srli_epi64
#define V_SLLI _mm256_slli_epi64
#define V_SLLV _mm256_sllv_epi64
#define V_SRLV _mm256_srlv_epi64
#define V_SRAI _mm256_srai_epi64
#define V_SET1 _mm256_set1_epi64x
#define V_ZERO _mm256_setzero_si256
#define V_MADDLO _mm256_madd52lo_epu64
#define V_MADDHI _mm256_madd52hi_epu64
#define V_CMPLT_MASK _mm256_cmplt_epi64_mask
#define V_BLEND _mm256_mask_blend_epi64
#include "crypto/asm/p256_ifma_ops.h"

#define VEC __m512i
#define FEV struct p256_fe8
#define VN(name) p256_##name##_x8
#define INLINE P256_IFMA_INL8
#define V_ADD _mm512_add_epi64
#define V_SUB _mm512_sub_epi64
#define V_AND _mm512_and_si512
#define V_OR _mm512_or_si512
#define V_SRLI _mm512_srli_epi64
#define V_SLLI _mm512_slli_epi64
#define V_SLLV _mm512_sllv_epi64
#define V_SRLV _mm512_srlv_epi64
#define V_SRAI _mm512_srai_epi64
#define V_SET1 _mm512_set1_epi64
#define V_ZERO _mm512_setzero_si512
#define V_MADDLO _mm512_madd52lo_epu64
#define V_MADDHI _mm512_madd52hi_epu64
#define V_CMPLT_MASK _mm512_cmplt_epi64_mask
#define V_BLEND _mm512_mask_blend_epi64
#include "crypto/asm/p256_ifma_ops.h"

/* ---- eight lanes only (the fixed-base sum) ---- */

P256_IFMA_INL8 void fe8_const(struct p256_fe8 *r, const uint64_t c[5])
{
	for (int i = 0; i < 5; i++)
		r->l[i] = p256_bc_x8(c[i]);
}

/*
 * Signed limbs of a value V >= 0 (0 <= l4 < 2^58, |l0..l3| < 2^60) to
 * normalised limbs of a value below 2^258 congruent to V mod p, in one
 * carry pass: the bits of l4 from 2^256 up (t < 2^10) are replaced by
 * t (2^256 mod p) = t (2^224 - 2^192 - 2^96 + 1), and p is added so that
 * the not yet carried low limbs cannot make the total negative: the
 * result is in (p - 2^216, 2^256 + p + 2^234 + 2^216).
 */
P256_IFMA_INL8 void fold(struct p256_fe8 *r, __m512i l0, __m512i l1, __m512i l2, __m512i l3, __m512i l4)
{
	const __m512i m = p256_bc_x8(P256_IFMA_M52);
	const __m512i top = _mm512_srli_epi64(l4, 48); /* limb 4 holds bits 208.. */

	l4 = _mm512_and_si512(l4, p256_bc_x8(((uint64_t)1 << 48) - 1));
	l0 = _mm512_add_epi64(l0, _mm512_add_epi64(top, p256_bc_x8(p_limbs[0])));
	l1 = _mm512_add_epi64(l1, _mm512_sub_epi64(p256_bc_x8(p_limbs[1]), _mm512_slli_epi64(top, 44)));
	l3 = _mm512_add_epi64(l3, _mm512_sub_epi64(p256_bc_x8(p_limbs[3]), _mm512_slli_epi64(top, 36)));
	l4 = _mm512_add_epi64(l4, _mm512_add_epi64(p256_bc_x8(p_limbs[4]), _mm512_slli_epi64(top, 16)));
	l1 = _mm512_add_epi64(l1, _mm512_srai_epi64(l0, 52));
	r->l[0] = _mm512_and_si512(l0, m);
	l2 = _mm512_add_epi64(l2, _mm512_srai_epi64(l1, 52));
	r->l[1] = _mm512_and_si512(l1, m);
	l3 = _mm512_add_epi64(l3, _mm512_srai_epi64(l2, 52));
	r->l[2] = _mm512_and_si512(l2, m);
	l4 = _mm512_add_epi64(l4, _mm512_srai_epi64(l3, 52));
	r->l[3] = _mm512_and_si512(l3, m);
	r->l[4] = l4;
}

/* r = a - b + 8p (8p > 2^258 > b) */
P256_IFMA_INL8 void fsub(struct p256_fe8 *r, const struct p256_fe8 *a, const struct p256_fe8 *b)
{
	__m512i s[5];

	for (int i = 0; i < 5; i++)
		s[i] = _mm512_sub_epi64(_mm512_add_epi64(a->l[i], p256_bc_x8(p8_limbs[i])), b->l[i]);
	fold(r, s[0], s[1], s[2], s[3], s[4]);
}

/* r = a - b - 2c + 16p (16p > 3 * 2^258 > b + 2c), one fold: X3 of both additions */
P256_IFMA_INL8 void fsub2(struct p256_fe8 *r, const struct p256_fe8 *a, const struct p256_fe8 *b, const struct p256_fe8 *c)
{
	__m512i s[5];

	for (int i = 0; i < 5; i++)
		s[i] = _mm512_sub_epi64(
			_mm512_sub_epi64(_mm512_add_epi64(a->l[i], p256_bc_x8(p16_limbs[i])), b->l[i]),
			_mm512_add_epi64(c->l[i], c->l[i]));
	fold(r, s[0], s[1], s[2], s[3], s[4]);
}

/*
 * r = a b / 2^260 mod p (below 2^257), a, b below 2^258 (or a below
 * 2^260 and b below p: then below 2p). With split, the high halves go to
 * columns of their own, added at the end: more instructions, shorter
 * chains (for the latency-bound tree). Without norm the five result
 * columns stay uncarried (each below 2^57, the value still below 2^257):
 * only for fsub and fsub2, whose fold carries anyway (its bounds hold for
 * such limbs: |l0..l3| < 2^59, and limb 4 of b is below 2^49 since every
 * column is nonnegative).
 */
P256_IFMA_INL8 void fmul_s(struct p256_fe8 *r, const struct p256_fe8 *a, const struct p256_fe8 *b, int split, int norm)
{
	__m512i t[10], hi[10];

	p256_columns_x8(t, split ? hi : NULL, a, b, 0, 5);
	if (split)
		p256_join_x8(t, hi);
	p256_reduce_x8(t, 0, 5);
	if (!norm) {
		for (int i = 0; i < 5; i++)
			r->l[i] = t[5 + i];
		return;
	}
	p256_carry_x8(r, t);
}

P256_IFMA_INL8 void fmul(struct p256_fe8 *r, const struct p256_fe8 *a, const struct p256_fe8 *b)
{
	fmul_s(r, a, b, 0, 1);
}

P256_IFMA_INL8 void fsqr(struct p256_fe8 *r, const struct p256_fe8 *a)
{
	fmul(r, a, a);
}

/* a b, uncarried: only for fsub / fsub2 operands */
P256_IFMA_INL8 void fmul_u(struct p256_fe8 *r, const struct p256_fe8 *a, const struct p256_fe8 *b)
{
	fmul_s(r, a, b, 0, 0);
}

/* lanes where k is set take a */
P256_IFMA_INL8 void fblend(struct p256_fe8 *r, __mmask8 k, const struct p256_fe8 *a)
{
	for (int i = 0; i < 5; i++)
		r->l[i] = _mm512_mask_mov_epi64(r->l[i], k, a->l[i]);
}

#endif
