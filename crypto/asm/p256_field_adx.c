/*
 * P-256 field multiplication and squaring with BMI2 (MULX) and ADX
 * (ADX).
 *
 * Implementation notes:
 * - Same algorithm and same results as the portable code in
 *   crypto/p256_field.c: a 4x4-limb schoolbook product (squaring: the
 *   six cross products once, doubled, plus the four squares), then four
 *   Montgomery reduction steps with m = the low limb (-1/p mod 2^64 = 1),
 *   m*P1 + m = m*2^32 as a shift, m*P3 by MULX; one masked subtraction.
 * - MULX leaves the flags alone, so a product row computes its four limb
 *   products first and then adds them in plain carry chains.
 * - The caller checks hs_cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 * - Constant time: a fixed instruction sequence; the final reduction is a
 *   masked select.
 */
#include "crypto/p256_field.h"

#if defined(HS_HAVE_P256_ADX)
#include <immintrin.h>

#include "crypto/ct.h"

#define ADX_TARGET __attribute__((target("bmi2,adx")))
#define ALWAYS_INLINE inline __attribute__((always_inline))

typedef unsigned long long u64;

#define P0 0xffffffffffffffffull
#define P1 0x00000000ffffffffull
#define P3 0xffffffff00000001ull

/* t4..t7 + top 2^256 < 2p, reduced into [0, p) */
static ALWAYS_INLINE ADX_TARGET void reduce_once(hs_p256_fe r, u64 t4, u64 t5, u64 t6, u64 t7,
						 u64 top)
{
	u64 s0, s1, s2, s3, s4;
	unsigned char b;
	uint64_t keep;

	b = _subborrow_u64(0, t4, P0, &s0);
	b = _subborrow_u64(b, t5, P1, &s1);
	b = _subborrow_u64(b, t6, 0, &s2);
	b = _subborrow_u64(b, t7, P3, &s3);
	b = _subborrow_u64(b, top, 0, &s4);
	(void)s4;
	keep = 0 - ct_barrier_u64(b); /* all-ones: below p already, keep t */
	r[0] = ct_select_u64(keep, t4, s0);
	r[1] = ct_select_u64(keep, t5, s1);
	r[2] = ct_select_u64(keep, t6, s2);
	r[3] = ct_select_u64(keep, t7, s3);
}

/* Four Montgomery steps over t0..t7 (see the notes); result into r. */
static ALWAYS_INLINE ADX_TARGET void mont_reduce(hs_p256_fe r, u64 t0, u64 t1, u64 t2, u64 t3,
						 u64 t4, u64 t5, u64 t6, u64 t7)
{
	u64 m, lo, hi, top = 0;
	unsigned char c;

#define REDUCE_STEP(r0, r1, r2, r3, r4)                                                        \
	m = r0;                                                                                \
	lo = _mulx_u64(m, P3, &hi);                                                            \
	(void)_addcarry_u64(top, hi, 0, &hi); /* hi < P3, top <= 1: no overflow */             \
	c = _addcarry_u64(0, r1, m << 32, &r1);                                                \
	c = _addcarry_u64(c, r2, m >> 32, &r2);                                                \
	c = _addcarry_u64(c, r3, lo, &r3);                                                     \
	c = _addcarry_u64(c, r4, hi, &r4);                                                     \
	top = c;
	REDUCE_STEP(t0, t1, t2, t3, t4)
	REDUCE_STEP(t1, t2, t3, t4, t5)
	REDUCE_STEP(t2, t3, t4, t5, t6)
	REDUCE_STEP(t3, t4, t5, t6, t7)
#undef REDUCE_STEP
	reduce_once(r, t4, t5, t6, t7, top);
}

ADX_TARGET void hs_p256_fe_mul_adx(hs_p256_fe r, const hs_p256_fe a, const hs_p256_fe b)
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
	(void)_addcarry_u64(c, h3, 0, &t4); /* no overflow: the row is below 2^320 */
	/*
	 * (r0..r4) += a * bi: the four products first, then the low halves in
	 * one carry chain and the high halves in a second one (two clean ADC
	 * chains; interleaving them would make gcc spill the flags).
	 */
#define MUL_ROW(bi, r0, r1, r2, r3, r4)                                                        \
	l0 = _mulx_u64(a0, bi, &h0);                                                           \
	l1 = _mulx_u64(a1, bi, &h1);                                                           \
	l2 = _mulx_u64(a2, bi, &h2);                                                           \
	l3 = _mulx_u64(a3, bi, &h3);                                                           \
	c = _addcarry_u64(0, r0, l0, &r0);                                                     \
	c = _addcarry_u64(c, r1, l1, &r1);                                                     \
	c = _addcarry_u64(c, r2, l2, &r2);                                                     \
	c = _addcarry_u64(c, r3, l3, &r3);                                                     \
	(void)_addcarry_u64(c, h3, 0, &h3); /* h3 < 2^64 - 1: no overflow */                   \
	c = _addcarry_u64(0, r1, h0, &r1);                                                     \
	c = _addcarry_u64(c, r2, h1, &r2);                                                     \
	c = _addcarry_u64(c, r3, h2, &r3);                                                     \
	(void)_addcarry_u64(c, h3, 0, &r4); /* the row is below 2^320: no overflow */
	MUL_ROW(b[1], t1, t2, t3, t4, t5)
	MUL_ROW(b[2], t2, t3, t4, t5, t6)
	MUL_ROW(b[3], t3, t4, t5, t6, t7)
#undef MUL_ROW
	mont_reduce(r, t0, t1, t2, t3, t4, t5, t6, t7);
}

ADX_TARGET void hs_p256_fe_sqr_adx(hs_p256_fe r, const hs_p256_fe a)
{
	u64 a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	u64 t0, t1, t2, t3, t4, t5, t6, t7, lo, hi, l, h;
	unsigned char c;

	/*
	 * cross products a0 (a1, a2, a3), a1 (a2, a3), a2 a3, added in plain
	 * carry chains; a partial sum never exceeds the final one, which fits
	 * in t1..t6, so the top-limb additions never overflow
	 */
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
