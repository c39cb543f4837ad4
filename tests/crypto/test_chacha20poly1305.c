/*
 * Proves ChaCha20, Poly1305 and the ChaCha20-Poly1305 AEAD match RFC 8439
 * (block function 2.3.2 and A.1, encryption 2.4.2 and A.2, Poly1305 2.5.2
 * and A.3 including the reduction edge cases, key generation 2.6.2 and
 * A.4, AEAD 2.8.2 and A.5) on every backend this CPU has; that the SIMD
 * backends are bit-identical to the portable code (ChaCha20: every length
 * 0..1100 and beyond, counter wrap, masks, in place; Poly1305: random and
 * extreme keys and messages, whole or in pieces; AEAD: random inputs, and
 * every batch and chunk edge up to 20000 bytes, in place and out of place);
 * that flipping any bit of ciphertext, tag or AD makes open fail with
 * HS_ERR_BAD_TAG leaving only zeros in out; and the table contract
 * (sizes, init copies the key, wipe zeroes, dispatch, forced portable).
 *
 * Test vectors: RFC 8439 (section numbers beside each).
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
#include "crypto/chacha20.h"
#include "crypto/cpu.h"
#include "crypto/poly1305.h"
#include "testutil.h"

/* ---- backends ---- */

struct xor_backend {
	const char *name;
	void (*fn)(const uint32_t st[16], const uint8_t *in, size_t len, uint8_t *out,
		   uint32_t mask);
	uint32_t needs; /* cpu_has() mask */
};

static const struct xor_backend xor_backends[] = {
	{ "portable", chacha20_xor_portable, 0 },
#if defined(__x86_64__)
	{ "avx2", chacha20_xor_avx2, HS_CPU_AVX2 },
	{ "avx512", chacha20_xor_avx512, HS_CPU_AVX512F | HS_CPU_AVX2 },
#endif
};
#define N_XOR (sizeof(xor_backends) / sizeof(xor_backends[0]))

static int xor_usable(size_t i)
{
	return xor_backends[i].needs == 0 || cpu_has(xor_backends[i].needs);
}

struct mac_backend {
	const char *name;
	poly1305_blocks_fn *fn;
	uint32_t needs;
};

static const struct mac_backend mac_backends[] = {
	{ "portable", poly1305_blocks_portable, 0 },
#if defined(__x86_64__)
	{ "avx2", poly1305_blocks_avx2, HS_CPU_AVX2 },
	{ "avx512", poly1305_blocks_avx512, HS_CPU_AVX512F | HS_CPU_AVX2 },
	{ "avx512ifma", poly1305_blocks_avx512ifma,
	  HS_CPU_AVX512F | HS_CPU_AVX512IFMA | HS_CPU_AVX2 },
#endif
};
#define N_MAC (sizeof(mac_backends) / sizeof(mac_backends[0]))

static int mac_usable(size_t i)
{
	return mac_backends[i].needs == 0 || cpu_has(mac_backends[i].needs);
}

static const struct aead *(*const aead_getters[])(void) = {
	aead_chacha20poly1305_portable,
	aead_chacha20poly1305_avx2,
	aead_chacha20poly1305_avx512,
	aead_chacha20poly1305_avx512ifma,
};
#define N_AEAD (sizeof(aead_getters) / sizeof(aead_getters[0]))

static void print_backends(void)
{
	for (size_t i = 0; i < N_XOR; i++)
		printf("# chacha20 %s: %s\n", xor_backends[i].name,
		       xor_usable(i) ? "tested" : "SKIPPED (CPU lacks it)");
	for (size_t i = 0; i < N_MAC; i++)
		printf("# poly1305 %s: %s\n", mac_backends[i].name,
		       mac_usable(i) ? "tested" : "SKIPPED (CPU lacks it)");
	for (size_t i = 0; i < N_AEAD; i++)
		if (aead_getters[i]() != NULL)
			printf("# aead: %s\n", aead_getters[i]()->name);
}

/* ---- helpers ---- */

static uint8_t *hex(const char *h, size_t *len)
{
	uint8_t *b = hex_decode(h, len);
	assert_non_null(b);
	return b;
}

static void hex_to(const char *h, uint8_t *out, size_t n)
{
	assert_int_equal(hex_decode_to(h, out, n), 0);
}

static void key_seq(uint8_t key[32], uint8_t first)
{
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(first + i);
}

static int all_zero(const uint8_t *p, size_t n)
{
	uint8_t d = 0;
	for (size_t i = 0; i < n; i++)
		d |= p[i];
	return d == 0;
}

/* ---- RFC 8439 texts ---- */

static const char SUNSCREEN[] = "Ladies and Gentlemen of the class of '99: If I could offer you "
				"only one tip for the future, sunscreen would be it.";

static const char IETF[] =
	"Any submission to the IETF intended by the Contributor for publication as all or part "
	"of an IETF Internet-Draft or RFC and any statement made within the context of an IETF "
	"activity is considered an \"IETF Contribution\". Such statements include oral "
	"statements in IETF sessions, as well as written and electronic communications made at "
	"any time or place, which are addressed to";

static const char JABBER[] = "'Twas brillig, and the slithy toves\nDid gyre and gimble in the "
			     "wabe:\nAll mimsy were the borogoves,\nAnd the mome raths "
			     "outgrabe.";

static const char KEY_1C92[] = "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0";

/* ---- ChaCha20 block function: 2.3.2 and A.1 ---- */

static void check_block(const uint8_t key[32], const char *nonce_hex, uint32_t counter,
			const char *want_hex)
{
	uint8_t nonce[12], want[64], got[64];
	uint32_t st[16];

	hex_to(nonce_hex, nonce, 12);
	hex_to(want_hex, want, 64);
	chacha20_init(st, key, nonce, counter);
	chacha20_block(st, got);
	assert_memory_equal(got, want, 64);
	/* the XOR of zeros is the keystream, on every backend */
	for (size_t i = 0; i < N_XOR; i++) {
		uint8_t zeros[64] = { 0 };
		if (!xor_usable(i))
			continue;
		xor_backends[i].fn(st, zeros, 64, got, 0xffffffff);
		assert_memory_equal(got, want, 64);
	}
}

static void test_block_2_3_2(void **state)
{
	(void)state;
	uint8_t key[32];
	uint8_t nonce[12];
	uint32_t st[16];

	key_seq(key, 0);
	/* the state set-up printed in 2.3.2 */
	hex_to("000000090000004a00000000", nonce, 12);
	chacha20_init(st, key, nonce, 1);
	assert_int_equal(st[0], 0x61707865);
	assert_int_equal(st[4], 0x03020100);
	assert_int_equal(st[11], 0x1f1e1d1c);
	assert_int_equal(st[12], 1);
	assert_int_equal(st[13], 0x09000000);
	assert_int_equal(st[14], 0x4a000000);
	assert_int_equal(st[15], 0);
	check_block(key, "000000090000004a00000000", 1,
		    "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
		    "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
}

static void test_block_a1(void **state)
{
	(void)state;
	uint8_t zero[32] = { 0 }, k3[32] = { 0 }, k4[32] = { 0 };

	k3[31] = 1;
	k4[1] = 0xff;
	check_block(zero, "000000000000000000000000", 0,
		    "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
		    "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
	check_block(zero, "000000000000000000000000", 1,
		    "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
		    "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f");
	check_block(k3, "000000000000000000000000", 1,
		    "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
		    "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0");
	check_block(k4, "000000000000000000000000", 2,
		    "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca"
		    "13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096");
	check_block(zero, "000000000000000000000002", 0,
		    "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7"
		    "8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d");
}

/* ---- ChaCha20 encryption: 2.4.2 and A.2 ---- */

static void check_encrypt(const uint8_t key[32], const char *nonce_hex, uint32_t counter,
			  const uint8_t *pt, size_t len, const char *ct_hex)
{
	uint8_t nonce[12];
	uint32_t st[16];
	size_t ct_len;
	uint8_t *ct = hex(ct_hex, &ct_len);
	uint8_t *buf = malloc(len + 1);

	assert_int_equal(ct_len, len);
	hex_to(nonce_hex, nonce, 12);
	chacha20_init(st, key, nonce, counter);
	for (size_t i = 0; i < N_XOR; i++) {
		if (!xor_usable(i))
			continue;
		xor_backends[i].fn(st, pt, len, buf, 0xffffffff);
		assert_memory_equal(buf, ct, len);
		/* decrypt in place */
		xor_backends[i].fn(st, buf, len, buf, 0xffffffff);
		assert_memory_equal(buf, pt, len);
	}
	free(buf);
	free(ct);
}

static void test_encrypt_2_4_2(void **state)
{
	(void)state;
	uint8_t key[32];

	key_seq(key, 0);
	assert_int_equal(strlen(SUNSCREEN), 114);
	check_encrypt(key, "000000000000004a00000000", 1, (const uint8_t *)SUNSCREEN, 114,
		      "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
		      "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
		      "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
		      "5af90bbf74a35be6b40b8eedf2785e42874d");
}

static void test_encrypt_a2(void **state)
{
	(void)state;
	uint8_t zero[64] = { 0 }, k2[32] = { 0 }, k3[32];

	k2[31] = 1;
	hex_to(KEY_1C92, k3, 32);
	assert_int_equal(strlen(IETF), 375);
	assert_int_equal(strlen(JABBER), 127);
	/* #1 */
	check_encrypt(zero, "000000000000000000000000", 0, zero, 64,
		      "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
		      "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
	/* #2 */
	check_encrypt(k2, "000000000000000000000002", 1, (const uint8_t *)IETF, 375,
		      "a3fbf07df3fa2fde4f376ca23e82737041605d9f4f4f57bd8cff2c1d4b7955ec"
		      "2a97948bd3722915c8f3d337f7d370050e9e96d647b7c39f56e031ca5eb6250d"
		      "4042e02785ececfa4b4bb5e8ead0440e20b6e8db09d881a7c6132f420e527950"
		      "42bdfa7773d8a9051447b3291ce1411c680465552aa6c405b7764d5e87bea85a"
		      "d00f8449ed8f72d0d662ab052691ca66424bc86d2df80ea41f43abf937d3259d"
		      "c4b2d0dfb48a6c9139ddd7f76966e928e635553ba76c5c879d7b35d49eb2e62b"
		      "0871cdac638939e25e8a1e0ef9d5280fa8ca328b351c3c765989cbcf3daa8b6c"
		      "cc3aaf9f3979c92b3720fc88dc95ed84a1be059c6499b9fda236e7e818b04b0b"
		      "c39c1e876b193bfe5569753f88128cc08aaa9b63d1a16f80ef2554d7189c411f"
		      "5869ca52c5b83fa36ff216b9c1d30062bebcfd2dc5bce0911934fda79a86f6e6"
		      "98ced759c3ff9b6477338f3da4f9cd8514ea9982ccafb341b2384dd902f3d1ab"
		      "7ac61dd29c6f21ba5b862f3730e37cfdc4fd806c22f221");
	/* #3 */
	check_encrypt(k3, "000000000000000000000002", 42, (const uint8_t *)JABBER, 127,
		      "62e6347f95ed87a45ffae7426f27a1df5fb69110044c0d73118effa95b01e5cf"
		      "166d3df2d721caf9b21e5fb14c616871fd84c54f9d65b283196c7fe4f60553eb"
		      "f39c6402c42234e32a356b3e764312a61a5532055716ead6962568f87d3f3f77"
		      "04c6a8d1bcd1bf4d50d6154b6da731b187b58dfd728afa36757a797ac188d1");
}

/* ---- Poly1305: 2.5.2 and A.3 ---- */

static void check_poly(const char *key_hex, const uint8_t *m, size_t len, const char *tag_hex)
{
	uint8_t key[32], want[16], got[16];
	struct poly1305 st;

	hex_to(key_hex, key, 32);
	hex_to(tag_hex, want, 16);
	poly1305(key, m, len, got);
	assert_memory_equal(got, want, 16);
	for (size_t i = 0; i < N_MAC; i++) {
		if (!mac_usable(i))
			continue;
		poly1305_init_with(&st, key, mac_backends[i].fn);
		poly1305_update(&st, m, len);
		poly1305_final(&st, got);
		assert_memory_equal(got, want, 16);
	}
	/* byte at a time through the streaming interface */
	poly1305_init(&st, key);
	for (size_t i = 0; i < len; i++)
		poly1305_update(&st, m + i, 1);
	poly1305_final(&st, got);
	assert_memory_equal(got, want, 16);
}

static void check_poly_hex(const char *key_hex, const char *m_hex, const char *tag_hex)
{
	size_t len;
	uint8_t *m = hex(m_hex, &len);

	check_poly(key_hex, m, len, tag_hex);
	free(m);
}

static void test_poly1305_2_5_2(void **state)
{
	(void)state;
	const char *msg = "Cryptographic Forum Research Group";

	check_poly("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b",
		   (const uint8_t *)msg, strlen(msg), "a8061dc1305136c6c22b8baf0c0127a9");
}

#define Z16 "00000000000000000000000000000000"
#define F16 "ffffffffffffffffffffffffffffffff"

static void test_poly1305_a3(void **state)
{
	(void)state;
	uint8_t zeros[64] = { 0 };

	/* #1: all zero */
	check_poly(Z16 Z16, zeros, 64, Z16);
	/* #2: r = 0, so the tag is s */
	check_poly(Z16 "36e5f6b5c5e06070f0efca96227a863e", (const uint8_t *)IETF, 375,
		   "36e5f6b5c5e06070f0efca96227a863e");
	/* #3 */
	check_poly("36e5f6b5c5e06070f0efca96227a863e" Z16, (const uint8_t *)IETF, 375,
		   "f3477e7cd95417af89a6b8794c310cf0");
	/* #4 */
	check_poly(KEY_1C92, (const uint8_t *)JABBER, 127, "4541669a7eaaee61e708dc7cbcc5eb62");
	/* #5: partially reduced result not fully reduced */
	check_poly_hex("02000000000000000000000000000000" Z16, F16,
		       "03000000000000000000000000000000");
	/* #6: h + s overflows 2^128 */
	check_poly_hex("02000000000000000000000000000000" F16, "02000000000000000000000000000000",
		       "03000000000000000000000000000000");
	/* #7: all-ones limb with a carry from below */
	check_poly_hex("01000000000000000000000000000000" Z16,
		       F16 "f0ffffffffffffffffffffffffffffff"
			   "11000000000000000000000000000000",
		       "05000000000000000000000000000000");
	/* #8: result exactly 2^130 - 5 */
	check_poly_hex("01000000000000000000000000000000" Z16,
		       F16 "fbfefefefefefefefefefefefefefefe"
			   "01010101010101010101010101010101",
		       Z16);
	/* #9: result exactly 2^130 - 6 */
	check_poly_hex("02000000000000000000000000000000" Z16, "fdffffffffffffffffffffffffffffff",
		       "faffffffffffffffffffffffffffffff");
	/* #10: 5*H+L reduction with a 131-bit intermediate */
	check_poly_hex("01000000000000000400000000000000" Z16,
		       "e33594d7505e43b90000000000000000"
		       "3394d7505e4379cd0100000000000000" Z16 "01000000000000000000000000000000",
		       "14000000000000005500000000000000");
	/* #11: ... and a 131-bit final result */
	check_poly_hex("01000000000000000400000000000000" Z16,
		       "e33594d7505e43b90000000000000000"
		       "3394d7505e4379cd0100000000000000" Z16,
		       "13000000000000000000000000000000");
}

/* Streaming with random split points gives the one-shot tag. */
static void test_poly1305_streaming(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t key[32], m[600], want[16], got[16];
	struct poly1305 st;

	test_rng_init(&rng, 0x9017305);
	for (int iter = 0; iter < 300; iter++) {
		size_t len = test_rng_below(&rng, sizeof(m) + 1), off = 0;

		test_rng_bytes(&rng, key, sizeof(key));
		test_rng_bytes(&rng, m, len);
		poly1305(key, m, len, want);
		poly1305_init(&st, key);
		while (off < len) {
			size_t n = test_rng_below(&rng, 40);
			if (n > len - off)
				n = len - off;
			poly1305_update(&st, m + off, n);
			off += n;
		}
		poly1305_final(&st, got);
		assert_memory_equal(got, want, 16);
	}
}

/*
 * Every SIMD Poly1305 equals the portable one: random keys and messages,
 * and the extremes (largest clamped r, all-ones s and message, which push
 * the limb bounds), lengths 0..2100 (past the 16- and 32-block thresholds),
 * whole or split into random pieces.
 */
static void test_poly1305_backends_identical(void **state)
{
	(void)state;
	enum { MAX = 2100 };
	struct test_rng rng;
	uint8_t *m = malloc(MAX), key[32], want[16], got[16];
	struct poly1305 st;

	assert_non_null(m);
	test_rng_init(&rng, 0x9017);
	for (size_t len = 0; len <= MAX; len = len < 700 ? len + 1 : len + 37) {
		int extreme = len % 4 == 1;

		if (extreme) {
			memset(key, 0xff, sizeof(key));
			memset(m, 0xff, len);
		} else {
			test_rng_bytes(&rng, key, sizeof(key));
			test_rng_bytes(&rng, m, len);
		}
		poly1305(key, m, len, want);
		for (size_t b = 1; b < N_MAC; b++) {
			size_t off = 0;
			if (!mac_usable(b))
				continue;
			poly1305_init_with(&st, key, mac_backends[b].fn);
			poly1305_update(&st, m, len);
			poly1305_final(&st, got);
			assert_memory_equal(got, want, 16);
			/* in pieces: the powers are computed once, h crosses radices */
			poly1305_init_with(&st, key, mac_backends[b].fn);
			while (off < len) {
				size_t n = 1 + test_rng_below(&rng, 700);
				if (n > len - off)
					n = len - off;
				poly1305_update(&st, m + off, n);
				off += n;
			}
			poly1305_final(&st, got);
			assert_memory_equal(got, want, 16);
		}
	}
	free(m);
}

/* ---- Poly1305 key generation: 2.6.2 and A.4 ---- */

static void check_keygen(const uint8_t key[32], const char *nonce_hex, const char *otk_hex)
{
	uint8_t nonce[12], want[32], block[64];
	uint32_t st[16];

	hex_to(nonce_hex, nonce, 12);
	hex_to(otk_hex, want, 32);
	chacha20_init(st, key, nonce, 0);
	chacha20_block(st, block);
	assert_memory_equal(block, want, 32);
}

static void test_keygen(void **state)
{
	(void)state;
	uint8_t k262[32], zero[32] = { 0 }, k2[32] = { 0 }, k3[32];

	key_seq(k262, 0x80);
	k2[31] = 1;
	hex_to(KEY_1C92, k3, 32);
	check_keygen(k262, "000000000001020304050607",
		     "8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646");
	check_keygen(zero, "000000000000000000000000",
		     "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7");
	check_keygen(k2, "000000000000000000000002",
		     "ecfa254f845f647473d3cb140da9e87606cb33066c447b87bc2666dde3fbb739");
	check_keygen(k3, "000000000000000000000002",
		     "965e3bc6f9ec7ed9560808f4d229f94b137ff275ca9b3fcbdd59deaad23310ae");
}

/* ---- AEAD: 2.8.2 and A.5 ---- */

static void test_aead_2_8_2(void **state)
{
	(void)state;
	uint8_t key[32], nonce[12], ad[12], want[114 + 16], out[114 + 16], back[114];
	struct aead_ctx ctx;

	key_seq(key, 0x80);
	hex_to("070000004041424344454647", nonce, 12);
	hex_to("50515253c0c1c2c3c4c5c6c7", ad, 12);
	hex_to("d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
	       "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
	       "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
	       "3ff4def08e4b7a9de576d26586cec64b6116"
	       "1ae10b594f09e26a7e902ecbd0600691",
	       want, sizeof(want));
	for (size_t i = 0; i < N_AEAD; i++) {
		const struct aead *a = aead_getters[i]();
		if (a == NULL)
			continue;
		assert_int_equal(a->init(&ctx, key), 0);
		a->seal(&ctx, nonce, ad, 12, (const uint8_t *)SUNSCREEN, 114, out);
		assert_memory_equal(out, want, sizeof(want));
		assert_int_equal(a->open(&ctx, nonce, ad, 12, out, sizeof(out), back), 0);
		assert_memory_equal(back, SUNSCREEN, 114);
		a->wipe(&ctx);
	}
}

static void test_aead_a5(void **state)
{
	(void)state;
	uint8_t key[32], nonce[12], ad[12], in[265 + 16], want[265], out[265];
	struct aead_ctx ctx;

	hex_to(KEY_1C92, key, 32);
	hex_to("000000000102030405060708", nonce, 12);
	hex_to("f33388860000000000004e91", ad, 12);
	hex_to("64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2"
	       "4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf"
	       "332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855"
	       "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4"
	       "b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e"
	       "af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a"
	       "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10"
	       "49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29"
	       "a6ad5cb4022b02709b"
	       "eead9d67890cbb22392336fea1851f38",
	       in, sizeof(in));
	hex_to("496e7465726e65742d4472616674732061726520647261667420646f63756d65"
	       "6e74732076616c696420666f722061206d6178696d756d206f6620736978206d"
	       "6f6e74687320616e64206d617920626520757064617465642c207265706c6163"
	       "65642c206f72206f62736f6c65746564206279206f7468657220646f63756d65"
	       "6e747320617420616e792074696d652e20497420697320696e617070726f7072"
	       "6961746520746f2075736520496e7465726e65742d4472616674732061732072"
	       "65666572656e6365206d6174657269616c206f7220746f206369746520746865"
	       "6d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67"
	       "726573732e2fe2809d",
	       want, sizeof(want));
	for (size_t i = 0; i < N_AEAD; i++) {
		const struct aead *a = aead_getters[i]();
		uint8_t copy[sizeof(in)];
		if (a == NULL)
			continue;
		assert_int_equal(a->init(&ctx, key), 0);
		assert_int_equal(a->open(&ctx, nonce, ad, 12, in, sizeof(in), out), 0);
		assert_memory_equal(out, want, sizeof(want));
		/* in place */
		memcpy(copy, in, sizeof(in));
		assert_int_equal(a->open(&ctx, nonce, ad, 12, copy, sizeof(copy), copy), 0);
		assert_memory_equal(copy, want, sizeof(want));
		a->wipe(&ctx);
	}
}

/* ---- tampering ---- */

/* open must fail with HS_ERR_BAD_TAG and leave only zeros in out. */
static void expect_bad(const struct aead *a, const void *ctx, const uint8_t *nonce,
		       const uint8_t *ad, size_t ad_len, const uint8_t *in, size_t len)
{
	uint8_t out[256];

	assert_true(len <= sizeof(out) + 16);
	memset(out, 0xa5, sizeof(out));
	assert_int_equal(a->open(ctx, nonce, ad, ad_len, in, len, out), HS_ERR_BAD_TAG);
	if (len >= 16)
		assert_true(all_zero(out, len - 16));
}

static void tamper_one(const struct aead *a, struct test_rng *rng, size_t ad_len,
		       size_t pt_len)
{
	uint8_t key[32], nonce[12], ad[64], pt[160], ct[160 + 16], buf[160 + 16];
	struct aead_ctx ctx;
	size_t ct_len = pt_len + 16;

	test_rng_bytes(rng, key, sizeof(key));
	test_rng_bytes(rng, nonce, sizeof(nonce));
	test_rng_bytes(rng, ad, ad_len);
	test_rng_bytes(rng, pt, pt_len);
	assert_int_equal(a->init(&ctx, key), 0);
	a->seal(&ctx, nonce, ad, ad_len, pt, pt_len, ct);
	assert_int_equal(a->open(&ctx, nonce, ad, ad_len, ct, ct_len, buf), 0);
	assert_memory_equal(buf, pt, pt_len);

	/* every bit of ciphertext and tag */
	for (size_t bit = 0; bit < 8 * ct_len; bit++) {
		memcpy(buf, ct, ct_len);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		expect_bad(a, &ctx, nonce, ad, ad_len, buf, ct_len);
	}
	/* every bit of the AD */
	for (size_t bit = 0; bit < 8 * ad_len; bit++) {
		uint8_t ad2[64];
		memcpy(ad2, ad, ad_len);
		ad2[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		expect_bad(a, &ctx, nonce, ad2, ad_len, ct, ct_len);
	}
	/* a bit of the nonce; AD one byte shorter; ciphertext one byte shorter */
	nonce[11] ^= 0x80;
	expect_bad(a, &ctx, nonce, ad, ad_len, ct, ct_len);
	nonce[11] ^= 0x80;
	if (ad_len > 0)
		expect_bad(a, &ctx, nonce, ad, ad_len - 1, ct, ct_len);
	if (pt_len > 0) {
		/* drop the last ciphertext byte, keep the tag */
		memcpy(buf, ct, pt_len - 1);
		memcpy(buf + pt_len - 1, ct + pt_len, 16);
		expect_bad(a, &ctx, nonce, ad, ad_len, buf, ct_len - 1);
	}
	/* in place: the ciphertext is replaced by zeros */
	memcpy(buf, ct, ct_len);
	buf[0] ^= 1;
	assert_int_equal(a->open(&ctx, nonce, ad, ad_len, buf, ct_len, buf), HS_ERR_BAD_TAG);
	assert_true(all_zero(buf, pt_len));
	a->wipe(&ctx);
}

static void test_tamper(void **state)
{
	(void)state;
	struct test_rng rng;
	static const size_t shapes[][2] = { { 0, 0 }, { 13, 0 }, { 0, 1 }, { 13, 47 },
					    { 16, 64 }, { 5, 150 } };

	test_rng_init(&rng, 0x7a3e);
	for (size_t i = 0; i < N_AEAD; i++) {
		const struct aead *a = aead_getters[i]();
		if (a == NULL)
			continue;
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
			tamper_one(a, &rng, shapes[s][0], shapes[s][1]);
	}
}

/* Shorter than a tag: HS_ERR_BAD_TAG, whatever the bytes. */
static void test_open_short(void **state)
{
	(void)state;
	uint8_t key[32] = { 1 }, nonce[12] = { 2 }, in[16] = { 0 }, out[16];
	struct aead_ctx ctx;

	for (size_t i = 0; i < N_AEAD; i++) {
		const struct aead *a = aead_getters[i]();
		if (a == NULL)
			continue;
		assert_int_equal(a->init(&ctx, key), 0);
		for (size_t len = 0; len < 16; len++)
			assert_int_equal(a->open(&ctx, nonce, NULL, 0, in, len, out),
					 HS_ERR_BAD_TAG);
		a->wipe(&ctx);
	}
}

/* ---- backends agree ---- */

/* Every SIMD ChaCha20 XOR equals the portable one: lengths, counters, masks, in place;
 * the AVX-512 one that also makes block 0 gives the right block too. */
static void test_xor_backends_identical(void **state)
{
	(void)state;
	enum { MAX = 4200 };
	static const uint32_t counters[] = { 0, 1, 7, 0xfffffff0u, 0xffffffffu };
	struct test_rng rng;
	uint8_t *in = malloc(MAX), *want = malloc(MAX), *got = malloc(MAX);
	uint8_t key[32], nonce[12];
	uint32_t st[16];

	assert_true(in && want && got);
	test_rng_init(&rng, 0xc4ac4a);
	for (size_t len = 0; len <= MAX; len = len < 1100 ? len + 1 : len + 97) {
		uint32_t ctr = counters[len % 5];
		uint32_t mask = len % 7 == 3 ? 0 : 0xffffffff;

		test_rng_bytes(&rng, key, sizeof(key));
		test_rng_bytes(&rng, nonce, sizeof(nonce));
		test_rng_bytes(&rng, in, len);
		chacha20_init(st, key, nonce, ctr);
		chacha20_xor_portable(st, in, len, want, mask);
		if (mask == 0)
			assert_true(all_zero(want, len));
		for (size_t b = 1; b < N_XOR; b++) {
			if (!xor_usable(b))
				continue;
			memset(got, 0x5a, MAX);
			xor_backends[b].fn(st, in, len, got, mask);
			assert_memory_equal(got, want, len);
			if (len < MAX) /* nothing written past len */
				assert_int_equal(got[len], 0x5a);
			memcpy(got, in, len);
			xor_backends[b].fn(st, got, len, got, mask);
			assert_memory_equal(got, want, len);
		}
#if defined(__x86_64__)
		/* the AVX-512 XOR that also gives block st[12] - 1 (the AEAD's block 0) */
		if (cpu_has(HS_CPU_AVX512F | HS_CPU_AVX2)) {
			uint8_t block0[64], want0[64];

			st[12] -= 1;
			chacha20_block(st, want0);
			st[12] += 1;
			memset(got, 0x5a, MAX);
			chacha20_xor_key_avx512(st, in, len, got, mask, block0);
			assert_memory_equal(got, want, len);
			assert_memory_equal(block0, want0, 64);
			if (len < MAX)
				assert_int_equal(got[len], 0x5a);
		}
#endif
	}
	free(in);
	free(want);
	free(got);
}

/*
 * A random key, nonce, AD and plaintext from rng; ctx keyed, want the
 * portable backend's sealed record (the reference every backend must match).
 */
static void random_case(struct test_rng *rng, struct aead_ctx *ctx, uint8_t nonce[12],
			uint8_t *ad, size_t ad_len, uint8_t *pt, size_t len, uint8_t *want)
{
	const struct aead *ref = aead_chacha20poly1305_portable();
	uint8_t key[32];

	test_rng_bytes(rng, key, sizeof(key));
	test_rng_bytes(rng, nonce, 12);
	test_rng_bytes(rng, ad, ad_len);
	test_rng_bytes(rng, pt, len);
	assert_int_equal(ref->init(ctx, key), 0);
	ref->seal(ctx, nonce, ad, ad_len, pt, len, want);
}

/* Every AEAD backend gives the same ciphertext and tag as the portable one. */
static void test_aead_backends_identical(void **state)
{
	(void)state;
	enum { MAX = 3000 };
	struct test_rng rng;
	uint8_t *pt = malloc(MAX), *want = malloc(MAX + 16), *got = malloc(MAX + 16);
	uint8_t nonce[12], ad[40];
	struct aead_ctx ctx;
	const struct aead *ref = aead_chacha20poly1305_portable();

	assert_true(pt && want && got);
	test_rng_init(&rng, 0xae4d);
	for (int iter = 0; iter < 400; iter++) {
		size_t len = test_rng_below(&rng, MAX + 1), ad_len = test_rng_below(&rng, 41);

		random_case(&rng, &ctx, nonce, ad, ad_len, pt, len, want);
		for (size_t i = 1; i < N_AEAD; i++) {
			const struct aead *a = aead_getters[i]();
			if (a == NULL)
				continue;
			a->seal(&ctx, nonce, ad, ad_len, pt, len, got);
			assert_memory_equal(got, want, len + 16);
			assert_int_equal(a->open(&ctx, nonce, ad, ad_len, got, len + 16, got), 0);
			assert_memory_equal(got, pt, len);
		}
		ref->wipe(&ctx);
	}
	free(pt);
	free(want);
	free(got);
}

/*
 * Lengths at every edge of the backends' batches and chunks (one block, the
 * AVX2 and AVX-512 tails, the 1984-byte one-batch path, 2048-byte batches,
 * a TLS record, the 18 KiB seal chunk), with random AD: each backend seals
 * like the portable one, in place and out of place, opens both ways, and a
 * changed ciphertext, tag or AD byte is refused with only zeros written.
 */
static void test_aead_lengths(void **state)
{
	(void)state;
	static const size_t lens[] = { 0,    1,    15,   16,    17,    63,    64,    65,
				       127,  128,  129,  191,   192,   193,   255,   256,
				       448,  449,  1023, 1024,  1025,  1983,  1984,  1985,
				       2047, 2048, 2049, 4095,  16383, 16384, 16385, 16640,
				       18431, 18432, 18433, 20000 };
	enum { MAX = 20000 };
	const struct aead *ref = aead_chacha20poly1305_portable();
	uint8_t *pt = malloc(MAX), *want = malloc(MAX + 16), *got = malloc(MAX + 16);
	uint8_t *back = malloc(MAX + 16), nonce[12], ad[80];
	struct aead_ctx ctx;
	struct test_rng rng;

	assert_true(pt && want && got && back);
	test_rng_init(&rng, 0x1e9);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t len = lens[k], ad_len = test_rng_below(&rng, sizeof(ad) + 1);

		random_case(&rng, &ctx, nonce, ad, ad_len, pt, len, want);
		for (size_t i = 0; i < N_AEAD; i++) {
			const struct aead *a = aead_getters[i]();
			size_t flip;
			if (a == NULL)
				continue;
			/* out of place, then in place */
			a->seal(&ctx, nonce, ad, ad_len, pt, len, got);
			assert_memory_equal(got, want, len + 16);
			memcpy(got, pt, len);
			a->seal(&ctx, nonce, ad, ad_len, got, len, got);
			assert_memory_equal(got, want, len + 16);
			memset(back, 0x5a, len + 16);
			assert_int_equal(a->open(&ctx, nonce, ad, ad_len, want, len + 16, back), 0);
			assert_memory_equal(back, pt, len);
			assert_int_equal(back[len], 0x5a); /* nothing written past the plaintext */
			assert_int_equal(a->open(&ctx, nonce, ad, ad_len, got, len + 16, got), 0);
			assert_memory_equal(got, pt, len);
			/* one changed byte of ciphertext or tag, out of place and in place */
			flip = test_rng_below(&rng, len + 16);
			memcpy(got, want, len + 16);
			got[flip] ^= (uint8_t)(1 + test_rng_below(&rng, 255));
			memset(back, 0xa5, len);
			assert_int_equal(a->open(&ctx, nonce, ad, ad_len, got, len + 16, back),
					 HS_ERR_BAD_TAG);
			assert_true(all_zero(back, len));
			assert_int_equal(a->open(&ctx, nonce, ad, ad_len, got, len + 16, got),
					 HS_ERR_BAD_TAG);
			assert_true(all_zero(got, len));
			/* one changed AD byte */
			if (ad_len > 0) {
				ad[flip % ad_len] ^= 0x01;
				memset(back, 0xa5, len);
				assert_int_equal(
					a->open(&ctx, nonce, ad, ad_len, want, len + 16, back),
					HS_ERR_BAD_TAG);
				assert_true(all_zero(back, len));
				ad[flip % ad_len] ^= 0x01;
			}
		}
		ref->wipe(&ctx);
	}
	free(pt);
	free(want);
	free(got);
	free(back);
}

/* ---- table contract ---- */

static void test_table(void **state)
{
	(void)state;
	uint8_t key[32], nonce[12] = { 0 }, pt[33], ct1[33 + 16], ct2[33 + 16];
	struct aead_ctx ctx;

	print_backends();
	for (size_t i = 0; i < N_AEAD; i++) {
		const struct aead *a = aead_getters[i]();
		if (a == NULL)
			continue;
		assert_int_equal(a->key_len, 32);
		assert_int_equal(a->nonce_len, HS_AEAD_NONCE_LEN);
		assert_int_equal(a->tag_len, HS_AEAD_TAG_LEN);
		assert_true(a->ctx_size >= 32 && a->ctx_size <= HS_AEAD_CTX_MAX);
		assert_non_null(strstr(a->name, "ChaCha20-Poly1305"));

		/* init copies the key: changing the caller's buffer changes nothing */
		key_seq(key, 0x40);
		memset(pt, 0x33, sizeof(pt));
		assert_int_equal(a->init(&ctx, key), 0);
		a->seal(&ctx, nonce, NULL, 0, pt, sizeof(pt), ct1);
		memset(key, 0, sizeof(key));
		a->seal(&ctx, nonce, NULL, 0, pt, sizeof(pt), ct2);
		assert_memory_equal(ct1, ct2, sizeof(ct1));
		/* in-place seal equals out-of-place */
		memcpy(ct2, pt, sizeof(pt));
		a->seal(&ctx, nonce, NULL, 0, ct2, sizeof(pt), ct2);
		assert_memory_equal(ct1, ct2, sizeof(ct1));
		/* wipe zeroes the context */
		a->wipe(&ctx);
		assert_true(all_zero(ctx.buf, a->ctx_size));
	}
}

static void test_dispatch(void **state)
{
	(void)state;
	const struct aead *best = aead_chacha20poly1305();

	assert_non_null(best);
	if (aead_chacha20poly1305_avx512ifma() != NULL)
		assert_ptr_equal(best, aead_chacha20poly1305_avx512ifma());
	else if (aead_chacha20poly1305_avx512() != NULL)
		assert_ptr_equal(best, aead_chacha20poly1305_avx512());
	else if (aead_chacha20poly1305_avx2() != NULL)
		assert_ptr_equal(best, aead_chacha20poly1305_avx2());
	else
		assert_ptr_equal(best, aead_chacha20poly1305_portable());
	printf("# best: %s\n", best->name);

	cpu_force_portable(1);
	assert_ptr_equal(aead_chacha20poly1305(), aead_chacha20poly1305_portable());
	assert_null(aead_chacha20poly1305_avx2());
	assert_null(aead_chacha20poly1305_avx512());
	assert_null(aead_chacha20poly1305_avx512ifma());
	cpu_force_portable(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_block_2_3_2),
		cmocka_unit_test(test_block_a1),
		cmocka_unit_test(test_encrypt_2_4_2),
		cmocka_unit_test(test_encrypt_a2),
		cmocka_unit_test(test_poly1305_2_5_2),
		cmocka_unit_test(test_poly1305_a3),
		cmocka_unit_test(test_poly1305_streaming),
		cmocka_unit_test(test_poly1305_backends_identical),
		cmocka_unit_test(test_keygen),
		cmocka_unit_test(test_aead_2_8_2),
		cmocka_unit_test(test_aead_a5),
		cmocka_unit_test(test_tamper),
		cmocka_unit_test(test_open_short),
		cmocka_unit_test(test_xor_backends_identical),
		cmocka_unit_test(test_aead_backends_identical),
		cmocka_unit_test(test_aead_lengths),
		cmocka_unit_test(test_dispatch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
