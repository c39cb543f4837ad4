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

/* Fresh random seed and its public key; HS_ERR_RAND if the kernel refuses. */
HS_MUST_CHECK int ed25519_keygen(uint8_t seed[32], uint8_t pub[32]);
/* pub = the public key of seed (RFC 8032 5.1.5). Constant time in seed. */
HS_MUST_CHECK int ed25519_public(uint8_t pub[32], const uint8_t seed[32]);
/*
 * Deterministic signature (RFC 8032 5.1.6). pub must be the public key of
 * seed (callers keep both; a wrong pub gives a signature that leaks the
 * key, so never take it from elsewhere). sig must not overlap msg; msg may
 * be NULL when msg_len is 0. Constant time in seed; only msg_len and the
 * (public) message and key are observable.
 */
HS_MUST_CHECK int ed25519_sign(uint8_t sig[64], const uint8_t seed[32], const uint8_t pub[32],
				  const void *msg, size_t msg_len);
/*
 * 0 if valid. HS_ERR_BAD_ENCODING if pub does not decode; HS_ERR_BAD_SIG
 * for anything wrong with the signature (S >= L, R not canonical, or the
 * cofactorless equation S B = R + k A failing). Variable time: all public.
 */
HS_MUST_CHECK int ed25519_verify(const uint8_t pub[32], const void *msg, size_t msg_len,
				    const uint8_t sig[64]);

#endif
