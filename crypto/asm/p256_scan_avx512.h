/*
 * The table-row scan with AVX-512F, inline: used by p256_lookup_avx512
 * (crypto/asm/p256_table_avx2.c: fixed-base rows and p256_point_mul's
 * co-Z table) and by the IFMA fixed-base sum (crypto/asm/p256_base_ifma.c),
 * which interleaves its scans with field products. Include only from code compiled with
 * avx512f enabled (a target attribute on the caller).
 *
 * An entry (x, y) is one 512-bit load; the compare gives an 8-bit mask,
 * all ones for the wanted entry and zero for the others, and a masked
 * move (a register blend) keeps it. The loads are kept whole by an empty
 * asm: without it gcc folds load and blend into a merge-masked load,
 * which need not read a masked-off entry at all (the cache would then
 * see which entry was wanted) and chains every load on the accumulator
 * (measured: eight times slower). Two accumulators, ORed at the end (at
 * most one of them took an entry), halve the chain. Returns entry idx - 1
 * of the row of n entries (n even), or zeros for idx = 0 (idx <= n).
 */
#ifndef HS_CRYPTO_ASM_P256_SCAN_AVX512_H
#define HS_CRYPTO_ASM_P256_SCAN_AVX512_H

#include <immintrin.h>

#include "crypto/p256_point.h"

static inline __attribute__((always_inline, target("avx512f"))) __m512i
p256_scan_row_avx512(const struct p256_affine *row, unsigned n, uint32_t idx)
{
	const __m512i want = _mm512_set1_epi64((long long)idx);
	const __m512i two = _mm512_set1_epi64(2);
	__m512i c0 = _mm512_set1_epi64(1), c1 = two;
	__m512i a0 = _mm512_setzero_si512(), a1 = a0;

	for (unsigned j = 0; j < n; j += 2) {
		/* entries j and j + 1 hold the multiples j + 1 and j + 2 */
		__mmask8 k0 = _mm512_cmpeq_epi64_mask(c0, want);
		__mmask8 k1 = _mm512_cmpeq_epi64_mask(c1, want);
		__m512i e0 = _mm512_loadu_si512((const void *)&row[j]);
		__m512i e1 = _mm512_loadu_si512((const void *)&row[j + 1]);

		__asm__("" : "+v"(e0), "+v"(e1)); /* whole loads, then a register blend */
		a0 = _mm512_mask_mov_epi64(a0, k0, e0);
		a1 = _mm512_mask_mov_epi64(a1, k1, e1);
		c0 = _mm512_add_epi64(c0, two);
		c1 = _mm512_add_epi64(c1, two);
	}
	return _mm512_or_si512(a0, a1);
}

#endif
