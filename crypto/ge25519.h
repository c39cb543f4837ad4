/*
 * Points of the twisted Edwards curve edwards25519 (RFC 8032 5.1):
 * -x^2 + y^2 = 1 + d x^2 y^2 over GF(2^255 - 19), d = -121665/121666.
 *
 * Coordinates (Hisil, Wong, Carter, Dawson, "Twisted Edwards curves
 * revisited", 2008):
 *   ge_ext    extended (X : Y : Z : T), x = X/Z, y = Y/Z, x y = T/Z
 *   ge_proj   projective (X : Y : Z), enough for a doubling's input
 *   ge_done   "completed" result of an addition or doubling,
 *                x = E/G, y = H/F; 3 or 4 products turn it into the above
 *   ge_cached (Y+X, Y-X, Z, 2dT): an addend ready for ge_ext + ge_cached
 *   ge_niels  (y+x, y-x, 2dxy) with Z = 1: an affine addend from a table
 */
#ifndef HS_CRYPTO_GE25519_H
#define HS_CRYPTO_GE25519_H

#include <stdint.h>

#include "base/err.h"
#include "crypto/fe25519.h"

struct ge_ext {
	struct fe25519 x, y, z, t;
};

struct ge_proj {
	struct fe25519 x, y, z;
};

struct ge_done {
	struct fe25519 e, f, g, h;
};

struct ge_cached {
	struct fe25519 ypx, ymx, z, t2d;
};

struct ge_niels {
	struct fe25519 ypx, ymx, xy2d;
};

/*
 * Decode a 32-byte point encoding (RFC 8032 5.1.3), strictly: y >= p,
 * a y with no x on the curve, and x = 0 with the sign bit set are all
 * HS_ERR_BAD_ENCODING. Variable time: for public inputs only.
 */
HS_MUST_CHECK int ge_frombytes(struct ge_ext *p, const uint8_t s[32]);
/* Encode (RFC 8032 5.1.2): canonical y, sign of x in bit 255. Constant time. */
void ge_tobytes(uint8_t s[32], const struct ge_ext *p);
/* The same from projective coordinates. Constant time. */
void ge_proj_tobytes(uint8_t s[32], const struct ge_proj *p);

/*
 * r = a B for the base point B, a a 32-byte little-endian scalar below 2^255
 * (any clamped or reduced scalar). Constant time: signed radix-16 digits,
 * each selecting its table entry by a masked scan of all 8 candidates.
 */
void ge_scalarmult_base(struct ge_ext *r, const uint8_t a[32]);

/*
 * r = a A + b B, variable time (sliding windows): for verification only,
 * where a, b and A are all public. a and b are 32-byte little-endian
 * scalars below 2^253 (reduced mod L, or S < L).
 */
void ge_double_scalarmult_vartime(struct ge_proj *r, const uint8_t a[32],
				     const struct ge_ext *A, const uint8_t b[32]);

#if defined(__x86_64__)
#define HS_HAVE_GE25519_IFMA 1
/*
 * Internal to crypto/: the AVX-512 IFMA fixed-base multiplication
 * (crypto/asm/ge25519_ifma.c), which ge_scalarmult_base() calls when
 * cpu_has(HS_X25519_IFMA_CPU), and the portable pieces it reuses:
 * the signed radix-16 digits and the comb table.
 */
void ge_scalarmult_base_ifma(struct ge_ext *r, const uint8_t a[32]);
/*
 * The IFMA double-scalar multiplication of verification (variable time,
 * public inputs only): ge_double_scalarmult_vartime computes the NAF
 * digits an (width 5, for A) and bn (width 7, for B) and hands them over
 * with its table base_odd[k] = (2k + 1) B.
 */
void ge_double_scalarmult_vartime_ifma(struct ge_proj *r, const int8_t an[256],
				       const struct ge_ext *A, const int8_t bn[256],
				       const struct ge_niels base_odd[32]);
#endif
/* 2d, d = -121665/121666 the curve constant (51-bit limbs) */
extern const struct fe25519 ge_d2;
/* ge_base_rows[j][k] = (k + 1) 256^j B (crypto/ge25519_table.h), j < 32 */
extern const struct ge_niels (*const ge_base_rows)[8];
void ge_base_digits(int8_t e[64], const uint8_t a[32]);

/* p = -p */
void ge_neg(struct ge_ext *p);

/*
 * u = (1 + y) / (1 - y), the Montgomery u-coordinate of p (RFC 7748 4.1),
 * encoded as X25519 does. Constant time. p must not be the identity.
 */
void ge_to_montgomery_u(uint8_t u[32], const struct ge_ext *p);
/* the same as a fraction, u = num / den (den != 0 when p is not the identity) */
void ge_to_montgomery_frac(struct fe25519 *num, struct fe25519 *den, const struct ge_ext *p);

#endif
