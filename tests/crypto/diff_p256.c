/*
 * Proves P-256 agrees with OpenSSL's libcrypto (EVP_PKEY "EC" on
 * prime256v1, EC_POINT_mul for public keys) on thousands of seeded random
 * inputs:
 * - the same public key for every private key (random, small, near n);
 * - the same ECDH secret for random key pairs, both directions;
 * - ECDSA-P256-SHA256 through our table: our DER signatures over messages
 *   of 0 .. 4 KiB verify in OpenSSL, OpenSSL's verify in ours, and a
 *   changed message or signature byte is rejected by both;
 * - raw-digest ECDSA for digests of 0 .. 64 bytes (SEC 1 truncation):
 *   our signatures verify in OpenSSL (EVP_PKEY_verify, no hashing);
 * - DER: our encoding of random r, s (with leading zero bytes and top bits)
 *   is byte-identical to i2d_ECDSA_SIG; mutated DER is accepted by us
 *   exactly when OpenSSL decodes it to non-negative 256-bit integers that
 *   re-encode to the same bytes (strict DER), and then to the same values.
 * - every backend: with the dispatch forced portable and not, public keys
 *   of edge scalars (1, 2, n-1, n-2, each power of two, 2^(7i) windows
 *   times 1, 63, 64, 65, plus and minus 1) and random ones equal
 *   OpenSSL's, 0 and n are refused, and deterministic signatures are
 *   identical across backends and verify in OpenSSL.
 * Seeded (HS_TEST_SEED) so a failure replays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>

#include "crypto/cpu.h"
#include "crypto/p256.h"
#include "crypto/sha2.h"
#include "crypto/sig.h"
#include "testutil.h"

enum { PUB_ITERS = 1000, ECDH_ITERS = 400, SIG_ITERS = 350, DIGEST_ITERS = 260,
       DER_ITERS = 3000, MUT_ITERS = 20000, MAX_MSG = 4096 };

static const uint8_t n_bytes[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84,
	0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
};

/* A random private key in [1, n-1]: random bytes, retried when out of range. */
static void rand_priv(struct test_rng *rng, uint8_t d[32])
{
	for (;;) {
		test_rng_bytes(rng, d, 32);
		/* a quarter of the keys start with zero or 0xff bytes, to reach the edges */
		switch (test_rng_below(rng, 8)) {
		case 0:
			memset(d, 0, 1 + test_rng_below(rng, 31));
			break;
		case 1:
			memset(d, 0xff, 4);
			break;
		default:
			break;
		}
		if (memcmp(d, n_bytes, 32) < 0 && memcmp(d, (const uint8_t[32]){ 0 }, 32) != 0)
			return;
	}
}

/* OpenSSL's d * G, uncompressed */
static void ossl_public(const uint8_t d[32], uint8_t pub[65])
{
	EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	EC_POINT *p = EC_POINT_new(g);
	BIGNUM *bn = BN_bin2bn(d, 32, NULL);

	assert_non_null(g);
	assert_non_null(p);
	assert_non_null(bn);
	assert_int_equal(EC_POINT_mul(g, p, bn, NULL, NULL, NULL), 1);
	assert_int_equal(EC_POINT_point2oct(g, p, POINT_CONVERSION_UNCOMPRESSED, pub, 65, NULL),
			 65);
	BN_free(bn);
	EC_POINT_free(p);
	EC_GROUP_free(g);
}

/* An EVP_PKEY on P-256 from pub (and d, if not NULL). */
static EVP_PKEY *ossl_key(const uint8_t *d, const uint8_t pub[65])
{
	OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	BIGNUM *bn = d ? BN_bin2bn(d, 32, NULL) : NULL;
	OSSL_PARAM *params;
	EVP_PKEY *k = NULL;

	assert_non_null(b);
	assert_non_null(c);
	assert_int_equal(OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_GROUP_NAME,
							 "prime256v1", 0), 1);
	assert_int_equal(OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, pub, 65), 1);
	if (bn)
		assert_int_equal(OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, bn), 1);
	params = OSSL_PARAM_BLD_to_param(b);
	assert_non_null(params);
	assert_int_equal(EVP_PKEY_fromdata_init(c), 1);
	assert_int_equal(EVP_PKEY_fromdata(c, &k, d ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY,
					   params), 1);
	OSSL_PARAM_free(params);
	BN_free(bn);
	EVP_PKEY_CTX_free(c);
	OSSL_PARAM_BLD_free(b);
	return k;
}

static void test_public(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t d[32], ours[65], theirs[65];

	test_rng_init(&rng, 0xd256a);
	for (int i = 0; i < PUB_ITERS; i++) {
		if (i < 40) { /* 1 .. 20 and n-1 .. n-20 */
			memset(d, 0, 32);
			if (i < 20) {
				d[31] = (uint8_t)(i + 1);
			} else {
				memcpy(d, n_bytes, 32);
				d[31] = (uint8_t)(d[31] - (i - 19));
			}
		} else {
			rand_priv(&rng, d);
		}
		assert_int_equal(p256_public(ours, d), 0);
		ossl_public(d, theirs);
		assert_memory_equal(ours, theirs, 65);
	}
}

static void ossl_ecdh(const uint8_t d[32], const uint8_t pub[65], const uint8_t peer[65],
		      uint8_t out[32])
{
	EVP_PKEY *k = ossl_key(d, pub), *p = ossl_key(NULL, peer);
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(k, NULL);
	size_t len = 32;

	assert_non_null(c);
	assert_int_equal(EVP_PKEY_derive_init(c), 1);
	assert_int_equal(EVP_PKEY_derive_set_peer(c, p), 1);
	assert_int_equal(EVP_PKEY_derive(c, out, &len), 1);
	assert_int_equal(len, 32);
	EVP_PKEY_CTX_free(c);
	EVP_PKEY_free(p);
	EVP_PKEY_free(k);
}

static void test_ecdh(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t a[32], b[32], pa[65], pb[65], z1[32], z2[32], z3[32];

	test_rng_init(&rng, 0xd256b);
	for (int i = 0; i < ECDH_ITERS; i++) {
		rand_priv(&rng, a);
		rand_priv(&rng, b);
		ossl_public(a, pa);
		ossl_public(b, pb);
		assert_int_equal(p256_ecdh(z1, a, pb, 65), 0);
		assert_int_equal(p256_ecdh(z2, b, pa, 65), 0);
		ossl_ecdh(a, pa, pb, z3);
		assert_memory_equal(z1, z3, 32);
		assert_memory_equal(z2, z3, 32);
	}
}

/* OpenSSL ECDSA-SHA256 verify of a DER signature over msg */
static int ossl_digest_verify(EVP_PKEY *k, const uint8_t *msg, size_t len, const uint8_t *sig,
			      size_t sig_len)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int r;

	assert_non_null(c);
	assert_int_equal(EVP_DigestVerifyInit(c, NULL, EVP_sha256(), NULL, k), 1);
	r = EVP_DigestVerify(c, sig, sig_len, msg, len);
	EVP_MD_CTX_free(c);
	return r == 1;
}

static size_t ossl_digest_sign(EVP_PKEY *k, const uint8_t *msg, size_t len, uint8_t *sig)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t sig_len = HS_SIG_MAX_LEN;

	assert_non_null(c);
	assert_int_equal(EVP_DigestSignInit(c, NULL, EVP_sha256(), NULL, k), 1);
	assert_int_equal(EVP_DigestSign(c, sig, &sig_len, msg, len), 1);
	EVP_MD_CTX_free(c);
	return sig_len;
}

static void test_sign_verify(void **state)
{
	(void)state;
	const struct sig *t = &sig_ecdsa_p256_sha256;
	struct test_rng rng;
	uint8_t d[32], pub[65], *msg = malloc(MAX_MSG + 1), sig[HS_SIG_MAX_LEN];

	assert_non_null(msg);
	test_rng_init(&rng, 0xd256c);
	for (int i = 0; i < SIG_ITERS; i++) {
		size_t len = test_rng_below(&rng, MAX_MSG + 1), sig_len = sizeof(sig);
		EVP_PKEY *k;

		rand_priv(&rng, d);
		ossl_public(d, pub);
		k = ossl_key(d, pub);
		test_rng_bytes(&rng, msg, len);
		/* ours -> OpenSSL */
		assert_int_equal(t->sign(sig, &sig_len, d, pub, msg, len), 0);
		assert_true(ossl_digest_verify(k, msg, len, sig, sig_len));
		assert_int_equal(t->verify(pub, 65, msg, len, sig, sig_len), 0);
		sig[test_rng_below(&rng, sig_len)] ^= (uint8_t)(1 + test_rng_below(&rng, 255));
		assert_false(ossl_digest_verify(k, msg, len, sig, sig_len));
		assert_int_not_equal(t->verify(pub, 65, msg, len, sig, sig_len), 0);
		/* OpenSSL -> ours */
		sig_len = ossl_digest_sign(k, msg, len, sig);
		assert_int_equal(t->verify(pub, 65, msg, len, sig, sig_len), 0);
		if (len > 0) {
			msg[test_rng_below(&rng, len)] ^= 0x01;
			assert_int_not_equal(t->verify(pub, 65, msg, len, sig, sig_len), 0);
			assert_false(ossl_digest_verify(k, msg, len, sig, sig_len));
		}
		EVP_PKEY_free(k);
	}
	free(msg);
}

/* Raw digests of any length: OpenSSL's EVP_PKEY_verify truncates as SEC 1 says. */
static void test_digest_lengths(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t d[32], pub[65], h[64], raw[64], der[HS_SIG_MAX_LEN];

	test_rng_init(&rng, 0xd256d);
	for (int i = 0; i < DIGEST_ITERS; i++) {
		size_t hl = (size_t)(i % 65), der_len = sizeof(der);
		EVP_PKEY *k;
		EVP_PKEY_CTX *c;

		rand_priv(&rng, d);
		ossl_public(d, pub);
		test_rng_bytes(&rng, h, hl);
		assert_int_equal(ecdsa_p256_sign(raw, d, h, hl, i & 1), 0);
		assert_int_equal(ecdsa_p256_verify(pub, 65, h, hl, raw), 0);
		assert_int_equal(ecdsa_sig_to_der(der, &der_len, raw), 0);
		k = ossl_key(NULL, pub);
		c = EVP_PKEY_CTX_new(k, NULL);
		assert_non_null(c);
		assert_int_equal(EVP_PKEY_verify_init(c), 1);
		assert_int_equal(EVP_PKEY_verify(c, der, der_len, h, hl), 1);
		EVP_PKEY_CTX_free(c);
		EVP_PKEY_free(k);
	}
}

/* d = m 2^e + delta (mod 2^256, big-endian), m < 256 */
static void scalar_at(uint8_t d[32], unsigned m, unsigned e, int delta)
{
	unsigned carry = 0;

	memset(d, 0, 32);
	if (e < 256) {
		unsigned v = m << (e % 8);

		d[31 - e / 8] = (uint8_t)v;
		if (e / 8 < 31)
			d[30 - e / 8] = (uint8_t)(v >> 8);
	}
	/* add or subtract |delta| (small) at the bottom, with carries */
	if (delta >= 0) {
		carry = (unsigned)delta;
		for (int i = 31; i >= 0 && carry; i--) {
			carry += d[i];
			d[i] = (uint8_t)carry;
			carry >>= 8;
		}
	} else {
		carry = (unsigned)-delta;
		for (int i = 31; i >= 0 && carry; i--) {
			unsigned v = d[i];

			d[i] = (uint8_t)(v - carry);
			carry = v < carry ? 1 : 0;
		}
	}
}

/* 1 if d is in [1, n-1] (big-endian compare) */
static int in_range(const uint8_t d[32])
{
	static const uint8_t zero[32];

	return memcmp(d, zero, 32) != 0 && memcmp(d, n_bytes, 32) < 0;
}

static void test_backends_vs_openssl(void **state)
{
	(void)state;
	static const unsigned mult[] = { 1, 63, 64, 65 };
	struct test_rng rng;
	uint8_t d[32], ours[2][65], theirs[65], h[32], sig[2][64], der[HS_SIG_MAX_LEN];
	int cases = 0;

	test_rng_init(&rng, 0xd256e);
	/* 0 and n are refused by both backends */
	for (int f = 0; f < 2; f++) {
		cpu_force_portable(f);
		memset(d, 0, 32);
		assert_int_equal(p256_public(ours[0], d), HS_ERR_BAD_KEY);
		assert_int_equal(p256_public(ours[0], n_bytes), HS_ERR_BAD_KEY);
	}
	for (unsigned e = 0; e < 256 + 40; e++) {
		for (int v = 0; v < 12; v++) {
			if (e < 256)
				scalar_at(d, mult[v / 3], e, v % 3 - 1);
			else if (e < 276)
				scalar_at(d, 0, 0, (int)(e - 255)); /* 1 .. 20 */
			else {
				memcpy(d, n_bytes, 32);
				d[31] = (uint8_t)(d[31] - (e - 275)); /* n-1 .. n-20 */
			}
			if (e >= 256 && v > 0)
				break;
			if (!in_range(d))
				continue;
			if (cases % 4 == 3)
				rand_priv(&rng, d);
			ossl_public(d, theirs);
			test_rng_bytes(&rng, h, sizeof(h));
			for (int f = 0; f < 2; f++) {
				cpu_force_portable(f);
				assert_int_equal(p256_public(ours[f], d), 0);
				assert_int_equal(ecdsa_p256_sign(sig[f], d, h, sizeof(h), 0), 0);
			}
			cpu_force_portable(0);
			assert_memory_equal(ours[0], theirs, 65);
			assert_memory_equal(ours[1], theirs, 65);
			assert_memory_equal(sig[0], sig[1], 64);
			if (cases % 8 == 0) {
				size_t der_len = sizeof(der);
				EVP_PKEY *k = ossl_key(NULL, theirs);
				EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(k, NULL);

				assert_non_null(c);
				assert_int_equal(ecdsa_sig_to_der(der, &der_len, sig[0]), 0);
				assert_int_equal(EVP_PKEY_verify_init(c), 1);
				assert_int_equal(EVP_PKEY_verify(c, der, der_len, h, sizeof(h)), 1);
				EVP_PKEY_CTX_free(c);
				EVP_PKEY_free(k);
			}
			cases++;
		}
	}
	assert_true(cases > 2000);
}

/* OpenSSL's DER for raw r || s */
static int ossl_der(const uint8_t raw[64], uint8_t *out)
{
	ECDSA_SIG *s = ECDSA_SIG_new();
	BIGNUM *r = BN_bin2bn(raw, 32, NULL), *ss = BN_bin2bn(raw + 32, 32, NULL);
	uint8_t *p = out;
	int len;

	assert_non_null(s);
	assert_int_equal(ECDSA_SIG_set0(s, r, ss), 1);
	len = i2d_ECDSA_SIG(s, &p);
	ECDSA_SIG_free(s);
	return len;
}

static void test_der_encode(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t raw[64], back[64], ours[80], theirs[80];

	test_rng_init(&rng, 0xd256e);
	for (int i = 0; i < DER_ITERS; i++) {
		size_t len = sizeof(ours);
		int tl;

		test_rng_bytes(&rng, raw, 64);
		/* leading zero bytes and top bits of every kind */
		memset(raw, 0, test_rng_below(&rng, 33));
		memset(raw + 32, 0, test_rng_below(&rng, 33));
		if (i & 1)
			raw[test_rng_below(&rng, 64)] |= 0x80;
		assert_int_equal(ecdsa_sig_to_der(ours, &len, raw), 0);
		tl = ossl_der(raw, theirs);
		assert_true(tl > 0);
		assert_int_equal(len, (size_t)tl);
		assert_memory_equal(ours, theirs, len);
		assert_int_equal(ecdsa_sig_from_der(back, ours, len), 0);
		assert_memory_equal(back, raw, 64);
	}
}

/*
 * What strict DER accepts, judged with OpenSSL: it must decode, re-encode
 * to the very same bytes, and give non-negative integers of <= 256 bits.
 */
static int ossl_strict_decode(const uint8_t *der, size_t len, uint8_t raw[64])
{
	const uint8_t *p = der;
	ECDSA_SIG *s = d2i_ECDSA_SIG(NULL, &p, (long)len);
	const BIGNUM *r, *ss;
	uint8_t re[200], *q = re;
	int ok = 0, rl;

	if (!s)
		return 0;
	ECDSA_SIG_get0(s, &r, &ss);
	rl = i2d_ECDSA_SIG(s, NULL);
	if ((size_t)(p - der) == len && rl > 0 && rl <= (int)sizeof(re) &&
	    i2d_ECDSA_SIG(s, &q) == (int)len && memcmp(re, der, len) == 0 &&
	    !BN_is_negative(r) && !BN_is_negative(ss) && BN_num_bytes(r) <= 32 &&
	    BN_num_bytes(ss) <= 32) {
		ok = BN_bn2binpad(r, raw, 32) == 32 && BN_bn2binpad(ss, raw + 32, 32) == 32;
	}
	ECDSA_SIG_free(s);
	return ok;
}

static void test_der_mutations(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t raw[64], der[100], ours[64], theirs[64];
	unsigned accepted = 0;

	test_rng_init(&rng, 0xd256f);
	for (int i = 0; i < MUT_ITERS; i++) {
		size_t len = 80;
		int edits = 1 + (int)test_rng_below(&rng, 3), a, b;

		test_rng_bytes(&rng, raw, 64);
		memset(raw, 0, test_rng_below(&rng, 4));
		assert_int_equal(ecdsa_sig_to_der(der, &len, raw), 0);
		for (int e = 0; e < edits; e++) {
			size_t at = test_rng_below(&rng, len + 1);
			switch (test_rng_below(&rng, 4)) {
			case 0: /* change a byte, often a header byte */
				at = test_rng_below(&rng, 3) ? test_rng_below(&rng, 6) : at;
				if (at < len)
					der[at] = (uint8_t)test_rng_next(&rng);
				break;
			case 1: /* insert a byte */
				if (len < sizeof(der) - 1) {
					memmove(der + at + 1, der + at, len - at);
					der[at] = test_rng_below(&rng, 2) ? 0
									  : (uint8_t)test_rng_next(&rng);
					len++;
				}
				break;
			case 2: /* delete a byte */
				if (at < len) {
					memmove(der + at, der + at + 1, len - at - 1);
					len--;
				}
				break;
			default: /* truncate or extend */
				if (test_rng_below(&rng, 2) && len > 0)
					len = test_rng_below(&rng, len);
				else if (len < sizeof(der))
					der[len++] = (uint8_t)test_rng_next(&rng);
				break;
			}
		}
		a = ecdsa_sig_from_der(ours, der, len) == 0;
		b = ossl_strict_decode(der, len, theirs);
		if (a != b) {
			printf("DER disagreement (ours %d, OpenSSL %d) on:", a, b);
			for (size_t k = 0; k < len; k++)
				printf("%02x", der[k]);
			printf("\n");
		}
		assert_int_equal(a, b);
		if (a) {
			accepted++;
			assert_memory_equal(ours, theirs, 64);
		}
	}
	printf("# DER mutations: %u of %d accepted by both\n", accepted, MUT_ITERS);
	assert_true(accepted > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_public),
		cmocka_unit_test(test_ecdh),
		cmocka_unit_test(test_sign_verify),
		cmocka_unit_test(test_digest_lengths),
		cmocka_unit_test(test_backends_vs_openssl),
		cmocka_unit_test(test_der_encode),
		cmocka_unit_test(test_der_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
