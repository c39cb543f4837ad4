/*
 * Proves the X.509 writer (x509/write.c) that makes hs-server's
 * default certificate: the certificate parses and its self-signature
 * verifies under OpenSSL, which also accepts its host name and IP address
 * and finds that the SEC1 key written for it is its private key; our own
 * parser reads the same key and SAN back (an IPv4 host matching the
 * iPAddress entry only); validity times are encoded as
 * RFC 5280 says (UTCTime to 2049, GeneralizedTime from 2050, a leap day);
 * output is deterministic for a key; the base64 in PEM equals OpenSSL's for
 * every length 0..300; and bad specs and short buffers are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "crypto/p256.h"
#include "hs/cred.h"
#include "hs/x509_write.h"
#include "x509/x509.h"
#include "testutil.h"

static const uint8_t loopback[4] = { 127, 0, 0, 1 };
static const uint8_t loopback6[16] = { [15] = 1 };

static void fixed_key(uint8_t priv[32])
{
	for (int i = 0; i < 32; i++)
		priv[i] = (uint8_t)(i + 1);
}

static size_t make_cert(uint8_t *der, size_t cap, const struct hs_cert_spec *spec)
{
	uint8_t priv[32];
	size_t len = 0;

	fixed_key(priv);
	assert_int_equal(hs_x509_write_selfsigned_p256(der, cap, &len, spec, priv), 0);
	return len;
}

static int contains(const uint8_t *hay, size_t n, const void *needle, size_t k)
{
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return 1;
	return 0;
}

static void test_openssl_accepts(void **state)
{
	struct hs_cert_spec spec = { "localhost", loopback, 1700000000, 1900000000 };
	uint8_t der[HS_X509_WRITE_DER_MAX], priv[32], key_der[200];
	size_t len = make_cert(der, sizeof(der), &spec), key_len;
	const unsigned char *p = der, *kp = key_der;
	X509 *x;
	EVP_PKEY *pub, *key;

	(void)state;
	x = d2i_X509(NULL, &p, (long)len);
	assert_non_null(x);
	assert_ptr_equal(p, der + len);
	pub = X509_get0_pubkey(x);
	assert_non_null(pub);
	assert_int_equal(X509_verify(x, pub), 1);
	assert_int_equal(X509_get_version(x), 2);
	assert_int_equal(X509_check_host(x, "localhost", 0, 0, NULL), 1);
	assert_int_equal(X509_check_host(x, "other.test", 0, 0, NULL), 0);
	assert_int_equal(X509_check_ip_asc(x, "127.0.0.1", 0), 1);
	/* the SEC1 key we write for it is its key */
	fixed_key(priv);
	assert_int_equal(hs_p256_key_to_der(key_der, sizeof(key_der), &key_len, priv), 0);
	key = d2i_PrivateKey(EVP_PKEY_EC, NULL, &kp, (long)key_len);
	assert_non_null(key);
	assert_int_equal(X509_check_private_key(x, key), 1);
	EVP_PKEY_free(key);
	X509_free(x);
}

static void test_own_parser_reads_it(void **state)
{
	struct hs_cert_spec spec = { "host.example", NULL, 1700000000, 1700086400 };
	uint8_t der[HS_X509_WRITE_DER_MAX], priv[32], pub[65];
	size_t len = make_cert(der, sizeof(der), &spec);
	struct x509_cert cert;
	struct leaf_key k;

	(void)state;
	fixed_key(priv);
	assert_int_equal(p256_public(pub, priv), 0);
	assert_int_equal(x509_cert_parse(&cert, der, len), 0);
	assert_int_equal(x509_leaf_key(&cert, &k), 0);
	assert_int_equal(k.type, KEY_P256);
	assert_int_equal(k.pub_len, 65);
	assert_memory_equal(k.pub, pub, 65);
	assert_int_equal(x509_match_host(&cert, "host.example"), 0);
	assert_int_equal(x509_match_host(&cert, "localhost"), HS_ERR_X509_HOSTNAME);
	/* an IP address matches an iPAddress entry only, never a dNSName */
	assert_int_equal(x509_match_host(&cert, "127.0.0.1"), HS_ERR_X509_HOSTNAME);
	spec.ipv4 = loopback;
	len = make_cert(der, sizeof(der), &spec);
	assert_int_equal(x509_cert_parse(&cert, der, len), 0);
	assert_int_equal(x509_leaf_key(&cert, &k), 0);
	assert_int_equal(x509_match_host(&cert, "127.0.0.1"), 0);
	assert_int_equal(x509_match_host(&cert, "host.example"), 0);
	assert_int_equal(x509_match_host(&cert, "127.0.0.2"), HS_ERR_X509_HOSTNAME);
	assert_int_equal(x509_match_host(&cert, "127.0.0.1.5"), HS_ERR_X509_HOSTNAME);
	assert_int_equal(x509_match_host(&cert, "127.0.0"), HS_ERR_X509_HOSTNAME);
	assert_int_equal(x509_match_host(&cert, "127.0.0.256"), HS_ERR_X509_HOSTNAME);
	assert_int_equal(x509_match_host(&cert, "::1"), HS_ERR_X509_HOSTNAME);
	/* and ::1 too (hs-server's default certificate): each address matches its own entry */
	spec.ipv6 = loopback6;
	len = make_cert(der, sizeof(der), &spec);
	assert_int_equal(x509_cert_parse(&cert, der, len), 0);
	assert_int_equal(x509_match_host(&cert, "::1"), 0);
	assert_int_equal(x509_match_host(&cert, "0:0:0:0:0:0:0:1"), 0);
	assert_int_equal(x509_match_host(&cert, "127.0.0.1"), 0);
	assert_int_equal(x509_match_host(&cert, "::2"), HS_ERR_X509_HOSTNAME);
	assert_int_equal(x509_match_host(&cert, "::ffff:127.0.0.1"), HS_ERR_X509_HOSTNAME);
}

static void test_times(void **state)
{
	/* 1970-01-01, 2000-02-29 (leap day), 2049-12-31 23:59:59, 2050-01-01, 9999-12-31 */
	static const struct {
		uint64_t t;
		const char *enc;
	} v[] = {
		{ 0, "\x17\x0d" "700101000000Z" },
		{ 951782400 + 3723, "\x17\x0d" "000229010203Z" },
		{ 2524607999, "\x17\x0d" "491231235959Z" },
		{ 2524608000, "\x18\x0f" "20500101000000Z" },
		{ 253402300799, "\x18\x0f" "99991231235959Z" },
	};
	uint8_t der[HS_X509_WRITE_DER_MAX], priv[32];
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct hs_cert_spec spec = { "localhost", NULL, v[i].t, v[i].t };
		len = make_cert(der, sizeof(der), &spec);
		assert_true(contains(der, len, v[i].enc, strlen(v[i].enc)));
	}
	/* year 10000 does not fit */
	struct hs_cert_spec late = { "localhost", NULL, 0, 253402300800 };
	fixed_key(priv);
	assert_int_equal(hs_x509_write_selfsigned_p256(der, sizeof(der), &len, &late, priv),
			 HS_ERR_ARG);
}

static void test_deterministic_and_limits(void **state)
{
	struct hs_cert_spec spec = { "localhost", loopback, 1700000000, 1900000000 };
	uint8_t a[HS_X509_WRITE_DER_MAX], b[HS_X509_WRITE_DER_MAX], priv[32];
	size_t la = make_cert(a, sizeof(a), &spec), lb = make_cert(b, sizeof(b), &spec), n;
	char name[80];

	(void)state;
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	fixed_key(priv);
	/* every buffer size short of the certificate fails cleanly */
	for (size_t cap = 0; cap < la; cap += 7)
		assert_int_equal(hs_x509_write_selfsigned_p256(b, cap, &n, &spec, priv),
				 HS_ERR_NO_SPACE);
	memset(name, 'a', sizeof(name));
	name[64] = '\0'; /* 64 characters: the longest CN allowed */
	spec.dns_name = name;
	assert_int_equal(hs_x509_write_selfsigned_p256(b, sizeof(b), &n, &spec, priv), 0);
	name[64] = 'a';
	name[65] = '\0';
	assert_int_equal(hs_x509_write_selfsigned_p256(b, sizeof(b), &n, &spec, priv), HS_ERR_ARG);
	spec.dns_name = "";
	assert_int_equal(hs_x509_write_selfsigned_p256(b, sizeof(b), &n, &spec, priv), HS_ERR_ARG);
	spec.dns_name = "localhost";
	spec.not_after = spec.not_before - 1;
	assert_int_equal(hs_x509_write_selfsigned_p256(b, sizeof(b), &n, &spec, priv), HS_ERR_ARG);
	memset(priv, 0, sizeof(priv)); /* not a valid scalar */
	spec.not_after = spec.not_before;
	assert_int_equal(hs_x509_write_selfsigned_p256(b, sizeof(b), &n, &spec, priv),
			 HS_ERR_BAD_KEY);
}

/* Our PEM body, newlines removed, must be OpenSSL's base64 of the same bytes. */
static void test_pem_base64(void **state)
{
	struct test_rng rng;
	uint8_t data[300], back[300];
	char pem[600], body[600];
	unsigned char ref[420];
	size_t len, blen, back_len;

	(void)state;
	test_rng_init(&rng, 0x9e3779b97f4a7c15ull);
	for (size_t n = 0; n <= sizeof(data); n++) {
		test_rng_bytes(&rng, data, n);
		assert_int_equal(hs_pem_write(pem, sizeof(pem), &len, "CERTIFICATE", data, n), 0);
		assert_int_equal(strlen(pem), len);
		assert_true(strncmp(pem, "-----BEGIN CERTIFICATE-----\n", 28) == 0);
		assert_true(strcmp(pem + len - 26, "-----END CERTIFICATE-----\n") == 0);
		blen = 0;
		for (size_t i = 28; i < len - 26; i++) {
			if (pem[i] == '\n')
				assert_true(blen % 64 == 0 || i == len - 27);
			else
				body[blen++] = pem[i];
		}
		body[blen] = '\0';
		assert_int_equal(EVP_EncodeBlock(ref, data, (int)n), (int)blen);
		assert_string_equal(body, (char *)ref);
		if (n > 0) { /* and our PEM reader takes it back */
			assert_int_equal(hs_pem_cert_to_der(pem, len, back, sizeof(back), &back_len), 0);
			assert_int_equal(back_len, n);
			assert_memory_equal(back, data, n);
		}
	}
	assert_int_equal(hs_pem_write(pem, 60, &len, "CERTIFICATE", data, 10), HS_ERR_NO_SPACE);
}

static void test_generate_cred(void **state)
{
	struct hs_cert_spec spec = { "localhost", loopback, 1700000000, 1900000000 };
	struct hs_cred *cred = NULL, *cred2 = NULL;
	char pem[HS_X509_WRITE_PEM_MAX], pem2[HS_X509_WRITE_PEM_MAX];
	uint8_t der[HS_X509_WRITE_DER_MAX];
	size_t len, len2, der_len, leaf_len;
	const uint8_t *leaf;

	(void)state;
	assert_int_equal(hs_cred_generate_p256(&cred, &spec, pem, sizeof(pem), &len), 0);
	assert_non_null(cred);
	assert_int_equal(hs_cred_sig_scheme(cred), HS_SIG_ECDSA_SECP256R1_SHA256);
	assert_int_equal(hs_pem_cert_to_der(pem, len, der, sizeof(der), &der_len), 0);
	leaf = hs_cred_leaf(cred, &leaf_len);
	assert_int_equal(leaf_len, der_len);
	assert_memory_equal(leaf, der, der_len);
	/* a second call makes a fresh key, hence another certificate */
	assert_int_equal(hs_cred_generate_p256(&cred2, &spec, pem2, sizeof(pem2), &len2), 0);
	assert_true(len != len2 || memcmp(pem, pem2, len) != 0);
	hs_cred_free(cred2);
	hs_cred_free(cred);
	/* too small for the PEM: no credential, no leak */
	assert_int_equal(hs_cred_generate_p256(&cred, &spec, pem, 100, &len), HS_ERR_NO_SPACE);
	assert_null(cred);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openssl_accepts),
		cmocka_unit_test(test_own_parser_reads_it),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_deterministic_and_limits),
		cmocka_unit_test(test_pem_base64),
		cmocka_unit_test(test_generate_cred),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
