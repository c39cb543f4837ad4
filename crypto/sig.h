/*
 * Signature table: what the protocol sees of ECDSA-P256-SHA256 and Ed25519.
 * sign/verify take the whole message (ECDSA hashes it with SHA-256; Ed25519
 * signs it as is). ECDSA signatures here are DER, as TLS carries them.
 * priv: ECDSA 32-byte scalar; Ed25519 32-byte seed. pub: ECDSA 65-byte
 * uncompressed point; Ed25519 32 bytes.
 */
#ifndef HS_CRYPTO_SIG_H
#define HS_CRYPTO_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define HS_SIG_MAX_LEN 72

struct hs_sig {
	const char *name;
	size_t priv_len, pub_len, max_sig_len;
	/* *sig_len in: capacity, out: length written */
	HS_MUST_CHECK int (*sign)(uint8_t *sig, size_t *sig_len, const uint8_t *priv,
				  const uint8_t *pub, const uint8_t *msg, size_t msg_len);
	HS_MUST_CHECK int (*verify)(const uint8_t *pub, size_t pub_len, const uint8_t *msg,
				    size_t msg_len, const uint8_t *sig, size_t sig_len);
};

extern const struct hs_sig hs_sig_ecdsa_p256_sha256;
extern const struct hs_sig hs_sig_ed25519;

#endif
