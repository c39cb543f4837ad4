/*
 * Constant-time inversion modulo an odd modulus below 2^256 by
 * Bernstein-Yang "safegcd" divsteps (internal to crypto/): the one home of
 * the 256-bit inversion used by X25519/Ed25519 (fe_invert), P-256's field
 * (p256_fe_inv) and P-256's group order (p256_sc_inv_mont). Arbitrary
 * sizes (RSA, P-384) use bn_mod_inv in crypto/bignum.c; the two share
 * the divstep batch and the limb updates (crypto/safegcd.h).
 *
 * A modulus is a small constant descriptor: its value in five signed
 * 62-bit limbs (any limbs summing to m; zero limbs make the updates
 * cheaper) and 1/m mod 2^62. The three moduli hs uses are defined here.
 */
#ifndef HS_CRYPTO_SAFEGCD256_H
#define HS_CRYPTO_SAFEGCD256_H

#include <stdint.h>

struct sg256_mod {
	int64_t m[5];   /* m = sum m[i] 2^(62 i), odd, 0 < m < 2^256 */
	uint64_t minv;  /* 1/m mod 2^62 */
};

/* 2^255 - 19 */
extern const struct sg256_mod sg256_p25519;
/* P-256's field prime p = 2^256 - 2^224 + 2^192 + 2^96 - 1 */
extern const struct sg256_mod sg256_p256_p;
/* P-256's group order n */
extern const struct sg256_mod sg256_p256_n;

/*
 * r = 1/a mod m for 0 <= a < m (four 64-bit limbs, least significant
 * first) and m prime (the three above are), r in [0, m); a = 0 gives 0.
 * Constant time in a: fixed counts, masks and CMOV, no secret-dependent
 * index; the working set is wiped. r may alias a.
 */
void sg256_inv(uint64_t r[4], const uint64_t a[4], const struct sg256_mod *m);

#endif
