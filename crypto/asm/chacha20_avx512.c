/*
 * ChaCha20 keystream XOR with AVX-512F: 32 blocks at a time. Same
 * contract and bit-identical output as chacha20_xor_portable
 * (crypto/chacha20.h).
 *
 * Implementation notes:
 * - "Vertical" layout as in chacha20_avx2.c: register x[i] holds word i of
 *   sixteen consecutive blocks (counters st[12] + 0..15, modulo 2^32).
 * - Rotations are single instructions (vprold).
 * - Two such sets of sixteen blocks (32 blocks, 2048 bytes) run through the
 *   rounds together. Zen 5 gives every vector integer operation a latency
 *   of two cycles, so one set's four independent quarter rounds keep only
 *   half of its four vector pipes busy; the second set fills the other half
 *   (measured on Zen 5: 0.39 -> 0.27 TSC cycles per byte; 0.25 once the
 *   transpose and XOR were inlined, the keystream kept in registers). The 32 state
 *   registers are all of zmm0-31 (the quarter rounds are asm statements,
 *   see QR2); the input states stay in memory.
 * - Transpose of 16 words x 16 blocks: 32/64-bit unpacks within 128-bit
 *   lanes give, per group of four words, four words of four blocks per
 *   register; two rounds of vshufi32x4 then transpose the 4x4 grid of
 *   128-bit lanes so each register is one 64-byte block.
 * - Every batch costs about the same time whatever its width (latency
 *   bound), so a tail takes one batch of 32 blocks (over 1024 bytes) or 16
 *   (over TAIL_MIN bytes) and XORs only what it needs; a partial block goes
 *   through a stack buffer (wiped). Up to TAIL_MIN bytes go to the AVX2
 *   code (which runs one or two blocks in scalar code).
 * - chacha20_xor_key_avx512 also makes the block before the first one (the
 *   AEAD's block 0, its MAC key) in scalar registers, interleaved with the
 *   first batch's rounds: on the integer ALUs it costs a fraction of a
 *   separate block (1 KiB AEAD about 9% faster).
 * - Only len steers loops: constant time. Call only when
 *   cpu_has(HS_CPU_AVX512F | HS_CPU_AVX2).
 */
#include <immintrin.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/chacha20.h"

#define AVX512 __attribute__((target("avx512f")))
/* inlined, so the transposed keystream stays in registers */
#define INLINE static inline __attribute__((target("avx512f"), always_inline))

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

/*
 * RFC 8439 2.1 on two sets at once, (a, b, c, d) and (e, f, g, h), their
 * operations interleaved. One asm statement whose operands are updated in
 * place: with intrinsics, gcc 12 spills a third of the 32 live states to
 * the stack and the reloads land on the dependency chains.
 */
#define QR2(a, b, c, d, e, f, g, h)                                                     \
	__asm__("vpaddd %1, %0, %0\n\tvpaddd %5, %4, %4\n\t"                        \
		"vpxord %0, %3, %3\n\tvpxord %4, %7, %7\n\t"                        \
		"vprold $16, %3, %3\n\tvprold $16, %7, %7\n\t"                      \
		"vpaddd %3, %2, %2\n\tvpaddd %7, %6, %6\n\t"                        \
		"vpxord %2, %1, %1\n\tvpxord %6, %5, %5\n\t"                        \
		"vprold $12, %1, %1\n\tvprold $12, %5, %5\n\t"                      \
		"vpaddd %1, %0, %0\n\tvpaddd %5, %4, %4\n\t"                        \
		"vpxord %0, %3, %3\n\tvpxord %4, %7, %7\n\t"                        \
		"vprold $8, %3, %3\n\tvprold $8, %7, %7\n\t"                        \
		"vpaddd %3, %2, %2\n\tvpaddd %7, %6, %6\n\t"                        \
		"vpxord %2, %1, %1\n\tvpxord %6, %5, %5\n\t"                        \
		"vprold $7, %1, %1\n\tvprold $7, %5, %5"                              \
		: "+v"(a), "+v"(b), "+v"(c), "+v"(d), "+v"(e), "+v"(f), "+v"(g), "+v"(h))

/* RFC 8439 2.1 on 32-bit scalars (general-purpose registers) */
#define QRS(a, b, c, d)                                  \
	do {                                             \
		a += b;                                  \
		d = rotl32(d ^ a, 16);                   \
		c += d;                                  \
		b = rotl32(b ^ c, 12);                   \
		a += b;                                  \
		d = rotl32(d ^ a, 8);                    \
		c += d;                                  \
		b = rotl32(b ^ c, 7);                    \
	} while (0)

static inline uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* The scalar block's state v0..v15 from w, and its output u = rounds + w. */
#define SCALAR_LOAD(w)                                                                   \
	uint32_t v0 = (w)[0], v1 = (w)[1], v2 = (w)[2], v3 = (w)[3], v4 = (w)[4],         \
		 v5 = (w)[5], v6 = (w)[6], v7 = (w)[7], v8 = (w)[8], v9 = (w)[9],          \
		 v10 = (w)[10], v11 = (w)[11], v12 = (w)[12], v13 = (w)[13],               \
		 v14 = (w)[14], v15 = (w)[15]
#define SCALAR_DOUBLE_ROUND()                \
	do {                                 \
		QRS(v0, v4, v8, v12);        \
		QRS(v1, v5, v9, v13);        \
		QRS(v2, v6, v10, v14);       \
		QRS(v3, v7, v11, v15);       \
		QRS(v0, v5, v10, v15);       \
		QRS(v1, v6, v11, v12);       \
		QRS(v2, v7, v8, v13);        \
		QRS(v3, v4, v9, v14);        \
	} while (0)
#define SCALAR_STORE(w, u)                                                                \
	do {                                                                              \
		(u)[0] = v0 + (w)[0], (u)[1] = v1 + (w)[1], (u)[2] = v2 + (w)[2];         \
		(u)[3] = v3 + (w)[3], (u)[4] = v4 + (w)[4], (u)[5] = v5 + (w)[5];         \
		(u)[6] = v6 + (w)[6], (u)[7] = v7 + (w)[7], (u)[8] = v8 + (w)[8];         \
		(u)[9] = v9 + (w)[9], (u)[10] = v10 + (w)[10], (u)[11] = v11 + (w)[11];   \
		(u)[12] = v12 + (w)[12], (u)[13] = v13 + (w)[13];                         \
		(u)[14] = v14 + (w)[14], (u)[15] = v15 + (w)[15];                         \
	} while (0)

/*
 * y = 20 rounds of the sixteen input states s (word-sliced), plus s. If w
 * is not NULL, also u = the rounds of the single state w plus w, in scalar
 * registers: the integer ALUs run it while the vector chains wait on their
 * two-cycle latency, so a lone extra block (the AEAD's block 0) costs far
 * less than on its own.
 */
AVX512 static void rounds16(const __m512i s[16], __m512i y[16], const uint32_t *w, uint32_t *u)
{
	__m512i x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3], x4 = s[4], x5 = s[5], x6 = s[6],
		x7 = s[7], x8 = s[8], x9 = s[9], x10 = s[10], x11 = s[11], x12 = s[12],
		x13 = s[13], x14 = s[14], x15 = s[15];

#define DOUBLE_ROUND16()                       \
	do {                                   \
		QR(x0, x4, x8, x12);           \
		QR(x1, x5, x9, x13);           \
		QR(x2, x6, x10, x14);          \
		QR(x3, x7, x11, x15);          \
		QR(x0, x5, x10, x15);          \
		QR(x1, x6, x11, x12);          \
		QR(x2, x7, x8, x13);           \
		QR(x3, x4, x9, x14);           \
	} while (0)
	if (w != NULL) {
		SCALAR_LOAD(w);
		for (int i = 0; i < 10; i++) {
			DOUBLE_ROUND16();
			SCALAR_DOUBLE_ROUND();
		}
		SCALAR_STORE(w, u);
	} else {
		for (int i = 0; i < 10; i++)
			DOUBLE_ROUND16();
	}
#undef DOUBLE_ROUND16
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
 * The same for 32 blocks: ya from the states s (counters c + 0..15), yb
 * from s with counters c + 16..31 (t is s[12] + 16). The two sets are
 * independent, so their quarter rounds overlap in the pipes. w, u: as in
 * rounds16.
 */
AVX512 static void rounds32(const __m512i s[16], __m512i t, __m512i ya[16], __m512i yb[16],
			    const uint32_t *w, uint32_t *u)
{
	__m512i x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3], x4 = s[4], x5 = s[5], x6 = s[6],
		x7 = s[7], x8 = s[8], x9 = s[9], x10 = s[10], x11 = s[11], x12 = s[12],
		x13 = s[13], x14 = s[14], x15 = s[15];
	__m512i z0 = s[0], z1 = s[1], z2 = s[2], z3 = s[3], z4 = s[4], z5 = s[5], z6 = s[6],
		z7 = s[7], z8 = s[8], z9 = s[9], z10 = s[10], z11 = s[11], z12 = t,
		z13 = s[13], z14 = s[14], z15 = s[15];

#define DOUBLE_ROUND32()                                          \
	do {                                                      \
		QR2(x0, x4, x8, x12, z0, z4, z8, z12);            \
		QR2(x1, x5, x9, x13, z1, z5, z9, z13);            \
		QR2(x2, x6, x10, x14, z2, z6, z10, z14);          \
		QR2(x3, x7, x11, x15, z3, z7, z11, z15);          \
		QR2(x0, x5, x10, x15, z0, z5, z10, z15);          \
		QR2(x1, x6, x11, x12, z1, z6, z11, z12);          \
		QR2(x2, x7, x8, x13, z2, z7, z8, z13);            \
		QR2(x3, x4, x9, x14, z3, z4, z9, z14);            \
	} while (0)
	if (w != NULL) {
		SCALAR_LOAD(w);
		for (int i = 0; i < 10; i++) {
			DOUBLE_ROUND32();
			SCALAR_DOUBLE_ROUND();
		}
		SCALAR_STORE(w, u);
	} else {
		for (int i = 0; i < 10; i++)
			DOUBLE_ROUND32();
	}
#undef DOUBLE_ROUND32
	ya[0] = _mm512_add_epi32(x0, s[0]);
	ya[1] = _mm512_add_epi32(x1, s[1]);
	ya[2] = _mm512_add_epi32(x2, s[2]);
	ya[3] = _mm512_add_epi32(x3, s[3]);
	ya[4] = _mm512_add_epi32(x4, s[4]);
	ya[5] = _mm512_add_epi32(x5, s[5]);
	ya[6] = _mm512_add_epi32(x6, s[6]);
	ya[7] = _mm512_add_epi32(x7, s[7]);
	ya[8] = _mm512_add_epi32(x8, s[8]);
	ya[9] = _mm512_add_epi32(x9, s[9]);
	ya[10] = _mm512_add_epi32(x10, s[10]);
	ya[11] = _mm512_add_epi32(x11, s[11]);
	ya[12] = _mm512_add_epi32(x12, s[12]);
	ya[13] = _mm512_add_epi32(x13, s[13]);
	ya[14] = _mm512_add_epi32(x14, s[14]);
	ya[15] = _mm512_add_epi32(x15, s[15]);
	yb[0] = _mm512_add_epi32(z0, s[0]);
	yb[1] = _mm512_add_epi32(z1, s[1]);
	yb[2] = _mm512_add_epi32(z2, s[2]);
	yb[3] = _mm512_add_epi32(z3, s[3]);
	yb[4] = _mm512_add_epi32(z4, s[4]);
	yb[5] = _mm512_add_epi32(z5, s[5]);
	yb[6] = _mm512_add_epi32(z6, s[6]);
	yb[7] = _mm512_add_epi32(z7, s[7]);
	yb[8] = _mm512_add_epi32(z8, s[8]);
	yb[9] = _mm512_add_epi32(z9, s[9]);
	yb[10] = _mm512_add_epi32(z10, s[10]);
	yb[11] = _mm512_add_epi32(z11, s[11]);
	yb[12] = _mm512_add_epi32(z12, t);
	yb[13] = _mm512_add_epi32(z13, s[13]);
	yb[14] = _mm512_add_epi32(z14, s[14]);
	yb[15] = _mm512_add_epi32(z15, s[15]);
}

/*
 * Words w..w+3 (lane j = block j) to r[k] whose 128-bit lane j holds
 * words w..w+3 of block 4j + k.
 */
INLINE void transpose4(const __m512i *w, __m512i r[4])
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
INLINE void transpose16(const __m512i y[16], __m512i ks[16])
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

/*
 * out = (in ^ keystream) & m for n <= 1024 bytes, the keystream being the
 * sixteen word-sliced blocks y. Each 64-byte block is loaded before it is
 * stored: in == out is fine. A partial last block goes through a buffer.
 */
INLINE void xor16(const __m512i y[16], const uint8_t *in, size_t n, uint8_t *out,
			 __m512i m)
{
	__m512i ks[16];
	size_t i = 0;

	transpose16(y, ks);
	for (; 64 * i + 64 <= n; i++) {
		__m512i v = _mm512_loadu_si512(in + 64 * i);
		v = _mm512_and_si512(_mm512_xor_si512(v, ks[i]), m);
		_mm512_storeu_si512(out + 64 * i, v);
	}
	if (64 * i < n) {
		uint8_t buf[64];

		memcpy(buf, in + 64 * i, n - 64 * i);
		_mm512_storeu_si512(buf, _mm512_and_si512(
					    _mm512_xor_si512(_mm512_loadu_si512(buf), ks[i]), m));
		memcpy(out + 64 * i, buf, n - 64 * i);
		wipe(buf, sizeof(buf));
	}
}

/* Up to this many bytes, a tail is cheaper in chacha20_xor_avx2 than in one batch. */
#define TAIL_MIN 128

/*
 * chacha20_xor_avx512; and if block0 is not NULL, the block of counter
 * st[12] - 1 to block0, computed in scalar registers alongside the first
 * batch.
 */
AVX512 static void xor_blocks(const uint32_t st[16], const uint8_t *in, size_t len,
			      uint8_t *out, uint32_t mask, uint8_t *block0)
{
	__m512i s[16], ya[16], yb[16];
	const __m512i m = _mm512_set1_epi32((int)mask), step = _mm512_set1_epi32(16);
	uint32_t w[16], u[16], tail[16];
	const uint32_t *wp = NULL;
	size_t done = 0;

	memcpy(w, st, sizeof(w));
	w[12] -= 1;
	if (len <= TAIL_MIN) {
		if (block0 != NULL)
			chacha20_block(w, block0);
		chacha20_xor_avx2(st, in, len, out, mask);
		wipe(w, sizeof(w));
		return;
	}
	if (block0 != NULL)
		wp = w;
	for (int i = 0; i < 16; i++)
		s[i] = _mm512_set1_epi32((int)st[i]);
	s[12] = _mm512_add_epi32(s[12], _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
							  12, 13, 14, 15));
	for (; len - done >= 2048; done += 2048) {
		rounds32(s, _mm512_add_epi32(s[12], step), ya, yb, wp, u);
		wp = NULL;
		xor16(ya, in + done, 1024, out + done, m);
		xor16(yb, in + done + 1024, 1024, out + done + 1024, m);
		s[12] = _mm512_add_epi32(s[12], _mm512_add_epi32(step, step));
	}
	if (len - done > 1024) {
		rounds32(s, _mm512_add_epi32(s[12], step), ya, yb, wp, u);
		wp = NULL;
		xor16(ya, in + done, 1024, out + done, m);
		xor16(yb, in + done + 1024, len - done - 1024, out + done + 1024, m);
	} else if (len - done > TAIL_MIN) {
		rounds16(s, ya, wp, u);
		wp = NULL;
		xor16(ya, in + done, len - done, out + done, m);
	} else if (len > done) {
		memcpy(tail, st, sizeof(tail));
		tail[12] += (uint32_t)(done / 64);
		chacha20_xor_avx2(tail, in + done, len - done, out + done, mask);
		wipe(tail, sizeof(tail));
	}
	if (block0 != NULL) {
		/* the first batch ran (len > TAIL_MIN): u is block st[12] - 1 */
		for (int i = 0; i < 16; i++) {
			block0[4 * i] = (uint8_t)u[i];
			block0[4 * i + 1] = (uint8_t)(u[i] >> 8);
			block0[4 * i + 2] = (uint8_t)(u[i] >> 16);
			block0[4 * i + 3] = (uint8_t)(u[i] >> 24);
		}
	}
	wipe(s, sizeof(s));
	wipe(ya, sizeof(ya));
	wipe(yb, sizeof(yb));
	wipe(w, sizeof(w));
	wipe(u, sizeof(u));
}

AVX512 void chacha20_xor_avx512(const uint32_t st[16], const uint8_t *in, size_t len,
				   uint8_t *out, uint32_t mask)
{
	xor_blocks(st, in, len, out, mask, NULL);
}

AVX512 void chacha20_xor_key_avx512(const uint32_t st[16], const uint8_t *in, size_t len,
				       uint8_t *out, uint32_t mask, uint8_t block0[64])
{
	xor_blocks(st, in, len, out, mask, block0);
}
