/*
 * Arithmetic modulo L, the order of the Ed25519 base point.
 *
 * Implementation notes:
 * - Numbers are little-endian arrays of 64-bit limbs; products use
 *   unsigned __int128. Every loop bound is a constant.
 * - Reduction of a 512-bit x is Barrett's (Handbook of Applied Cryptography,
 *   algorithm 14.42) with base b = 2^64 and k = 4 limbs, valid because
 *   b^3 <= L < b^4 and x < b^8:
 *     q = floor(floor(x / b^3) mu / b^5), mu = floor(b^8 / L),
 *     r = (x - q L) mod b^5, and then 0 <= r < 3L,
 *   so two conditional subtractions of L finish it. Those subtractions
 *   are always computed and kept or dropped by a mask, never a branch.
 * - a b + c is formed exactly (< 2^512) and reduced the same way.
 */
#include "base/bytes.h"
#include "crypto/sc25519.h"

#include "base/wipe.h"
#include "crypto/ct.h"

typedef unsigned __int128 u128;

/* L = 2^252 + 27742317777372353535851937790883648493, as four limbs */
static const uint64_t sc_l[4] = { 0x5812631a5cf5d3ed, 0x14def9dea2f79cd6, 0,
				  0x1000000000000000 };
/* mu = floor(2^512 / L), five limbs */
static const uint64_t sc_mu[5] = { 0xed9ce5a30a2c131b, 0x2106215d086329a7, 0xffffffffffffffeb,
				   0xffffffffffffffff, 0xf };

/* out[0 .. na + nb) = a b, schoolbook. */
static void mul_limbs(uint64_t *out, const uint64_t *a, int na, const uint64_t *b, int nb)
{
	for (int i = 0; i < na + nb; i++)
		out[i] = 0;
	for (int i = 0; i < na; i++) {
		uint64_t carry = 0;
		for (int j = 0; j < nb; j++) {
			u128 t = (u128)a[i] * b[j] + out[i + j] + carry;
			out[i + j] = (uint64_t)t;
			carry = (uint64_t)(t >> 64);
		}
		out[i + nb] = carry;
	}
}

/* r = r - L if r >= L (r has 5 limbs, r < 2^320): the difference is always
 * computed; its final borrow says whether to keep it. */
static void cond_sub_l(uint64_t r[5])
{
	uint64_t t[5], borrow = 0, keep;

	for (int i = 0; i < 5; i++) {
		uint64_t li = i < 4 ? sc_l[i] : 0;
		u128 d = (u128)r[i] - li - borrow;
		t[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1; /* 1 if the limb wrapped */
	}
	keep = ct_is_zero_mask_u64(borrow); /* no borrow: r >= L, take r - L */
	for (int i = 0; i < 5; i++)
		r[i] = ct_select_u64(keep, t[i], r[i]);
}

/* out = x mod L for x of 8 limbs (Barrett, see the notes). Wipes its scratch. */
static void barrett_reduce(uint8_t out[32], const uint64_t x[8])
{
	uint64_t q2[10], q3l[10], r[5];
	uint64_t borrow = 0;

	mul_limbs(q2, x + 3, 5, sc_mu, 5);   /* q1 mu, q1 = floor(x / b^3) */
	mul_limbs(q3l, q2 + 5, 5, sc_l, 4);  /* q3 L, q3 = floor(q1 mu / b^5) */
	for (int i = 0; i < 5; i++) {        /* r = (x - q3 L) mod b^5 */
		u128 d = (u128)x[i] - q3l[i] - borrow;
		r[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	cond_sub_l(r);
	cond_sub_l(r);
	for (int i = 0; i < 4; i++)
		store_le64(out + 8 * i, r[i]);
	wipe(q2, sizeof(q2));
	wipe(q3l, sizeof(q3l));
	wipe(r, sizeof(r));
}

void sc_reduce64(uint8_t out[32], const uint8_t in[64])
{
	uint64_t x[8];

	for (int i = 0; i < 8; i++)
		x[i] = load_le64(in + 8 * i);
	barrett_reduce(out, x);
	wipe(x, sizeof(x));
}

void sc_muladd(uint8_t out[32], const uint8_t a[32], const uint8_t b[32], const uint8_t c[32])
{
	uint64_t al[4], bl[4], x[8], carry = 0;

	for (int i = 0; i < 4; i++) {
		al[i] = load_le64(a + 8 * i);
		bl[i] = load_le64(b + 8 * i);
	}
	mul_limbs(x, al, 4, bl, 4);
	for (int i = 0; i < 8; i++) { /* x += c; a b + c < 2^512, no carry out */
		u128 t = (u128)x[i] + (i < 4 ? load_le64(c + 8 * i) : 0) + carry;
		x[i] = (uint64_t)t;
		carry = (uint64_t)(t >> 64);
	}
	barrett_reduce(out, x);
	wipe(al, sizeof(al));
	wipe(bl, sizeof(bl));
	wipe(x, sizeof(x));
}

int sc_is_canonical(const uint8_t s[32])
{
	for (int i = 3; i >= 0; i--) {
		uint64_t v = load_le64(s + 8 * i);
		if (v != sc_l[i])
			return v < sc_l[i];
	}
	return 0; /* s = L */
}
