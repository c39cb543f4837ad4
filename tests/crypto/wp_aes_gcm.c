/*
 * Proves every AES-GCM backend this CPU has gets all applicable vectors of
 * Wycheproof's aes_gcm_test.json right: a valid vector seals to exactly
 * ct || tag and opens back to msg (out of place and in place); an invalid
 * one opens to HS_ERR_BAD_TAG with only zeros in out. The aead API has
 * 12-byte nonces, 16-byte tags and 128/256-bit keys only, so groups with
 * ivSize != 96, tagSize != 128 or keySize 192 are counted as not
 * applicable. A vector passes only if it passes on every backend.
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

static const char WP_FILE[] = "aes_gcm_test.json";

struct wp_vec {
	uint8_t *key, *iv, *aad, *msg, *ct, *tag;
	size_t key_len, iv_len, aad_len, msg_len, ct_len, tag_len;
	int valid;
	long id;
};

static uint8_t *hex_field(const struct json *t, const char *name, size_t *len)
{
	const char *h = json_get_str(t, name);

	*len = 0;
	return h ? hex_decode(h, len) : NULL;
}

static void wp_vec_free(struct wp_vec *v)
{
	free(v->key);
	free(v->iv);
	free(v->aad);
	free(v->msg);
	free(v->ct);
	free(v->tag);
}

/* 0 when every field is present and the result is valid or invalid. */
static int wp_vec_parse(const struct json *t, struct wp_vec *v)
{
	const char *result = json_get_str(t, "result");

	v->key = hex_field(t, "key", &v->key_len);
	v->iv = hex_field(t, "iv", &v->iv_len);
	v->aad = hex_field(t, "aad", &v->aad_len);
	v->msg = hex_field(t, "msg", &v->msg_len);
	v->ct = hex_field(t, "ct", &v->ct_len);
	v->tag = hex_field(t, "tag", &v->tag_len);
	v->id = (long)json_get_num(t, "tcId", -1);
	/* this file has no "acceptable" vectors; one would count as a failure */
	v->valid = result && strcmp(result, "valid") == 0;
	if (!result || (!v->valid && strcmp(result, "invalid") != 0))
		return -1;
	if (!v->key || !v->iv || !v->aad || !v->msg || !v->ct || !v->tag)
		return -1;
	return v->iv_len == 12 && v->tag_len == 16 && v->ct_len == v->msg_len ? 0 : -1;
}

/* 1 if backend a does what the vector expects. */
static int wp_check(const struct aead *a, const struct wp_vec *v)
{
	struct aead_ctx ctx;
	size_t n = v->ct_len + 16;
	uint8_t *in = malloc(n), *out = malloc(n);
	int ok = in && out && v->key_len == a->key_len && a->init(&ctx, v->key) == 0;

	if (ok) {
		memcpy(in, v->ct, v->ct_len);
		memcpy(in + v->ct_len, v->tag, 16);
		memset(out, 0xa5, n);
		if (v->valid) {
			a->seal(&ctx, v->iv, v->aad, v->aad_len, v->msg, v->msg_len, out);
			ok &= memcmp(out, in, n) == 0;
			memset(out, 0xa5, n);
			ok &= a->open(&ctx, v->iv, v->aad, v->aad_len, in, n, out) == 0;
			ok &= memcmp(out, v->msg, v->msg_len) == 0;
			ok &= a->open(&ctx, v->iv, v->aad, v->aad_len, in, n, in) == 0;
			ok &= memcmp(in, v->msg, v->msg_len) == 0;
		} else {
			int r = a->open(&ctx, v->iv, v->aad, v->aad_len, in, n, out);
			ok &= r == HS_ERR_BAD_TAG;
			for (size_t i = 0; i < v->ct_len; i++)
				ok &= out[i] == 0;
		}
		a->wipe(&ctx);
	}
	if (!ok)
		printf("# tcId %ld: FAILED on %s\n", v->id, a->name);
	free(in);
	free(out);
	return ok;
}

static void wp_group(const struct json *g, struct wp_count *c)
{
	const struct json *tests = json_get(g, "tests");
	int ksize = (int)json_get_num(g, "keySize", 0);
	int applicable = json_get_num(g, "ivSize", 0) == 96 &&
			 json_get_num(g, "tagSize", 0) == 128 && (ksize == 128 || ksize == 256);
	const struct aead *backends[] = {
		ksize == 128 ? aead_aes128gcm_portable() : aead_aes256gcm_portable(),
		ksize == 128 ? aead_aes128gcm_aesni() : aead_aes256gcm_aesni(),
		ksize == 128 ? aead_aes128gcm_vaes512() : aead_aes256gcm_vaes512(),
	};

	assert_non_null(tests);
	for (size_t i = 0; i < tests->count; i++) {
		struct wp_vec v;
		int ok = 1;

		if (!applicable) {
			c->skipped++;
			continue;
		}
		c->ran++;
		if (wp_vec_parse(tests->items[i], &v) != 0) {
			printf("# tcId %ld: cannot parse\n", v.id);
			ok = 0;
		} else {
			for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++)
				if (backends[b] != NULL)
					ok &= wp_check(backends[b], &v);
		}
		wp_vec_free(&v);
		if (ok)
			c->passed++;
		else
			c->failed++;
	}
}

static void test_wycheproof_aes_gcm(void **state)
{
	(void)state;
	struct json *j = wp_load(WP_FILE);
	struct wp_count c = { WP_FILE, 0, 0, 0, 0 };
	const struct json *groups;

	if (j == NULL)
		skip();
	printf("# backends: portable%s%s\n", aead_aes128gcm_aesni() ? ", AES-NI" : "",
	       aead_aes128gcm_vaes512() ? ", VAES-512" : "");
	groups = json_get(j, "testGroups");
	assert_non_null(groups);
	for (size_t i = 0; i < groups->count; i++)
		wp_group(groups->items[i], &c);
	wp_report(&c);
	/* the file's own count, so a truncated file cannot pass quietly */
	assert_int_equal(c.ran + c.skipped, (unsigned)json_get_num(j, "numberOfTests", -1));
	json_free(j);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wycheproof_aes_gcm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
