/*
 * ChaCha20 keystream XOR with AVX-512F: sixteen blocks at a time. Same
 * contract and bit-identical output as chacha20_xor_portable
 * (crypto/chacha20.h).
 *
 * Implementation notes:
 * - "Vertical" layout as in chacha20_avx2.c: register x[i] holds word i of
 *   sixteen consecutive blocks (counters st[12] + 0..15, modulo 2^32).
 * - Rotations are single instructions (vprold).
 * - Transpose of 16 words x 16 blocks: 32/64-bit unpacks within 128-bit
 *   lanes give, per group of four words, four words of four blocks per
 *   register; two rounds of vshufi32x4 then transpose the 4x4 grid of
 *   128-bit lanes so each register is one 64-byte block.
 * - Whole 1024-byte chunks only; the rest (< 1024 bytes) goes to the AVX2
 *   code with the counter advanced, which is cheaper for short tails.
 * - Only len steers loops: constant time. Call only when
 *   cpu_has(HS_CPU_AVX512F | HS_CPU_AVX2).
 */
#include <immintrin.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/chacha20.h"

#define AVX512 __attribute__((target("avx512f")))

/* RFC 8439 2.1 on sixteen lanes at once */
#define QR(a, b, c, d)                                          \
	do {                                                    \
		a = _mm512_add_epi32(a, b);                     \
		d = _mm512_rol_epi32(_mm512_xor_si512(d, a), 16); \
		c = _mm512_add_epi32(c, d);                     \
		b = _mm512_rol_epi32(_mm512_xor_si512(b, c), 12); \
		a = _mm512_add_epi32(a, b);                     \
		d = _mm512_rol_epi32(_mm512_xor_si512(d, a), 8); \
		c = _mm512_add_epi32(c, d);                     \
		b = _mm512_rol_epi32(_mm512_xor_si512(b, c), 7); \
	} while (0)

/* y = 20 rounds of the sixteen input states s (word-sliced), plus s. */
AVX512 static void rounds16(const __m512i s[16], __m512i y[16])
{
	__m512i x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3], x4 = s[4], x5 = s[5], x6 = s[6],
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
	y[0] = _mm512_add_epi32(x0, s[0]);
	y[1] = _mm512_add_epi32(x1, s[1]);
	y[2] = _mm512_add_epi32(x2, s[2]);
	y[3] = _mm512_add_epi32(x3, s[3]);
	y[4] = _mm512_add_epi32(x4, s[4]);
	y[5] = _mm512_add_epi32(x5, s[5]);
	y[6] = _mm512_add_epi32(x6, s[6]);
	y[7] = _mm512_add_epi32(x7, s[7]);
	y[8] = _mm512_add_epi32(x8, s[8]);
	y[9] = _mm512_add_epi32(x9, s[9]);
	y[10] = _mm512_add_epi32(x10, s[10]);
	y[11] = _mm512_add_epi32(x11, s[11]);
	y[12] = _mm512_add_epi32(x12, s[12]);
	y[13] = _mm512_add_epi32(x13, s[13]);
	y[14] = _mm512_add_epi32(x14, s[14]);
	y[15] = _mm512_add_epi32(x15, s[15]);
}

/*
 * Words w..w+3 (lane j = block j) to r[k] whose 128-bit lane j holds
 * words w..w+3 of block 4j + k.
 */
AVX512 static void transpose4(const __m512i *w, __m512i r[4])
{
	__m512i t0 = _mm512_unpacklo_epi32(w[0], w[1]);
	__m512i t1 = _mm512_unpackhi_epi32(w[0], w[1]);
	__m512i t2 = _mm512_unpacklo_epi32(w[2], w[3]);
	__m512i t3 = _mm512_unpackhi_epi32(w[2], w[3]);

	r[0] = _mm512_unpacklo_epi64(t0, t2);
	r[1] = _mm512_unpackhi_epi64(t0, t2);
	r[2] = _mm512_unpacklo_epi64(t1, t3);
	r[3] = _mm512_unpackhi_epi64(t1, t3);
}

/* Word-sliced y to 1024 bytes of keystream: ks[b] is block b. */
AVX512 static void transpose16(const __m512i y[16], __m512i ks[16])
{
	__m512i g[4][4];

	for (int q = 0; q < 4; q++)
		transpose4(y + 4 * q, g[q]);
	/*
	 * For each k, g[q][k] lane j = words 4q..4q+3 of block 4j + k. A 4x4
	 * transpose of 128-bit lanes: 0x44 takes lanes (0, 1) of a then of b,
	 * 0xee lanes (2, 3); then 0x88 takes lanes (0, 2), 0xdd lanes (1, 3).
	 */
	for (int k = 0; k < 4; k++) {
		__m512i p0 = _mm512_shuffle_i32x4(g[0][k], g[1][k], 0x44);
		__m512i p1 = _mm512_shuffle_i32x4(g[0][k], g[1][k], 0xee);
		__m512i p2 = _mm512_shuffle_i32x4(g[2][k], g[3][k], 0x44);
		__m512i p3 = _mm512_shuffle_i32x4(g[2][k], g[3][k], 0xee);

		ks[k] = _mm512_shuffle_i32x4(p0, p2, 0x88);
		ks[4 + k] = _mm512_shuffle_i32x4(p0, p2, 0xdd);
		ks[8 + k] = _mm512_shuffle_i32x4(p1, p3, 0x88);
		ks[12 + k] = _mm512_shuffle_i32x4(p1, p3, 0xdd);
	}
}

AVX512 void chacha20_xor_avx512(const uint32_t st[16], const uint8_t *in, size_t len,
				   uint8_t *out, uint32_t mask)
{
	__m512i s[16], y[16], ks[16];
	const __m512i m = _mm512_set1_epi32((int)mask);
	uint32_t tail[16];
	size_t done = 0;

	if (len < 1024) {
		chacha20_xor_avx2(st, in, len, out, mask);
		return;
	}
	for (int i = 0; i < 16; i++)
		s[i] = _mm512_set1_epi32((int)st[i]);
	s[12] = _mm512_add_epi32(s[12], _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
							  12, 13, 14, 15));
	for (; len - done >= 1024; done += 1024) {
		rounds16(s, y);
		transpose16(y, ks);
		/* each 64-byte block is loaded before it is stored: in == out is fine */
		for (int i = 0; i < 16; i++) {
			__m512i v = _mm512_loadu_si512(in + done + 64 * i);
			v = _mm512_and_si512(_mm512_xor_si512(v, ks[i]), m);
			_mm512_storeu_si512(out + done + 64 * i, v);
		}
		s[12] = _mm512_add_epi32(s[12], _mm512_set1_epi32(16));
	}
	wipe(s, sizeof(s));
	wipe(y, sizeof(y));
	wipe(ks, sizeof(ks));
	if (len > done) {
		memcpy(tail, st, sizeof(tail));
		tail[12] += (uint32_t)(done / 64);
		chacha20_xor_avx2(tail, in + done, len - done, out + done, mask);
		wipe(tail, sizeof(tail));
	}
}
