/*
 * Credentials: a PEM certificate chain and its private key.
 *
 *   PKCS#8 (RFC 5208/5958)  PrivateKeyInfo ::= SEQUENCE { version INTEGER,
 *       privateKeyAlgorithm AlgorithmIdentifier, privateKey OCTET STRING, ... }
 *     P-256:   privateKey holds an ECPrivateKey
 *     Ed25519: privateKey holds CurvePrivateKey ::= OCTET STRING (RFC 8410)
 *   SEC1 (RFC 5915)  ECPrivateKey ::= SEQUENCE { version 1, privateKey
 *       OCTET STRING (32), [0] parameters OPTIONAL, [1] publicKey OPTIONAL }
 *
 * The key must belong to the leaf: its public key is recomputed and
 * compared with the leaf's SubjectPublicKeyInfo.
 *
 * Implementation notes: the decoded key container is wiped after use, the
 * private key lives in struct hs_cred and is wiped by hs_cred_free(). The
 * only allocations are the credential object and the chain's DER buffer.
 */
#include "libhs/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/ed25519.h"
#include "crypto/p256.h"

#define KEY_DER_MAX 512

static const uint8_t oid_ec[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };
static const uint8_t oid_p256[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
static const uint8_t oid_ed25519[] = { 0x2b, 0x65, 0x70 };

static int read_small_int(struct hs_reader *r, uint8_t *v)
{
	struct hs_reader i;

	TRY(hs_der_read(r, DER_INTEGER, &i));
	ENSURE(i.len == 1, HS_ERR_BAD_KEY);
	return hs_read_u8(&i, v);
}

static int parse_ec_private(struct hs_reader r, struct hs_cred *cred)
{
	struct hs_reader seq, key;
	uint8_t version;

	TRY(hs_der_read(&r, DER_SEQUENCE, &seq));
	TRY(read_small_int(&seq, &version));
	ENSURE(version == 1, HS_ERR_BAD_KEY);
	TRY(hs_der_read(&seq, DER_OCTET_STRING, &key));
	ENSURE(key.len == 32, HS_ERR_BAD_KEY);
	memcpy(cred->priv, key.p, 32);
	cred->type = KEY_P256;
	cred->scheme = HS_SIG_ECDSA_SECP256R1_SHA256;
	return 0;
}

static int parse_pkcs8(struct hs_reader r, struct hs_cred *cred)
{
	struct hs_reader seq, alg, oid, key, inner;
	uint8_t version;

	TRY(hs_der_read(&r, DER_SEQUENCE, &seq));
	TRY(read_small_int(&seq, &version));
	ENSURE(version <= 1, HS_ERR_BAD_KEY);
	TRY(hs_der_read(&seq, DER_SEQUENCE, &alg));
	TRY(hs_der_read(&alg, DER_OID, &oid));
	TRY(hs_der_read(&seq, DER_OCTET_STRING, &key));
	if (hs_der_oid_is(&oid, oid_ed25519, sizeof(oid_ed25519))) {
		TRY(hs_der_read(&key, DER_OCTET_STRING, &inner));
		ENSURE(inner.len == 32, HS_ERR_BAD_KEY);
		memcpy(cred->priv, inner.p, 32);
		cred->type = KEY_ED25519;
		cred->scheme = HS_SIG_ED25519;
		return 0;
	}
	ENSURE(hs_der_oid_is(&oid, oid_ec, sizeof(oid_ec)), HS_ERR_UNSUPPORTED);
	TRY(hs_der_read(&alg, DER_OID, &oid));
	ENSURE(hs_der_oid_is(&oid, oid_p256, sizeof(oid_p256)), HS_ERR_UNSUPPORTED);
	return parse_ec_private(key, cred);
}

static int load_key(struct hs_cred *cred, const char *pem, size_t len)
{
	uint8_t der[KEY_DER_MAX];
	size_t n = 0;
	struct hs_reader text = hs_reader_init(pem, len);
	int err = hs_pem_next(&text, "PRIVATE KEY", der, sizeof(der), &n);

	if (err == 0) {
		err = parse_pkcs8(hs_reader_init(der, n), cred);
	} else {
		text = hs_reader_init(pem, len);
		err = hs_pem_next(&text, "EC PRIVATE KEY", der, sizeof(der), &n);
		if (err == 0)
			err = parse_ec_private(hs_reader_init(der, n), cred);
	}
	hs_wipe(der, sizeof(der));
	return err;
}

static int derive_public(struct hs_cred *cred)
{
	switch (cred->type) {
	case KEY_P256:
		cred->pub_len = 65;
		return hs_p256_public(cred->pub, cred->priv);
	case KEY_ED25519:
		cred->pub_len = 32;
		return hs_ed25519_public(cred->pub, cred->priv);
	default:
		return HS_ERR_UNSUPPORTED;
	}
}

static int load_chain(struct hs_cred *cred, const char *pem, size_t len)
{
	struct hs_reader text = hs_reader_init(pem, len);
	size_t used = 0, n;

	/* base64 is 4/3 the size of what it encodes: len bounds the total */
	cred->der = malloc(len);
	if (cred->der == NULL)
		return HS_ERR_NOMEM;
	while (cred->n_certs < CRED_MAX_CHAIN &&
	       hs_pem_next(&text, "CERTIFICATE", cred->der + used, len - used, &n) == 0) {
		cred->cert[cred->n_certs] = cred->der + used;
		cred->cert_len[cred->n_certs++] = n;
		used += n;
	}
	return cred->n_certs > 0 ? 0 : HS_ERR_BAD_ENCODING;
}

static int check_pair(const struct hs_cred *cred)
{
	struct leaf_key leaf;
	struct hs_reader san;

	TRY(hs_x509_parse(cred->cert[0], cred->cert_len[0], &leaf, &san));
	ENSURE(leaf.type == cred->type && leaf.pub_len == cred->pub_len &&
		       memcmp(leaf.pub, cred->pub, leaf.pub_len) == 0,
	       HS_ERR_BAD_KEY);
	return 0;
}

int hs_cred_load_pem(struct hs_cred **out, const char *chain_pem, size_t chain_len,
		     const char *key_pem, size_t key_len)
{
	struct hs_cred *cred = calloc(1, sizeof(*cred));
	int err;

	*out = NULL;
	if (cred == NULL)
		return HS_ERR_NOMEM;
	err = load_chain(cred, chain_pem, chain_len);
	if (err == 0)
		err = load_key(cred, key_pem, key_len);
	if (err == 0)
		err = derive_public(cred);
	if (err == 0)
		err = check_pair(cred);
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
	if (f == NULL)
		return HS_ERR_ARG;
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
	int err = hs_read_file(chain_path, &chain, &chain_len);

	*out = NULL;
	if (err == 0)
		err = hs_read_file(key_path, &key, &key_len);
	if (err == 0)
		err = hs_cred_load_pem(out, chain, chain_len, key, key_len);
	if (key != NULL)
		hs_wipe(key, key_len);
	free(key);
	free(chain);
	return err;
}

void hs_cred_free(struct hs_cred *cred)
{
	if (cred == NULL)
		return;
	free(cred->der);
	hs_wipe(cred, sizeof(*cred));
	free(cred);
}

uint16_t hs_cred_sig_scheme(const struct hs_cred *cred) { return cred->scheme; }

const uint8_t *hs_cred_leaf(const struct hs_cred *cred, size_t *len)
{
	*len = cred->cert_len[0];
	return cred->cert[0];
}
