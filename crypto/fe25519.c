/*
 * GF(2^255 - 19): encoding, inversion, square roots.
 *
 * Implementation notes:
 * - Limb layout and bounds are described in fe25519.h.
 * - fe_tobytes() reduces fully: two carry passes leave a value below
 *   2^255 + 19 < 2p, then q = floor((h + 19) / 2^255) is 1 exactly when
 *   h >= p, and h + 19 q - q 2^255 = h - q p is canonical. No branches.
 * - Inversion is crypto/safegcd256.c's (safegcd divsteps on the
 *   canonical bytes; 2.8k cycles against 6.1k for Fermat's 254
 *   squarings). The chain here, 254 squarings and 11 multiplications,
 *   serves fe_pow22523 (square roots); constant time.
 * - Square roots follow RFC 8032 5.1.3: since p = 5 mod 8, a candidate root
 *   of u/v is u v^3 (u v^7)^((p-5)/8), fixed up by sqrt(-1) when needed.
 */
#include "base/bytes.h"
#include "crypto/fe25519.h"

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/safegcd256.h"

/* sqrt(-1) = 2^((p-1)/4) mod p (RFC 8032 5.1.3), in 51-bit limbs. */
static const struct fe25519 fe_sqrtm1 = {
	{ 0x61b274a0ea0b0, 0x0d5a5fc8f189d, 0x7ef5e9cbd0c60, 0x78595a6804c9e, 0x2b8324804fc1d }
};

void fe_frombytes(struct fe25519 *h, const uint8_t s[32])
{
	uint64_t w0 = load_le64(s), w1 = load_le64(s + 8), w2 = load_le64(s + 16),
		 w3 = load_le64(s + 24);

	h->v[0] = w0 & FE_MASK51;
	h->v[1] = ((w0 >> 51) | (w1 << 13)) & FE_MASK51;
	h->v[2] = ((w1 >> 38) | (w2 << 26)) & FE_MASK51;
	h->v[3] = ((w2 >> 25) | (w3 << 39)) & FE_MASK51;
	h->v[4] = (w3 >> 12) & FE_MASK51; /* drops bit 255 */
}

/* Reduce to the canonical representative, limbs < 2^51. */
static void fe_reduce(struct fe25519 *t)
{
	uint64_t q;

	fe_carry(t);
	fe_carry(t); /* now t < 2^255 + 19 < 2p */
	q = (t->v[0] + 19) >> 51;
	q = (t->v[1] + q) >> 51;
	q = (t->v[2] + q) >> 51;
	q = (t->v[3] + q) >> 51;
	q = (t->v[4] + q) >> 51; /* q = 1 iff t >= p */
	t->v[0] += 19 * q;
	t->v[1] += t->v[0] >> 51; t->v[0] &= FE_MASK51;
	t->v[2] += t->v[1] >> 51; t->v[1] &= FE_MASK51;
	t->v[3] += t->v[2] >> 51; t->v[2] &= FE_MASK51;
	t->v[4] += t->v[3] >> 51; t->v[3] &= FE_MASK51;
	t->v[4] &= FE_MASK51; /* subtracts q 2^255 */
}

void fe_tobytes(uint8_t s[32], const struct fe25519 *h)
{
	struct fe25519 t = *h;

	fe_reduce(&t);
	store_le64(s, t.v[0] | (t.v[1] << 51));
	store_le64(s + 8, (t.v[1] >> 13) | (t.v[2] << 38));
	store_le64(s + 16, (t.v[2] >> 26) | (t.v[3] << 25));
	store_le64(s + 24, (t.v[3] >> 39) | (t.v[4] << 12));
}

int fe_bytes_noncanonical(const uint8_t s[32])
{
	/* p = 2^255 - 19: ed ff .. ff 7f little-endian. Only values in
	 * [p, 2^255) are non-canonical: bytes 1..30 all 0xff, byte 31 (low
	 * 7 bits) 0x7f and byte 0 >= 0xed. */
	if ((s[31] & 0x7f) != 0x7f || s[0] < 0xed)
		return 0;
	for (int i = 1; i < 31; i++)
		if (s[i] != 0xff)
			return 0;
	return 1;
}

uint64_t fe_iszero_mask(const struct fe25519 *f)
{
	uint8_t s[32];
	uint32_t acc = 0;

	fe_tobytes(s, f);
	for (int i = 0; i < 32; i++)
		acc |= s[i];
	return ct_is_zero_mask_u64(acc);
}

uint64_t fe_isodd(const struct fe25519 *f)
{
	struct fe25519 t = *f;

	fe_reduce(&t);
	return t.v[0] & 1;
}

/*
 * The head of the chain: returns f^(2^250 - 1) in t250 and f^11 in f11.
 * The exponent reached after each step is in the comments.
 */
static void fe_pow_2_250_1(struct fe25519 *t250, struct fe25519 *f11,
			   const struct fe25519 *f)
{
	struct fe25519 f2, t0, t1, t2;

	fe_sq(&f2, f);              /* 2 */
	fe_sq_n(&t0, &f2, 2);       /* 8 */
	fe_mul(&t0, &t0, f);        /* 9 */
	fe_mul(f11, &f2, &t0);      /* 11 */
	fe_sq(&t1, f11);            /* 22 */
	fe_mul(&t0, &t0, &t1);      /* 31 = 2^5 - 1 */
	fe_sq_n(&t1, &t0, 5);
	fe_mul(&t0, &t1, &t0);      /* 2^10 - 1 */
	fe_sq_n(&t1, &t0, 10);
	fe_mul(&t1, &t1, &t0);      /* 2^20 - 1 */
	fe_sq_n(&t2, &t1, 20);
	fe_mul(&t1, &t2, &t1);      /* 2^40 - 1 */
	fe_sq_n(&t1, &t1, 10);
	fe_mul(&t0, &t1, &t0);      /* 2^50 - 1 */
	fe_sq_n(&t1, &t0, 50);
	fe_mul(&t1, &t1, &t0);      /* 2^100 - 1 */
	fe_sq_n(&t2, &t1, 100);
	fe_mul(&t1, &t2, &t1);      /* 2^200 - 1 */
	fe_sq_n(&t1, &t1, 50);
	fe_mul(t250, &t1, &t0);     /* 2^250 - 1 */
}

void fe_invert(struct fe25519 *h, const struct fe25519 *f)
{
	struct {
		uint8_t b[32];
		uint64_t a[4];
	} w;

	fe_tobytes(w.b, f); /* canonical: below p, as sg256_inv needs */
	for (int i = 0; i < 4; i++)
		w.a[i] = load_le64(w.b + 8 * i);
	sg256_inv(w.a, w.a, &sg256_p25519);
	for (int i = 0; i < 4; i++)
		store_le64(w.b + 8 * i, w.a[i]);
	fe_frombytes(h, w.b);
	wipe(&w, sizeof(w));
}

void fe_pow22523(struct fe25519 *h, const struct fe25519 *f)
{
	struct fe25519 t, f11;

	fe_pow_2_250_1(&t, &f11, f);
	fe_sq_n(&t, &t, 2);         /* 2^252 - 4 */
	fe_mul(h, &t, f);           /* 2^252 - 3 */
}

uint64_t fe_sqrt_ratio(struct fe25519 *x, const struct fe25519 *u,
			  const struct fe25519 *v)
{
	struct fe25519 v3, v7, t, check, d;
	uint64_t ok_pos, ok_neg;

	fe_sq(&v3, v);
	fe_mul(&v3, &v3, v);        /* v^3 */
	fe_sq(&v7, &v3);
	fe_mul(&v7, &v7, v);        /* v^7 */
	fe_mul(&t, u, &v7);
	fe_pow22523(&t, &t);     /* (u v^7)^((p-5)/8) */
	fe_mul(&t, &t, &v3);
	fe_mul(x, &t, u);           /* x = u v^3 (u v^7)^((p-5)/8) */

	fe_sq(&check, x);
	fe_mul(&check, &check, v);  /* v x^2 */
	fe_sub(&d, &check, u);
	ok_pos = fe_iszero_mask(&d);  /* v x^2 = u: x is the root */
	fe_add(&d, &check, u);
	ok_neg = fe_iszero_mask(&d);  /* v x^2 = -u: x sqrt(-1) is */
	fe_mul(&t, x, &fe_sqrtm1);
	fe_cmov(x, &t, ok_neg);
	return ok_pos | ok_neg;
}
