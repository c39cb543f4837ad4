/*
 * SHA-256 compression with the x86 SHA extensions (SHA-NI).
 *
 * Implementation notes:
 * - The state lives in two registers in the order SHA256RNDS2 wants:
 *   ABEF = lanes (3..0) A, B, E, F and CDGH = C, D, G, H. state_load and
 *   state_store convert from and to h[0..7] with one shuffle each and an
 *   alignr / blend pair.
 * - Each group of four rounds adds K to four schedule words and runs
 *   SHA256RNDS2 twice (two rounds each; the second gets the high half).
 *   After two rounds the old ABEF is the new CDGH, so the two registers
 *   simply swap roles.
 * - The schedule for words 16..63 is W[t] = s1(W[t-2]) + W[t-7] +
 *   s0(W[t-15]) + W[t-16] (FIPS 180-4, 6.2.2): SHA256MSG1 adds the s0
 *   term, an alignr picks W[t-7..t-4], SHA256MSG2 adds the s1 term.
 * - Needs SHA, SSE4.1 (blend) and SSSE3 (pshufb, palignr): the caller
 *   checks cpu_has(HS_CPU_SHANI | HS_CPU_SSE41 | HS_CPU_SSSE3).
 * - Constant-time: fixed instruction sequence, no data-dependent branch
 *   or index. The schedule lives in registers; any spill the compiler
 *   makes is not wiped (C cannot reach it), unlike the portable code.
 */
#include "crypto/sha2_internal.h"

#if defined(HS_HAVE_SHA256_SHANI)
#include <immintrin.h>

#define SHANI_TARGET __attribute__((target("sha,sse4.1,ssse3")))

/* h[0..7] -> (ABEF, CDGH) */
static inline SHANI_TARGET void state_load(const uint32_t h[8], __m128i *abef, __m128i *cdgh)
{
	__m128i badc = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0xb1);
	__m128i hgfe = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(h + 4)), 0x1b);

	*abef = _mm_alignr_epi8(badc, hgfe, 8); /* lanes 0..3: F E B A */
	*cdgh = _mm_blend_epi16(hgfe, badc, 0xf0); /* lanes 0..3: H G D C */
}

/* (ABEF, CDGH) -> h[0..7] */
static inline SHANI_TARGET void state_store(uint32_t h[8], __m128i abef, __m128i cdgh)
{
	__m128i abef_rev = _mm_shuffle_epi32(abef, 0x1b); /* lanes 0..3: A B E F */
	__m128i ghcd = _mm_shuffle_epi32(cdgh, 0xb1);     /* lanes 0..3: G H C D */

	_mm_storeu_si128((__m128i *)h, _mm_blend_epi16(abef_rev, ghcd, 0xf0));
	_mm_storeu_si128((__m128i *)(h + 4), _mm_alignr_epi8(ghcd, abef_rev, 8));
}

/* Four message words from 16 bytes, big-endian per word. */
static inline SHANI_TARGET __m128i load_words(const uint8_t *p)
{
	const __m128i bswap32 = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);

	return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), bswap32);
}

/* W[t..t+3] from w16 = W[t-16..], w12 = W[t-12..], w8 = W[t-8..], w4 = W[t-4..]. */
static inline SHANI_TARGET __m128i next_words(__m128i w16, __m128i w12, __m128i w8, __m128i w4)
{
	__m128i x = _mm_sha256msg1_epu32(w16, w12);

	x = _mm_add_epi32(x, _mm_alignr_epi8(w4, w8, 4)); /* + W[t-7..t-4] */
	return _mm_sha256msg2_epu32(x, w4);
}

/* Four rounds with words w and constants K[4g..4g+3]. */
static inline SHANI_TARGET void four_rounds(__m128i *abef, __m128i *cdgh, __m128i w, int g)
{
	__m128i wk = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)(sha256_k + 4 * g)));

	*cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, wk); /* cdgh now holds ABEF */
	wk = _mm_shuffle_epi32(wk, 0x0e);                /* high two words down */
	*abef = _mm_sha256rnds2_epu32(*abef, *cdgh, wk);
}

static SHANI_TARGET void block(__m128i *abef, __m128i *cdgh, const uint8_t *p)
{
	__m128i a0 = *abef, c0 = *cdgh;
	__m128i w0 = load_words(p), w1 = load_words(p + 16);
	__m128i w2 = load_words(p + 32), w3 = load_words(p + 48);

	for (int g = 0; g < 16; g += 4) {
		if (g > 0) {
			w0 = next_words(w0, w1, w2, w3);
			w1 = next_words(w1, w2, w3, w0);
			w2 = next_words(w2, w3, w0, w1);
			w3 = next_words(w3, w0, w1, w2);
		}
		four_rounds(abef, cdgh, w0, g);
		four_rounds(abef, cdgh, w1, g + 1);
		four_rounds(abef, cdgh, w2, g + 2);
		four_rounds(abef, cdgh, w3, g + 3);
	}
	*abef = _mm_add_epi32(*abef, a0);
	*cdgh = _mm_add_epi32(*cdgh, c0);
}

SHANI_TARGET void sha256_blocks_shani(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
	__m128i abef, cdgh;

	state_load(h, &abef, &cdgh);
	for (; nblocks > 0; nblocks--, p += 64)
		block(&abef, &cdgh, p);
	state_store(h, abef, cdgh);
}
#endif
