/*
 * The body of crypto/asm/fe25519_ifma.h's field operations, written once
 * for both vector widths: that header includes it twice, with VEC the
 * vector type, FEV the element type, VN(name) the function name (name4
 * or name8) and V_* the intrinsics of the width, all undefined again at
 * the end. Not a header of its own.
 */
INLINE VEC VN(m51)(void) { return V_SET1((long long)FE_MASK51); }

/* 19 x for x < 2^59 (no IFMA: x may exceed 52 bits) */
INLINE VEC VN(times19)(VEC x)
{
	return V_ADD(V_ADD(V_SLLI(x, 4), V_SLLI(x, 1)), x);
}

/* One parallel carry pass: limbs < 2^62 in, < 2^51 + 19 * 2^11 out. */
INLINE void VN(carry)(FEV *r)
{
	VEC c[5];

	for (int k = 0; k < 5; k++) {
		c[k] = V_SRLI(r->v[k], 51);
		r->v[k] = V_AND(r->v[k], VN(m51)());
	}
	for (int k = 1; k < 5; k++)
		r->v[k] = V_ADD(r->v[k], c[k - 1]);
	/* c[4] < 2^11: 19 c[4] by IFMA is exact */
	r->v[0] = V_MADDLO(r->v[0], c[4], V_SET1(19));
}

/*
 * r = the product whose column sums of lo52 and hi52 halves are lo[k]
 * and hi[k] (each below 5 * 2^52): columns, fold times 19, carry.
 */
INLINE void VN(fold)(FEV *r, const VEC lo[9], const VEC hi[9])
{
	VEC z[10];

	z[0] = lo[0];
	for (int k = 1; k < 9; k++)
		z[k] = V_ADD(lo[k], V_ADD(hi[k - 1], hi[k - 1]));
	z[9] = V_ADD(hi[8], hi[8]);
	for (int k = 0; k < 5; k++)
		r->v[k] = V_ADD(z[k], VN(times19)(z[k + 5]));
	VN(carry)(r);
}

/* r = a b, lane by lane; inputs loose, output loose. r may alias a or b. */
INLINE void VN(mul)(FEV *r, const FEV *a, const FEV *b)
{
	VEC lo[9], hi[9];

	for (int k = 0; k < 9; k++)
		lo[k] = hi[k] = V_ZERO();
	for (int i = 0; i < 5; i++) {
		for (int j = 0; j < 5; j++) {
			lo[i + j] = V_MADDLO(lo[i + j], a->v[i], b->v[j]);
			hi[i + j] = V_MADDHI(hi[i + j], a->v[i], b->v[j]);
		}
	}
	VN(fold)(r, lo, hi);
}

/*
 * r = a^2, lane by lane: the ten products a_i a_j (i < j) once, their
 * column sums doubled, then the five squares added (30 IFMA instead of
 * mul's 50); the same column bounds as mul4, so the same fold.
 */
INLINE void VN(sqr)(FEV *r, const FEV *a)
{
	VEC lo[9], hi[9];

	for (int k = 0; k < 9; k++)
		lo[k] = hi[k] = V_ZERO();
	for (int i = 0; i < 5; i++) {
		for (int j = i + 1; j < 5; j++) {
			lo[i + j] = V_MADDLO(lo[i + j], a->v[i], a->v[j]);
			hi[i + j] = V_MADDHI(hi[i + j], a->v[i], a->v[j]);
		}
	}
	for (int k = 0; k < 9; k++) {
		lo[k] = V_ADD(lo[k], lo[k]);
		hi[k] = V_ADD(hi[k], hi[k]);
	}
	for (int i = 0; i < 5; i++) {
		lo[2 * i] = V_MADDLO(lo[2 * i], a->v[i], a->v[i]);
		hi[2 * i] = V_MADDHI(hi[2 * i], a->v[i], a->v[i]);
	}
	VN(fold)(r, lo, hi);
}

/* r = a n for a constant n < 2^32, lane by lane (IFMA lo/hi as in mul4). */
INLINE void VN(mul_small)(FEV *r, const FEV *a, uint32_t n)
{
	VEC vn = V_SET1(n), lo[5], hi[5], z = V_ZERO();

	for (int k = 0; k < 5; k++) {
		lo[k] = V_MADDLO(z, a->v[k], vn);
		hi[k] = V_MADDHI(z, a->v[k], vn);
	}
	r->v[0] = V_ADD(lo[0], VN(times19)(V_ADD(hi[4], hi[4])));
	for (int k = 1; k < 5; k++)
		r->v[k] = V_ADD(lo[k], V_ADD(hi[k - 1], hi[k - 1]));
	VN(carry)(r);
}

INLINE void VN(add)(FEV *r, const FEV *a, const FEV *b)
{
	for (int k = 0; k < 5; k++)
		r->v[k] = V_ADD(a->v[k], b->v[k]);
	VN(carry)(r);
}

/* r = a + 2p - b: 2p's limbs exceed any loose limb, so nothing goes negative */
INLINE void VN(sub)(FEV *r, const FEV *a, const FEV *b)
{
	const VEC p0 = V_SET1((long long)(2 * (FE_MASK51 - 18)));
	const VEC pk = V_SET1((long long)(2 * FE_MASK51));

	for (int k = 0; k < 5; k++)
		r->v[k] = V_SUB(V_ADD(a->v[k], k == 0 ? p0 : pk), b->v[k]);
	VN(carry)(r);
}

#undef VEC
#undef FEV
#undef VN
#undef V_ADD
#undef V_SUB
#undef V_AND
#undef V_SRLI
#undef V_SLLI
#undef V_SET1
#undef V_ZERO
#undef V_MADDLO
#undef V_MADDHI
