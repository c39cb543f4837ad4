/*
 * Proves HMAC-SHA-256/384 and HKDF-SHA-256/384 against Wycheproof
 * (testvectors_v1: hmac_sha256_test.json, hmac_sha384_test.json,
 * hkdf_sha256_test.json, hkdf_sha384_test.json). HMAC: the tag truncated
 * to the group's tagSize must match for "valid" tests and must not match
 * for "invalid" ones (modified tags). HKDF: "valid" outputs must match
 * byte for byte; "invalid" ones (output size above 255*HashLen) must be
 * refused with HS_ERR_TOO_LONG. SHA-256 runs on every backend.
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
#include "crypto/hash.h"
#include "crypto/hkdf.h"
#include "crypto/hmac.h"
#include "testutil.h"

static int is_result(const struct json *t, const char *r)
{
	const char *s = json_get_str(t, "result");
	return s != NULL && strcmp(s, r) == 0;
}

/* 1 if the test's outcome is what Wycheproof expects. */
static int hmac_one(const struct hash *h, size_t tag_len, const struct json *t)
{
	size_t key_len, msg_len, want_len;
	uint8_t *key = hex_decode(json_get_str(t, "key"), &key_len);
	uint8_t *msg = hex_decode(json_get_str(t, "msg"), &msg_len);
	uint8_t *want = hex_decode(json_get_str(t, "tag"), &want_len);
	uint8_t out[HS_HASH_MAX_LEN];
	int match, ok;

	assert_non_null(key);
	assert_non_null(msg);
	assert_non_null(want);
	hmac(h, key, key_len, msg, msg_len, out);
	match = want_len == tag_len && tag_len <= h->digest_len &&
		memcmp(out, want, tag_len) == 0;
	ok = is_result(t, "acceptable") || match == is_result(t, "valid");
	free(key);
	free(msg);
	free(want);
	return ok;
}

static void run_hmac(const char *file, const char *label, const struct hash *h)
{
	struct json *doc = wp_load(file);
	const struct json *groups;
	struct wp_count c = { label, 0, 0, 0, 0 };

	if (!doc)
		skip();
	groups = json_get(doc, "testGroups");
	assert_non_null(groups);
	for (size_t g = 0; g < groups->count; g++) {
		const struct json *grp = groups->items[g], *tests = json_get(grp, "tests");
		size_t tag_len = (size_t)json_get_num(grp, "tagSize", 0) / 8;

		for (size_t i = 0; tests && i < tests->count; i++) {
			c.ran++;
			if (hmac_one(h, tag_len, tests->items[i]))
				c.passed++;
			else {
				c.failed++;
				printf("# %s tcId %d failed\n", file,
				       (int)json_get_num(tests->items[i], "tcId", -1));
			}
		}
	}
	wp_report(&c);
	json_free(doc);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 0);
}

static int hkdf_one(const struct hash *h, const struct json *t)
{
	size_t ikm_len, salt_len, info_len, okm_len;
	uint8_t *ikm = hex_decode(json_get_str(t, "ikm"), &ikm_len);
	uint8_t *salt = hex_decode(json_get_str(t, "salt"), &salt_len);
	uint8_t *info = hex_decode(json_get_str(t, "info"), &info_len);
	uint8_t *want = hex_decode(json_get_str(t, "okm"), &okm_len);
	size_t size = (size_t)json_get_num(t, "size", 0);
	uint8_t prk[HS_HASH_MAX_LEN], *out = malloc(size + 1);
	int err, ok;

	assert_non_null(ikm);
	assert_non_null(salt);
	assert_non_null(info);
	assert_non_null(want);
	assert_non_null(out);
	hkdf_extract(h, salt, salt_len, ikm, ikm_len, prk);
	err = hkdf_expand(h, prk, h->digest_len, info, info_len, out, size);
	if (is_result(t, "valid"))
		ok = err == 0 && okm_len == size && memcmp(out, want, size) == 0;
	else
		ok = err == HS_ERR_TOO_LONG || is_result(t, "acceptable");
	free(ikm);
	free(salt);
	free(info);
	free(want);
	free(out);
	return ok;
}

static void run_hkdf(const char *file, const char *label, const struct hash *h)
{
	struct json *doc = wp_load(file);
	const struct json *groups;
	struct wp_count c = { label, 0, 0, 0, 0 };

	if (!doc)
		skip();
	groups = json_get(doc, "testGroups");
	assert_non_null(groups);
	for (size_t g = 0; g < groups->count; g++) {
		const struct json *tests = json_get(groups->items[g], "tests");

		for (size_t i = 0; tests && i < tests->count; i++) {
			c.ran++;
			if (hkdf_one(h, tests->items[i]))
				c.passed++;
			else {
				c.failed++;
				printf("# %s tcId %d failed\n", file,
				       (int)json_get_num(tests->items[i], "tcId", -1));
			}
		}
	}
	wp_report(&c);
	json_free(doc);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 0);
}

/* Runs f once per SHA-256 backend: portable, then SHA-NI if present
 * (the only other SHA-256 table), each reported under its own label. */
static void per_sha256_backend(void (*f)(const char *, const char *, const struct hash *),
			       const char *file)
{
	const struct hash *portable;
	char label[128];

	cpu_force_portable(1);
	portable = hash_sha256();
	snprintf(label, sizeof(label), "%s (portable)", file);
	f(file, label, portable);
	cpu_force_portable(0);
	if (hash_sha256() != portable) {
		snprintf(label, sizeof(label), "%s (SHA-NI)", file);
		f(file, label, hash_sha256());
	}
}

static void test_hmac_sha256(void **state)
{
	(void)state;
	per_sha256_backend(run_hmac, "hmac_sha256_test.json");
}

static void test_hmac_sha384(void **state)
{
	(void)state;
	run_hmac("hmac_sha384_test.json", "hmac_sha384_test.json", hash_sha384());
}

static void test_hkdf_sha256(void **state)
{
	(void)state;
	per_sha256_backend(run_hkdf, "hkdf_sha256_test.json");
}

static void test_hkdf_sha384(void **state)
{
	(void)state;
	run_hkdf("hkdf_sha384_test.json", "hkdf_sha384_test.json", hash_sha384());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hmac_sha256),
		cmocka_unit_test(test_hmac_sha384),
		cmocka_unit_test(test_hkdf_sha256),
		cmocka_unit_test(test_hkdf_sha384),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
