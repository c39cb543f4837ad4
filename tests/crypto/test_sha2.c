/*
 * Proves SHA-256, SHA-384 and SHA-512 give the FIPS 180 example digests
 * ("abc", the empty string, the 448- and 896-bit messages, one million
 * 'a') through every entry point (one-shot, streaming, the struct hash
 * tables) and every SHA-256 backend (portable and SHA-NI when the CPU has
 * it); that streaming in odd chunk sizes equals one-shot; that SHA-NI and
 * portable agree bit for bit on every length 0..1100; and that final wipes
 * the context.
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
#include "crypto/sha2.h"
#include "testutil.h"

/* FIPS 180-2 appendices / NIST "Examples with intermediate values":
 * message 448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
 * message 896 = the 112-byte "abcdefghbcdefghi..." message. */
static const char MSG448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char MSG896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
			     "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

enum msg_id { M_ABC, M_EMPTY, M_448, M_896, M_MILLION_A, M_COUNT };

struct kat {
	const char *name;
	const char *digest[M_COUNT];
};

static const struct kat KATS[] = {
	{ "SHA-256",
	  { "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" } },
	{ "SHA-384",
	  { "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"
	    "1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
	    "38b060a751ac96384cd9327eb1b1e36a21fdb71114be0743"
	    "4c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
	    "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05ab"
	    "fe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b",
	    "09330c33f71147e83d192fc782cd1b4753111b173b3b05d2"
	    "2fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
	    "9d0e1809716474cb086e834e310a4a1ced149e9c00f24852"
	    "7972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985" } },
	{ "SHA-512",
	  { "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
	    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
	    "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
	    "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
	    "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
	    "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445",
	    "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
	    "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
	    "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
	    "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b" } },
};

#define MILLION 1000000

/* The message bytes for id; the million-'a' buffer is built once. */
static const uint8_t *msg_bytes(enum msg_id id, size_t *len)
{
	static uint8_t *million;

	switch (id) {
	case M_ABC:
		*len = 3;
		return (const uint8_t *)"abc";
	case M_EMPTY:
		*len = 0;
		return (const uint8_t *)"";
	case M_448:
		*len = sizeof(MSG448) - 1;
		return (const uint8_t *)MSG448;
	case M_896:
		*len = sizeof(MSG896) - 1;
		return (const uint8_t *)MSG896;
	default:
		if (!million) {
			million = malloc(MILLION);
			assert_non_null(million);
			memset(million, 'a', MILLION);
		}
		*len = MILLION;
		return million;
	}
}

/* Up to two tables per hash: the portable one and the best one (which
 * for SHA-256 is SHA-NI on a CPU with it). Returns how many (1 or 2). */
static int tables_for(int kat, const struct hash *t[2])
{
	const struct hash *(*get[3])(void) = { hash_sha256, hash_sha384, hash_sha512 };

	cpu_force_portable(1);
	t[0] = get[kat]();
	cpu_force_portable(0);
	t[1] = get[kat]();
	return t[1] == t[0] ? 1 : 2;
}

/* The one-shot public function of hash kat (uses the best backend). */
static void oneshot(int kat, const void *p, size_t n, uint8_t *out)
{
	if (kat == 0)
		sha256(p, n, out);
	else if (kat == 1)
		sha384(p, n, out);
	else
		sha512(p, n, out);
}

static void check_hex(const uint8_t *got, const char *hex, size_t n)
{
	uint8_t want[HS_HASH_MAX_LEN];

	assert_int_equal(strlen(hex), 2 * n);
	assert_int_equal(hex_decode_to(hex, want, n), 0);
	assert_memory_equal(got, want, n);
}

static void test_fips_vectors(void **state)
{
	(void)state;
	for (int k = 0; k < 3; k++) {
		const struct hash *t[2];
		int nt = tables_for(k, t);

		for (int m = 0; m < M_COUNT; m++) {
			size_t len, dl = t[0]->digest_len;
			const uint8_t *p = msg_bytes((enum msg_id)m, &len);
			uint8_t out[HS_HASH_MAX_LEN];

			for (int portable = 1; portable >= 0; portable--) {
				cpu_force_portable(portable);
				oneshot(k, p, len, out);
				check_hex(out, KATS[k].digest[m], dl);
			}
			for (int i = 0; i < nt; i++) {
				memset(out, 0, sizeof(out));
				hash_digest(t[i], p, len, out);
				check_hex(out, KATS[k].digest[m], dl);
			}
		}
		printf("# %s: %d backend table(s) checked\n", KATS[k].name, nt);
	}
}

/* The million 'a's fed 1000 bytes at a time, as FIPS 180 describes it. */
static void test_million_a_streamed(void **state)
{
	(void)state;
	uint8_t a[1000], out[HS_HASH_MAX_LEN];
	struct sha256 c256;
	struct sha512 c512;

	memset(a, 'a', sizeof(a));
	sha256_init(&c256);
	for (int i = 0; i < 1000; i++)
		sha256_update(&c256, a, sizeof(a));
	sha256_final(&c256, out);
	check_hex(out, KATS[0].digest[M_MILLION_A], 32);

	sha384_init(&c512);
	for (int i = 0; i < 1000; i++)
		sha384_update(&c512, a, sizeof(a));
	sha384_final(&c512, out);
	check_hex(out, KATS[1].digest[M_MILLION_A], 48);

	sha512_init(&c512);
	for (int i = 0; i < 1000; i++)
		sha512_update(&c512, a, sizeof(a));
	sha512_final(&c512, out);
	check_hex(out, KATS[2].digest[M_MILLION_A], 64);
}

/* Feed msg through table t in chunks: sizes cycle through chunks[] (0 in
 * the list means "a random size up to 300"). */
static void digest_chunked(const struct hash *t, const uint8_t *msg, size_t len,
			   const size_t *chunks, size_t nchunks, struct test_rng *rng, uint8_t *out)
{
	union hash_ctx c;
	size_t off = 0;

	t->init(&c);
	for (size_t i = 0; off < len; i++) {
		size_t n = chunks[i % nchunks];
		if (n == 0)
			n = test_rng_below(rng, 301);
		if (n > len - off)
			n = len - off;
		t->update(&c, msg + off, n);
		off += n;
	}
	t->update(&c, NULL, 0); /* an empty update is allowed, even with NULL */
	t->final(&c, out);
}

/* Chunk size patterns, cycled; 0 means "a random size up to 300". */
struct pattern {
	size_t n;
	size_t sizes[4];
};

static const struct pattern PATTERNS[] = {
	{ 1, { 1 } },	     { 1, { 3 } },	   { 2, { 7, 13 } },	     { 2, { 55, 9 } },
	{ 4, { 63, 1, 64, 65 } }, { 2, { 111, 17 } }, { 2, { 127, 129 } }, { 2, { 128, 1 } },
	{ 1, { 1000 } },	     { 1, { 0 } },	   { 3, { 0, 1, 2 } },
};

static void test_streaming_odd_chunks(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t *msg = malloc(3000);

	assert_non_null(msg);
	test_rng_init(&rng, 0x5a2);
	for (size_t len = 0; len <= 3000; len += 1 + test_rng_below(&rng, 400)) {
		test_rng_bytes(&rng, msg, len);
		for (int k = 0; k < 3; k++) {
			const struct hash *t[2];
			int nt = tables_for(k, t);
			uint8_t want[HS_HASH_MAX_LEN], got[HS_HASH_MAX_LEN];

			oneshot(k, msg, len, want);
			for (int i = 0; i < nt; i++) {
				for (size_t pi = 0; pi < sizeof(PATTERNS) / sizeof(PATTERNS[0]); pi++) {
					digest_chunked(t[i], msg, len, PATTERNS[pi].sizes, PATTERNS[pi].n,
						       &rng, got);
					assert_memory_equal(got, want, t[i]->digest_len);
				}
			}
		}
	}
	free(msg);
}

/* The public streaming API (hs_sha*_update) equals one-shot too, with the
 * buffer boundary crossed at every offset. */
static void test_public_streaming(void **state)
{
	(void)state;
	uint8_t msg[300], a[HS_HASH_MAX_LEN], b[HS_HASH_MAX_LEN];

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 1);
	for (size_t split = 0; split <= sizeof(msg); split++) {
		struct sha256 c;
		struct sha512 d;

		sha256_init(&c);
		sha256_update(&c, msg, split);
		sha256_update(&c, msg + split, sizeof(msg) - split);
		sha256_final(&c, a);
		sha256(msg, sizeof(msg), b);
		assert_memory_equal(a, b, 32);

		sha384_init(&d);
		sha384_update(&d, msg, split);
		sha384_update(&d, msg + split, sizeof(msg) - split);
		sha384_final(&d, a);
		sha384(msg, sizeof(msg), b);
		assert_memory_equal(a, b, 48);

		sha512_init(&d);
		sha512_update(&d, msg, split);
		sha512_update(&d, msg + split, sizeof(msg) - split);
		sha512_final(&d, a);
		sha512(msg, sizeof(msg), b);
		assert_memory_equal(a, b, 64);
	}
}

/* SHA-NI and portable SHA-256 agree on every length 0..1100 (each padding
 * case, 1..17 blocks). Skipped when the CPU has no SHA-NI. */
static void test_shani_equals_portable(void **state)
{
	(void)state;
	const struct hash *t[2];
	uint8_t msg[1100], a[32], b[32];
	struct test_rng rng;

	if (tables_for(0, t) < 2) {
		printf("# no SHA-NI on this CPU: nothing to compare\n");
		skip();
	}
	test_rng_init(&rng, 0x5a256);
	test_rng_bytes(&rng, msg, sizeof(msg));
	for (size_t len = 0; len <= sizeof(msg); len++) {
		hash_digest(t[0], msg, len, a);
		hash_digest(t[1], msg, len, b);
		assert_memory_equal(a, b, 32);
	}
}

/* final leaves no trace of the state or the buffered message. */
static void test_final_wipes(void **state)
{
	(void)state;
	static const uint8_t zero[sizeof(union hash_ctx)];
	uint8_t out[HS_HASH_MAX_LEN];
	struct sha256 c;
	struct sha512 d;

	sha256_init(&c);
	sha256_update(&c, "secret message", 14);
	sha256_final(&c, out);
	assert_memory_equal(&c, zero, sizeof(c));

	sha384_init(&d);
	sha384_update(&d, "secret message", 14);
	sha384_final(&d, out);
	assert_memory_equal(&d, zero, sizeof(d));

	sha512_init(&d);
	sha512_update(&d, "secret message", 14);
	sha512_final(&d, out);
	assert_memory_equal(&d, zero, sizeof(d));
}

static void test_table_fields(void **state)
{
	(void)state;
	for (int portable = 1; portable >= 0; portable--) {
		cpu_force_portable(portable);
		/* "SHA-256" or "SHA-256 (SHA-NI)": the name says which backend */
		assert_true(strncmp(hash_sha256()->name, "SHA-256", 7) == 0);
		if (portable)
			assert_string_equal(hash_sha256()->name, "SHA-256");
		assert_int_equal(hash_sha256()->digest_len, 32);
		assert_int_equal(hash_sha256()->block_len, 64);
		assert_string_equal(hash_sha384()->name, "SHA-384");
		assert_int_equal(hash_sha384()->digest_len, 48);
		assert_int_equal(hash_sha384()->block_len, 128);
		assert_string_equal(hash_sha512()->name, "SHA-512");
		assert_int_equal(hash_sha512()->digest_len, 64);
		assert_int_equal(hash_sha512()->block_len, 128);
	}
	assert_true(hash_sha512()->digest_len <= HS_HASH_MAX_LEN);
	assert_true(hash_sha512()->block_len <= HS_HASH_MAX_BLOCK);
}

/* .empty is the digest of "" by every backend, one pointer per hash */
static void test_empty_digest(void **state)
{
	const struct hash *sha256[2];
	uint8_t d[HS_HASH_MAX_LEN];

	(void)state;
	for (int portable = 1; portable >= 0; portable--) {
		const struct hash *t[] = { hash_sha256(), hash_sha384(), hash_sha512() };

		cpu_force_portable(portable);
		t[0] = hash_sha256();
		sha256[portable] = t[0];
		for (size_t i = 0; i < 3; i++) {
			hash_digest(t[i], "", 0, d);
			assert_memory_equal(t[i]->empty, d, t[i]->digest_len);
		}
		assert_ptr_not_equal(t[0]->empty, t[1]->empty);
		assert_ptr_not_equal(t[1]->empty, t[2]->empty);
	}
	assert_ptr_equal(sha256[0]->empty, sha256[1]->empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_vectors),
		cmocka_unit_test(test_million_a_streamed),
		cmocka_unit_test(test_streaming_odd_chunks),
		cmocka_unit_test(test_public_streaming),
		cmocka_unit_test(test_shani_equals_portable),
		cmocka_unit_test(test_final_wipes),
		cmocka_unit_test(test_table_fields),
		cmocka_unit_test(test_empty_digest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
