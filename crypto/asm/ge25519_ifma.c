/*
 * Fixed-base scalar multiplication on edwards25519 with AVX-512 IFMA: the
 * four extended coordinates (X, Y, Z, T) of the accumulator travel in the
 * four lanes of one fe4 (crypto/asm/fe25519_ifma.h), so each mixed
 * addition is two 4-way multiplications.
 *
 * Implementation notes:
 * - Same digits, same table, same order of additions as the portable
 *   ge_scalarmult_base (crypto/ge25519.c), whose helpers it calls for
 *   the recoding, the masked table scan and the four doublings (x16, done
 *   in the portable code: four doublings against 64 additions).
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
 * - Constant time: the scan is the portable masked one; the vector code
 *   is straight-line. valgrind cannot run it: tests/ct/dudect.c covers it.
 * - Secrets (digits, accumulator, selected entry) are wiped.
 */
#include "crypto/ge25519.h"

#if defined(HS_HAVE_GE25519_IFMA)

#include "base/wipe.h"
#include "crypto/asm/fe25519_ifma.h"

/* p += q: p = (X, Y, Z, T), q = (y - x, y + x, 2 d x y, 2) affine */
INLINE void madd4(fe4 *p, const fe4 *q)
{
	fe4 u, v, s, d, l, r;

	PERM4(&u, p, SEL(1, 1, 3, 2));         /* Y Y T Z */
	PERM4(&v, p, SEL(0, 0, 0, 0));         /* X X X X */
	sub4(&d, &u, &v);                      /* lane 0: Y - X */
	add4(&s, &u, &v);                      /* lane 1: Y + X */
	BLEND4(&l, &u, &d, LANES(1, 0, 0, 0));
	BLEND4(&l, &l, &s, LANES(0, 1, 0, 0)); /* Y-X Y+X T Z */
	mul4(&l, &l, q);                       /* A B C D */
	PERM4(&u, &l, SEL(1, 3, 3, 1));        /* B D D B */
	PERM4(&v, &l, SEL(0, 2, 2, 0));        /* A C C A */
	add4(&s, &u, &v);                      /* H G G H */
	sub4(&d, &u, &v);                      /* E F F E */
	BLEND4(&l, &d, &s, LANES(0, 1, 0, 0)); /* E G F E */
	PERM4(&r, &s, SEL(0, 0, 1, 3));        /* H H G H */
	PERM4(&u, &d, SEL(1, 1, 1, 1));        /* F F F F */
	BLEND4(&r, &r, &u, LANES(1, 0, 0, 0)); /* F H G H */
	mul4(p, &l, &r);                       /* X3 Y3 Z3 T3 */
}

struct base4 {
	int8_t e[64];
	struct ge_niels t;
	fe4 p, q;
};

/* p += e[i] 256^(i/2) B for i = first, first + 2, ..., 62 or 63 */
INLINE void add_digits(struct base4 *s, int first)
{
	struct fe25519 two;

	fe_0(&two);
	two.v[0] = 2;
	for (int i = first; i < 64; i += 2) {
		ge_base_select(&s->t, i / 2, s->e[i]);
		pack4(&s->q, &s->t.ymx, &s->t.ypx, &s->t.xy2d, &two);
		madd4(&s->p, &s->q);
	}
}

INLINE void unpack_ext(struct ge_ext *r, const fe4 *p)
{
	lane4(&r->x, p, 0);
	lane4(&r->y, p, 1);
	lane4(&r->z, p, 2);
	lane4(&r->t, p, 3);
}

TARGET void ge_scalarmult_base_ifma(struct ge_ext *r, const uint8_t a[32])
{
	struct base4 s;
	struct fe25519 zero, one;

	fe_0(&zero);
	fe_1(&one);
	ge_base_digits(s.e, a);
	pack4(&s.p, &zero, &one, &one, &zero); /* the identity */
	add_digits(&s, 1);                     /* odd digits */
	unpack_ext(r, &s.p);
	ge_times16(r);
	pack4(&s.p, &r->x, &r->y, &r->z, &r->t);
	add_digits(&s, 0);                     /* even digits */
	unpack_ext(r, &s.p);
	wipe(&s, sizeof(s));
}

#endif
