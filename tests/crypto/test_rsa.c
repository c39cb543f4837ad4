/*
 * Proves the big-number layer and RSA on fixed data:
 * - bignum: byte conversions round-trip; Montgomery multiplication,
 *   reduction, constant-time and variable-time exponentiation and the
 *   constant-time inverse agree with each other and with plain products
 *   (a b mod m computed independently by shift-and-subtract), and both
 *   Montgomery set-ups give the same constants; squaring equals
 *   multiplying a value by itself;
 * - the variable-time Montgomery set-up (long division) gives the same
 *   R mod m and R^2 mod m as the constant-time one (doublings) on 1,500
 *   moduli of every shape: random, with zero top limbs, 2^b - d and
 *   2^(b-1) + d for small d (extreme quotient estimates), 1 to 64 limbs;
 * - inversion (safegcd): on 1,500 random odd moduli of 1 to 64 limbs
 *   (and 2^(64n) - 1) and values below them (and 1, m - 1), the result
 *   times the value is 1 mod m exactly when a plain variable-time
 *   binary GCD says they are coprime, and the mask says which; the
 *   two-way inversion (bn_mod_inv_x2) gives the same results in either slot,
 *   and the C divstep batch (forced portable) the same as the CMOV one;
 * - backends: the MULX/ADX row and the portable row give bit-identical
 *   results (limbs and carry) on random and all-ones inputs of every
 *   length 0..64, and so do whole Montgomery products, squarings, wide
 *   reductions and exponentiations under each backend (skipped, visibly,
 *   on a CPU without BMI2 and ADX);
 * - AVX-512 IFMA: the public-exponent exponentiation (16 and 32 limbs)
 *   (also through bn_mod_exp_public, which makes its own context)
 *   and the two-way secret one (two 16-limb moduli, RSA-2048's CRT
 *   halves) equal the portable ones bit for bit on random and edge
 *   moduli (2^(64n) - 1, 2^(64n-1) + 1, short), bases (0, 1, m - 1) and
 *   exponents (0, 1, all ones, one bit); p's Montgomery constants made
 *   from N = p q (bn_mont_init_divisor) equal bn_mont_init's (skipped,
 *   visibly, without AVX-512 IFMA);
 * - known answers: a PKCS #1 v1.5 / SHA-256 and a PSS / SHA-384 signature
 *   made by OpenSSL with the fixed 2048-bit test key verify, and fail after
 *   any change to message, signature, hash, salt length or padding type;
 * - PSS sign -> verify round trips (struct API and the three tables);
 * - the size rule: a 1024-bit key is refused without HS_RSA_ALLOW_SMALL
 *   and works with it;
 * - a corrupted CRT exponent makes signing fail (HS_ERR_BAD_KEY, zeroed
 *   signature) rather than output a faulty signature;
 * - strict DER: trailing bytes, non-minimal lengths and integers, negative
 *   integers, wrong versions and inconsistent keys are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/bignum.h"
#include "crypto/cpu.h"
#include "crypto/hash.h"
#include "crypto/rsa.h"
#include "rsa_test_keys.h"
#include "testutil.h"

/* Signatures by OpenSSL 3.0 over "hs rsa known answer" with rsa2048_priv_hex:
 * openssl dgst -sha256 -sign, and -sha384 with rsa_padding_mode:pss, salt 48. */
static const char kat_pkcs1_sha256_hex[] =
	"2b7ba49a4e9d551c793f01066550c87b4b4065612271d2c79b5cf20a6fdc928b1022e70d9f1f5aeb93f06b1b"
	"568f039d94469e51674c2f94f2d166f022e425f3d0fbecba154f4c8c5f4d8889b0eca011a1ab5ee88c4836d4"
	"89de0e9f9c98b6be5fc1050fa648408aadcc3cffd0bbb441218bfb094a72256b9fe726ef8e2408945f8edf6e"
	"e8699bca1c1d2c59bce1f67bf93d0b601812702a75cd23ab2df9292253dde61d201483e6bf8be81a163f1e1e"
	"9032f192d9fda53e45602fc6852b18689488576e9925d52b46909f2580425c48625e2347c54ecf956f1616bc"
	"e1fb3cc7770b68ab642de3e65f03ebfbb78dd399d3f09582972415a4f38da58dff876174";

static const char kat_pss_sha384_hex[] =
	"b6a2250e1a39a8d79c1326a90a228355505c1ed3830d1083806668269daa0cc2f588698dc72f9d71deb6db9f"
	"48eece339d6a7f4cb3b4ec7a4a4394d981c97bde22eda7ff7a2db7ccde17bd77f6bcfe80851cbba3ceee963c"
	"9875b55bc7c093d0228b83eb171e7db524dc416e5bbcb6d3fca01b8205880978d9721d82da1f056333bb1a5e"
	"9f06f71a453e5b591dff8e6670b84b6e2c431432f2aeca3c88a3bfff5e1b3652047f07af6167facc16c7d67f"
	"b4e58232fc18738aeeb85db4e7e1bdc93a4c0aef3b83d7a355ad70c0a5a7fca4b463cf0309383478647adc3d"
	"1bae8ca2aba84153739d33e140b37ab3781be503c859efa9728c48da98717943bfe02f1a";

static const char kat_msg[] = "hs rsa known answer";

static uint8_t *unhex(const char *hex, size_t *len)
{
	uint8_t *b = hex_decode(hex, len);

	assert_non_null(b);
	return b;
}

/* ---- bignum ---- */

/* r = a b mod m by shift-and-subtract over the bits of b: independent of Montgomery */
static void mulmod_ref(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
		       size_t n)
{
	uint64_t acc[HS_BN_LIMBS] = { 0 }, t[HS_BN_LIMBS];

	for (size_t i = 64 * n; i > 0; i--) {
		uint64_t c = bn_add(acc, acc, acc, n);
		if (c || !bn_lt_mask(acc, m, n))
			(void)bn_sub(acc, acc, m, n);
		if ((b[(i - 1) / 64] >> ((i - 1) % 64)) & 1) {
			c = bn_add(t, acc, a, n);
			memcpy(acc, t, n * 8);
			if (c || !bn_lt_mask(acc, m, n))
				(void)bn_sub(acc, acc, m, n);
		}
	}
	memcpy(r, acc, n * 8);
}

/* a random value below m */
static void rand_below(struct test_rng *rng, uint64_t *a, const uint64_t *m, size_t n)
{
	do {
		test_rng_bytes(rng, a, n * 8);
		a[n - 1] &= m[n - 1] | (m[n - 1] >> 1) | (m[n - 1] >> 2);
	} while (!bn_lt_mask(a, m, n));
}

static void rand_modulus(struct test_rng *rng, uint64_t *m, size_t n)
{
	test_rng_bytes(rng, m, n * 8);
	m[0] |= 1;
	if (test_rng_below(rng, 2))
		m[n - 1] |= (uint64_t)1 << 63; /* full top limb, or any shorter length */
	if (m[n - 1] == 0)
		m[n - 1] = 1;
}

static void test_bn_bytes(void **state)
{
	(void)state;
	uint8_t in[40], out[48];
	uint64_t a[6];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(bn_from_bytes(a, 5, in, 40), 0);
	assert_int_equal(a[0], 0xe1e8eff6fd040b12ULL); /* bytes 32..39, big-endian */
	bn_to_bytes(out, 48, a, 5);
	assert_memory_equal(out, (uint8_t[8]){ 0 }, 8);
	assert_memory_equal(out + 8, in, 40);
	assert_int_equal(bn_from_bytes(a, 5, in, 41), HS_ERR_TOO_LONG);
	assert_int_equal(bn_bitlen_vartime(a, 5), 40 * 8 - 7);
	for (size_t len = 0; len <= 40; len++) { /* every length: limb k holds bytes 8k..8k+7 from the end */
		uint64_t b[5] = { 0 };

		for (size_t k = 0; k < len; k++)
			b[k / 8] |= (uint64_t)in[len - 1 - k] << (8 * (k % 8));
		memset(a, 0xee, sizeof(a));
		assert_int_equal(bn_from_bytes(a, 5, in, len), 0);
		assert_memory_equal(a, b, sizeof(b));
		assert_int_equal(a[5], 0xeeeeeeeeeeeeeeeeULL); /* nothing past n limbs */
		bn_to_bytes(out, len, a, 5);
		assert_memory_equal(out, in, len);
	}
}

static void test_bn_mont(void **state)
{
	(void)state;
	struct test_rng rng;
	int inverted = 0;

	test_rng_init(&rng, 0xb16a);
	for (int it = 0; it < 60; it++) {
		size_t n = 1 + test_rng_below(&rng, it < 50 ? 8 : HS_BN_LIMBS);
		uint64_t m[HS_BN_LIMBS], a[HS_BN_LIMBS], b[HS_BN_LIMBS], r1[HS_BN_LIMBS];
		uint64_t r2[HS_BN_LIMBS], wide[2 * HS_BN_LIMBS], e[4];
		struct bn_mont c, cv;

		rand_modulus(&rng, m, n);
		if (n == 1 && m[0] == 1)
			continue;
		assert_int_equal(bn_mont_init(&c, m, n), 0);
		assert_int_equal(bn_mont_init_vartime(&cv, m, n), 0);
		assert_memory_equal(&c, &cv, sizeof(c));
		rand_below(&rng, a, m, n);
		rand_below(&rng, b, m, n);
		/* (aR)(b) R^-1 = a b */
		bn_mont_to(r1, a, &c);
		bn_mont_mul(r1, r1, b, &c);
		mulmod_ref(r2, a, b, m, n);
		assert_memory_equal(r1, r2, n * 8);
		bn_mont_sqr(r1, a, &c);
		bn_mont_mul(wide, a, a, &c);
		assert_memory_equal(r1, wide, n * 8);
		/* the wide reduction of the plain product */
		bn_mul(wide, a, b, n);
		bn_mod_wide(r1, wide, &c);
		assert_memory_equal(r1, r2, n * 8);
		/* exponentiation: both versions, against repeated multiplication */
		test_rng_bytes(&rng, e, sizeof(e));
		e[0] &= 0x3f;
		bn_mod_exp(r1, a, e, 1, &c);
		bn_mod_exp_vartime(r2, a, e, 1, &c);
		assert_memory_equal(r1, r2, n * 8);
		memset(wide, 0, sizeof(wide));
		wide[0] = 1;
		for (uint64_t k = 0; k < e[0]; k++)
			mulmod_ref(wide, wide, a, m, n);
		assert_memory_equal(r1, wide, n * 8);
		bn_mod_exp(r1, a, e, 4, &c);
		bn_mod_exp_vartime(r2, a, e, 4, &c);
		assert_memory_equal(r1, r2, n * 8);
		/* the inverse, when there is one */
		if (bn_mod_inv(r1, a, &c)) {
			mulmod_ref(r2, r1, a, m, n);
			assert_int_equal(r2[0], 1);
			for (size_t i = 1; i < n; i++)
				assert_int_equal(r2[i], 0);
			inverted++;
		}
	}
	assert_true(inverted > 20); /* random m is not prime: some a share a factor */
}

/* Random limbs, or (one time in four) all-ones limbs to force every carry. */
static void rand_limbs(struct test_rng *rng, uint64_t *a, size_t n)
{
	if (test_rng_below(rng, 4) == 0)
		memset(a, 0xff, n * 8);
	else
		test_rng_bytes(rng, a, n * 8);
}

static void test_bn_rows(void **state)
{
	(void)state;
	struct test_rng rng;

#if defined(HS_HAVE_BN_ADX)
	if (!cpu_has(HS_CPU_BMI2 | HS_CPU_ADX))
		skip();
	test_rng_init(&rng, 0x40e5);
	for (int it = 0; it < 3000; it++) {
		size_t len = it < 65 * 4 ? (size_t)it % 65 : test_rng_below(&rng, 65);
		uint64_t t1[HS_BN_LIMBS + 1], t2[HS_BN_LIMBS + 1], x[HS_BN_LIMBS], y, cin;

		rand_limbs(&rng, t1, len + 1);
		rand_limbs(&rng, x, len);
		y = test_rng_below(&rng, 4) == 0 ? ~(uint64_t)0 : test_rng_next(&rng);
		cin = test_rng_below(&rng, 2);
		memcpy(t2, t1, sizeof(t1));
		assert_int_equal(bn_row_adx(t1, x, y, len, cin),
				 bn_row_portable(t2, x, y, len, cin));
		assert_memory_equal(t1, t2, (len + 1) * 8);
	}
#else
	(void)rng;
	skip();
#endif
}

static void test_bn_backends(void **state)
{
	(void)state;
	struct test_rng rng;

#if defined(HS_HAVE_BN_ADX)
	if (!cpu_has(HS_CPU_BMI2 | HS_CPU_ADX))
		skip();
	test_rng_init(&rng, 0xad8);
	for (int it = 0; it < 200; it++) {
		size_t n = it < HS_BN_LIMBS ? (size_t)it + 1 : 1 + test_rng_below(&rng, HS_BN_LIMBS);
		uint64_t m[HS_BN_LIMBS], a[HS_BN_LIMBS], b[HS_BN_LIMBS], e[2];
		uint64_t r1[HS_BN_LIMBS], r2[HS_BN_LIMBS], wide[2 * HS_BN_LIMBS];
		struct bn_mont ca, cp;

		rand_modulus(&rng, m, n);
		if (it % 5 == 0)
			memset(m, 0xff, n * 8); /* 2^(64n) - 1: the largest modulus, most carries */
		if (n == 1 && m[0] == 1)
			continue;
		assert_int_equal(bn_mont_init(&ca, m, n), 0);
		assert_int_equal(ca.adx, 1);
		cp = ca;
		cp.adx = 0;
		assert_int_equal(bn_mont_init(&cp, m, n), 0); /* set-up under the ADX row... */
		cp.adx = 0;
		cp.ifma = 0; /* the portable reference for the IFMA exponentiations too */
		assert_memory_equal(cp.rr, ca.rr, n * 8);          /* ...gives the same constants */
		rand_below(&rng, a, m, n);
		rand_below(&rng, b, m, n);
		if (it % 7 == 0)
			(void)bn_sub(a, m, (uint64_t[HS_BN_LIMBS]){ 1 }, n); /* m - 1 */
		bn_mont_mul(r1, a, b, &ca);
		bn_mont_mul(r2, a, b, &cp);
		assert_memory_equal(r1, r2, n * 8);
		bn_mont_sqr(r1, a, &ca);
		bn_mont_sqr(r2, a, &cp);
		assert_memory_equal(r1, r2, n * 8);
		bn_mul(wide, a, b, n);
		bn_mod_wide(r1, wide, &ca);
		bn_mod_wide(r2, wide, &cp);
		assert_memory_equal(r1, r2, n * 8);
		test_rng_bytes(&rng, e, sizeof(e));
		bn_mod_exp(r1, a, e, 2, &ca);
		bn_mod_exp(r2, a, e, 2, &cp);
		assert_memory_equal(r1, r2, n * 8);
		bn_mod_exp_vartime(r2, a, e, 2, &cp);
		assert_memory_equal(r1, r2, n * 8);
	}
#else
	(void)rng;
	skip();
#endif
}

/* ---- the AVX-512 IFMA exponentiations against the portable ones ---- */

#if defined(HS_HAVE_BN_IFMA)
/* A modulus of n limbs for the IFMA tests: random shapes and the edges. */
static void ifma_modulus(struct test_rng *rng, uint64_t *m, size_t n, int it)
{
	memset(m, 0, HS_BN_LIMBS * 8);
	switch (it % 6) {
	case 0: /* 2^(64n) - 1: the largest, every limb full */
		memset(m, 0xff, n * 8);
		break;
	case 1: /* 2^(64n - 1) + 1 */
		m[0] = 1;
		m[n - 1] = (uint64_t)1 << 63;
		break;
	case 2: /* short: only some low limbs in use */
		test_rng_bytes(rng, m, (1 + test_rng_below(rng, n)) * 8);
		break;
	default:
		rand_modulus(rng, m, n);
	}
	m[0] |= 1;
	if (bn_bitlen_vartime(m, n) < 2)
		m[0] = 3;
}

/* a below m: random, 0, 1 or m - 1 */
static void ifma_base(struct test_rng *rng, uint64_t *a, const uint64_t *m, size_t n, int it)
{
	memset(a, 0, HS_BN_LIMBS * 8);
	switch (it % 7) {
	case 0:
		break;
	case 1:
		a[0] = 1;
		break;
	case 2:
		(void)bn_sub(a, m, (uint64_t[HS_BN_LIMBS]){ 1 }, n);
		break;
	default: /* over m's limbs in use (rand_below needs m's top limb nonzero) */
		rand_below(rng, a, m, (bn_bitlen_vartime(m, n) + 63) / 64);
	}
}

/* an exponent of e_n limbs: random, all ones, 0, 1 or one bit */
static void ifma_exp(struct test_rng *rng, uint64_t *e, size_t e_n, int it)
{
	memset(e, 0, HS_BN_LIMBS * 8);
	switch (it % 5) {
	case 0:
		memset(e, 0xff, e_n * 8);
		break;
	case 1:
		e[0] = it % 2; /* 0 or 1 */
		break;
	case 2:
		e[test_rng_below(rng, e_n)] = (uint64_t)1 << test_rng_below(rng, 64);
		break;
	default:
		test_rng_bytes(rng, e, e_n * 8);
	}
}
#endif

/*
 * bn_mod_exp_vartime with n = 16 and 32 (AVX-512 IFMA) and bn_mod_exp_x2
 * for two 16-limb moduli (the RSA-2048 CRT halves, side by side) give the
 * portable results bit for bit, on random and edge moduli, bases and
 * exponents; bn_mont_init_divisor gives bn_mont_init's constants.
 */
static void test_bn_ifma(void **state)
{
	(void)state;
	struct test_rng rng;

#if defined(HS_HAVE_BN_IFMA)
	if (!cpu_has(HS_BN_IFMA_CPU))
		skip();
	test_rng_init(&rng, 0x1f3a);
	for (int it = 0; it < 120; it++) {
		size_t n = it % 2 ? 16 : 32, e_n = it % 3 == 0 ? n : 1 + test_rng_below(&rng, 2);
		uint64_t m[HS_BN_LIMBS], a[HS_BN_LIMBS], e[HS_BN_LIMBS];
		uint64_t r1[HS_BN_LIMBS], r2[HS_BN_LIMBS];
		struct bn_mont ci, cp;

		ifma_modulus(&rng, m, n, it / 2);
		ifma_base(&rng, a, m, n, it / 3);
		ifma_exp(&rng, e, e_n, it);
		assert_int_equal(bn_mont_init_vartime(&ci, m, n), 0);
		assert_int_equal(ci.ifma, 1);
		assert_int_equal(bn_mont_init(&cp, m, n), 0); /* R'^2 by doublings: the same */
		assert_memory_equal(ci.rr52, cp.rr52, n * 8);
		cp = ci;
		cp.ifma = cp.adx = 0;
		bn_mod_exp_vartime(r1, a, e, e_n, &ci);
		bn_mod_exp_vartime(r2, a, e, e_n, &cp);
		assert_memory_equal(r1, r2, n * 8);
		memset(r1, 0, sizeof(r1));
		assert_int_equal(bn_mod_exp_public(r1, a, e, e_n, m, n), 0); /* its own context */
		assert_memory_equal(r1, r2, n * 8);
	}
	for (int it = 0; it < 40; it++) {
		uint64_t m1[HS_BN_LIMBS], m2[HS_BN_LIMBS], a1[HS_BN_LIMBS], a2[HS_BN_LIMBS];
		uint64_t e1[HS_BN_LIMBS], e2[HS_BN_LIMBS], r1[HS_BN_LIMBS], r2[HS_BN_LIMBS];
		uint64_t p1[HS_BN_LIMBS], p2[HS_BN_LIMBS];
		struct bn_mont c1, c2, q1, q2;

		ifma_modulus(&rng, m1, 16, it);
		ifma_modulus(&rng, m2, 16, it / 6);
		ifma_base(&rng, a1, m1, 16, it);
		ifma_base(&rng, a2, m2, 16, it / 7);
		ifma_exp(&rng, e1, 16, it);
		ifma_exp(&rng, e2, 16, it + 3);
		assert_int_equal(bn_mont_init(&c1, m1, 16), 0);
		assert_int_equal(bn_mont_init(&c2, m2, 16), 0);
		q1 = c1;
		q2 = c2;
		q1.ifma = q2.ifma = q1.adx = q2.adx = 0;
		bn_mod_exp_x2(r1, a1, e1, &c1, r2, a2, e2, &c2, 16);
		bn_mod_exp(p1, a1, e1, 16, &q1);
		bn_mod_exp(p2, a2, e2, 16, &q2);
		assert_memory_equal(r1, p1, 16 * 8);
		assert_memory_equal(r2, p2, 16 * 8);
		bn_mod_exp_x2(r1, a1, e1, &q1, r2, a2, e2, &q2, 16); /* the fallback: same */
		assert_memory_equal(r1, p1, 16 * 8);
		assert_memory_equal(r2, p2, 16 * 8);
	}
	for (int it = 0; it < 60; it++) {
		/* p, q odd of 16 limbs (q maybe shorter), N = p q: p's constants from N's */
		uint64_t p[HS_BN_LIMBS] = { 0 }, q[HS_BN_LIMBS] = { 0 }, nn[HS_BN_LIMBS];
		struct bn_mont cn, cd, cc;

		ifma_modulus(&rng, p, 16, it);
		ifma_modulus(&rng, q, 16, it / 6 + 2);
		bn_mul(nn, p, q, 16);
		assert_int_equal(bn_mont_init_vartime(&cn, nn, 32), 0);
		assert_int_equal(bn_mont_init_divisor(&cd, p, 16, &cn), 0);
		assert_int_equal(bn_mont_init(&cc, p, 16), 0);
		assert_memory_equal(cd.one, cc.one, 16 * 8);
		assert_memory_equal(cd.rr, cc.rr, 16 * 8);
		assert_memory_equal(cd.rr52, cc.rr52, 16 * 8);
		assert_int_equal(cd.m0inv, cc.m0inv);
	}
#else
	(void)rng;
	skip();
#endif
}

static void test_bn_init_vartime(void **state)
{
	(void)state;
	struct test_rng rng;

	test_rng_init(&rng, 0x5e7);
	for (int it = 0; it < 1500; it++) {
		size_t n = 1 + test_rng_below(&rng, it < 1000 ? 8 : HS_BN_LIMBS);
		size_t used = 1 + test_rng_below(&rng, n), b;
		uint64_t m[HS_BN_LIMBS] = { 0 }, d = test_rng_below(&rng, 1000);
		struct bn_mont c, cv;

		switch (it % 4) {
		case 0: /* random, maybe with zero top limbs */
			test_rng_bytes(&rng, m, used * 8);
			break;
		case 1: /* 2^b - 1 - 2d, b = 64 used or less */
			memset(m, 0xff, used * 8);
			m[used - 1] >>= test_rng_below(&rng, 64);
			m[0] -= 2 * d;
			break;
		case 2: /* 2^(b-1) + 2d + 1 */
			b = 64 * (used - 1) + 1 + test_rng_below(&rng, 64);
			m[(b - 1) / 64] = (uint64_t)1 << ((b - 1) % 64);
			m[0] += 2 * d;
			break;
		default: /* a top limb just above a power of two, the rest random */
			test_rng_bytes(&rng, m, used * 8);
			m[used - 1] = ((uint64_t)1 << test_rng_below(&rng, 64)) + (d & 3);
		}
		m[0] |= 1;
		if (bn_bitlen_vartime(m, n) < 2)
			continue;
		assert_int_equal(bn_mont_init(&c, m, n), 0);
		assert_int_equal(bn_mont_init_vartime(&cv, m, n), 0);
		assert_memory_equal(c.one, cv.one, n * 8);
		assert_memory_equal(c.rr, cv.rr, n * 8);
	}
}

/* 1 if gcd(a, m) = 1, by a plain variable-time binary GCD (m odd) */
static int coprime_ref(const uint64_t *a_in, const uint64_t *m, size_t n)
{
	uint64_t a[HS_BN_LIMBS], b[HS_BN_LIMBS], one[HS_BN_LIMBS] = { 1 };

	memcpy(a, a_in, n * 8);
	memcpy(b, m, n * 8);
	while (!bn_is_zero_mask(a, n)) {
		while ((a[0] & 1) == 0) {
			for (size_t i = 0; i + 1 < n; i++)
				a[i] = (a[i] >> 1) | (a[i + 1] << 63);
			a[n - 1] >>= 1;
		}
		if (bn_lt_mask(a, b, n)) { /* keep a >= b */
			uint64_t t[HS_BN_LIMBS];
			memcpy(t, a, n * 8);
			memcpy(a, b, n * 8);
			memcpy(b, t, n * 8);
		}
		(void)bn_sub(a, a, b, n);
	}
	return bn_eq_mask(b, one, n) != 0;
}

static void test_bn_inv_random(void **state)
{
	(void)state;
	struct test_rng rng;
	int coprime = 0, not_coprime = 0;

	test_rng_init(&rng, 0x1a7);
	for (int it = 0; it < 1500; it++) {
		size_t n = 1 + test_rng_below(&rng, it < 1200 ? 6 : HS_BN_LIMBS);
		uint64_t m[HS_BN_LIMBS], a[HS_BN_LIMBS], r[HS_BN_LIMBS], p[HS_BN_LIMBS], ok;
		struct bn_mont c;
		int want;

		rand_modulus(&rng, m, n);
		if (it % 17 == 0)
			memset(m, 0xff, n * 8);
		if (n == 1 && m[0] == 1)
			continue;
		assert_int_equal(bn_mont_init(&c, m, n), 0);
		rand_below(&rng, a, m, n);
		if (it % 11 == 0) {
			memset(a, 0, n * 8);
			a[0] = 1;
		} else if (it % 13 == 0) {
			(void)bn_sub(a, m, (uint64_t[HS_BN_LIMBS]){ 1 }, n);
		} else if (n == 1 && it % 2 == 0) {
			a[0] &= 0xff; /* small values: common factors with a 64-bit m happen */
		}
		want = coprime_ref(a, m, n);
		ok = bn_mod_inv(r, a, &c);
		assert_int_equal(ok, want ? ~(uint64_t)0 : 0);
		if (it % 5 == 0) { /* the C divstep batch (forced portable) against the CMOV one */
			uint64_t rc[HS_BN_LIMBS];

			cpu_force_portable(1);
			assert_int_equal(bn_mod_inv(rc, a, &c), ok);
			cpu_force_portable(0);
			assert_memory_equal(rc, r, n * 8);
		}
		if (it % 3 == 0) { /* the two-way inversion: the same results, masks ANDed */
			uint64_t r1[HS_BN_LIMBS], r2[HS_BN_LIMBS], r3[HS_BN_LIMBS], one[HS_BN_LIMBS] = { 1 };
			uint64_t ok2;

			ok2 = bn_mod_inv_x2(r1, a, &c, r2, one, &c);
			assert_int_equal(ok2, ok);
			assert_memory_equal(r1, r, n * 8);
			assert_memory_equal(r2, one, n * 8);
			ok2 = bn_mod_inv_x2(r3, one, &c, r2, a, &c);
			assert_int_equal(ok2, ok);
			assert_memory_equal(r2, r, n * 8);
		}
		if (!want) {
			not_coprime++;
			continue;
		}
		coprime++;
		assert_true(bn_lt_mask(r, m, n) != 0);
		mulmod_ref(p, r, a, m, n);
		assert_int_equal(p[0], 1);
		for (size_t i = 1; i < n; i++)
			assert_int_equal(p[i], 0);
	}
	assert_true(coprime > 1000);
	assert_true(not_coprime > 20);
}

static void test_bn_inv_edges(void **state)
{
	(void)state;
	uint64_t m[2] = { 15, 0 }, a[2] = { 5, 0 }, r[2];
	struct bn_mont c;

	assert_int_equal(bn_mont_init(&c, m, 1), 0);
	assert_int_equal(bn_mod_inv(r, a, &c), 0); /* gcd(5, 15) = 5 */
	a[0] = 0;
	assert_int_equal(bn_mod_inv(r, a, &c), 0);
	a[0] = 7;
	assert_int_not_equal(bn_mod_inv(r, a, &c), 0);
	assert_int_equal(r[0], 13); /* 7 * 13 = 91 = 6 * 15 + 1 */
	assert_int_equal(bn_mont_init_vartime(&c, (uint64_t[1]){ 14 }, 1), HS_ERR_ARG);
	assert_int_equal(bn_mont_init(&c, m, 0), HS_ERR_ARG);
}

/* ---- RSA ---- */

static void load_2048(struct rsa_private *k, uint8_t **pub_der, size_t *pub_len)
{
	size_t len;
	uint8_t *der = unhex(rsa2048_priv_hex, &len);

	assert_int_equal(rsa_private_from_der(k, der, len), 0);
	free(der);
	if (pub_der)
		*pub_der = unhex(rsa2048_pub_hex, pub_len);
}

static void test_kat_verify(void **state)
{
	(void)state;
	struct rsa_private k;
	struct rsa_public pub;
	uint8_t *pub_der, *sig1, *sig2, d256[32], d384[48];
	size_t pub_len, l1, l2;

	load_2048(&k, &pub_der, &pub_len);
	assert_int_equal(rsa_public_from_der(&pub, pub_der, pub_len), 0);
	assert_memory_equal(&pub, &k.pub, sizeof(pub));
	assert_int_equal(pub.bits, 2048);
	sig1 = unhex(kat_pkcs1_sha256_hex, &l1);
	sig2 = unhex(kat_pss_sha384_hex, &l2);
	hash_digest(hash_sha256(), kat_msg, strlen(kat_msg), d256);
	hash_digest(hash_sha384(), kat_msg, strlen(kat_msg), d384);

	assert_int_equal(rsa_pkcs1_verify(&pub, hash_sha256(), d256, sig1, l1, 0), 0);
	assert_int_equal(rsa_pss_verify(&pub, hash_sha384(), 48, d384, sig2, l2, 0), 0);
	assert_int_equal(sig_rsa_pss_rsae_sha384.verify(pub_der, pub_len, (const uint8_t *)kat_msg,
							   strlen(kat_msg), sig2, l2), 0);
	/* wrong padding type, hash, salt length, length, message, signature */
	assert_int_equal(rsa_pss_verify(&pub, hash_sha256(), 32, d256, sig1, l1, 0),
			 HS_ERR_BAD_SIG);
	assert_int_equal(rsa_pkcs1_verify(&pub, hash_sha384(), d384, sig2, l2, 0),
			 HS_ERR_BAD_SIG);
	assert_int_equal(rsa_pkcs1_verify(&pub, hash_sha384(), d384, sig1, l1, 0),
			 HS_ERR_BAD_SIG);
	assert_int_equal(rsa_pss_verify(&pub, hash_sha384(), 47, d384, sig2, l2, 0),
			 HS_ERR_BAD_SIG);
	assert_int_equal(rsa_pss_verify(&pub, hash_sha384(), 48, d384, sig2, l2 - 1, 0),
			 HS_ERR_BAD_SIG);
	assert_int_equal(sig_rsa_pss_rsae_sha384.verify(pub_der, pub_len, (const uint8_t *)kat_msg,
							   strlen(kat_msg) - 1, sig2, l2),
			 HS_ERR_BAD_SIG);
	assert_int_equal(sig_rsa_pss_rsae_sha256.verify(pub_der, pub_len, (const uint8_t *)kat_msg,
							   strlen(kat_msg), sig2, l2),
			 HS_ERR_BAD_SIG);
	sig1[100] ^= 4;
	assert_int_equal(rsa_pkcs1_verify(&pub, hash_sha256(), d256, sig1, l1, 0),
			 HS_ERR_BAD_SIG);
	/* a signature >= n */
	memset(sig1, 0xff, l1);
	assert_int_equal(rsa_pkcs1_verify(&pub, hash_sha256(), d256, sig1, l1, 0),
			 HS_ERR_BAD_SIG);
	rsa_private_wipe(&k);
	free(pub_der);
	free(sig1);
	free(sig2);
}

static void test_sign_roundtrip(void **state)
{
	(void)state;
	const struct sig *tabs[] = { &sig_rsa_pss_rsae_sha256, &sig_rsa_pss_rsae_sha384,
					&sig_rsa_pss_rsae_sha512 };
	const struct hash *hs[] = { hash_sha256(), hash_sha384(), hash_sha512() };
	struct rsa_private k;
	uint8_t *pub_der, sig[HS_RSA_MAX_LEN], sig2[HS_RSA_MAX_LEN], d[64];
	size_t pub_len, sig_len;

	load_2048(&k, &pub_der, &pub_len);
	for (int i = 0; i < 3; i++) {
		const struct hash *h = hs[i];

		hash_digest(h, "abc", 3, d);
		sig_len = sizeof(sig);
		assert_int_equal(rsa_pss_sign(&k, h, d, sig, &sig_len, 0), 0);
		assert_int_equal(sig_len, 256);
		assert_int_equal(rsa_pss_verify(&k.pub, h, h->digest_len, d, sig, sig_len, 0), 0);
		assert_int_equal(tabs[i]->verify(pub_der, pub_len, (const uint8_t *)"abc", 3, sig,
						 sig_len), 0);
		/* randomized: a second signature differs and verifies too */
		sig_len = sizeof(sig2);
		assert_int_equal(tabs[i]->sign(sig2, &sig_len, &k, NULL,
					       (const uint8_t *)"abc", 3), 0);
		assert_memory_not_equal(sig, sig2, 256);
		assert_int_equal(tabs[i]->verify(pub_der, pub_len, (const uint8_t *)"abc", 3, sig2,
						 sig_len), 0);
		assert_int_equal(tabs[i]->verify(pub_der, pub_len, (const uint8_t *)"abd", 3, sig2,
						 sig_len), HS_ERR_BAD_SIG);
		assert_true(tabs[i]->max_sig_len >= sig_len);
	}
	sig_len = 255;
	assert_int_equal(rsa_pss_sign(&k, hs[0], d, sig, &sig_len, 0), HS_ERR_NO_SPACE);
	/* a key without the parser's contexts (filled some other way) is refused, not used */
	memset(&k.cq, 0, sizeof(k.cq));
	sig_len = sizeof(sig);
	assert_int_equal(rsa_pss_sign(&k, hs[0], d, sig, &sig_len, 0), HS_ERR_BAD_KEY);
	assert_int_equal(tabs[0]->sign(sig, &sig_len, &k, NULL, (const uint8_t *)"abc", 3),
			 HS_ERR_BAD_KEY);
	rsa_private_wipe(&k);
	free(pub_der);
}

static void test_small_key(void **state)
{
	(void)state;
	struct rsa_private k;
	struct rsa_public pub;
	uint8_t *der, sig[HS_RSA_MAX_LEN], d[32] = { 1, 2, 3 };
	size_t len, sig_len = sizeof(sig);

	der = unhex(rsa1024_priv_hex, &len);
	assert_int_equal(rsa_private_from_der(&k, der, len), 0);
	free(der);
	der = unhex(rsa1024_pub_hex, &len);
	assert_int_equal(rsa_public_from_der(&pub, der, len), 0);
	free(der);
	assert_int_equal(pub.bits, 1024);
	assert_int_equal(rsa_pss_sign(&k, hash_sha256(), d, sig, &sig_len, 0), HS_ERR_BAD_KEY);
	assert_int_equal(rsa_pss_sign(&k, hash_sha256(), d, sig, &sig_len, HS_RSA_ALLOW_SMALL),
			 0);
	assert_int_equal(sig_len, 128);
	assert_int_equal(rsa_pss_verify(&pub, hash_sha256(), 32, d, sig, sig_len, 0),
			 HS_ERR_BAD_KEY);
	assert_int_equal(rsa_pss_verify(&pub, hash_sha256(), 32, d, sig, sig_len,
					   HS_RSA_ALLOW_SMALL), 0);
	/* SHA-512 with salt 64 needs emLen >= 130: does not fit 1024 bits */
	assert_int_equal(rsa_pss_sign(&k, hash_sha512(), d, sig, &sig_len, HS_RSA_ALLOW_SMALL),
			 HS_ERR_BAD_KEY);
	rsa_private_wipe(&k);
}

static void test_fault_detected(void **state)
{
	(void)state;
	struct rsa_private k;
	uint8_t sig[HS_RSA_MAX_LEN], d[32] = { 9 };
	size_t sig_len = sizeof(sig);

	load_2048(&k, NULL, NULL);
	k.dp[0] ^= 2; /* a wrong s_p: without the check this signature would factor n */
	assert_int_equal(rsa_pss_sign(&k, hash_sha256(), d, sig, &sig_len, 0), HS_ERR_BAD_KEY);
	for (size_t i = 0; i < 256; i++)
		assert_int_equal(sig[i], 0);
	rsa_private_wipe(&k);
}

/* Re-encode a one-byte-length edit of the public key DER and expect refusal. */
static void test_der_strict(void **state)
{
	(void)state;
	struct rsa_public pub;
	struct rsa_private k;
	uint8_t *der, *b;
	size_t len;

	der = unhex(rsa2048_pub_hex, &len);
	b = malloc(len + 2);
	assert_non_null(b);
	/* trailing byte */
	memcpy(b, der, len);
	b[len] = 0;
	assert_int_equal(rsa_public_from_der(&pub, b, len + 1), HS_ERR_BAD_ENCODING);
	assert_int_equal(rsa_public_from_der(&pub, der, len - 1), HS_ERR_BAD_ENCODING);
	/* 30 82 01 0a 02 82 01 01 00 <n> 02 03 01 00 01: n's positive-sign zero removed -> negative */
	memcpy(b, der, len);
	assert_int_equal(b[4], 0x02);
	assert_int_equal(b[8], 0x00);
	b[8] = 0x80;
	assert_int_equal(rsa_public_from_der(&pub, b, len), HS_ERR_BAD_ENCODING);
	/* a needless leading zero in e: 02 03 01 00 01 -> 02 04 00 01 00 01 */
	memcpy(b, der, len - 5);
	memcpy(b + len - 5, (const uint8_t[]){ 0x02, 0x04, 0x00, 0x01, 0x00, 0x01 }, 6);
	b[3] = (uint8_t)(b[3] + 1);
	assert_int_equal(rsa_public_from_der(&pub, b, len + 1), HS_ERR_BAD_ENCODING);
	/* the same key with e = 2 (even) and e = 1 */
	memcpy(b, der, len);
	b[len - 1] = 0x00;
	assert_int_equal(rsa_public_from_der(&pub, b, len), HS_ERR_BAD_KEY);
	b[len - 1] = 0x01;
	assert_int_equal(rsa_public_from_der(&pub, b, len), 0);
	memcpy(b + len - 5, (const uint8_t[]){ 0x02, 0x01, 0x01 }, 3);
	b[3] = (uint8_t)(b[3] - 2);
	assert_int_equal(rsa_public_from_der(&pub, b, len - 2), HS_ERR_BAD_KEY);
	/* a non-minimal long-form length on the SEQUENCE: 30 83 00 01 0a */
	b[0] = 0x30;
	b[1] = 0x83;
	b[2] = 0x00;
	memcpy(b + 3, der + 2, len - 2);
	assert_int_equal(rsa_public_from_der(&pub, b, len + 1), HS_ERR_BAD_ENCODING);
	free(der);
	free(b);

	/* private: version 1 (multi-prime) refused; q changed: p q != n */
	der = unhex(rsa2048_priv_hex, &len);
	assert_int_equal(der[4], 0x02);
	der[6] = 1;
	assert_int_equal(rsa_private_from_der(&k, der, len), HS_ERR_BAD_ENCODING);
	der[6] = 0;
	assert_int_equal(rsa_private_from_der(&k, der, len), 0);
	der[len - 400] ^= 0x10; /* inside the CRT part: q, dp or dq */
	assert_int_not_equal(rsa_private_from_der(&k, der, len), 0);
	rsa_private_wipe(&k);
	free(der);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bn_bytes),
		cmocka_unit_test(test_bn_mont),
		cmocka_unit_test(test_bn_rows),
		cmocka_unit_test(test_bn_backends),
		cmocka_unit_test(test_bn_ifma),
		cmocka_unit_test(test_bn_init_vartime),
		cmocka_unit_test(test_bn_inv_random),
		cmocka_unit_test(test_bn_inv_edges),
		cmocka_unit_test(test_kat_verify),
		cmocka_unit_test(test_sign_roundtrip),
		cmocka_unit_test(test_small_key),
		cmocka_unit_test(test_fault_detected),
		cmocka_unit_test(test_der_strict),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
