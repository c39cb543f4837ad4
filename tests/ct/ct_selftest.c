/*
 * Proves the ctgrind harness can fail: a comparison that returns early on
 * the first differing byte of a secret must be reported by valgrind.
 * run-ctgrind.sh --expect-leak passes only if valgrind reports it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ct.h"

static int __attribute__((noinline)) leaky_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

int main(void)
{
	uint8_t secret[16], guess[16];

	memset(secret, 0x5a, sizeof(secret));
	memset(guess, 0x5a, sizeof(guess));
	CT_SECRET(secret, sizeof(secret));
	int r = leaky_equal(secret, guess, sizeof(secret));
	CT_PUBLIC(&r, sizeof(r));
	printf("leaky_equal returned %d\n", r);
	return 0;
}
