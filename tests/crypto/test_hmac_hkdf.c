/*
 * Proves HMAC, HKDF and the TLS 1.3 helpers against published values:
 * RFC 4231 test cases 1-7 (HMAC-SHA-256/384/512, case 5 truncated), RFC
 * 5869 test cases 1-3 (HKDF-SHA-256), HS_ERR_TOO_LONG above 255*HashLen
 * (and HS_ERR_ARG for over-long labels/contexts), hkdf_expand_labels (several
 * labels, one keyed HMAC) against one HKDF-Expand per label, and the RFC 8448 section
 * 3 "Simple 1-RTT Handshake" key schedule: from the printed shared secret
 * and handshake messages, every secret, traffic key/IV, finished key and
 * verify_data byte-exact. SHA-256 cases run on every backend (portable,
 * SHA-NI when present) and through the streaming HMAC API.
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

static uint8_t *unhex(const char *hex, size_t *len)
{
	uint8_t *p = hex_decode(hex, len);
	assert_non_null(p);
	return p;
}

static void check_hex(const uint8_t *got, const char *hex, size_t n)
{
	size_t len;
	uint8_t *want = unhex(hex, &len);

	assert_int_equal(len, n);
	assert_memory_equal(got, want, n);
	free(want);
}

/* Every SHA-256 table this CPU offers: portable first, then the best. */
static int sha256_tables(const struct hash *t[2])
{
	cpu_force_portable(1);
	t[0] = hash_sha256();
	cpu_force_portable(0);
	t[1] = hash_sha256();
	return t[1] == t[0] ? 1 : 2;
}

/* ---- RFC 4231 ---------------------------------------------------------- */

struct hmac_case {
	uint8_t key_fill; /* key is key_len bytes of key_fill, unless key_hex */
	size_t key_len;
	const char *key_hex;
	const char *data;
	size_t data_fill_len; /* data is this many bytes of data[0] if nonzero */
	size_t trunc;         /* compare this many bytes (0 = all) */
	const char *mac[3];   /* SHA-256, SHA-384, SHA-512 */
};

/* RFC 4231, section 4.2 to 4.8. */
static const struct hmac_case RFC4231[] = {
	{ 0x0b, 20, NULL, "Hi There", 0, 0,
	  { "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
	    "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59c"
	    "faea9ea9076ede7f4af152e8b2fa9cb6",
	    "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde"
	    "daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854" } },
	{ 0, 4, "4a656665", "what do ya want for nothing?", 0, 0,
	  { "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
	    "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
	    "8e2240ca5e69e2c78b3239ecfab21649",
	    "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
	    "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737" } },
	{ 0xaa, 20, NULL, "\xdd", 50, 0,
	  { "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
	    "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b"
	    "2a5ab39dc13814b94e3ab6e101a34f27",
	    "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39"
	    "bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb" } },
	{ 0, 25, "0102030405060708090a0b0c0d0e0f10111213141516171819", "\xcd", 50, 0,
	  { "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
	    "3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e"
	    "6801dd23c4a7d679ccf8a386c674cffb",
	    "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3db"
	    "a91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd" } },
	{ 0x0c, 20, NULL, "Test With Truncation", 0, 16,
	  { "a3b6167473100ee06e0c796c2955552b", "3abf34c3503b2a23a46efc619baef897",
	    "415fad6271580a531d4179bc891d87a6" } },
	{ 0xaa, 131, NULL, "Test Using Larger Than Block-Size Key - Hash Key First", 0, 0,
	  { "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
	    "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c6"
	    "0c2ef6ab4030fe8296248df163f44952",
	    "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352"
	    "6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598" } },
	{ 0xaa, 131, NULL,
	  "This is a test using a larger than block-size key and a larger than block-size data. "
	  "The key needs to be hashed before being used by the HMAC algorithm.",
	  0, 0,
	  { "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
	    "6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5"
	    "a678cc31e799176d3860e6110c46523e",
	    "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944"
	    "b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58" } },
};

/* One-shot and byte-at-a-time streaming HMAC of case c under table h. */
static void check_hmac_case(const struct hmac_case *c, const struct hash *h, int which)
{
	uint8_t key[131], data[200], out[HS_HASH_MAX_LEN];
	size_t data_len, n = c->trunc ? c->trunc : h->digest_len;
	struct hmac m;

	if (c->key_hex)
		assert_int_equal(hex_decode_to(c->key_hex, key, c->key_len), 0);
	else
		memset(key, c->key_fill, c->key_len);
	if (c->data_fill_len) {
		data_len = c->data_fill_len;
		memset(data, (uint8_t)c->data[0], data_len);
	} else {
		data_len = strlen(c->data);
		memcpy(data, c->data, data_len);
	}
	hmac(h, key, c->key_len, data, data_len, out);
	check_hex(out, c->mac[which], n);

	memset(out, 0, sizeof(out));
	hmac_init(&m, h, key, c->key_len);
	for (size_t i = 0; i < data_len; i++)
		hmac_update(&m, data + i, 1);
	hmac_final(&m, out);
	check_hex(out, c->mac[which], n);
}

static void test_rfc4231(void **state)
{
	(void)state;
	const struct hash *t[2];
	int nt = sha256_tables(t);

	for (size_t i = 0; i < sizeof(RFC4231) / sizeof(RFC4231[0]); i++) {
		for (int b = 0; b < nt; b++)
			check_hmac_case(&RFC4231[i], t[b], 0);
		check_hmac_case(&RFC4231[i], hash_sha384(), 1);
		check_hmac_case(&RFC4231[i], hash_sha512(), 2);
	}
}

/* hmac_final wipes the whole context. */
static void test_hmac_final_wipes(void **state)
{
	(void)state;
	static const uint8_t zero[sizeof(struct hmac)];
	struct hmac m;
	uint8_t out[HS_HASH_MAX_LEN];

	hmac_init(&m, hash_sha384(), "key", 3);
	hmac_update(&m, "msg", 3);
	hmac_final(&m, out);
	assert_memory_equal(&m, zero, sizeof(m));
}

/* ---- RFC 5869 ---------------------------------------------------------- */

struct hkdf_case {
	const char *ikm, *salt, *info;
	size_t len;
	const char *prk, *okm;
};

/* RFC 5869, appendix A.1 to A.3 (SHA-256). */
static const struct hkdf_case RFC5869[] = {
	{ "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "000102030405060708090a0b0c",
	  "f0f1f2f3f4f5f6f7f8f9", 42,
	  "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
	  "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
	  "34007208d5b887185865" },
	{ "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	  "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	  "404142434445464748494a4b4c4d4e4f",
	  "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	  "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	  "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
	  "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
	  "d0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
	  "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
	  82, "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
	  "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
	  "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
	  "cc30c58179ec3e87c14c01d5c1f3434f1d87" },
	{ "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "", "", 42,
	  "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
	  "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
	  "9d201395faa4b61a96c8" },
};

static void check_hkdf_case(const struct hkdf_case *c, const struct hash *h)
{
	size_t ikm_len, salt_len, info_len;
	uint8_t *ikm = unhex(c->ikm, &ikm_len), *salt = unhex(c->salt, &salt_len);
	uint8_t *info = unhex(c->info, &info_len);
	uint8_t prk[32], okm[82];

	hkdf_extract(h, salt, salt_len, ikm, ikm_len, prk);
	check_hex(prk, c->prk, 32);
	if (salt_len == 0) { /* "not provided": NULL works as well */
		memset(prk, 0, sizeof(prk));
		hkdf_extract(h, NULL, 0, ikm, ikm_len, prk);
		check_hex(prk, c->prk, 32);
	}
	assert_int_equal(hkdf_expand(h, prk, 32, info, info_len, okm, c->len), 0);
	check_hex(okm, c->okm, c->len);
	/* in place: the PRK buffer may receive the output */
	assert_int_equal(hkdf_expand(h, prk, 32, info, info_len, prk, 32), 0);
	assert_memory_equal(prk, okm, 32);
	free(ikm);
	free(salt);
	free(info);
}

static void test_rfc5869(void **state)
{
	(void)state;
	const struct hash *t[2];
	int nt = sha256_tables(t);

	for (size_t i = 0; i < sizeof(RFC5869) / sizeof(RFC5869[0]); i++)
		for (int b = 0; b < nt; b++)
			check_hkdf_case(&RFC5869[i], t[b]);
}

/* L > 255 * HashLen is refused; L = 255 * HashLen works and its output
 * starts with the shorter output (T(1) | T(2) | ...). */
static void test_hkdf_too_long(void **state)
{
	(void)state;
	const struct hash *hs[3] = { hash_sha256(), hash_sha384(), hash_sha512() };
	uint8_t prk[64], short_out[100];
	uint8_t *out = malloc(255 * 64 + 1);

	assert_non_null(out);
	memset(prk, 0x42, sizeof(prk));
	for (int i = 0; i < 3; i++) {
		const struct hash *h = hs[i];
		size_t max = 255 * h->digest_len;

		assert_int_equal(hkdf_expand(h, prk, h->digest_len, "i", 1, out, max + 1),
				 HS_ERR_TOO_LONG);
		assert_int_equal(hkdf_expand(h, prk, h->digest_len, "i", 1, out, SIZE_MAX),
				 HS_ERR_TOO_LONG);
		assert_int_equal(hkdf_expand_label(h, prk, "key", NULL, 0, out, max + 1),
				 HS_ERR_TOO_LONG);
		assert_int_equal(hkdf_expand(h, prk, h->digest_len, "i", 1, out, max), 0);
		assert_int_equal(hkdf_expand(h, prk, h->digest_len, "i", 1, short_out,
						sizeof(short_out)), 0);
		assert_memory_equal(out, short_out, sizeof(short_out));
		assert_int_equal(hkdf_expand(h, prk, h->digest_len, "i", 1, out, 0), 0);
	}
	free(out);
}

/* HkdfLabel limits: "tls13 " + label <= 255 bytes, context <= 255 bytes. */
static void test_expand_label_limits(void **state)
{
	(void)state;
	const struct hash *h = hash_sha256();
	char label[251];
	uint8_t secret[32] = { 1 }, ctx[256] = { 0 }, out[32];

	memset(label, 'x', sizeof(label) - 1);
	label[sizeof(label) - 1] = '\0'; /* 250 + 6 = 256: one too many */
	assert_int_equal(hkdf_expand_label(h, secret, label, NULL, 0, out, 32), HS_ERR_ARG);
	label[249] = '\0'; /* 249 + 6 = 255 */
	assert_int_equal(hkdf_expand_label(h, secret, label, NULL, 0, out, 32), 0);
	assert_int_equal(hkdf_expand_label(h, secret, "l", ctx, 256, out, 32), HS_ERR_ARG);
	assert_int_equal(hkdf_expand_label(h, secret, "l", ctx, 255, out, 32), 0);
}

/* HkdfLabel built by hand (RFC 8446 7.1), the reference for the next test */
static size_t hkdf_label_info(const char *label, const uint8_t *ctx, size_t ctx_len,
			      size_t out_len, uint8_t *info)
{
	size_t n = 0, l = strlen(label);

	info[n++] = (uint8_t)(out_len >> 8);
	info[n++] = (uint8_t)out_len;
	info[n++] = (uint8_t)(6 + l);
	memcpy(info + n, "tls13 ", 6);
	memcpy(info + n + 6, label, l);
	n += 6 + l;
	info[n++] = (uint8_t)ctx_len;
	if (ctx_len > 0)
		memcpy(info + n, ctx, ctx_len);
	return n + ctx_len;
}

/* hkdf_expand_labels (one keyed HMAC) equals one hkdf_expand per label,
 * outputs longer than a block and in place over the secret included; a bad
 * label refuses the whole call before any output. */
static void check_expand_labels(const struct hash *h)
{
	uint8_t secret[HS_HASH_MAX_LEN], ctx[HS_HASH_MAX_LEN], info[600];
	uint8_t key[32], iv[12], a[HS_HASH_MAX_LEN], lng[150], in_place[HS_HASH_MAX_LEN];
	uint8_t want[150];
	size_t hl = h->digest_len;

	for (size_t i = 0; i < sizeof(secret); i++) {
		secret[i] = (uint8_t)(0x40 + i);
		ctx[i] = (uint8_t)(0x90 ^ i);
	}
	memcpy(in_place, secret, sizeof(in_place));
	const struct hkdf_label l[] = {
		{ .label = "key", .out = key, .out_len = sizeof(key) },
		{ .label = "iv", .out = iv, .out_len = sizeof(iv) },
		{ .label = "c hs traffic", .context = ctx, .context_len = hl, .out = a,
		  .out_len = hl },
		{ .label = "long", .context = ctx, .context_len = 7, .out = lng,
		  .out_len = sizeof(lng) },
		{ .label = "derived", .context = h->empty, .context_len = hl, .out = in_place,
		  .out_len = hl },
	};
	size_t n = sizeof(l) / sizeof(l[0]);

	assert_int_equal(hkdf_expand_labels(h, in_place, l, n), 0);
	for (size_t i = 0; i < n; i++) {
		size_t il = hkdf_label_info(l[i].label, l[i].context, l[i].context_len,
					    l[i].out_len, info);

		assert_int_equal(hkdf_expand(h, secret, hl, info, il, want, l[i].out_len), 0);
		assert_memory_equal(l[i].out, want, l[i].out_len);
	}
	assert_int_equal(hkdf_expand_labels(h, secret, l, 0), 0);

	/* the last label's context is too long: nothing is written */
	struct hkdf_label bad[3];
	memcpy(bad, l, sizeof(bad));
	bad[2].context_len = 256;
	memset(key, 0xa5, sizeof(key));
	memset(iv, 0xa5, sizeof(iv));
	assert_int_equal(hkdf_expand_labels(h, secret, bad, 3), HS_ERR_ARG);
	for (size_t i = 0; i < sizeof(key); i++)
		assert_int_equal(key[i], 0xa5);
	for (size_t i = 0; i < sizeof(iv); i++)
		assert_int_equal(iv[i], 0xa5);
	bad[2].context_len = hl;
	bad[2].out_len = 255 * hl + 1;
	assert_int_equal(hkdf_expand_labels(h, secret, bad, 3), HS_ERR_TOO_LONG);
}

static void test_expand_labels(void **state)
{
	(void)state;
	const struct hash *t[2];
	int nt = sha256_tables(t);

	for (int b = 0; b < nt; b++)
		check_expand_labels(t[b]);
	check_expand_labels(hash_sha384());
}

/* ---- RFC 8448 section 3 ------------------------------------------------ */

/* Handshake messages as RFC 8448 section 3 prints them ({client} construct
 * a ClientHello, {server} construct a ServerHello / EncryptedExtensions /
 * Certificate / CertificateVerify / Finished). */
static const char RFC8448_CH[] = /* 196 bytes */
	"010000c00303cb34ecb1e78163ba1c38c6dacb196a6dffa21a8d9912ec18a2ef"
	"6283024dece7000006130113031302010000910000000b000900000673657276"
	"6572ff01000100000a00140012001d0017001800190100010101020103010400"
	"230000003300260024001d002099381de560e4bd43d23d8e435a7dbafeb3c06e"
	"51c13cae4d5413691e529aaf2c002b0003020304000d0020001e040305030603"
	"020308040805080604010501060102010402050206020202002d00020101001c"
	"00024001";
static const char RFC8448_SH[] = /* 90 bytes */
	"020000560303a6af06a4121860dc5e6e60249cd34c95930c8ac5cb1434dac155"
	"772ed3e2692800130100002e00330024001d0020c9828876112095fe66762bdb"
	"f7c672e156d6cc253b833df1dd69b1b04e751f0f002b00020304";
static const char RFC8448_EE[] = /* 40 bytes */
	"080000240022000a00140012001d00170018001901000101010201030104001c"
	"0002400100000000";
static const char RFC8448_CERT[] = /* 445 bytes */
	"0b0001b9000001b50001b0308201ac30820115a003020102020102300d06092a"
	"864886f70d01010b0500300e310c300a06035504031303727361301e170d3136"
	"303733303031323335395a170d3236303733303031323335395a300e310c300a"
	"0603550403130372736130819f300d06092a864886f70d010101050003818d00"
	"30818902818100b4bb498f8279303d980836399b36c6988c0c68de55e1bdb826"
	"d3901a2461eafd2de49a91d015abbc9a95137ace6c1af19eaa6af98c7ced4312"
	"0998e187a80ee0ccb0524b1b018c3e0b63264d449a6d38e22a5fda4308467480"
	"30530ef0461c8ca9d9efbfae8ea6d1d03e2bd193eff0ab9a8002c47428a6d35a"
	"8d88d79f7f1e3f0203010001a31a301830090603551d1304023000300b060355"
	"1d0f0404030205a0300d06092a864886f70d01010b05000381810085aad2a0e5"
	"b9276b908c65f73a7267170618a54c5f8a7b337d2df7a594365417f2eae8f8a5"
	"8c8f8172f9319cf36b7fd6c55b80f21a03015156726096fd335e5e67f2dbf102"
	"702e608ccae6bec1fc63a42a99be5c3eb7107c3c54e9b9eb2bd5203b1c3b84e0"
	"a8b2f759409ba3eac9d91d402dcc0cc8f8961229ac9187b42b4de10000";
static const char RFC8448_CV[] = /* 136 bytes */
	"0f000084080400805a747c5d88fa9bd2e55ab085a61015b7211f824cd484145a"
	"b3ff52f1fda8477b0b7abc90db78e2d33a5c141a078653fa6bef780c5ea248ee"
	"aaa785c4f394cab6d30bbe8d4859ee511f602957b15411ac027671459e46445c"
	"9ea58c181e818e95b8c3fb0bf3278409d3be152a3da5043e063dda65cdf5aea2"
	"0d53dfacd42f74f3";
static const char RFC8448_SFIN[] = /* 36 bytes */
	"140000209b9b141d906337fbd2cbdce71df4deda4ab42c309572cb7fffee5454"
	"b78f0718";

/* Secrets and hashes as RFC 8448 section 3 prints them. */
static const char SHARED[] = "8bd4054fb55b9d63fdfbacf9f04b9f0d35e6d63f537563efd46272900f89492d";
static const char EARLY[] = "33ad0a1c607ec03b09e6cd9893680ce210adf300aa1f2660e1b22e10f170f92a";
static const char DERIVED_HS[] = "6f2615a108c702c5678f54fc9dbab69716c076189c48250cebeac3576c3611ba";
static const char HS_SECRET[] = "1dc826e93606aa6fdc0aadc12f741b01046aa6b99f691ed221a9f0ca043fbeac";
static const char TH_HELLO[] = "860c06edc07858ee8e78f0e7428c58edd6b43f2ca3e6e95f02ed063cf0e1cad8";
static const char C_HS[] = "b3eddb126e067f35a780b3abf45e2d8f3b1a950738f52e9600746a0e27a55a21";
static const char S_HS[] = "b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38";
static const char DERIVED_MS[] = "43de77e0c77713859a944db9db2590b53190a65b3ee2e4f12dd7a0bb7ce254b4";
static const char MASTER[] = "18df06843d13a08bf2a449844c5f8a478001bc4d4c627984d5a41da8d0402919";
static const char TH_CV[] = "edb7725fa7a3473b031ec8ef65a2485493900138a2b91291407d7951a06110ed";
static const char TH_SFIN[] = "9608102a0f1ccc6db6250b7b7e417b1a000eaada3daae4777a7686c9ff83df13";
static const char C_AP[] = "9e40646ce79a7f9dc05af8889bce6552875afa0b06df0087f792ebb7c17504a5";
static const char S_AP[] = "a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643";
static const char EXP_MASTER[] = "fe22f881176eda18eb8f44529e6792c50c9a3f89452f68d8ae311b4309d3cf50";
static const char S_FIN_KEY[] = "008d3b66f816ea559f96b537e885c31fc068bf492c652f01f288a1d8cdc19fc8";
static const char C_FIN_KEY[] = "b80ad01015fb2f0bd65ff7d4da5d6bf83f84821d1f87fdc7d3c75b5a7b42d9c4";
/* {client} construct a Finished handshake message */
static const char RFC8448_CFIN[] =
	"14000020a8ec436d677634ae525ac1fcebe11a039ec17694fac6e98527b642f2edd5ce61";
static const char TH_CFIN[] = "209145a96ee8e2a122ff810047cc952684658d6049e86429426db87c54ad143d";
static const char RES_MASTER[] = "7df235f2031d2a051287d02b0241b0bfdaf86cc856231f2d5aba46c434ec196c";

/* write_key / write_iv of each traffic secret (RFC 8448 "derive write
 * traffic keys for handshake/application data"). */
static const struct {
	const char *secret, *key, *iv;
} TRAFFIC_KEYS[] = {
	{ S_HS, "3fce516009c21727d0f2e4e86ee403bc", "5d313eb2671276ee13000b30" },
	{ C_HS, "dbfaa693d1762c5b666af5d950258d01", "5bd3c71b836e0b76bb73265f" },
	{ S_AP, "9f02283b6c9c07efc26bb9f2ac92e356", "cf782b88dd83549aadf1e984" },
	{ C_AP, "17422dda596ed5d9acd890e3c63f5051", "5b78923dee08579033e523d9" },
};

/* Feed one printed message into the transcript. */
static void transcript_add(const struct hash *h, union hash_ctx *c, const char *hex)
{
	size_t n;
	uint8_t *m = unhex(hex, &n);

	h->update(c, m, n);
	free(m);
}

/* The transcript hash so far, leaving the running context usable. */
static void transcript_peek(const struct hash *h, const union hash_ctx *c, uint8_t *out)
{
	union hash_ctx copy = *c;

	h->final(&copy, out);
}

static void check_derive(const struct hash *h, const char *secret_hex, const char *label,
			 const uint8_t *th, const char *want)
{
	uint8_t secret[32], out[32];

	assert_int_equal(hex_decode_to(secret_hex, secret, 32), 0);
	assert_int_equal(derive_secret(h, secret, label, th, out), 0);
	check_hex(out, want, 32);
}

/* The handshake secrets: early, derived, handshake, c/s hs traffic. */
static void rfc8448_handshake_part(const struct hash *h, const uint8_t th_hello[32])
{
	uint8_t zeros[32] = { 0 }, empty_hash[32], secret[32], shared[32], out[32];

	hash_digest(h, "", 0, empty_hash);
	hkdf_extract(h, zeros, 32, zeros, 32, secret); /* no PSK: salt 0, IKM 0^32 */
	check_hex(secret, EARLY, 32);
	hkdf_extract(h, NULL, 0, zeros, 32, secret); /* a missing salt is the same */
	check_hex(secret, EARLY, 32);
	assert_int_equal(derive_secret(h, secret, "derived", empty_hash, out), 0);
	check_hex(out, DERIVED_HS, 32);
	assert_int_equal(hex_decode_to(SHARED, shared, 32), 0);
	hkdf_extract(h, out, 32, shared, 32, secret);
	check_hex(secret, HS_SECRET, 32);
	check_derive(h, HS_SECRET, "c hs traffic", th_hello, C_HS);
	check_derive(h, HS_SECRET, "s hs traffic", th_hello, S_HS);
	check_derive(h, HS_SECRET, "derived", empty_hash, DERIVED_MS);
	assert_int_equal(hex_decode_to(DERIVED_MS, secret, 32), 0);
	hkdf_extract(h, secret, 32, zeros, 32, out);
	check_hex(out, MASTER, 32);
}

/* finished_key = HKDF-Expand-Label(secret, "finished", "", 32) and
 * verify_data = HMAC(finished_key, transcript hash). */
static void finished(const struct hash *h, const char *secret_hex, const char *key_hex,
		     const uint8_t *th, uint8_t verify_data[32])
{
	uint8_t secret[32], fkey[32];

	assert_int_equal(hex_decode_to(secret_hex, secret, 32), 0);
	assert_int_equal(hkdf_expand_label(h, secret, "finished", NULL, 0, fkey, 32), 0);
	check_hex(fkey, key_hex, 32);
	hmac(h, fkey, 32, th, 32, verify_data);
}

static void rfc8448_traffic_keys(const struct hash *h)
{
	for (size_t i = 0; i < sizeof(TRAFFIC_KEYS) / sizeof(TRAFFIC_KEYS[0]); i++) {
		uint8_t secret[32], key[16], iv[12];

		assert_int_equal(hex_decode_to(TRAFFIC_KEYS[i].secret, secret, 32), 0);
		assert_int_equal(hkdf_expand_label(h, secret, "key", NULL, 0, key, 16), 0);
		assert_int_equal(hkdf_expand_label(h, secret, "iv", NULL, 0, iv, 12), 0);
		check_hex(key, TRAFFIC_KEYS[i].key, 16);
		check_hex(iv, TRAFFIC_KEYS[i].iv, 12);
	}
}

static void rfc8448_run(const struct hash *h)
{
	union hash_ctx tr;
	uint8_t th[32], vd[32], sfin[36], cfin[36];

	h->init(&tr);
	transcript_add(h, &tr, RFC8448_CH);
	transcript_add(h, &tr, RFC8448_SH);
	transcript_peek(h, &tr, th);
	check_hex(th, TH_HELLO, 32);
	rfc8448_handshake_part(h, th);

	transcript_add(h, &tr, RFC8448_EE);
	transcript_add(h, &tr, RFC8448_CERT);
	transcript_add(h, &tr, RFC8448_CV);
	transcript_peek(h, &tr, th);
	check_hex(th, TH_CV, 32);
	finished(h, S_HS, S_FIN_KEY, th, vd);
	assert_int_equal(hex_decode_to(RFC8448_SFIN, sfin, 36), 0);
	assert_memory_equal(sfin + 4, vd, 32); /* the server's printed Finished */

	transcript_add(h, &tr, RFC8448_SFIN);
	transcript_peek(h, &tr, th);
	check_hex(th, TH_SFIN, 32);
	check_derive(h, MASTER, "c ap traffic", th, C_AP);
	check_derive(h, MASTER, "s ap traffic", th, S_AP);
	check_derive(h, MASTER, "exp master", th, EXP_MASTER);
	finished(h, C_HS, C_FIN_KEY, th, vd);
	cfin[0] = 0x14, cfin[1] = 0, cfin[2] = 0, cfin[3] = 32;
	memcpy(cfin + 4, vd, 32);
	check_hex(cfin, RFC8448_CFIN, 36);

	transcript_add(h, &tr, RFC8448_CFIN);
	h->final(&tr, th);
	check_hex(th, TH_CFIN, 32);
	check_derive(h, MASTER, "res master", th, RES_MASTER);
	rfc8448_traffic_keys(h);
}

static void test_rfc8448_simple_1rtt(void **state)
{
	(void)state;
	const struct hash *t[2];
	int nt = sha256_tables(t);

	for (int b = 0; b < nt; b++)
		rfc8448_run(t[b]);
	printf("# RFC 8448 key schedule checked on %d SHA-256 backend(s)\n", nt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4231),
		cmocka_unit_test(test_hmac_final_wipes),
		cmocka_unit_test(test_rfc5869),
		cmocka_unit_test(test_hkdf_too_long),
		cmocka_unit_test(test_expand_label_limits),
		cmocka_unit_test(test_expand_labels),
		cmocka_unit_test(test_rfc8448_simple_1rtt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
