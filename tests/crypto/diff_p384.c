/*
 * Proves P-384 ECDSA verification agrees with OpenSSL's libcrypto on keys
 * OpenSSL generates and thousands of seeded random messages (0 .. 4 KiB):
 * - OpenSSL's ECDSA-SHA384 DER signatures verify through our
 *   ecdsa_secp384r1_sha384 table, and a flipped bit in the message or the
 *   signature is rejected by both;
 * - raw digests of 0 .. 64 bytes signed by OpenSSL (EVP_PKEY_sign, which
 *   uses the leftmost 384 bits like SEC 1) verify in ours, and a changed
 *   digest byte within the first 48 is rejected;
 * - our DER parser gives the same r and s as OpenSSL's d2i_ECDSA_SIG.
 * Seeded (HS_TEST_SEED) so a failure replays (the keys are OpenSSL's).
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

#include "crypto/p384.h"
#include "testutil.h"

enum { KEYS = 4, MSG_ITERS = 300, DIGEST_ITERS = 200, MAX_MSG = 4096 };

static EVP_PKEY *key_gen(uint8_t pub[97])
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
	size_t len = 0;

	assert_non_null(k);
	assert_int_equal(EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PUB_KEY, pub, 97, &len),
			 1);
	assert_int_equal(len, 97);
	assert_int_equal(pub[0], 0x04);
	return k;
}

static size_t ossl_sign_msg(EVP_PKEY *k, const uint8_t *msg, size_t len, uint8_t *sig)
{
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	size_t sig_len = HS_P384_SIG_DER_MAX;

	assert_non_null(m);
	assert_int_equal(EVP_DigestSignInit(m, NULL, EVP_sha384(), NULL, k), 1);
	assert_int_equal(EVP_DigestSign(m, sig, &sig_len, msg, len), 1);
	EVP_MD_CTX_free(m);
	return sig_len;
}

static int ossl_verify_msg(EVP_PKEY *k, const uint8_t *msg, size_t len, const uint8_t *sig,
			   size_t sig_len)
{
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	int ok;

	assert_non_null(m);
	assert_int_equal(EVP_DigestVerifyInit(m, NULL, EVP_sha384(), NULL, k), 1);
	ok = EVP_DigestVerify(m, sig, sig_len, msg, len) == 1;
	EVP_MD_CTX_free(m);
	return ok;
}

/* OpenSSL's r and s of a DER signature, as 48 + 48 bytes */
static void ossl_raw(const uint8_t *der, size_t len, uint8_t raw[96])
{
	const unsigned char *p = der;
	ECDSA_SIG *s = d2i_ECDSA_SIG(NULL, &p, (long)len);

	assert_non_null(s);
	assert_int_equal(BN_bn2binpad(ECDSA_SIG_get0_r(s), raw, 48), 48);
	assert_int_equal(BN_bn2binpad(ECDSA_SIG_get0_s(s), raw + 48, 48), 48);
	ECDSA_SIG_free(s);
}

static void test_messages(void **state)
{
	(void)state;
	static uint8_t msg[MAX_MSG];
	struct test_rng rng;

	test_rng_init(&rng, 0xd384);
	for (int kk = 0; kk < KEYS; kk++) {
		uint8_t pub[97], sig[HS_P384_SIG_DER_MAX], raw[96], oraw[96];
		EVP_PKEY *k = key_gen(pub);

		assert_int_equal(p384_check_public(pub, 97), 0);
		for (int i = 0; i < MSG_ITERS / KEYS; i++) {
			size_t len = test_rng_below(&rng, MAX_MSG + 1);
			size_t sig_len;

			test_rng_bytes(&rng, msg, len);
			sig_len = ossl_sign_msg(k, msg, len, sig);
			assert_int_equal(sig_ecdsa_p384_sha384.verify(pub, 97, msg, len, sig, sig_len),
					 0);
			assert_int_equal(ecdsa_sig_from_der_n(raw, 48, sig, sig_len), 0);
			ossl_raw(sig, sig_len, oraw);
			assert_memory_equal(raw, oraw, 96);
			if (len > 0 && test_rng_below(&rng, 2)) {
				msg[test_rng_below(&rng, len)] ^= (uint8_t)(1u << test_rng_below(&rng, 8));
			} else {
				sig[test_rng_below(&rng, sig_len)] ^=
					(uint8_t)(1u << test_rng_below(&rng, 8));
			}
			assert_false(ossl_verify_msg(k, msg, len, sig, sig_len));
			assert_int_not_equal(sig_ecdsa_p384_sha384.verify(pub, 97, msg, len, sig,
									     sig_len), 0);
		}
		EVP_PKEY_free(k);
	}
}

static void test_digests(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t pub[97], d[64], sig[HS_P384_SIG_DER_MAX], raw[96];
	EVP_PKEY *k = key_gen(pub);
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(k, NULL);

	assert_non_null(c);
	assert_int_equal(EVP_PKEY_sign_init(c), 1);
	test_rng_init(&rng, 0xd384d);
	for (int i = 0; i < DIGEST_ITERS; i++) {
		size_t dlen = 1 + test_rng_below(&rng, 64), sig_len = sizeof(sig);

		test_rng_bytes(&rng, d, dlen);
		assert_int_equal(EVP_PKEY_sign(c, sig, &sig_len, d, dlen), 1);
		assert_int_equal(ecdsa_sig_from_der_n(raw, 48, sig, sig_len), 0);
		assert_int_equal(ecdsa_p384_verify(pub, 97, d, dlen, raw), 0);
		d[test_rng_below(&rng, dlen < 48 ? dlen : 48)] ^= 0x80;
		assert_int_equal(ecdsa_p384_verify(pub, 97, d, dlen, raw), HS_ERR_BAD_SIG);
	}
	EVP_PKEY_CTX_free(c);
	EVP_PKEY_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_digests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
