/*
 * Poly1305 block absorption with AVX-512F: eight blocks at a time. Same
 * result as hs_poly1305_blocks_portable (crypto/poly1305.h).
 *
 * Implementation notes:
 * - The method of poly1305_avx2.c on eight 64-bit lanes: eight radix-2^26
 *   accumulators, A = A r^8 + M per step, and a last step by r^8 .. r
 *   (lane order below) before the lanes are summed. Same limb bounds.
 * - Loading: unpacking two 64-byte loads gives lanes in block order
 *   (0, 4, 1, 5, 2, 6, 3, 7); the final powers follow that order.
 * - Scalar copies of h and of the powers are wiped; the vector values
 *   are never stored (their addresses are not taken, so they stay in
 *   registers: wiping them would force them into memory, and a spill
 *   slot the compiler chose cannot be reached from C anyway).
 * - Fewer than 32 blocks go to the AVX2 code (which itself sends fewer
 *   than 16 to the portable code). Only nblocks steers loops: constant
 *   time. Call only when hs_cpu_has(HS_CPU_AVX512F | HS_CPU_AVX2).
 */
#include <immintrin.h>

#include "base/wipe.h"
#include "crypto/poly1305.h"

#define AVX512 __attribute__((target("avx512f")))

#define MUL(a, b) _mm512_mul_epu32((a), (b))
#define ADD(a, b) _mm512_add_epi64((a), (b))

/* Blocks m[0..127] as radix-2^26 limbs with the 2^128 bit, lanes = blocks 0, 4, 1, 5, ... */
AVX512 static inline void load8(const uint8_t *m, __m512i x[5])
{
	const __m512i mask = _mm512_set1_epi64(0x3ffffff);
	__m512i v0 = _mm512_loadu_si512(m);
	__m512i v1 = _mm512_loadu_si512(m + 64);
	__m512i lo = _mm512_unpacklo_epi64(v0, v1);
	__m512i hi = _mm512_unpackhi_epi64(v0, v1);

	x[0] = _mm512_and_si512(lo, mask);
	x[1] = _mm512_and_si512(_mm512_srli_epi64(lo, 26), mask);
	x[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo, 52),
						_mm512_slli_epi64(hi, 12)), mask);
	x[3] = _mm512_and_si512(_mm512_srli_epi64(hi, 14), mask);
	x[4] = _mm512_or_si512(_mm512_srli_epi64(hi, 40), _mm512_set1_epi64(1 << 24));
}

/* d = a r (no carry); s[i] = 5 r[i], s[0] unused. */
AVX512 static inline void mul(__m512i d[5], const __m512i a[5], const __m512i r[5],
			      const __m512i s[5])
{
	d[0] = ADD(ADD(ADD(MUL(a[0], r[0]), MUL(a[1], s[4])), ADD(MUL(a[2], s[3]), MUL(a[3], s[2]))),
		   MUL(a[4], s[1]));
	d[1] = ADD(ADD(ADD(MUL(a[0], r[1]), MUL(a[1], r[0])), ADD(MUL(a[2], s[4]), MUL(a[3], s[3]))),
		   MUL(a[4], s[2]));
	d[2] = ADD(ADD(ADD(MUL(a[0], r[2]), MUL(a[1], r[1])), ADD(MUL(a[2], r[0]), MUL(a[3], s[4]))),
		   MUL(a[4], s[3]));
	d[3] = ADD(ADD(ADD(MUL(a[0], r[3]), MUL(a[1], r[2])), ADD(MUL(a[2], r[1]), MUL(a[3], r[0]))),
		   MUL(a[4], s[4]));
	d[4] = ADD(ADD(ADD(MUL(a[0], r[4]), MUL(a[1], r[3])), ADD(MUL(a[2], r[2]), MUL(a[3], r[1]))),
		   MUL(a[4], r[0]));
}

/* d[i] -> d[i+1] carry of the bits above 26 (for i = 4: times 5 into d[0]). */
AVX512 static inline void carry1(__m512i d[5], int i)
{
	const __m512i mask = _mm512_set1_epi64(0x3ffffff);
	__m512i c = _mm512_srli_epi64(d[i], 26);

	d[i] = _mm512_and_si512(d[i], mask);
	if (i == 4)
		d[0] = ADD(d[0], ADD(c, _mm512_slli_epi64(c, 2)));
	else
		d[i + 1] = ADD(d[i + 1], c);
}

/* Partial carry, two chains interleaved: limbs end below 2^26 + 2^9. */
AVX512 static inline void carry(__m512i d[5])
{
	carry1(d, 0);
	carry1(d, 3);
	carry1(d, 1);
	carry1(d, 4);
	carry1(d, 2);
	carry1(d, 0);
	carry1(d, 3);
}

AVX512 void hs_poly1305_blocks_avx512(struct hs_poly1305 *st, const uint8_t *m, size_t nblocks)
{
	/* rpow index for each lane of the last step: blocks 0, 4, 1, 5, 2, 6, 3, 7 need r^8, r^4, ... */
	static const int last[8] = { 7, 3, 6, 2, 5, 1, 4, 0 };
	__m512i r[5], s[5], a[5], d[5], x[5];
	uint64_t h[5];
	size_t groups = nblocks / 8;

	if (nblocks < 32) {
		hs_poly1305_blocks_avx2(st, m, nblocks);
		return;
	}
	hs_poly1305_powers(st, 8);
	hs_poly1305_h_to26(st, h);
	for (int i = 0; i < 5; i++) {
		r[i] = _mm512_set1_epi64(st->rpow[7][i]);
		s[i] = _mm512_set1_epi64(5 * (uint64_t)st->rpow[7][i]);
	}

	/* h joins the first block (lane 0) */
	load8(m, a);
	for (int i = 0; i < 5; i++)
		a[i] = ADD(a[i], _mm512_setr_epi64((long long)h[i], 0, 0, 0, 0, 0, 0, 0));
	for (size_t g = 1; g < groups; g++) {
		mul(d, a, r, s);
		carry(d);
		load8(m + 128 * g, x);
		for (int i = 0; i < 5; i++)
			a[i] = ADD(d[i], x[i]);
	}

	for (int i = 0; i < 5; i++) {
		r[i] = _mm512_setr_epi64(st->rpow[last[0]][i], st->rpow[last[1]][i],
					 st->rpow[last[2]][i], st->rpow[last[3]][i],
					 st->rpow[last[4]][i], st->rpow[last[5]][i],
					 st->rpow[last[6]][i], st->rpow[last[7]][i]);
		s[i] = _mm512_add_epi64(r[i], _mm512_slli_epi64(r[i], 2));
	}
	mul(d, a, r, s);
	for (int i = 0; i < 5; i++)
		h[i] = (uint64_t)_mm512_reduce_add_epi64(d[i]);
	hs_poly1305_h_from26(st, h);
	/* the rest (< 8 blocks) */
	hs_poly1305_blocks_portable(st, m + 128 * groups, nblocks % 8);

	hs_wipe(h, sizeof(h));
}
