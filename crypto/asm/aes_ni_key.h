/*
 * The AES key schedule (FIPS-197 5.2) with AESKEYGENASSIST, shared by the
 * AES-NI and VAES backends (x86-64). Header-only like ghash_clmul.h: a
 * static always_inline function with its own target attribute.
 *
 * AESKEYGENASSIST computes SubWord and RotWord of the last word of a
 * round key (words 1 and 3 of its result: RotWord(SubWord(w3)) ^ Rcon and
 * SubWord(w3)) in the AES unit, in constant time. The rest of a step is
 * the running XOR w[i] = w[i - nk] ^ t, done for the four words at once:
 * k ^ (k << 32) ^ (k << 64) ^ (k << 96) (byte shifts of the register)
 * gives every word the XOR of the words before it, and the broadcast t
 * is added to all four. AES-256 alternates two such steps, the second
 * with SubWord alone (no rotation, no Rcon). The round keys are stored in
 * FIPS-197 byte order, the same bytes as aes_ct_expand (crypto/aes_ct.c),
 * which the tests compare. AES-192 (not a TLS 1.3 cipher) keeps the
 * portable schedule.
 */
#ifndef HS_CRYPTO_ASM_AES_NI_KEY_H
#define HS_CRYPTO_ASM_AES_NI_KEY_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wipe.h"
#include "crypto/aes_ct.h"

#define AES_NI_KEY_TARGET __attribute__((target("aes,sse2")))
#define AES_NI_KEY_INLINE static inline __attribute__((always_inline)) AES_NI_KEY_TARGET

/* every word of k XORed with the words below it */
AES_NI_KEY_INLINE __m128i aes_ni_key_prefix(__m128i k)
{
	k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
	k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
	return _mm_xor_si128(k, _mm_slli_si128(k, 4));
}

/* the next round key from k and assist (word `sel` of AESKEYGENASSIST's result) */
#define AES_NI_KEY_STEP(k, assist, sel)                                                        \
	_mm_xor_si128(aes_ni_key_prefix(k), _mm_shuffle_epi32((assist), (sel)))

/* AES-128: round key i from round key i - 1 with Rcon rc (an immediate) */
#define AES_NI_KEY128(rk, i, rc)                                                               \
	((rk)[i] = AES_NI_KEY_STEP((rk)[(i) - 1], _mm_aeskeygenassist_si128((rk)[(i) - 1], rc), 0xff))

/* AES-256: round keys i and i + 1 from i - 2 and i - 1 (the second without Rcon and rotation) */
#define AES_NI_KEY256(rk, i, rc)                                                               \
	do {                                                                                   \
		(rk)[i] = AES_NI_KEY_STEP((rk)[(i) - 2],                                       \
					  _mm_aeskeygenassist_si128((rk)[(i) - 1], rc), 0xff); \
		if ((i) + 1 < 15)                                                              \
			(rk)[(i) + 1] = AES_NI_KEY_STEP(                                       \
				(rk)[(i) - 1], _mm_aeskeygenassist_si128((rk)[i], 0), 0xaa);   \
	} while (0)

/* the rounds + 1 round keys into rk, the local copy wiped; returns rounds */
AES_NI_KEY_INLINE unsigned aes_ni_key_store(uint8_t *rk, __m128i k[15], unsigned rounds)
{
	for (unsigned i = 0; i <= rounds; i++)
		_mm_storeu_si128((__m128i *)(void *)(rk + 16 * i), k[i]);
	wipe(k, 15 * sizeof(k[0]));
	return rounds;
}

/*
 * rk = the expanded key (16 * (rounds + 1) bytes); returns the number of
 * rounds, 0 for a bad key length (as aes_ct_expand). The caller wipes rk
 * with its context; the local copy is wiped here.
 */
AES_NI_KEY_INLINE unsigned aes_expand_aesni(uint8_t rk[16 * (HS_AES_MAX_ROUNDS + 1)],
					    const uint8_t *key, size_t key_len)
{
	__m128i k[15];

	if (key_len == 16) {
		k[0] = _mm_loadu_si128((const __m128i *)(const void *)key);
		AES_NI_KEY128(k, 1, 0x01);
		AES_NI_KEY128(k, 2, 0x02);
		AES_NI_KEY128(k, 3, 0x04);
		AES_NI_KEY128(k, 4, 0x08);
		AES_NI_KEY128(k, 5, 0x10);
		AES_NI_KEY128(k, 6, 0x20);
		AES_NI_KEY128(k, 7, 0x40);
		AES_NI_KEY128(k, 8, 0x80);
		AES_NI_KEY128(k, 9, 0x1b);
		AES_NI_KEY128(k, 10, 0x36);
		return aes_ni_key_store(rk, k, 10);
	}
	if (key_len == 32) {
		k[0] = _mm_loadu_si128((const __m128i *)(const void *)key);
		k[1] = _mm_loadu_si128((const __m128i *)(const void *)(key + 16));
		AES_NI_KEY256(k, 2, 0x01);
		AES_NI_KEY256(k, 4, 0x02);
		AES_NI_KEY256(k, 6, 0x04);
		AES_NI_KEY256(k, 8, 0x08);
		AES_NI_KEY256(k, 10, 0x10);
		AES_NI_KEY256(k, 12, 0x20);
		AES_NI_KEY256(k, 14, 0x40);
		return aes_ni_key_store(rk, k, 14);
	}
	return aes_ct_expand(rk, key, key_len);
}

#endif
