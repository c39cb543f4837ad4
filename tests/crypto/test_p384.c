/*
 * Proves P-384 ECDSA verification and its DER parser on fixed data:
 * - known answers made by OpenSSL 3.0 with one key over one message:
 *   SHA-384 through the table (DER), and raw SHA-256 and SHA-512 digests
 *   (OpenSSL pkeyutl: the leftmost-384-bits rule for any digest length);
 *   each fails with another message, digest, key or a flipped bit;
 * - public key checks: the generator and the test key pass; a wrong
 *   prefix or length, a point off the curve, coordinates >= p and the
 *   all-zero encoding fail;
 * - r or s equal to 0 or n (or above) fail; signing is refused;
 * - the precomputed base-point table (p384_table.h, written by a Python
 *   script) holds G, 3G, .., 63G: recomputed here with affine formulas
 *   over the bignum layer, independently of both the script and the
 *   projective point code;
 * - the point addition's special cases: a valid signature whose first
 *   addition is G + G verifies, and one whose sum is G + (-G) = infinity
 *   fails;
 * - ecdsa_sig_from_der_n: strict DER at any integer size (long form
 *   only when needed, no extra zeros, no negative, no trailing bytes), and
 *   the same answers as the P-256 parser at 32 bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/bignum.h"
#include "crypto/p256.h"
#include "crypto/p384.h"
#include "crypto/p384_table.h"
#include "crypto/sha2.h"
#include "testutil.h"

/* openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384; the message
 * "hs p384 known answer" signed by openssl dgst -sha384 -sign, and its SHA-256
 * and SHA-512 digests signed as raw input by openssl pkeyutl -sign. */
static const char kat_pub_hex[] =
	"04aba3f162689587202809de8ad38b1e8a2798d3b9335b394fe8e55259ff58a690cf36fb7f9655c181c41b06"
	"c5eac38435f6af539fc08a480ca3a2e4299284b3c2df1a46fa11e3b03a02b88fffc4c7d3a3dcaa2aeddc20ca"
	"330b7798fd0014ded8";
static const char kat_sig384_hex[] =
	"306502301f5cbee320293d2a245826aa82b8c832a0dc361727eeb4e16b73c780c69f51de33953923a3d7e8fc"
	"d6982a6284bef4b1023100b0f194af568e4a2d57bd2f2b13d3212f96b63354fabbbcf6047891c370937a73d9"
	"8c0a810467b7d2fd2d5dd0167a07e8";
static const char kat_sig256_hex[] =
	"3065023074bde9881b08ad727c14481b356de33a15657e48601ba4a5f5bc1bf0fecde907f9e749810127265e"
	"6f0c1233f659c67e02310087b5a04e2c5c879ccebd7012db7342978eb60d9a026a77456f3286642929480a7f"
	"77b4b631d3bd816003e851fb9b72c8";
static const char kat_sig512_hex[] =
	"306402302c72ab6a272cfbba007e8fdb91674315df4adc0c7c9e49e71ed44ee2cab9d3c6faa336454cf91d18"
	"e7d105e7c7ce9e24023042f849d8ff19b6568faf185a6eb1e9cbfb2216edcb5808bc3001cf6828a7f4634d64"
	"cb102ec4883cf4589655d1bf52c7";

static const char kat_msg[] = "hs p384 known answer";

/* SEC 2 2.5.1: G and n */
static const char g_hex[] = "04"
	"aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7"
	"3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f";
static const char n_hex[] =
	"ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973";
static const char p_hex[] =
	"fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff";

static void load(const char *hex, uint8_t *out, size_t n)
{
	assert_int_equal(hex_decode_to(hex, out, n), 0);
}

/* DER of hex into raw r||s of 48 bytes each */
static void der_to_raw(const char *hex, uint8_t raw[96])
{
	size_t len;
	uint8_t *der = hex_decode(hex, &len);

	assert_non_null(der);
	assert_int_equal(ecdsa_sig_from_der_n(raw, 48, der, len), 0);
	free(der);
}

static void test_kat(void **state)
{
	(void)state;
	uint8_t pub[97], g[97], raw[96], d256[32], d384[48], d512[64];
	const uint8_t *m = (const uint8_t *)kat_msg;
	size_t len, mlen = strlen(kat_msg);
	uint8_t *der;

	load(kat_pub_hex, pub, 97);
	load(g_hex, g, 97);
	sha256(m, mlen, d256);
	sha384(m, mlen, d384);
	sha512(m, mlen, d512);
	der = hex_decode(kat_sig384_hex, &len);
	assert_non_null(der);
	assert_int_equal(sig_ecdsa_p384_sha384.verify(pub, 97, m, mlen, der, len), 0);
	assert_int_equal(sig_ecdsa_p384_sha384.verify(pub, 97, m, mlen - 1, der, len),
			 HS_ERR_BAD_SIG);
	assert_int_equal(sig_ecdsa_p384_sha384.verify(g, 97, m, mlen, der, len), HS_ERR_BAD_SIG);
	der[len - 1] ^= 1;
	assert_int_equal(sig_ecdsa_p384_sha384.verify(pub, 97, m, mlen, der, len), HS_ERR_BAD_SIG);
	free(der);

	der_to_raw(kat_sig256_hex, raw);
	assert_int_equal(ecdsa_p384_verify(pub, 97, d256, 32, raw), 0);
	assert_int_equal(ecdsa_p384_verify(pub, 97, d384, 48, raw), HS_ERR_BAD_SIG);
	der_to_raw(kat_sig512_hex, raw);
	assert_int_equal(ecdsa_p384_verify(pub, 97, d512, 64, raw), 0);
	/* only the first 48 bytes of a 64-byte digest count */
	d512[63] ^= 0xff;
	assert_int_equal(ecdsa_p384_verify(pub, 97, d512, 64, raw), 0);
	d512[47] ^= 1;
	assert_int_equal(ecdsa_p384_verify(pub, 97, d512, 64, raw), HS_ERR_BAD_SIG);
	raw[95] ^= 0x40;
	assert_int_equal(ecdsa_p384_verify(pub, 97, d512, 64, raw), HS_ERR_BAD_SIG);
}

static void test_public_checks(void **state)
{
	(void)state;
	uint8_t pub[98], p[48];

	load(kat_pub_hex, pub, 97);
	assert_int_equal(p384_check_public(pub, 97), 0);
	assert_int_equal(p384_check_public(pub, 96), HS_ERR_BAD_POINT);
	assert_int_equal(p384_check_public(pub, 98), HS_ERR_BAD_POINT);
	assert_int_equal(p384_check_public(NULL, 97), HS_ERR_BAD_POINT);
	pub[0] = 0x03;
	assert_int_equal(p384_check_public(pub, 97), HS_ERR_BAD_POINT);
	pub[0] = 0x04;
	pub[96] ^= 1; /* off the curve */
	assert_int_equal(p384_check_public(pub, 97), HS_ERR_BAD_POINT);
	load(g_hex, pub, 97);
	assert_int_equal(p384_check_public(pub, 97), 0);
	/* x + p and y + p do not fit; x = p, y = p do, and must fail */
	load(p_hex, p, 48);
	memcpy(pub + 1, p, 48);
	assert_int_equal(p384_check_public(pub, 97), HS_ERR_BAD_POINT);
	load(g_hex, pub, 97);
	memcpy(pub + 49, p, 48);
	assert_int_equal(p384_check_public(pub, 97), HS_ERR_BAD_POINT);
	memset(pub + 1, 0, 96); /* (0, 0): not on the curve (b != 0) */
	assert_int_equal(p384_check_public(pub, 97), HS_ERR_BAD_POINT);
}

static void test_range(void **state)
{
	(void)state;
	uint8_t pub[97], raw[96], good[96], d[48], n[48];
	uint8_t sig[HS_P384_SIG_DER_MAX];
	size_t sig_len = sizeof(sig);

	load(kat_pub_hex, pub, 97);
	load(n_hex, n, 48);
	der_to_raw(kat_sig384_hex, good);
	sha384(kat_msg, strlen(kat_msg), d);
	assert_int_equal(ecdsa_p384_verify(pub, 97, d, 48, good), 0);
	memcpy(raw, good, 96);
	memset(raw, 0, 48);
	assert_int_equal(ecdsa_p384_verify(pub, 97, d, 48, raw), HS_ERR_BAD_SIG);
	memcpy(raw, n, 48);
	assert_int_equal(ecdsa_p384_verify(pub, 97, d, 48, raw), HS_ERR_BAD_SIG);
	memcpy(raw, good, 96);
	memset(raw + 48, 0, 48);
	assert_int_equal(ecdsa_p384_verify(pub, 97, d, 48, raw), HS_ERR_BAD_SIG);
	memset(raw + 48, 0xff, 48);
	assert_int_equal(ecdsa_p384_verify(pub, 97, d, 48, raw), HS_ERR_BAD_SIG);
	pub[96] ^= 1;
	assert_int_equal(ecdsa_p384_verify(pub, 97, d, 48, good), HS_ERR_BAD_POINT);
	assert_int_equal(sig_ecdsa_p384_sha384.sign(sig, &sig_len, d, pub, d, 48),
			 HS_ERR_UNSUPPORTED);
	assert_string_equal(sig_ecdsa_p384_sha384.name, "ecdsa_secp384r1_sha384");
}

/* from_der_n on hex; returns its error */
static int parse(const char *hex, uint8_t *raw, size_t n)
{
	size_t len;
	uint8_t *der = hex_decode(hex, &len);
	int err;

	assert_non_null(der);
	err = ecdsa_sig_from_der_n(raw, n, der, len);
	free(der);
	return err;
}

/* affine x, y in Montgomery form */
struct aff {
	uint64_t x[6], y[6];
};

/* r = a / b mod p, all in Montgomery form */
static void mdiv(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct bn_mont *c)
{
	uint64_t t[6];

	bn_mont_from(t, b, c);
	assert_true(bn_mod_inv(t, t, c) != 0); /* 1/b */
	bn_mont_to(t, t, c);
	bn_mont_mul(r, a, t, c);
}

/* r = a + b (a != +-b) or r = 2a (a == b, lam_num/lam_den given by the caller) */
static void aff_finish(struct aff *r, const struct aff *a, const struct aff *b,
		       const uint64_t *lam, const struct bn_mont *c)
{
	uint64_t x3[6], y3[6];

	bn_mont_mul(x3, lam, lam, c);
	bn_mod_sub(x3, x3, a->x, c);
	bn_mod_sub(x3, x3, b->x, c);
	bn_mod_sub(y3, a->x, x3, c);
	bn_mont_mul(y3, lam, y3, c);
	bn_mod_sub(y3, y3, a->y, c);
	memcpy(r->x, x3, sizeof(x3));
	memcpy(r->y, y3, sizeof(y3));
}

/* G and 2G (affine, Montgomery form) and the context for p */
static void g_and_2g(struct aff *g, struct aff *g2, struct bn_mont *c)
{
	uint8_t buf[97];
	uint64_t p[6], num[6], den[6], lam[6], three[6] = { 3 };

	load(p_hex, buf, 48);
	assert_int_equal(bn_from_bytes(p, 6, buf, 48), 0);
	assert_int_equal(bn_mont_init_vartime(c, p, 6), 0);
	load(g_hex, buf, 97);
	assert_int_equal(bn_from_bytes(g->x, 6, buf + 1, 48), 0);
	assert_int_equal(bn_from_bytes(g->y, 6, buf + 49, 48), 0);
	bn_mont_to(g->x, g->x, c);
	bn_mont_to(g->y, g->y, c);
	bn_mont_to(three, three, c);
	/* 2G: lam = (3 x^2 - 3) / (2 y) */
	bn_mont_mul(num, g->x, g->x, c);
	bn_mont_mul(num, num, three, c);
	bn_mod_sub(num, num, three, c);
	bn_mod_add(den, g->y, g->y, c);
	mdiv(lam, num, den, c);
	aff_finish(g2, g, g, lam, c);
}

static void test_g_table(void **state)
{
	(void)state;
	struct bn_mont c;
	struct aff g, g2, pt;
	uint64_t num[6], den[6], lam[6];

	g_and_2g(&g, &g2, &c);
	pt = g;
	for (int j = 0; j < HS_P384_G_ODD; j++) {
		assert_memory_equal(p384_g_odd[j][0], pt.x, 48);
		assert_memory_equal(p384_g_odd[j][1], pt.y, 48);
		/* pt += 2G: lam = (y2 - y1) / (x2 - x1) */
		bn_mod_sub(num, g2.y, pt.y, &c);
		bn_mod_sub(den, g2.x, pt.x, &c);
		mdiv(lam, num, den, &c);
		aff_finish(&pt, &pt, &g2, lam, &c);
	}
}

/*
 * The addition's special cases, with the public key G: r = s = e =
 * x(2G) mod n makes u1 = u2 = 1, so the first addition adds G to G (the
 * doubling branch) and the signature must verify; e = n - r makes
 * u1 + u2 = 0, so R is infinity (reached through the P + (-P) branch)
 * and the signature must fail.
 */
static void test_add_special_cases(void **state)
{
	(void)state;
	struct bn_mont c;
	struct aff g, g2;
	uint8_t pub[97], sig[96], e[48];
	uint64_t x[6], n[6], t[6];

	g_and_2g(&g, &g2, &c);
	load(g_hex, pub, 97);
	load(n_hex, e, 48);
	assert_int_equal(bn_from_bytes(n, 6, e, 48), 0);
	bn_mont_from(x, g2.x, &c);
	if (!bn_lt_mask(x, n, 6))
		(void)bn_sub(x, x, n, 6); /* x < p < 2n */
	bn_to_bytes(sig, 48, x, 6);
	bn_to_bytes(sig + 48, 48, x, 6);
	bn_to_bytes(e, 48, x, 6);
	assert_int_equal(ecdsa_p384_verify(pub, sizeof(pub), e, sizeof(e), sig), 0);
	e[47] ^= 1;
	assert_int_equal(ecdsa_p384_verify(pub, sizeof(pub), e, sizeof(e), sig), HS_ERR_BAD_SIG);
	(void)bn_sub(t, n, x, 6);
	bn_to_bytes(e, 48, t, 6);
	assert_int_equal(ecdsa_p384_verify(pub, sizeof(pub), e, sizeof(e), sig), HS_ERR_BAD_SIG);
}

static void test_der_n(void **state)
{
	(void)state;
	uint8_t raw[132], raw2[64];
	char big[600];

	assert_int_equal(parse("3006020101020102", raw, 48), 0);
	assert_int_equal(raw[47], 1);
	assert_int_equal(raw[95], 2);
	assert_int_equal(parse("300602010102010200", raw, 48), HS_ERR_BAD_ENCODING); /* trailing */
	assert_int_equal(parse("30070201010202000102", raw, 48), HS_ERR_BAD_ENCODING); /* 00 01, and a byte after */
	assert_int_equal(parse("300702020001020102", raw, 48), HS_ERR_BAD_ENCODING); /* 00 01 */
	assert_int_equal(parse("3006020181020102", raw, 48), HS_ERR_BAD_ENCODING); /* negative */
	assert_int_equal(parse("30070202008102010200", raw, 48), HS_ERR_BAD_ENCODING);
	assert_int_equal(parse("300702020081020102", raw, 48), 0); /* 0x81 needs its zero */
	assert_int_equal(raw[47], 0x81);
	assert_int_equal(parse("30810602010102010102", raw, 48), HS_ERR_BAD_ENCODING); /* 0x81 < 128 */
	assert_int_equal(parse("3005020102010102", raw, 48), HS_ERR_BAD_ENCODING); /* length */
	assert_int_equal(parse("3006020001020102", raw, 48), HS_ERR_BAD_ENCODING);
	assert_int_equal(parse("3003020101", raw, 48), HS_ERR_BAD_ENCODING); /* one integer */
	assert_int_equal(parse("3006020101020102", raw, 0), HS_ERR_ARG);
	/* 66-byte integers need the long form: 30 81 88 02 42 <66> 02 42 <66> */
	strcpy(big, "3081880242");
	for (int i = 0; i < 66; i++)
		strcat(big, i == 0 ? "01" : "ab");
	strcat(big, "0242");
	for (int i = 0; i < 66; i++)
		strcat(big, "01");
	assert_int_equal(parse(big, raw, 66), 0);
	assert_int_equal(raw[0], 0x01);
	assert_int_equal(raw[131], 0x01);
	assert_int_equal(parse(big, raw, 65), HS_ERR_BAD_ENCODING); /* too wide */
	/* the P-256 parser's answers at 32 bytes */
	assert_int_equal(parse("300702020081020102", raw, 32), 0);
	{
		size_t len;
		uint8_t *der = hex_decode("300702020081020102", &len);
		assert_int_equal(ecdsa_sig_from_der(raw2, der, len), 0);
		assert_memory_equal(raw, raw2, 64);
		free(der);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kat),
		cmocka_unit_test(test_public_checks),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_der_n),
		cmocka_unit_test(test_g_table),
		cmocka_unit_test(test_add_special_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
