/*
 * Proves X25519 and Ed25519 agree with OpenSSL's libcrypto (EVP_PKEY raw
 * keys) on thousands of seeded random inputs:
 * - X25519: the same public key for every private key; the same shared
 *   secret for both directions of every pair, and for random peer values
 *   (any 32 bytes: twist points, top bit set, non-canonical u) where a
 *   secret OpenSSL refuses as all-zero must be HS_ERR_ZERO_SHARED for us.
 * - Ed25519 (deterministic): the same public key and the same signature
 *   for messages of 0 .. 4 KiB; each side verifies the other's; a signature
 *   or message with one byte changed is rejected by both; random garbage
 *   signatures get the same verdict from both.
 * - Scalars mod L (sc25519) against BIGNUM: reduction of random and edge
 *   64-byte values, and a b + c mod L.
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
#include <openssl/evp.h>

#include "crypto/ed25519.h"
#include "crypto/sc25519.h"
#include "crypto/x25519.h"
#include "testutil.h"

enum { X_ITERS = 1000, ED_ITERS = 1000, MAX_MSG = 4096, SC_ITERS = 8000 };

static void ossl_public(int type, const uint8_t priv[32], uint8_t pub[32])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(type, NULL, priv, 32);
	size_t len = 32;

	assert_non_null(k);
	assert_int_equal(EVP_PKEY_get_raw_public_key(k, pub, &len), 1);
	assert_int_equal(len, 32);
	EVP_PKEY_free(k);
}

/* 1 and out set if OpenSSL derives a secret, 0 if it refuses. */
static int ossl_x25519(const uint8_t priv[32], const uint8_t peer[32], uint8_t out[32])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, 32);
	EVP_PKEY *p = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, peer, 32);
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(k, NULL);
	size_t len = 32;
	int ok;

	assert_non_null(k);
	assert_non_null(p);
	assert_non_null(c);
	assert_int_equal(EVP_PKEY_derive_init(c), 1);
	ok = EVP_PKEY_derive_set_peer(c, p) == 1 && EVP_PKEY_derive(c, out, &len) == 1 &&
	     len == 32;
	EVP_PKEY_CTX_free(c);
	EVP_PKEY_free(p);
	EVP_PKEY_free(k);
	return ok;
}

static void ossl_ed25519_sign(const uint8_t seed[32], const uint8_t *msg, size_t len,
			      uint8_t sig[64])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t sig_len = 64;

	assert_non_null(k);
	assert_non_null(c);
	assert_int_equal(EVP_DigestSignInit(c, NULL, NULL, NULL, k), 1);
	assert_int_equal(EVP_DigestSign(c, sig, &sig_len, msg, len), 1);
	assert_int_equal(sig_len, 64);
	EVP_MD_CTX_free(c);
	EVP_PKEY_free(k);
}

/* 1 if OpenSSL accepts the signature. */
static int ossl_ed25519_verify(const uint8_t pub[32], const uint8_t *msg, size_t len,
			       const uint8_t sig[64])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, 32);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok;

	if (!k) { /* OpenSSL may refuse the key itself */
		EVP_MD_CTX_free(c);
		return 0;
	}
	assert_non_null(c);
	assert_int_equal(EVP_DigestVerifyInit(c, NULL, NULL, NULL, k), 1);
	ok = EVP_DigestVerify(c, sig, 64, msg, len) == 1;
	EVP_MD_CTX_free(c);
	EVP_PKEY_free(k);
	return ok;
}

static void test_x25519_vs_openssl(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t a[32], b[32], a_pub[32], b_pub[32], o_pub[32], s1[32], s2[32], so[32], u[32];
	unsigned zero = 0;

	test_rng_init(&rng, 0x7748);
	for (int i = 0; i < X_ITERS; i++) {
		test_rng_bytes(&rng, a, 32);
		test_rng_bytes(&rng, b, 32);
		assert_int_equal(x25519_public(a_pub, a), 0);
		ossl_public(EVP_PKEY_X25519, a, o_pub);
		assert_memory_equal(a_pub, o_pub, 32);
		assert_int_equal(x25519_public(b_pub, b), 0);
		assert_int_equal(x25519(s1, a, b_pub), 0);
		assert_int_equal(x25519(s2, b, a_pub), 0);
		assert_memory_equal(s1, s2, 32);
		assert_int_equal(ossl_x25519(a, b_pub, so), 1);
		assert_memory_equal(s1, so, 32);

		/* any 32 bytes as the peer; every 8th one near p or small */
		test_rng_bytes(&rng, u, 32);
		if (i % 8 == 1)
			memset(u + 1, 0xff, 31);
		else if (i % 8 == 2)
			memset(u + 1, 0, 31);
		int e = x25519(s1, a, u);
		if (ossl_x25519(a, u, so)) {
			assert_int_equal(e, 0);
			assert_memory_equal(s1, so, 32);
		} else {
			assert_int_equal(e, HS_ERR_ZERO_SHARED);
			zero++;
		}
	}
	printf("# x25519: %d keys, %u zero secrets seen\n", X_ITERS, zero);
}

static void test_ed25519_vs_openssl(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t *msg = malloc(MAX_MSG);
	uint8_t seed[32], pub[32], o_pub[32], sig[64], o_sig[64], bad[64];

	assert_non_null(msg);
	test_rng_init(&rng, 0x8032);
	for (int i = 0; i < ED_ITERS; i++) {
		size_t len = i < 300 ? (size_t)i : test_rng_below(&rng, MAX_MSG + 1);

		test_rng_bytes(&rng, seed, 32);
		test_rng_bytes(&rng, msg, len);
		assert_int_equal(ed25519_public(pub, seed), 0);
		ossl_public(EVP_PKEY_ED25519, seed, o_pub);
		assert_memory_equal(pub, o_pub, 32);
		assert_int_equal(ed25519_sign(sig, seed, pub, msg, len), 0);
		ossl_ed25519_sign(seed, msg, len, o_sig);
		assert_memory_equal(sig, o_sig, 64);
		assert_int_equal(ed25519_verify(pub, msg, len, o_sig), 0);
		assert_true(ossl_ed25519_verify(pub, msg, len, sig));

		/* one byte of the signature changed: both reject */
		memcpy(bad, sig, 64);
		bad[test_rng_below(&rng, 64)] ^= (uint8_t)(1 + test_rng_below(&rng, 255));
		assert_int_not_equal(ed25519_verify(pub, msg, len, bad), 0);
		assert_false(ossl_ed25519_verify(pub, msg, len, bad));
		/* one byte of the message changed: both reject */
		if (len > 0) {
			size_t at = test_rng_below(&rng, len);
			msg[at] ^= 0x01;
			assert_int_equal(ed25519_verify(pub, msg, len, sig), HS_ERR_BAD_SIG);
			assert_false(ossl_ed25519_verify(pub, msg, len, sig));
			msg[at] ^= 0x01;
		}
		/* garbage: random R and S (S reduced below 2^253 half the time) */
		test_rng_bytes(&rng, bad, 64);
		if (i & 1)
			bad[63] &= 0x0f;
		assert_int_equal(ed25519_verify(pub, msg, len, bad) == 0,
				 ossl_ed25519_verify(pub, msg, len, bad));
	}
	free(msg);
}

/* BIGNUM from / to little-endian bytes */
static BIGNUM *bn_le(const uint8_t *p, size_t n)
{
	BIGNUM *b = BN_lebin2bn(p, (int)n, NULL);
	assert_non_null(b);
	return b;
}

static void test_scalars_vs_bignum(void **state)
{
	(void)state;
	static const uint8_t l_le[32] = { 0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58,
					  0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
					  [31] = 0x10 };
	struct test_rng rng;
	BN_CTX *ctx = BN_CTX_new();
	BIGNUM *l = bn_le(l_le, 32), *r = BN_new();
	uint8_t in[64], out[32], want[32], a[32], b[32], c[32];

	assert_non_null(ctx);
	assert_non_null(r);
	test_rng_init(&rng, 0x252);
	for (int i = 0; i < SC_ITERS; i++) {
		test_rng_bytes(&rng, in, 64);
		if (i % 4 == 1) { /* a random multiple of L, plus or minus a little */
			BIGNUM *q = bn_le(in, 32), *x = BN_new();
			assert_int_equal(BN_mul(x, q, l, ctx), 1);
			if (i % 8 == 1)
				assert_int_equal(BN_sub_word(x, (BN_ULONG)(in[40] & 3)), 1);
			else
				assert_int_equal(BN_add_word(x, (BN_ULONG)(in[40] & 3)), 1);
			if (BN_is_negative(x))
				BN_zero(x);
			assert_true(BN_bn2lebinpad(x, in, 64) == 64);
			BN_free(q);
			BN_free(x);
		} else if (i % 4 == 2) {
			memset(in + test_rng_below(&rng, 57), 0xff, 8); /* long carries */
		}
		sc_reduce64(out, in);
		BIGNUM *x = bn_le(in, 64);
		assert_int_equal(BN_nnmod(r, x, l, ctx), 1);
		assert_int_equal(BN_bn2lebinpad(r, want, 32), 32);
		assert_memory_equal(out, want, 32);
		BN_free(x);

		test_rng_bytes(&rng, a, 32);
		test_rng_bytes(&rng, b, 32);
		test_rng_bytes(&rng, c, 32);
		if (i % 3 == 0)
			memset(a, 0xff, 32 - test_rng_below(&rng, 8));
		sc_muladd(out, a, b, c);
		BIGNUM *ba = bn_le(a, 32), *bb = bn_le(b, 32), *bc = bn_le(c, 32);
		assert_int_equal(BN_mul(r, ba, bb, ctx), 1);
		assert_int_equal(BN_add(r, r, bc), 1);
		assert_int_equal(BN_nnmod(r, r, l, ctx), 1);
		assert_int_equal(BN_bn2lebinpad(r, want, 32), 32);
		assert_memory_equal(out, want, 32);
		BN_free(ba);
		BN_free(bb);
		BN_free(bc);
	}
	BN_free(l);
	BN_free(r);
	BN_CTX_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x25519_vs_openssl),
		cmocka_unit_test(test_ed25519_vs_openssl),
		cmocka_unit_test(test_scalars_vs_bignum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
