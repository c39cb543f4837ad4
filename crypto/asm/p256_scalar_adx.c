/*
 * Montgomery multiplication and squaring modulo the P-256 group order n
 * with BMI2 (MULX) and ADX.
 *
 * Implementation notes:
 * - Same algorithm and same results as crypto/p256_scalar.c: a 4x4-limb
 *   schoolbook product (squaring: cross products once, doubled, plus the
 *   squares), four Montgomery steps with m = t_i * (-1/n mod 2^64), one
 *   masked subtraction of n.
 * - Each row computes its four limb products with MULX (flags untouched)
 *   and adds the low and the high halves in two plain carry chains.
 * - The caller checks hs_cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 * - Constant time: a fixed instruction sequence; the final reduction is a
 *   masked select.
 */
#include "crypto/p256_scalar.h"

#if defined(HS_HAVE_P256_ADX)
#include <immintrin.h>

#include "crypto/ct.h"

#define ADX_TARGET __attribute__((target("bmi2,adx")))
#define ALWAYS_INLINE inline __attribute__((always_inline))

typedef unsigned long long u64;

/* n, little-endian limbs, and -1/n mod 2^64 */
#define N_0 0xf3b9cac2fc632551ull
#define N_1 0xbce6faada7179e84ull
#define N_2 0xffffffffffffffffull
#define N_3 0xffffffff00000000ull
#define N_INV 0xccd1c8aaee00bc4full

/* t4..t7 + top 2^256 < 2n, reduced into [0, n) */
static ALWAYS_INLINE ADX_TARGET void reduce_once(hs_p256_sc r, u64 t4, u64 t5, u64 t6, u64 t7,
						 u64 top)
{
	u64 s0, s1, s2, s3, s4;
	unsigned char b;
	uint64_t keep;

	b = _subborrow_u64(0, t4, N_0, &s0);
	b = _subborrow_u64(b, t5, N_1, &s1);
	b = _subborrow_u64(b, t6, N_2, &s2);
	b = _subborrow_u64(b, t7, N_3, &s3);
	b = _subborrow_u64(b, top, 0, &s4);
	(void)s4;
	keep = 0 - ct_barrier_u64(b); /* all-ones: below n already, keep t */
	r[0] = ct_select_u64(keep, t4, s0);
	r[1] = ct_select_u64(keep, t5, s1);
	r[2] = ct_select_u64(keep, t6, s2);
	r[3] = ct_select_u64(keep, t7, s3);
}

static ALWAYS_INLINE ADX_TARGET void mont_reduce(hs_p256_sc r, u64 t0, u64 t1, u64 t2, u64 t3,
						 u64 t4, u64 t5, u64 t6, u64 t7)
{
	u64 m, l0, l1, l2, l3, h0, h1, h2, h3, top = 0;
	unsigned char c;

	/*
	 * t += m n 2^(64 i) clears limb i; h3 < N_3 leaves room for both
	 * carries folded into it, and the step's carry out becomes top.
	 */
#define REDUCE_STEP(r0, r1, r2, r3, r4)                                                        \
	m = r0 * N_INV;                                                                        \
	l0 = _mulx_u64(m, N_0, &h0);                                                           \
	l1 = _mulx_u64(m, N_1, &h1);                                                           \
	l2 = _mulx_u64(m, N_2, &h2);                                                           \
	l3 = _mulx_u64(m, N_3, &h3);                                                           \
	c = _addcarry_u64(0, r0, l0, &r0);                                                     \
	c = _addcarry_u64(c, r1, l1, &r1);                                                     \
	c = _addcarry_u64(c, r2, l2, &r2);                                                     \
	c = _addcarry_u64(c, r3, l3, &r3);                                                     \
	(void)_addcarry_u64(c, h3, top, &h3);                                                  \
	c = _addcarry_u64(0, r1, h0, &r1);                                                     \
	c = _addcarry_u64(c, r2, h1, &r2);                                                     \
	c = _addcarry_u64(c, r3, h2, &r3);                                                     \
	c = _addcarry_u64(c, r4, h3, &r4);                                                     \
	top = c;
	REDUCE_STEP(t0, t1, t2, t3, t4)
	REDUCE_STEP(t1, t2, t3, t4, t5)
	REDUCE_STEP(t2, t3, t4, t5, t6)
	REDUCE_STEP(t3, t4, t5, t6, t7)
#undef REDUCE_STEP
	(void)t0;
	reduce_once(r, t4, t5, t6, t7, top);
}

ADX_TARGET void hs_p256_sc_mont_mul_adx(hs_p256_sc r, const hs_p256_sc a, const hs_p256_sc b)
{
	u64 a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	u64 t0, t1, t2, t3, t4, t5, t6, t7, l0, l1, l2, l3, h0, h1, h2, h3;
	unsigned char c;

	t0 = _mulx_u64(a0, b[0], &h0);
	t1 = _mulx_u64(a1, b[0], &h1);
	t2 = _mulx_u64(a2, b[0], &h2);
	t3 = _mulx_u64(a3, b[0], &h3);
	c = _addcarry_u64(0, t1, h0, &t1);
	c = _addcarry_u64(c, t2, h1, &t2);
	c = _addcarry_u64(c, t3, h2, &t3);
	(void)_addcarry_u64(c, h3, 0, &t4); /* the row is below 2^320 */
	/* (r0..r4) += a * bi: low halves in one carry chain, high halves in the next */
#define MUL_ROW(bi, r0, r1, r2, r3, r4)                                                        \
	l0 = _mulx_u64(a0, bi, &h0);                                                           \
	l1 = _mulx_u64(a1, bi, &h1);                                                           \
	l2 = _mulx_u64(a2, bi, &h2);                                                           \
	l3 = _mulx_u64(a3, bi, &h3);                                                           \
	c = _addcarry_u64(0, r0, l0, &r0);                                                     \
	c = _addcarry_u64(c, r1, l1, &r1);                                                     \
	c = _addcarry_u64(c, r2, l2, &r2);                                                     \
	c = _addcarry_u64(c, r3, l3, &r3);                                                     \
	(void)_addcarry_u64(c, h3, 0, &h3); /* h3 < 2^64 - 1 */                                \
	c = _addcarry_u64(0, r1, h0, &r1);                                                     \
	c = _addcarry_u64(c, r2, h1, &r2);                                                     \
	c = _addcarry_u64(c, r3, h2, &r3);                                                     \
	(void)_addcarry_u64(c, h3, 0, &r4); /* the row is below 2^320 */
	MUL_ROW(b[1], t1, t2, t3, t4, t5)
	MUL_ROW(b[2], t2, t3, t4, t5, t6)
	MUL_ROW(b[3], t3, t4, t5, t6, t7)
#undef MUL_ROW
	mont_reduce(r, t0, t1, t2, t3, t4, t5, t6, t7);
}

ADX_TARGET void hs_p256_sc_mont_sqr_adx(hs_p256_sc r, const hs_p256_sc a)
{
	u64 a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	u64 t0, t1, t2, t3, t4, t5, t6, t7, lo, hi, l, h;
	unsigned char c;

	/* cross products (see p256_field_adx.c: partial sums never overflow) */
	t1 = _mulx_u64(a0, a1, &h);
	t2 = _mulx_u64(a0, a2, &hi);
	t3 = _mulx_u64(a0, a3, &t4);
	c = _addcarry_u64(0, t2, h, &t2);
	c = _addcarry_u64(c, t3, hi, &t3);
	t4 += c;
	l = _mulx_u64(a1, a2, &h);
	lo = _mulx_u64(a1, a3, &t5);
	c = _addcarry_u64(0, t3, l, &t3);
	c = _addcarry_u64(c, t4, lo, &t4);
	t5 += c;
	c = _addcarry_u64(0, t4, h, &t4);
	t5 += c;
	lo = _mulx_u64(a2, a3, &t6);
	c = _addcarry_u64(0, t5, lo, &t5);
	t6 += c;
	/* double */
	t7 = t6 >> 63;
	t6 = (t6 << 1) | (t5 >> 63);
	t5 = (t5 << 1) | (t4 >> 63);
	t4 = (t4 << 1) | (t3 >> 63);
	t3 = (t3 << 1) | (t2 >> 63);
	t2 = (t2 << 1) | (t1 >> 63);
	t1 <<= 1;
	/* the squares on the diagonal */
	t0 = _mulx_u64(a0, a0, &hi);
	c = _addcarry_u64(0, t1, hi, &t1);
	lo = _mulx_u64(a1, a1, &hi);
	c = _addcarry_u64(c, t2, lo, &t2);
	c = _addcarry_u64(c, t3, hi, &t3);
	lo = _mulx_u64(a2, a2, &hi);
	c = _addcarry_u64(c, t4, lo, &t4);
	c = _addcarry_u64(c, t5, hi, &t5);
	lo = _mulx_u64(a3, a3, &hi);
	c = _addcarry_u64(c, t6, lo, &t6);
	t7 += hi + c;
	mont_reduce(r, t0, t1, t2, t3, t4, t5, t6, t7);
}

#endif
