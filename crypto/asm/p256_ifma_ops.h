/*
 * The P-256 radix-2^52 operations of crypto/asm/p256_ifma_field.h written
 * once for both widths: that header includes this file twice, with VEC the
 * vector type, FEV the element type, VN(name) the function name
 * (p256_name_x4 or p256_name_x8), INLINE the width's function attributes
 * and V_* its intrinsics, all undefined again at the end. Not a header of
 * its own.
 */
INLINE VEC VN(bc)(uint64_t v)
{
	return V_SET1((long long)v);
}

/*
 * A product in pieces, so that a caller can spread them between other
 * work (crypto/asm/p256_point_adx.c puts them between scalar products):
 * columns adds the low and high halves of a_i b (i0 <= i < i1) into ten
 * columns t (zeroed first when i0 = 0; with hi, the high halves go to
 * columns of their own, added by join); reduce runs the Montgomery steps
 * i0..i1-1: u = t_i mod 2^52 (-p^-1 = 1 mod 2^52), and p's low limb
 * being 2^52 - 1, t_i + u p0 = ((t_i >> 52) + u) 2^52 carries with no
 * product; p's limb 2 is 0, so a step is three IFMA pairs (limbs 1, 3,
 * 4); carry carries the five result columns into r.
 */
INLINE void VN(columns)(VEC t[10], VEC *hi, const FEV *a, const FEV *b, int i0, int i1)
{
	if (i0 == 0)
		for (int i = 0; i < 10; i++) {
			t[i] = V_ZERO();
			if (hi != NULL)
				hi[i] = V_ZERO();
		}
	for (int i = i0; i < i1; i++)
		for (int j = 0; j < 5; j++) {
			t[i + j] = V_MADDLO(t[i + j], a->l[i], b->l[j]);
			if (hi != NULL)
				hi[i + j + 1] = V_MADDHI(hi[i + j + 1], a->l[i], b->l[j]);
			else
				t[i + j + 1] = V_MADDHI(t[i + j + 1], a->l[i], b->l[j]);
		}
}

INLINE void VN(join)(VEC t[10], const VEC hi[10])
{
	for (int i = 1; i < 10; i++)
		t[i] = V_ADD(t[i], hi[i]);
}

INLINE void VN(reduce)(VEC t[10], int i0, int i1)
{
	/*
	 * u is t_i's low 52 bits, which is all IFMA reads of t_i: no mask.
	 * t_i + u p0 carries (t_i >> 52) + u; the u rides in the limb-1
	 * product as u (p1 + 1) (its low half into t_(i+1), high into
	 * t_(i+2): the same value), so the chain from t_i to t_(i+1) is a
	 * shift, an add and one IFMA (an integer op between two IFMAs costs
	 * about three cycles of bypass on Intel cores).
	 */
	const VEC p1 = VN(bc)(p_limbs[1] + 1), p3 = VN(bc)(p_limbs[3]), p4 = VN(bc)(p_limbs[4]);

	for (int i = i0; i < i1; i++) {
		VEC u = t[i];

		t[i + 1] = V_MADDLO(V_ADD(t[i + 1], V_SRLI(t[i], 52)), u, p1);
		t[i + 2] = V_MADDHI(t[i + 2], u, p1);
		t[i + 3] = V_MADDLO(t[i + 3], u, p3);
		t[i + 4] = V_MADDHI(t[i + 4], u, p3);
		t[i + 4] = V_MADDLO(t[i + 4], u, p4);
		t[i + 5] = V_MADDHI(t[i + 5], u, p4);
	}
}

INLINE void VN(carry)(FEV *r, VEC t[10])
{
	const VEC m = VN(bc)(P256_IFMA_M52);

	for (int i = 5; i < 9; i++) {
		t[i + 1] = V_ADD(t[i + 1], V_SRLI(t[i], 52));
		r->l[i - 5] = V_AND(t[i], m);
	}
	r->l[4] = t[9];
}

/*
 * carry and finish in one pass, for a shorter chain: the five result
 * columns of reduce (nonnegative) carried into r, and at the same time
 * their value less p with signed carries; r takes that where it does not
 * go below 0 (the columns are below 2p): normalised, below p
 */
INLINE void VN(carry_finish)(FEV *r, VEC t[10])
{
	const VEC m = VN(bc)(P256_IFMA_M52);
	VEC a[5], d[5], ca = V_ZERO(), cd = V_ZERO();
	__mmask8 keep;

	for (int i = 0; i < 5; i++) {
		VEC s = V_ADD(t[5 + i], ca), e = V_ADD(V_SUB(t[5 + i], VN(bc)(p_limbs[i])), cd);

		if (i < 4) {
			ca = V_SRLI(s, 52);
			cd = V_SRAI(e, 52);
			s = V_AND(s, m);
			e = V_AND(e, m);
		}
		a[i] = s;
		d[i] = e;
	}
	keep = V_CMPLT_MASK(d[4], V_ZERO()); /* below p */
	for (int i = 0; i < 5; i++)
		r->l[i] = V_BLEND(keep, d[i], a[i]);
}

/*
 * 64-bit limbs (limb k of every lane in q[k]) shifted sh bits up (0 or
 * 4: 4 makes a Montgomery R = 2^256 value the R' = 2^260 one) into
 * radix 2^52, below 2^(256 + sh): not folded
 */
INLINE void VN(from_u64)(FEV *r, const VEC q[4], int sh)
{
	const VEC m = VN(bc)(P256_IFMA_M52);

	r->l[0] = V_AND(V_SLLI(q[0], sh), m);
	r->l[1] = V_AND(V_OR(V_SRLI(q[0], 52 - sh), V_SLLI(q[1], 12 + sh)), m);
	r->l[2] = V_AND(V_OR(V_SRLI(q[1], 40 - sh), V_SLLI(q[2], 24 + sh)), m);
	r->l[3] = V_AND(V_OR(V_SRLI(q[2], 28 - sh), V_SLLI(q[3], 36 + sh)), m);
	r->l[4] = V_SRLI(q[3], 16 - sh);
}

/* the same with a shift per lane (each 0..4) */
INLINE void VN(from_u64_v)(FEV *r, const VEC q[4], VEC sh)
{
	const VEC m = VN(bc)(P256_IFMA_M52);
	const VEC s12 = V_ADD(sh, VN(bc)(12)), s24 = V_ADD(sh, VN(bc)(24)), s36 = V_ADD(sh, VN(bc)(36));
	const VEC r52 = V_SUB(VN(bc)(52), sh), r40 = V_SUB(VN(bc)(40), sh), r28 = V_SUB(VN(bc)(28), sh),
		  r16 = V_SUB(VN(bc)(16), sh);

	r->l[0] = V_AND(V_SLLV(q[0], sh), m);
	r->l[1] = V_AND(V_OR(V_SRLV(q[0], r52), V_SLLV(q[1], s12)), m);
	r->l[2] = V_AND(V_OR(V_SRLV(q[1], r40), V_SLLV(q[2], s24)), m);
	r->l[3] = V_AND(V_OR(V_SRLV(q[2], r28), V_SLLV(q[3], s36)), m);
	r->l[4] = V_SRLV(q[3], r16);
}

/* a fully reduced a back to 64-bit limbs: limb k of every lane in q[k] */
INLINE void VN(to_u64)(VEC q[4], const FEV *a)
{
	q[0] = V_OR(a->l[0], V_SLLI(a->l[1], 52));
	q[1] = V_OR(V_SRLI(a->l[1], 12), V_SLLI(a->l[2], 40));
	q[2] = V_OR(V_SRLI(a->l[2], 24), V_SLLI(a->l[3], 28));
	q[3] = V_OR(V_SRLI(a->l[3], 36), V_SLLI(a->l[4], 16));
}

#undef VEC
#undef FEV
#undef VN
#undef INLINE
#undef V_ADD
#undef V_SUB
#undef V_AND
#undef V_OR
#undef V_SRLI
#undef V_SLLI
#undef V_SLLV
#undef V_SRLV
#undef V_SRAI
#undef V_SET1
#undef V_ZERO
#undef V_MADDLO
#undef V_MADDHI
#undef V_CMPLT_MASK
#undef V_BLEND
