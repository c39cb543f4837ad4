/*
 * X25519 Montgomery ladder with AVX-512 IFMA on 256-bit vectors: the four
 * field elements of the ladder state travel together, one per 64-bit lane,
 * and each step is three 4-way multiplications.
 *
 * Implementation notes:
 * - Radix 2^51, five limbs, as crypto/fe25519.h, so the input and the
 *   final inversion and encoding are the portable ones (fe_frombytes,
 *   fe_invert, fe_tobytes): the output is canonical and equal bit
 *   for bit to the portable ladder's (tests/crypto/test_x25519.c checks).
 * - A vector fe4 holds limb k of four elements in lane j of v[k].
 *   Bound kept between operations ("loose"): every limb < 2^51 + 2^15, so
 *   below 2^52, which VPMADD52LUQ/HUQ require of their inputs (they read
 *   only 52 bits).
 * - Product: for limbs a_i, b_j < 2^52, lo52(a_i b_j) has weight 2^(51(i+j))
 *   and hi52(a_i b_j) weight 2^(51(i+j)) 2^52 = 2 * 2^(51(i+j+1)); so
 *   column k is Z_k = L_k + 2 H_(k-1) < 15 * 2^52. Columns 5..9 fold down
 *   times 19 (2^255 = 19 mod p), giving R_k < 2^61; one parallel carry
 *   pass (every limb at once, the top carry times 19 into limb 0) brings
 *   each limb below 2^51 + 2^15.
 * - Addition and subtraction (a + 2p - b: no lane goes negative) are
 *   followed by the same carry pass; the product by a24 uses IFMA too.
 * - One ladder step (RFC 7748 5) with lanes (x2, z2, x3, z3):
 *     round 1: (A, B, D, C) * (A, B, A, B)             = (AA, BB, DA, CB)
 *     round 2: (AA, E, DA+CB, DA-CB)
 *              * (BB, AA + a24 E, DA+CB, DA-CB)         = (x2, z2, x3, z3/x1)
 *     round 3: * (1, 1, 1, x1)
 *   Lane moves are fixed permutations and blends (immediates).
 * - Constant time: the swap is a masked XOR on all lanes; no branch and
 *   no memory index depends on the scalar or the point. What may leak:
 *   nothing but that this backend ran. valgrind cannot run AVX-512, so
 *   tests/ct/dudect.c checks this code statistically.
 * - The ladder state and scratch are wiped.
 */
#include "crypto/x25519.h"

#if defined(HS_HAVE_X25519_IFMA)

#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/fe25519.h"

#include "crypto/asm/fe25519_ifma.h"

struct ladder4 {
	fe4 s, r3, p, q, t, l, r, x, y, sum, dif, k;
};

/* One ladder step on s = (x2, z2, x3, z3); r3 = (1, 1, 1, x1). */
INLINE void step4(struct ladder4 *w)
{
	/* round 1 */
	PERM4(&w->p, &w->s, SEL(0, 0, 2, 2));                /* x2 x2 x3 x3 */
	PERM4(&w->q, &w->s, SEL(1, 1, 3, 3));                /* z2 z2 z3 z3 */
	add4(&w->sum, &w->p, &w->q);
	sub4(&w->dif, &w->p, &w->q);
	BLEND4(&w->t, &w->sum, &w->dif, LANES(0, 1, 0, 1)); /* A B C D */
	PERM4(&w->l, &w->t, SEL(0, 1, 3, 2));                /* A B D C */
	PERM4(&w->r, &w->t, SEL(0, 1, 0, 1));                /* A B A B */
	mul4(&w->t, &w->l, &w->r);                           /* AA BB DA CB */
	/* round 2 */
	PERM4(&w->x, &w->t, SEL(0, 0, 2, 2));                /* AA AA DA DA */
	PERM4(&w->y, &w->t, SEL(1, 1, 3, 3));                /* BB BB CB CB */
	add4(&w->sum, &w->x, &w->y);                         /* lane 2: DA + CB */
	sub4(&w->dif, &w->x, &w->y);                         /* lane 1: E, lane 3: DA - CB */
	mul_small4(&w->k, &w->dif, 121665);                  /* lane 1: a24 E */
	add4(&w->k, &w->k, &w->x);                           /* lane 1: AA + a24 E */
	/* l = (AA, E, DA+CB, DA-CB), r = (BB, AA + a24 E, DA+CB, DA-CB) */
	BLEND4(&w->l, &w->x, &w->dif, LANES(0, 1, 0, 1));
	BLEND4(&w->l, &w->l, &w->sum, LANES(0, 0, 1, 0));
	BLEND4(&w->r, &w->y, &w->k, LANES(0, 1, 0, 0));
	BLEND4(&w->r, &w->r, &w->sum, LANES(0, 0, 1, 0));
	BLEND4(&w->r, &w->r, &w->dif, LANES(0, 0, 0, 1));
	mul4(&w->t, &w->l, &w->r);
	/* round 3: z3 = x1 (DA - CB)^2 */
	mul4(&w->s, &w->t, &w->r3);
}

/* Swap lanes (0, 1) with (2, 3) of s when mask is all-ones; masked XOR. */
INLINE void cswap4(fe4 *s, uint64_t mask)
{
	__m256i m = _mm256_set1_epi64x((long long)ct_barrier_u64(mask));

	for (int k = 0; k < 5; k++) {
		__m256i o = _mm256_permute4x64_epi64(s->v[k], SEL(2, 3, 0, 1));
		s->v[k] = _mm256_xor_si256(s->v[k],
					   _mm256_and_si256(m, _mm256_xor_si256(s->v[k], o)));
	}
}

TARGET void x25519_ladder_ifma(uint8_t out[32], const uint8_t k[32], const uint8_t u[32])
{
	struct ladder4 w;
	struct fe25519 x1, one, zero, x2, z2, zinv;
	uint64_t swap = 0;

	fe_frombytes(&x1, u);
	fe_1(&one);
	fe_0(&zero);
	pack4(&w.s, &one, &zero, &x1, &one);   /* x2 = 1, z2 = 0, x3 = x1, z3 = 1 */
	pack4(&w.r3, &one, &one, &one, &x1);
	for (int t = 254; t >= 0; t--) {
		/* bit t of the scalar, as a 0 / all-ones mask */
		uint64_t bit = 0 - (uint64_t)((k[t >> 3] >> (t & 7)) & 1);

		swap ^= bit;
		cswap4(&w.s, swap);
		swap = bit;
		step4(&w);
	}
	cswap4(&w.s, swap);
	lane4(&x2, &w.s, 0);
	lane4(&z2, &w.s, 1);
	fe_invert(&zinv, &z2);
	fe_mul(&x2, &x2, &zinv);
	fe_tobytes(out, &x2);
	wipe(&w, sizeof(w));
	wipe(&x2, sizeof(x2));
	wipe(&z2, sizeof(z2));
	wipe(&zinv, sizeof(zinv));
	wipe(&swap, sizeof(swap));
}

#endif
