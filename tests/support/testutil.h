/*
 * Helpers shared by the tests: hex, a seeded PRNG for differential tests,
 * and Wycheproof file loading and counting.
 *
 * Wycheproof: files live in $HS_WYCHEPROOF_DIR (meson sets it to the
 * project's tests/vectors/wycheproof/testvectors_v1). A file that cannot be
 * read ends the test as a failure: the vectors ship with the project.
 */
#ifndef HS_TESTS_TESTUTIL_H
#define HS_TESTS_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* Decode hex (even length, no separators) into a malloc'd buffer (free it). */
uint8_t *hex_decode(const char *hex, size_t *len);
/* Decode hex into out of exactly n bytes; 0 on success, -1 otherwise. */
int hex_decode_to(const char *hex, uint8_t *out, size_t n);

/* Deterministic PRNG (splitmix64): reproducible differential tests. */
struct test_rng {
	uint64_t s;
};
/* Seed from $HS_TEST_SEED or the given default, printing the seed used. */
void test_rng_init(struct test_rng *r, uint64_t def);
uint64_t test_rng_next(struct test_rng *r);
void test_rng_bytes(struct test_rng *r, void *buf, size_t n);
/* Uniform in [0, bound). */
size_t test_rng_below(struct test_rng *r, size_t bound);

/* Load a Wycheproof file by name (e.g. "x25519_test.json"), or NULL (printed why). */
struct json *wp_load(const char *name);
/* Does the test object's "flags" array contain flag? */
int wp_has_flag(const struct json *test, const char *flag);

struct wp_count {
	const char *file;
	unsigned ran, passed, failed, skipped;
};
/* Prints "wycheproof: FILE: N ran, N passed, N failed (N not applicable)". */
void wp_report(const struct wp_count *c);

#endif
