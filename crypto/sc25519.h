/*
 * Scalars modulo the Ed25519 group order
 * L = 2^252 + 27742317777372353535851937790883648493 (RFC 8032 5.1).
 * Scalars are 32-byte little-endian strings, as Ed25519 encodes them.
 */
#ifndef HS_CRYPTO_SC25519_H
#define HS_CRYPTO_SC25519_H

#include <stdint.h>

/* out = in mod L, in a 64-byte little-endian number (a SHA-512 output). Constant time. */
void sc_reduce64(uint8_t out[32], const uint8_t in[64]);
/* out = (a b + c) mod L, for any 256-bit a, b, c. Constant time. */
void sc_muladd(uint8_t out[32], const uint8_t a[32], const uint8_t b[32], const uint8_t c[32]);
/* 1 if s < L (the only encoding RFC 8032 5.1.7 accepts for S). Variable time: public input. */
int sc_is_canonical(const uint8_t s[32]);

#endif
