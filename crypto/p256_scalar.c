/*
 * Implementation notes: arithmetic modulo the P-256 group order n.
 *
 * - Four 64-bit limbs, little-endian. Multiplication is a 4x4-limb
 *   schoolbook product (squaring: 10 limb products; mul256.h) and Montgomery
 *   reduction one limb at a time, R = 2^256, n0 = -1/n mod 2^64; the
 *   result stays below 2n and one masked subtraction reduces it.
 * - Inversion is safegcd256.c's constant-time safegcd (Bernstein-Yang
 *   divsteps, 590 for every 256-bit input), then one Montgomery product
 *   to come back to Montgomery form.
 * - Reductions of 256-bit inputs need at most one subtraction since
 *   2^256 < 2n; it is always computed and selected with a mask.
 * - Multiplication and squaring dispatch to crypto/asm/p256_scalar_adx.c
 *   (MULX, ADX) when the field code chose its ADX backend; same results.
 * Nothing here branches on or indexes memory by the values (verification
 * uses the same constant-time inverse: safegcd beat a branching binary
 * Euclid on its public s, 7.0k against 9.1k cycles).
 */
#include "base/bytes.h"
#include "crypto/p256_scalar.h"

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/mul256.h"
#include "crypto/safegcd256.h"

typedef unsigned __int128 u128;

#define ALWAYS_INLINE inline __attribute__((always_inline))

static const p256_sc order = { 0xf3b9cac2fc632551ull, 0xbce6faada7179e84ull,
				  0xffffffffffffffffull, 0xffffffff00000000ull };
/* -1/n mod 2^64 */
#define N0 0xccd1c8aaee00bc4full
/* R^2 mod n */
static const p256_sc r2_mod_n = { 0x83244c95be79eea2ull, 0x4699799c49bd6fa6ull,
				     0x2845b2392b6bec59ull, 0x66e12d94f3d95620ull };

/* r = t mod n for t = (t4:t3..t0) < 2n: subtract n unless that borrows. */
static ALWAYS_INLINE void reduce_once(p256_sc r, const uint64_t t[4], uint64_t t4)
{
	uint64_t borrow = 0, s[4], keep;

	for (int i = 0; i < 4; i++)
		s[i] = p256_sbb_(t[i], order[i], &borrow);
	(void)p256_sbb_(t4, 0, &borrow);
	keep = 0 - ct_barrier_u64(borrow); /* all-ones: t < n, keep t */
	for (int i = 0; i < 4; i++)
		r[i] = ct_select_u64(keep, t[i], s[i]);
}

#define LO(x) ((uint64_t)(x))
#define HI(x) ((uint64_t)((x) >> 64))

/*
 * Montgomery reduction of the 512-bit t0..t7, one limb at a time:
 * m = t_i * N0 makes t + m*n*2^(64i) divisible by 2^(64(i+1)); hi is the
 * carry past the top limb. The result (below 2n) is reduced once.
 */
static ALWAYS_INLINE void mont_reduce(p256_sc r, uint64_t t0, uint64_t t1, uint64_t t2,
				       uint64_t t3, uint64_t t4, uint64_t t5, uint64_t t6,
				       uint64_t t7)
{
	uint64_t m, hi = 0, t[4];
	u128 acc;

#define REDUCE_STEP(r0, r1, r2, r3, r4)                                                        \
	m = r0 * N0;                                                                           \
	acc = (u128)m * order[0] + r0;                                                         \
	acc = (u128)m * order[1] + r1 + HI(acc);                                               \
	r1 = LO(acc);                                                                          \
	acc = (u128)m * order[2] + r2 + HI(acc);                                               \
	r2 = LO(acc);                                                                          \
	acc = (u128)m * order[3] + r3 + HI(acc);                                               \
	r3 = LO(acc);                                                                          \
	acc = (u128)r4 + HI(acc) + hi;                                                         \
	r4 = LO(acc);                                                                          \
	hi = HI(acc);
	REDUCE_STEP(t0, t1, t2, t3, t4)
	REDUCE_STEP(t1, t2, t3, t4, t5)
	REDUCE_STEP(t2, t3, t4, t5, t6)
	REDUCE_STEP(t3, t4, t5, t6, t7)
#undef REDUCE_STEP
	t[0] = t4;
	t[1] = t5;
	t[2] = t6;
	t[3] = t7;
	reduce_once(r, t, hi);
}

void p256_sc_mont_mul_portable(p256_sc r, const p256_sc a, const p256_sc b)
{
	uint64_t t[8];

	mul256(t, a, b);
	mont_reduce(r, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);
}

void p256_sc_mont_sqr_portable(p256_sc r, const p256_sc a)
{
	uint64_t t[8];

	sqr256(t, a);
	mont_reduce(r, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);
}

void p256_sc_mont_mul(p256_sc r, const p256_sc a, const p256_sc b)
{
#if defined(HS_HAVE_P256_ADX)
	if (p256_fe_adx_active()) {
		p256_sc_mont_mul_adx(r, a, b);
		return;
	}
#endif
	p256_sc_mont_mul_portable(r, a, b);
}

void p256_sc_mont_sqr(p256_sc r, const p256_sc a)
{
#if defined(HS_HAVE_P256_ADX)
	if (p256_fe_adx_active()) {
		p256_sc_mont_sqr_adx(r, a);
		return;
	}
#endif
	p256_sc_mont_sqr_portable(r, a);
}

void p256_sc_to_mont(p256_sc r, const p256_sc a)
{
	p256_sc_mont_mul(r, a, r2_mod_n);
}

/* R^3 mod n: mont(x, R^3) = x R^2 */
static const p256_sc r3_mod_n = { 0xac8ebec90b65a624ull, 0x111f28ae0c0555c9ull,
				     0x2543b9246ba5e93full, 0x503a54e76407be65ull };

/*
 * sg256_inv (Bernstein-Yang divsteps, a fixed count: constant time) on
 * the Montgomery representative a R gives a^-1 R^-1; one Montgomery
 * product by R^3 makes it a^-1 R.
 */
void p256_sc_inv_mont(p256_sc r, const p256_sc a)
{
	p256_sc t;

	sg256_inv(t, a, &sg256_p256_n); /* n is prime: a != 0 is invertible; 0 gives 0 */
	p256_sc_mont_mul(r, t, r3_mod_n);
	wipe(t, sizeof(t));
}

uint64_t p256_sc_from_bytes(p256_sc r, const uint8_t in[32])
{
	uint64_t borrow = 0;

	for (int i = 0; i < 4; i++)
		r[i] = load_be64(in + 8 * (3 - i));
	/* r < n iff r - n borrows */
	for (int i = 0; i < 4; i++)
		(void)p256_sbb_(r[i], order[i], &borrow);
	return (0 - ct_barrier_u64(borrow)) & ~p256_sc_is_zero(r);
}

void p256_sc_from_digest(p256_sc r, const uint8_t *h, size_t h_len)
{
	uint8_t buf[32] = { 0 };
	uint64_t t[4];
	size_t n = h_len < 32 ? h_len : 32;

	/* leftmost min(256, 8*h_len) bits as an integer: right-align them */
	for (size_t i = 0; i < n; i++)
		buf[32 - n + i] = h[i];
	for (int i = 0; i < 4; i++)
		t[i] = load_be64(buf + 8 * (3 - i));
	reduce_once(r, t, 0);
}

void p256_sc_to_bytes(uint8_t out[32], const p256_sc a)
{
	for (int i = 0; i < 4; i++) {
		uint64_t v = a[i];
		for (int k = 7; k >= 0; k--) {
			out[8 * (3 - i) + k] = (uint8_t)v;
			v >>= 8;
		}
	}
}

void p256_sc_add(p256_sc r, const p256_sc a, const p256_sc b)
{
	uint64_t carry = 0, t[4];

	for (int i = 0; i < 4; i++)
		t[i] = p256_adc_(a[i], b[i], &carry);
	reduce_once(r, t, carry);
}

uint64_t p256_sc_is_zero(const p256_sc a)
{
	return ct_is_zero_mask_u64(a[0] | a[1] | a[2] | a[3]);
}

void p256_sc_cmov(p256_sc r, const p256_sc a, uint64_t mask)
{
	for (int i = 0; i < 4; i++)
		r[i] = ct_select_u64(mask, a[i], r[i]);
}
