/*
 * Ed25519 (RFC 8032, pure, no context). The private key is the 32-byte
 * seed. Verification enforces canonical encodings: S < L (RFC 8032 5.1.7),
 * A and R decode (y < p; x = 0 with sign bit 1 is rejected).
 */
#ifndef HS_CRYPTO_ED25519_H
#define HS_CRYPTO_ED25519_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

HS_MUST_CHECK int hs_ed25519_keygen(uint8_t seed[32], uint8_t pub[32]);
HS_MUST_CHECK int hs_ed25519_public(uint8_t pub[32], const uint8_t seed[32]);
/* pub must be the public key of seed (callers keep both). */
HS_MUST_CHECK int hs_ed25519_sign(uint8_t sig[64], const uint8_t seed[32], const uint8_t pub[32],
				  const void *msg, size_t msg_len);
/* 0 if valid, HS_ERR_BAD_SIG or HS_ERR_BAD_ENCODING otherwise. */
HS_MUST_CHECK int hs_ed25519_verify(const uint8_t pub[32], const void *msg, size_t msg_len,
				    const uint8_t sig[64]);

#endif
