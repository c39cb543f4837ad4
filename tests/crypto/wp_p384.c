/*
 * Proves P-384 ECDSA verification against Wycheproof, every vector:
 * - ecdsa_secp384r1_sha384_test.json: DER signatures through the
 *   sig_ecdsa_p384_sha384 table (BER, wrong types, extra zeros and
 *   every other bad encoding must fail; so must r, s out of range and
 *   the arithmetic edge cases);
 * - ecdsa_secp384r1_sha384_p1363_test.json: raw r || s (96 bytes only)
 *   through ecdsa_p384_verify.
 * Every group's public key must also pass p384_check_public.
 * "valid" must pass, "invalid" must fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/p384.h"
#include "crypto/sha2.h"
#include "testutil.h"

static void record(struct wp_count *c, const struct json *t, int ok)
{
	const char *r = json_get_str(t, "result");
	int pass;

	assert_non_null(r);
	c->ran++;
	if (strcmp(r, "valid") == 0)
		pass = ok;
	else if (strcmp(r, "invalid") == 0)
		pass = !ok;
	else
		pass = 1; /* acceptable */
	if (pass) {
		c->passed++;
		return;
	}
	c->failed++;
	printf("wycheproof: %s: tcId %d (%s) FAILED: ok=%d\n", c->file,
	       (int)json_get_num(t, "tcId", -1), json_get_str(t, "comment"), ok);
}

static void ecdsa_file(const char *file, int p1363)
{
	struct wp_count c = { file, 0, 0, 0, 0 };
	struct json *j = wp_load(file);

	if (!j)
		skip();
	const struct json *groups = json_get(j, "testGroups");
	for (size_t g = 0; g < groups->count; g++) {
		const struct json *tests = json_get(groups->items[g], "tests");
		const struct json *pk = json_get(groups->items[g], "publicKey");
		uint8_t pub[97];

		assert_string_equal(json_get_str(groups->items[g], "sha"), "SHA-384");
		assert_non_null(pk);
		assert_int_equal(hex_decode_to(json_get_str(pk, "uncompressed"), pub, 97), 0);
		assert_int_equal(p384_check_public(pub, sizeof(pub)), 0);
		for (size_t i = 0; i < tests->count; i++) {
			const struct json *t = tests->items[i];
			size_t msg_len, sig_len;
			uint8_t *msg = hex_decode(json_get_str(t, "msg"), &msg_len);
			uint8_t *sig = hex_decode(json_get_str(t, "sig"), &sig_len);
			uint8_t h[48];
			int ok;

			assert_non_null(msg);
			assert_non_null(sig);
			if (p1363) {
				sha384(msg, msg_len, h);
				ok = sig_len == 96 &&
				     ecdsa_p384_verify(pub, sizeof(pub), h, 48, sig) == 0;
			} else {
				ok = sig_ecdsa_p384_sha384.verify(pub, sizeof(pub), msg, msg_len,
								     sig, sig_len) == 0;
			}
			record(&c, t, ok);
			free(msg);
			free(sig);
		}
	}
	wp_report(&c);
	json_free(j);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 200);
}

static void test_ecdsa_der(void **state)
{
	(void)state;
	ecdsa_file("ecdsa_secp384r1_sha384_test.json", 0);
}

static void test_ecdsa_p1363(void **state)
{
	(void)state;
	ecdsa_file("ecdsa_secp384r1_sha384_p1363_test.json", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ecdsa_der),
		cmocka_unit_test(test_ecdsa_p1363),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
