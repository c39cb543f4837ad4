/*
 * Proves RSA signature verification against Wycheproof, every vector:
 * - rsa_pss_2048_sha256_mgf1_32_test.json: RSASSA-PSS (MGF1-SHA-256, salt
 *   32), through rsa_pss_verify with the group's salt length and also
 *   through the sig_rsa_pss_rsae_sha256 table (DER RSAPublicKey), which
 *   must agree with it on every vector;
 * - rsa_signature_2048_sha256_test.json: RSASSA-PKCS1-v1_5 with SHA-256,
 *   including e = 3 keys; the strict DigestInfo comparison must reject
 *   every BER, missing-NULL or padding variant.
 * "valid" must pass, "invalid" must fail, "acceptable" may go either way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/hash.h"
#include "crypto/rsa.h"
#include "testutil.h"

static int expect_valid(const struct json *t, int *acceptable)
{
	const char *r = json_get_str(t, "result");

	assert_non_null(r);
	*acceptable = strcmp(r, "acceptable") == 0;
	if (!*acceptable && strcmp(r, "invalid") != 0)
		assert_string_equal(r, "valid");
	return strcmp(r, "valid") == 0;
}

static void record(struct wp_count *c, const struct json *t, int ok)
{
	int acceptable, valid = expect_valid(t, &acceptable);

	c->ran++;
	if (acceptable || ok == valid) {
		c->passed++;
		return;
	}
	c->failed++;
	printf("wycheproof: %s: tcId %d (%s) FAILED: ok=%d\n", c->file,
	       (int)json_get_num(t, "tcId", -1), json_get_str(t, "comment"), ok);
}

static const struct hash *hash_named(const char *name)
{
	assert_non_null(name);
	if (strcmp(name, "SHA-256") == 0)
		return hash_sha256();
	if (strcmp(name, "SHA-384") == 0)
		return hash_sha384();
	if (strcmp(name, "SHA-512") == 0)
		return hash_sha512();
	fail_msg("unexpected hash %s", name);
	return NULL;
}

/* The group's RSAPublicKey, into k; its DER into *der (free it). */
static void group_key(const struct json *g, struct rsa_public *k, uint8_t **der,
		      size_t *der_len)
{
	*der = hex_decode(json_get_str(g, "publicKeyAsn"), der_len);
	assert_non_null(*der);
	assert_int_equal(rsa_public_from_der(k, *der, *der_len), 0);
}

static void run_file(const char *file, int pss)
{
	struct wp_count c = { file, 0, 0, 0, 0 };
	struct json *j = wp_load(file);

	if (!j)
		skip();
	const struct json *groups = json_get(j, "testGroups");
	for (size_t g = 0; g < groups->count; g++) {
		const struct json *grp = groups->items[g], *tests = json_get(grp, "tests");
		const struct hash *h = hash_named(json_get_str(grp, "sha"));
		struct rsa_public k;
		size_t der_len, salt = 0;
		uint8_t *der;

		group_key(grp, &k, &der, &der_len);
		if (pss) {
			assert_string_equal(json_get_str(grp, "mgf"), "MGF1");
			assert_ptr_equal(hash_named(json_get_str(grp, "mgfSha")), h);
			salt = (size_t)json_get_num(grp, "sLen", -1);
		}
		for (size_t i = 0; i < tests->count; i++) {
			const struct json *t = tests->items[i];
			size_t msg_len, sig_len;
			uint8_t *msg = hex_decode(json_get_str(t, "msg"), &msg_len);
			uint8_t *sig = hex_decode(json_get_str(t, "sig"), &sig_len);
			uint8_t d[HS_HASH_MAX_LEN];
			int ok;

			assert_non_null(msg);
			assert_non_null(sig);
			hash_digest(h, msg, msg_len, d);
			if (pss) {
				ok = rsa_pss_verify(&k, h, salt, d, sig, sig_len, 0) == 0;
				if (salt == h->digest_len && h->digest_len == 32)
					assert_int_equal(ok, sig_rsa_pss_rsae_sha256.verify(
								     der, der_len, msg, msg_len,
								     sig, sig_len) == 0);
			} else {
				ok = rsa_pkcs1_verify(&k, h, d, sig, sig_len, 0) == 0;
			}
			record(&c, t, ok);
			free(msg);
			free(sig);
		}
		free(der);
	}
	wp_report(&c);
	json_free(j);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 100);
}

static void test_pss(void **state)
{
	(void)state;
	run_file("rsa_pss_2048_sha256_mgf1_32_test.json", 1);
}

static void test_pkcs1(void **state)
{
	(void)state;
	run_file("rsa_signature_2048_sha256_test.json", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pss),
		cmocka_unit_test(test_pkcs1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
