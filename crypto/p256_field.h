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

#include <stdint.h>

typedef uint64_t hs_p256_fe[4];

/*
 * r = a * b (Montgomery product: a*b/2^256 on the raw limbs), and r = a^2,
 * with the backend hs_p256_fe_select() chose (portable until it is called).
 */
void hs_p256_fe_mul(hs_p256_fe r, const hs_p256_fe a, const hs_p256_fe b);
void hs_p256_fe_sqr(hs_p256_fe r, const hs_p256_fe a);

/*
 * Choose the multiplication backend for this CPU now (honours
 * hs_cpu_force_portable). The public P-256 functions call it on entry.
 */
void hs_p256_fe_select(void);
/* 1 if hs_p256_fe_select() chose MULX/ADX (the scalar code follows it). */
int hs_p256_fe_adx_active(void);

/* The backends; all give bit-identical results. */
void hs_p256_fe_mul_portable(hs_p256_fe r, const hs_p256_fe a, const hs_p256_fe b);
void hs_p256_fe_sqr_portable(hs_p256_fe r, const hs_p256_fe a);
#if defined(__x86_64__)
#define HS_HAVE_P256_ADX 1
/* crypto/asm/p256_field_adx.c; need hs_cpu_has(HS_CPU_BMI2 | HS_CPU_ADX). */
void hs_p256_fe_mul_adx(hs_p256_fe r, const hs_p256_fe a, const hs_p256_fe b);
void hs_p256_fe_sqr_adx(hs_p256_fe r, const hs_p256_fe a);
#endif
/* r = a^(2^k): k squarings. */
void hs_p256_fe_sqr_n(hs_p256_fe r, const hs_p256_fe a, unsigned k);
void hs_p256_fe_add(hs_p256_fe r, const hs_p256_fe a, const hs_p256_fe b);
void hs_p256_fe_sub(hs_p256_fe r, const hs_p256_fe a, const hs_p256_fe b);
void hs_p256_fe_neg(hs_p256_fe r, const hs_p256_fe a);
/* r = 1/a (Fermat: a^(p-2)); 0 maps to 0. */
void hs_p256_fe_inv(hs_p256_fe r, const hs_p256_fe a);

/* r = b, the curve constant. */
void hs_p256_fe_set_b(hs_p256_fe r);
void hs_p256_fe_set_one(hs_p256_fe r);
void hs_p256_fe_set_zero(hs_p256_fe r);
void hs_p256_fe_copy(hs_p256_fe r, const hs_p256_fe a);
/* if (mask) r = a; mask is all-ones or zero. */
void hs_p256_fe_cmov(hs_p256_fe r, const hs_p256_fe a, uint64_t mask);
/* all-ones if a == 0, else 0. */
uint64_t hs_p256_fe_is_zero(const hs_p256_fe a);
/* all-ones if a == b, else 0. */
uint64_t hs_p256_fe_eq(const hs_p256_fe a, const hs_p256_fe b);

/*
 * Load a 32-byte big-endian integer and convert it to Montgomery form.
 * Returns all-ones if it was < p; otherwise 0 (r then holds the reduced
 * value, which the caller must not use).
 */
uint64_t hs_p256_fe_from_bytes(hs_p256_fe r, const uint8_t in[32]);
/* Convert out of Montgomery form and store 32 bytes big-endian. */
void hs_p256_fe_to_bytes(uint8_t out[32], const hs_p256_fe a);

#endif
