/*
 * Implementation notes: P-384 ECDSA verification over crypto/bignum.h.
 *
 * - Field and scalar arithmetic are the generic Montgomery routines with
 *   n = 6 limbs, modulo p and modulo the group order; field elements stay
 *   in Montgomery form. Curve constants are from SEC 2 2.5.1 (and FIPS
 *   186-5 / SP 800-186), as big-endian bytes.
 * - Points are homogeneous projective (X:Y:Z), x = X/Z, y = Y/Z, with the
 *   complete formulas of Renes, Costello and Batina (2016) for a = -3:
 *   algorithm 4 (addition) and 6 (doubling). Complete means no special
 *   case: doubling through addition, the point at infinity (0:1:0) and
 *   P + (-P) all come out right, so the ladder needs no branches on them.
 * - Verification (SEC 1 4.1.4) is on public data and variable time:
 *   0 < r, s < n; e = leftmost 384 bits of the digest, reduced mod n;
 *   w = 1/s (the binary-GCD inverse of bignum.c); u1 = e w, u2 = r w;
 *   R = u1 G + u2 Q by Shamir's trick (one doubling per bit, then add G,
 *   Q or G + Q); reject infinity; accept if x(R) mod n = r, checked
 *   without an inversion: X = r Z, or X = (r + n) Z when r + n < p.
 */
#include "crypto/p384.h"

#include <string.h>

#include "crypto/bignum.h"
#include "crypto/hash.h"
#include "crypto/sha2.h"

#define L 6 /* limbs */

typedef uint64_t fe[L];

struct pt {
	fe x, y, z;
};

struct curve {
	struct hs_bn_mont p, n;
	fe b; /* Montgomery form */
};

static const uint8_t p_bytes[48] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
};
static const uint8_t n_bytes[48] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc7, 0x63, 0x4d, 0x81, 0xf4, 0x37, 0x2d, 0xdf,
	0x58, 0x1a, 0x0d, 0xb2, 0x48, 0xb0, 0xa7, 0x7a, 0xec, 0xec, 0x19, 0x6a, 0xcc, 0xc5, 0x29, 0x73,
};
static const uint8_t b_bytes[48] = {
	0xb3, 0x31, 0x2f, 0xa7, 0xe2, 0x3e, 0xe7, 0xe4, 0x98, 0x8e, 0x05, 0x6b, 0xe3, 0xf8, 0x2d, 0x19,
	0x18, 0x1d, 0x9c, 0x6e, 0xfe, 0x81, 0x41, 0x12, 0x03, 0x14, 0x08, 0x8f, 0x50, 0x13, 0x87, 0x5a,
	0xc6, 0x56, 0x39, 0x8d, 0x8a, 0x2e, 0xd1, 0x9d, 0x2a, 0x85, 0xc8, 0xed, 0xd3, 0xec, 0x2a, 0xef,
};
static const uint8_t g_bytes[96] = {
	0xaa, 0x87, 0xca, 0x22, 0xbe, 0x8b, 0x05, 0x37, 0x8e, 0xb1, 0xc7, 0x1e, 0xf3, 0x20, 0xad, 0x74,
	0x6e, 0x1d, 0x3b, 0x62, 0x8b, 0xa7, 0x9b, 0x98, 0x59, 0xf7, 0x41, 0xe0, 0x82, 0x54, 0x2a, 0x38,
	0x55, 0x02, 0xf2, 0x5d, 0xbf, 0x55, 0x29, 0x6c, 0x3a, 0x54, 0x5e, 0x38, 0x72, 0x76, 0x0a, 0xb7,
	0x36, 0x17, 0xde, 0x4a, 0x96, 0x26, 0x2c, 0x6f, 0x5d, 0x9e, 0x98, 0xbf, 0x92, 0x92, 0xdc, 0x29,
	0xf8, 0xf4, 0x1d, 0xbd, 0x28, 0x9a, 0x14, 0x7c, 0xe9, 0xda, 0x31, 0x13, 0xb5, 0xf0, 0xb8, 0xc0,
	0x0a, 0x60, 0xb1, 0xce, 0x1d, 0x7e, 0x81, 0x9d, 0x7a, 0x43, 0x1d, 0x7c, 0x90, 0xea, 0x0e, 0x5f,
};

static void curve_init(struct curve *c)
{
	fe t;

	/* the constants are right, so none of these can fail */
	(void)hs_bn_from_bytes(t, L, p_bytes, 48);
	(void)hs_bn_mont_init_vartime(&c->p, t, L);
	(void)hs_bn_from_bytes(t, L, n_bytes, 48);
	(void)hs_bn_mont_init_vartime(&c->n, t, L);
	(void)hs_bn_from_bytes(t, L, b_bytes, 48);
	hs_bn_mont_to(c->b, t, &c->p);
}

static void fmul(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct curve *c)
{
	hs_bn_mont_mul(r, a, b, &c->p);
}

static void fadd(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct curve *c)
{
	hs_bn_mod_add(r, a, b, &c->p);
}

static void fsub(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct curve *c)
{
	hs_bn_mod_sub(r, a, b, &c->p);
}

/* RCB16 algorithm 4 (a = -3): r = a + b for any a, b. r may alias a or b. */
static void pt_add(struct pt *r, const struct pt *a, const struct pt *b, const struct curve *c)
{
	fe t0, t1, t2, t3, t4, x3, y3, z3;

	fmul(t0, a->x, b->x, c);
	fmul(t1, a->y, b->y, c);
	fmul(t2, a->z, b->z, c);
	fadd(t3, a->x, a->y, c);
	fadd(t4, b->x, b->y, c);
	fmul(t3, t3, t4, c);
	fadd(t4, t0, t1, c);
	fsub(t3, t3, t4, c);
	fadd(t4, a->y, a->z, c);
	fadd(x3, b->y, b->z, c);
	fmul(t4, t4, x3, c);
	fadd(x3, t1, t2, c);
	fsub(t4, t4, x3, c);
	fadd(x3, a->x, a->z, c);
	fadd(y3, b->x, b->z, c);
	fmul(x3, x3, y3, c);
	fadd(y3, t0, t2, c);
	fsub(y3, x3, y3, c);
	fmul(z3, c->b, t2, c);
	fsub(x3, y3, z3, c);
	fadd(z3, x3, x3, c);
	fadd(x3, x3, z3, c);
	fsub(z3, t1, x3, c);
	fadd(x3, t1, x3, c);
	fmul(y3, c->b, y3, c);
	fadd(t1, t2, t2, c);
	fadd(t2, t1, t2, c);
	fsub(y3, y3, t2, c);
	fsub(y3, y3, t0, c);
	fadd(t1, y3, y3, c);
	fadd(y3, t1, y3, c);
	fadd(t1, t0, t0, c);
	fadd(t0, t1, t0, c);
	fsub(t0, t0, t2, c);
	fmul(t1, t4, y3, c);
	fmul(t2, t0, y3, c);
	fmul(y3, x3, z3, c);
	fadd(y3, y3, t2, c);
	fmul(x3, t3, x3, c);
	fsub(x3, x3, t1, c);
	fmul(z3, t4, z3, c);
	fmul(t1, t3, t0, c);
	fadd(z3, z3, t1, c);
	memcpy(r->x, x3, sizeof(fe));
	memcpy(r->y, y3, sizeof(fe));
	memcpy(r->z, z3, sizeof(fe));
}

/* RCB16 algorithm 6 (a = -3): r = 2a. r may alias a. */
static void pt_double(struct pt *r, const struct pt *a, const struct curve *c)
{
	fe t0, t1, t2, t3, x3, y3, z3;

	fmul(t0, a->x, a->x, c);
	fmul(t1, a->y, a->y, c);
	fmul(t2, a->z, a->z, c);
	fmul(t3, a->x, a->y, c);
	fadd(t3, t3, t3, c);
	fmul(z3, a->x, a->z, c);
	fadd(z3, z3, z3, c);
	fmul(y3, c->b, t2, c);
	fsub(y3, y3, z3, c);
	fadd(x3, y3, y3, c);
	fadd(y3, x3, y3, c);
	fsub(x3, t1, y3, c);
	fadd(y3, t1, y3, c);
	fmul(y3, x3, y3, c);
	fmul(x3, x3, t3, c);
	fadd(t3, t2, t2, c);
	fadd(t2, t2, t3, c);
	fmul(z3, c->b, z3, c);
	fsub(z3, z3, t2, c);
	fsub(z3, z3, t0, c);
	fadd(t3, z3, z3, c);
	fadd(z3, z3, t3, c);
	fadd(t3, t0, t0, c);
	fadd(t0, t3, t0, c);
	fsub(t0, t0, t2, c);
	fmul(t0, t0, z3, c);
	fadd(y3, y3, t0, c);
	fmul(t0, a->y, a->z, c);
	fadd(t0, t0, t0, c);
	fmul(z3, t0, z3, c);
	fsub(x3, x3, z3, c);
	fmul(z3, t0, t1, c);
	fadd(z3, z3, z3, c);
	fadd(z3, z3, z3, c);
	memcpy(r->x, x3, sizeof(fe));
	memcpy(r->y, y3, sizeof(fe));
	memcpy(r->z, z3, sizeof(fe));
}

/*
 * P = (x, y, 1) from 48 + 48 big-endian bytes: HS_ERR_BAD_POINT unless
 * x, y < p and y^2 = x^3 - 3x + b.
 */
static int pt_from_affine(struct pt *P, const uint8_t xy[96], const struct curve *c)
{
	fe x, y, lhs, rhs, t;

	(void)hs_bn_from_bytes(x, L, xy, 48);
	(void)hs_bn_from_bytes(y, L, xy + 48, 48);
	if (!hs_bn_lt_mask(x, c->p.m, L) || !hs_bn_lt_mask(y, c->p.m, L))
		return HS_ERR_BAD_POINT;
	hs_bn_mont_to(P->x, x, &c->p);
	hs_bn_mont_to(P->y, y, &c->p);
	memcpy(P->z, c->p.one, sizeof(fe));
	fmul(lhs, P->y, P->y, c);
	fmul(rhs, P->x, P->x, c);
	fmul(rhs, rhs, P->x, c);
	fadd(t, P->x, P->x, c);
	fadd(t, t, P->x, c);
	fsub(rhs, rhs, t, c);
	fadd(rhs, rhs, c->b, c);
	return hs_bn_eq_mask(lhs, rhs, L) ? 0 : HS_ERR_BAD_POINT;
}

static int load_public(struct pt *Q, const uint8_t *pub, size_t pub_len, const struct curve *c)
{
	if (pub == NULL || pub_len != HS_P384_PUB_LEN || pub[0] != 0x04)
		return HS_ERR_BAD_POINT;
	return pt_from_affine(Q, pub + 1, c);
}

int hs_p384_check_public(const uint8_t *pub, size_t pub_len)
{
	struct curve c;
	struct pt q;

	curve_init(&c);
	return load_public(&q, pub, pub_len, &c);
}

static int bit_at(const uint64_t *a, size_t i) { return (int)((a[i / 64] >> (i % 64)) & 1); }

/* R = u1 G + u2 Q, one doubling per bit and one addition per nonzero bit pair. */
static void mul2(struct pt *R, const uint64_t *u1, const uint64_t *u2, const struct pt *Q,
		 const struct curve *c)
{
	struct pt tab[4];

	(void)pt_from_affine(&tab[1], g_bytes, c); /* G is on the curve */
	tab[2] = *Q;
	pt_add(&tab[3], &tab[1], &tab[2], c);
	memset(R, 0, sizeof(*R));
	memcpy(R->y, c->p.one, sizeof(fe)); /* infinity (0:1:0) */
	for (size_t i = 384; i > 0; i--) {
		int idx = bit_at(u1, i - 1) | bit_at(u2, i - 1) << 1;

		pt_double(R, R, c);
		if (idx != 0)
			pt_add(R, R, &tab[idx], c);
	}
}

/* x(R) mod n == r, given R = (X:Y:Z) with Z != 0 (see the notes) */
static int x_matches(const struct pt *R, const uint64_t *r, const struct curve *c)
{
	fe rm, t, rn;

	hs_bn_mont_to(rm, r, &c->p); /* r < n < p */
	fmul(t, rm, R->z, c);
	if (hs_bn_eq_mask(t, R->x, L))
		return 1;
	if (hs_bn_add(rn, r, c->n.m, L) != 0 || !hs_bn_lt_mask(rn, c->p.m, L))
		return 0; /* r + n >= p: no other candidate */
	hs_bn_mont_to(rm, rn, &c->p);
	fmul(t, rm, R->z, c);
	return hs_bn_eq_mask(t, R->x, L) != 0;
}

/* 0 < a < n */
static int scalar_ok(const uint64_t *a, const struct curve *c)
{
	return !hs_bn_is_zero_mask(a, L) && hs_bn_lt_mask(a, c->n.m, L);
}

int hs_ecdsa_p384_verify(const uint8_t *pub, size_t pub_len, const uint8_t *hash,
			 size_t hash_len, const uint8_t sig[96])
{
	struct curve c;
	struct pt Q, R;
	fe r, s, e, w, u1, u2;
	int err;

	curve_init(&c);
	if ((err = load_public(&Q, pub, pub_len, &c)) != 0)
		return err;
	(void)hs_bn_from_bytes(r, L, sig, 48);
	(void)hs_bn_from_bytes(s, L, sig + 48, 48);
	if (!scalar_ok(r, &c) || !scalar_ok(s, &c))
		return HS_ERR_BAD_SIG;
	/* e: the leftmost 384 bits of the digest; e < 2^384 < 2n, so one subtraction reduces it */
	(void)hs_bn_from_bytes(e, L, hash, hash_len < 48 ? hash_len : 48);
	if (!hs_bn_lt_mask(e, c.n.m, L))
		(void)hs_bn_sub(e, e, c.n.m, L);
	(void)hs_bn_mod_inv(w, s, &c.n); /* n is prime and 0 < s < n: always invertible */
	hs_bn_mont_to(e, e, &c.n);
	hs_bn_mont_mul(u1, e, w, &c.n); /* e R w R^-1 */
	hs_bn_mont_to(r, r, &c.n);
	hs_bn_mont_mul(u2, r, w, &c.n);
	hs_bn_mont_from(r, r, &c.n);
	mul2(&R, u1, u2, &Q, &c);
	if (hs_bn_is_zero_mask(R.z, L))
		return HS_ERR_BAD_SIG; /* infinity */
	return x_matches(&R, r, &c) ? 0 : HS_ERR_BAD_SIG;
}

/* ---- the signature table ---- */

static int sign_unsupported(uint8_t *sig, size_t *sig_len, const uint8_t *priv,
			    const uint8_t *pub, const uint8_t *msg, size_t msg_len)
{
	(void)sig;
	(void)sig_len;
	(void)priv;
	(void)pub;
	(void)msg;
	(void)msg_len;
	return HS_ERR_UNSUPPORTED;
}

static int verify_sha384(const uint8_t *pub, size_t pub_len, const uint8_t *msg, size_t msg_len,
			 const uint8_t *sig, size_t sig_len)
{
	uint8_t h[HS_SHA384_LEN], raw[HS_P384_SIG_LEN];
	int err = hs_ecdsa_sig_from_der_n(raw, 48, sig, sig_len);

	if (err)
		return err;
	hs_sha384(msg, msg_len, h);
	return hs_ecdsa_p384_verify(pub, pub_len, h, sizeof(h), raw);
}

const struct hs_sig hs_sig_ecdsa_p384_sha384 = {
	.name = "ecdsa_secp384r1_sha384",
	.priv_len = 48,
	.pub_len = HS_P384_PUB_LEN,
	.max_sig_len = HS_P384_SIG_DER_MAX,
	.sign = sign_unsupported,
	.verify = verify_sha384,
};
