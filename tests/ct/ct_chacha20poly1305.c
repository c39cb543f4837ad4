/*
 * Proves ChaCha20-Poly1305 seal and open (valid tag and bad tag) run in
 * constant time under ctgrind: the key and the plaintext are marked
 * secret, and valgrind fails the test on any branch or memory index that
 * depends on them. Ciphertext and tag are marked public once sealed (they
 * go on the wire), so open is checked with only the key secret; the tag
 * verdict is computed without a branch, so even it stays secret until
 * this program marks the return code public. Lengths cover the portable
 * block loop and partial block and the AVX2 full and tail paths.
 *
 * Every backend valgrind can run is checked; valgrind does not emulate
 * AVX-512 and hides it from CPUID, so those backends report as skipped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/aead.h"
#include "ct.h"

static int check(const struct aead *a, size_t len)
{
	uint8_t key[32], nonce[12], ad[13];
	uint8_t *pt = malloc(len + 1), *ct = malloc(len + 16), *out = malloc(len + 1);
	struct aead_ctx ctx;
	int r, fails = 0;

	if (!pt || !ct || !out)
		return 1;
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 7 + 1);
	memset(nonce, 0x42, sizeof(nonce));
	memset(ad, 0x17, sizeof(ad));
	for (size_t i = 0; i < len; i++)
		pt[i] = (uint8_t)(i * 13 + 5);

	CT_SECRET(key, sizeof(key));
	CT_SECRET(pt, len);
	r = a->init(&ctx, key);
	CT_PUBLIC(&r, sizeof(r));
	fails |= r != 0;
	a->seal(&ctx, nonce, ad, sizeof(ad), pt, len, ct);
	CT_PUBLIC(ct, len + 16);

	/* valid tag */
	r = a->open(&ctx, nonce, ad, sizeof(ad), ct, len + 16, out);
	CT_PUBLIC(&r, sizeof(r));
	CT_PUBLIC(out, len);
	CT_PUBLIC(pt, len);
	fails |= r != 0 || memcmp(out, pt, len) != 0;

	/* bad tag: rejected, only zeros written */
	ct[len] ^= 1;
	r = a->open(&ctx, nonce, ad, sizeof(ad), ct, len + 16, out);
	CT_PUBLIC(&r, sizeof(r));
	CT_PUBLIC(out, len);
	fails |= r != HS_ERR_BAD_TAG;
	for (size_t i = 0; i < len; i++)
		fails |= out[i] != 0;

	a->wipe(&ctx);
	free(pt);
	free(ct);
	free(out);
	if (fails)
		printf("FAILED: %s, len %zu\n", a->name, len);
	return fails;
}

int main(void)
{
	static const size_t lens[] = { 0, 1, 15, 16, 63, 64, 65, 511, 512, 600, 1024, 1500, 2049 };
	const struct aead *backends[] = {
		aead_chacha20poly1305_portable(),
		aead_chacha20poly1305_avx2(),
		aead_chacha20poly1305_avx512(),
		aead_chacha20poly1305_avx512ifma(),
	};
	const char *names[] = { "portable", "AVX2", "AVX-512", "AVX-512 IFMA" };
	int fails = 0;

	for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		if (backends[b] == NULL) {
			printf("%s: SKIPPED (CPU or valgrind lacks it)\n", names[b]);
			continue;
		}
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			fails |= check(backends[b], lens[i]);
		printf("%s: seal, open, open with bad tag checked\n", backends[b]->name);
	}
	return fails;
}
