/*
 * Proves every ChaCha20-Poly1305 backend agrees with OpenSSL's
 * EVP_chacha20_poly1305 on thousands of random keys, nonces, ADs (0..600
 * bytes) and plaintexts (0..8 KiB): identical ciphertext and tag, hs opens
 * OpenSSL's output, OpenSSL opens hs's output, and both reject the same
 * output with one byte changed. Also every Poly1305 block backend against
 * OpenSSL's EVP_MAC "POLY1305" on random keys and messages (0..8 KiB).
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

#include <openssl/evp.h>

#include "crypto/aead.h"
#include "crypto/cpu.h"
#include "crypto/poly1305.h"
#include "testutil.h"

enum { MAX_PT = 8192, MAX_AD = 600, ITERS = 2000 };

/* OpenSSL seal: ct || tag into out. */
static void ossl_seal(const uint8_t *key, const uint8_t *nonce, const uint8_t *ad, size_t ad_len,
		      const uint8_t *pt, size_t len, uint8_t *out)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n = 0, total = 0;

	assert_non_null(c);
	assert_int_equal(EVP_EncryptInit_ex(c, EVP_chacha20_poly1305(), NULL, key, nonce), 1);
	if (ad_len > 0)
		assert_int_equal(EVP_EncryptUpdate(c, NULL, &n, ad, (int)ad_len), 1);
	if (len > 0) {
		assert_int_equal(EVP_EncryptUpdate(c, out, &n, pt, (int)len), 1);
		total = n;
	}
	assert_int_equal(EVP_EncryptFinal_ex(c, out + total, &n), 1);
	total += n;
	assert_int_equal(total, (int)len);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, out + len), 1);
	EVP_CIPHER_CTX_free(c);
}

/* OpenSSL open of ct || tag (len includes the tag): 1 if authentic. */
static int ossl_open(const uint8_t *key, const uint8_t *nonce, const uint8_t *ad, size_t ad_len,
		     const uint8_t *in, size_t len, uint8_t *out)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	size_t ct_len = len - 16;
	int n = 0, ok;

	assert_non_null(c);
	assert_int_equal(EVP_DecryptInit_ex(c, EVP_chacha20_poly1305(), NULL, key, nonce), 1);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, 16, (void *)(in + ct_len)),
			 1);
	if (ad_len > 0)
		assert_int_equal(EVP_DecryptUpdate(c, NULL, &n, ad, (int)ad_len), 1);
	if (ct_len > 0)
		assert_int_equal(EVP_DecryptUpdate(c, out, &n, in, (int)ct_len), 1);
	ok = EVP_DecryptFinal_ex(c, out + (ct_len > 0 ? (size_t)n : 0), &n) > 0;
	EVP_CIPHER_CTX_free(c);
	return ok;
}

static void diff_backend(const struct aead *a, struct test_rng *rng)
{
	uint8_t *pt = malloc(MAX_PT), *want = malloc(MAX_PT + 16), *got = malloc(MAX_PT + 16);
	uint8_t *back = malloc(MAX_PT + 1), *ad = malloc(MAX_AD);
	uint8_t key[32], nonce[12];
	struct aead_ctx ctx;
	size_t total = 0;

	assert_true(pt && want && got && back && ad);
	for (int i = 0; i < ITERS; i++) {
		/* mostly record-sized inputs, every third one up to 8 KiB */
		size_t len = test_rng_below(rng, i % 3 == 0 ? MAX_PT + 1 : 600);
		size_t ad_len = test_rng_below(rng, i % 5 == 0 ? MAX_AD + 1 : 24);
		size_t flip;

		test_rng_bytes(rng, key, sizeof(key));
		test_rng_bytes(rng, nonce, sizeof(nonce));
		test_rng_bytes(rng, ad, ad_len);
		test_rng_bytes(rng, pt, len);
		total += len;

		ossl_seal(key, nonce, ad, ad_len, pt, len, want);
		assert_int_equal(a->init(&ctx, key), 0);
		a->seal(&ctx, nonce, ad, ad_len, pt, len, got);
		assert_memory_equal(got, want, len + 16);

		/* hs opens OpenSSL's output; OpenSSL opens hs's */
		assert_int_equal(a->open(&ctx, nonce, ad, ad_len, want, len + 16, back), 0);
		assert_memory_equal(back, pt, len);
		assert_true(ossl_open(key, nonce, ad, ad_len, got, len + 16, back));
		assert_memory_equal(back, pt, len);

		/* one changed byte: both reject */
		flip = test_rng_below(rng, len + 16);
		want[flip] ^= (uint8_t)(1 + test_rng_below(rng, 255));
		assert_int_equal(a->open(&ctx, nonce, ad, ad_len, want, len + 16, back),
				 HS_ERR_BAD_TAG);
		assert_false(ossl_open(key, nonce, ad, ad_len, want, len + 16, back));
		a->wipe(&ctx);
	}
	printf("# %s: %d messages, %zu bytes, identical to OpenSSL\n", a->name, ITERS, total);
	free(pt);
	free(want);
	free(got);
	free(back);
	free(ad);
}

static void test_diff(void **state)
{
	(void)state;
	const struct aead *backends[] = {
		aead_chacha20poly1305_portable(),
		aead_chacha20poly1305_avx2(),
		aead_chacha20poly1305_avx512(),
		aead_chacha20poly1305_avx512ifma(),
	};
	const char *names[] = { "portable", "AVX2", "AVX-512", "AVX-512 IFMA" };
	struct test_rng rng;

	test_rng_init(&rng, 0xd1ffc4ac);
	for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		if (backends[b] == NULL) {
			printf("# %s: SKIPPED (CPU lacks it)\n", names[b]);
			continue;
		}
		diff_backend(backends[b], &rng);
	}
}

static void ossl_poly1305(EVP_MAC *mac, const uint8_t key[32], const uint8_t *m, size_t len,
			  uint8_t tag[16])
{
	EVP_MAC_CTX *c = EVP_MAC_CTX_new(mac);
	size_t n = 0;

	assert_non_null(c);
	assert_int_equal(EVP_MAC_init(c, key, 32, NULL), 1);
	assert_int_equal(EVP_MAC_update(c, m, len), 1);
	assert_int_equal(EVP_MAC_final(c, tag, &n, 16), 1);
	assert_int_equal(n, 16);
	EVP_MAC_CTX_free(c);
}

static void test_diff_poly1305(void **state)
{
	(void)state;
	struct {
		const char *name;
		poly1305_blocks_fn *fn;
		uint32_t needs;
	} backends[] = {
		{ "portable", poly1305_blocks_portable, 0 },
#if defined(__x86_64__)
		{ "AVX2", poly1305_blocks_avx2, HS_CPU_AVX2 },
		{ "AVX-512", poly1305_blocks_avx512, HS_CPU_AVX512F | HS_CPU_AVX2 },
		{ "AVX-512 IFMA", poly1305_blocks_avx512ifma,
		  HS_CPU_AVX512F | HS_CPU_AVX512IFMA | HS_CPU_AVX2 },
#endif
	};
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	uint8_t *m = malloc(MAX_PT), key[32], want[16], got[16];
	struct test_rng rng;
	struct poly1305 st;

	if (mac == NULL) {
		printf("# OpenSSL has no POLY1305 EVP_MAC\n");
		free(m);
		skip();
		return;
	}
	assert_non_null(m);
	test_rng_init(&rng, 0x9017d1ff);
	for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		if (backends[b].needs != 0 && !cpu_has(backends[b].needs)) {
			printf("# Poly1305 %s: SKIPPED (CPU lacks it)\n", backends[b].name);
			continue;
		}
		for (int i = 0; i < ITERS; i++) {
			size_t len = test_rng_below(&rng, i % 2 == 0 ? MAX_PT + 1 : 1100);

			test_rng_bytes(&rng, key, sizeof(key));
			test_rng_bytes(&rng, m, len);
			ossl_poly1305(mac, key, m, len, want);
			poly1305_init_with(&st, key, backends[b].fn);
			poly1305_update(&st, m, len);
			poly1305_final(&st, got);
			assert_memory_equal(got, want, 16);
		}
		printf("# Poly1305 %s: %d messages identical to OpenSSL\n", backends[b].name,
		       ITERS);
	}
	EVP_MAC_free(mac);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_diff_poly1305),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
