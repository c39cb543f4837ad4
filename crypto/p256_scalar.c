/*
 * Implementation notes: arithmetic modulo the P-256 group order n.
 *
 * - Four 64-bit limbs, little-endian. Multiplication is a 4x4-limb
 *   schoolbook product (squaring: 10 limb products) and Montgomery
 *   reduction one limb at a time, R = 2^256, n0 = -1/n mod 2^64; the
 *   result stays below 2n and one masked subtraction reduces it.
 * - Inversion is Fermat (a^(n-2)): an addition chain for the regular top
 *   half of the exponent and sliding windows over the public low half:
 *   every branch and table index comes from n, never from a, so every
 *   input does the same work.
 * - Reductions of 256-bit inputs need at most one subtraction since
 *   2^256 < 2n; it is always computed and selected with a mask.
 * - Multiplication and squaring dispatch to crypto/asm/p256_scalar_adx.c
 *   (MULX, ADX) when the field code chose its ADX backend; same results.
 * - p256_sc_inv_vartime (binary extended Euclid) is the one exception:
 *   it branches on its input, and serves verification, whose s is public.
 * Apart from it, nothing here branches on or indexes memory by the values.
 */
#include "base/bytes.h"
#include "crypto/p256_scalar.h"

#include "base/wipe.h"
#include "crypto/ct.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

typedef unsigned __int128 u128;

#define ALWAYS_INLINE inline __attribute__((always_inline))

static const p256_sc order = { 0xf3b9cac2fc632551ull, 0xbce6faada7179e84ull,
				  0xffffffffffffffffull, 0xffffffff00000000ull };
/* -1/n mod 2^64 */
#define N0 0xccd1c8aaee00bc4full
/* R^2 mod n */
static const p256_sc r2_mod_n = { 0x83244c95be79eea2ull, 0x4699799c49bd6fa6ull,
				     0x2845b2392b6bec59ull, 0x66e12d94f3d95620ull };
/* n - 2, big-endian bytes: the Fermat exponent */
static const uint8_t n_minus_2[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84,
	0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x4f,
};

#if defined(__x86_64__)
/* plain ADC / SBB chains, as in p256_field.c */
static inline uint64_t sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
	unsigned long long d;

	*borrow = _subborrow_u64((unsigned char)*borrow, a, b, &d);
	return d;
}

static inline uint64_t adc(uint64_t a, uint64_t b, uint64_t *carry)
{
	unsigned long long s;

	*carry = _addcarry_u64((unsigned char)*carry, a, b, &s);
	return s;
}
#else
static inline uint64_t sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
	u128 d = (u128)a - b - *borrow;
	*borrow = (uint64_t)(d >> 64) & 1;
	return (uint64_t)d;
}

static inline uint64_t adc(uint64_t a, uint64_t b, uint64_t *carry)
{
	u128 s = (u128)a + b + *carry;
	*carry = (uint64_t)(s >> 64);
	return (uint64_t)s;
}
#endif

/* r = t mod n for t = (t4:t3..t0) < 2n: subtract n unless that borrows. */
static ALWAYS_INLINE void reduce_once(p256_sc r, const uint64_t t[4], uint64_t t4)
{
	uint64_t borrow = 0, s[4], keep;

	for (int i = 0; i < 4; i++)
		s[i] = sbb(t[i], order[i], &borrow);
	(void)sbb(t4, 0, &borrow);
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
	uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
	u128 acc;

	acc = (u128)a0 * b[0];
	t0 = LO(acc);
	acc = (u128)a1 * b[0] + HI(acc);
	t1 = LO(acc);
	acc = (u128)a2 * b[0] + HI(acc);
	t2 = LO(acc);
	acc = (u128)a3 * b[0] + HI(acc);
	t3 = LO(acc);
	t4 = HI(acc);
#define MUL_ROW(bi, r0, r1, r2, r3, r4)                                                        \
	acc = (u128)a0 * (bi) + r0;                                                            \
	r0 = LO(acc);                                                                          \
	acc = (u128)a1 * (bi) + r1 + HI(acc);                                                  \
	r1 = LO(acc);                                                                          \
	acc = (u128)a2 * (bi) + r2 + HI(acc);                                                  \
	r2 = LO(acc);                                                                          \
	acc = (u128)a3 * (bi) + r3 + HI(acc);                                                  \
	r3 = LO(acc);                                                                          \
	r4 = HI(acc);
	MUL_ROW(b[1], t1, t2, t3, t4, t5)
	MUL_ROW(b[2], t2, t3, t4, t5, t6)
	MUL_ROW(b[3], t3, t4, t5, t6, t7)
#undef MUL_ROW
	mont_reduce(r, t0, t1, t2, t3, t4, t5, t6, t7);
}

/* r = a * a / 2^256 mod n: cross products once, doubled, plus the squares. */
void p256_sc_mont_sqr_portable(p256_sc r, const p256_sc a)
{
	uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
	u128 acc;

	acc = (u128)a0 * a1;
	t1 = LO(acc);
	acc = (u128)a0 * a2 + HI(acc);
	t2 = LO(acc);
	acc = (u128)a0 * a3 + HI(acc);
	t3 = LO(acc);
	t4 = HI(acc);
	acc = (u128)a1 * a2 + t3;
	t3 = LO(acc);
	acc = (u128)a1 * a3 + t4 + HI(acc);
	t4 = LO(acc);
	t5 = HI(acc);
	acc = (u128)a2 * a3 + t5;
	t5 = LO(acc);
	t6 = HI(acc);
	t7 = t6 >> 63;
	t6 = (t6 << 1) | (t5 >> 63);
	t5 = (t5 << 1) | (t4 >> 63);
	t4 = (t4 << 1) | (t3 >> 63);
	t3 = (t3 << 1) | (t2 >> 63);
	t2 = (t2 << 1) | (t1 >> 63);
	t1 <<= 1;
	acc = (u128)a0 * a0;
	t0 = LO(acc);
	acc = (u128)t1 + HI(acc);
	t1 = LO(acc);
	acc = (u128)a1 * a1 + t2 + HI(acc);
	t2 = LO(acc);
	acc = (u128)t3 + HI(acc);
	t3 = LO(acc);
	acc = (u128)a2 * a2 + t4 + HI(acc);
	t4 = LO(acc);
	acc = (u128)t5 + HI(acc);
	t5 = LO(acc);
	acc = (u128)a3 * a3 + t6 + HI(acc);
	t6 = LO(acc);
	t7 += HI(acc);
	mont_reduce(r, t0, t1, t2, t3, t4, t5, t6, t7);
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

/* bit i (0 = least significant) of the public exponent n - 2 */
static unsigned exp_bit(int i)
{
	return (n_minus_2[31 - i / 8] >> (i % 8)) & 1;
}

static void sc_copy(p256_sc r, const p256_sc a)
{
	for (int i = 0; i < 4; i++)
		r[i] = a[i];
}

/* r = r^(2^k) * m */
static void sqr_n_mul(p256_sc r, unsigned k, const p256_sc m)
{
	while (k-- > 0)
		p256_sc_mont_sqr(r, r);
	p256_sc_mont_mul(r, r, m);
}

/*
 * n - 2 = ffffffff 00000000 ffffffff ffffffff || 128 irregular bits. The
 * top half comes from x32 = a^(2^32 - 1) (x_k: k one bits); the low half
 * by sliding windows of up to 4 bits over the odd powers a^1 .. a^15.
 * Every choice depends on the public exponent only. 253 squarings and 39
 * multiplications, against 252 and 79 for a fixed 4-bit window.
 */
void p256_sc_inv_mont(p256_sc r, const p256_sc a)
{
	p256_sc pow[8], x8, x16, x32, t; /* pow[i] = a^(2i + 1) */
	int i = 127, j;
	unsigned v;

	p256_sc_mont_sqr(t, a);
	sc_copy(pow[0], a);
	for (int k = 1; k < 8; k++)
		p256_sc_mont_mul(pow[k], pow[k - 1], t);
	sc_copy(x8, pow[7]); /* a^15 = x4 */
	sqr_n_mul(x8, 4, pow[7]);
	sc_copy(x16, x8);
	sqr_n_mul(x16, 8, x8);
	sc_copy(x32, x16);
	sqr_n_mul(x32, 16, x16);
	sc_copy(t, x32);
	sqr_n_mul(t, 64, x32); /* 32 ones, 32 zeros, 32 ones */
	sqr_n_mul(t, 32, x32);
	while (i >= 0) {
		if (!exp_bit(i)) {
			p256_sc_mont_sqr(t, t);
			i--;
			continue;
		}
		/* the window i..j: at most 4 bits, ending on a one */
		j = i - 3 < 0 ? 0 : i - 3;
		while (!exp_bit(j))
			j++;
		v = 0;
		for (int k = i; k >= j; k--)
			v = (v << 1) | exp_bit(k);
		sqr_n_mul(t, (unsigned)(i - j + 1), pow[v >> 1]);
		i = j - 1;
	}
	sc_copy(r, t);
	wipe(pow, sizeof(pow));
	wipe(x8, sizeof(x8));
	wipe(x16, sizeof(x16));
	wipe(x32, sizeof(x32));
	wipe(t, sizeof(t));
}

/* ---- variable time: public values only (verify) ---- */

/* a >= b, on four limbs (branches) */
static int geq_vartime(const uint64_t a[4], const uint64_t b[4])
{
	for (int i = 3; i >= 0; i--) {
		if (a[i] != b[i])
			return a[i] > b[i];
	}
	return 1;
}

/* a = a / 2 mod n: (a + n) / 2 when a is odd, the 257-bit sum's carry shifted back in */
static void half_mod_n_vartime(uint64_t a[4])
{
	uint64_t carry = 0;

	if (a[0] & 1) {
		for (int i = 0; i < 4; i++)
			a[i] = adc(a[i], order[i], &carry);
	}
	for (int i = 0; i < 3; i++)
		a[i] = (a[i] >> 1) | (a[i + 1] << 63);
	a[3] = (a[3] >> 1) | (carry << 63);
}

/* a = a - b mod n, for a, b < n */
static void sub_mod_n_vartime(uint64_t a[4], const uint64_t b[4])
{
	uint64_t borrow = 0, carry = 0;

	for (int i = 0; i < 4; i++)
		a[i] = sbb(a[i], b[i], &borrow);
	if (borrow) {
		for (int i = 0; i < 4; i++)
			a[i] = adc(a[i], order[i], &carry);
	}
}

/* a = (a - b) / 2, for a >= b, both odd (the difference is even) */
static void sub_half_vartime(uint64_t a[4], const uint64_t b[4])
{
	uint64_t borrow = 0;

	for (int i = 0; i < 4; i++)
		a[i] = sbb(a[i], b[i], &borrow);
	for (int i = 0; i < 3; i++)
		a[i] = (a[i] >> 1) | (a[i + 1] << 63);
	a[3] >>= 1;
}

/*
 * Binary extended Euclid (HAC algorithm 14.61 in its modular-inverse
 * form): invariants x1 a = u and x2 a = v (mod n), u and v shrink until
 * one of them is 1. Runs in time that depends on a; a in [1, n-1].
 */
void p256_sc_inv_vartime(p256_sc r, const p256_sc a)
{
	uint64_t u[4], v[4], x1[4] = { 1, 0, 0, 0 }, x2[4] = { 0, 0, 0, 0 };

	for (int i = 0; i < 4; i++) {
		u[i] = a[i];
		v[i] = order[i];
	}
	while ((u[0] & 1) == 0) {
		half_mod_n_vartime(u);
		half_mod_n_vartime(x1);
	}
	/* u and v odd from here on: subtract the smaller, halve until odd */
	for (;;) {
		if (geq_vartime(u, v)) {
			if (u[0] == 1 && (u[1] | u[2] | u[3]) == 0)
				break; /* u = 1 (then v = 1 too) */
			sub_half_vartime(u, v);
			sub_mod_n_vartime(x1, x2);
			half_mod_n_vartime(x1);
			while ((u[0] & 1) == 0 && (u[0] | u[1] | u[2] | u[3]) != 0) {
				half_mod_n_vartime(u);
				half_mod_n_vartime(x1);
			}
		} else { /* u < v, so v > 1: gcd(u, v) = 1 */
			sub_half_vartime(v, u);
			sub_mod_n_vartime(x2, x1);
			half_mod_n_vartime(x2);
			while ((v[0] & 1) == 0) {
				half_mod_n_vartime(v);
				half_mod_n_vartime(x2);
			}
		}
	}
	for (int i = 0; i < 4; i++)
		r[i] = x1[i]; /* u = 1 = x1 a */
}

uint64_t p256_sc_from_bytes(p256_sc r, const uint8_t in[32])
{
	uint64_t borrow = 0;

	for (int i = 0; i < 4; i++)
		r[i] = load_be64(in + 8 * (3 - i));
	/* r < n iff r - n borrows */
	for (int i = 0; i < 4; i++)
		(void)sbb(r[i], order[i], &borrow);
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
		t[i] = adc(a[i], b[i], &carry);
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
