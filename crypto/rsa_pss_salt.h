/*
 * RSASSA-PSS signing with a caller-chosen salt (RFC 8017 8.1.1 with the
 * salt of EMSA-PSS-ENCODE 9.1.1 step 4 given instead of drawn).
 *
 * For reproducing published traces only (RFC 8448's CertificateVerify,
 * through the engine's test hooks): a real signer must use rsa_pss_sign
 * (crypto/rsa.h), whose salt is random. A repeated salt does not break
 * PSS, but it makes signatures deterministic, which is the point here.
 */
#ifndef HS_CRYPTO_RSA_PSS_SALT_H
#define HS_CRYPTO_RSA_PSS_SALT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "crypto/hash.h"
#include "crypto/rsa.h"

/*
 * Sign digest (h->digest_len bytes) with MGF1 over h and salt[0..salt_len)
 * (salt_len <= HS_HASH_MAX_LEN). *sig_len in: capacity (at least
 * k->pub.len, else HS_ERR_NO_SPACE), out: k->pub.len. flags as for
 * rsa_pss_sign (HS_RSA_ALLOW_SMALL). HS_ERR_ARG if salt_len does not
 * fit the encoding. The result is checked (s^e = m) before it is
 * returned: HS_ERR_BAD_KEY and sig zeroed if it does not hold. Constant
 * time in the private key, the salt and the digest (one exponentiation by
 * d, no CRT): only the key's sizes and salt_len are observable.
 */
HS_MUST_CHECK int rsa_pss_sign_salt(const struct rsa_private *k, const struct hash *h,
				       const uint8_t *digest, const uint8_t *salt, size_t salt_len,
				       uint8_t *sig, size_t *sig_len, unsigned flags);

#endif
