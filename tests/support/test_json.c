/* Proves the test JSON reader parses what Wycheproof files use, and rejects junk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testutil.h"

static void test_parse(void **state)
{
	(void)state;
	const char *s = "{\"a\": [1, -2.5e1, true, null], \"b\": \"x\\n\\u00e9\\\"\", \"c\": {}}";
	struct json *j = json_parse(s, strlen(s));
	assert_non_null(j);
	const struct json *a = json_get(j, "a");
	assert_non_null(a);
	assert_int_equal(a->count, 4);
	assert_true(a->items[1]->number == -25.0);
	assert_int_equal(a->items[3]->type, JSON_NULL);
	assert_string_equal(json_get_str(j, "b"), "x\n\xc3\xa9\"");
	assert_int_equal(json_get(j, "c")->count, 0);
	assert_null(json_get(j, "zz"));
	json_free(j);
}

static void test_reject(void **state)
{
	(void)state;
	const char *bad[] = { "{", "[1,]x", "{\"a\" 1}", "\"abc", "[1] 2", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(json_parse(bad[i], strlen(bad[i])));
}

static void test_hex(void **state)
{
	(void)state;
	size_t n;
	uint8_t *b = hex_decode("00ff10", &n);
	assert_non_null(b);
	assert_int_equal(n, 3);
	assert_memory_equal(b, "\x00\xff\x10", 3);
	free(b);
	assert_null(hex_decode("0", &n));
	assert_null(hex_decode("zz", &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_hex),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
