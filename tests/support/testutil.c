#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

uint8_t *hex_decode(const char *hex, size_t *len)
{
	size_t n = strlen(hex);
	uint8_t *out;

	if (n % 2)
		return NULL;
	out = malloc(n / 2 + 1); /* +1: never malloc(0) */
	if (!out)
		return NULL;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			free(out);
			return NULL;
		}
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return out;
}

int hex_decode_to(const char *hex, uint8_t *out, size_t n)
{
	size_t len;
	uint8_t *b = hex_decode(hex, &len);
	int ret = -1;

	if (b && len == n) {
		memcpy(out, b, n);
		ret = 0;
	}
	free(b);
	return ret;
}

void test_rng_init(struct test_rng *r, uint64_t def)
{
	const char *env = getenv("HS_TEST_SEED");
	r->s = env ? strtoull(env, NULL, 0) : def;
	printf("# test seed: 0x%" PRIx64 " (set HS_TEST_SEED to change)\n", r->s);
}

uint64_t test_rng_next(struct test_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void test_rng_bytes(struct test_rng *r, void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n > 0) {
		uint64_t v = test_rng_next(r);
		size_t k = n < 8 ? n : 8;
		memcpy(p, &v, k);
		p += k;
		n -= k;
	}
}

size_t test_rng_below(struct test_rng *r, size_t bound)
{
	return bound ? (size_t)(test_rng_next(r) % bound) : 0;
}

struct json *wp_load(const char *name)
{
	const char *dir = getenv("HS_WYCHEPROOF_DIR");
	char path[4096];
	struct json *j;

	/* the vectors live in the project (tests/vectors/): missing ones are a failure */
	if (!dir || !*dir) {
		printf("wycheproof: %s: FAILED: HS_WYCHEPROOF_DIR is not set "
		       "(run through meson test)\n", name);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	j = json_load_file(path);
	if (!j) {
		printf("wycheproof: %s: FAILED: cannot read %s\n", name, path);
		exit(1);
	}
	return j;
}

int wp_has_flag(const struct json *test, const char *flag)
{
	const struct json *flags = json_get(test, "flags");
	if (!flags || flags->type != JSON_ARRAY)
		return 0;
	for (size_t i = 0; i < flags->count; i++)
		if (flags->items[i]->type == JSON_STRING && strcmp(flags->items[i]->string, flag) == 0)
			return 1;
	return 0;
}

void wp_report(const struct wp_count *c)
{
	printf("wycheproof: %s: %u ran, %u passed, %u failed (%u not applicable)\n", c->file,
	       c->ran, c->passed, c->failed, c->skipped);
	fflush(stdout);
}
