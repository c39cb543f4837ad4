/*
 * Fixed-capacity big integers for RSA and P-384: little-endian arrays of
 * 64-bit limbs, at most HS_BN_LIMBS (4096 bits), in caller memory (no
 * allocation). Every function takes the limb count n explicitly; n is
 * public (it comes from a key's size), values may be secret.
 *
 * Unless a name ends in _vartime, a function runs in time independent of
 * the values of its arguments (only n is observable): no branch and no
 * memory index depends on them. _vartime functions are for public data
 * only (signature verification, public moduli and exponents).
 *
 * Montgomery arithmetic: for an odd modulus m of n limbs, R = 2^(64n);
 * a value x is held as x R mod m ("Montgomery form") between conversions.
 */
#ifndef HS_CRYPTO_BIGNUM_H
#define HS_CRYPTO_BIGNUM_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define HS_BN_MAX_BITS 4096
#define HS_BN_LIMBS (HS_BN_MAX_BITS / 64)

/* An odd modulus and its Montgomery constants. */
struct bn_mont {
	size_t n;                  /* limbs in use, 1..HS_BN_LIMBS */
	int adx;                   /* 1: the MULX/ADX row (chosen at init from cpu_has) */
	int ifma;                  /* 1: AVX-512 IFMA exponentiations (n = 16 or 32; chosen at init) */
	uint64_t m0inv;            /* -m^-1 mod 2^64 */
	uint64_t m[HS_BN_LIMBS];   /* the modulus (odd); limbs >= n are zero */
	uint64_t rr[HS_BN_LIMBS];  /* R^2 mod m */
	uint64_t one[HS_BN_LIMBS]; /* R mod m: 1 in Montgomery form */
	uint64_t rr52[HS_BN_LIMBS]; /* with ifma: R'^2 mod m for the IFMA radix (see below) */
};

/*
 * a (n limbs) = the big-endian bytes in[0..len). HS_ERR_TOO_LONG if
 * len > 8n (the bytes are not inspected, so leading zeros count).
 */
int bn_from_bytes(uint64_t *a, size_t n, const uint8_t *in, size_t len);
/* out[0..len) = a mod 2^(8 len), big-endian, zero-padded on the left. */
void bn_to_bytes(uint8_t *out, size_t len, const uint64_t *a, size_t n);

/* r = a + b, returns the carry (0 or 1). r may alias a or b. */
uint64_t bn_add(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n);
/* r = a - b, returns the borrow (0 or 1). r may alias a or b. */
uint64_t bn_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n);
/* all-ones if a < b, else 0 */
uint64_t bn_lt_mask(const uint64_t *a, const uint64_t *b, size_t n);
/* all-ones if a == b, else 0 */
uint64_t bn_eq_mask(const uint64_t *a, const uint64_t *b, size_t n);
/* all-ones if a == 0, else 0 */
uint64_t bn_is_zero_mask(const uint64_t *a, size_t n);
/* if (mask) r = a; mask is all-ones or 0 */
void bn_cmov(uint64_t *r, const uint64_t *a, size_t n, uint64_t mask);
/* r (2n limbs) = a * b (n limbs each); r must not alias a or b. */
void bn_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n);
/* Bit length of a (0 for a = 0). Variable time. */
size_t bn_bitlen_vartime(const uint64_t *a, size_t n);

/* r = a + b mod m, r = a - b mod m, for a, b < m. */
void bn_mod_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct bn_mont *c);
void bn_mod_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct bn_mont *c);

/*
 * Montgomery context for the odd modulus m > 1 of n limbs (HS_ERR_ARG if
 * n is 0 or too large). The caller checks that m is odd and above 1
 * (otherwise the results are meaningless, though memory-safe). Constant
 * time in m.
 */
HS_MUST_CHECK int bn_mont_init(struct bn_mont *c, const uint64_t *m, size_t n);
/*
 * The same for a public modulus, faster (uses m's bit length); this one
 * checks m itself: HS_ERR_ARG if m is even or 1.
 */
int bn_mont_init_vartime(struct bn_mont *c, const uint64_t *m, size_t n);
/*
 * The same for a secret odd m > 1 (an RSA prime) that divides the public
 * modulus of big, with big's modulus below m 2^(64 n) and big->n <= 2n:
 * R mod m and R^2 mod m come from powers of 2 modulo the public modulus
 * (long division, variable time in public data only) and one Montgomery
 * reduction modulo m each, much faster than bn_mont_init. Constant time
 * in m. HS_ERR_ARG if the sizes do not fit; if m does not divide big's
 * modulus, the constants are wrong (memory-safe; RSA's check catches it).
 */
HS_MUST_CHECK int bn_mont_init_divisor(struct bn_mont *c, const uint64_t *m, size_t n,
				       const struct bn_mont *big);

/* r = a b R^-1 mod m, for a, b < m. r may alias a or b. */
void bn_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct bn_mont *c);
/* r = a a R^-1 mod m, for a < m (the same result as bn_mont_mul, faster). r may alias a. */
void bn_mont_sqr(uint64_t *r, const uint64_t *a, const struct bn_mont *c);
/* r = a R mod m (a < m); r = a R^-1 mod m. */
void bn_mont_to(uint64_t *r, const uint64_t *a, const struct bn_mont *c);
void bn_mont_from(uint64_t *r, const uint64_t *a, const struct bn_mont *c);
/*
 * r (n limbs) = t mod m, for t of 2n limbs with t < m R (for instance
 * any value below m times any n-limb value). Plain form in and out.
 */
void bn_mod_wide(uint64_t *r, const uint64_t *t, const struct bn_mont *c);

/*
 * r = a^e mod m (plain form in and out, a < m), e of e_n limbs. Fixed
 * 4-bit windows over all 64 e_n bits of e, each table entry read with a
 * masked scan: constant time in a, e and m.
 */
void bn_mod_exp(uint64_t *r, const uint64_t *a, const uint64_t *e, size_t e_n,
		   const struct bn_mont *c);
/*
 * r1 = a1^e1 mod m1 and r2 = a2^e2 mod m2 (both exponents of e_n limbs):
 * the two bn_mod_exp of RSA's CRT halves, in one pass where a backend
 * runs them side by side (AVX-512 IFMA for two 16-limb moduli with
 * 16-limb exponents), else one after the other. Same results, same
 * constant-time contract as bn_mod_exp.
 */
void bn_mod_exp_x2(uint64_t *r1, const uint64_t *a1, const uint64_t *e1, const struct bn_mont *c1,
		   uint64_t *r2, const uint64_t *a2, const uint64_t *e2, const struct bn_mont *c2,
		   size_t e_n);
/*
 * r = a^e mod m for a public odd modulus m > 1 of n limbs (HS_ERR_ARG
 * otherwise) and a < m, with its own context: with AVX-512 IFMA and n =
 * 32 it makes only what that exponentiation needs (no R, R^2). Variable
 * time (public data).
 */
int bn_mod_exp_public(uint64_t *r, const uint64_t *a, const uint64_t *e, size_t e_n,
		      const uint64_t *m, size_t n);
/* The same for a public exponent: square-and-multiply over e's bits. */
void bn_mod_exp_vartime(uint64_t *r, const uint64_t *a, const uint64_t *e, size_t e_n,
			   const struct bn_mont *c);
/*
 * r = a^-1 mod m (a < m) by Bernstein-Yang safegcd divsteps, a count fixed
 * by n: constant time (RSA, P-384; 256-bit moduli use safegcd256.h). Returns
 * all-ones if gcd(a, m) = 1, else 0 (then r is junk; a = 0 gives r = 0).
 */
uint64_t bn_mod_inv(uint64_t *r, const uint64_t *a, const struct bn_mont *c);
/*
 * Two bn_mod_inv (r1 = a1^-1 mod m1, r2 = a2^-1 mod m2), in that order
 * (r1 must not alias a2); the mask is all-ones only if both inverses exist.
 */
uint64_t bn_mod_inv_x2(uint64_t *r1, const uint64_t *a1, const struct bn_mont *c1, uint64_t *r2,
		       const uint64_t *a2, const struct bn_mont *c2);

/*
 * Backends. Every Montgomery product is built from one "row":
 * t[0..len] += x[0..len) y + cin 2^(64 len), returning the carry out of
 * t[len] (0 or 1 where bignum.c uses it). The contexts made by
 * bn_mont_init* use the MULX/ADX row when cpu_has(HS_CPU_BMI2 |
 * HS_CPU_ADX) (and not forced portable) at that moment; c->adx may be
 * cleared (for tests) to force the portable row. Both rows give
 * bit-identical results.
 */
uint64_t bn_row_portable(uint64_t *t, const uint64_t *x, uint64_t y, size_t len,
			    uint64_t cin);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HS_HAVE_BN_ADX 1
/* crypto/asm/bignum_adx.c */
uint64_t bn_row_adx(uint64_t *t, const uint64_t *x, uint64_t y, size_t len, uint64_t cin);
#endif
/*
 * AVX-512 IFMA exponentiations (crypto/asm/bignum_ifma.c), radix 2^52 with
 * R' = 2^(52 L), L = 21 limbs for n = 16 and 40 for n = 32; c->rr52 is
 * R'^2 mod m in 64-bit limbs. Contexts of 16 or 32 limbs made by
 * bn_mont_init* set c->ifma and c->rr52 when cpu_has(HS_BN_IFMA_CPU) (and
 * not forced portable); tests may clear c->ifma. Bit-identical results to
 * the portable code.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HS_HAVE_BN_IFMA 1
#define HS_BN_IFMA_CPU (HS_CPU_AVX512F | HS_CPU_AVX512IFMA)
/* bn_mod_exp_x2 for n = 16 and e_n = 16 (c1->rr52, c2->rr52 set) */
void bn_mod_exp_x2_ifma(uint64_t *r1, const uint64_t *a1, const uint64_t *e1,
			const struct bn_mont *c1, uint64_t *r2, const uint64_t *a2,
			const uint64_t *e2, const struct bn_mont *c2, size_t e_n);
/* bn_mod_exp_vartime for n = 16 or 32, e of bits >= 1 bits (its top bit set) */
void bn_mod_exp_vartime_ifma(uint64_t *r, const uint64_t *a, const uint64_t *e, size_t bits,
			     const struct bn_mont *c);
#endif
/* "ifma+mulx/adx", "mulx/adx" or "portable": what a context made now would use. */
const char *bn_backend_name(void);

#endif
