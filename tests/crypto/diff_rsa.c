/*
 * Proves RSA agrees with OpenSSL's libcrypto on keys OpenSSL generates
 * (three of 2048 bits, one of 3072, one of 4096: keygen is slow; e = 65537,
 * and e = 3 for one 2048-bit key) and over 1,300 seeded random messages of
 * 0 .. 4 KiB, each also corrupted once:
 * - OpenSSL's RSASSA-PSS signatures (SHA-256/384/512, MGF1 with the same
 *   hash, salt = digest length, and random salt lengths for the general
 *   API) verify in ours, both through rsa_pss_verify and the
 *   rsa_pss_rsae_* tables with the DER RSAPublicKey;
 * - OpenSSL's RSASSA-PKCS1-v1_5 signatures verify in ours, and are
 *   refused as PSS (and PSS ones as PKCS #1);
 * - our PSS signatures (from the DER RSAPrivateKey OpenSSL writes, both
 *   through rsa_pss_sign and the tables) verify in OpenSSL;
 * - a flipped bit in the signature or the message is rejected by both.
 * Seeded (HS_TEST_SEED) so a failure replays (the keys come from OpenSSL's
 * own generator).
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
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "crypto/hash.h"
#include "crypto/rsa.h"
#include "testutil.h"

enum { MAX_MSG = 4096 };

struct key {
	EVP_PKEY *pkey;
	uint8_t *pub_der, *priv_der;
	size_t pub_len, priv_len;
	struct rsa_public pub;
	struct rsa_private priv;
};

struct alg {
	const char *name;
	const EVP_MD *(*md)(void);
	const struct hash *(*h)(void);
	const struct sig *sig;
};

static const struct alg algs[] = {
	{ "SHA-256", EVP_sha256, hash_sha256, &sig_rsa_pss_rsae_sha256 },
	{ "SHA-384", EVP_sha384, hash_sha384, &sig_rsa_pss_rsae_sha384 },
	{ "SHA-512", EVP_sha512, hash_sha512, &sig_rsa_pss_rsae_sha512 },
};

static void key_gen(struct key *k, int bits, unsigned long e)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
	BIGNUM *bn = BN_new();
	unsigned char *p;
	int len;

	memset(k, 0, sizeof(*k));
	assert_non_null(c);
	assert_non_null(bn);
	assert_int_equal(BN_set_word(bn, e), 1);
	assert_int_equal(EVP_PKEY_keygen_init(c), 1);
	assert_int_equal(EVP_PKEY_CTX_set_rsa_keygen_bits(c, bits), 1);
	assert_int_equal(EVP_PKEY_CTX_set1_rsa_keygen_pubexp(c, bn), 1);
	assert_int_equal(EVP_PKEY_keygen(c, &k->pkey), 1);
	BN_free(bn);
	EVP_PKEY_CTX_free(c);
	p = NULL;
	len = i2d_PublicKey(k->pkey, &p); /* RSAPublicKey for RSA keys */
	assert_true(len > 0);
	k->pub_der = p;
	k->pub_len = (size_t)len;
	p = NULL;
	len = i2d_PrivateKey(k->pkey, &p); /* RSAPrivateKey (PKCS #1) */
	assert_true(len > 0);
	k->priv_der = p;
	k->priv_len = (size_t)len;
	assert_int_equal(rsa_public_from_der(&k->pub, k->pub_der, k->pub_len), 0);
	assert_int_equal(rsa_private_from_der(&k->priv, k->priv_der, k->priv_len), 0);
	assert_int_equal((int)k->pub.bits, bits);
}

static void key_free(struct key *k)
{
	rsa_private_wipe(&k->priv);
	OPENSSL_free(k->pub_der);
	OPENSSL_clear_free(k->priv_der, k->priv_len);
	EVP_PKEY_free(k->pkey);
}

/* OpenSSL signs msg; salt < 0: PKCS #1 v1.5, else PSS with that salt length. */
static size_t ossl_sign(const struct key *k, const struct alg *a, int salt, const uint8_t *msg,
			size_t len, uint8_t *sig)
{
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pc = NULL;
	size_t sig_len = HS_RSA_MAX_LEN;

	assert_non_null(m);
	assert_int_equal(EVP_DigestSignInit(m, &pc, a->md(), NULL, k->pkey), 1);
	if (salt >= 0) {
		assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING), 1);
		assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, salt), 1);
	}
	assert_int_equal(EVP_DigestSign(m, sig, &sig_len, msg, len), 1);
	EVP_MD_CTX_free(m);
	return sig_len;
}

/* 1 if OpenSSL accepts a PSS signature with salt = digest length */
static int ossl_verify_pss(const struct key *k, const struct alg *a, const uint8_t *msg,
			   size_t len, const uint8_t *sig, size_t sig_len)
{
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pc = NULL;
	int ok;

	assert_non_null(m);
	assert_int_equal(EVP_DigestVerifyInit(m, &pc, a->md(), NULL, k->pkey), 1);
	assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING), 1);
	assert_int_equal(EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST), 1);
	ok = EVP_DigestVerify(m, sig, sig_len, msg, len) == 1;
	EVP_MD_CTX_free(m);
	return ok;
}

static size_t rand_msg(struct test_rng *rng, uint8_t *msg)
{
	size_t len = test_rng_below(rng, MAX_MSG + 1);

	test_rng_bytes(rng, msg, len);
	return len;
}

static void flip_bit(struct test_rng *rng, uint8_t *p, size_t len)
{
	p[test_rng_below(rng, len)] ^= (uint8_t)(1u << test_rng_below(rng, 8));
}

/* OpenSSL signs (PSS with a random salt length, or PKCS #1), we verify. */
static void check_ossl_signs(struct test_rng *rng, const struct key *k, int pss, int iters)
{
	static uint8_t msg[MAX_MSG];
	uint8_t sig[HS_RSA_MAX_LEN], d[HS_HASH_MAX_LEN];

	for (int i = 0; i < iters; i++) {
		const struct alg *a = &algs[test_rng_below(rng, 3)];
		const struct hash *h = a->h();
		size_t len = rand_msg(rng, msg), max_salt = (k->pub.bits + 6) / 8 - h->digest_len - 2;
		/* half the time TLS's salt length, else any length the key allows */
		size_t salt = test_rng_below(rng, 2) ? h->digest_len : test_rng_below(rng, max_salt + 1);
		size_t sig_len = ossl_sign(k, a, pss ? (int)salt : -1, msg, len, sig);

		hash_digest(h, msg, len, d);
		if (pss) {
			assert_int_equal(rsa_pss_verify(&k->pub, h, salt, d, sig, sig_len, 0), 0);
			assert_int_equal(rsa_pkcs1_verify(&k->pub, h, d, sig, sig_len, 0),
					 HS_ERR_BAD_SIG);
			assert_int_equal(a->sig->verify(k->pub_der, k->pub_len, msg, len, sig,
							sig_len) == 0, salt == h->digest_len);
			if (salt != h->digest_len)
				assert_int_not_equal(rsa_pss_verify(&k->pub, h, h->digest_len, d,
								       sig, sig_len, 0), 0);
		} else {
			assert_int_equal(rsa_pkcs1_verify(&k->pub, h, d, sig, sig_len, 0), 0);
			assert_int_not_equal(rsa_pss_verify(&k->pub, h, h->digest_len, d, sig,
							       sig_len, 0), 0);
		}
		flip_bit(rng, sig, sig_len);
		if (pss)
			assert_int_not_equal(rsa_pss_verify(&k->pub, h, salt, d, sig, sig_len, 0), 0);
		else
			assert_int_not_equal(rsa_pkcs1_verify(&k->pub, h, d, sig, sig_len, 0), 0);
	}
}

/* We sign PSS (struct API and the table), OpenSSL verifies; corrupted ones fail in both. */
static void check_we_sign(struct test_rng *rng, const struct key *k, int iters)
{
	static uint8_t msg[MAX_MSG + 1];
	uint8_t sig[HS_RSA_MAX_LEN], d[HS_HASH_MAX_LEN];

	for (int i = 0; i < iters; i++) {
		const struct alg *a = &algs[test_rng_below(rng, 3)];
		const struct hash *h = a->h();
		size_t len = rand_msg(rng, msg), sig_len = sizeof(sig);

		if (i % 2) {
			assert_int_equal(a->sig->sign(sig, &sig_len, &k->priv, NULL, msg, len), 0);
		} else {
			hash_digest(h, msg, len, d);
			assert_int_equal(rsa_pss_sign(&k->priv, h, d, sig, &sig_len, 0), 0);
		}
		assert_int_equal(sig_len, k->pub.len);
		assert_true(ossl_verify_pss(k, a, msg, len, sig, sig_len));
		assert_int_equal(a->sig->verify(k->pub_der, k->pub_len, msg, len, sig, sig_len), 0);
		if (i % 2) {
			flip_bit(rng, sig, sig_len);
		} else {
			msg[len] = 0;
			flip_bit(rng, msg, len + 1);
			len += len == 0 || test_rng_below(rng, 4) == 0; /* sometimes a longer message */
		}
		assert_false(ossl_verify_pss(k, a, msg, len, sig, sig_len));
		assert_int_not_equal(a->sig->verify(k->pub_der, k->pub_len, msg, len, sig, sig_len), 0);
	}
}

static void run_size(int bits, int nkeys, int verify_iters, int sign_iters, uint64_t seed)
{
	struct test_rng rng;

	test_rng_init(&rng, seed);
	for (int i = 0; i < nkeys; i++) {
		struct key k;

		key_gen(&k, bits, bits == 2048 && i == 1 ? 3 : 65537);
		check_ossl_signs(&rng, &k, 1, verify_iters);
		check_ossl_signs(&rng, &k, 0, verify_iters);
		check_we_sign(&rng, &k, sign_iters);
		key_free(&k);
	}
}

static void test_2048(void **state)
{
	(void)state;
	run_size(2048, 3, 160, 24, 0x25a2048);
}

static void test_3072(void **state)
{
	(void)state;
	run_size(3072, 1, 100, 10, 0x25a3072);
}

static void test_4096(void **state)
{
	(void)state;
	run_size(4096, 1, 60, 6, 0x25a4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2048),
		cmocka_unit_test(test_3072),
		cmocka_unit_test(test_4096),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
