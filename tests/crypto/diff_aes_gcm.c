/*
 * Proves every AES-GCM backend this CPU has agrees with OpenSSL's
 * EVP_aes_128_gcm / EVP_aes_256_gcm on thousands of random cases (seeded:
 * set HS_TEST_SEED to vary): random keys and nonces, AD of 0..300 bytes,
 * messages of 0..16 KiB + 256 (every length 0..199 first, then random), sealed
 * by both sides to the same bytes; OpenSSL's output opens with hs, and a
 * flipped bit makes both reject it.
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
#include "testutil.h"

#define MAX_MSG 16640
#define MAX_AD 300

struct diff_bufs {
	uint8_t key[32], nonce[12], ad[MAX_AD];
	uint8_t pt[MAX_MSG], ours[MAX_MSG + 16], theirs[MAX_MSG + 16], back[MAX_MSG + 16];
};

static const EVP_CIPHER *evp_for(size_t key_len)
{
	return key_len == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
}

/* OpenSSL seal: out = ct || tag. */
static void ossl_seal(EVP_CIPHER_CTX *x, size_t key_len, const struct diff_bufs *b, size_t alen,
		      size_t len, uint8_t *out)
{
	int n = 0;

	assert_int_equal(EVP_EncryptInit_ex(x, evp_for(key_len), NULL, b->key, b->nonce), 1);
	if (alen > 0)
		assert_int_equal(EVP_EncryptUpdate(x, NULL, &n, b->ad, (int)alen), 1);
	if (len > 0)
		assert_int_equal(EVP_EncryptUpdate(x, out, &n, b->pt, (int)len), 1);
	assert_int_equal(EVP_EncryptFinal_ex(x, out + len, &n), 1);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, 16, out + len), 1);
}

/* OpenSSL open of ct || tag: 1 if the tag verifies. */
static int ossl_open(EVP_CIPHER_CTX *x, size_t key_len, const struct diff_bufs *b, size_t alen,
		     const uint8_t *in, size_t len, uint8_t *out)
{
	int n = 0;
	uint8_t tag[16];

	memcpy(tag, in + len, 16);
	assert_int_equal(EVP_DecryptInit_ex(x, evp_for(key_len), NULL, b->key, b->nonce), 1);
	if (alen > 0)
		assert_int_equal(EVP_DecryptUpdate(x, NULL, &n, b->ad, (int)alen), 1);
	if (len > 0)
		assert_int_equal(EVP_DecryptUpdate(x, out, &n, in, (int)len), 1);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_TAG, 16, tag), 1);
	return EVP_DecryptFinal_ex(x, out + len, &n) == 1;
}

static void diff_one(const struct aead *a, EVP_CIPHER_CTX *x, struct test_rng *rng,
		     struct diff_bufs *b, size_t len, size_t alen)
{
	struct aead_ctx ctx;

	test_rng_bytes(rng, b->key, sizeof(b->key));
	test_rng_bytes(rng, b->nonce, sizeof(b->nonce));
	test_rng_bytes(rng, b->ad, alen);
	test_rng_bytes(rng, b->pt, len);
	assert_int_equal(a->init(&ctx, b->key), 0);

	a->seal(&ctx, b->nonce, b->ad, alen, b->pt, len, b->ours);
	ossl_seal(x, a->key_len, b, alen, len, b->theirs);
	assert_memory_equal(b->ours, b->theirs, len + 16);
	/* OpenSSL's output opens with hs */
	assert_int_equal(a->open(&ctx, b->nonce, b->ad, alen, b->theirs, len + 16, b->back), 0);
	assert_memory_equal(b->back, b->pt, len);
	/* one flipped bit: both sides reject */
	b->theirs[test_rng_below(rng, len + 16)] ^= (uint8_t)(1u << test_rng_below(rng, 8));
	assert_int_equal(a->open(&ctx, b->nonce, b->ad, alen, b->theirs, len + 16, b->back),
			 HS_ERR_BAD_TAG);
	assert_int_equal(ossl_open(x, a->key_len, b, alen, b->theirs, len, b->back), 0);
	a->wipe(&ctx);
}

static void diff_backend(const struct aead *a, unsigned cases)
{
	struct test_rng rng;
	struct diff_bufs *b = malloc(sizeof(*b));
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();

	assert_non_null(b);
	assert_non_null(x);
	test_rng_init(&rng, 0xd1ffae5u + a->key_len);
	for (unsigned i = 0; i < cases; i++) {
		size_t len = i < 200 ? i : test_rng_below(&rng, MAX_MSG + 1);
		size_t alen = test_rng_below(&rng, 4) == 0 ? 0 : test_rng_below(&rng, MAX_AD + 1);
		diff_one(a, x, &rng, b, len, alen);
	}
	printf("# %s: %u cases identical to OpenSSL\n", a->name, cases);
	EVP_CIPHER_CTX_free(x);
	free(b);
}

static void test_diff_portable(void **state)
{
	(void)state;
	diff_backend(aead_aes128gcm_portable(), 1000);
	diff_backend(aead_aes256gcm_portable(), 1000);
}

static void test_diff_aesni(void **state)
{
	(void)state;
	if (aead_aes128gcm_aesni() == NULL)
		skip();
	diff_backend(aead_aes128gcm_aesni(), 3000);
	diff_backend(aead_aes256gcm_aesni(), 3000);
}

static void test_diff_vaes(void **state)
{
	(void)state;
	if (aead_aes128gcm_vaes512() == NULL)
		skip();
	diff_backend(aead_aes128gcm_vaes512(), 3000);
	diff_backend(aead_aes256gcm_vaes512(), 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_portable),
		cmocka_unit_test(test_diff_aesni),
		cmocka_unit_test(test_diff_vaes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
