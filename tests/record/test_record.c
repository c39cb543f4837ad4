/*
 * record/: the TLS 1.3 record protection layer on its own.
 *
 * Proves:
 * - traffic key and IV from a secret (RFC 8446 7.3) match RFC 8448's, and
 *   records open and seal byte for byte as in RFC 8448 (client application
 *   data, seq 0; the close_notify alert, seq 1);
 * - the nonce is the IV XOR the left-padded sequence number (5.3);
 * - KeyUpdate (7.2): rec_next_secret is HKDF-Expand-Label(secret,
 *   "traffic upd", "", Hash.length) computed here on its own; rec_key_next
 *   moves secret, key and IV, restarts seq at 0, and its raw key out matches;
 * - limits: content 2^14 (2^14 + 1 refused), inner plaintext 2^14 + 1 with
 *   padding (one more refused), header lengths, an inner plaintext over
 *   2^14 + 1 received is record_overflow;
 * - padding is stripped; an all-padding record and an empty handshake
 *   record are HS_ERR_TLS_EMPTY_RECORD; empty application data is fine;
 * - the last sequence number is never used, sealing or opening;
 * - a bad tag is HS_ERR_TLS_BAD_RECORD_MAC, a body shorter than a tag too;
 * - sealing in place (plaintext already at the record's body) is the same
 *   record as sealing from elsewhere.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crypto/hkdf.h"
#include "record/record.h"
#include "record_util.h"
#include "testutil.h"

#include "../tls/rfc8448.h"

static uint8_t *hx(const char *s, size_t *n)
{
	uint8_t *p = hex_decode(s, n);

	assert_non_null(p);
	return p;
}

static void key_from_hex(struct rec_key *k, const char *secret_hex)
{
	size_t n;
	uint8_t *secret = hx(secret_hex, &n);

	assert_int_equal(n, 32);
	assert_int_equal(rec_key_set(k, aead_aes128gcm(), hash_sha256(), 16, secret), 0);
	free(secret);
}

static void test_rfc8448_keys(void **state)
{
	const char *secrets[4] = { S_HS, C_HS, S_AP, C_AP };
	const char *keys[4] = { S_HS_KEY, C_HS_KEY, S_AP_KEY, C_AP_KEY };
	const char *ivs[4] = { S_HS_IV, C_HS_IV, S_AP_IV, C_AP_IV };

	(void)state;
	for (int i = 0; i < 4; i++) {
		size_t sn, kn, in;
		uint8_t *s = hx(secrets[i], &sn), *k = hx(keys[i], &kn), *iv = hx(ivs[i], &in);
		uint8_t key[16], iv2[12];

		assert_int_equal(rec_traffic_key(hash_sha256(), s, 16, key, iv2), 0);
		assert_memory_equal(key, k, 16);
		assert_memory_equal(iv2, iv, 12);
		free(s);
		free(k);
		free(iv);
	}
}

/* Open an RFC 8448 record, check it, and seal its content again to the same bytes. */
static void rfc_record(struct rec_key *k, const char *rec_hex, uint8_t want_type,
		       uint64_t seq)
{
	size_t n, len;
	uint8_t *rec = hx(rec_hex, &n), *copy = malloc(n), type, out[256];
	struct writer w = writer_init(out, sizeof(out));

	memcpy(copy, rec, n);
	k->seq = seq;
	assert_int_equal(rec_open(k, rec, n - REC_HDR, &type, &len), 0);
	assert_int_equal(type, want_type);
	assert_int_equal(k->seq, seq + 1);
	k->seq = seq;
	assert_int_equal(rec_seal(k, type, REC_LEGACY_VERSION, rec + REC_HDR, len, 0, &w),
			 0);
	assert_int_equal(w.len, n);
	assert_memory_equal(out, copy, n);
	free(rec);
	free(copy);
}

static void test_rfc8448_records(void **state)
{
	struct rec_key_mem k_mem; /* AEAD context memory */
	struct rec_key k = *rec_key_mem_init(&k_mem);

	(void)state;
	key_from_hex(&k, C_AP);
	rfc_record(&k, C_APP_REC, REC_APP, 0);
	rfc_record(&k, C_ALERT_REC, REC_ALERT, 1);
	rec_key_wipe(&k);
	key_from_hex(&k, S_AP);
	rfc_record(&k, NST_REC, REC_HANDSHAKE, 0);
	rfc_record(&k, S_APP_REC, REC_APP, 1);
	rfc_record(&k, S_ALERT_REC, REC_ALERT, 2);
	rec_key_wipe(&k);
}

static void test_nonce(void **state)
{
	static const uint8_t iv[12] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5,
					0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab };
	static const uint8_t want[12] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa5, 0xa7,
					  0xa5, 0xa3, 0xad, 0xaf, 0xad, 0xa3 };
	uint8_t out[12];

	(void)state;
	rec_nonce(iv, 0, out);
	assert_memory_equal(out, iv, 12);
	rec_nonce(iv, 0x0102030405060708ull, out);
	assert_memory_equal(out, want, 12);
}

static void test_key_update(void **state)
{
	const struct hash *hashes[2] = { hash_sha256(), hash_sha384() };
	const struct aead *aeads[2] = { aead_aes128gcm(), aead_aes256gcm() };
	const size_t key_lens[2] = { 16, 32 };

	(void)state;
	for (int i = 0; i < 2; i++) {
		const struct hash *h = hashes[i];
		uint8_t secret[48], next[48], key[32], iv[12], key_out[32], rec[64];
		struct rec_key_mem a_mem, b_mem; /* AEAD context memory */
		struct rec_key a = *rec_key_mem_init(&a_mem), b = *rec_key_mem_init(&b_mem);
		struct writer w = writer_init(rec, sizeof(rec));
		size_t len;
		uint8_t type;

		for (size_t j = 0; j < sizeof(secret); j++)
			secret[j] = (uint8_t)(j * 7 + i);
		/* on its own: the 7.2 label, then 7.3 */
		assert_int_equal(hkdf_expand_label(h, secret, "traffic upd", NULL, 0, next,
						      h->digest_len),
				 0);
		assert_int_equal(hkdf_expand_label(h, next, "key", NULL, 0, key, key_lens[i]),
				 0);
		assert_int_equal(hkdf_expand_label(h, next, "iv", NULL, 0, iv, 12), 0);

		assert_int_equal(rec_key_set(&a, aeads[i], h, key_lens[i], secret), 0);
		a.seq = 41;
		assert_int_equal(rec_key_next(&a, key_out), 0);
		assert_memory_equal(a.secret, next, h->digest_len);
		assert_memory_equal(a.iv, iv, 12);
		assert_memory_equal(key_out, key, key_lens[i]);
		assert_int_equal(a.seq, 0);
		assert_true(a.on);

		/* a record under the new key opens with a key set from next */
		assert_int_equal(rec_key_set(&b, aeads[i], h, key_lens[i], next), 0);
		assert_int_equal(rec_seal(&a, REC_APP, REC_LEGACY_VERSION,
					     (const uint8_t *)"hi", 2, 0, &w),
				 0);
		assert_int_equal(rec_open(&b, rec, w.len - REC_HDR, &type, &len), 0);
		assert_int_equal(len, 2);
		assert_memory_equal(rec + REC_HDR, "hi", 2);

		/* the in-place form of the same step */
		memcpy(next, secret, sizeof(next));
		assert_int_equal(rec_next_secret(h, next), 0);
		assert_memory_equal(next, a.secret, h->digest_len);

		/* a key without AEAD (the kernel has it) moves too and stays off */
		assert_int_equal(rec_key_load(&b, NULL, h, key_lens[i], secret, key, iv, 9), 0);
		assert_false(b.on);
		assert_int_equal(rec_key_next(&b, key_out), 0);
		assert_false(b.on);
		assert_memory_equal(b.secret, a.secret, h->digest_len);
		assert_memory_equal(key_out, key, key_lens[i]);
		rec_key_wipe(&a);
		rec_key_wipe(&b);
	}
}

/* Key k (its AEAD context memory given by rec_key_mem_init). */
static void test_key(struct rec_key *k)
{
	static const uint8_t secret[32] = { 1, 2, 3 };

	assert_int_equal(rec_key_set(k, aead_chacha20poly1305(), hash_sha256(), 32,
					secret),
			 0);
}

static void test_seal_limits(void **state)
{
	static uint8_t pt[REC_MAX_PLAIN + 2], rec[REC_MAX_WIRE + 64];
	struct rec_key_mem k_mem, r_mem; /* AEAD context memory */
	struct rec_key k = *rec_key_mem_init(&k_mem), r = *rec_key_mem_init(&r_mem);
	struct writer w;
	uint8_t type;
	size_t len;

	(void)state;
	test_key(&k);
	test_key(&r);
	memset(pt, 'x', sizeof(pt));
	/* 5.1: content up to 2^14 */
	w = writer_init(rec, sizeof(rec));
	assert_int_equal(rec_seal(&k, REC_APP, 0x0303, pt, REC_MAX_PLAIN, 0, &w), 0);
	assert_int_equal(w.len, rec_wire_len(&k, REC_MAX_PLAIN, 0));
	assert_int_equal(w.len, REC_HDR + REC_MAX_PLAIN + 1 + 16);
	assert_int_equal(rec_open(&r, rec, w.len - REC_HDR, &type, &len), 0);
	assert_int_equal(len, REC_MAX_PLAIN);
	w = writer_init(rec, sizeof(rec));
	assert_int_equal(rec_seal(&k, REC_APP, 0x0303, pt, REC_MAX_PLAIN + 1, 0, &w),
			 HS_ERR_ARG);
	/* 5.2/5.4: content + type + padding up to 2^14 + 1 */
	w = writer_init(rec, sizeof(rec));
	assert_int_equal(rec_seal(&k, REC_APP, 0x0303, pt, 100, REC_MAX_PLAIN - 100, &w),
			 0);
	assert_int_equal(rec_open(&r, rec, w.len - REC_HDR, &type, &len), 0);
	assert_int_equal(len, 100);
	assert_int_equal(type, REC_APP);
	w = writer_init(rec, sizeof(rec));
	assert_int_equal(rec_seal(&k, REC_APP, 0x0303, pt, 100, REC_MAX_PLAIN - 99, &w),
			 HS_ERR_ARG);
	assert_int_equal(w.len, 0);
	/* a writer without room: nothing written, the sequence number kept */
	w = writer_init(rec, 20);
	assert_int_equal(rec_seal(&k, REC_APP, 0x0303, pt, 10, 0, &w), HS_ERR_NO_SPACE);
	assert_int_equal(k.seq, 2);
	rec_key_wipe(&k);
	rec_key_wipe(&r);
}

static void test_headers(void **state)
{
	size_t n;

	(void)state;
	assert_int_equal(rec_check_header((const uint8_t *)"\x17\x03\x03\x41\x00", 1, &n), 0);
	assert_int_equal(n, REC_MAX_CIPHER);
	assert_int_equal(rec_check_header((const uint8_t *)"\x17\x03\x03\x41\x01", 1, &n),
			 HS_ERR_TLS_RECORD_OVERFLOW);
	assert_int_equal(rec_check_header((const uint8_t *)"\x16\x03\x01\x40\x00", 0, &n), 0);
	assert_int_equal(rec_check_header((const uint8_t *)"\x16\x03\x01\x40\x01", 1, &n),
			 HS_ERR_TLS_RECORD_OVERFLOW);
	/* legacy_record_version is ignored, but the major byte must be 3 */
	assert_int_equal(rec_check_header((const uint8_t *)"\x17\x03\x99\x00\x20", 1, &n), 0);
	assert_int_equal(rec_check_header((const uint8_t *)"\x17\x02\x03\x00\x20", 1, &n),
			 HS_ERR_TLS_RECORD_HEADER);
	assert_int_equal(rec_check_header((const uint8_t *)"\x18\x03\x03\x00\x20", 1, &n),
			 HS_ERR_TLS_UNEXPECTED_RECORD);
	assert_int_equal(rec_check_header((const uint8_t *)"\x13\x03\x03\x00\x20", 1, &n),
			 HS_ERR_TLS_UNEXPECTED_RECORD);
}

/* Seal inner[0..n) as one record at seq (no limits applied: tests/record/record_util.c). */
static int open_raw(const uint8_t *inner, size_t n, uint64_t seq, uint8_t *type, size_t *len)
{
	static uint8_t rec[REC_MAX_WIRE + 64];
	struct rec_key_mem k_mem; /* AEAD context memory */
	struct rec_key k = *rec_key_mem_init(&k_mem);
	size_t rn;
	int err;

	test_key(&k);
	rn = rec_raw(&k, seq, inner, n, rec);
	k.seq = seq;
	err = rec_open(&k, rec, rn - REC_HDR, type, len);
	rec_key_wipe(&k);
	return err;
}

static void test_open_inner(void **state)
{
	static uint8_t inner[REC_MAX_INNER + 1];
	uint8_t type;
	size_t len;

	(void)state;
	/* padding stripped: content, type, zeros */
	memcpy(inner, "abc\x17\0\0\0\0", 8);
	assert_int_equal(open_raw(inner, 8, 0, &type, &len), 0);
	assert_int_equal(type, REC_APP);
	assert_int_equal(len, 3);
	/* 5.4: all padding */
	memset(inner, 0, 40);
	assert_int_equal(open_raw(inner, 40, 0, &type, &len), HS_ERR_TLS_EMPTY_RECORD);
	/* 5.1: empty handshake and alert content; empty application data is fine */
	inner[0] = REC_HANDSHAKE;
	assert_int_equal(open_raw(inner, 5, 0, &type, &len), HS_ERR_TLS_EMPTY_RECORD);
	inner[0] = REC_ALERT;
	assert_int_equal(open_raw(inner, 1, 0, &type, &len), HS_ERR_TLS_EMPTY_RECORD);
	inner[0] = REC_APP;
	assert_int_equal(open_raw(inner, 3, 0, &type, &len), 0);
	assert_int_equal(len, 0);
	/* 5.2: the inner plaintext at 2^14 + 1 is fine, one more is not */
	memset(inner, 'y', sizeof(inner));
	inner[REC_MAX_INNER - 1] = REC_APP;
	assert_int_equal(open_raw(inner, REC_MAX_INNER, 0, &type, &len), 0);
	assert_int_equal(len, REC_MAX_PLAIN);
	inner[REC_MAX_INNER] = 0; /* within 2^14 + 1 of content + type, but padded past it */
	assert_int_equal(open_raw(inner, REC_MAX_INNER + 1, 0, &type, &len),
			 HS_ERR_TLS_RECORD_OVERFLOW);
}

static void test_seq_and_tag(void **state)
{
	static const uint8_t inner[] = { 'o', 'k', REC_APP };
	uint8_t rec[64], type;
	struct rec_key_mem k_mem, r_mem; /* AEAD context memory */
	struct rec_key k = *rec_key_mem_init(&k_mem), r = *rec_key_mem_init(&r_mem);
	struct writer w = writer_init(rec, sizeof(rec));
	size_t len;

	(void)state;
	test_key(&k);
	test_key(&r);
	/* the second-to-last number works, the last is never used */
	k.seq = r.seq = UINT64_MAX - 1;
	assert_int_equal(rec_seal(&k, REC_APP, 0x0303, (const uint8_t *)"ok", 2, 0, &w), 0);
	assert_int_equal(rec_open(&r, rec, w.len - REC_HDR, &type, &len), 0);
	assert_int_equal(k.seq, UINT64_MAX);
	assert_int_equal(r.seq, UINT64_MAX);
	w = writer_init(rec, sizeof(rec));
	assert_int_equal(rec_seal(&k, REC_APP, 0x0303, (const uint8_t *)"ok", 2, 0, &w),
			 HS_ERR_TLS_SEQ_EXHAUSTED);
	assert_int_equal(w.len, 0);
	assert_int_equal(open_raw(inner, sizeof(inner), UINT64_MAX, &type, &len),
			 HS_ERR_TLS_SEQ_EXHAUSTED);
	/* a bad tag, a wrong sequence number, a body shorter than tag + 1 */
	k.seq = r.seq = 5;
	w = writer_init(rec, sizeof(rec));
	assert_int_equal(rec_seal(&k, REC_APP, 0x0303, (const uint8_t *)"ok", 2, 0, &w), 0);
	rec[w.len - 1] ^= 1;
	assert_int_equal(rec_open(&r, rec, w.len - REC_HDR, &type, &len),
			 HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(r.seq, 5);
	rec[w.len - 1] ^= 1;
	r.seq = 6;
	assert_int_equal(rec_open(&r, rec, w.len - REC_HDR, &type, &len),
			 HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(rec_open(&r, rec, 16, &type, &len), HS_ERR_TLS_BAD_RECORD_MAC);
	rec_key_wipe(&k);
	rec_key_wipe(&r);
}

static void test_in_place(void **state)
{
	uint8_t a[64], b[64];
	struct rec_key_mem k_mem, k2_mem; /* AEAD context memory */
	struct rec_key k = *rec_key_mem_init(&k_mem), k2 = *rec_key_mem_init(&k2_mem);
	struct writer wa = writer_init(a, sizeof(a)), wb = writer_init(b, sizeof(b));

	(void)state;
	test_key(&k);
	test_key(&k2);
	memcpy(b + REC_HDR, "zero copy", 9); /* the plaintext already where the body goes */
	assert_int_equal(rec_seal(&k, REC_APP, 0x0303, (const uint8_t *)"zero copy", 9, 3,
				     &wa),
			 0);
	assert_int_equal(rec_seal(&k2, REC_APP, 0x0303, b + REC_HDR, 9, 3, &wb), 0);
	assert_int_equal(wa.len, wb.len);
	assert_memory_equal(a, b, wa.len);
	/* plaintext records (before keys): header with the legacy version given */
	k.on = 0;
	wa = writer_init(a, sizeof(a));
	assert_int_equal(rec_seal(&k, REC_HANDSHAKE, 0x0301, (const uint8_t *)"hello", 5, 0,
				     &wa),
			 0);
	assert_int_equal(wa.len, rec_wire_len(&k, 5, 0));
	assert_memory_equal(a, "\x16\x03\x01\x00\x05hello", 10);
	k.on = 1;
	rec_key_wipe(&k);
	rec_key_wipe(&k2);
}

/* rec_open_to: the same record opened into another buffer, the ciphertext left alone. */
static void test_open_to(void **state)
{
	uint8_t rec[64], copy[64], out[64], type;
	struct rec_key_mem k_mem, r_mem, r2_mem; /* AEAD context memory */
	struct rec_key k = *rec_key_mem_init(&k_mem), r = *rec_key_mem_init(&r_mem), r2 = *rec_key_mem_init(&r2_mem);
	struct writer w = writer_init(rec, sizeof(rec));
	size_t len, body;

	(void)state;
	test_key(&k);
	test_key(&r);
	test_key(&r2);
	/* padded: the inner plaintext is content, type and 4 zeros */
	assert_int_equal(rec_seal(&k, REC_HANDSHAKE, 0x0303, (const uint8_t *)"open to", 7, 4,
				     &w),
			 0);
	body = w.len - REC_HDR;
	memcpy(copy, rec, w.len);
	/* too small for the inner plaintext: refused before anything moves */
	assert_int_equal(rec_open_to(&r, rec, body, out, body - 16 - 1, &type, &len),
			 HS_ERR_ARG);
	assert_int_equal(r.seq, 0);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(rec_open_to(&r, rec, body, out, body - 16, &type, &len), 0);
	assert_int_equal(type, REC_HANDSHAKE);
	assert_int_equal(len, 7);
	assert_memory_equal(out, "open to", 7);
	assert_int_equal(out[body - 16], 0xee); /* nothing past the inner plaintext */
	assert_memory_equal(rec, copy, w.len);  /* the record untouched */
	assert_int_equal(r.seq, 1);
	/* the same answer as in place */
	assert_int_equal(rec_open(&r2, rec, body, &type, &len), 0);
	assert_int_equal(len, 7);
	assert_memory_equal(rec + REC_HDR, out, body - 16);
	/* a bad tag: the same error, the output zeroed, the sequence number kept */
	memcpy(rec, copy, w.len);
	rec[w.len - 1] ^= 1;
	r.seq = 0;
	assert_int_equal(rec_open_to(&r, rec, body, out, sizeof(out), &type, &len),
			 HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(r.seq, 0);
	for (size_t i = 0; i < body - 16; i++)
		assert_int_equal(out[i], 0);
	rec_key_wipe(&k);
	rec_key_wipe(&r);
	rec_key_wipe(&r2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc8448_keys),
		cmocka_unit_test(test_rfc8448_records),
		cmocka_unit_test(test_nonce),
		cmocka_unit_test(test_key_update),
		cmocka_unit_test(test_seal_limits),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_open_inner),
		cmocka_unit_test(test_seq_and_tag),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_open_to),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
