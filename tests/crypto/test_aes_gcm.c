/*
 * Proves the AES-GCM backends right and interchangeable:
 * - the bitsliced S-box circuit equals the AES S-box on all 256 bytes
 *   (reference computed here from its definition: inverse in GF(2^8),
 *   then the affine map), and the key schedule matches FIPS-197 A.1/A.3;
 * - the AES block matches FIPS-197 (appendix B and C.1/C.3, 128- and
 *   256-bit keys) on the portable code in every one of its four block
 *   slots, and on every accelerated backend this CPU has (AES-NI, VAES);
 * - seal/open match the GCM spec's test cases with 96-bit IVs (McGrew and
 *   Viega, "The Galois/Counter Mode of Operation", cases 1-4 and 13-16),
 *   out of place and in place, on every backend;
 * - flipping any bit of ciphertext, tag or AD makes open return
 *   HS_ERR_BAD_TAG and leave only zeros in out; short inputs are rejected;
 * - the accelerated backends equal the portable one bit for bit (every
 *   length 0..1100 and random lengths up to 4 KiB, random AD, in place
 *   and out of place);
 * - the table contract: sizes, getters, forced-portable dispatch, wipe.
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
#include "crypto/aes_ct.h"
#include "crypto/asm/aes_gcm_asm.h"
#if defined(__x86_64__)
#include "crypto/asm/aes_ni_key.h"
#endif
#include "crypto/cpu.h"
#include "testutil.h"

/* ---- backends ---- */

static const struct aead *(*const getters128[])(void) = {
	aead_aes128gcm_portable,
	aead_aes128gcm_aesni,
	aead_aes128gcm_vaes512,
};
static const struct aead *(*const getters256[])(void) = {
	aead_aes256gcm_portable,
	aead_aes256gcm_aesni,
	aead_aes256gcm_vaes512,
};
#define N_BACKENDS (sizeof(getters128) / sizeof(getters128[0]))

static const struct aead *backend(size_t key_len, size_t i)
{
	return key_len == 16 ? getters128[i]() : getters256[i]();
}

static void print_backends(void)
{
	for (size_t i = 0; i < N_BACKENDS; i++) {
		const struct aead *a = getters128[i]();
		printf("# backend %zu: %s\n", i, a ? a->name : "SKIPPED (CPU lacks it)");
	}
}

/* ---- helpers ---- */

static void hex_to(const char *h, uint8_t *out, size_t n)
{
	assert_int_equal(hex_decode_to(h, out, n), 0);
}

static uint8_t *hex(const char *h, size_t *len)
{
	uint8_t *b = hex_decode(h, len);
	assert_non_null(b);
	return b;
}

static void init_ok(const struct aead *a, struct aead_ctx *ctx, const uint8_t *key)
{
	assert_int_equal(a->init(ctx, key), 0);
}

/* ---- S-box and key schedule ---- */

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	for (int i = 0; i < 8; i++) {
		if (b & 1)
			r ^= a;
		a = (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
		b >>= 1;
	}
	return r;
}

/* FIPS-197 5.1.1: multiplicative inverse, then the affine transformation. */
static uint8_t sbox_ref(uint8_t x)
{
	uint8_t inv = 0, s = 0x63;

	for (int b = 1; b < 256 && x != 0; b++)
		if (gf_mul(x, (uint8_t)b) == 1)
			inv = (uint8_t)b;
	for (int i = 0; i < 5; i++) {
		s ^= inv;
		inv = (uint8_t)((inv << 1) | (inv >> 7));
	}
	return s;
}

static void test_sbox(void **state)
{
	(void)state;
	for (uint32_t x = 0; x < 256; x++) {
		/* four different bytes per word, so lanes cannot mix unnoticed */
		uint32_t b[4] = { x, (x + 1) & 255, (x * 7 + 3) & 255, 255 - x };
		uint32_t w = b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24;
		uint32_t s = aes_ct_subword(w);
		for (int j = 0; j < 4; j++)
			assert_int_equal((s >> (8 * j)) & 255, sbox_ref((uint8_t)b[j]));
	}
}

static void test_key_schedule(void **state)
{
	(void)state;
	uint8_t key[32], rk[240], want[16];

	/* FIPS-197 A.1: w[40..43] */
	hex_to("2b7e151628aed2a6abf7158809cf4f3c", key, 16);
	assert_int_equal(aes_ct_expand(rk, key, 16), 10);
	hex_to("d014f9a8c9ee2589e13f0cc8b6630ca6", want, 16);
	assert_memory_equal(rk + 160, want, 16);
	/* FIPS-197 A.3: w[56..59] */
	hex_to("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4", key, 32);
	assert_int_equal(aes_ct_expand(rk, key, 32), 14);
	hex_to("fe4890d1e6188d0b046df344706c631e", want, 16);
	assert_memory_equal(rk + 224, want, 16);
	/* FIPS-197 A.2: w[48..51] (no AES-192 AEAD, but the schedule is generic) */
	hex_to("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", key, 24);
	assert_int_equal(aes_ct_expand(rk, key, 24), 12);
	hex_to("e98ba06f448c773c8ecc720401002202", want, 16);
	assert_memory_equal(rk + 192, want, 16);
	assert_int_equal(aes_ct_expand(rk, key, 20), 0);
}

#if defined(__x86_64__)
/* the inline schedule needs a caller compiled for AES-NI */
static AES_NI_KEY_TARGET unsigned ni_expand(uint8_t rk[240], const uint8_t *key, size_t len)
{
	return aes_expand_aesni(rk, key, len);
}
#endif

/*
 * The AESKEYGENASSIST schedule of the AES-NI and VAES backends
 * (crypto/asm/aes_ni_key.h) against the portable one: random keys of
 * every length, and the lengths it refuses.
 */
static void test_key_schedule_aesni(void **state)
{
	(void)state;
	if (!cpu_has(HS_CPU_AESNI)) {
		printf("# aes: no AES-NI here: only the portable key schedule\n");
		skip();
	}
#if defined(__x86_64__)
	static const size_t lens[3] = { 16, 24, 32 };
	struct test_rng rng;
	uint8_t key[32], rk1[240], rk2[240];

	test_rng_init(&rng, 0xae5);
	for (int i = 0; i < 300; i++) {
		size_t len = lens[i % 3];

		test_rng_bytes(&rng, key, sizeof(key));
		memset(rk1, 0x55, sizeof(rk1));
		memset(rk2, 0xaa, sizeof(rk2));
		unsigned r1 = aes_ct_expand(rk1, key, len), r2 = ni_expand(rk2, key, len);

		assert_int_equal(r1, r2);
		assert_memory_equal(rk1, rk2, 16 * (r1 + 1));
	}
	assert_int_equal(ni_expand(rk2, key, 20), 0);
#endif
}

/* ---- FIPS-197 block vectors ---- */

struct block_kat {
	const char *key, *pt, *ct;
};

static const struct block_kat block_kats[] = {
	/* FIPS-197 appendix B */
	{ "2b7e151628aed2a6abf7158809cf4f3c", "3243f6a8885a308d313198a2e0370734",
	  "3925841d02dc09fbdc118597196a0b32" },
	/* FIPS-197 C.1 */
	{ "000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff",
	  "69c4e0d86a7b0430d8cdb78070b4c55a" },
	/* FIPS-197 C.3 */
	{ "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
	  "00112233445566778899aabbccddeeff", "8ea2b7ca516745bfeafc49904b496089" },
};

static void test_block_portable(void **state)
{
	(void)state;
	for (size_t v = 0; v < sizeof(block_kats) / sizeof(block_kats[0]); v++) {
		const struct block_kat *t = &block_kats[v];
		struct aes_ct_key k;
		uint8_t key[32], pt[16], ct[16], buf[64], out[64];
		size_t klen = strlen(t->key) / 2;

		hex_to(t->key, key, klen);
		hex_to(t->pt, pt, 16);
		hex_to(t->ct, ct, 16);
		assert_int_equal(aes_ct_init(&k, key, klen), 0);
		/* the vector in slot s, different junk in the other slots */
		for (int s = 0; s < 4; s++) {
			for (int i = 0; i < 64; i++)
				buf[i] = (uint8_t)(i * 37 + s);
			memcpy(buf + 16 * s, pt, 16);
			aes_ct_encrypt4(&k, buf, out);
			assert_memory_equal(out + 16 * s, ct, 16);
			aes_ct_encrypt4(&k, buf, buf); /* in place */
			assert_memory_equal(buf, out, 64);
		}
	}
	{
		struct aes_ct_key k;
		uint8_t key[32] = { 0 };
		assert_int_equal(aes_ct_init(&k, key, 15), HS_ERR_ARG);
	}
}

/* The accelerated backends' raw block, through their own init. */
struct block_backend {
	const struct aead *(*get)(void);
	int (*init)(void *ctx, const uint8_t *key, size_t key_len);
	void (*block)(const void *ctx, const uint8_t in[16], uint8_t out[16]);
};

static const struct block_backend block_backends[] = {
	{ aead_aes128gcm_aesni, aes_gcm_aesni_init, aes_gcm_aesni_block },
	{ aead_aes128gcm_vaes512, aes_gcm_vaes512_init, aes_gcm_vaes512_block },
};

static void test_block_accelerated(void **state)
{
	(void)state;
	for (size_t b = 0; b < sizeof(block_backends) / sizeof(block_backends[0]); b++) {
		const struct block_backend *bb = &block_backends[b];
		if (bb->get() == NULL) {
			printf("# block backend %zu: SKIPPED (CPU lacks it)\n", b);
			continue;
		}
		for (size_t v = 0; v < sizeof(block_kats) / sizeof(block_kats[0]); v++) {
			const struct block_kat *t = &block_kats[v];
			struct aead_ctx ctx;
			uint8_t key[32], pt[16], ct[16], out[16];
			size_t klen = strlen(t->key) / 2;

			hex_to(t->key, key, klen);
			hex_to(t->pt, pt, 16);
			hex_to(t->ct, ct, 16);
			assert_int_equal(bb->init(&ctx, key, klen), 0);
			bb->block(&ctx, pt, out);
			assert_memory_equal(out, ct, 16);
		}
		printf("# %s: FIPS-197 blocks ok\n", bb->get()->name);
	}
}

/* ---- GCM spec test cases (96-bit IVs) ---- */

#define GCM_P "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" \
	      "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
#define GCM_P60 "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" \
		"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
#define GCM_A "feedfacedeadbeeffeedfacedeadbeefabaddad2"
#define GCM_K "feffe9928665731c6d6a8f9467308308"
#define GCM_IV "cafebabefacedbaddecaf888"
#define Z16 "00000000000000000000000000000000"
#define Z12 "000000000000000000000000"

struct gcm_kat {
	int tc; /* test case number in the GCM spec */
	const char *key, *iv, *pt, *ad, *ct, *tag;
};

static const struct gcm_kat gcm_kats[] = {
	{ 1, Z16, Z12, "", "", "", "58e2fccefa7e3061367f1d57a4e7455a" },
	{ 2, Z16, Z12, Z16, "", "0388dace60b6a392f328c2b971b2fe78",
	  "ab6e47d42cec13bdf53a67b21257bddf" },
	{ 3, GCM_K, GCM_IV, GCM_P, "",
	  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
	  "4d5c2af327cd64a62cf35abd2ba6fab4" },
	{ 4, GCM_K, GCM_IV, GCM_P60, GCM_A,
	  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
	  "5bc94fbc3221a5db94fae95ae7121a47" },
	{ 13, Z16 Z16, Z12, "", "", "", "530f8afbc74536b9a963b4f1c4cb738b" },
	{ 14, Z16 Z16, Z12, Z16, "", "cea7403d4d606b6e074ec5d3baf39d18",
	  "d0d1c8a799996bf0265b98b5d48ab919" },
	{ 15, GCM_K GCM_K, GCM_IV, GCM_P, "",
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
	  "b094dac5d93471bdec1a502270e3cc6c" },
	{ 16, GCM_K GCM_K, GCM_IV, GCM_P60, GCM_A,
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

static void check_gcm_kat(const struct aead *a, const struct gcm_kat *t)
{
	struct aead_ctx ctx;
	size_t klen, plen, alen, clen;
	uint8_t *key = hex(t->key, &klen), *pt = hex(t->pt, &plen), *ad = hex(t->ad, &alen);
	uint8_t *ct = hex(t->ct, &clen), nonce[12], tag[16];
	uint8_t *buf = malloc(plen + 16), *back = malloc(plen + 1);

	assert_non_null(buf);
	assert_non_null(back);
	assert_int_equal(klen, a->key_len);
	assert_int_equal(clen, plen);
	hex_to(t->iv, nonce, 12);
	hex_to(t->tag, tag, 16);
	init_ok(a, &ctx, key);

	a->seal(&ctx, nonce, ad, alen, pt, plen, buf);
	assert_memory_equal(buf, ct, plen);
	assert_memory_equal(buf + plen, tag, 16);
	assert_int_equal(a->open(&ctx, nonce, ad, alen, buf, plen + 16, back), 0);
	assert_memory_equal(back, pt, plen);
	/* in place, both ways */
	memcpy(buf, pt, plen);
	a->seal(&ctx, nonce, ad, alen, buf, plen, buf);
	assert_memory_equal(buf, ct, plen);
	assert_memory_equal(buf + plen, tag, 16);
	assert_int_equal(a->open(&ctx, nonce, ad, alen, buf, plen + 16, buf), 0);
	assert_memory_equal(buf, pt, plen);

	a->wipe(&ctx);
	free(key);
	free(pt);
	free(ad);
	free(ct);
	free(buf);
	free(back);
}

static void test_gcm_kats(void **state)
{
	(void)state;
	print_backends();
	for (size_t i = 0; i < N_BACKENDS; i++) {
		for (size_t v = 0; v < sizeof(gcm_kats) / sizeof(gcm_kats[0]); v++) {
			const struct aead *a = backend(strlen(gcm_kats[v].key) / 2, i);
			if (a == NULL)
				continue;
			printf("# %s: GCM test case %d\n", a->name, gcm_kats[v].tc);
			check_gcm_kat(a, &gcm_kats[v]);
		}
	}
}

/* ---- tampering ---- */

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* open must fail and leave out all zeros (out is pre-filled with junk). */
static void expect_bad(const struct aead *a, const struct aead_ctx *ctx,
		       const uint8_t *nonce, const uint8_t *ad, size_t alen, const uint8_t *ct,
		       size_t clen, uint8_t *out)
{
	memset(out, 0xa5, clen);
	assert_int_equal(a->open(ctx, nonce, ad, alen, ct, clen, out), HS_ERR_BAD_TAG);
	assert_true(all_zero(out, clen - 16));
}

static void tamper_one(const struct aead *a, struct test_rng *rng, size_t plen, size_t alen)
{
	struct aead_ctx ctx;
	uint8_t key[32], nonce[12], ad[40], pt[80], ct[96], out[96];

	test_rng_bytes(rng, key, sizeof(key));
	test_rng_bytes(rng, nonce, sizeof(nonce));
	test_rng_bytes(rng, ad, alen);
	test_rng_bytes(rng, pt, plen);
	init_ok(a, &ctx, key);
	a->seal(&ctx, nonce, ad, alen, pt, plen, ct);
	assert_int_equal(a->open(&ctx, nonce, ad, alen, ct, plen + 16, out), 0);
	assert_memory_equal(out, pt, plen);
	/* every bit of ciphertext and tag */
	for (size_t bit = 0; bit < 8 * (plen + 16); bit++) {
		ct[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		expect_bad(a, &ctx, nonce, ad, alen, ct, plen + 16, out);
		ct[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	/* every bit of the AD */
	for (size_t bit = 0; bit < 8 * alen; bit++) {
		ad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		expect_bad(a, &ctx, nonce, ad, alen, ct, plen + 16, out);
		ad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	/* the nonce, a dropped or an added AD byte, a truncated ciphertext */
	nonce[5] ^= 0x10;
	expect_bad(a, &ctx, nonce, ad, alen, ct, plen + 16, out);
	nonce[5] ^= 0x10;
	if (alen > 0)
		expect_bad(a, &ctx, nonce, ad, alen - 1, ct, plen + 16, out);
	expect_bad(a, &ctx, nonce, ad, alen + 1, ct, plen + 16, out);
	if (plen > 0)
		expect_bad(a, &ctx, nonce, ad, alen, ct, plen + 15, out);
	/* still fine untouched */
	assert_int_equal(a->open(&ctx, nonce, ad, alen, ct, plen + 16, out), 0);
	a->wipe(&ctx);
}

static void test_tamper(void **state)
{
	(void)state;
	static const size_t plens[] = { 0, 1, 15, 16, 17, 33, 64, 80 };
	struct test_rng rng;

	test_rng_init(&rng, 0x7a3e9e0d5eedu);
	for (size_t i = 0; i < N_BACKENDS; i++)
		for (size_t kl = 16; kl <= 32; kl += 16) {
			const struct aead *a = backend(kl, i);
			if (a == NULL)
				continue;
			for (size_t p = 0; p < sizeof(plens) / sizeof(plens[0]); p++)
				tamper_one(a, &rng, plens[p], (p * 7) % 40);
		}
}

static void test_short_input(void **state)
{
	(void)state;
	uint8_t key[32] = { 0 }, nonce[12] = { 0 }, buf[16] = { 0 }, out[16];

	for (size_t i = 0; i < N_BACKENDS; i++)
		for (size_t kl = 16; kl <= 32; kl += 16) {
			const struct aead *a = backend(kl, i);
			struct aead_ctx ctx;
			if (a == NULL)
				continue;
			init_ok(a, &ctx, key);
			for (size_t n = 0; n < 16; n++)
				assert_int_equal(a->open(&ctx, nonce, NULL, 0, buf, n, out),
						 HS_ERR_BAD_TAG);
			/* empty message, empty AD, NULL pointers: seal then open */
			a->seal(&ctx, nonce, NULL, 0, NULL, 0, buf);
			assert_int_equal(a->open(&ctx, nonce, NULL, 0, buf, 16, NULL), 0);
		}
}

/* ---- accelerated == portable ---- */

static void compare_one(const struct aead *ref, const struct aead_ctx *rctx,
			const struct aead *a, const struct aead_ctx *actx,
			struct test_rng *rng, size_t len, size_t alen, uint8_t *buf)
{
	uint8_t *pt = buf, *c1 = buf + 5000, *c2 = buf + 10000, *back = buf + 15000;
	uint8_t nonce[12], ad[64];

	test_rng_bytes(rng, nonce, sizeof(nonce));
	test_rng_bytes(rng, ad, alen);
	test_rng_bytes(rng, pt, len);
	ref->seal(rctx, nonce, ad, alen, pt, len, c1);
	a->seal(actx, nonce, ad, alen, pt, len, c2);
	assert_memory_equal(c1, c2, len + 16);
	/* in place */
	memcpy(c2, pt, len);
	a->seal(actx, nonce, ad, alen, c2, len, c2);
	assert_memory_equal(c1, c2, len + 16);
	assert_int_equal(a->open(actx, nonce, ad, alen, c1, len + 16, back), 0);
	assert_memory_equal(back, pt, len);
	assert_int_equal(a->open(actx, nonce, ad, alen, c2, len + 16, c2), 0);
	assert_memory_equal(c2, pt, len);
	if (len > 0) { /* a bad tag must clear out the same way on both */
		c1[test_rng_below(rng, len + 16)] ^= 1;
		memset(back, 0x33, len);
		assert_int_equal(a->open(actx, nonce, ad, alen, c1, len + 16, back),
				 HS_ERR_BAD_TAG);
		assert_true(all_zero(back, len));
	}
}

static void test_backends_agree(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t *buf = malloc(20000);
	size_t cases = 0;

	assert_non_null(buf);
	test_rng_init(&rng, 0xae5ae5ae5u);
	for (size_t i = 1; i < N_BACKENDS; i++)
		for (size_t kl = 16; kl <= 32; kl += 16) {
			const struct aead *ref = backend(kl, 0), *a = backend(kl, i);
			struct aead_ctx rctx, actx;
			uint8_t key[32];
			if (a == NULL)
				continue;
			for (size_t len = 0; len <= 1100 + 600; len++) {
				/*
				 * every length 0..1100 (two VAES batches and their
				 * tails), then random ones up to 4 KiB; new key every 64
				 */
				size_t n = len <= 1100 ? len : test_rng_below(&rng, 4097);
				if (len % 64 == 0) {
					test_rng_bytes(&rng, key, sizeof(key));
					init_ok(ref, &rctx, key);
					init_ok(a, &actx, key);
				}
				size_t alen = test_rng_below(&rng, 65);
				compare_one(ref, &rctx, a, &actx, &rng, n, alen, buf);
				cases++;
			}
		}
	printf("# %zu accelerated-vs-portable cases\n", cases);
	free(buf);
}

/* ---- table contract ---- */

static void test_table(void **state)
{
	(void)state;
	uint8_t key[32] = { 1 };

	for (size_t i = 0; i < N_BACKENDS; i++)
		for (size_t kl = 16; kl <= 32; kl += 16) {
			const struct aead *a = backend(kl, i);
			struct aead_ctx ctx;
			if (a == NULL)
				continue;
			assert_int_equal(a->key_len, kl);
			assert_int_equal(a->nonce_len, 12);
			assert_int_equal(a->tag_len, 16);
			assert_true(a->ctx_size <= HS_AEAD_CTX_MAX);
			assert_non_null(strstr(a->name, kl == 16 ? "AES-128-GCM" : "AES-256-GCM"));
			memset(&ctx, 0x5c, sizeof(ctx));
			init_ok(a, &ctx, key);
			a->wipe(&ctx);
			assert_true(all_zero(ctx.buf, a->ctx_size));
		}
	/* best getters: the fastest present, portable when forced */
	for (size_t kl = 16; kl <= 32; kl += 16) {
		const struct aead *best = kl == 16 ? aead_aes128gcm() : aead_aes256gcm();
		const struct aead *want = backend(kl, 0);
		for (size_t i = 1; i < N_BACKENDS; i++)
			if (backend(kl, i) != NULL)
				want = backend(kl, i);
		assert_true(best == want);
	}
	cpu_force_portable(1);
	for (size_t i = 1; i < N_BACKENDS; i++) {
		assert_null(backend(16, i));
		assert_null(backend(32, i));
	}
	assert_true(aead_aes128gcm() == aead_aes128gcm_portable());
	assert_true(aead_aes256gcm() == aead_aes256gcm_portable());
	cpu_force_portable(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sbox),
		cmocka_unit_test(test_key_schedule),
		cmocka_unit_test(test_key_schedule_aesni),
		cmocka_unit_test(test_block_portable),
		cmocka_unit_test(test_block_accelerated),
		cmocka_unit_test(test_gcm_kats),
		cmocka_unit_test(test_tamper),
		cmocka_unit_test(test_short_input),
		cmocka_unit_test(test_backends_agree),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
