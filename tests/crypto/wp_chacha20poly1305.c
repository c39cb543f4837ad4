/*
 * Proves every ChaCha20-Poly1305 backend passes all of Wycheproof's
 * chacha20_poly1305_test.json: each valid vector seals to exactly ct || tag
 * and opens back to msg (out of place and in place); each invalid vector
 * is rejected with HS_ERR_BAD_TAG and leaves only zeros in out. Groups
 * with ivSize != 96, keySize != 256 or tagSize != 128 cannot be expressed
 * through the aead API (fixed 12-byte nonce, 32-byte key, 16-byte tag)
 * and are counted as not applicable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/aead.h"
#include "testutil.h"

static const char FILE_NAME[] = "chacha20_poly1305_test.json";

struct vec {
	uint8_t *key, *iv, *aad, *msg, *ct, *tag;
	size_t key_len, iv_len, aad_len, msg_len, ct_len, tag_len;
};

static uint8_t *field(const struct json *t, const char *name, size_t *len)
{
	const char *h = json_get_str(t, name);
	return h ? hex_decode(h, len) : NULL;
}

static int vec_load(const struct json *t, struct vec *v)
{
	v->key = field(t, "key", &v->key_len);
	v->iv = field(t, "iv", &v->iv_len);
	v->aad = field(t, "aad", &v->aad_len);
	v->msg = field(t, "msg", &v->msg_len);
	v->ct = field(t, "ct", &v->ct_len);
	v->tag = field(t, "tag", &v->tag_len);
	return v->key && v->iv && v->aad && v->msg && v->ct && v->tag ? 0 : -1;
}

static void vec_free(struct vec *v)
{
	free(v->key);
	free(v->iv);
	free(v->aad);
	free(v->msg);
	free(v->ct);
	free(v->tag);
}

/* 1 if backend a handles vector v as Wycheproof expects. */
static int check_one(const struct aead *a, const struct vec *v, int valid, long tc_id)
{
	struct aead_ctx ctx;
	size_t n = v->ct_len + v->tag_len;
	uint8_t *in = malloc(n + 1), *out = malloc(n + 1);
	int ok = 1, r;

	if (!in || !out || v->key_len != 32 || v->iv_len != 12 || v->tag_len != 16) {
		free(in);
		free(out);
		printf("# tc %ld: malformed vector\n", tc_id);
		return 0;
	}
	memcpy(in, v->ct, v->ct_len);
	memcpy(in + v->ct_len, v->tag, v->tag_len);
	if (a->init(&ctx, v->key) != 0)
		ok = 0;

	if (valid) {
		/* seal gives exactly ct || tag */
		a->seal(&ctx, v->iv, v->aad, v->aad_len, v->msg, v->msg_len, out);
		ok &= v->msg_len == v->ct_len && memcmp(out, in, n) == 0;
		/* open gives msg, out of place then in place */
		memset(out, 0xa5, n);
		r = a->open(&ctx, v->iv, v->aad, v->aad_len, in, n, out);
		ok &= r == 0 && memcmp(out, v->msg, v->msg_len) == 0;
		r = a->open(&ctx, v->iv, v->aad, v->aad_len, in, n, in);
		ok &= r == 0 && memcmp(in, v->msg, v->msg_len) == 0;
	} else {
		memset(out, 0xa5, n);
		r = a->open(&ctx, v->iv, v->aad, v->aad_len, in, n, out);
		ok &= r == HS_ERR_BAD_TAG;
		for (size_t i = 0; i < v->ct_len; i++)
			ok &= out[i] == 0;
	}
	a->wipe(&ctx);
	if (!ok)
		printf("# tc %ld: FAILED on %s (%s)\n", tc_id, a->name,
		       valid ? "valid" : "invalid");
	free(in);
	free(out);
	return ok;
}

static void run_group(const struct json *g, struct wp_count *c)
{
	const struct json *tests = json_get(g, "tests");
	const struct aead *backends[] = {
		aead_chacha20poly1305_portable(),
		aead_chacha20poly1305_avx2(),
		aead_chacha20poly1305_avx512(),
		aead_chacha20poly1305_avx512ifma(),
	};
	int applicable = json_get_num(g, "ivSize", 0) == 96 &&
			 json_get_num(g, "keySize", 0) == 256 &&
			 json_get_num(g, "tagSize", 0) == 128;

	assert_non_null(tests);
	for (size_t i = 0; i < tests->count; i++) {
		const struct json *t = tests->items[i];
		const char *result = json_get_str(t, "result");
		long tc_id = (long)json_get_num(t, "tcId", -1);
		struct vec v;
		int ok = 1;

		if (!applicable) {
			c->skipped++;
			continue;
		}
		c->ran++;
		if (result == NULL || vec_load(t, &v) != 0) {
			printf("# tc %ld: cannot parse\n", tc_id);
			c->failed++;
			continue;
		}
		/* "acceptable" does not occur in this file; treat it as valid */
		for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
			int valid = strcmp(result, "invalid") != 0;
			if (backends[b] != NULL)
				ok &= check_one(backends[b], &v, valid, tc_id);
		}
		vec_free(&v);
		if (ok)
			c->passed++;
		else
			c->failed++;
	}
}

static void test_wycheproof(void **state)
{
	(void)state;
	struct json *j = wp_load(FILE_NAME);
	const struct json *groups;
	struct wp_count c = { FILE_NAME, 0, 0, 0, 0 };
	unsigned total;

	if (j == NULL) {
		skip();
		return;
	}
	groups = json_get(j, "testGroups");
	assert_non_null(groups);
	total = (unsigned)json_get_num(j, "numberOfTests", 0);
	for (size_t i = 0; i < groups->count; i++)
		run_group(groups->items[i], &c);
	wp_report(&c);
	json_free(j);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 0);
	/* every vector in the file was either run or counted as not applicable */
	assert_int_equal(c.ran + c.skipped, total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wycheproof),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
