/*
 * Proves P-256 ECDH and ECDSA verification against Wycheproof:
 * - ecdh_secp256r1_ecpoint_test.json: raw SEC1 points;
 * - ecdh_secp256r1_test.json: X.509 SubjectPublicKeyInfo keys (parsed
 *   here with base/reader.h: named curve prime256v1 only);
 * - ecdh_secp256r1_webcrypto_test.json: JWK keys (base64url x, y, d);
 * - ecdsa_secp256r1_sha256_test.json: DER signatures, through the
 *   sig_ecdsa_p256_sha256 table (BER and other bad encodings must fail);
 * - ecdsa_secp256r1_sha256_p1363_test.json: raw r || s (64 bytes only).
 * "valid" must pass (and give the expected secret), "invalid" must fail,
 * "acceptable" may go either way but a success must be right. hs has no
 * point decompression: compressed points must fail, and valid or
 * acceptable ones are counted as not applicable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/reader.h"
#include "crypto/p256.h"
#include "crypto/sha2.h"
#include "crypto/sig.h"
#include "testutil.h"

enum expect { EXPECT_VALID, EXPECT_INVALID, EXPECT_ACCEPTABLE };

static enum expect wp_expect(const struct json *t)
{
	const char *r = json_get_str(t, "result");

	assert_non_null(r);
	if (strcmp(r, "valid") == 0)
		return EXPECT_VALID;
	if (strcmp(r, "invalid") == 0)
		return EXPECT_INVALID;
	assert_string_equal(r, "acceptable");
	return EXPECT_ACCEPTABLE;
}

/* Record one outcome: ok = our call succeeded, right = its output matched. */
static void wp_record(struct wp_count *c, const struct json *t, int ok, int right)
{
	enum expect e = wp_expect(t);
	int pass;

	c->ran++;
	if (e == EXPECT_VALID)
		pass = ok && right;
	else if (e == EXPECT_INVALID)
		pass = !ok;
	else
		pass = !ok || right;
	if (pass) {
		c->passed++;
	} else {
		c->failed++;
		printf("wycheproof: %s: tcId %d (%s) FAILED: ok=%d right=%d\n", c->file,
		       (int)json_get_num(t, "tcId", -1), json_get_str(t, "comment"), ok, right);
	}
}

/* A Wycheproof private key: big-endian, maybe with sign byte, maybe short. */
static int load_priv(const char *hex, uint8_t d[32])
{
	size_t len, off = 0;
	uint8_t *b = hex_decode(hex, &len);
	int ret = -1;

	if (!b)
		return -1;
	while (len - off > 32 && b[off] == 0)
		off++;
	if (len - off <= 32) {
		memset(d, 0, 32);
		memcpy(d + 32 - (len - off), b + off, len - off);
		ret = 0;
	}
	free(b);
	return ret;
}

static int is_compressed(const uint8_t *pt, size_t len)
{
	return len == 33 && (pt[0] == 0x02 || pt[0] == 0x03);
}

/* ECDH with a raw point; the shared secret checked against "shared". */
static void ecdh_case(struct wp_count *c, const struct json *t, const uint8_t *pub,
		      size_t pub_len, const uint8_t d[32])
{
	uint8_t z[32], want[32];
	const char *shared = json_get_str(t, "shared");
	int ok = p256_ecdh(z, d, pub, pub_len) == 0;
	int right = shared && hex_decode_to(shared, want, 32) == 0 && ok &&
		    memcmp(z, want, 32) == 0;

	if (pub != NULL && is_compressed(pub, pub_len) && wp_expect(t) != EXPECT_INVALID) {
		assert_false(ok); /* no decompression: not applicable, but never a success */
		c->skipped++;
		return;
	}
	wp_record(c, t, ok, right);
}

static void test_ecdh_ecpoint(void **state)
{
	(void)state;
	struct wp_count c = { "ecdh_secp256r1_ecpoint_test.json", 0, 0, 0, 0 };
	struct json *j = wp_load(c.file);

	if (!j)
		skip();
	const struct json *groups = json_get(j, "testGroups");
	for (size_t g = 0; g < groups->count; g++) {
		const struct json *tests = json_get(groups->items[g], "tests");
		for (size_t i = 0; i < tests->count; i++) {
			const struct json *t = tests->items[i];
			uint8_t d[32], *pub;
			size_t pub_len;

			assert_int_equal(load_priv(json_get_str(t, "private"), d), 0);
			pub = hex_decode(json_get_str(t, "public"), &pub_len);
			assert_non_null(pub);
			ecdh_case(&c, t, pub, pub_len, d);
			free(pub);
		}
	}
	wp_report(&c);
	json_free(j);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 300);
}

/* ---- SubjectPublicKeyInfo (RFC 5480) ---- */

/* A DER TLV with the given tag; definite, minimal length forms only. */
static int der_tlv(struct reader *r, uint8_t tag, struct reader *body)
{
	uint8_t t, l0, b;
	size_t len = 0;

	if (read_u8(r, &t) || t != tag || read_u8(r, &l0))
		return -1;
	if (l0 < 0x80) {
		len = l0;
	} else {
		unsigned n = l0 & 0x7f;
		if (n == 0 || n > 2)
			return -1; /* indefinite, or larger than any key */
		for (unsigned i = 0; i < n; i++) {
			if (read_u8(r, &b) || (i == 0 && b == 0))
				return -1;
			len = (len << 8) | b;
		}
		if (len < 0x80)
			return -1;
	}
	return read_sub(r, len, body) ? -1 : 0;
}

static int der_oid_is(struct reader *r, const uint8_t *oid, size_t oid_len)
{
	struct reader o;
	const uint8_t *p;

	if (der_tlv(r, 0x06, &o) || reader_left(&o) != oid_len ||
	    read_view(&o, oid_len, &p))
		return 0;
	return memcmp(p, oid, oid_len) == 0;
}

/* The point of an id-ecPublicKey / prime256v1 SPKI, or -1. */
static int spki_point(const uint8_t *der, size_t len, const uint8_t **pt, size_t *pt_len)
{
	static const uint8_t ec_public_key[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };
	static const uint8_t prime256v1[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
	struct reader r = reader_init(der, len), spki, alg, bits;
	uint8_t unused;

	if (der_tlv(&r, 0x30, &spki) || read_end(&r))
		return -1;
	if (der_tlv(&spki, 0x30, &alg) || !der_oid_is(&alg, ec_public_key, sizeof(ec_public_key)) ||
	    !der_oid_is(&alg, prime256v1, sizeof(prime256v1)) || read_end(&alg))
		return -1;
	if (der_tlv(&spki, 0x03, &bits) || read_end(&spki))
		return -1;
	if (read_u8(&bits, &unused) || unused != 0)
		return -1;
	*pt_len = reader_left(&bits);
	return read_view(&bits, *pt_len, pt) ? -1 : 0;
}

static void test_ecdh_spki(void **state)
{
	(void)state;
	struct wp_count c = { "ecdh_secp256r1_test.json", 0, 0, 0, 0 };
	struct json *j = wp_load(c.file);
	unsigned parse_failed_acceptable = 0;

	if (!j)
		skip();
	const struct json *groups = json_get(j, "testGroups");
	for (size_t g = 0; g < groups->count; g++) {
		const struct json *tests = json_get(groups->items[g], "tests");
		for (size_t i = 0; i < tests->count; i++) {
			const struct json *t = tests->items[i];
			uint8_t d[32], *der;
			const uint8_t *pt = NULL;
			size_t der_len, pt_len = 0;

			assert_int_equal(load_priv(json_get_str(t, "private"), d), 0);
			der = hex_decode(json_get_str(t, "public"), &der_len);
			assert_non_null(der);
			if (spki_point(der, der_len, &pt, &pt_len) != 0) {
				pt = NULL;
				pt_len = 0;
				if (wp_expect(t) == EXPECT_ACCEPTABLE)
					parse_failed_acceptable++;
			}
			ecdh_case(&c, t, pt, pt_len, d);
			free(der);
		}
	}
	printf("wycheproof: %s: %u acceptable keys refused by the strict SPKI parser\n", c.file,
	       parse_failed_acceptable);
	wp_report(&c);
	json_free(j);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 500);
}

/* ---- JWK (RFC 7517/7518) ---- */

static int b64url_val(char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '-')
		return 62;
	if (ch == '_')
		return 63;
	return -1;
}

/* Unpadded base64url into exactly n bytes; -1 on any other length or character. */
static int b64url_decode(const char *s, uint8_t *out, size_t n)
{
	size_t len = strlen(s), o = 0;
	uint32_t acc = 0;
	unsigned bits = 0;

	if (len % 4 == 1)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int v = b64url_val(s[i]);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o == n)
				return -1;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	if (acc & ((1u << bits) - 1))
		return -1; /* non-zero leftover bits: non-canonical */
	return o == n ? 0 : -1;
}

/* 04 || x || y from a public JWK; -1 unless an EC key on P-256 with 32-byte x and y. */
static int jwk_point(const struct json *jwk, uint8_t pt[65])
{
	const char *kty = json_get_str(jwk, "kty"), *crv = json_get_str(jwk, "crv");
	const char *x = json_get_str(jwk, "x"), *y = json_get_str(jwk, "y");

	if (!kty || !crv || !x || !y || strcmp(kty, "EC") != 0 || strcmp(crv, "P-256") != 0)
		return -1;
	pt[0] = 0x04;
	if (b64url_decode(x, pt + 1, 32) || b64url_decode(y, pt + 33, 32))
		return -1;
	return 0;
}

static void test_ecdh_webcrypto(void **state)
{
	(void)state;
	struct wp_count c = { "ecdh_secp256r1_webcrypto_test.json", 0, 0, 0, 0 };
	struct json *j = wp_load(c.file);

	if (!j)
		skip();
	const struct json *groups = json_get(j, "testGroups");
	for (size_t g = 0; g < groups->count; g++) {
		const struct json *tests = json_get(groups->items[g], "tests");
		for (size_t i = 0; i < tests->count; i++) {
			const struct json *t = tests->items[i];
			const struct json *priv = json_get(t, "private");
			uint8_t d[32], pt[65];
			int have;

			assert_non_null(priv);
			assert_int_equal(b64url_decode(json_get_str(priv, "d"), d, 32), 0);
			have = jwk_point(json_get(t, "public"), pt) == 0;
			ecdh_case(&c, t, have ? pt : NULL, have ? sizeof(pt) : 0, d);
		}
	}
	wp_report(&c);
	json_free(j);
	assert_int_equal(c.failed, 0);
	assert_true(c.ran > 300);
}

/* ---- ECDSA ---- */

static const uint8_t *group_pub(const struct json *group, uint8_t pub[65])
{
	const struct json *pk = json_get(group, "publicKey");

	assert_non_null(pk);
	assert_int_equal(hex_decode_to(json_get_str(pk, "uncompressed"), pub, 65), 0);
	return pub;
}

static void ecdsa_file(const char *file, int p1363)
{
	struct wp_count c = { file, 0, 0, 0, 0 };
	struct json *j = wp_load(file);

	if (!j)
		skip();
	const struct json *groups = json_get(j, "testGroups");
	for (size_t g = 0; g < groups->count; g++) {
		uint8_t pub[65];
		const struct json *tests = json_get(groups->items[g], "tests");

		assert_string_equal(json_get_str(groups->items[g], "sha"), "SHA-256");
		group_pub(groups->items[g], pub);
		for (size_t i = 0; i < tests->count; i++) {
			const struct json *t = tests->items[i];
			size_t msg_len, sig_len;
			uint8_t *msg = hex_decode(json_get_str(t, "msg"), &msg_len);
			uint8_t *sig = hex_decode(json_get_str(t, "sig"), &sig_len);
			uint8_t h[32];
			int ok;

			assert_non_null(msg);
			assert_non_null(sig);
			if (p1363) {
				sha256(msg, msg_len, h);
				ok = sig_len == 64 &&
				     ecdsa_p256_verify(pub, 65, h, 32, sig) == 0;
			} else {
				ok = sig_ecdsa_p256_sha256.verify(pub, 65, msg, msg_len, sig,
								     sig_len) == 0;
			}
			wp_record(&c, t, ok, 1);
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
	ecdsa_file("ecdsa_secp256r1_sha256_test.json", 0);
}

static void test_ecdsa_p1363(void **state)
{
	(void)state;
	ecdsa_file("ecdsa_secp256r1_sha256_p1363_test.json", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ecdh_ecpoint),
		cmocka_unit_test(test_ecdh_spki),
		cmocka_unit_test(test_ecdh_webcrypto),
		cmocka_unit_test(test_ecdsa_der),
		cmocka_unit_test(test_ecdsa_p1363),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
