/*
 * P-256 table scans with AVX2: the fixed-base table (crypto/p256_point.c,
 * lookup_base), the variable-base table of p256_point_mul, and the
 * fixed-base table again with AVX-512F (at the end; the scan itself is
 * crypto/asm/p256_scan_avx512.h).
 *
 * Implementation notes:
 * - An affine entry is 64 bytes: x in one 256-bit register, y in another.
 *   Every entry of the row is loaded; a compare of a running counter
 *   with the wanted index (both broadcast to four lanes) gives an
 *   all-ones mask for the wanted entry only, and the entry is ANDed with
 *   it and ORed into the result. So the same addresses are read in the
 *   same order whatever the index, and no branch looks at it: the cache
 *   and the branch predictor learn nothing (BearSSL's CCOPY trick, four
 *   limbs per instruction).
 * - Two accumulators per coordinate halve the OR dependency chain.
 * - Same result as the portable scan (zeros for idx = 0); the caller
 *   checks cpu_has(HS_CPU_AVX2).
 */
#include "crypto/p256_point.h"

#if defined(HS_HAVE_P256_AVX2)
#include <immintrin.h>

#include "crypto/asm/p256_scan_avx512.h"

__attribute__((target("avx2"))) void p256_lookup_base_avx2(struct p256_affine *r, unsigned win,
							    uint32_t idx)
{
	const struct p256_affine *row = p256_base_table[win];
	const __m256i want = _mm256_set1_epi64x((long long)idx);
	const __m256i two = _mm256_set1_epi64x(2);
	__m256i c0 = _mm256_set1_epi64x(1), c1 = _mm256_set1_epi64x(2);
	__m256i x0 = _mm256_setzero_si256(), y0 = x0, x1 = x0, y1 = x0;

	for (unsigned j = 0; j < HS_P256_BASE_ENTRIES; j += 2) {
		/* entries j and j + 1 hold the multiples j + 1 and j + 2 */
		__m256i m0 = _mm256_cmpeq_epi64(c0, want), m1 = _mm256_cmpeq_epi64(c1, want);

		x0 = _mm256_or_si256(x0, _mm256_and_si256(
			m0, _mm256_loadu_si256((const __m256i *)(const void *)row[j].x)));
		y0 = _mm256_or_si256(y0, _mm256_and_si256(
			m0, _mm256_loadu_si256((const __m256i *)(const void *)row[j].y)));
		x1 = _mm256_or_si256(x1, _mm256_and_si256(
			m1, _mm256_loadu_si256((const __m256i *)(const void *)row[j + 1].x)));
		y1 = _mm256_or_si256(y1, _mm256_and_si256(
			m1, _mm256_loadu_si256((const __m256i *)(const void *)row[j + 1].y)));
		c0 = _mm256_add_epi64(c0, two);
		c1 = _mm256_add_epi64(c1, two);
	}
	_mm256_storeu_si256((__m256i *)(void *)r->x, _mm256_or_si256(x0, x1));
	_mm256_storeu_si256((__m256i *)(void *)r->y, _mm256_or_si256(y0, y1));
}

/*
 * The variable-base scan (p256_point_mul's table of 16 Jacobian points):
 * X, Y and Z of each entry in three 256-bit registers, the same
 * compare-AND-OR as above for every entry, then (1, 1) into X and Y
 * under the mask idx == 0, as the portable scan leaves infinity.
 */
__attribute__((target("avx2"))) void p256_lookup_var_avx2(struct p256_point *r,
							   const struct p256_point t[HS_P256_VAR_ENTRIES],
							   uint32_t idx)
{
	const __m256i want = _mm256_set1_epi64x((long long)idx);
	const __m256i one = _mm256_set1_epi64x(1);
	__m256i c = one, x = _mm256_setzero_si256(), y = x, z = x, m, e;
	p256_fe one_mont;

	for (unsigned j = 0; j < HS_P256_VAR_ENTRIES; j++) {
		m = _mm256_cmpeq_epi64(c, want); /* entry j holds the multiple j + 1 */
		x = _mm256_or_si256(x, _mm256_and_si256(
			m, _mm256_loadu_si256((const __m256i *)(const void *)t[j].x)));
		y = _mm256_or_si256(y, _mm256_and_si256(
			m, _mm256_loadu_si256((const __m256i *)(const void *)t[j].y)));
		z = _mm256_or_si256(z, _mm256_and_si256(
			m, _mm256_loadu_si256((const __m256i *)(const void *)t[j].z)));
		c = _mm256_add_epi64(c, one);
	}
	p256_fe_set_one(one_mont);
	m = _mm256_cmpeq_epi64(_mm256_setzero_si256(), want);
	e = _mm256_and_si256(m, _mm256_loadu_si256((const __m256i *)(const void *)one_mont));
	_mm256_storeu_si256((__m256i *)(void *)r->x, _mm256_or_si256(x, e));
	_mm256_storeu_si256((__m256i *)(void *)r->y, _mm256_or_si256(y, e));
	_mm256_storeu_si256((__m256i *)(void *)r->z, z);
}

/* The fixed-base scan with AVX-512F: crypto/asm/p256_scan_avx512.h. */
__attribute__((target("avx512f"))) void p256_lookup_base_avx512(struct p256_affine *r,
								 unsigned win, uint32_t idx)
{
	_mm512_storeu_si512((void *)r, p256_scan_row_avx512(p256_base_table[win], idx));
}
#endif
