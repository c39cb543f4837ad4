/*
 * Constant-time helpers. Every function here runs in time independent of
 * its arguments' values: no branch and no memory index depends on them.
 * Masks are all-ones (true) or all-zero (false).
 *
 * The value barrier stops the compiler from proving a mask is 0/1 and
 * turning the select back into a branch.
 */
#ifndef HS_CRYPTO_CT_H
#define HS_CRYPTO_CT_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t ct_barrier_u32(uint32_t x)
{
	__asm__("" : "+r"(x));
	return x;
}

static inline uint64_t ct_barrier_u64(uint64_t x)
{
	__asm__("" : "+r"(x));
	return x;
}

/* 0xffffffff if x != 0, else 0: (x | -x) has its top bit set iff x != 0. */
static inline uint32_t ct_nonzero_mask_u32(uint32_t x)
{
	return (uint32_t)0 - ct_barrier_u32((x | (0u - x)) >> 31);
}

static inline uint32_t ct_is_zero_mask_u32(uint32_t x) { return ~ct_nonzero_mask_u32(x); }

static inline uint32_t ct_eq_mask_u32(uint32_t a, uint32_t b) { return ct_is_zero_mask_u32(a ^ b); }

static inline uint64_t ct_nonzero_mask_u64(uint64_t x)
{
	return (uint64_t)0 - ct_barrier_u64((x | (0u - x)) >> 63);
}

static inline uint64_t ct_is_zero_mask_u64(uint64_t x) { return ~ct_nonzero_mask_u64(x); }

/* a < b as a mask, for a, b < 2^63 not needed: full-range borrow trick. */
static inline uint32_t ct_lt_mask_u32(uint32_t a, uint32_t b)
{
	/* the borrow of a - b is bit 32 of the 64-bit difference */
	return (uint32_t)0 - ct_barrier_u32((uint32_t)(((uint64_t)a - b) >> 63));
}

/* mask ? a : b */
static inline uint32_t ct_select_u32(uint32_t mask, uint32_t a, uint32_t b)
{
	return b ^ (mask & (a ^ b));
}

static inline uint64_t ct_select_u64(uint64_t mask, uint64_t a, uint64_t b)
{
	return b ^ (mask & (a ^ b));
}

/* 0 if the n bytes at a and b are equal, else nonzero; reads all n bytes. */
static inline uint32_t ct_memneq(const void *a, const void *b, size_t n)
{
	const volatile uint8_t *x = (const volatile uint8_t *)a;
	const volatile uint8_t *y = (const volatile uint8_t *)b;
	uint32_t d = 0;
	for (size_t i = 0; i < n; i++)
		d |= (uint32_t)(x[i] ^ y[i]);
	return ct_nonzero_mask_u32(d) & 1;
}

/* if (mask) copy n bytes from src to dst; touches dst either way. */
static inline void ct_cond_copy(uint32_t mask, void *dst, const void *src, size_t n)
{
	uint8_t *d = (uint8_t *)dst;
	const uint8_t *s = (const uint8_t *)src;
	uint8_t m = (uint8_t)mask;
	for (size_t i = 0; i < n; i++)
		d[i] = (uint8_t)(d[i] ^ (m & (d[i] ^ s[i])));
}

#endif
