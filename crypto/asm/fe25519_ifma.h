/*
 * GF(2^255 - 19) four elements at a time with AVX-512 IFMA on 256-bit
 * vectors (fe4), or eight on 512-bit vectors (fe8: two fe4 side by side)
 * (internal to crypto/asm/: x25519_ifma.c, ge25519_ifma.c).
 *
 * Implementation notes:
 * - The field operations are written once (fe25519_ifma_ops.h) and
 *   included twice, for each width; the bounds below hold lane by lane.
 * - Radix 2^51, five limbs, as crypto/fe25519.h. A vector fe4 holds limb
 *   k of four elements in lane j of v[k]. Bound kept between operations
 *   ("loose"): every limb < 2^51 + 2^15, so below 2^52, which
 *   VPMADD52LUQ/HUQ require of their inputs (they read only 52 bits).
 *   Portable elements are loose enough when every limb is below
 *   2^51 + 2^15: fe_mul/fe_sq results (limb 1 < 2^51 + 2^14, the others
 *   < 2^51), fe_sub results (limb 0 < 2^51 + 19 * 2^12), decoded bytes
 *   and table entries; pack4 callers pass only those.
 * - Product (any limbs < 2^52 in; loose out): for limbs a_i, b_j < 2^52, lo52(a_i b_j) has weight 2^(51(i+j))
 *   and hi52(a_i b_j) weight 2^(51(i+j)) 2^52 = 2 * 2^(51(i+j+1)); so
 *   column k is Z_k = L_k + 2 H_(k-1) < 15 * 2^52. Columns 5..9 fold down
 *   times 19 (2^255 = 19 mod p), giving R_k < 2^61; one parallel carry
 *   pass (every limb at once, the top carry times 19 into limb 0) brings
 *   each limb below 2^51 + 2^15.
 * - Addition and subtraction (a + 2p - b: no lane goes negative) are
 *   followed by the same carry pass; products by small constants use IFMA.
 * - Straight-line code: constant time.
 */
#ifndef HS_CRYPTO_ASM_FE25519_IFMA_H
#define HS_CRYPTO_ASM_FE25519_IFMA_H

#include <immintrin.h>
#include <stdint.h>

#include "crypto/fe25519.h"

#define TARGET __attribute__((target("avx2,avx512f,avx512vl,avx512ifma")))
#define INLINE static inline __attribute__((always_inline)) TARGET

typedef struct {
	__m256i v[5];
} fe4;

/* eight lanes: two fe4 side by side (lanes 0-3 and 4-7) */
typedef struct {
	__m512i v[5];
} fe8;

/* fe4 operations: carry4, fold4, mul4, sqr4, mul_small4, add4, sub4 */
#define VEC __m256i
#define FEV fe4
#define VN(name) name##4
#define V_ADD _mm256_add_epi64
#define V_SUB _mm256_sub_epi64
#define V_AND _mm256_and_si256
#define V_SRLI _mm256_srli_epi64
#define V_SLLI _mm256_slli_epi64
#define V_SET1 _mm256_set1_epi64x
#define V_ZERO _mm256_setzero_si256
#define V_MADDLO _mm256_madd52lo_epu64
#define V_MADDHI _mm256_madd52hi_epu64
#include "crypto/asm/fe25519_ifma_ops.h"

/* fe8 operations, the same on 512-bit vectors: carry8, fold8, mul8, ... */
#define VEC __m512i
#define FEV fe8
#define VN(name) name##8
#define V_ADD _mm512_add_epi64
#define V_SUB _mm512_sub_epi64
#define V_AND _mm512_and_si512
#define V_SRLI _mm512_srli_epi64
#define V_SLLI _mm512_slli_epi64
#define V_SET1 _mm512_set1_epi64
#define V_ZERO _mm512_setzero_si512
#define V_MADDLO _mm512_madd52lo_epu64
#define V_MADDHI _mm512_madd52hi_epu64
#include "crypto/asm/fe25519_ifma_ops.h"

/* lane permutation by immediate (lane j of r = lane sel_j of a) */
#define PERM4(r, a, imm)                                                                       \
	do {                                                                                   \
		for (int k_ = 0; k_ < 5; k_++)                                                 \
			(r)->v[k_] = _mm256_permute4x64_epi64((a)->v[k_], (imm));              \
	} while (0)

/* 32-bit-element blend by immediate: lanes (64-bit) with their two bits set come from b */
#define BLEND4(r, a, b, imm)                                                                   \
	do {                                                                                   \
		for (int k_ = 0; k_ < 5; k_++)                                                 \
			(r)->v[k_] = _mm256_blend_epi32((a)->v[k_], (b)->v[k_], (imm));        \
	} while (0)

/* the same in both halves of an fe8 (permutex works within 256-bit halves) */
#define PERM8(r, a, imm)                                                                       \
	do {                                                                                   \
		for (int k_ = 0; k_ < 5; k_++)                                                 \
			(r)->v[k_] = _mm512_permutex_epi64((a)->v[k_], (imm));                 \
	} while (0)

/* BLEND4's lanes (a LANES immediate) in both halves of an fe8 */
#define LANES8(imm) ((__mmask8)((((imm) & 1) | (((imm) >> 1) & 2) | (((imm) >> 2) & 4) |            \
				(((imm) >> 3) & 8)) * 0x11))
#define BLEND8(r, a, b, imm)                                                                   \
	do {                                                                                   \
		for (int k_ = 0; k_ < 5; k_++)                                                 \
			(r)->v[k_] = _mm512_mask_blend_epi64(LANES8(imm), (a)->v[k_], (b)->v[k_]); \
	} while (0)

#define SEL(l0, l1, l2, l3) ((l0) | ((l1) << 2) | ((l2) << 4) | ((l3) << 6))
#define LANES(m0, m1, m2, m3) (((m0) ? 0x03 : 0) | ((m1) ? 0x0c : 0) | ((m2) ? 0x30 : 0) | ((m3) ? 0xc0 : 0))

/* s = (e0, e1, e2, e3) */
INLINE void pack4(fe4 *s, const struct fe25519 *e0, const struct fe25519 *e1,
		  const struct fe25519 *e2, const struct fe25519 *e3)
{
	for (int k = 0; k < 5; k++)
		s->v[k] = _mm256_set_epi64x((long long)e3->v[k], (long long)e2->v[k],
					    (long long)e1->v[k], (long long)e0->v[k]);
}

/* r = (lo, hi): lo in lanes 0-3, hi in lanes 4-7 */
INLINE void join8(fe8 *r, const fe4 *lo, const fe4 *hi)
{
	for (int k = 0; k < 5; k++)
		r->v[k] = _mm512_inserti64x4(_mm512_castsi256_si512(lo->v[k]), hi->v[k], 1);
}

/* lo, hi = the halves of a */
INLINE void split8(fe4 *lo, fe4 *hi, const fe8 *a)
{
	for (int k = 0; k < 5; k++) {
		lo->v[k] = _mm512_castsi512_si256(a->v[k]);
		hi->v[k] = _mm512_extracti64x4_epi64(a->v[k], 1);
	}
}

/* e = lane j of s (limbs < 2^52: fit for the portable fe_mul) */
INLINE void lane4(struct fe25519 *e, const fe4 *s, int j)
{
	for (int k = 0; k < 5; k++) {
		uint64_t t[4];

		_mm256_storeu_si256((__m256i *)(void *)t, s->v[k]);
		e->v[k] = t[j];
	}
}

#endif
