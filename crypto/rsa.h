/*
 * RSA signatures (RFC 8017): RSASSA-PSS verify and sign, RSASSA-PKCS1-v1_5
 * verify, with SHA-256, SHA-384 or SHA-512, for 2048- to 4096-bit moduli.
 *
 * Keys live in fixed-size structures (no allocation), filled from DER:
 * RSAPublicKey ::= SEQUENCE { modulus, publicExponent } and the PKCS #1
 * two-prime RSAPrivateKey (RFC 8017 A.1.2, version 0). Parsing is strict
 * DER. A parsed private key also holds the Montgomery contexts of n, p
 * and q, made once by the parser, so a signature starts from them (they
 * were 3% of an RSA-2048 signature when every signature made its own).
 * Private keys are the caller's to wipe (rsa_private_wipe); a key is
 * read-only once parsed, so threads may sign with one key at once.
 *
 * Signing is CRT with base blinding (random r; sign m r^e, then divide
 * by r), constant time in the key, the blinding value and the salt, and
 * the signature is verified before it is returned (a fault gives an error,
 * never a bad signature that could reveal a prime).
 */
#ifndef HS_CRYPTO_RSA_H
#define HS_CRYPTO_RSA_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "crypto/bignum.h"
#include "crypto/hash.h"
#include "crypto/sig.h"

#define HS_RSA_MIN_BITS 2048 /* below this, verify and sign refuse the key... */
#define HS_RSA_ALLOW_SMALL 1u /* ...unless flags has this bit (down to 1024 bits) */
#define HS_RSA_MAX_BITS 4096
#define HS_RSA_MAX_LEN (HS_RSA_MAX_BITS / 8) /* largest signature, bytes */

struct rsa_public {
	size_t bits;               /* bit length of n */
	size_t len;                /* byte length of n = signature length */
	size_t n_limbs, e_limbs;
	uint64_t n[HS_BN_LIMBS];
	uint64_t e[HS_BN_LIMBS];
};

struct rsa_private {
	struct rsa_public pub;
	size_t p_limbs;            /* limbs of p, q, dp, dq and qinv (the larger prime's) */
	uint64_t d[HS_BN_LIMBS];
	uint64_t p[HS_BN_LIMBS / 2], q[HS_BN_LIMBS / 2];
	uint64_t dp[HS_BN_LIMBS / 2], dq[HS_BN_LIMBS / 2], qinv[HS_BN_LIMBS / 2];
	struct bn_mont cn, cp, cq; /* of n (public), p and q (secret), by the parser */
};

/*
 * Parse a DER RSAPublicKey. n must be odd, 1024 to 4096 bits; e odd and
 * 3 <= e < n. HS_ERR_BAD_ENCODING for bad DER, HS_ERR_BAD_KEY otherwise.
 */
HS_MUST_CHECK int rsa_public_from_der(struct rsa_public *k, const uint8_t *der,
					 size_t der_len);
/*
 * Parse a DER RSAPrivateKey (version 0, two primes). Besides the public
 * checks: p and q odd, of at most 2048 bits each, p q = n, dp < p, dq < q,
 * qinv < p. Then the Montgomery contexts of n, p and q (p and q's in
 * constant time, from n's). Not constant time in the key's byte lengths
 * or the top byte of each integer (the strict-DER checks look at them);
 * k is wiped on error.
 */
HS_MUST_CHECK int rsa_private_from_der(struct rsa_private *k, const uint8_t *der,
					  size_t der_len);
void rsa_private_wipe(struct rsa_private *k);

/*
 * RSASSA-PSS verify (RFC 8017 8.1.2, EMSA-PSS-VERIFY 9.1.2) of a message
 * digest (h->digest_len bytes) with MGF1 over the same hash h and a salt
 * of exactly salt_len bytes (TLS 1.3: the digest length). The signature
 * must be exactly k->len bytes and below n. 0 or HS_ERR_BAD_SIG;
 * HS_ERR_BAD_KEY for a modulus below HS_RSA_MIN_BITS without
 * HS_RSA_ALLOW_SMALL. Variable time (public data only).
 */
HS_MUST_CHECK int rsa_pss_verify(const struct rsa_public *k, const struct hash *h,
				    size_t salt_len, const uint8_t *digest, const uint8_t *sig,
				    size_t sig_len, unsigned flags);
/*
 * RSASSA-PKCS1-v1_5 verify (RFC 8017 8.2.2): the encoded message is
 * rebuilt from the digest and compared whole with the recovered one (the
 * DigestInfo of RFC 8017 9.2 note 1, with the NULL parameters), so no
 * parsing leniency is possible. h is SHA-256, SHA-384 or SHA-512
 * (HS_ERR_UNSUPPORTED otherwise). Same rules as rsa_pss_verify.
 */
HS_MUST_CHECK int rsa_pkcs1_verify(const struct rsa_public *k, const struct hash *h,
				      const uint8_t *digest, const uint8_t *sig, size_t sig_len,
				      unsigned flags);
/*
 * RSASSA-PSS sign (RFC 8017 8.1.1) of a digest with MGF1 over h and a
 * random salt of h->digest_len bytes, with a key from rsa_private_from_der
 * (HS_ERR_BAD_KEY if its contexts are missing). *sig_len in: capacity (at least
 * k->pub.len, else HS_ERR_NO_SPACE), out: k->pub.len. HS_ERR_RAND if the
 * system gives no random bytes; HS_ERR_BAD_KEY (and sig zeroed) if the
 * result fails its check (a fault, or a key whose d does not match e).
 * Constant time in the private key, the blinding value and the salt:
 * only the key's sizes are observable.
 */
HS_MUST_CHECK int rsa_pss_sign(const struct rsa_private *k, const struct hash *h,
				  const uint8_t *digest, uint8_t *sig, size_t *sig_len,
				  unsigned flags);

/*
 * Signature tables (TLS 1.3 rsa_pss_rsae_*): pub = DER RSAPublicKey
 * (pub_len 0 in the table: the length varies), priv = a struct
 * rsa_private that rsa_private_from_der filled (priv_len 0: not bytes),
 * parsed once by the key's owner rather than on every signature.
 * Signatures are k bytes, up to HS_RSA_MAX_LEN (more than HS_SIG_MAX_LEN).
 */
_Static_assert(HS_RSA_MAX_LEN <= HS_SIG_ANY_MAX_LEN, "HS_SIG_ANY_MAX_LEN bounds every signature row");
extern const struct sig sig_rsa_pss_rsae_sha256;
extern const struct sig sig_rsa_pss_rsae_sha384;
extern const struct sig sig_rsa_pss_rsae_sha512;

#endif
