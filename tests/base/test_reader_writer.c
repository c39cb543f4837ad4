/*
 * Proves the bounds-checked reader and writer never read or write past a
 * length, report the right error, and leave state unchanged on failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/reader.h"
#include "base/writer.h"

static void test_reader_ints(void **state)
{
	(void)state;
	static const uint8_t in[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct reader r = reader_init(in, sizeof(in));
	uint8_t a;
	uint16_t b;
	uint32_t c, d;

	assert_int_equal(read_u8(&r, &a), 0);
	assert_int_equal(a, 1);
	assert_int_equal(read_u16(&r, &b), 0);
	assert_int_equal(b, 0x0203);
	assert_int_equal(read_u24(&r, &c), 0);
	assert_int_equal(c, 0x040506);
	assert_int_equal(read_u32(&r, &d), 0);
	assert_int_equal(d, 0x0708090a);
	assert_int_equal(read_end(&r), 0);
	assert_int_equal(read_u8(&r, &a), HS_ERR_TRUNCATED);
}

static void test_reader_truncated_leaves_state(void **state)
{
	(void)state;
	static const uint8_t in[] = { 0xaa, 0xbb, 0xcc };
	struct reader r = reader_init(in, sizeof(in));
	uint32_t v;

	assert_int_equal(read_u32(&r, &v), HS_ERR_TRUNCATED);
	assert_int_equal(reader_left(&r), 3);
	assert_int_equal(read_u24(&r, &v), 0);
	assert_int_equal(v, 0xaabbcc);
	assert_int_equal(read_end(&r), 0);
}

static void test_reader_vec(void **state)
{
	(void)state;
	static const uint8_t in[] = { 0x00, 0x03, 'a', 'b', 'c', 0x02, 'x' };
	struct reader r = reader_init(in, sizeof(in)), sub;
	uint8_t buf[3];

	assert_int_equal(read_vec(&r, 2, 1, 10, &sub), 0);
	assert_int_equal(reader_left(&sub), 3);
	assert_int_equal(read_bytes(&sub, buf, 3), 0);
	assert_memory_equal(buf, "abc", 3);
	assert_int_equal(read_end(&sub), 0);
	/* declared length 2 but 1 byte left: truncated, reader unchanged */
	assert_int_equal(read_vec(&r, 1, 0, 255, &sub), HS_ERR_TRUNCATED);
	assert_int_equal(reader_left(&r), 2);
	/* length outside [min, max] */
	assert_int_equal(read_vec(&r, 1, 3, 255, &sub), HS_ERR_BAD_ENCODING);
	assert_int_equal(reader_left(&r), 2);
	assert_int_equal(read_end(&r), HS_ERR_TRAILING);
}

static void test_writer_vec(void **state)
{
	(void)state;
	uint8_t buf[8];
	struct writer w = writer_init(buf, sizeof(buf));
	struct writer_vec v;

	assert_int_equal(write_vec_open(&w, 2, &v), 0);
	assert_int_equal(write_bytes(&w, "hey", 3), 0);
	assert_int_equal(write_vec_close(&w, &v), 0);
	assert_int_equal(w.len, 5);
	assert_memory_equal(buf, "\x00\x03hey", 5);
	assert_int_equal(write_u24(&w, 0x010203), 0);
	assert_int_equal(write_u8(&w, 1), HS_ERR_NO_SPACE);
	/* the error is sticky */
	assert_int_equal(writer_error(&w), HS_ERR_NO_SPACE);
	assert_null(write_reserve(&w, 0));
}

static void test_writer_vec_overflow(void **state)
{
	(void)state;
	uint8_t buf[300];
	struct writer w = writer_init(buf, sizeof(buf));
	struct writer_vec v;
	uint8_t body[256] = { 0 };

	assert_int_equal(write_vec_open(&w, 1, &v), 0);
	assert_int_equal(write_bytes(&w, body, sizeof(body)), 0);
	assert_int_equal(write_vec_close(&w, &v), HS_ERR_TOO_LONG);
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(hs_strerror(0), "success");
	assert_string_equal(hs_strerror(HS_ERR_BAD_TAG), "authentication tag mismatch");
	assert_string_equal(hs_strerror(-99999), "unknown error");
	assert_string_equal(hs_strerror(12), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_ints),
		cmocka_unit_test(test_reader_truncated_leaves_state),
		cmocka_unit_test(test_reader_vec),
		cmocka_unit_test(test_writer_vec),
		cmocka_unit_test(test_writer_vec_overflow),
		cmocka_unit_test(test_strerror),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
