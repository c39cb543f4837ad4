/*
 * Arithmetic modulo the P-256 prime p = 2^256 - 2^224 + 2^192 + 2^96 - 1
 * (internal to crypto/: used by the point code).
 *
 * An element is four 64-bit limbs, least significant first, holding
 * a * 2^256 mod p (Montgomery form), always fully reduced into [0, p).
 * Every function runs in constant time: no branch and no memory index
 * depends on the values. Outputs may alias inputs.
 */
#ifndef HS_CRYPTO_P256_FIELD_H
#define HS_CRYPTO_P256_FIELD_H

#include <stdatomic.h>
#include <stdint.h>

#include "crypto/ct.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

typedef uint64_t p256_fe[4];

/*
 * r = a * b (Montgomery product: a*b/2^256 on the raw limbs), and r = a^2,
 * with the backend p256_fe_select() chose (portable until it is called).
 * Inline (defined at the end of this header): the dispatch then costs one
 * load, not a second call.
 */
static inline void p256_fe_mul(p256_fe r, const p256_fe a, const p256_fe b);
static inline void p256_fe_sqr(p256_fe r, const p256_fe a);

/*
 * Choose the multiplication backend for this CPU now (honours
 * cpu_force_portable). The public P-256 functions call it on entry.
 */
void p256_fe_select(void);
/* 1 if p256_fe_select() chose MULX/ADX (the scalar code follows it). */
int p256_fe_adx_active(void);

/* The backends; all give bit-identical results. */
void p256_fe_mul_portable(p256_fe r, const p256_fe a, const p256_fe b);
void p256_fe_sqr_portable(p256_fe r, const p256_fe a);
#if defined(__x86_64__)
#define HS_HAVE_P256_ADX 1
/*
 * crypto/asm/p256_field_adx.c; need cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 * The _intel ones (p256_field_adx_intel.c) are its form for Intel cores.
 */
void p256_fe_mul_adx(p256_fe r, const p256_fe a, const p256_fe b);
void p256_fe_sqr_adx(p256_fe r, const p256_fe a);
void p256_fe_mul_adx_intel(p256_fe r, const p256_fe a, const p256_fe b);
void p256_fe_sqr_adx_intel(p256_fe r, const p256_fe a);
#endif
/*
 * r = a + b, a - b, -a: defined at the end of this header, inline, since
 * the point formulas call them about as often as the multiplication and
 * a call costs as much as the arithmetic.
 */
static inline void p256_fe_add(p256_fe r, const p256_fe a, const p256_fe b);
static inline void p256_fe_sub(p256_fe r, const p256_fe a, const p256_fe b);
static inline void p256_fe_neg(p256_fe r, const p256_fe a);
/* r = a / 2 (inline too) */
static inline void p256_fe_half(p256_fe r, const p256_fe a);
/* r = 1/a (safegcd, crypto/safegcd256.c); 0 maps to 0. */
void p256_fe_inv(p256_fe r, const p256_fe a);

/* r = b, the curve constant. */
void p256_fe_set_b(p256_fe r);
void p256_fe_set_one(p256_fe r);
/* r = 0, r = a (inline) */
static inline void p256_fe_set_zero(p256_fe r)
{
	r[0] = r[1] = r[2] = r[3] = 0;
}

static inline void p256_fe_copy(p256_fe r, const p256_fe a)
{
	r[0] = a[0];
	r[1] = a[1];
	r[2] = a[2];
	r[3] = a[3];
}
/* if (mask) r = a; mask is all-ones or zero. */
void p256_fe_cmov(p256_fe r, const p256_fe a, uint64_t mask);
/* all-ones if a == 0, else 0 (inline; a is fully reduced, so 0 has one form) */
static inline uint64_t p256_fe_is_zero(const p256_fe a)
{
	return ct_is_zero_mask_u64(a[0] | a[1] | a[2] | a[3]);
}
/* all-ones if a == b, else 0. */
uint64_t p256_fe_eq(const p256_fe a, const p256_fe b);

/*
 * Load a 32-byte big-endian integer and convert it to Montgomery form.
 * Returns all-ones if it was < p; otherwise 0 (r then holds the reduced
 * value, which the caller must not use).
 */
uint64_t p256_fe_from_bytes(p256_fe r, const uint8_t in[32]);
/* Convert out of Montgomery form and store 32 bytes big-endian. */
void p256_fe_to_bytes(uint8_t out[32], const p256_fe a);

/*
 * The inline additions. Carry chains: ADC / SBB through _addcarry_u64 and
 * _subborrow_u64 on x86-64 (no CPU feature needed), 128-bit sums elsewhere
 * (p256_adc_ / p256_sbb_, also the chains of p256_field.c and p256_scalar.c).
 * Both candidates (with and without p) are computed and one is kept by a
 * mask made from the carry or borrow: no branch on the values.
 */
#if defined(__x86_64__)
static inline uint64_t p256_adc_(uint64_t a, uint64_t b, uint64_t *carry)
{
	unsigned long long s;

	*carry = _addcarry_u64((unsigned char)*carry, a, b, &s);
	return s;
}

static inline uint64_t p256_sbb_(uint64_t a, uint64_t b, uint64_t *borrow)
{
	unsigned long long d;

	*borrow = _subborrow_u64((unsigned char)*borrow, a, b, &d);
	return d;
}
#else
static inline uint64_t p256_adc_(uint64_t a, uint64_t b, uint64_t *carry)
{
	unsigned __int128 s = (unsigned __int128)a + b + *carry;

	*carry = (uint64_t)(s >> 64);
	return (uint64_t)s;
}

static inline uint64_t p256_sbb_(uint64_t a, uint64_t b, uint64_t *borrow)
{
	unsigned __int128 d = (unsigned __int128)a - b - *borrow;

	*borrow = (uint64_t)(d >> 64) & 1; /* wrapped: all high bits set */
	return (uint64_t)d;
}
#endif

/* p's limbs (limb 2 is 0) */
#define HS_P256_P0 0xffffffffffffffffull
#define HS_P256_P1 0x00000000ffffffffull
#define HS_P256_P3 0xffffffff00000001ull

static inline void p256_fe_add_c(p256_fe r, const p256_fe a, const p256_fe b)
{
	uint64_t c = 0, w = 0, t0, t1, t2, t3, s0, s1, s2, s3, keep;

	t0 = p256_adc_(a[0], b[0], &c);
	t1 = p256_adc_(a[1], b[1], &c);
	t2 = p256_adc_(a[2], b[2], &c);
	t3 = p256_adc_(a[3], b[3], &c);
	/* the sum is below 2p: subtract p, keep the sum if that borrowed */
	s0 = p256_sbb_(t0, HS_P256_P0, &w);
	s1 = p256_sbb_(t1, HS_P256_P1, &w);
	s2 = p256_sbb_(t2, 0, &w);
	s3 = p256_sbb_(t3, HS_P256_P3, &w);
	(void)p256_sbb_(c, 0, &w);
	keep = 0 - ct_barrier_u64(w); /* all-ones: the sum was below p */
	r[0] = ct_select_u64(keep, t0, s0);
	r[1] = ct_select_u64(keep, t1, s1);
	r[2] = ct_select_u64(keep, t2, s2);
	r[3] = ct_select_u64(keep, t3, s3);
}

static inline void p256_fe_sub_c(p256_fe r, const p256_fe a, const p256_fe b)
{
	uint64_t w = 0, c = 0, t0, t1, t2, t3, mask;

	t0 = p256_sbb_(a[0], b[0], &w);
	t1 = p256_sbb_(a[1], b[1], &w);
	t2 = p256_sbb_(a[2], b[2], &w);
	t3 = p256_sbb_(a[3], b[3], &w);
	/* on borrow the difference wrapped by 2^256: add p back (masked) */
	mask = 0 - ct_barrier_u64(w);
	r[0] = p256_adc_(t0, HS_P256_P0 & mask, &c);
	r[1] = p256_adc_(t1, HS_P256_P1 & mask, &c);
	r[2] = p256_adc_(t2, 0, &c);
	r[3] = p256_adc_(t3, HS_P256_P3 & mask, &c);
}

#if defined(__x86_64__)
/*
 * The same two operations in x86-64 inline assembly (ADC, SBB, CMOV: no
 * CPU feature needed, valgrind runs them): the compiler's version of the
 * C above keeps the carry in a register and selects with AND/XOR, about
 * 15 cycles of latency where these take 10. Same results bit for bit
 * (tests/crypto/test_p256.c compares them with the _c versions).
 *
 * add: t = a + b (carry c), u = t - p; keep t if that borrowed (t < p
 * and no carry: the borrow out of c - 0 - borrow), else u. CMOV only.
 * The inputs are addressed through their pointers and p's limbs are
 * RIP-relative constants: few enough registers that an -O0 sanitizer
 * build can still allocate them (eight memory operands could not).
 */
static const uint64_t p256_p1_limb_ = HS_P256_P1, p256_p3_limb_ = HS_P256_P3;

static inline void p256_fe_add(p256_fe r, const p256_fe a, const p256_fe b)
{
	uint64_t t0, t1, t2, t3, u0, u1, u2, u3, c;

	__asm__("movq 0(%[a]), %[t0]\n\t"
		"movq 8(%[a]), %[t1]\n\t"
		"movq 16(%[a]), %[t2]\n\t"
		"movq 24(%[a]), %[t3]\n\t"
		"xorl %k[c], %k[c]\n\t"
		"addq 0(%[b]), %[t0]\n\t"
		"adcq 8(%[b]), %[t1]\n\t"
		"adcq 16(%[b]), %[t2]\n\t"
		"adcq 24(%[b]), %[t3]\n\t"
		"adcq $0, %[c]\n\t"
		"movq %[t0], %[u0]\n\t"
		"movq %[t1], %[u1]\n\t"
		"movq %[t2], %[u2]\n\t"
		"movq %[t3], %[u3]\n\t"
		"subq $-1, %[u0]\n\t"
		"sbbq %[p1], %[u1]\n\t"
		"sbbq $0, %[u2]\n\t"
		"sbbq %[p3], %[u3]\n\t"
		"sbbq $0, %[c]\n\t"
		"cmovcq %[t0], %[u0]\n\t"
		"cmovcq %[t1], %[u1]\n\t"
		"cmovcq %[t2], %[u2]\n\t"
		"cmovcq %[t3], %[u3]\n\t"
		: [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
		  [u0] "=&r"(u0), [u1] "=&r"(u1), [u2] "=&r"(u2), [u3] "=&r"(u3), [c] "=&r"(c)
		: [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a),
		  "m"(*(const uint64_t(*)[4])b), [p1] "m"(p256_p1_limb_), [p3] "m"(p256_p3_limb_)
		: "cc");
	r[0] = u0;
	r[1] = u1;
	r[2] = u2;
	r[3] = u3;
}

/*
 * sub: t = a - b; on borrow add p back: the borrow becomes a mask
 * (SBB of a register from itself), ANDed into p's limbs (P0 = all-ones
 * is the mask itself, P2 = 0).
 */
static inline void p256_fe_sub(p256_fe r, const p256_fe a, const p256_fe b)
{
	uint64_t t0, t1, t2, t3, m, m1, m3;

	__asm__("movq 0(%[a]), %[t0]\n\t"
		"movq 8(%[a]), %[t1]\n\t"
		"movq 16(%[a]), %[t2]\n\t"
		"movq 24(%[a]), %[t3]\n\t"
		"subq 0(%[b]), %[t0]\n\t"
		"sbbq 8(%[b]), %[t1]\n\t"
		"sbbq 16(%[b]), %[t2]\n\t"
		"sbbq 24(%[b]), %[t3]\n\t"
		"sbbq %[m], %[m]\n\t"
		"movl %k[m], %k[m1]\n\t" /* m & P1: the low 32 bits of m */
		"movq %[p3], %[m3]\n\t"
		"andq %[m], %[m3]\n\t"
		"addq %[m], %[t0]\n\t"
		"adcq %[m1], %[t1]\n\t"
		"adcq $0, %[t2]\n\t"
		"adcq %[m3], %[t3]\n\t"
		: [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [m] "=&r"(m),
		  [m1] "=&r"(m1), [m3] "=&r"(m3)
		: [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a),
		  "m"(*(const uint64_t(*)[4])b), [p3] "m"(p256_p3_limb_)
		: "cc");
	r[0] = t0;
	r[1] = t1;
	r[2] = t2;
	r[3] = t3;
}
#else
static inline void p256_fe_add(p256_fe r, const p256_fe a, const p256_fe b)
{
	p256_fe_add_c(r, a, b);
}

static inline void p256_fe_sub(p256_fe r, const p256_fe a, const p256_fe b)
{
	p256_fe_sub_c(r, a, b);
}
#endif

/*
 * r = a / 2 mod p: a + p when a is odd (a mask from the low bit), then
 * the 257-bit sum shifted right once. (a + p) / 2 < p: no reduction.
 */
static inline void p256_fe_half(p256_fe r, const p256_fe a)
{
	uint64_t odd = 0 - ct_barrier_u64(a[0] & 1), c = 0, t0, t1, t2, t3;

	t0 = p256_adc_(a[0], HS_P256_P0 & odd, &c);
	t1 = p256_adc_(a[1], HS_P256_P1 & odd, &c);
	t2 = p256_adc_(a[2], 0, &c);
	t3 = p256_adc_(a[3], HS_P256_P3 & odd, &c);
	r[0] = (t0 >> 1) | (t1 << 63);
	r[1] = (t1 >> 1) | (t2 << 63);
	r[2] = (t2 >> 1) | (t3 << 63);
	r[3] = (t3 >> 1) | (c << 63);
}

static inline void p256_fe_neg(p256_fe r, const p256_fe a)
{
	static const p256_fe zero = { 0, 0, 0, 0 };

	p256_fe_sub(r, zero, a);
}

/*
 * The MULX/ADX backend in use: 0 none, 1 p256_field_adx.c, 2 its Intel
 * form (HS_P256_ADX_INTEL); written by p256_fe_select() only. Relaxed
 * atomics suffice: every value names a correct backend.
 */
extern atomic_int p256_fe_use_adx;
#define HS_P256_ADX_INTEL 2

static inline void p256_fe_mul(p256_fe r, const p256_fe a, const p256_fe b)
{
#if defined(HS_HAVE_P256_ADX)
	int adx = atomic_load_explicit(&p256_fe_use_adx, memory_order_relaxed);

	if (adx == HS_P256_ADX_INTEL) {
		p256_fe_mul_adx_intel(r, a, b);
		return;
	}
	if (adx) {
		p256_fe_mul_adx(r, a, b);
		return;
	}
#endif
	p256_fe_mul_portable(r, a, b);
}

static inline void p256_fe_sqr(p256_fe r, const p256_fe a)
{
#if defined(HS_HAVE_P256_ADX)
	int adx = atomic_load_explicit(&p256_fe_use_adx, memory_order_relaxed);

	if (adx == HS_P256_ADX_INTEL) {
		p256_fe_sqr_adx_intel(r, a);
		return;
	}
	if (adx) {
		p256_fe_sqr_adx(r, a);
		return;
	}
#endif
	p256_fe_sqr_portable(r, a);
}

#endif
