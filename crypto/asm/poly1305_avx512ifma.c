/*
 * Poly1305 block absorption with AVX-512 IFMA: eight blocks at a time in
 * radix 2^44. Same result as poly1305_blocks_portable
 * (crypto/poly1305.h).
 *
 * Implementation notes:
 * - Eight accumulators, one per 64-bit lane, as three limbs
 *   x0 + x1 2^44 + x2 2^88. Step: A = A r^8 + M; the last step multiplies
 *   the lanes by r^8 .. r (in lane order), then the lanes are summed
 *   (same scheme as poly1305_avx512.c, fewer and wider limbs).
 * - vpmadd52luq / vpmadd52huq add the low / high 52 bits of a 52x52-bit
 *   product. With 2^132 = 4 2^130 = 20 mod p, the product folds as
 *     d0 = a0 r0 + a1 20r2 + a2 20r1
 *     d1 = a0 r1 + a1 r0   + a2 20r2
 *     d2 = a0 r2 + a1 r1   + a2 r0
 *   and each d is kept as lo + hi 2^52 until the carry.
 * - Bounds: after the carry x0 < 2^44, x1 < 2^44 + 2^13, x2 < 2^42, so
 *   with a block added A0, A1 < 2^45, A2 < 2^43; r^k limbs < 2^44 and
 *   20 r^k < 2^49: every factor is below 2^52 as IFMA needs, products
 *   < 2^94, lo sums < 2^54, hi sums < 2^44.
 * - Limbs in a struct of named registers through always-inline helpers,
 *   as in poly1305_avx2.c (kept in registers; the scalar copies of h and
 *   of the powers are wiped).
 * - Fewer than 32 blocks go to the AVX2 code. Only nblocks steers loops:
 *   constant time. Call only when
 *   cpu_has(HS_CPU_AVX512F | HS_CPU_AVX512IFMA | HS_CPU_AVX2).
 */
#include <immintrin.h>

#include "base/wipe.h"
#include "crypto/poly1305.h"

#define IFMA __attribute__((target("avx512f,avx512ifma")))
#define INLINE static inline __attribute__((target("avx512f,avx512ifma"), always_inline))

#define M44 ((uint64_t)0xfffffffffff)
#define M42 ((uint64_t)0x3ffffffffff)

__extension__ typedef unsigned __int128 u128;

/* A radix-2^26 power (limbs < 2^26 + 2^10, value < 2^130 + 2^37) in radix 2^44. */
static void pow44(const uint32_t l[5], uint64_t out[3])
{
	u128 t = (u128)l[0] + ((u128)l[1] << 26) + ((u128)l[2] << 52);
	uint64_t w0 = (uint64_t)t, w1, w2;

	t = (t >> 64) + ((u128)l[3] << 14) + ((u128)l[4] << 40);
	w1 = (uint64_t)t;
	w2 = (uint64_t)(t >> 64);
	/* the value may exceed 2^130 by a little: fold bits 130+ (2^130 = 5) */
	t = (u128)w0 + 5 * (w2 >> 2);
	w0 = (uint64_t)t;
	t = (u128)w1 + (uint64_t)(t >> 64);
	w1 = (uint64_t)t;
	w2 = (w2 & 3) + (uint64_t)(t >> 64);
	out[0] = w0 & M44;
	out[1] = ((w0 >> 44) | (w1 << 20)) & M44;
	out[2] = (w1 >> 24) | (w2 << 40);
}

/* Three radix-2^44 limbs of eight accumulators (one per 64-bit lane). */
struct v3 {
	__m512i l0, l1, l2;
};

/* Blocks m[0..127] as limbs with the 2^128 bit, lanes = blocks 0, 4, 1, 5, 2, 6, 3, 7. */
INLINE struct v3 load8(const uint8_t *m)
{
	const __m512i mask = _mm512_set1_epi64(M44);
	__m512i v0 = _mm512_loadu_si512(m);
	__m512i v1 = _mm512_loadu_si512(m + 64);
	__m512i lo = _mm512_unpacklo_epi64(v0, v1);
	__m512i hi = _mm512_unpackhi_epi64(v0, v1);
	struct v3 x;

	x.l0 = _mm512_and_si512(lo, mask);
	x.l1 = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo, 44),
						_mm512_slli_epi64(hi, 20)), mask);
	/* 2^128 = 2^88 2^40 */
	x.l2 = _mm512_or_si512(_mm512_srli_epi64(hi, 24), _mm512_set1_epi64((long long)1 << 40));
	return x;
}

INLINE struct v3 add3(struct v3 a, struct v3 b)
{
	a.l0 = _mm512_add_epi64(a.l0, b.l0);
	a.l1 = _mm512_add_epi64(a.l1, b.l1);
	a.l2 = _mm512_add_epi64(a.l2, b.l2);
	return a;
}

/* 20 x = 16 x + 4 x */
INLINE __m512i times20(__m512i x)
{
	return _mm512_add_epi64(_mm512_slli_epi64(x, 4), _mm512_slli_epi64(x, 2));
}

#define ADD(a, b) _mm512_add_epi64((a), (b))
#define LO(acc, a, b) _mm512_madd52lo_epu64((acc), (a), (b))
#define HI(acc, a, b) _mm512_madd52hi_epu64((acc), (a), (b))

/*
 * a r mod p, carried to x0 < 2^44, x1 < 2^44 + 2^13, x2 < 2^42. Each d_k
 * is kept as lo + hi 2^52 until the carry; the hi halves weigh
 * 2^52 = 2^44 2^8 (limbs 0, 1) and 2^42 2^10 (limb 2).
 */
INLINE struct v3 mul_carry(struct v3 a, struct v3 r)
{
	const __m512i m44 = _mm512_set1_epi64(M44), m42 = _mm512_set1_epi64(M42);
	const __m512i z = _mm512_setzero_si512(), s1 = times20(r.l1), s2 = times20(r.l2);
	__m512i lo0, hi0, lo1, hi1, lo2, hi2, c;
	struct v3 x;

	/* two independent chains per sum, joined by an add: a shorter critical path */
	lo0 = ADD(LO(LO(z, a.l0, r.l0), a.l1, s2), LO(z, a.l2, s1));
	hi0 = ADD(HI(HI(z, a.l0, r.l0), a.l1, s2), HI(z, a.l2, s1));
	lo1 = ADD(LO(LO(z, a.l0, r.l1), a.l1, r.l0), LO(z, a.l2, s2));
	hi1 = ADD(HI(HI(z, a.l0, r.l1), a.l1, r.l0), HI(z, a.l2, s2));
	lo2 = ADD(LO(LO(z, a.l0, r.l2), a.l1, r.l1), LO(z, a.l2, r.l0));
	hi2 = ADD(HI(HI(z, a.l0, r.l2), a.l1, r.l1), HI(z, a.l2, r.l0));

	c = _mm512_add_epi64(_mm512_srli_epi64(lo0, 44), _mm512_slli_epi64(hi0, 8));
	x.l0 = _mm512_and_si512(lo0, m44);
	lo1 = _mm512_add_epi64(lo1, c);
	c = _mm512_add_epi64(_mm512_srli_epi64(lo1, 44), _mm512_slli_epi64(hi1, 8));
	x.l1 = _mm512_and_si512(lo1, m44);
	lo2 = _mm512_add_epi64(lo2, c);
	c = _mm512_add_epi64(_mm512_srli_epi64(lo2, 42), _mm512_slli_epi64(hi2, 10));
	x.l2 = _mm512_and_si512(lo2, m42);
	/* bits 130 and up: times 5 into limb 0, then one more carry to limb 1 */
	x.l0 = _mm512_add_epi64(x.l0, _mm512_add_epi64(c, _mm512_slli_epi64(c, 2)));
	x.l1 = _mm512_add_epi64(x.l1, _mm512_srli_epi64(x.l0, 44));
	x.l0 = _mm512_and_si512(x.l0, m44);
	return x;
}

/* The last step: a r, lanes summed, as lo[k] + hi[k] 2^52 per limb k. */
INLINE void mul_sum(struct v3 a, struct v3 r, uint64_t lo[3], uint64_t hi[3])
{
	const __m512i z = _mm512_setzero_si512(), s1 = times20(r.l1), s2 = times20(r.l2);

	lo[0] = (uint64_t)_mm512_reduce_add_epi64(LO(LO(LO(z, a.l0, r.l0), a.l1, s2), a.l2, s1));
	hi[0] = (uint64_t)_mm512_reduce_add_epi64(HI(HI(HI(z, a.l0, r.l0), a.l1, s2), a.l2, s1));
	lo[1] = (uint64_t)_mm512_reduce_add_epi64(LO(LO(LO(z, a.l0, r.l1), a.l1, r.l0), a.l2, s2));
	hi[1] = (uint64_t)_mm512_reduce_add_epi64(HI(HI(HI(z, a.l0, r.l1), a.l1, r.l0), a.l2, s2));
	lo[2] = (uint64_t)_mm512_reduce_add_epi64(
		LO(LO(LO(z, a.l0, r.l2), a.l1, r.l1), a.l2, r.l0));
	hi[2] = (uint64_t)_mm512_reduce_add_epi64(
		HI(HI(HI(z, a.l0, r.l2), a.l1, r.l1), a.l2, r.l0));
}

/* Limb i, lane k = p[idx[k]][i]. */
INLINE __m512i lane_limb(const uint64_t (*p)[3], const int idx[8], int i)
{
	return _mm512_setr_epi64((long long)p[idx[0]][i], (long long)p[idx[1]][i],
				 (long long)p[idx[2]][i], (long long)p[idx[3]][i],
				 (long long)p[idx[4]][i], (long long)p[idx[5]][i],
				 (long long)p[idx[6]][i], (long long)p[idx[7]][i]);
}

INLINE struct v3 lanes(const uint64_t (*p)[3], const int idx[8])
{
	struct v3 x;

	x.l0 = lane_limb(p, idx, 0);
	x.l1 = lane_limb(p, idx, 1);
	x.l2 = lane_limb(p, idx, 2);
	return x;
}

/* h (radix 2^64) as three radix-2^44 limbs; h2 <= 4 gives x2 < 2^43. */
static void h_to44(const struct poly1305 *st, uint64_t x[3])
{
	x[0] = st->h0 & M44;
	x[1] = ((st->h0 >> 44) | (st->h1 << 20)) & M44;
	x[2] = (st->h1 >> 24) | (st->h2 << 40);
}

/* h = sum (lo[k] + hi[k] 2^52) 2^(44 k), carried and partially reduced (h2 <= 4). */
static void h_from44(struct poly1305 *st, const uint64_t lo[3], const uint64_t hi[3])
{
	u128 l0 = (u128)lo[0] + ((u128)hi[0] << 52);
	u128 l1 = (u128)lo[1] + ((u128)hi[1] << 52);
	u128 l2 = (u128)lo[2] + ((u128)hi[2] << 52);
	uint64_t x0, x1, x2, c;

	l1 += l0 >> 44;
	x0 = (uint64_t)l0 & M44;
	l2 += l1 >> 44;
	x1 = (uint64_t)l1 & M44;
	c = (uint64_t)(l2 >> 42); /* < 2^57 */
	x2 = (uint64_t)l2 & M42;
	/* fold bits 130 and up: 2^130 = 5 mod p */
	l0 = (u128)x0 + (u128)c * 5;
	x0 = (uint64_t)l0 & M44;
	l1 = (u128)x1 + (uint64_t)(l0 >> 44);
	x1 = (uint64_t)l1 & M44;
	x2 += (uint64_t)(l1 >> 44);
	/* x0, x1 < 2^44, x2 <= 2^42: the value is below 2^130 + 2^88, so h2 <= 4 */
	st->h0 = x0 | (x1 << 44);
	st->h1 = (x1 >> 20) | (x2 << 24);
	st->h2 = x2 >> 40;
}

IFMA void poly1305_blocks_avx512ifma(struct poly1305 *st, const uint8_t *m, size_t nblocks)
{
	/* power indexes: r^8 in every lane; then, for lanes holding blocks
	 * 0, 4, 1, 5, 2, 6, 3, 7 of the last group, r^8, r^4, r^7, r^3, ... */
	static const int all8[8] = { 7, 7, 7, 7, 7, 7, 7, 7 };
	static const int last[8] = { 7, 3, 6, 2, 5, 1, 4, 0 };
	size_t groups = nblocks / 8;
	uint64_t p[8][3], h[3], slo[3], shi[3];
	struct v3 a, r, h0;

	if (nblocks < 32) {
		poly1305_blocks_avx2(st, m, nblocks);
		return;
	}
	poly1305_powers(st, 8);
	for (int k = 0; k < 8; k++)
		pow44(st->rpow[k], p[k]);
	r = lanes(p, all8);

	/* h joins the first block (lane 0) */
	h_to44(st, h);
	h0.l0 = _mm512_setr_epi64((long long)h[0], 0, 0, 0, 0, 0, 0, 0);
	h0.l1 = _mm512_setr_epi64((long long)h[1], 0, 0, 0, 0, 0, 0, 0);
	h0.l2 = _mm512_setr_epi64((long long)h[2], 0, 0, 0, 0, 0, 0, 0);
	a = add3(load8(m), h0);
	for (size_t g = 1; g < groups; g++)
		a = add3(mul_carry(a, r), load8(m + 128 * g));

	mul_sum(a, lanes(p, last), slo, shi); /* slo < 8 2^54, shi < 8 2^44 */
	h_from44(st, slo, shi);
	wipe(p, sizeof(p));
	wipe(h, sizeof(h));
	wipe(slo, sizeof(slo));
	wipe(shi, sizeof(shi));
	/* the rest (< 8 blocks) */
	poly1305_blocks_portable(st, m + 128 * groups, nblocks % 8);
}
