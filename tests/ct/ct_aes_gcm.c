/*
 * Proves AES-GCM runs in constant time with respect to its secrets (the
 * ctgrind method, see ct.h): with the key and the plaintext marked
 * undefined, valgrind sees no branch and no memory index that depends on
 * them in init, seal or open (good tag and bad tag) of the portable and
 * AES-NI backends (the latter when valgrind's CPU has AES-NI). Lengths
 * cover empty, partial-block, multi-batch and 8-block-bulk messages.
 * Results are marked public before they are checked; a wrong result also
 * fails the test.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "crypto/aead.h"
#include "ct.h"

static int check(const struct aead *a, size_t len)
{
	static uint8_t pt[1100], ct[1100 + 16], back[1100 + 16];
	struct aead_ctx ctx;
	uint8_t key[32], nonce[12], ad[21];
	int r1, r2, bad = 0;

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 29 + len);
	memset(nonce, 0x4e, sizeof(nonce));
	memset(ad, 0xad, sizeof(ad));
	for (size_t i = 0; i < len; i++)
		pt[i] = (uint8_t)(i ^ 0x5c);

	CT_SECRET(key, sizeof(key));
	CT_SECRET(pt, len);
	r1 = a->init(&ctx, key);
	CT_PUBLIC(&r1, sizeof(r1));
	a->seal(&ctx, nonce, ad, sizeof(ad), pt, len, ct);
	CT_PUBLIC(ct, len + 16); /* the ciphertext is what goes on the wire */

	r1 = a->open(&ctx, nonce, ad, sizeof(ad), ct, len + 16, back);
	CT_PUBLIC(&r1, sizeof(r1));
	CT_PUBLIC(back, len);
	CT_PUBLIC(pt, len);
	if (r1 != 0 || memcmp(back, pt, len) != 0)
		bad = 1;

	ct[len / 2] ^= 1; /* a bad tag (or bad ciphertext) */
	r2 = a->open(&ctx, nonce, ad, sizeof(ad), ct, len + 16, back);
	CT_PUBLIC(&r2, sizeof(r2));
	CT_PUBLIC(back, len);
	if (r2 != HS_ERR_BAD_TAG)
		bad = 1;
	for (size_t i = 0; i < len; i++)
		bad |= back[i] != 0; /* the failed open cleared it */
	a->wipe(&ctx);
	if (bad)
		printf("%s, %zu bytes: WRONG RESULT\n", a->name, len);
	return bad;
}

int main(void)
{
	static const size_t lens[] = { 0, 1, 16, 77, 128, 300, 1100 };
	const struct aead *backends[] = {
		aead_aes128gcm_portable(), aead_aes256gcm_portable(),
		aead_aes128gcm_aesni(), aead_aes256gcm_aesni(),
		aead_aes128gcm_vaes512(), aead_aes256gcm_vaes512(), /* NULL under valgrind */
	};
	int bad = 0;

	for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		if (backends[b] == NULL) {
			printf("backend %zu: SKIPPED (CPU lacks it)\n", b);
			continue;
		}
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			bad |= check(backends[b], lens[i]);
		printf("%s: checked\n", backends[b]->name);
	}
	return bad;
}
