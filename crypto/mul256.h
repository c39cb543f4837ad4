/*
 * Full products of 256-bit values as four 64-bit limbs, little-endian:
 * a b and a^2 in eight limbs, with unsigned __int128 partial products
 * (portable C). The one home of the 4x4-limb product for P-256's field
 * (p256_field.c, reduced modulo p) and scalar (p256_scalar.c, modulo n)
 * arithmetic, which each reduce it their own way.
 *
 * Straight-line code: no branch and no memory index depends on the values.
 */
#ifndef HS_CRYPTO_MUL256_H
#define HS_CRYPTO_MUL256_H

#include <stdint.h>

__extension__ typedef unsigned __int128 mul256_u128;

#define MUL256_LO(x) ((uint64_t)(x))
#define MUL256_HI(x) ((uint64_t)((x) >> 64))

/* t = a b: schoolbook, one row per limb of b (16 limb products). */
static inline __attribute__((always_inline)) void mul256(uint64_t t[8], const uint64_t a[4],
							  const uint64_t b[4])
{
	uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
	mul256_u128 acc;

	acc = (mul256_u128)a0 * b[0];
	t0 = MUL256_LO(acc);
	acc = (mul256_u128)a1 * b[0] + MUL256_HI(acc);
	t1 = MUL256_LO(acc);
	acc = (mul256_u128)a2 * b[0] + MUL256_HI(acc);
	t2 = MUL256_LO(acc);
	acc = (mul256_u128)a3 * b[0] + MUL256_HI(acc);
	t3 = MUL256_LO(acc);
	t4 = MUL256_HI(acc);
#define MUL256_ROW(bi, r0, r1, r2, r3, r4)                                                     \
	acc = (mul256_u128)a0 * (bi) + r0;                                                     \
	r0 = MUL256_LO(acc);                                                                   \
	acc = (mul256_u128)a1 * (bi) + r1 + MUL256_HI(acc);                                    \
	r1 = MUL256_LO(acc);                                                                   \
	acc = (mul256_u128)a2 * (bi) + r2 + MUL256_HI(acc);                                    \
	r2 = MUL256_LO(acc);                                                                   \
	acc = (mul256_u128)a3 * (bi) + r3 + MUL256_HI(acc);                                    \
	r3 = MUL256_LO(acc);                                                                   \
	r4 = MUL256_HI(acc);
	MUL256_ROW(b[1], t1, t2, t3, t4, t5)
	MUL256_ROW(b[2], t2, t3, t4, t5, t6)
	MUL256_ROW(b[3], t3, t4, t5, t6, t7)
#undef MUL256_ROW
	t[0] = t0, t[1] = t1, t[2] = t2, t[3] = t3;
	t[4] = t4, t[5] = t5, t[6] = t6, t[7] = t7;
}

/* t = a^2: the cross products a_i a_j (i < j) once, doubled, plus the squares (10 products). */
static inline __attribute__((always_inline)) void sqr256(uint64_t t[8], const uint64_t a[4])
{
	uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
	mul256_u128 acc;

	acc = (mul256_u128)a0 * a1;
	t1 = MUL256_LO(acc);
	acc = (mul256_u128)a0 * a2 + MUL256_HI(acc);
	t2 = MUL256_LO(acc);
	acc = (mul256_u128)a0 * a3 + MUL256_HI(acc);
	t3 = MUL256_LO(acc);
	t4 = MUL256_HI(acc);
	acc = (mul256_u128)a1 * a2 + t3;
	t3 = MUL256_LO(acc);
	acc = (mul256_u128)a1 * a3 + t4 + MUL256_HI(acc);
	t4 = MUL256_LO(acc);
	t5 = MUL256_HI(acc);
	acc = (mul256_u128)a2 * a3 + t5;
	t5 = MUL256_LO(acc);
	t6 = MUL256_HI(acc);
	/* double */
	t7 = t6 >> 63;
	t6 = (t6 << 1) | (t5 >> 63);
	t5 = (t5 << 1) | (t4 >> 63);
	t4 = (t4 << 1) | (t3 >> 63);
	t3 = (t3 << 1) | (t2 >> 63);
	t2 = (t2 << 1) | (t1 >> 63);
	t1 <<= 1;
	/* add the squares on the diagonal */
	acc = (mul256_u128)a0 * a0;
	t0 = MUL256_LO(acc);
	acc = (mul256_u128)t1 + MUL256_HI(acc);
	t1 = MUL256_LO(acc);
	acc = (mul256_u128)a1 * a1 + t2 + MUL256_HI(acc);
	t2 = MUL256_LO(acc);
	acc = (mul256_u128)t3 + MUL256_HI(acc);
	t3 = MUL256_LO(acc);
	acc = (mul256_u128)a2 * a2 + t4 + MUL256_HI(acc);
	t4 = MUL256_LO(acc);
	acc = (mul256_u128)t5 + MUL256_HI(acc);
	t5 = MUL256_LO(acc);
	acc = (mul256_u128)a3 * a3 + t6 + MUL256_HI(acc);
	t6 = MUL256_LO(acc);
	t7 += MUL256_HI(acc);
	t[0] = t0, t[1] = t1, t[2] = t2, t[3] = t3;
	t[4] = t4, t[5] = t5, t[6] = t6, t[7] = t7;
}

#undef MUL256_LO
#undef MUL256_HI

#endif
