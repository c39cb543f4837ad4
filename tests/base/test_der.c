/*
 * Proves the DER reader (base/der.c) takes exactly X.690's distinguished
 * encoding: short and long length forms where each is minimal, and no
 * other (non-minimal long forms, leading zero length octets, indefinite
 * lengths, lengths past the input, high tag numbers refused, the reader
 * left where it was); INTEGERs minimal in either sign, non-negative ones
 * with their sign octet dropped, fixed-width copies, 32-bit values; the
 * raw span and the peek helper.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/der.h"

/* Read one TLV of tag from in[0 .. n); returns the error, *len the contents' length. */
static int read1(const uint8_t *in, size_t n, uint8_t tag, size_t *len)
{
	struct reader r = reader_init(in, n), sub;
	int err = der_read(&r, tag, &sub);

	if (err != 0) {
		assert_int_equal(r.len, n); /* a failed read moves nothing */
		return err;
	}
	*len = sub.len;
	return read_end(&r);
}

/* One length encoding: its octets, the contents that follow, the outcome. */
struct len_case {
	uint8_t hdr[6];
	size_t hdr_len, body; /* OCTET STRING tag + length octets; bytes of input after them */
	int err;
	size_t len;
};

static const struct len_case len_cases[] = {
	/* short form: 0 .. 127 */
	{ { 0x04, 0x00 }, 2, 0, 0, 0 },
	{ { 0x04, 0x7f }, 2, 127, 0, 127 },
	/* long form, one octet: 128 .. 255; below 128 the short form was required */
	{ { 0x04, 0x81, 0x80 }, 3, 128, 0, 128 },
	{ { 0x04, 0x81, 0xff }, 3, 255, 0, 255 },
	{ { 0x04, 0x81, 0x7f }, 3, 127, HS_ERR_BAD_ENCODING, 0 },
	{ { 0x04, 0x81, 0x00 }, 3, 0, HS_ERR_BAD_ENCODING, 0 },
	/* two and three octets, no leading zero octet */
	{ { 0x04, 0x82, 0x01, 0x00 }, 4, 256, 0, 256 },
	{ { 0x04, 0x82, 0x00, 0x80 }, 4, 128, HS_ERR_BAD_ENCODING, 0 },
	{ { 0x04, 0x83, 0x01, 0x00, 0x00 }, 5, 65536, 0, 65536 },
	{ { 0x04, 0x83, 0x00, 0xff, 0xff }, 5, 65535, HS_ERR_BAD_ENCODING, 0 },
	/* four length octets: more than hs ever reads */
	{ { 0x04, 0x84, 0x00, 0x01, 0x00, 0x00 }, 6, 65536, HS_ERR_BAD_ENCODING, 0 },
	/* indefinite form (BER only), and the reserved 0xff */
	{ { 0x04, 0x80 }, 2, 8, HS_ERR_BAD_ENCODING, 0 },
	{ { 0x04, 0xff }, 2, 8, HS_ERR_BAD_ENCODING, 0 },
};

static void test_lengths(void **state)
{
	static uint8_t buf[70000];
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(len_cases) / sizeof(len_cases[0]); i++) {
		const struct len_case *lc = &len_cases[i];
		memset(buf, 0, sizeof(buf));
		memcpy(buf, lc->hdr, lc->hdr_len);
		len = 0;
		assert_int_equal(read1(buf, lc->hdr_len + lc->body, 0x04, &len), lc->err);
		assert_int_equal(len, lc->len);
	}
}

static void test_truncation_and_tags(void **state)
{
	static const uint8_t seq[] = { 0x30, 0x03, 0x02, 0x01, 0x05 };
	static const uint8_t high[] = { 0x1f, 0x81, 0x00, 0x00 };
	static const uint8_t cut_len[] = { 0x04, 0x82, 0x01 };
	struct reader r, sub, raw;
	size_t len;
	uint8_t tag;

	(void)state;
	/* contents past the input, a length cut short, nothing at all */
	assert_int_equal(read1(seq, 4, 0x30, &len), HS_ERR_TRUNCATED);
	assert_int_equal(read1(cut_len, sizeof(cut_len), 0x04, &len), HS_ERR_TRUNCATED);
	assert_int_equal(read1(seq, 0, 0x30, &len), HS_ERR_TRUNCATED);
	/* wrong tag; high-tag-number form, even when asked for "any" */
	assert_int_equal(read1(seq, sizeof(seq), 0x31, &len), HS_ERR_BAD_ENCODING);
	r = reader_init(high, sizeof(high));
	assert_int_equal(der_read_any(&r, &tag, &sub), HS_ERR_BAD_ENCODING);
	assert_int_equal(r.len, sizeof(high));
	/* raw spans the header; any and peek */
	r = reader_init(seq, sizeof(seq));
	assert_int_equal(der_peek(&r), 0x30);
	assert_int_equal(der_read_raw(&r, DER_SEQUENCE, &sub, &raw), 0);
	assert_ptr_equal(raw.p, seq);
	assert_int_equal(raw.len, sizeof(seq));
	assert_int_equal(sub.len, 3);
	assert_int_equal(der_peek(&r), 0);
	assert_int_equal(der_read_any(&sub, &tag, &raw), 0);
	assert_int_equal(tag, DER_INTEGER);
}

/* Parse the INTEGER TLV in[0 .. n) as non-negative; *mag_len / *first get its magnitude. */
static int uint1(const uint8_t *in, size_t n, size_t *mag_len, uint8_t *first)
{
	struct reader r = reader_init(in, n), mag;
	int err = der_read_uint(&r, &mag);

	if (err != 0) {
		assert_int_equal(r.len, n);
		return err;
	}
	*mag_len = mag.len;
	*first = mag.p[0];
	return read_end(&r);
}

static void test_integers(void **state)
{
	static const uint8_t zero[] = { 0x02, 0x01, 0x00 }, empty[] = { 0x02, 0x00 };
	static const uint8_t pos[] = { 0x02, 0x02, 0x00, 0x80 }, pad[] = { 0x02, 0x02, 0x00, 0x7f };
	static const uint8_t neg[] = { 0x02, 0x01, 0x80 }, negpad[] = { 0x02, 0x02, 0xff, 0x80 };
	static const uint8_t neg2[] = { 0x02, 0x02, 0xff, 0x7f }, big[] = { 0x02, 0x02, 0x01, 0x2c };
	static const uint8_t five[] = { 0x02, 0x05, 0x01, 0x00, 0x00, 0x00, 0x00 };
	static const uint8_t u32max[] = { 0x02, 0x05, 0x00, 0xff, 0xff, 0xff, 0xff };
	struct reader r, v;
	uint8_t first = 0, out[4];
	size_t len = 0;
	uint32_t x;

	(void)state;
	assert_int_equal(uint1(zero, sizeof(zero), &len, &first), 0);
	assert_int_equal(len, 1);
	assert_int_equal(first, 0);
	assert_int_equal(uint1(pos, sizeof(pos), &len, &first), 0); /* 128: sign octet dropped */
	assert_int_equal(len, 1);
	assert_int_equal(first, 0x80);
	assert_int_equal(uint1(big, sizeof(big), &len, &first), 0);
	assert_int_equal(len, 2);
	/* X.690 8.3: empty, and nine leading zero or one bits */
	assert_int_equal(uint1(empty, sizeof(empty), &len, &first), HS_ERR_BAD_ENCODING);
	assert_int_equal(uint1(pad, sizeof(pad), &len, &first), HS_ERR_BAD_ENCODING);
	assert_int_equal(uint1(negpad, sizeof(negpad), &len, &first), HS_ERR_BAD_ENCODING);
	/* negative: a minimal INTEGER, but not a non-negative one */
	assert_int_equal(uint1(neg, sizeof(neg), &len, &first), HS_ERR_BAD_ENCODING);
	r = reader_init(neg2, sizeof(neg2));
	assert_int_equal(der_read_int(&r, &v), 0);
	assert_int_equal(v.len, 2);
	r = reader_init(negpad, sizeof(negpad));
	assert_int_equal(der_read_int(&r, &v), HS_ERR_BAD_ENCODING);
	/* fixed width: left-padded; too wide refused */
	r = reader_init(pos, sizeof(pos));
	assert_int_equal(der_read_uint_fixed(&r, out, 4), 0);
	assert_int_equal(out[0] | out[1] | out[2], 0);
	assert_int_equal(out[3], 0x80);
	r = reader_init(five, sizeof(five));
	assert_int_equal(der_read_uint_fixed(&r, out, 4), HS_ERR_BAD_ENCODING);
	assert_int_equal(r.len, sizeof(five));
	/* 32-bit values: 300, 2^32 - 1, and 2^32 is too long */
	r = reader_init(big, sizeof(big));
	assert_int_equal(der_read_uint(&r, &v), 0);
	assert_int_equal(der_uint_u32(v, &x), 0);
	assert_int_equal(x, 300);
	r = reader_init(u32max, sizeof(u32max));
	assert_int_equal(der_read_uint(&r, &v), 0);
	assert_int_equal(der_uint_u32(v, &x), 0);
	assert_true(x == 0xffffffffu);
	r = reader_init(five, sizeof(five));
	assert_int_equal(der_read_uint(&r, &v), 0);
	assert_int_equal(der_uint_u32(v, &x), HS_ERR_TOO_LONG);
}

static void test_oid_is(void **state)
{
	static const uint8_t oid[] = { 0x2b, 0x65, 0x70 };
	struct reader r = reader_init(oid, sizeof(oid));

	(void)state;
	assert_true(der_oid_is(&r, oid, 3));
	assert_false(der_oid_is(&r, oid, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_truncation_and_tags),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_oid_is),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
