/*
 * Signature table: what the protocol sees of a signature scheme. One row
 * each: ECDSA P-256/SHA-256 and Ed25519 (here), ECDSA P-384/SHA-384 (verify
 * only, crypto/p384.h), RSASSA-PSS with SHA-256/384/512 (crypto/rsa.h).
 * sign/verify take the whole message (ECDSA and RSA-PSS hash it; Ed25519
 * signs it as is). ECDSA signatures are DER, as TLS carries them.
 * priv: ECDSA 32-byte scalar; Ed25519 32-byte seed; RSA a parsed struct
 * rsa_private (crypto/rsa.h: parsed once by the key's owner, with its
 * Montgomery contexts). pub: ECDSA uncompressed point; Ed25519 32 bytes;
 * RSA RSAPublicKey DER.
 * Each row's max_sig_len bounds its signatures: HS_SIG_MAX_LEN (72) covers
 * ECDSA P-256 and Ed25519 only; RSA signatures reach HS_RSA_MAX_LEN (512)
 * bytes and P-384 ones 104, so a buffer for any row needs HS_SIG_ANY_MAX_LEN.
 */
#ifndef HS_CRYPTO_SIG_H
#define HS_CRYPTO_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define HS_SIG_MAX_LEN 72       /* ECDSA P-256 (DER) and Ed25519 */
#define HS_SIG_ANY_MAX_LEN 512  /* any row: RSA-4096 */

struct sig {
	const char *name;
	size_t priv_len, pub_len, max_sig_len;
	/* *sig_len in: capacity, out: length written */
	HS_MUST_CHECK int (*sign)(uint8_t *sig, size_t *sig_len, const void *priv,
				  const uint8_t *pub, const uint8_t *msg, size_t msg_len);
	HS_MUST_CHECK int (*verify)(const uint8_t *pub, size_t pub_len, const uint8_t *msg,
				    size_t msg_len, const uint8_t *sig, size_t sig_len);
};

extern const struct sig sig_ecdsa_p256_sha256;
extern const struct sig sig_ed25519;

#endif
