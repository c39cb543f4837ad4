/*
 * NIST P-256 (secp256r1): ECDH and ECDSA.
 * Public keys are SEC1 uncompressed points, 65 bytes: 0x04 || X || Y.
 * Private keys are 32-byte big-endian scalars in [1, n-1].
 * Raw signatures are r || s, 32 bytes each, big-endian.
 */
#ifndef HS_CRYPTO_P256_H
#define HS_CRYPTO_P256_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define HS_P256_PUB_LEN 65
#define HS_P256_SIG_DER_MAX 72

HS_MUST_CHECK int p256_keygen(uint8_t priv[32], uint8_t pub[65]);
/* HS_ERR_BAD_KEY if priv is 0 or >= n. */
HS_MUST_CHECK int p256_public(uint8_t pub[65], const uint8_t priv[32]);
/*
 * out = x-coordinate of priv * peer. peer is validated: length 65, prefix
 * 0x04, coordinates < p, on the curve (HS_ERR_BAD_POINT otherwise).
 */
HS_MUST_CHECK int p256_ecdh(uint8_t out[32], const uint8_t priv[32], const uint8_t *peer,
			       size_t peer_len);
/*
 * p256_keygen, then p256_ecdh with the new key and peer (a server's step),
 * one field inversion cheaper than the two calls. peer is validated first:
 * on a bad peer nothing is generated.
 */
HS_MUST_CHECK int p256_keygen_shared(uint8_t priv[32], uint8_t pub[65], uint8_t out[32],
				       const uint8_t *peer, size_t peer_len);
/* Check a public key as p256_ecdh does. */
HS_MUST_CHECK int p256_check_public(const uint8_t *pub, size_t pub_len);

/*
 * ECDSA over a message digest (hash_len bytes, any length: its leftmost
 * 256 bits are used, per SEC1 4.1.3 step 5).
 * The nonce is RFC 6979 deterministic; its HMAC_DRBG uses the digest's own
 * hash as RFC 6979 does, inferred from hash_len: SHA-384 for 48 bytes,
 * SHA-512 for 64, SHA-256 otherwise. With hedged != 0, 32 fresh random
 * bytes are mixed in as RFC 6979 3.6 "additional data" (HS_ERR_RAND if the
 * system refuses them). HS_ERR_BAD_KEY (and sig zeroed) if priv is 0 or
 * >= n. Constant time in priv and the nonce.
 */
HS_MUST_CHECK int ecdsa_p256_sign(uint8_t sig[64], const uint8_t priv[32], const uint8_t *hash,
				     size_t hash_len, int hedged);
/* 0 if valid; HS_ERR_BAD_SIG, or HS_ERR_BAD_POINT for a bad key. */
HS_MUST_CHECK int ecdsa_p256_verify(const uint8_t *pub, size_t pub_len, const uint8_t *hash,
				       size_t hash_len, const uint8_t sig[64]);

/* raw r||s (32+32) to DER Ecdsa-Sig-Value; *der_len in: capacity, out: length. */
HS_MUST_CHECK int ecdsa_sig_to_der(uint8_t *der, size_t *der_len, const uint8_t raw[64]);
/*
 * Strict DER (no extra leading zeros, no negative integers, exact lengths,
 * no trailing bytes, 0 < r,s checked by verify) to raw r||s;
 * HS_ERR_BAD_ENCODING otherwise. Integers wider than 32 bytes are rejected.
 */
HS_MUST_CHECK int ecdsa_sig_from_der(uint8_t raw[64], const uint8_t *der, size_t der_len);

#endif
