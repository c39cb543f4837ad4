/*
 * Scalar multiplications on edwards25519 with AVX-512 IFMA: the
 * four extended coordinates (X, Y, Z, T) of the accumulator travel in the
 * four lanes of one fe4 (crypto/asm/fe25519_ifma.h), so each mixed
 * addition is two 4-way multiplications.
 *
 * Implementation notes:
 * - Fixed base (key generation, signing): the portable code's digits
 *   (signed radix 16) and comb table, the same point. The odd digits'
 *   sum P and the even digits' sum P2 are independent, so they grow side
 *   by side in the two 256-bit halves of an fe8: one 8-lane madd8 per
 *   table row, 32 in all (half the instructions of 64 madd4 on a CPU whose
 *   512-bit IFMA is as fast as its 256-bit one, as on Zen 5, and no loss
 *   where 512-bit IFMA runs at half rate), then r = 16 P + P2 with four
 *   dbl4 and one madd4. Measured on Zen 5: the multiplication went from
 *   11.7k to 4.3k TSC cycles with this and the table scan below.
 * - The table scan (select4) reads every entry of the row with 512-bit
 *   loads and keeps the wanted one with a masked register move; fixed
 *   permutations then put its limbs straight into madd4's lane layout,
 *   negated or not under a mask. It replaced the portable scan (select
 *   and pack cost more than the additions).
 * - Mixed addition, add-2008-hwcd-3 with a = -1 and Z2 = 1:
 *     (Y1 - X1, Y1 + X1, T1, Z1) * (y2 - x2, y2 + x2, 2d x2 y2, 2)
 *                                            = (A, B, C, D)
 *     (E, G, F, E) * (F, H, G, H)            = (X3, Y3, Z3, T3)
 *   with E = B - A, F = D - C, G = D + C, H = B + A. The formula is
 *   complete: no case is special, so no branch.
 * - The result is the same point as the portable code's, not the same
 *   coordinates: callers only ever encode it (ge_tobytes,
 *   ge_to_montgomery_u), and encodings are canonical, so their bytes
 *   match bit for bit (tests/crypto/test_x25519.c, test_ed25519.c).
 * - Constant time: the scan reads the whole row and selects by masks;
 *   the vector code is straight-line. valgrind cannot run it:
 *   tests/ct/dudect.c covers it ("X25519 public key (fixed base)").
 * - Secrets (digits, accumulators, selected entries) are wiped.
 * - Verification's a A + b B (ge_double_scalarmult_vartime_ifma, public
 *   data, VARIABLE TIME) keeps its accumulator in one fe4 too: a doubling
 *   is a 4-way squaring of (X, Y, Z, X + Y) and the product
 *   (E, G, F, E) * (F, H, G, H); an addition is madd4 with the addend
 *   (Y - X, Y + X, 2d T, 2 Z), which for Z = 1 is the table form. The
 *   odd multiples of A are built here, both signs; the NAF digits and the
 *   B table come from the portable code. About 1.8x the portable loop.
 */
#include "crypto/ge25519.h"

#if defined(HS_HAVE_GE25519_IFMA)

#include "base/wipe.h"
#include "crypto/asm/fe25519_ifma.h"

/*
 * p += q: p = (X, Y, Z, T), q = (y - x, y + x, 2 d x y, 2) affine, or
 * (Y - X, Y + X, 2d T, 2 Z) for any Z. madd4 on an fe4, madd8 on both
 * halves of an fe8 at once (two points, two addends).
 */
#define DEFINE_MADD(N)                                                                         \
	INLINE void madd##N(fe##N *p, const fe##N *q)                                         \
	{                                                                                      \
		fe##N u, v, s, d, l, r;                                                        \
                                                                                               \
		PERM##N(&u, p, SEL(1, 1, 3, 2));         /* Y Y T Z */                         \
		PERM##N(&v, p, SEL(0, 0, 0, 0));         /* X X X X */                         \
		sub##N(&d, &u, &v);                      /* lane 0: Y - X */                   \
		add##N(&s, &u, &v);                      /* lane 1: Y + X */                   \
		BLEND##N(&l, &u, &d, LANES(1, 0, 0, 0));                                       \
		BLEND##N(&l, &l, &s, LANES(0, 1, 0, 0)); /* Y-X Y+X T Z */                     \
		mul##N(&l, &l, q);                       /* A B C D */                         \
		PERM##N(&u, &l, SEL(1, 3, 3, 1));        /* B D D B */                         \
		PERM##N(&v, &l, SEL(0, 2, 2, 0));        /* A C C A */                         \
		add##N(&s, &u, &v);                      /* H G G H */                         \
		sub##N(&d, &u, &v);                      /* E F F E */                         \
		BLEND##N(&l, &d, &s, LANES(0, 1, 0, 0)); /* E G F E */                         \
		PERM##N(&r, &s, SEL(0, 0, 1, 3));        /* H H G H */                         \
		PERM##N(&u, &d, SEL(1, 1, 1, 1));        /* F F F F */                         \
		BLEND##N(&r, &r, &u, LANES(1, 0, 0, 0)); /* F H G H */                         \
		mul##N(p, &l, &r);                       /* X3 Y3 Z3 T3 */                     \
	}
DEFINE_MADD(4)
DEFINE_MADD(8)

INLINE void unpack_ext(struct ge_ext *r, const fe4 *p)
{
	lane4(&r->x, p, 0);
	lane4(&r->y, p, 1);
	lane4(&r->z, p, 2);
	lane4(&r->t, p, 3);
}

/* ---- doubling and addends (straight-line: both multiplications use them) ---- */

/*
 * p = 2p for p = (X, Y, Z, T): dbl-2008-hwcd with a = -1, as the portable
 * ge_dbl. One 4-way product squares (X, Y, Z, X + Y) into
 * (A, B, Z^2, S); with C = 2 Z^2, G = B - A, H = -(A + B), E = S + H and
 * F = G - C, a second one gives (E, G, F, E) * (F, H, G, H) =
 * (X3, Y3, Z3, T3). Complete, no branch.
 */
INLINE void dbl4(fe4 *p)
{
	fe4 u, v, q, w, g, h, e, f, zero;

	for (int k = 0; k < 5; k++)
		zero.v[k] = _mm256_setzero_si256();
	PERM4(&u, p, SEL(0, 1, 2, 0));         /* X Y Z X */
	PERM4(&v, p, SEL(1, 1, 1, 1));         /* Y Y Y Y */
	add4(&q, &u, &v);                      /* lane 3: X + Y */
	BLEND4(&q, &u, &q, LANES(0, 0, 0, 1)); /* X Y Z X+Y */
	sqr4(&q, &q);                          /* A B Z^2 S */
	PERM4(&u, &q, SEL(0, 0, 2, 0));        /* A A Z^2 A */
	PERM4(&v, &q, SEL(1, 1, 2, 1));        /* B B Z^2 B */
	add4(&w, &u, &v);                      /* A+B A+B C A+B */
	sub4(&g, &v, &u);                      /* G G 0 G */
	sub4(&h, &zero, &w);                   /* H H -C H */
	PERM4(&u, &q, SEL(3, 3, 3, 3));        /* S S S S */
	add4(&e, &u, &h);                      /* E E S-C E */
	PERM4(&u, &w, SEL(2, 2, 2, 2));        /* C C C C */
	sub4(&f, &g, &u);                      /* F F -C F */
	PERM4(&f, &f, SEL(0, 0, 0, 0));        /* F F F F */
	PERM4(&g, &g, SEL(0, 0, 0, 0));        /* G G G G */
	BLEND4(&e, &e, &g, LANES(0, 1, 0, 0));
	BLEND4(&e, &e, &f, LANES(0, 0, 1, 0)); /* E G F E */
	BLEND4(&h, &h, &f, LANES(1, 0, 0, 0));
	BLEND4(&h, &h, &g, LANES(0, 0, 1, 0)); /* F H G H */
	mul4(p, &e, &h);                       /* X3 Y3 Z3 T3 */
}

/*
 * q = p as an addend for madd4: (Y - X, Y + X, 2d T, 2 Z), one product
 * of (Y - X, Y + X, T, Z) by k = (1, 1, 2d, 2); and its negative
 * (Y + X, Y - X, -2d T, 2 Z) in qn.
 */
INLINE void to_addend4(fe4 *q, fe4 *qn, const fe4 *p, const fe4 *k)
{
	fe4 u, v, d, s, zero;

	for (int i = 0; i < 5; i++)
		zero.v[i] = _mm256_setzero_si256();
	PERM4(&u, p, SEL(1, 1, 3, 2));         /* Y Y T Z */
	PERM4(&v, p, SEL(0, 0, 0, 0));         /* X X X X */
	sub4(&d, &u, &v);
	add4(&s, &u, &v);
	BLEND4(&u, &u, &d, LANES(1, 0, 0, 0));
	BLEND4(&u, &u, &s, LANES(0, 1, 0, 0)); /* Y-X Y+X T Z */
	mul4(q, &u, k);
	PERM4(&u, q, SEL(1, 0, 2, 3));         /* Y+X Y-X 2dT 2Z */
	sub4(&v, &zero, &u);
	BLEND4(qn, &u, &v, LANES(0, 0, 1, 0));
}

/* id = the identity (0, 1, 1, 0); k = to_addend4's factors (1, 1, 2d, 2) */
INLINE void consts4(fe4 *id, fe4 *k)
{
	struct fe25519 zero, one, two;

	fe_0(&zero);
	fe_1(&one);
	fe_0(&two);
	two.v[0] = 2;
	pack4(id, &zero, &one, &one, &zero);
	pack4(k, &one, &one, &ge_d2, &two);
}

/* ---- fixed base, constant time ---- */

/*
 * The 8 limbs at p (n = 8) or the first 7 and a zero (n = 7), loaded
 * whole: the empty asm hides the value's origin, so the compiler cannot
 * fold the masked move that follows into a load under a secret mask.
 */
INLINE __m512i load_entry(const uint64_t *p, int n)
{
	__m512i x = n == 8 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi64(0x7f, p);

	__asm__("" : "+v"(x));
	return x;
}

INLINE void select4(fe4 *q, int j, int8_t e)
{
	const uint64_t *row = ge_base_rows[j][0].ypx.v;
	uint64_t neg = 0 - (uint64_t)((uint8_t)e >> 7);
	uint64_t mag = ((uint64_t)(int64_t)e ^ neg) - neg;
	const __m512i want = _mm512_set1_epi64((long long)mag);
	__m512i lo = _mm512_set_epi64(0, 0, 1, 0, 0, 0, 0, 1); /* limbs 0-7, y+x = y-x = 1 */
	__m512i hi = _mm512_setzero_si512();                   /* limbs 8-14, then 0 */
	__mmask8 nm = (__mmask8)(neg & 0xf);

	for (int k = 0; k < 8; k++) {
		__mmask8 m = _mm512_cmpeq_epi64_mask(want, _mm512_set1_epi64(k + 1));

		lo = _mm512_mask_mov_epi64(lo, m, load_entry(row + 15 * k, 8));
		hi = _mm512_mask_mov_epi64(hi, m, load_entry(row + 15 * k + 8, 7));
	}
	for (int k = 0; k < 5; k++) {
		/* limb k of (y-x, y+x, 2dxy, 0) and of (y+x, y-x, 2dxy, 0); 15 is a zero */
		const __m512i idx = _mm512_set_epi64(15, 10 + k, 5 + k, k, 15, 10 + k, k, 5 + k);
		const __m512i twop = _mm512_set1_epi64((long long)(2 * (k ? FE_MASK51 : FE_MASK51 - 18)));
		__m512i t = _mm512_permutex2var_epi64(lo, idx, hi);

		t = _mm512_mask_sub_epi64(t, 0x40, twop, t); /* lane 6: 2p - 2dxy */
		q->v[k] = _mm256_mask_blend_epi64(nm, _mm512_castsi512_si256(t),
						  _mm512_extracti64x4_epi64(t, 1));
	}
	q->v[0] = _mm256_or_si256(q->v[0], _mm256_set_epi64x(2, 0, 0, 0)); /* lane 3: 2 */
}

/* Scratch of ge_scalarmult_base_ifma, one struct so one wipe clears it. */
struct base4 {
	int8_t e[64];
	fe8 p8, q8;
	fe4 p, p2, q, q2;
};

/*
 * r = a B: the odd digits' sum P (e[i] 256^((i-1)/2) B, i odd) and the
 * even digits' sum P2 (e[i] 256^(i/2) B, i even) grow side by side in
 * the two halves of one fe8, one madd8 per row of the table; then
 * r = 16 P + P2 (four dbl4, P2 made an addend, one madd4).
 */
TARGET void ge_scalarmult_base_ifma(struct ge_ext *r, const uint8_t a[32])
{
	struct base4 s;
	fe4 k;

	ge_base_digits(s.e, a);
	consts4(&s.p, &k);
	join8(&s.p8, &s.p, &s.p); /* the identity twice */
	for (int j = 0; j < 32; j++) {
		select4(&s.q, j, s.e[2 * j + 1]);
		select4(&s.q2, j, s.e[2 * j]);
		join8(&s.q8, &s.q, &s.q2);
		madd8(&s.p8, &s.q8);
	}
	split8(&s.p, &s.p2, &s.p8);
	for (int i = 0; i < 4; i++)
		dbl4(&s.p);
	to_addend4(&s.q, &s.q2, &s.p2, &k);
	madd4(&s.p, &s.q);
	unpack_ext(r, &s.p);
	wipe(&s, sizeof(s));
}

/* ---- double scalar, variable time (verification: public inputs only) ---- */

/*
 * r = a A + b B from the width-5 NAF an of a and the width-7 NAF bn of b
 * (computed by ge_double_scalarmult_vartime), with base_odd[k] =
 * (2k + 1) B. The accumulator (X, Y, Z, T) lives in one fe4; each
 * doubling and each addition is two 4-way products. Same digits and
 * order as the portable loop, so the same point (not the same
 * coordinates: the encoding compares equal). VARIABLE TIME: branches on
 * the digits and reads tables by them; public data only.
 */
TARGET void ge_double_scalarmult_vartime_ifma(struct ge_proj *r, const int8_t an[256],
					       const struct ge_ext *A, const int8_t bn[256],
					       const struct ge_niels base_odd[32])
{
	fe4 tab[8], tabn[8], p, t, k, q, scratch, id;
	struct fe25519 two, neg;
	int i;

	fe_0(&two);
	two.v[0] = 2;
	consts4(&id, &k);
	/* odd multiples A, 3A, ..., 15A as addends, both signs */
	pack4(&p, &A->x, &A->y, &A->z, &A->t);
	to_addend4(&tab[0], &tabn[0], &p, &k);
	t = p;
	dbl4(&t);
	to_addend4(&q, &scratch, &t, &k); /* 2A */
	for (int j = 1; j < 8; j++) {
		madd4(&p, &q);
		to_addend4(&tab[j], &tabn[j], &p, &k);
	}
	p = id;
	for (i = 255; i >= 0 && !an[i] && !bn[i]; i--)
		;
	for (; i >= 0; i--) {
		dbl4(&p);
		if (an[i] > 0)
			madd4(&p, &tab[an[i] / 2]);
		else if (an[i] < 0)
			madd4(&p, &tabn[-an[i] / 2]);
		if (bn[i] > 0) {
			const struct ge_niels *e = &base_odd[bn[i] / 2];

			pack4(&q, &e->ymx, &e->ypx, &e->xy2d, &two);
			madd4(&p, &q);
		} else if (bn[i] < 0) {
			const struct ge_niels *e = &base_odd[-bn[i] / 2];

			fe_neg(&neg, &e->xy2d);
			pack4(&q, &e->ypx, &e->ymx, &neg, &two);
			madd4(&p, &q);
		}
	}
	lane4(&r->x, &p, 0);
	lane4(&r->y, &p, 1);
	lane4(&r->z, &p, 2);
}

#endif
