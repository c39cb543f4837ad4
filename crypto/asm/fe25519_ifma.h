/*
 * GF(2^255 - 19) four elements at a time with AVX-512 IFMA on 256-bit
 * vectors (internal to crypto/asm/: x25519_ifma.c, ge25519_ifma.c).
 *
 * Implementation notes:
 * - Radix 2^51, five limbs, as crypto/fe25519.h. A vector fe4 holds limb
 *   k of four elements in lane j of v[k]. Bound kept between operations
 *   ("loose"): every limb < 2^51 + 2^15, so below 2^52, which
 *   VPMADD52LUQ/HUQ require of their inputs (they read only 52 bits).
 *   Portable elements are loose enough when every limb is below
 *   2^51 + 2^15: fe_mul/fe_sq results (limb 1 < 2^51 + 2^14, the others
 *   < 2^51), fe_sub results (limb 0 < 2^51 + 19 * 2^12), decoded bytes
 *   and table entries; pack4 callers pass only those.
 * - Product: for limbs a_i, b_j < 2^52, lo52(a_i b_j) has weight 2^(51(i+j))
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

INLINE __m256i m51(void) { return _mm256_set1_epi64x((long long)FE_MASK51); }

/* 19 x for x < 2^59 (no IFMA: x may exceed 52 bits) */
INLINE __m256i times19(__m256i x)
{
	return _mm256_add_epi64(_mm256_add_epi64(_mm256_slli_epi64(x, 4), _mm256_slli_epi64(x, 1)),
				x);
}

/* One parallel carry pass: limbs < 2^62 in, < 2^51 + 19 * 2^11 out. */
INLINE void carry4(fe4 *r)
{
	__m256i c[5];

	for (int k = 0; k < 5; k++) {
		c[k] = _mm256_srli_epi64(r->v[k], 51);
		r->v[k] = _mm256_and_si256(r->v[k], m51());
	}
	for (int k = 1; k < 5; k++)
		r->v[k] = _mm256_add_epi64(r->v[k], c[k - 1]);
	/* c[4] < 2^11: 19 c[4] by IFMA is exact */
	r->v[0] = _mm256_madd52lo_epu64(r->v[0], c[4], _mm256_set1_epi64x(19));
}

/*
 * r = the product whose column sums of lo52 and hi52 halves are lo[k]
 * and hi[k] (each below 5 * 2^52): columns, fold times 19, carry.
 */
INLINE void fold4(fe4 *r, const __m256i lo[9], const __m256i hi[9])
{
	__m256i z[10];

	z[0] = lo[0];
	for (int k = 1; k < 9; k++)
		z[k] = _mm256_add_epi64(lo[k], _mm256_add_epi64(hi[k - 1], hi[k - 1]));
	z[9] = _mm256_add_epi64(hi[8], hi[8]);
	for (int k = 0; k < 5; k++)
		r->v[k] = _mm256_add_epi64(z[k], times19(z[k + 5]));
	carry4(r);
}

/* r = a b, lane by lane; inputs loose, output loose. r may alias a or b. */
INLINE void mul4(fe4 *r, const fe4 *a, const fe4 *b)
{
	__m256i lo[9], hi[9];

	for (int k = 0; k < 9; k++)
		lo[k] = hi[k] = _mm256_setzero_si256();
	for (int i = 0; i < 5; i++) {
		for (int j = 0; j < 5; j++) {
			lo[i + j] = _mm256_madd52lo_epu64(lo[i + j], a->v[i], b->v[j]);
			hi[i + j] = _mm256_madd52hi_epu64(hi[i + j], a->v[i], b->v[j]);
		}
	}
	fold4(r, lo, hi);
}

/*
 * r = a^2, lane by lane: the ten products a_i a_j (i < j) once, their
 * column sums doubled, then the five squares added (30 IFMA instead of
 * mul4's 50); the same column bounds as mul4, so the same fold.
 */
INLINE void sqr4(fe4 *r, const fe4 *a)
{
	__m256i lo[9], hi[9];

	for (int k = 0; k < 9; k++)
		lo[k] = hi[k] = _mm256_setzero_si256();
	for (int i = 0; i < 5; i++) {
		for (int j = i + 1; j < 5; j++) {
			lo[i + j] = _mm256_madd52lo_epu64(lo[i + j], a->v[i], a->v[j]);
			hi[i + j] = _mm256_madd52hi_epu64(hi[i + j], a->v[i], a->v[j]);
		}
	}
	for (int k = 0; k < 9; k++) {
		lo[k] = _mm256_add_epi64(lo[k], lo[k]);
		hi[k] = _mm256_add_epi64(hi[k], hi[k]);
	}
	for (int i = 0; i < 5; i++) {
		lo[2 * i] = _mm256_madd52lo_epu64(lo[2 * i], a->v[i], a->v[i]);
		hi[2 * i] = _mm256_madd52hi_epu64(hi[2 * i], a->v[i], a->v[i]);
	}
	fold4(r, lo, hi);
}

/* r = a n for a constant n < 2^32, lane by lane (IFMA lo/hi as in mul4). */
INLINE void mul_small4(fe4 *r, const fe4 *a, uint32_t n)
{
	__m256i vn = _mm256_set1_epi64x(n), lo[5], hi[5], z = _mm256_setzero_si256();

	for (int k = 0; k < 5; k++) {
		lo[k] = _mm256_madd52lo_epu64(z, a->v[k], vn);
		hi[k] = _mm256_madd52hi_epu64(z, a->v[k], vn);
	}
	r->v[0] = _mm256_add_epi64(lo[0], times19(_mm256_add_epi64(hi[4], hi[4])));
	for (int k = 1; k < 5; k++)
		r->v[k] = _mm256_add_epi64(lo[k], _mm256_add_epi64(hi[k - 1], hi[k - 1]));
	carry4(r);
}

INLINE void add4(fe4 *r, const fe4 *a, const fe4 *b)
{
	for (int k = 0; k < 5; k++)
		r->v[k] = _mm256_add_epi64(a->v[k], b->v[k]);
	carry4(r);
}

/* r = a + 2p - b: 2p's limbs exceed any loose limb, so nothing goes negative */
INLINE void sub4(fe4 *r, const fe4 *a, const fe4 *b)
{
	const __m256i p0 = _mm256_set1_epi64x((long long)(2 * (FE_MASK51 - 18)));
	const __m256i pk = _mm256_set1_epi64x((long long)(2 * FE_MASK51));

	for (int k = 0; k < 5; k++)
		r->v[k] = _mm256_sub_epi64(_mm256_add_epi64(a->v[k], k == 0 ? p0 : pk), b->v[k]);
	carry4(r);
}

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
