/*
 * Poly1305 in radix 2^26 on 64-bit vector lanes: the limb arithmetic of
 * poly1305_avx2.c (four lanes) and poly1305_avx512.c (eight), written
 * once. Not a header of its own: each of those files defines INLINE, VEC
 * (the vector type) and the lane operations V_ADD, V_MUL (vpmuludq:
 * 32x32 -> 64 bits), V_AND, V_OR, V_SRLI, V_SLLI, V_SET1, then includes
 * it. Bounds and the method: poly1305_avx2.c's notes.
 */
/* Five radix-2^26 limbs of the accumulators (one per 64-bit lane). */
struct v5 {
	VEC l0, l1, l2, l3, l4;
};

/* The limbs of blocks split into low (lo) and high (hi) 64-bit halves, with the 2^128 bit. */
INLINE struct v5 limbs(VEC lo, VEC hi)
{
	const VEC mask = V_SET1(0x3ffffff);
	struct v5 x;

	x.l0 = V_AND(lo, mask);
	x.l1 = V_AND(V_SRLI(lo, 26), mask);
	x.l2 = V_AND(V_OR(V_SRLI(lo, 52), V_SLLI(hi, 12)), mask);
	x.l3 = V_AND(V_SRLI(hi, 14), mask);
	x.l4 = V_OR(V_SRLI(hi, 40), V_SET1(1 << 24));
	return x;
}

INLINE struct v5 add5(struct v5 a, struct v5 b)
{
	a.l0 = V_ADD(a.l0, b.l0);
	a.l1 = V_ADD(a.l1, b.l1);
	a.l2 = V_ADD(a.l2, b.l2);
	a.l3 = V_ADD(a.l3, b.l3);
	a.l4 = V_ADD(a.l4, b.l4);
	return a;
}

/* 5 x, as x + 4 x */
INLINE VEC times5(VEC x) { return V_ADD(x, V_SLLI(x, 2)); }

/* a r mod p, not carried (the 2^130 wrap goes through 5 r). */
INLINE struct v5 mul(struct v5 a, struct v5 r)
{
	const VEC s1 = times5(r.l1), s2 = times5(r.l2), s3 = times5(r.l3), s4 = times5(r.l4);
	struct v5 d;

	d.l0 = V_ADD(V_ADD(V_ADD(V_MUL(a.l0, r.l0), V_MUL(a.l1, s4)),
			   V_ADD(V_MUL(a.l2, s3), V_MUL(a.l3, s2))),
		     V_MUL(a.l4, s1));
	d.l1 = V_ADD(V_ADD(V_ADD(V_MUL(a.l0, r.l1), V_MUL(a.l1, r.l0)),
			   V_ADD(V_MUL(a.l2, s4), V_MUL(a.l3, s3))),
		     V_MUL(a.l4, s2));
	d.l2 = V_ADD(V_ADD(V_ADD(V_MUL(a.l0, r.l2), V_MUL(a.l1, r.l1)),
			   V_ADD(V_MUL(a.l2, r.l0), V_MUL(a.l3, s4))),
		     V_MUL(a.l4, s3));
	d.l3 = V_ADD(V_ADD(V_ADD(V_MUL(a.l0, r.l3), V_MUL(a.l1, r.l2)),
			   V_ADD(V_MUL(a.l2, r.l1), V_MUL(a.l3, r.l0))),
		     V_MUL(a.l4, s4));
	d.l4 = V_ADD(V_ADD(V_ADD(V_MUL(a.l0, r.l4), V_MUL(a.l1, r.l3)),
			   V_ADD(V_MUL(a.l2, r.l2), V_MUL(a.l3, r.l1))),
		     V_MUL(a.l4, r.l0));
	return d;
}

/* Moves what is above 26 bits of *from out of it; returns it (to be added to the next limb). */
INLINE VEC carry_out(VEC *from, VEC mask)
{
	VEC c = V_SRLI(*from, 26);

	*from = V_AND(*from, mask);
	return c;
}

/* Partial carry, chains 0->1->2->3 and 3->4->0->1 interleaved: limbs end below 2^26 + 2^9. */
INLINE struct v5 carry(struct v5 d)
{
	const VEC mask = V_SET1(0x3ffffff);

	d.l1 = V_ADD(d.l1, carry_out(&d.l0, mask));
	d.l4 = V_ADD(d.l4, carry_out(&d.l3, mask));
	d.l2 = V_ADD(d.l2, carry_out(&d.l1, mask));
	d.l0 = V_ADD(d.l0, times5(carry_out(&d.l4, mask)));
	d.l3 = V_ADD(d.l3, carry_out(&d.l2, mask));
	d.l1 = V_ADD(d.l1, carry_out(&d.l0, mask));
	d.l4 = V_ADD(d.l4, carry_out(&d.l3, mask));
	return d;
}
