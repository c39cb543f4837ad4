/*
 * Credentials: a PEM certificate chain and its private key.
 *
 *   PKCS#8 (RFC 5208/5958)  PrivateKeyInfo ::= SEQUENCE { version INTEGER,
 *       privateKeyAlgorithm AlgorithmIdentifier, privateKey OCTET STRING, ... }
 *     P-256:   privateKey holds an ECPrivateKey
 *     Ed25519: privateKey holds CurvePrivateKey ::= OCTET STRING (RFC 8410)
 *     RSA:     rsaEncryption (parameters NULL), privateKey holds an
 *              RSAPrivateKey (RFC 8017 A.1.2)
 *   SEC1 (RFC 5915)  ECPrivateKey ::= SEQUENCE { version 1, privateKey
 *       OCTET STRING (32), [0] parameters OPTIONAL, [1] publicKey OPTIONAL }
 *   PKCS#1 "RSA PRIVATE KEY": an RSAPrivateKey, two primes, 2048 to 4096
 *       bits (crypto/rsa.h checks p q = n and the CRT values' ranges)
 *
 * The key must belong to the leaf: its public key is recomputed (or, for
 * RSA, n and e are taken from the private key) and compared with the
 * leaf's SubjectPublicKeyInfo.
 *
 * Implementation notes: the decoded key container is wiped after use, the
 * private key lives in struct hs_cred and is wiped by hs_cred_free(). An
 * RSA key is parsed once into struct rsa_private there (with the
 * Montgomery contexts every signature needs; the signature table takes
 * it parsed). The only allocations are the credential object and the
 * chain's DER buffer.
 */
#include "x509/x509.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/ed25519.h"
#include "crypto/p256.h"
#include "crypto/rsa.h"
#ifdef HS_TEST_HOOKS
#include "crypto/rsa_pss_salt.h"
#endif
#include "x509/oid.h"

#define KEY_DER_MAX (CRED_PRIV_MAX + 64) /* room for the PKCS#8 wrapping */

/* SEQUENCE { version INTEGER (lo..hi), ... }: *seq gets what follows the version. */
static int open_versioned(struct reader r, uint32_t lo, uint32_t hi, struct reader *seq)
{
	struct reader mag;
	uint32_t v;

	TRY(der_read(&r, DER_SEQUENCE, seq));
	TRY(der_read_uint(seq, &mag));
	ENSURE(der_uint_u32(mag, &v) == 0 && v >= lo && v <= hi, HS_ERR_BAD_KEY);
	return 0;
}

/* A 32-byte private key (a P-256 scalar, an Ed25519 seed) into cred. */
static int take_key32(struct hs_cred *cred, struct reader key, enum key_type type,
		      uint16_t scheme)
{
	ENSURE(key.len == 32, HS_ERR_BAD_KEY);
	memcpy(cred->priv, key.p, 32);
	cred->type = type;
	cred->scheme = scheme;
	return 0;
}

static int parse_ec_private(struct reader r, struct hs_cred *cred)
{
	struct reader seq, key;

	TRY(open_versioned(r, 1, 1, &seq));
	TRY(der_read(&seq, DER_OCTET_STRING, &key));
	return take_key32(cred, key, KEY_P256, HS_SIG_ECDSA_SECP256R1_SHA256);
}

/*
 * An RSAPrivateKey (PKCS#1): parsed and checked by crypto/rsa.h's parser
 * into cred->rsa, once (with its Montgomery contexts: every signature uses
 * them). Below 2048 bits only with CRED_ALLOW_SMALL_RSA in a test build.
 */
static int parse_rsa_private(struct reader r, struct hs_cred *cred, unsigned flags)
{
	size_t bits_floor = HS_RSA_MIN_BITS;
	int err;

	(void)flags;
	ENSURE(r.len <= CRED_PRIV_MAX, HS_ERR_BAD_KEY);
	err = rsa_private_from_der(&cred->rsa, r.p, r.len);
#ifdef HS_TEST_HOOKS
	if (flags & CRED_ALLOW_SMALL_RSA) /* test builds only: the 1024-bit RFC 8448 key */
		bits_floor = 1024;
#endif
	if (err == 0 && cred->rsa.pub.bits < bits_floor)
		err = HS_ERR_BAD_KEY;
	if (err) {
		rsa_private_wipe(&cred->rsa);
		return err;
	}
	cred->type = KEY_RSA;
	cred->scheme = HS_SIG_RSA_PSS_RSAE_SHA256;
	return 0;
}

static int parse_pkcs8(struct reader r, struct hs_cred *cred, unsigned flags)
{
	struct reader seq, alg, oid, key, inner;

	TRY(open_versioned(r, 0, 1, &seq));
	TRY(der_read(&seq, DER_SEQUENCE, &alg));
	TRY(der_read(&alg, DER_OID, &oid));
	TRY(der_read(&seq, DER_OCTET_STRING, &key));
	if (der_oid_is(&oid, oid_ed25519, sizeof(oid_ed25519))) {
		TRY(der_read(&key, DER_OCTET_STRING, &inner));
		return take_key32(cred, inner, KEY_ED25519, HS_SIG_ED25519);
	}
	if (der_oid_is(&oid, oid_rsa, sizeof(oid_rsa)))
		return parse_rsa_private(key, cred, flags);
	ENSURE(der_oid_is(&oid, oid_ec_public_key, sizeof(oid_ec_public_key)),
	       HS_ERR_UNSUPPORTED);
	TRY(der_read(&alg, DER_OID, &oid));
	ENSURE(der_oid_is(&oid, oid_p256, sizeof(oid_p256)), HS_ERR_UNSUPPORTED);
	return parse_ec_private(key, cred);
}

/* The first PEM block of label in pem, decoded into der (0 if found). */
static int pem_find(const char *pem, size_t len, const char *label, uint8_t *der, size_t *n)
{
	struct reader text = reader_init(pem, len);

	return pem_next(&text, label, der, KEY_DER_MAX, n);
}

static int load_key(struct hs_cred *cred, const char *pem, size_t len, unsigned flags)
{
	uint8_t der[KEY_DER_MAX];
	size_t n = 0;
	int err;

	if (pem_find(pem, len, "PRIVATE KEY", der, &n) == 0)
		err = parse_pkcs8(reader_init(der, n), cred, flags);
	else if (pem_find(pem, len, "EC PRIVATE KEY", der, &n) == 0)
		err = parse_ec_private(reader_init(der, n), cred);
	else if (pem_find(pem, len, "RSA PRIVATE KEY", der, &n) == 0)
		err = parse_rsa_private(reader_init(der, n), cred, flags);
	else if (pem_find(pem, len, "ENCRYPTED PRIVATE KEY", der, &n) == 0)
		err = HS_ERR_X509_KEY_ENCRYPTED; /* PKCS#8 EncryptedPrivateKeyInfo */
	else
		err = HS_ERR_BAD_ENCODING;
	wipe(der, sizeof(der));
	return err;
}

/*
 * hs_load_error_detail(): what the last loader of this thread failed on, in
 * words. Per thread, so loaders on several threads do not mix their
 * messages; a loader clears it when it starts.
 */
static _Thread_local char load_detail[512];
/* which input the last cred_load_pem_flags failure is about */
enum { BLAME_CHAIN, BLAME_KEY, BLAME_BOTH };
static _Thread_local int load_blame;

void x509_load_detail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(load_detail, sizeof(load_detail), fmt, ap);
	va_end(ap);
}

void x509_load_detail_clear(void) { load_detail[0] = 0; }

const char *hs_load_error_detail(void) { return load_detail[0] != 0 ? load_detail : NULL; }

static int has_text(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(p + i, s, k) == 0)
			return 1;
	return 0;
}

static int derive_public(struct hs_cred *cred)
{
	switch (cred->type) {
	case KEY_P256:
		cred->pub_len = 65;
		return p256_public(cred->pub, cred->priv);
	case KEY_ED25519:
		cred->pub_len = 32;
		return ed25519_public(cred->pub, cred->priv);
	case KEY_RSA: /* n and e come with the private key: check_rsa_pair */
		return 0;
	default:
		return HS_ERR_UNSUPPORTED;
	}
}

static int load_chain(struct hs_cred *cred, const char *pem, size_t len)
{
	struct reader text = reader_init(pem, len);
	size_t used = 0, n;

	/* base64 is 4/3 the size of what it encodes: len bounds the total */
	cred->der = malloc(len);
	if (cred->der == NULL)
		return HS_ERR_NOMEM;
	while (cred->n_certs < CRED_MAX_CHAIN &&
	       pem_next(&text, "CERTIFICATE", cred->der + used, len - used, &n) == 0) {
		cred->cert[cred->n_certs] = cred->der + used;
		cred->cert_len[cred->n_certs++] = n;
		used += n;
	}
	return cred->n_certs > 0 ? 0 : HS_ERR_BAD_ENCODING;
}

/* The leaf's n and e must be the private key's. */
static int check_rsa_pair(const struct hs_cred *cred, const struct leaf_key *leaf)
{
	const struct rsa_public *mine = &cred->rsa.pub;
	struct rsa_public pub;
	const uint8_t *key;
	size_t key_len, bits;
	int same;

	TRY(x509_rsa_key(leaf->spki, leaf->spki_len, &key, &key_len, &bits));
	TRY(rsa_public_from_der(&pub, key, key_len));
	same = mine->bits == pub.bits && mine->n_limbs == pub.n_limbs &&
	       mine->e_limbs == pub.e_limbs &&
	       memcmp(mine->n, pub.n, pub.n_limbs * sizeof(pub.n[0])) == 0 &&
	       memcmp(mine->e, pub.e, pub.e_limbs * sizeof(pub.e[0])) == 0;
	return same ? 0 : HS_ERR_X509_KEY_MISMATCH;
}

static int check_pair(const struct hs_cred *cred)
{
	struct x509_cert cert;
	struct leaf_key leaf;

	TRY(x509_cert_parse(&cert, cred->cert[0], cred->cert_len[0]));
	TRY(x509_leaf_key(&cert, &leaf));
	if (cred->type == KEY_RSA) {
		ENSURE(leaf.type == KEY_RSA, HS_ERR_X509_KEY_MISMATCH);
		return check_rsa_pair(cred, &leaf);
	}
	ENSURE(leaf.type == cred->type && leaf.pub_len == cred->pub_len &&
		       memcmp(leaf.pub, cred->pub, leaf.pub_len) == 0,
	       HS_ERR_X509_KEY_MISMATCH);
	return 0;
}

int hs_cred_load_pem(struct hs_cred **out, const char *chain_pem, size_t chain_len,
		     const char *key_pem, size_t key_len)
{
	return cred_load_pem_flags(out, chain_pem, chain_len, key_pem, key_len, 0);
}

int cred_load_pem_flags(struct hs_cred **out, const char *chain_pem, size_t chain_len,
			   const char *key_pem, size_t key_len, unsigned flags)
{
	struct hs_cred *cred = calloc(1, sizeof(*cred));
	int err;

	*out = NULL;
	load_detail[0] = 0;
	if (cred == NULL)
		return HS_ERR_NOMEM;
	err = load_chain(cred, chain_pem, chain_len);
	if (err != 0) {
		load_blame = BLAME_CHAIN;
		x509_load_detail("no certificate (no CERTIFICATE PEM block) in the chain");
	}
	if (err == 0) {
		err = load_key(cred, key_pem, key_len, flags);
		load_blame = BLAME_KEY;
		if (err != 0 && has_text(key_pem, key_len, "ENCRYPTED"))
			x509_load_detail("the private key is encrypted: hs reads only unencrypted"
					 " keys (PKCS#8, SEC1, PKCS#1)");
		else if (err != 0)
			x509_load_detail("the private key cannot be read: %s", hs_strerror(err));
	}
	if (err == 0) {
		err = derive_public(cred);
		if (err == 0)
			err = check_pair(cred);
		load_blame = BLAME_BOTH;
		if (err != 0)
			x509_load_detail("the private key does not match the certificate"
					 " (the chain's first): %s", hs_strerror(err));
	}
	if (err) {
		hs_cred_free(cred);
		return err;
	}
	*out = cred;
	return 0;
}

int hs_read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t n = 0, cap = 0, got;
	int err = 0;

	*buf = NULL;
	*len = 0;
	load_detail[0] = 0;
	if (f == NULL) {
		int e = errno;
		x509_load_detail("%s: %s", path, strerror(e));
		errno = e;
		return HS_ERR_ARG;
	}
	do {
		if (n == cap) {
			char *nb = cap < (1u << 24) ? realloc(b, cap ? 2 * cap : 4096) : NULL;
			if (nb == NULL) {
				err = HS_ERR_NOMEM;
				break;
			}
			b = nb;
			cap = cap ? 2 * cap : 4096;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	if (err) {
		free(b);
		return err;
	}
	*buf = b;
	*len = n;
	return 0;
}

int hs_cred_load_files(struct hs_cred **out, const char *chain_path, const char *key_path)
{
	char *chain = NULL, *key = NULL;
	size_t chain_len = 0, key_len = 0;
	int err;

	load_detail[0] = 0;
	err = hs_read_file(chain_path, &chain, &chain_len);
	*out = NULL;
	if (err == 0)
		err = hs_read_file(key_path, &key, &key_len);
	if (err == 0)
		err = hs_cred_load_pem(out, chain, chain_len, key, key_len);
	if (err != 0 && chain != NULL && (key != NULL || err == HS_ERR_NOMEM)) {
		char what[sizeof(load_detail)];

		memcpy(what, load_detail, sizeof(what));
		if (load_blame == BLAME_CHAIN)
			x509_load_detail("%s: %s", chain_path, what);
		else if (load_blame == BLAME_KEY)
			x509_load_detail("%s: %s", key_path, what);
		else
			x509_load_detail("%s and %s: %s", key_path, chain_path, what);
	}
	if (key != NULL)
		wipe(key, key_len);
	free(key);
	free(chain);
	return err;
}

void hs_cred_free(struct hs_cred *cred)
{
	if (cred == NULL)
		return;
	free(cred->der);
	wipe(cred, sizeof(*cred));
	free(cred);
}

uint16_t hs_cred_sig_scheme(const struct hs_cred *cred) { return cred->scheme; }

const void *cred_sign_key(const struct hs_cred *cred)
{
	return cred->type == KEY_RSA ? (const void *)&cred->rsa : (const void *)cred->priv;
}

#ifdef HS_TEST_HOOKS
/* Test hook (the RFC 8448 trace): RSA-PSS with a given salt. */
static const struct hash *pss_hash_of(uint16_t scheme)
{
	switch (scheme) {
	case HS_SIG_RSA_PSS_RSAE_SHA256:
		return hash_sha256();
	case HS_SIG_RSA_PSS_RSAE_SHA384:
		return hash_sha384();
	case HS_SIG_RSA_PSS_RSAE_SHA512:
		return hash_sha512();
	default:
		return NULL;
	}
}

int cred_sign_salt(const struct hs_cred *cred, uint16_t scheme, const uint8_t *salt,
		      size_t salt_len, const uint8_t *msg, size_t msg_len, uint8_t *sig,
		      size_t *sig_len)
{
	const struct hash *h = pss_hash_of(scheme);
	uint8_t digest[HS_HASH_MAX_LEN];

	ENSURE(cred->type == KEY_RSA && h != NULL, HS_ERR_UNSUPPORTED);
	hash_digest(h, msg, msg_len, digest);
	return rsa_pss_sign_salt(&cred->rsa, h, digest, salt, salt_len, sig, sig_len,
				    HS_RSA_ALLOW_SMALL);
}

#endif

const uint8_t *hs_cred_leaf(const struct hs_cred *cred, size_t *len)
{
	*len = cred->cert_len[0];
	return cred->cert[0];
}
