/*
 * Poly1305 block absorption with AVX-512 IFMA: eight blocks at a time in
 * radix 2^44. Same result as poly1305_blocks_portable
 * (crypto/poly1305.h).
 *
 * Implementation notes:
 * - Eight accumulators, one per 64-bit lane, as three limbs
 *   x0 + x1 2^44 + x2 2^88, in four independent chains: chain j takes
 *   groups of eight blocks 4i + j, A = A r^32 + M (a step is a long
 *   dependency chain; on Zen 5 four of them keep the IFMA pipes busy:
 *   0.236 -> 0.093 TSC cycles per byte at 16 KiB). Each product sum is one
 *   accumulation chain that starts from the message block (mul_add_carry):
 *   with four chains in flight the operation count, not the latency,
 *   bounds a step. Groups beyond a multiple
 *   of four go first, into chain 0 by r^8. The last step multiplies each
 *   chain's lanes by r^8 .. r (lane order) times r^24, r^16, r^8, 1, and
 *   all 32 products are summed at once.
 * - The powers are made in the vectors from r: r^2 .. r^32 by squaring,
 *   and the lane powers r^8, r^4, r^7, r^3, r^6, r^2, r^5, r as r times r,
 *   r^2, r^4 in the lanes whose exponent - 1 has that bit (masked blends
 *   with 1): no radix-2^26 table, no scalar inserts.
 * - vpmadd52luq / vpmadd52huq add the low / high 52 bits of a 52x52-bit
 *   product. With 2^132 = 4 2^130 = 20 mod p, the product folds as
 *     d0 = a0 r0 + a1 20r2 + a2 20r1
 *     d1 = a0 r1 + a1 r0   + a2 20r2
 *     d2 = a0 r2 + a1 r1   + a2 r0
 *   and each d is kept as lo + hi 2^52 until the carry.
 * - Bounds: after the carry x0 < 2^44, x1 < 2^44 + 2^13, x2 < 2^42, so
 *   with a block added A0, A1 < 2^45, A2 < 2^43; r^k limbs < 2^44 + 2^13
 *   (they come out of the same carry) and 20 r^k < 2^49: every factor is
 *   below 2^52 as IFMA needs, products < 2^94, lo sums < 2^54, hi sums
 *   < 2^44; the last step's sums over 4 chains and 8 lanes, lo < 2^59 and
 *   hi < 2^49.
 * - Limbs in a struct of named registers through always-inline helpers,
 *   as in poly1305_avx2.c (kept in registers; the scalar copies of h are
 *   wiped).
 * - Fewer than IFMA_MIN blocks go to poly1305_blocks_avx512 (which sends
 *   fewer than 32 to the AVX2 code). Only nblocks steers loops:
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
INLINE struct v3 mul_add_carry(struct v3 a, struct v3 r, struct v3 m)
{
	const __m512i m44 = _mm512_set1_epi64(M44), m42 = _mm512_set1_epi64(M42);
	const __m512i z = _mm512_setzero_si512(), s1 = times20(r.l1), s2 = times20(r.l2);
	__m512i lo0, hi0, lo1, hi1, lo2, hi2, c;
	struct v3 x;

	/* one accumulation chain per sum, starting from m: fewest operations
	 * (with four chains in flight the pipes, not the latency, bound a step) */
	lo0 = LO(LO(LO(m.l0, a.l0, r.l0), a.l1, s2), a.l2, s1);
	hi0 = HI(HI(HI(z, a.l0, r.l0), a.l1, s2), a.l2, s1);
	lo1 = LO(LO(LO(m.l1, a.l0, r.l1), a.l1, r.l0), a.l2, s2);
	hi1 = HI(HI(HI(z, a.l0, r.l1), a.l1, r.l0), a.l2, s2);
	lo2 = LO(LO(LO(m.l2, a.l0, r.l2), a.l1, r.l1), a.l2, r.l0);
	hi2 = HI(HI(HI(z, a.l0, r.l2), a.l1, r.l1), a.l2, r.l0);

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

/* a r mod p, carried (as mul_add_carry with m = 0) */
INLINE struct v3 mul_carry(struct v3 a, struct v3 r)
{
	struct v3 z = { _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512() };

	return mul_add_carry(a, r, z);
}

/* The last step: lo[k] + hi[k] 2^52 += limb k of a r, not carried (lanes kept apart). */
INLINE void mul_acc(struct v3 a, struct v3 r, __m512i lo[3], __m512i hi[3])
{
	const __m512i s1 = times20(r.l1), s2 = times20(r.l2);

	lo[0] = LO(LO(LO(lo[0], a.l0, r.l0), a.l1, s2), a.l2, s1);
	hi[0] = HI(HI(HI(hi[0], a.l0, r.l0), a.l1, s2), a.l2, s1);
	lo[1] = LO(LO(LO(lo[1], a.l0, r.l1), a.l1, r.l0), a.l2, s2);
	hi[1] = HI(HI(HI(hi[1], a.l0, r.l1), a.l1, r.l0), a.l2, s2);
	lo[2] = LO(LO(LO(lo[2], a.l0, r.l2), a.l1, r.l1), a.l2, r.l0);
	hi[2] = HI(HI(HI(hi[2], a.l0, r.l2), a.l1, r.l1), a.l2, r.l0);
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
	c = (uint64_t)(l2 >> 42); /* < 2^60 (lo < 2^59, hi < 2^49) */
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

/* Eight blocks m[0..127] joined to the accumulators: a r^k + m. */
INLINE struct v3 step(struct v3 a, struct v3 rk, const uint8_t *m)
{
	return mul_add_carry(a, rk, load8(m));
}

/* r (clamped, radix 2^64) as radix-2^44 limbs in every lane */
INLINE struct v3 r_lanes(const struct poly1305 *st)
{
	struct v3 v;

	v.l0 = _mm512_set1_epi64((long long)(st->r0 & M44));
	v.l1 = _mm512_set1_epi64((long long)(((st->r0 >> 44) | (st->r1 << 20)) & M44));
	v.l2 = _mm512_set1_epi64((long long)(st->r1 >> 24));
	return v;
}

/* x in the lanes of mask k, 1 in the others */
INLINE struct v3 or_one(__mmask8 k, struct v3 x)
{
	const __m512i one = _mm512_set1_epi64(1), z = _mm512_setzero_si512();

	x.l0 = _mm512_mask_blend_epi64(k, one, x.l0);
	x.l1 = _mm512_mask_blend_epi64(k, z, x.l1);
	x.l2 = _mm512_mask_blend_epi64(k, z, x.l2);
	return x;
}

/*
 * Below this many blocks the radix-2^26 code is faster: making r^32 here
 * takes five dependent squarings before the first step (measured on Zen 5,
 * TSC cycles, radix 2^44 against 2^26: 512 bytes 323 / 287, 1 KiB 345 /
 * 347, 2 KiB 420 / 467, 16 KiB 1,524 / 2,233).
 */
#define IFMA_MIN 64

IFMA void poly1305_blocks_avx512ifma(struct poly1305 *st, const uint8_t *m, size_t nblocks)
{
	size_t groups = nblocks / 8, g;
	uint64_t h[3], slo[3], shi[3];
	struct v3 a, b, c, d, r1, r2, r4, r8, r16, r32, p1, p2, p3, p4, h0;
	__m512i lo[3], hi[3];

	if (nblocks < IFMA_MIN) {
		poly1305_blocks_avx512(st, m, nblocks);
		return;
	}
	/* the powers, in the vectors (carried products: limbs within the bounds
	 * above): r^(2^i) by squaring, and p1 = r^8, r^4, r^7, r^3, r^6, r^2,
	 * r^5, r (the lanes holding blocks 0, 4, 1, 5, 2, 6, 3, 7 of a group)
	 * as r times r, r^2, r^4 in the lanes of the bits set in exponent - 1 */
	r1 = r_lanes(st);
	r2 = mul_carry(r1, r1);
	r4 = mul_carry(r2, r2);
	r8 = mul_carry(r4, r4);
	r16 = mul_carry(r8, r8);
	r32 = mul_carry(r16, r16);
	p1 = mul_carry(r1, or_one(0x33, r1));
	p1 = mul_carry(p1, or_one(0x0f, r2));
	p1 = mul_carry(p1, or_one(0x55, r4));

	/* h joins the first block (lane 0) */
	h_to44(st, h);
	h0.l0 = _mm512_setr_epi64((long long)h[0], 0, 0, 0, 0, 0, 0, 0);
	h0.l1 = _mm512_setr_epi64((long long)h[1], 0, 0, 0, 0, 0, 0, 0);
	h0.l2 = _mm512_setr_epi64((long long)h[2], 0, 0, 0, 0, 0, 0, 0);
	a = add3(load8(m), h0);
	/* groups beyond a multiple of four go first, into a, one chain */
	for (g = 1; g <= groups % 4; g++)
		a = step(a, r8, m + 128 * g);
	/* then four chains, each on every fourth group, stepped by r^32 */
	b = load8(m + 128 * g);
	c = load8(m + 128 * g + 128);
	d = load8(m + 128 * g + 256);
	for (g += 3; g < groups; g += 4) {
		a = step(a, r32, m + 128 * g);
		b = step(b, r32, m + 128 * g + 128);
		c = step(c, r32, m + 128 * g + 256);
		d = step(d, r32, m + 128 * g + 384);
	}
	/* d holds the last group, c the one before, ...: their last step is by
	 * p1 times r^0, r^8, r^16, r^24, four independent products summed (the
	 * sums stay far below 2^64, see h_from44) */
	p2 = mul_carry(p1, r8);
	p3 = mul_carry(p1, r16);
	p4 = mul_carry(p2, r16);
	for (int k = 0; k < 3; k++)
		lo[k] = hi[k] = _mm512_setzero_si512();
	mul_acc(a, p4, lo, hi);
	mul_acc(b, p3, lo, hi);
	mul_acc(c, p2, lo, hi);
	mul_acc(d, p1, lo, hi);
	for (int k = 0; k < 3; k++) {
		slo[k] = (uint64_t)_mm512_reduce_add_epi64(lo[k]);
		shi[k] = (uint64_t)_mm512_reduce_add_epi64(hi[k]);
	}
	h_from44(st, slo, shi);
	wipe(h, sizeof(h));
	wipe(slo, sizeof(slo));
	wipe(shi, sizeof(shi));
	/* the rest (< 8 blocks) */
	poly1305_blocks_portable(st, m + 128 * groups, nblocks % 8);
}
