/*
 * Certificate signatures: one table row per signatureAlgorithm (OID and
 * exact parameters), each naming its hash and a verify function taking
 * the issuer's key. A new algorithm is a new row.
 *
 *   ecdsa-with-SHA256/384/512 (RFC 5758 3.2: parameters absent), issuer
 *     key P-256 or P-384, signature a DER Ecdsa-Sig-Value
 *   sha256/384/512WithRSAEncryption (RFC 4055 5: parameters NULL),
 *     PKCS #1 v1.5, RSA keys of 2048 to 4096 bits
 *   Ed25519 (RFC 8410 3: parameters absent), the TBS signed as is
 *
 * Implementation notes: everything here is public (certificates and
 * their signatures); verification is variable time. RSASSA-PSS
 * certificate signatures (id-RSASSA-PSS with parameters) are not
 * supported yet: such certificates parse, and verifying them gives
 * HS_ERR_X509_UNSUPPORTED_ALG.
 */
#include "x509/x509.h"

#include <string.h>

#include "crypto/ed25519.h"
#include "crypto/p256.h"
#include "crypto/p384.h"
#include "crypto/rsa.h"
#include "x509/oid.h"

enum params { P_ABSENT, P_NULL };

struct x509_sigalg {
	const char *name;
	const uint8_t *oid;
	size_t oid_len;
	enum params params;
	const struct hash *(*hash)(void); /* NULL: the signature covers the TBS itself */
	int (*verify)(const struct x509_cert *issuer, const struct hash *h,
		      const uint8_t *digest, const struct x509_cert *subject);
};

static int verify_ecdsa(const struct x509_cert *issuer, const struct hash *h,
			const uint8_t *digest, const struct x509_cert *subject)
{
	uint8_t raw[HS_P384_SIG_LEN];

	if (issuer->key_type == KEY_P256) {
		if (ecdsa_sig_from_der(raw, subject->sig.p, subject->sig.len) != 0)
			return HS_ERR_X509_BAD_SIGNATURE;
		return ecdsa_p256_verify(issuer->key.p, issuer->key.len, digest,
					    h->digest_len, raw) == 0 ? 0 : HS_ERR_X509_BAD_SIGNATURE;
	}
	if (issuer->key_type == KEY_P384) {
		if (ecdsa_sig_from_der_n(raw, 48, subject->sig.p, subject->sig.len) != 0)
			return HS_ERR_X509_BAD_SIGNATURE;
		return ecdsa_p384_verify(issuer->key.p, issuer->key.len, digest,
					    h->digest_len, raw) == 0 ? 0 : HS_ERR_X509_BAD_SIGNATURE;
	}
	return HS_ERR_X509_BAD_SIGNATURE; /* the issuer's key is not an EC key we know */
}

static int verify_rsa_pkcs1(const struct x509_cert *issuer, const struct hash *h,
			    const uint8_t *digest, const struct x509_cert *subject)
{
	struct rsa_public k;
	int err;

	if (issuer->key_type != KEY_RSA)
		return HS_ERR_X509_BAD_SIGNATURE;
	if (rsa_public_from_der(&k, issuer->key.p, issuer->key.len) != 0)
		return HS_ERR_X509_UNSUPPORTED_ALG;
	err = rsa_pkcs1_verify(&k, h, digest, subject->sig.p, subject->sig.len, 0);
	if (err == HS_ERR_BAD_KEY || err == HS_ERR_UNSUPPORTED)
		return HS_ERR_X509_UNSUPPORTED_ALG; /* e.g. a modulus below 2048 bits */
	return err == 0 ? 0 : HS_ERR_X509_BAD_SIGNATURE;
}

static int verify_ed25519(const struct x509_cert *issuer, const struct hash *h,
			  const uint8_t *digest, const struct x509_cert *subject)
{
	(void)h;
	(void)digest;
	if (issuer->key_type != KEY_ED25519 || issuer->key.len != 32 ||
	    subject->sig.len != 64)
		return HS_ERR_X509_BAD_SIGNATURE;
	return ed25519_verify(issuer->key.p, subject->tbs.p, subject->tbs.len,
				 subject->sig.p) == 0 ? 0 : HS_ERR_X509_BAD_SIGNATURE;
}

#define OID(o) o, sizeof(o)

static const struct x509_sigalg algs[] = {
	{ "ecdsa-with-SHA256", OID(oid_ecdsa_with[SHA2_256]), P_ABSENT, hash_sha256, verify_ecdsa },
	{ "ecdsa-with-SHA384", OID(oid_ecdsa_with[SHA2_384]), P_ABSENT, hash_sha384, verify_ecdsa },
	{ "ecdsa-with-SHA512", OID(oid_ecdsa_with[SHA2_512]), P_ABSENT, hash_sha512, verify_ecdsa },
	{ "sha256WithRSAEncryption", OID(oid_rsa_with[SHA2_256]), P_NULL, hash_sha256,
	  verify_rsa_pkcs1 },
	{ "sha384WithRSAEncryption", OID(oid_rsa_with[SHA2_384]), P_NULL, hash_sha384,
	  verify_rsa_pkcs1 },
	{ "sha512WithRSAEncryption", OID(oid_rsa_with[SHA2_512]), P_NULL, hash_sha512,
	  verify_rsa_pkcs1 },
	{ "Ed25519", OID(oid_ed25519), P_ABSENT, NULL, verify_ed25519 },
};

const struct x509_sigalg *x509_sigalg_find(struct reader oid, struct reader params)
{
	static const uint8_t null[] = { 0x05, 0x00 };

	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		const struct x509_sigalg *a = &algs[i];
		if (!der_oid_is(&oid, a->oid, a->oid_len))
			continue;
		if (a->params == P_ABSENT && params.len != 0)
			return NULL;
		if (a->params == P_NULL &&
		    !(params.len == 2 && memcmp(params.p, null, sizeof(null)) == 0))
			return NULL;
		return a;
	}
	return NULL;
}

int x509_check_sig(const struct x509_cert *subject, const struct x509_cert *issuer)
{
	const struct x509_sigalg *a = subject->sigalg;
	const struct hash *h = NULL;
	uint8_t digest[HS_HASH_MAX_LEN];

	ENSURE(a != NULL && issuer->key_type != KEY_NONE, HS_ERR_X509_UNSUPPORTED_ALG);
	if (a->hash != NULL) {
		h = a->hash();
		hash_digest(h, subject->tbs.p, subject->tbs.len, digest);
	}
	return a->verify(issuer, h, digest, subject);
}
