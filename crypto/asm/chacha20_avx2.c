/*
 * ChaCha20 keystream XOR with AVX2: eight blocks at a time. Same contract
 * and bit-identical output as chacha20_xor_portable (crypto/chacha20.h).
 *
 * Implementation notes:
 * - "Vertical" layout: register x[i] holds word i of eight consecutive
 *   blocks (counters st[12] + 0..7, modulo 2^32), so a quarter round is the
 *   scalar one applied lane-wise and the diagonal round needs no shuffles.
 * - Rotations by 16 and 8 are byte shuffles (vpshufb); by 12 and 7 they
 *   are two shifts and an OR.
 * - After the rounds, the 16 words x 8 blocks are transposed into eight
 *   64-byte blocks: 32/64-bit unpacks within 128-bit lanes give four words
 *   of two blocks per register, then lane swaps (vperm2i128) join them.
 * - A tail under 512 bytes computes eight blocks, or four in 128-bit
 *   registers when it is 256 bytes or less (same method, a 4x4 transpose),
 *   into a stack buffer that is wiped afterwards; 128 bytes or less go to
 *   the portable code. Only len steers loops and the choice: constant time.
 * - Per-function target attributes: no global -mavx2 is needed; call only
 *   when cpu_has(HS_CPU_AVX2).
 */
#include <immintrin.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/chacha20.h"

#define AVX2 __attribute__((target("avx2")))

/* x <<< 16 and x <<< 8 in each 32-bit lane, as byte permutations */
AVX2 static inline __m256i rotl16(__m256i x)
{
	const __m256i idx = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
					     2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
	return _mm256_shuffle_epi8(x, idx);
}

AVX2 static inline __m256i rotl8(__m256i x)
{
	const __m256i idx = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
					     3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
	return _mm256_shuffle_epi8(x, idx);
}

#define ROTL(x, n) _mm256_or_si256(_mm256_slli_epi32((x), (n)), _mm256_srli_epi32((x), 32 - (n)))

/* RFC 8439 2.1 on eight lanes at once */
#define QR(a, b, c, d)                                          \
	do {                                                    \
		a = _mm256_add_epi32(a, b);                     \
		d = rotl16(_mm256_xor_si256(d, a));             \
		c = _mm256_add_epi32(c, d);                     \
		b = ROTL(_mm256_xor_si256(b, c), 12);           \
		a = _mm256_add_epi32(a, b);                     \
		d = rotl8(_mm256_xor_si256(d, a));              \
		c = _mm256_add_epi32(c, d);                     \
		b = ROTL(_mm256_xor_si256(b, c), 7);            \
	} while (0)

/* y = 20 rounds of the eight input states s (word-sliced), plus s. */
AVX2 static void rounds8(const __m256i s[16], __m256i y[16])
{
	__m256i x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3], x4 = s[4], x5 = s[5], x6 = s[6],
		x7 = s[7], x8 = s[8], x9 = s[9], x10 = s[10], x11 = s[11], x12 = s[12],
		x13 = s[13], x14 = s[14], x15 = s[15];

	for (int i = 0; i < 10; i++) {
		QR(x0, x4, x8, x12);
		QR(x1, x5, x9, x13);
		QR(x2, x6, x10, x14);
		QR(x3, x7, x11, x15);
		QR(x0, x5, x10, x15);
		QR(x1, x6, x11, x12);
		QR(x2, x7, x8, x13);
		QR(x3, x4, x9, x14);
	}
	y[0] = _mm256_add_epi32(x0, s[0]);
	y[1] = _mm256_add_epi32(x1, s[1]);
	y[2] = _mm256_add_epi32(x2, s[2]);
	y[3] = _mm256_add_epi32(x3, s[3]);
	y[4] = _mm256_add_epi32(x4, s[4]);
	y[5] = _mm256_add_epi32(x5, s[5]);
	y[6] = _mm256_add_epi32(x6, s[6]);
	y[7] = _mm256_add_epi32(x7, s[7]);
	y[8] = _mm256_add_epi32(x8, s[8]);
	y[9] = _mm256_add_epi32(x9, s[9]);
	y[10] = _mm256_add_epi32(x10, s[10]);
	y[11] = _mm256_add_epi32(x11, s[11]);
	y[12] = _mm256_add_epi32(x12, s[12]);
	y[13] = _mm256_add_epi32(x13, s[13]);
	y[14] = _mm256_add_epi32(x14, s[14]);
	y[15] = _mm256_add_epi32(x15, s[15]);
}

/*
 * Words w..w+3 (one register each, lane j = block j) to r[k] holding, in
 * 128-bit lane 0, words w..w+3 of block k and, in lane 1, of block k + 4.
 */
AVX2 static void transpose4(const __m256i *w, __m256i r[4])
{
	__m256i t0 = _mm256_unpacklo_epi32(w[0], w[1]);
	__m256i t1 = _mm256_unpackhi_epi32(w[0], w[1]);
	__m256i t2 = _mm256_unpacklo_epi32(w[2], w[3]);
	__m256i t3 = _mm256_unpackhi_epi32(w[2], w[3]);

	r[0] = _mm256_unpacklo_epi64(t0, t2);
	r[1] = _mm256_unpackhi_epi64(t0, t2);
	r[2] = _mm256_unpacklo_epi64(t1, t3);
	r[3] = _mm256_unpackhi_epi64(t1, t3);
}

/* Word-sliced y to 512 bytes of keystream: ks[2b], ks[2b + 1] are block b. */
AVX2 static void transpose8(const __m256i y[16], __m256i ks[16])
{
	__m256i g[4][4];

	for (int q = 0; q < 4; q++)
		transpose4(y + 4 * q, g[q]);
	for (int k = 0; k < 4; k++) {
		/* 0x20: lane 0 of both operands (block k); 0x31: lane 1 (block k + 4) */
		ks[2 * k] = _mm256_permute2x128_si256(g[0][k], g[1][k], 0x20);
		ks[2 * k + 1] = _mm256_permute2x128_si256(g[2][k], g[3][k], 0x20);
		ks[2 * (k + 4)] = _mm256_permute2x128_si256(g[0][k], g[1][k], 0x31);
		ks[2 * (k + 4) + 1] = _mm256_permute2x128_si256(g[2][k], g[3][k], 0x31);
	}
}

/* ---- four blocks in 128-bit registers, for short tails ---- */

AVX2 static inline __m128i rotl16_4(__m128i x)
{
	const __m128i idx = _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
	return _mm_shuffle_epi8(x, idx);
}

AVX2 static inline __m128i rotl8_4(__m128i x)
{
	const __m128i idx = _mm_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
	return _mm_shuffle_epi8(x, idx);
}

#define ROTL4(x, n) _mm_or_si128(_mm_slli_epi32((x), (n)), _mm_srli_epi32((x), 32 - (n)))

#define QR4(a, b, c, d)                                         \
	do {                                                    \
		a = _mm_add_epi32(a, b);                        \
		d = rotl16_4(_mm_xor_si128(d, a));              \
		c = _mm_add_epi32(c, d);                        \
		b = ROTL4(_mm_xor_si128(b, c), 12);             \
		a = _mm_add_epi32(a, b);                        \
		d = rotl8_4(_mm_xor_si128(d, a));               \
		c = _mm_add_epi32(c, d);                        \
		b = ROTL4(_mm_xor_si128(b, c), 7);              \
	} while (0)

/* Words w..w+3 of four blocks (lane j = block j) stored as 16 bytes of each block. */
AVX2 static inline void store4x4(__m128i a, __m128i b, __m128i c, __m128i d, uint8_t *ks)
{
	__m128i t0 = _mm_unpacklo_epi32(a, b), t1 = _mm_unpackhi_epi32(a, b);
	__m128i t2 = _mm_unpacklo_epi32(c, d), t3 = _mm_unpackhi_epi32(c, d);

	_mm_storeu_si128((__m128i *)(void *)ks, _mm_unpacklo_epi64(t0, t2));
	_mm_storeu_si128((__m128i *)(void *)(ks + 64), _mm_unpackhi_epi64(t0, t2));
	_mm_storeu_si128((__m128i *)(void *)(ks + 128), _mm_unpacklo_epi64(t1, t3));
	_mm_storeu_si128((__m128i *)(void *)(ks + 192), _mm_unpackhi_epi64(t1, t3));
}

/* 256 bytes of keystream: blocks st[12] + 0..3 (modulo 2^32). */
AVX2 static void keystream4(const uint32_t st[16], uint8_t ks[256])
{
	__m128i s[16];

	for (int i = 0; i < 16; i++)
		s[i] = _mm_set1_epi32((int)st[i]);
	s[12] = _mm_add_epi32(s[12], _mm_setr_epi32(0, 1, 2, 3));
	__m128i x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3], x4 = s[4], x5 = s[5], x6 = s[6],
		x7 = s[7], x8 = s[8], x9 = s[9], x10 = s[10], x11 = s[11], x12 = s[12],
		x13 = s[13], x14 = s[14], x15 = s[15];
	for (int i = 0; i < 10; i++) {
		QR4(x0, x4, x8, x12);
		QR4(x1, x5, x9, x13);
		QR4(x2, x6, x10, x14);
		QR4(x3, x7, x11, x15);
		QR4(x0, x5, x10, x15);
		QR4(x1, x6, x11, x12);
		QR4(x2, x7, x8, x13);
		QR4(x3, x4, x9, x14);
	}
	store4x4(_mm_add_epi32(x0, s[0]), _mm_add_epi32(x1, s[1]), _mm_add_epi32(x2, s[2]),
		 _mm_add_epi32(x3, s[3]), ks);
	store4x4(_mm_add_epi32(x4, s[4]), _mm_add_epi32(x5, s[5]), _mm_add_epi32(x6, s[6]),
		 _mm_add_epi32(x7, s[7]), ks + 16);
	store4x4(_mm_add_epi32(x8, s[8]), _mm_add_epi32(x9, s[9]), _mm_add_epi32(x10, s[10]),
		 _mm_add_epi32(x11, s[11]), ks + 32);
	store4x4(_mm_add_epi32(x12, s[12]), _mm_add_epi32(x13, s[13]),
		 _mm_add_epi32(x14, s[14]), _mm_add_epi32(x15, s[15]), ks + 48);
	wipe(s, sizeof(s));
}

/* ---- the XOR ---- */

/*
 * A tail under 512 bytes: eight blocks (over 256 bytes) or four into a
 * buffer; up to two blocks, the scalar code is faster than a batch of four.
 */
AVX2 static void xor_tail(const __m256i s[16], uint32_t counter, const uint32_t st[16],
			  const uint8_t *in, size_t len, uint8_t *out, uint32_t mask)
{
	uint8_t buf[512];

	if (len <= 128) {
		uint32_t t[16];

		memcpy(t, st, sizeof(t));
		t[12] = counter;
		chacha20_xor_portable(t, in, len, out, mask);
		wipe(t, sizeof(t));
		return;
	}
	if (len > 256) {
		__m256i y[16], ks[16];

		rounds8(s, y);
		transpose8(y, ks);
		memcpy(buf, ks, sizeof(buf));
		wipe(y, sizeof(y));
		wipe(ks, sizeof(ks));
	} else {
		uint32_t t[16];

		memcpy(t, st, sizeof(t));
		t[12] = counter;
		keystream4(t, buf);
		wipe(t, sizeof(t));
	}
	for (size_t i = 0; i < len; i++)
		out[i] = (uint8_t)((in[i] ^ buf[i]) & mask);
	wipe(buf, sizeof(buf));
}

AVX2 void chacha20_xor_avx2(const uint32_t st[16], const uint8_t *in, size_t len,
			       uint8_t *out, uint32_t mask)
{
	__m256i s[16], y[16], ks[16];
	const __m256i m = _mm256_set1_epi32((int)mask);
	size_t done = 0;

	for (int i = 0; i < 16; i++)
		s[i] = _mm256_set1_epi32((int)st[i]);
	s[12] = _mm256_add_epi32(s[12], _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));

	for (; len - done >= 512; done += 512) {
		rounds8(s, y);
		transpose8(y, ks);
		/* each 32-byte chunk is loaded before it is stored: in == out is fine */
		for (int i = 0; i < 16; i++) {
			__m256i v = _mm256_loadu_si256(
				(const __m256i *)(const void *)(in + done + 32 * i));
			v = _mm256_and_si256(_mm256_xor_si256(v, ks[i]), m);
			_mm256_storeu_si256((__m256i *)(void *)(out + done + 32 * i), v);
		}
		s[12] = _mm256_add_epi32(s[12], _mm256_set1_epi32(8));
	}
	if (len > done)
		xor_tail(s, st[12] + (uint32_t)(done / 64), st, in + done, len - done, out + done,
			 mask);
	wipe(s, sizeof(s));
	wipe(y, sizeof(y));
	wipe(ks, sizeof(ks));
}
