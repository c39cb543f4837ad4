/*
 * Implementation notes: arithmetic modulo p = 2^256 - 2^224 + 2^192 + 2^96 - 1.
 *
 * - Four 64-bit limbs, little-endian, Montgomery form with R = 2^256,
 *   always fully reduced into [0, p). Products use unsigned __int128.
 * - Multiplication is a full 4x4-limb schoolbook product (squaring: 10
 *   limb products instead of 16; mul256.h, shared with p256_scalar.c),
 *   then Montgomery reduction one limb at a time. Because
 *   p = -1 mod 2^64, the reduction factor is the low limb
 *   itself, and the low limb of t + m*p is always 0 with a carry of m; the
 *   third limb of p is 0. The result is below 2p and a final masked
 *   subtraction of p brings it into [0, p).
 * - Additions and subtractions (inline, in p256_field.h) compute both
 *   candidates (with and without p) and select with a mask taken from the
 *   carry or borrow: no branch.
 * - Inversion is crypto/safegcd256.c's constant-time safegcd (590
 *   divsteps), then one Montgomery product by R^3 to come back to
 *   Montgomery form: 3.2k cycles against 5.2k for the Fermat chain it
 *   replaced (255 squarings, 12 products with the ADX squaring loop;
 *   tests/crypto/test_p256.c keeps a Fermat power as the reference).
 * - p256_fe_mul/sqr (inline, p256_field.h) dispatch to
 *   crypto/asm/p256_field_adx.c (MULX, ADX) when p256_fe_select()
 *   found them; same results.
 * Nothing here branches on or indexes memory by the values.
 */
#include "base/bytes.h"
#include "crypto/p256_field.h"

#include <stdatomic.h>

#include "base/wipe.h"
#include "crypto/cpu.h"
#include "crypto/ct.h"
#include "crypto/mul256.h"
#include "crypto/safegcd256.h"

typedef unsigned __int128 u128;

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* p, little-endian limbs */
#define P0 0xffffffffffffffffull
#define P1 0x00000000ffffffffull
#define P2 0x0000000000000000ull
#define P3 0xffffffff00000001ull

/* R^2 mod p, to convert into Montgomery form */
static const p256_fe r2_mod_p = { 0x0000000000000003ull, 0xfffffffbffffffffull,
				     0xfffffffffffffffeull, 0x00000004fffffffdull };
/* R mod p: 1 in Montgomery form */
static const p256_fe one_mont = { 0x0000000000000001ull, 0xffffffff00000000ull,
				     0xffffffffffffffffull, 0x00000000fffffffeull };
/* b * R mod p (b from SEC 2 section 2.4.2) */
static const p256_fe b_mont = { 0xd89cdf6229c4bddfull, 0xacf005cd78843090ull,
				   0xe5a220abf7212ed6ull, 0xdc30061d04874834ull };

/*
 * r = (t4:t3:t2:t1:t0) mod p for a value below 2p: subtract p, keep the
 * difference unless it borrowed (then the value was already < p).
 */
static ALWAYS_INLINE void reduce_once(p256_fe r, uint64_t t0, uint64_t t1, uint64_t t2,
				       uint64_t t3, uint64_t t4)
{
	uint64_t borrow = 0, s0, s1, s2, s3, keep;

	s0 = p256_sbb_(t0, P0, &borrow);
	s1 = p256_sbb_(t1, P1, &borrow);
	s2 = p256_sbb_(t2, P2, &borrow);
	s3 = p256_sbb_(t3, P3, &borrow);
	(void)p256_sbb_(t4, 0, &borrow);
	keep = 0 - ct_barrier_u64(borrow); /* all-ones: t < p, keep t */
	r[0] = ct_select_u64(keep, t0, s0);
	r[1] = ct_select_u64(keep, t1, s1);
	r[2] = ct_select_u64(keep, t2, s2);
	r[3] = ct_select_u64(keep, t3, s3);
}

/* lo:hi of one 128-bit value */
#define LO(x) ((uint64_t)(x))
#define HI(x) ((uint64_t)((x) >> 64))

/*
 * Montgomery reduction of the 512-bit t0..t7: four times, m = the low limb
 * (-1/p mod 2^64 is 1); t += m*p makes that limb 0 (t0 + m*P0 = m*2^64,
 * a carry of m) and it is dropped; m*P1 + m = m*2^32 is a shift; P2 = 0.
 * hi carries past the top limb.
 * The result, below 2p, is reduced once.
 */
static ALWAYS_INLINE void mont_reduce(p256_fe r, uint64_t t0, uint64_t t1, uint64_t t2,
				       uint64_t t3, uint64_t t4, uint64_t t5, uint64_t t6,
				       uint64_t t7)
{
	uint64_t m, hi = 0;
	u128 acc;

#define REDUCE_STEP(r0, r1, r2, r3, r4)                                                        \
	m = r0;                                                                                \
	acc = (u128)r1 + (m << 32); /* m*P1 + m (the carry of limb 0) = m*2^32 */              \
	r1 = LO(acc);                                                                          \
	acc = (u128)r2 + (m >> 32) + HI(acc);                                                  \
	r2 = LO(acc);                                                                          \
	acc = (u128)m * P3 + r3 + HI(acc);                                                     \
	r3 = LO(acc);                                                                          \
	acc = (u128)r4 + HI(acc) + hi;                                                         \
	r4 = LO(acc);                                                                          \
	hi = HI(acc);
	REDUCE_STEP(t0, t1, t2, t3, t4)
	REDUCE_STEP(t1, t2, t3, t4, t5)
	REDUCE_STEP(t2, t3, t4, t5, t6)
	REDUCE_STEP(t3, t4, t5, t6, t7)
#undef REDUCE_STEP
	reduce_once(r, t4, t5, t6, t7, hi);
}

void p256_fe_mul_portable(p256_fe r, const p256_fe a, const p256_fe b)
{
	uint64_t t[8];

	mul256(t, a, b);
	mont_reduce(r, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);
}

void p256_fe_sqr_portable(p256_fe r, const p256_fe a)
{
	uint64_t t[8];

	sqr256(t, a);
	mont_reduce(r, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);
}

atomic_int p256_fe_use_adx;

void p256_fe_select(void)
{
#if defined(HS_HAVE_P256_ADX)
	int adx = cpu_has(HS_CPU_BMI2 | HS_CPU_ADX);

	/* Intel cores take the form laid out for their ports (p256_adx_asm.h) */
	if (adx && cpu_has(HS_CPU_INTEL))
		adx = HS_P256_ADX_INTEL;
	atomic_store_explicit(&p256_fe_use_adx, adx, memory_order_relaxed);
#endif
}

int p256_fe_adx_active(void)
{
	return atomic_load_explicit(&p256_fe_use_adx, memory_order_relaxed);
}

/* R^3 mod p: mont(x, R^3) = x R^2 */
static const p256_fe r3_mod_p = { 0xfffffffd0000000aull, 0xffffffedfffffff7ull,
				     0x00000005fffffffcull, 0x0000001800000001ull };

/*
 * sg256_inv on the Montgomery representative a R (in [0, p)) gives
 * a^-1 R^-1; one Montgomery product by R^3 makes it a^-1 R.
 */
void p256_fe_inv(p256_fe r, const p256_fe a)
{
	p256_fe t;

	sg256_inv(t, a, &sg256_p256_p); /* p is prime; 0 gives 0 */
	p256_fe_mul(r, t, r3_mod_p);
	wipe(t, sizeof(t));
}

void p256_fe_set_b(p256_fe r) { p256_fe_copy(r, b_mont); }

void p256_fe_set_one(p256_fe r) { p256_fe_copy(r, one_mont); }

void p256_fe_cmov(p256_fe r, const p256_fe a, uint64_t mask)
{
	for (int i = 0; i < 4; i++)
		r[i] = ct_select_u64(mask, a[i], r[i]);
}

uint64_t p256_fe_eq(const p256_fe a, const p256_fe b)
{
	return ct_is_zero_mask_u64((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) |
				   (a[3] ^ b[3]));
}

uint64_t p256_fe_from_bytes(p256_fe r, const uint8_t in[32])
{
	p256_fe x;
	uint64_t borrow = 0;

	for (int i = 0; i < 4; i++)
		x[i] = load_be64(in + 8 * (3 - i));
	/* x < p iff x - p borrows */
	(void)p256_sbb_(x[0], P0, &borrow);
	(void)p256_sbb_(x[1], P1, &borrow);
	(void)p256_sbb_(x[2], P2, &borrow);
	(void)p256_sbb_(x[3], P3, &borrow);
	/* Montgomery multiplication accepts any x < 2^256 and reduces it */
	p256_fe_mul(r, x, r2_mod_p);
	return 0 - ct_barrier_u64(borrow);
}

void p256_fe_to_bytes(uint8_t out[32], const p256_fe a)
{
	static const p256_fe one = { 1, 0, 0, 0 };
	p256_fe x;

	p256_fe_mul(x, a, one); /* a / R */
	for (int i = 0; i < 4; i++)
		store_be64(out + 8 * (3 - i), x[i]);
}
