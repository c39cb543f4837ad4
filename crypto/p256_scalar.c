/*
 * Implementation notes: arithmetic modulo the P-256 group order n.
 *
 * - Four 64-bit limbs, little-endian. Multiplication is word-by-word
 *   Montgomery (CIOS) with R = 2^256 and n0 = -1/n mod 2^64; the running
 *   value stays below 2n and one masked subtraction reduces it.
 * - Inversion is Fermat (a^(n-2)) with a fixed 4-bit window over the
 *   public exponent: the window index comes from n, never from a, so the
 *   table lookup is not secret-dependent; every input does the same work.
 * - Reductions of 256-bit inputs need at most one subtraction since
 *   2^256 < 2n; it is always computed and selected with a mask.
 * Nothing here branches on or indexes memory by the values.
 */
#include "crypto/p256_scalar.h"

#include "base/wipe.h"
#include "crypto/ct.h"

typedef unsigned __int128 u128;

static const hs_p256_sc order = { 0xf3b9cac2fc632551ull, 0xbce6faada7179e84ull,
				  0xffffffffffffffffull, 0xffffffff00000000ull };
/* -1/n mod 2^64 */
#define N0 0xccd1c8aaee00bc4full
/* R^2 mod n */
static const hs_p256_sc r2_mod_n = { 0x83244c95be79eea2ull, 0x4699799c49bd6fa6ull,
				     0x2845b2392b6bec59ull, 0x66e12d94f3d95620ull };
/* R mod n: 1 in Montgomery form */
static const hs_p256_sc one_mont = { 0x0c46353d039cdaafull, 0x4319055258e8617bull,
				     0x0000000000000000ull, 0x00000000ffffffffull };
/* n - 2, big-endian bytes: the Fermat exponent */
static const uint8_t n_minus_2[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x4f,
};

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

/* r = t mod n for t = (t4:t3..t0) < 2n: subtract n unless that borrows. */
static void reduce_once(hs_p256_sc r, const uint64_t t[4], uint64_t t4)
{
	uint64_t borrow = 0, s[4], keep;

	for (int i = 0; i < 4; i++)
		s[i] = sbb(t[i], order[i], &borrow);
	(void)sbb(t4, 0, &borrow);
	keep = 0 - ct_barrier_u64(borrow); /* all-ones: t < n, keep t */
	for (int i = 0; i < 4; i++)
		r[i] = ct_select_u64(keep, t[i], s[i]);
}

void hs_p256_sc_mont_mul(hs_p256_sc r, const hs_p256_sc a, const hs_p256_sc b)
{
	uint64_t t[4] = { 0, 0, 0, 0 }, t4 = 0, t5, c, m;
	u128 acc;

	for (int i = 0; i < 4; i++) {
		/* t += a * b[i] */
		c = 0;
		for (int j = 0; j < 4; j++) {
			acc = (u128)a[j] * b[i] + t[j] + c;
			t[j] = (uint64_t)acc;
			c = (uint64_t)(acc >> 64);
		}
		acc = (u128)t4 + c;
		t4 = (uint64_t)acc;
		t5 = (uint64_t)(acc >> 64);
		/* t = (t + m*n) / 2^64, m chosen so the low limb becomes 0 */
		m = t[0] * N0;
		acc = (u128)m * order[0] + t[0];
		c = (uint64_t)(acc >> 64);
		for (int j = 1; j < 4; j++) {
			acc = (u128)m * order[j] + t[j] + c;
			t[j - 1] = (uint64_t)acc;
			c = (uint64_t)(acc >> 64);
		}
		acc = (u128)t4 + c;
		t[3] = (uint64_t)acc;
		t4 = t5 + (uint64_t)(acc >> 64);
	}
	reduce_once(r, t, t4);
}

void hs_p256_sc_to_mont(hs_p256_sc r, const hs_p256_sc a)
{
	hs_p256_sc_mont_mul(r, a, r2_mod_n);
}

void hs_p256_sc_inv_mont(hs_p256_sc r, const hs_p256_sc a)
{
	hs_p256_sc pow[16], t;

	/* pow[i] = a^i (Montgomery form) */
	for (int i = 0; i < 4; i++)
		pow[0][i] = one_mont[i];
	for (int i = 1; i < 16; i++)
		hs_p256_sc_mont_mul(pow[i], pow[i - 1], a);
	for (int i = 0; i < 4; i++)
		t[i] = pow[0][i];
	for (int i = 0; i < 64; i++) {
		/* the nibble is of the public exponent n - 2 */
		unsigned nib = (n_minus_2[i / 2] >> (i % 2 ? 0 : 4)) & 0xf;
		for (int k = 0; k < 4; k++)
			hs_p256_sc_mont_mul(t, t, t);
		hs_p256_sc_mont_mul(t, t, pow[nib]);
	}
	for (int i = 0; i < 4; i++)
		r[i] = t[i];
	hs_wipe(pow, sizeof(pow));
	hs_wipe(t, sizeof(t));
}

static uint64_t load_be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

uint64_t hs_p256_sc_from_bytes(hs_p256_sc r, const uint8_t in[32])
{
	uint64_t borrow = 0;

	for (int i = 0; i < 4; i++)
		r[i] = load_be64(in + 8 * (3 - i));
	/* r < n iff r - n borrows */
	for (int i = 0; i < 4; i++)
		(void)sbb(r[i], order[i], &borrow);
	return (0 - ct_barrier_u64(borrow)) & ~hs_p256_sc_is_zero(r);
}

void hs_p256_sc_from_digest(hs_p256_sc r, const uint8_t *h, size_t h_len)
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

void hs_p256_sc_to_bytes(uint8_t out[32], const hs_p256_sc a)
{
	for (int i = 0; i < 4; i++) {
		uint64_t v = a[i];
		for (int k = 7; k >= 0; k--) {
			out[8 * (3 - i) + k] = (uint8_t)v;
			v >>= 8;
		}
	}
}

void hs_p256_sc_add(hs_p256_sc r, const hs_p256_sc a, const hs_p256_sc b)
{
	uint64_t carry = 0, t[4];

	for (int i = 0; i < 4; i++)
		t[i] = adc(a[i], b[i], &carry);
	reduce_once(r, t, carry);
}

uint64_t hs_p256_sc_is_zero(const hs_p256_sc a)
{
	return ct_is_zero_mask_u64(a[0] | a[1] | a[2] | a[3]);
}

void hs_p256_sc_cmov(hs_p256_sc r, const hs_p256_sc a, uint64_t mask)
{
	for (int i = 0; i < 4; i++)
		r[i] = ct_select_u64(mask, a[i], r[i]);
}
