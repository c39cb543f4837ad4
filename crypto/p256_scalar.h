/*
 * Arithmetic modulo the P-256 group order
 * n = ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc63254f
 * (internal to crypto/: used by ECDH and ECDSA).
 *
 * A scalar is four 64-bit limbs, least significant first. Unless a name
 * says "mont", values are plain integers in [0, n); "mont" values hold
 * x * 2^256 mod n. Mixing one of each in p256_sc_mont_mul gives a
 * plain result: mont_mul(a, b) = a * b / 2^256 mod n.
 * Everything runs in constant time.
 * Outputs may alias inputs.
 */
#ifndef HS_CRYPTO_P256_SCALAR_H
#define HS_CRYPTO_P256_SCALAR_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/p256_field.h" /* HS_HAVE_P256_ADX, p256_fe_adx_active */

typedef uint64_t p256_sc[4];

/*
 * Load 32 bytes big-endian as they are (no reduction). Returns all-ones
 * if the value is in [1, n-1] (a valid private key or nonce), else 0.
 */
uint64_t p256_sc_from_bytes(p256_sc r, const uint8_t in[32]);
/*
 * r = bits2int(h) mod n (SEC 1 4.1.3 step 5, RFC 6979 2.3.2): the leftmost
 * 256 bits of h (all of it when shorter, as an integer), reduced mod n.
 * Used for message digests and for 32-byte x-coordinates (x mod n).
 */
void p256_sc_from_digest(p256_sc r, const uint8_t *h, size_t h_len);
void p256_sc_to_bytes(uint8_t out[32], const p256_sc a);

void p256_sc_add(p256_sc r, const p256_sc a, const p256_sc b);
/*
 * r = a * b / 2^256 mod n and r = a * a / 2^256 mod n, for a, b below n;
 * MULX/ADX when p256_fe_select() chose that backend for the field.
 */
void p256_sc_mont_mul(p256_sc r, const p256_sc a, const p256_sc b);
void p256_sc_mont_sqr(p256_sc r, const p256_sc a);
/* The backends; all give bit-identical results. */
void p256_sc_mont_mul_portable(p256_sc r, const p256_sc a, const p256_sc b);
void p256_sc_mont_sqr_portable(p256_sc r, const p256_sc a);
#if defined(HS_HAVE_P256_ADX)
/* crypto/asm/p256_scalar_adx.c; need cpu_has(HS_CPU_BMI2 | HS_CPU_ADX). */
void p256_sc_mont_mul_adx(p256_sc r, const p256_sc a, const p256_sc b);
void p256_sc_mont_sqr_adx(p256_sc r, const p256_sc a);
#endif
/* r = a * 2^256 mod n (into Montgomery form). */
void p256_sc_to_mont(p256_sc r, const p256_sc a);
/* r = 1/a in Montgomery form, for a in Montgomery form (safegcd; 0 gives 0). */
void p256_sc_inv_mont(p256_sc r, const p256_sc a);

/* all-ones if a == 0, else 0 */
uint64_t p256_sc_is_zero(const p256_sc a);
/* if (mask) r = a */
void p256_sc_cmov(p256_sc r, const p256_sc a, uint64_t mask);

#endif
