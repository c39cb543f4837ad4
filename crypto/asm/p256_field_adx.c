/*
 * P-256 field multiplication and squaring with BMI2 (MULX) and ADX
 * (ADCX/ADOX through _addcarryx_u64).
 *
 * Implementation notes:
 * - Same algorithm and same results as the portable code in
 *   crypto/p256_field.c: a 4x4-limb schoolbook product (squaring: the
 *   six cross products once, doubled, plus the four squares), then four
 *   Montgomery reduction steps with m = the low limb (-1/p mod 2^64 = 1),
 *   m*P1 + m = m*2^32 as a shift, m*P3 by MULX; one masked subtraction.
 * - MULX leaves the flags alone, so each product row runs two independent
 *   carry chains: the low halves of the limb products in one (c1) and the
 *   high halves in the other (c2); the compiler may map them to ADCX and
 *   ADOX.
 * - The caller checks hs_cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 * - Constant time: a fixed instruction sequence; the final reduction is a
 *   masked select.
 */
#include "crypto/p256_field.h"

#if defined(HS_HAVE_P256_ADX)
#include <immintrin.h>

#include "crypto/ct.h"

#define ADX_TARGET __attribute__((target("bmi2,adx")))

typedef unsigned long long u64;

#define P0 0xffffffffffffffffull
#define P1 0x00000000ffffffffull
#define P3 0xffffffff00000001ull

/* t4..t7 + top 2^256 < 2p, reduced into [0, p) */
static inline ADX_TARGET void reduce_once(hs_p256_fe r, u64 t4, u64 t5, u64 t6, u64 t7, u64 top)
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
static inline ADX_TARGET void mont_reduce(hs_p256_fe r, u64 t0, u64 t1, u64 t2, u64 t3, u64 t4,
					  u64 t5, u64 t6, u64 t7)
{
	u64 m, lo, hi, top = 0;
	unsigned char c1, c2;

#define REDUCE_STEP(r0, r1, r2, r3, r4)                                                        \
	m = r0;                                                                                \
	lo = _mulx_u64(m, P3, &hi);                                                            \
	c1 = _addcarryx_u64(0, r1, m << 32, &r1);                                              \
	c1 = _addcarryx_u64(c1, r2, m >> 32, &r2);                                             \
	c1 = _addcarryx_u64(c1, r3, lo, &r3);                                                  \
	c1 = _addcarryx_u64(c1, r4, hi, &r4);                                                  \
	c2 = _addcarryx_u64(0, r4, top, &r4);                                                  \
	top = (u64)c1 + c2;
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
	u64 t0, t1, t2, t3, t4, t5, t6, t7, lo, hi, h0, h1, h2, h3;
	unsigned char c1, c2;

	t0 = _mulx_u64(a0, b[0], &h0);
	t1 = _mulx_u64(a1, b[0], &h1);
	t2 = _mulx_u64(a2, b[0], &h2);
	t3 = _mulx_u64(a3, b[0], &h3);
	c1 = _addcarryx_u64(0, t1, h0, &t1);
	c1 = _addcarryx_u64(c1, t2, h1, &t2);
	c1 = _addcarryx_u64(c1, t3, h2, &t3);
	t4 = h3 + c1; /* no overflow: the row is below 2^320 */
	/* (r0..r4) += a * bi: low halves in chain c1, high halves in chain c2 */
#define MUL_ROW(bi, r0, r1, r2, r3, r4)                                                        \
	lo = _mulx_u64(a0, bi, &hi);                                                           \
	c1 = _addcarryx_u64(0, r0, lo, &r0);                                                   \
	c2 = _addcarryx_u64(0, r1, hi, &r1);                                                   \
	lo = _mulx_u64(a1, bi, &hi);                                                           \
	c1 = _addcarryx_u64(c1, r1, lo, &r1);                                                  \
	c2 = _addcarryx_u64(c2, r2, hi, &r2);                                                  \
	lo = _mulx_u64(a2, bi, &hi);                                                           \
	c1 = _addcarryx_u64(c1, r2, lo, &r2);                                                  \
	c2 = _addcarryx_u64(c2, r3, hi, &r3);                                                  \
	lo = _mulx_u64(a3, bi, &hi);                                                           \
	c1 = _addcarryx_u64(c1, r3, lo, &r3);                                                  \
	r4 = hi + c1 + c2;
	MUL_ROW(b[1], t1, t2, t3, t4, t5)
	MUL_ROW(b[2], t2, t3, t4, t5, t6)
	MUL_ROW(b[3], t3, t4, t5, t6, t7)
#undef MUL_ROW
	mont_reduce(r, t0, t1, t2, t3, t4, t5, t6, t7);
}

ADX_TARGET void hs_p256_fe_sqr_adx(hs_p256_fe r, const hs_p256_fe a)
{
	u64 a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	u64 t0, t1, t2, t3, t4, t5, t6, t7, lo, hi, h;
	unsigned char c1, c2;

	/* cross products: a0 * (a1, a2, a3), then a1 * (a2, a3), a2 * a3 */
	t1 = _mulx_u64(a0, a1, &h);
	t2 = _mulx_u64(a0, a2, &hi);
	c1 = _addcarryx_u64(0, t2, h, &t2);
	t3 = _mulx_u64(a0, a3, &t4);
	c1 = _addcarryx_u64(c1, t3, hi, &t3);
	t4 += c1; /* a0 * a3 < 2^128 - 2^65: room for the carry */
	lo = _mulx_u64(a1, a2, &hi);
	c1 = _addcarryx_u64(0, t3, lo, &t3);
	c2 = _addcarryx_u64(0, t4, hi, &t4);
	lo = _mulx_u64(a1, a3, &t5);
	c1 = _addcarryx_u64(c1, t4, lo, &t4);
	t5 += (u64)c1 + c2;
	lo = _mulx_u64(a2, a3, &t6);
	c1 = _addcarryx_u64(0, t5, lo, &t5);
	t6 += c1;
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
	c1 = _addcarryx_u64(0, t1, hi, &t1);
	lo = _mulx_u64(a1, a1, &hi);
	c1 = _addcarryx_u64(c1, t2, lo, &t2);
	c1 = _addcarryx_u64(c1, t3, hi, &t3);
	lo = _mulx_u64(a2, a2, &hi);
	c1 = _addcarryx_u64(c1, t4, lo, &t4);
	c1 = _addcarryx_u64(c1, t5, hi, &t5);
	lo = _mulx_u64(a3, a3, &hi);
	c1 = _addcarryx_u64(c1, t6, lo, &t6);
	t7 += hi + c1;
	mont_reduce(r, t0, t1, t2, t3, t4, t5, t6, t7);
}

#endif
