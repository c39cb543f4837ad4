/*
 * Proves SHA-256/384/512, HMAC, HKDF and HKDF-Expand-Label agree with
 * OpenSSL's libcrypto (EVP_Digest, HMAC(), EVP_KDF "HKDF" and
 * "TLS13-KDF") on thousands of seeded random inputs: messages of 0..5000
 * bytes, keys of 0..300 bytes (so longer than the block too), salts,
 * infos, contexts and output lengths up to 255*HashLen. SHA-256 runs on
 * the portable backend and on SHA-NI when the CPU has it; both must match
 * OpenSSL and so each other.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "crypto/cpu.h"
#include "crypto/hash.h"
#include "crypto/hkdf.h"
#include "crypto/hmac.h"
#include "testutil.h"

#define MAX_MSG 5000

struct peer {
	const struct hash *h;
	const EVP_MD *md;
	const char *md_name;
};

/* Every (our table, OpenSSL digest) pair: SHA-256 once per backend. */
static size_t peers(struct peer p[4])
{
	size_t n = 0;

	cpu_force_portable(1);
	p[n++] = (struct peer){ hash_sha256(), EVP_sha256(), "SHA256" };
	cpu_force_portable(0);
	if (hash_sha256() != p[0].h)
		p[n++] = (struct peer){ hash_sha256(), EVP_sha256(), "SHA256" };
	p[n++] = (struct peer){ hash_sha384(), EVP_sha384(), "SHA384" };
	p[n++] = (struct peer){ hash_sha512(), EVP_sha512(), "SHA512" };
	return n;
}

/* Mostly short lengths (where the padding cases are), sometimes long. */
static size_t rand_len(struct test_rng *r, size_t max)
{
	return test_rng_below(r, 4) == 0 ? test_rng_below(r, max + 1) : test_rng_below(r, 300);
}

static void test_digest(void **state)
{
	(void)state;
	struct peer p[4];
	size_t np = peers(p);
	struct test_rng rng;
	uint8_t *msg = malloc(MAX_MSG), a[64], b[64];

	assert_non_null(msg);
	test_rng_init(&rng, 0xd16e57);
	for (int it = 0; it < 3000; it++) {
		size_t len = rand_len(&rng, MAX_MSG);
		unsigned int blen = 0;

		test_rng_bytes(&rng, msg, len);
		for (size_t i = 0; i < np; i++) {
			hash_digest(p[i].h, msg, len, a);
			assert_int_equal(EVP_Digest(msg, len, b, &blen, p[i].md, NULL), 1);
			assert_int_equal(blen, p[i].h->digest_len);
			assert_memory_equal(a, b, blen);
		}
	}
	free(msg);
}

static void test_hmac(void **state)
{
	(void)state;
	struct peer p[4];
	size_t np = peers(p);
	struct test_rng rng;
	uint8_t *msg = malloc(MAX_MSG), key[300], a[64], b[64];

	assert_non_null(msg);
	test_rng_init(&rng, 0x4d4ac);
	for (int it = 0; it < 2000; it++) {
		size_t len = rand_len(&rng, MAX_MSG), key_len = test_rng_below(&rng, sizeof(key) + 1);
		unsigned int blen = 0;

		test_rng_bytes(&rng, msg, len);
		test_rng_bytes(&rng, key, key_len);
		for (size_t i = 0; i < np; i++) {
			hmac(p[i].h, key, key_len, msg, len, a);
			assert_non_null(HMAC(p[i].md, key, (int)key_len, msg, len, b, &blen));
			assert_int_equal(blen, p[i].h->digest_len);
			assert_memory_equal(a, b, blen);
		}
	}
	free(msg);
}

/* OpenSSL's HKDF (extract then expand) into out. */
static void openssl_hkdf(const char *md, const uint8_t *ikm, size_t ikm_len,
			 const uint8_t *salt, size_t salt_len, const uint8_t *info,
			 size_t info_len, uint8_t *out, size_t out_len)
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
	OSSL_PARAM params[5], *q = params;

	assert_non_null(ctx);
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)md, 0);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_len);
	if (salt_len > 0) /* absent salt = HashLen zeros, as RFC 5869 says */
		*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt,
							 salt_len);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len);
	*q = OSSL_PARAM_construct_end();
	assert_int_equal(EVP_KDF_derive(ctx, out, out_len, params), 1);
	EVP_KDF_CTX_free(ctx);
	EVP_KDF_free(kdf);
}

static void test_hkdf(void **state)
{
	(void)state;
	struct peer p[4];
	size_t np = peers(p);
	struct test_rng rng;
	uint8_t ikm[200], salt[200], info[200], prk[64];
	uint8_t *a = malloc(255 * 64), *b = malloc(255 * 64);

	assert_non_null(a);
	assert_non_null(b);
	test_rng_init(&rng, 0x4bdf);
	for (int it = 0; it < 300; it++) {
		size_t ikm_len = 1 + test_rng_below(&rng, sizeof(ikm));
		size_t salt_len = test_rng_below(&rng, sizeof(salt) + 1);
		size_t info_len = test_rng_below(&rng, sizeof(info) + 1);

		test_rng_bytes(&rng, ikm, ikm_len);
		test_rng_bytes(&rng, salt, salt_len);
		test_rng_bytes(&rng, info, info_len);
		for (size_t i = 0; i < np; i++) {
			size_t hl = p[i].h->digest_len;
			size_t out_len = 1 + (test_rng_below(&rng, 8) == 0
						      ? test_rng_below(&rng, 255 * hl)
						      : test_rng_below(&rng, 4 * hl));

			hkdf_extract(p[i].h, salt, salt_len, ikm, ikm_len, prk);
			assert_int_equal(hkdf_expand(p[i].h, prk, hl, info, info_len, a, out_len),
					 0);
			openssl_hkdf(p[i].md_name, ikm, ikm_len, salt, salt_len, info, info_len, b,
				     out_len);
			assert_memory_equal(a, b, out_len);
		}
	}
	free(a);
	free(b);
}

/* OpenSSL's TLS 1.3 HKDF-Expand-Label (EVP_KDF "TLS13-KDF", expand only). */
static void openssl_expand_label(const char *md, const uint8_t *secret, size_t secret_len,
				 const char *label, const uint8_t *ctx_bytes, size_t ctx_len,
				 uint8_t *out, size_t out_len)
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "TLS13-KDF", NULL);
	EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
	int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
	OSSL_PARAM params[7], *q = params;

	assert_non_null(ctx);
	*q++ = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)md, 0);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, secret_len);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PREFIX, "tls13 ", 6);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_LABEL, (void *)label,
						 strlen(label));
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_DATA, (void *)ctx_bytes, ctx_len);
	*q = OSSL_PARAM_construct_end();
	assert_int_equal(EVP_KDF_derive(ctx, out, out_len, params), 1);
	EVP_KDF_CTX_free(ctx);
	EVP_KDF_free(kdf);
}

static void test_expand_label(void **state)
{
	(void)state;
	static const char *labels[] = { "key", "iv", "finished", "c hs traffic", "s ap traffic",
					"derived", "traffic upd", "exp master", "" };
	struct peer p[4];
	size_t np = peers(p);
	struct test_rng rng;
	uint8_t secret[64], ctx[255], a[512], b[512];

	test_rng_init(&rng, 0x7135);
	for (int it = 0; it < 1000; it++) {
		const char *label = labels[test_rng_below(&rng, sizeof(labels) / sizeof(*labels))];
		size_t ctx_len = test_rng_below(&rng, 4) == 0 ? 0 : test_rng_below(&rng, 256);
		size_t out_len = 1 + test_rng_below(&rng, sizeof(a));

		test_rng_bytes(&rng, ctx, ctx_len);
		for (size_t i = 0; i < np; i++) {
			size_t hl = p[i].h->digest_len;

			test_rng_bytes(&rng, secret, hl);
			assert_int_equal(hkdf_expand_label(p[i].h, secret, label, ctx, ctx_len, a,
							      out_len),
					 0);
			openssl_expand_label(p[i].md_name, secret, hl, label, ctx, ctx_len, b,
					     out_len);
			assert_memory_equal(a, b, out_len);
		}
	}
}

/* The streaming sha256_* API (which picks its backend per call) agrees
 * with OpenSSL whichever backend is forced, chunked at random. */
static void test_public_api_streaming(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t *msg = malloc(MAX_MSG), a[64], b[64];

	assert_non_null(msg);
	test_rng_init(&rng, 0x57ea);
	for (int it = 0; it < 600; it++) {
		size_t len = rand_len(&rng, MAX_MSG), off = 0;
		struct sha256 c;
		unsigned int blen = 0;

		cpu_force_portable((int)(it & 1));
		test_rng_bytes(&rng, msg, len);
		sha256_init(&c);
		while (off < len) {
			size_t n = 1 + test_rng_below(&rng, 200);
			n = n > len - off ? len - off : n;
			sha256_update(&c, msg + off, n);
			off += n;
		}
		sha256_final(&c, a);
		assert_int_equal(EVP_Digest(msg, len, b, &blen, EVP_sha256(), NULL), 1);
		assert_memory_equal(a, b, 32);
	}
	cpu_force_portable(0);
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_hmac),
		cmocka_unit_test(test_hkdf),
		cmocka_unit_test(test_expand_label),
		cmocka_unit_test(test_public_api_streaming),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
