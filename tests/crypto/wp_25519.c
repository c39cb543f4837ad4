/*
 * Proves X25519 and Ed25519 against Wycheproof (testvectors_v1):
 * - x25519_test.json through the kx_x25519 table: every vector flagged
 *   ZeroSharedSecret must give HS_ERR_ZERO_SHARED; every other valid or
 *   acceptable vector (twist points, non-canonical u, edge scalars) must
 *   succeed with exactly the listed shared secret; an invalid one must fail.
 * - ed25519_test.json through the sig_ed25519 table: every valid
 *   signature verifies and every invalid one is rejected (wrong lengths,
 *   S >= L, non-canonical R, malleated and unrelated signatures).
 * Any failure fails the test; the counts are printed per file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/cpu.h"
#include "crypto/kx.h"
#include "crypto/sig.h"
#include "testutil.h"

/* One X25519 vector: 1 if we behaved as required. */
static int x25519_case(const struct json *t)
{
	const char *result = json_get_str(t, "result");
	size_t priv_len, pub_len, shared_len;
	uint8_t *priv = hex_decode(json_get_str(t, "private"), &priv_len);
	uint8_t *pub = hex_decode(json_get_str(t, "public"), &pub_len);
	uint8_t *shared = hex_decode(json_get_str(t, "shared"), &shared_len);
	uint8_t out[32];
	int ok, err;

	assert_non_null(priv);
	assert_non_null(pub);
	assert_non_null(shared);
	assert_int_equal(priv_len, 32);
	err = kx_x25519.shared(out, priv, pub, pub_len);
	if (wp_has_flag(t, "ZeroSharedSecret"))
		ok = err == HS_ERR_ZERO_SHARED;
	else if (strcmp(result, "invalid") == 0)
		ok = err != 0;
	else /* valid or acceptable: the value must be right */
		ok = err == 0 && shared_len == 32 && memcmp(out, shared, 32) == 0;
	if (!ok)
		printf("x25519 tcId %d (%s): got %d\n", (int)json_get_num(t, "tcId", -1), result,
		       err);
	free(priv);
	free(pub);
	free(shared);
	return ok;
}

static void test_wycheproof_x25519(void **state)
{
	(void)state;
	struct wp_count c = { .file = "x25519_test.json" };
	struct json *j = wp_load(c.file);
	const struct json *groups;

	if (!j)
		skip();
	groups = json_get(j, "testGroups");
	assert_non_null(groups);
	for (size_t g = 0; g < groups->count; g++) {
		const struct json *tests = json_get(groups->items[g], "tests");
		const char *curve = json_get_str(groups->items[g], "curve");

		assert_non_null(tests);
		for (size_t i = 0; i < tests->count; i++) {
			if (!curve || strcmp(curve, "curve25519") != 0) {
				c.skipped++;
				continue;
			}
			c.ran++;
			if (x25519_case(tests->items[i]))
				c.passed++;
			else
				c.failed++;
		}
	}
	wp_report(&c);
	json_free(j);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 500);
}

/* One Ed25519 vector under the group's public key: 1 if our verdict is right. */
static int ed25519_case(const uint8_t *pub, size_t pub_len, const struct json *t)
{
	const char *result = json_get_str(t, "result");
	size_t msg_len, sig_len;
	uint8_t *msg = hex_decode(json_get_str(t, "msg"), &msg_len);
	uint8_t *sig = hex_decode(json_get_str(t, "sig"), &sig_len);
	int err, ok;

	assert_non_null(msg);
	assert_non_null(sig);
	err = sig_ed25519.verify(pub, pub_len, msg, msg_len, sig, sig_len);
	if (strcmp(result, "valid") == 0)
		ok = err == 0;
	else if (strcmp(result, "invalid") == 0)
		ok = err != 0;
	else /* acceptable: either verdict */
		ok = 1;
	if (!ok)
		printf("ed25519 tcId %d (%s): got %d\n", (int)json_get_num(t, "tcId", -1), result,
		       err);
	free(msg);
	free(sig);
	return ok;
}

static void test_wycheproof_ed25519(void **state)
{
	(void)state;
	struct wp_count c = { .file = "ed25519_test.json" };
	struct json *j = wp_load(c.file);
	const struct json *groups;

	if (!j)
		skip();
	groups = json_get(j, "testGroups");
	assert_non_null(groups);
	for (size_t g = 0; g < groups->count; g++) {
		const struct json *key = json_get(groups->items[g], "publicKey");
		const struct json *tests = json_get(groups->items[g], "tests");
		size_t pub_len;
		uint8_t *pub;

		assert_non_null(key);
		assert_non_null(tests);
		pub = hex_decode(json_get_str(key, "pk"), &pub_len);
		assert_non_null(pub);
		/* twice: the dispatched backend (IFMA verify where the CPU has it), then portable */
		for (int portable = 0; portable < 2; portable++) {
			cpu_force_portable(portable);
			for (size_t i = 0; i < tests->count; i++) {
				c.ran++;
				if (ed25519_case(pub, pub_len, tests->items[i]))
					c.passed++;
				else
					c.failed++;
			}
		}
		cpu_force_portable(0);
		free(pub);
	}
	wp_report(&c);
	json_free(j);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wycheproof_x25519),
		cmocka_unit_test(test_wycheproof_ed25519),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
