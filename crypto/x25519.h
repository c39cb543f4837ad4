/* X25519 (RFC 7748). Keys are 32 bytes; the scalar is clamped inside. */
#ifndef HS_CRYPTO_X25519_H
#define HS_CRYPTO_X25519_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "crypto/fe25519.h"

/* Fresh random private key and its public key. */
HS_MUST_CHECK int x25519_keygen(uint8_t priv[32], uint8_t pub[32]);
/* pub = X25519(priv, 9). */
HS_MUST_CHECK int x25519_public(uint8_t pub[32], const uint8_t priv[32]);
/*
 * out = X25519(scalar, point). The top bit of point is ignored (RFC 7748
 * 5). An all-zero result is HS_ERR_ZERO_SHARED (RFC 8446 7.4.2 MUST).
 */
HS_MUST_CHECK int x25519(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]);
/*
 * A fresh key pair and, with it, out = X25519(priv, peer) (peer_len must
 * be 32): what a TLS server does in one go. The same results as
 * x25519_keygen then x25519, with one field inversion for both (the
 * public key's and the shared secret's denominators inverted together).
 * On HS_ERR_ZERO_SHARED (a low-order peer) priv and pub are still a
 * valid key pair and out is all zero.
 */
HS_MUST_CHECK int x25519_keygen_shared(uint8_t priv[32], uint8_t pub[32], uint8_t out[32],
				       const uint8_t *peer, size_t peer_len);

#if defined(__x86_64__)
#define HS_HAVE_X25519_IFMA 1
/*
 * Backend (crypto/asm/x25519_ifma.c, internal to crypto/): (x2 : z2) =
 * the projective u of k u for an already clamped k, the same field
 * elements as the portable ladder gives. Needs cpu_has(HS_X25519_IFMA_CPU);
 * x25519() checks.
 */
#define HS_X25519_IFMA_CPU (HS_CPU_AVX2 | HS_CPU_AVX512F | HS_CPU_AVX512VL | HS_CPU_AVX512IFMA)
void x25519_ladder_ifma(struct fe25519 *x2, struct fe25519 *z2, const uint8_t k[32],
			const uint8_t u[32]);
#endif

#endif
