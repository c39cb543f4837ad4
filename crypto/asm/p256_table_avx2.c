/*
 * P-256 table-row scans with AVX2 and AVX-512F: the fixed-base rows
 * (p256_point_mul_base) and the co-Z table of p256_point_mul, both rows
 * of affine-sized entries (X and Y).
 *
 * Implementation notes:
 * - An entry is 64 bytes: x in one 256-bit register, y in another.
 *   Every entry of the row is loaded; a compare of a running counter
 *   with the wanted index (both broadcast to four lanes) gives an
 *   all-ones mask for the wanted entry only, and the entry is ANDed with
 *   it and ORed into the result. So the same addresses are read in the
 *   same order whatever the index, and no branch looks at it: the cache
 *   and the branch predictor learn nothing (BearSSL's CCOPY trick, four
 *   limbs per instruction).
 * - Two accumulators per coordinate halve the OR dependency chain.
 * - The AVX-512F scan (one 512-bit load per entry) is
 *   crypto/asm/p256_scan_avx512.h, shared with the IFMA fixed-base sum.
 * - Same result as the portable scan (zeros for idx = 0); the caller
 *   checks cpu_has().
 */
#include "crypto/p256_point.h"

#if defined(HS_HAVE_P256_AVX2)
#include <immintrin.h>

#include "crypto/asm/p256_scan_avx512.h"

__attribute__((target("avx2"))) void p256_lookup_avx2(struct p256_affine *r,
						       const struct p256_affine *row, unsigned n,
						       uint32_t idx)
{
	const __m256i want = _mm256_set1_epi64x((long long)idx);
	const __m256i two = _mm256_set1_epi64x(2);
	__m256i c0 = _mm256_set1_epi64x(1), c1 = _mm256_set1_epi64x(2);
	__m256i x0 = _mm256_setzero_si256(), y0 = x0, x1 = x0, y1 = x0;

	for (unsigned j = 0; j < n; j += 2) {
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

__attribute__((target("avx512f"))) void p256_lookup_avx512(struct p256_affine *r,
							    const struct p256_affine *row,
							    unsigned n, uint32_t idx)
{
	_mm512_storeu_si512((void *)r, p256_scan_row_avx512(row, n, idx));
}
#endif
