/*
 * Implementation notes: the rows of "hs-bench crypto".
 *
 * Each row times one hs operation next to the same operation done by
 * OpenSSL 3 through its EVP API, on the same inputs and sizes. Rows belong
 * to families (X25519, P-256, ECDSA, Ed25519, SHA-256, HKDF, and one per
 * AEAD); a family is set up the first time one of its rows is asked for,
 * and its set-up checks both sides once before anything is timed (the two
 * agree on the shared secret, verify each other's signatures, produce the
 * same digest, HKDF output and ciphertext, open each other's records). A
 * family whose check fails has all its rows refused.
 *
 * What each side does per operation (kept alike on purpose):
 *   keygen   hs: kx->keygen (private key and public encoding);
 *            OpenSSL: EVP_PKEY_keygen on a reused context, then the public
 *            encoding (OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY), then free.
 *   shared   hs: kx->shared (validates the peer each time);
 *            OpenSSL: EVP_PKEY_derive on a context whose peer was set once
 *            (set_peer runs OpenSSL's own public-key check, not timed).
 *   sign     hs: sig->sign = SHA-256 (ECDSA only) + sign (+ DER for ECDSA);
 *            OpenSSL: EVP_DigestSign on a copy of a context initialised
 *            once (EVP_MD_CTX_copy_ex), the cheapest correct reuse.
 *   verify   the same with verify; both sides verify the same signature.
 *   RSA      2048 bits, e = 65537, PSS with SHA-256, MGF1-SHA-256 and a
 *            32-byte salt (TLS 1.3's rsa_pss_rsae_sha256); both keys are
 *            parsed once at set-up (hs: rsa_private_from_der, with its
 *            Montgomery contexts, as a credential holds it; OpenSSL: its
 *            EVP_PKEY, which caches its own). P-384: ECDSA with SHA-384, hs
 *            verifies a DER signature made by OpenSSL (hs cannot sign).
 *   SHA-256  hs: hash_digest; OpenSSL: EVP_DigestInit_ex2/Update/
 *            Final_ex on a reused context (EVP_Digest would allocate a
 *            context per call, which hs does not do either).
 *   HKDF     32 bytes of HKDF-Expand-Label(secret, "key", "") with SHA-256;
 *            OpenSSL: EVP_KDF "HKDF" in EXPAND_ONLY mode with the HkdfLabel
 *            built by hand, parameters set once, EVP_KDF_derive per op.
 *   AEAD     key schedule done once; per op a new nonce is set (as TLS does
 *            per record), 5 bytes of additional data (a TLS 1.3 record
 *            header), then the whole payload and the tag. OpenSSL reuses
 *            one EVP_CIPHER_CTX and re-inits only the IV.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "base/err.h"
#include "base/wipe.h"
#include "bench/bench.h"
#include "crypto/aead.h"
#include "crypto/ed25519.h"
#include "crypto/hash.h"
#include "crypto/hkdf.h"
#include "crypto/kx.h"
#include "crypto/p256.h"
#include "crypto/p384.h"
#include "crypto/rsa.h"
#include "crypto/sig.h"

#define MAX_LEN 16384
#define AD_LEN 5
#define MSG_LEN 32 /* the message signed by the sign/verify rows */
#define TAG HS_AEAD_TAG_LEN

/*
 * Where the bulk rows' data lives (what the hash rows read; the AEAD rows'
 * input, sealed records and output): each buffer starts --misalign bytes
 * (0 by default) past a 64-byte boundary, and hs and OpenSSL get the same
 * buffers. Placed on purpose, not left to the layout of a struct: a 64-byte
 * load or store that straddles two cache lines costs the 512-bit AEADs up
 * to a tenth of their speed, so hs's own record paths start record bodies
 * on 64-byte boundaries (uring/sendbuf.c, and the record rows here), and
 * --misalign shows what a caller who does not pays.
 */
#define ROOM(n) (((n) + 63 + 63) & ~(size_t)63) /* n bytes at any offset 0..63 */
static size_t misalign;

/* The input of every row that hashes, signs or encrypts: fixed pseudo-random bytes. */
static _Alignas(64) uint8_t input_room[ROOM(MAX_LEN)];
static uint8_t *input = input_room; /* at the offset */

/* What an operation gets: its family's state and the row's size. */
struct op_arg {
	void *st;
	size_t len;
};

/* Print why a family's check failed (and OpenSSL's error queue); returns -1. */
static int fail(const char *family, const char *what)
{
	fprintf(stderr, "hs-bench: %s: check failed: %s\n", family, what);
	ERR_print_errors_fp(stderr);
	return -1;
}

/* Deterministic filler (xorshift64): the same inputs on every run. */
static void fill(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)(x >> 32);
	}
}

/* ---- key exchange: X25519 and P-256 ECDH */

struct kx_bench {
	const struct kx *kx;
	const char *ossl_type, *group; /* OpenSSL key type; group name or NULL */
	uint8_t priv[HS_KX_MAX_PRIV];  /* hs's key for the shared rows */
	uint8_t peer[HS_KX_MAX_PUB];   /* OpenSSL's public key, hs's peer */
	size_t peer_len;
	uint8_t scratch_priv[HS_KX_MAX_PRIV], scratch_pub[HS_KX_MAX_PUB];
	uint8_t out[HS_KX_MAX_SHARED];
	EVP_PKEY_CTX *gen, *derive;
};

static int public_encoding(EVP_PKEY *k, uint8_t *out, size_t cap, size_t *len)
{
	return EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, out, cap,
					       len) > 0 ? 0 : -1;
}

/* An OpenSSL public key from its encoding. */
static EVP_PKEY *public_key(const char *type, const char *group, const uint8_t *pub, size_t len)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	EVP_PKEY *k = NULL;
	OSSL_PARAM p[3];
	int n = 0;

	if (group != NULL)
		p[n++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
							  (char *)group, 0);
	p[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)pub, len);
	p[n] = OSSL_PARAM_construct_end();
	if (c == NULL || EVP_PKEY_fromdata_init(c) <= 0 ||
	    EVP_PKEY_fromdata(c, &k, EVP_PKEY_PUBLIC_KEY, p) <= 0)
		k = NULL;
	EVP_PKEY_CTX_free(c);
	return k;
}

static int hs_keygen_op(void *arg)
{
	struct kx_bench *b = ((const struct op_arg *)arg)->st;
	return b->kx->keygen(b->scratch_priv, b->scratch_pub);
}

static int ossl_keygen_op(void *arg)
{
	struct kx_bench *b = ((const struct op_arg *)arg)->st;
	EVP_PKEY *k = NULL;
	size_t len;
	int r = EVP_PKEY_keygen(b->gen, &k) > 0 ? 0 : -1;

	if (r == 0)
		r = public_encoding(k, b->scratch_pub, sizeof(b->scratch_pub), &len);
	EVP_PKEY_free(k);
	return r;
}

static int hs_shared_op(void *arg)
{
	struct kx_bench *b = ((const struct op_arg *)arg)->st;
	return b->kx->shared(b->out, b->priv, b->peer, b->peer_len);
}

static int ossl_shared_op(void *arg)
{
	struct kx_bench *b = ((const struct op_arg *)arg)->st;
	size_t len = sizeof(b->out);
	return EVP_PKEY_derive(b->derive, b->out, &len) > 0 ? 0 : -1;
}

/* Fresh keys on both sides; each derives with the other's public key: the secrets must match. */
static int kx_setup(void *st, const char **backend)
{
	struct kx_bench *b = st;
	uint8_t pub[HS_KX_MAX_PUB], handshake_out[HS_KX_MAX_SHARED], ossl_out[HS_KX_MAX_SHARED];
	size_t out_len = sizeof(ossl_out);
	EVP_PKEY *mine = NULL, *peer = NULL;
	int r = -1;

	*backend = b->kx->name;
	b->gen = EVP_PKEY_CTX_new_from_name(NULL, b->ossl_type, NULL);
	if (b->gen == NULL || EVP_PKEY_keygen_init(b->gen) <= 0 ||
	    (b->group != NULL && EVP_PKEY_CTX_set_group_name(b->gen, b->group) <= 0))
		return fail(b->kx->name, "OpenSSL key generation set-up");
	if (b->kx->keygen(b->priv, pub) != 0)
		return fail(b->kx->name, "hs keygen");
	if (EVP_PKEY_keygen(b->gen, &mine) <= 0 ||
	    public_encoding(mine, b->peer, sizeof(b->peer), &b->peer_len) != 0) {
		r = fail(b->kx->name, "OpenSSL keygen");
		goto free_keys;
	}
	peer = public_key(b->ossl_type, b->group, pub, b->kx->pub_len);
	b->derive = EVP_PKEY_CTX_new_from_pkey(NULL, mine, NULL);
	if (peer == NULL || b->derive == NULL || EVP_PKEY_derive_init(b->derive) <= 0 ||
	    EVP_PKEY_derive_set_peer(b->derive, peer) <= 0) {
		r = fail(b->kx->name, "OpenSSL rejected hs's public key");
		goto free_keys;
	}
	if (b->kx->shared(handshake_out, b->priv, b->peer, b->peer_len) != 0) {
		r = fail(b->kx->name, "hs rejected OpenSSL's public key");
		goto free_keys;
	}
	if (EVP_PKEY_derive(b->derive, ossl_out, &out_len) <= 0 ||
	    out_len != b->kx->shared_len || memcmp(handshake_out, ossl_out, out_len) != 0) {
		r = fail(b->kx->name, "hs and OpenSSL derived different shared secrets");
		goto free_keys;
	}
	r = 0;
free_keys:
	wipe(handshake_out, sizeof(handshake_out));
	wipe(ossl_out, sizeof(ossl_out));
	EVP_PKEY_free(peer);
	EVP_PKEY_free(mine);
	return r;
}

static void kx_teardown(void *st)
{
	struct kx_bench *b = st;

	EVP_PKEY_CTX_free(b->gen);
	EVP_PKEY_CTX_free(b->derive);
	b->gen = b->derive = NULL;
	wipe(b->priv, sizeof(b->priv));
	wipe(b->scratch_priv, sizeof(b->scratch_priv));
}

/* ---- signatures: ECDSA P-256 with SHA-256, Ed25519 */

struct sig_bench {
	const struct sig *sig;
	const char *md;   /* OpenSSL digest name; NULL for Ed25519 */
	int deterministic; /* both sides must produce the same signature bytes */
	uint8_t priv[32], pub[HS_P256_PUB_LEN];
	size_t pub_len;
	uint8_t msg[MSG_LEN];
	uint8_t sig_hs[HS_SIG_MAX_LEN]; /* hs's signature of msg: what both verify rows check */
	size_t sig_hs_len;
	uint8_t out[HS_SIG_MAX_LEN];
	EVP_PKEY *key;
	EVP_MD_CTX *sign_tmpl, *verify_tmpl, *work;
};

static int hs_sign_op(void *arg)
{
	struct sig_bench *b = ((const struct op_arg *)arg)->st;
	size_t len = sizeof(b->out);
	return b->sig->sign(b->out, &len, b->priv, b->pub, b->msg, sizeof(b->msg));
}

static int ossl_sign_op(void *arg)
{
	struct sig_bench *b = ((const struct op_arg *)arg)->st;
	size_t len = sizeof(b->out);
	return EVP_MD_CTX_copy_ex(b->work, b->sign_tmpl) > 0 &&
		       EVP_DigestSign(b->work, b->out, &len, b->msg, sizeof(b->msg)) > 0
		   ? 0
		   : -1;
}

static int hs_verify_op(void *arg)
{
	struct sig_bench *b = ((const struct op_arg *)arg)->st;
	return b->sig->verify(b->pub, b->pub_len, b->msg, sizeof(b->msg), b->sig_hs,
			      b->sig_hs_len);
}

static int ossl_verify(struct sig_bench *b, const uint8_t *sig, size_t len)
{
	return EVP_MD_CTX_copy_ex(b->work, b->verify_tmpl) > 0 &&
		       EVP_DigestVerify(b->work, sig, len, b->msg, sizeof(b->msg)) == 1
		   ? 0
		   : -1;
}

static int ossl_verify_op(void *arg)
{
	struct sig_bench *b = ((const struct op_arg *)arg)->st;
	return ossl_verify(b, b->sig_hs, b->sig_hs_len);
}

/*
 * With the key pair in b (and in b->key for OpenSSL): set up OpenSSL's
 * contexts, then each side signs and the other verifies; deterministic
 * schemes must agree byte for byte; a corrupted signature must fail.
 */
static int sig_check(struct sig_bench *b)
{
	const char *name = b->sig->name;
	size_t len = sizeof(b->out);

	fill(b->msg, sizeof(b->msg), 0x5167);
	b->sign_tmpl = EVP_MD_CTX_new();
	b->verify_tmpl = EVP_MD_CTX_new();
	b->work = EVP_MD_CTX_new();
	if (b->work == NULL || b->sign_tmpl == NULL || b->verify_tmpl == NULL ||
	    EVP_DigestSignInit_ex(b->sign_tmpl, NULL, b->md, NULL, NULL, b->key, NULL) <= 0 ||
	    EVP_DigestVerifyInit_ex(b->verify_tmpl, NULL, b->md, NULL, NULL, b->key, NULL) <= 0)
		return fail(name, "OpenSSL sign/verify set-up");
	b->sig_hs_len = sizeof(b->sig_hs);
	if (b->sig->sign(b->sig_hs, &b->sig_hs_len, b->priv, b->pub, b->msg, sizeof(b->msg)) != 0)
		return fail(name, "hs sign");
	if (ossl_verify(b, b->sig_hs, b->sig_hs_len) != 0)
		return fail(name, "OpenSSL rejected hs's signature");
	if (EVP_MD_CTX_copy_ex(b->work, b->sign_tmpl) <= 0 ||
	    EVP_DigestSign(b->work, b->out, &len, b->msg, sizeof(b->msg)) <= 0)
		return fail(name, "OpenSSL sign");
	if (b->deterministic && (len != b->sig_hs_len || memcmp(b->out, b->sig_hs, len) != 0))
		return fail(name, "hs and OpenSSL made different signatures");
	if (b->sig->verify(b->pub, b->pub_len, b->msg, sizeof(b->msg), b->out, len) != 0)
		return fail(name, "hs rejected OpenSSL's signature");
	b->out[len - 1] ^= 1;
	if (b->sig->verify(b->pub, b->pub_len, b->msg, sizeof(b->msg), b->out, len) == 0)
		return fail(name, "hs accepted a corrupted signature");
	return 0;
}

/* OpenSSL makes the P-256 key pair; hs gets the scalar and the public point. */
static int ecdsa_setup(void *st, const char **backend)
{
	struct sig_bench *b = st;
	BIGNUM *d = NULL;
	int ok;

	*backend = b->sig->name;
	b->key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	ok = b->key != NULL && EVP_PKEY_get_bn_param(b->key, OSSL_PKEY_PARAM_PRIV_KEY, &d) > 0 &&
	     BN_bn2binpad(d, b->priv, sizeof(b->priv)) == (int)sizeof(b->priv) &&
	     public_encoding(b->key, b->pub, sizeof(b->pub), &b->pub_len) == 0;
	BN_clear_free(d);
	if (!ok)
		return fail(b->sig->name, "OpenSSL P-256 key generation");
	return sig_check(b);
}

/* hs makes the Ed25519 key pair; OpenSSL must derive the same public key from the seed. */
static int ed25519_setup(void *st, const char **backend)
{
	struct sig_bench *b = st;
	uint8_t pub[32];
	size_t len = sizeof(pub);

	*backend = b->sig->name;
	b->pub_len = 32;
	if (ed25519_keygen(b->priv, b->pub) != 0)
		return fail(b->sig->name, "hs keygen");
	b->key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, b->priv, 32);
	if (b->key == NULL || EVP_PKEY_get_raw_public_key(b->key, pub, &len) <= 0)
		return fail(b->sig->name, "OpenSSL key import");
	if (len != 32 || memcmp(pub, b->pub, 32) != 0)
		return fail(b->sig->name, "hs and OpenSSL derived different public keys");
	return sig_check(b);
}

static void sig_teardown(void *st)
{
	struct sig_bench *b = st;

	EVP_MD_CTX_free(b->sign_tmpl);
	EVP_MD_CTX_free(b->verify_tmpl);
	EVP_MD_CTX_free(b->work);
	EVP_PKEY_free(b->key);
	b->sign_tmpl = b->verify_tmpl = b->work = NULL;
	b->key = NULL;
	wipe(b->priv, sizeof(b->priv));
}

/* ---- RSA-2048 PSS sign/verify, ECDSA P-384 verify: keys and signatures too big for sig_bench */

#define PK_SIG_MAX HS_RSA_MAX_LEN

struct pk_bench {
	const struct sig *sig;
	const char *md;       /* OpenSSL digest name */
	int rsa;              /* 1: RSA-2048 with PSS (salt = digest length); 0: EC P-384 */
	uint8_t *priv, *pub;  /* hs's key encodings: DER RSAPrivateKey, RSAPublicKey, or the point */
	size_t priv_len, pub_len;
	struct rsa_private rsa_key; /* RSA: priv parsed, what the table's sign() takes */
	uint8_t msg[MSG_LEN];
	uint8_t sig_ref[PK_SIG_MAX]; /* the signature both verify rows check */
	size_t sig_ref_len;
	uint8_t out[PK_SIG_MAX];
	char backend[64];
	EVP_PKEY *key;
	EVP_MD_CTX *sign_tmpl, *verify_tmpl, *work;
};

static int hs_pk_sign_op(void *arg)
{
	struct pk_bench *b = ((const struct op_arg *)arg)->st;
	size_t len = sizeof(b->out);
	return b->sig->sign(b->out, &len, &b->rsa_key, b->pub, b->msg, sizeof(b->msg));
}

static int ossl_pk_sign(struct pk_bench *b, uint8_t *out, size_t *len)
{
	*len = PK_SIG_MAX;
	return EVP_MD_CTX_copy_ex(b->work, b->sign_tmpl) > 0 &&
		       EVP_DigestSign(b->work, out, len, b->msg, sizeof(b->msg)) > 0
		   ? 0
		   : -1;
}

static int ossl_pk_sign_op(void *arg)
{
	struct pk_bench *b = ((const struct op_arg *)arg)->st;
	size_t len;
	return ossl_pk_sign(b, b->out, &len);
}

static int hs_pk_verify(struct pk_bench *b, const uint8_t *sig, size_t len)
{
	return b->sig->verify(b->pub, b->pub_len, b->msg, sizeof(b->msg), sig, len);
}

static int hs_pk_verify_op(void *arg)
{
	struct pk_bench *b = ((const struct op_arg *)arg)->st;
	return hs_pk_verify(b, b->sig_ref, b->sig_ref_len);
}

static int ossl_pk_verify(struct pk_bench *b, const uint8_t *sig, size_t len)
{
	return EVP_MD_CTX_copy_ex(b->work, b->verify_tmpl) > 0 &&
		       EVP_DigestVerify(b->work, sig, len, b->msg, sizeof(b->msg)) == 1
		   ? 0
		   : -1;
}

static int ossl_pk_verify_op(void *arg)
{
	struct pk_bench *b = ((const struct op_arg *)arg)->st;
	return ossl_pk_verify(b, b->sig_ref, b->sig_ref_len);
}

/* One of the two OpenSSL contexts, with RSA-PSS padding and salt = digest length for RSA. */
static int pk_ctx_init(struct pk_bench *b, EVP_MD_CTX *m, int sign)
{
	EVP_PKEY_CTX *pc = NULL;
	int ok = sign ? EVP_DigestSignInit_ex(m, &pc, b->md, NULL, NULL, b->key, NULL)
		      : EVP_DigestVerifyInit_ex(m, &pc, b->md, NULL, NULL, b->key, NULL);

	if (ok <= 0)
		return -1;
	if (b->rsa && (EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) <= 0 ||
		       EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST) <= 0))
		return -1;
	return 0;
}

/* hs's key encodings from OpenSSL's key: PKCS #1 DER for RSA, the 97-byte point for P-384. */
static int pk_encode(struct pk_bench *b)
{
	unsigned char *p = NULL;
	int len;

	if (!b->rsa) {
		b->pub = OPENSSL_malloc(HS_P384_PUB_LEN);
		return b->pub != NULL &&
			       public_encoding(b->key, b->pub, HS_P384_PUB_LEN, &b->pub_len) == 0
			   ? 0
			   : -1;
	}
	if ((len = i2d_PublicKey(b->key, &p)) <= 0) /* RSAPublicKey */
		return -1;
	b->pub = p;
	b->pub_len = (size_t)len;
	p = NULL;
	if ((len = i2d_PrivateKey(b->key, &p)) <= 0) /* RSAPrivateKey (PKCS #1) */
		return -1;
	b->priv = p;
	b->priv_len = (size_t)len;
	return rsa_private_from_der(&b->rsa_key, b->priv, b->priv_len) == 0 ? 0 : -1;
}

/*
 * OpenSSL makes the key (RSA: 2048 bits, e = 65537; or P-384) and signs;
 * hs must accept OpenSSL's signature and refuse it corrupted. RSA: hs
 * signs too, and OpenSSL must accept hs's signature.
 */
static int pk_setup(void *st, const char **backend)
{
	struct pk_bench *b = st;
	const char *name = b->sig->name;
	size_t len;

	/* RSA: also which Montgomery row bignum.c runs (its contexts pick it at set-up) */
	snprintf(b->backend, sizeof(b->backend), "%s%s%s%s", name, b->rsa ? " (" : "",
		 b->rsa ? bn_backend_name() : "", b->rsa ? ")" : "");
	*backend = b->backend;
	fill(b->msg, sizeof(b->msg), 0x5167);
	b->key = b->rsa ? EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048)
			: EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
	if (b->key == NULL || pk_encode(b) != 0)
		return fail(name, "OpenSSL key generation");
	b->sign_tmpl = EVP_MD_CTX_new();
	b->verify_tmpl = EVP_MD_CTX_new();
	b->work = EVP_MD_CTX_new();
	if (b->work == NULL || b->sign_tmpl == NULL || b->verify_tmpl == NULL ||
	    pk_ctx_init(b, b->sign_tmpl, 1) != 0 || pk_ctx_init(b, b->verify_tmpl, 0) != 0)
		return fail(name, "OpenSSL sign/verify set-up");
	if (ossl_pk_sign(b, b->sig_ref, &b->sig_ref_len) != 0 ||
	    ossl_pk_verify(b, b->sig_ref, b->sig_ref_len) != 0)
		return fail(name, "OpenSSL sign");
	if (hs_pk_verify(b, b->sig_ref, b->sig_ref_len) != 0)
		return fail(name, "hs rejected OpenSSL's signature");
	memcpy(b->out, b->sig_ref, b->sig_ref_len);
	b->out[b->sig_ref_len - 1] ^= 1;
	if (hs_pk_verify(b, b->out, b->sig_ref_len) == 0)
		return fail(name, "hs accepted a corrupted signature");
	if (!b->rsa)
		return 0; /* hs has no P-384 signing */
	len = sizeof(b->out);
	if (b->sig->sign(b->out, &len, &b->rsa_key, b->pub, b->msg, sizeof(b->msg)) != 0)
		return fail(name, "hs sign");
	if (ossl_pk_verify(b, b->out, len) != 0 || hs_pk_verify(b, b->out, len) != 0)
		return fail(name, "hs's signature was rejected");
	return 0;
}

static void pk_teardown(void *st)
{
	struct pk_bench *b = st;

	EVP_MD_CTX_free(b->sign_tmpl);
	EVP_MD_CTX_free(b->verify_tmpl);
	EVP_MD_CTX_free(b->work);
	EVP_PKEY_free(b->key);
	OPENSSL_free(b->pub);
	OPENSSL_clear_free(b->priv, b->priv_len);
	rsa_private_wipe(&b->rsa_key);
	b->sign_tmpl = b->verify_tmpl = b->work = NULL;
	b->key = NULL;
	b->pub = b->priv = NULL;
	b->pub_len = b->priv_len = 0;
}

/* ---- SHA-256 */

struct hash_bench {
	const struct hash *h;
	EVP_MD *md;
	EVP_MD_CTX *ctx;
	uint8_t out[HS_HASH_MAX_LEN];
};

static int hs_digest_op(void *arg)
{
	const struct op_arg *a = arg;
	struct hash_bench *b = a->st;

	hash_digest(b->h, input, a->len, b->out);
	return 0;
}

static int ossl_digest(struct hash_bench *b, size_t len, uint8_t *out)
{
	unsigned n;

	return EVP_DigestInit_ex2(b->ctx, b->md, NULL) > 0 &&
		       EVP_DigestUpdate(b->ctx, input, len) > 0 &&
		       EVP_DigestFinal_ex(b->ctx, out, &n) > 0 && n == HS_SHA256_LEN
		   ? 0
		   : -1;
}

static int ossl_digest_op(void *arg)
{
	const struct op_arg *a = arg;
	struct hash_bench *b = a->st;
	return ossl_digest(b, a->len, b->out);
}

/* Both sides hash every length 0..300 and the row sizes alike. */
static int sha256_setup(void *st, const char **backend)
{
	static const size_t extra[] = { 1024, 4096, MAX_LEN - 1, MAX_LEN };
	struct hash_bench *b = st;
	uint8_t want[HS_SHA256_LEN];

	b->h = hash_sha256();
	*backend = b->h->name;
	b->md = EVP_MD_fetch(NULL, "SHA256", NULL);
	b->ctx = EVP_MD_CTX_new();
	if (b->md == NULL || b->ctx == NULL)
		return fail("SHA-256", "OpenSSL set-up");
	for (size_t i = 0; i < 300 + sizeof(extra) / sizeof(extra[0]); i++) {
		size_t len = i < 300 ? i : extra[i - 300];
		hash_digest(b->h, input, len, b->out);
		if (ossl_digest(b, len, want) != 0 || memcmp(want, b->out, sizeof(want)) != 0)
			return fail("SHA-256", "hs and OpenSSL digests differ");
	}
	return 0;
}

static void sha256_teardown(void *st)
{
	struct hash_bench *b = st;

	EVP_MD_CTX_free(b->ctx);
	EVP_MD_free(b->md);
	b->ctx = NULL;
	b->md = NULL;
}

/* ---- HKDF-Expand-Label(secret, "key", "", 32) with SHA-256 (RFC 8446 7.1) */

#define HKDF_OUT 32

struct hkdf_bench {
	const struct hash *h;
	uint8_t secret[HS_SHA256_LEN];
	uint8_t out[HKDF_OUT];
	EVP_KDF_CTX *kctx;
};

/*
 * struct { uint16 length = 32; opaque label<7..255> = "tls13 key";
 *          opaque context<0..255> = ""; } HkdfLabel;   (RFC 8446 7.1)
 */
static const uint8_t hkdf_label[] = { 0x00, HKDF_OUT, 9, 't', 'l', 's', '1', '3', ' ',
				      'k',  'e',      'y', 0 };
static const uint8_t empty_context[1];

static int hs_hkdf_op(void *arg)
{
	struct hkdf_bench *b = ((const struct op_arg *)arg)->st;
	return hkdf_expand_label(b->h, b->secret, "key", empty_context, 0, b->out, HKDF_OUT);
}

static int ossl_hkdf_op(void *arg)
{
	struct hkdf_bench *b = ((const struct op_arg *)arg)->st;
	return EVP_KDF_derive(b->kctx, b->out, HKDF_OUT, NULL) > 0 ? 0 : -1;
}

static int hkdf_setup(void *st, const char **backend)
{
	struct hkdf_bench *b = st;
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
	uint8_t want[HKDF_OUT];
	OSSL_PARAM p[] = {
		OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
		OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0),
		OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, b->secret,
						  sizeof(b->secret)),
		OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)hkdf_label,
						  sizeof(hkdf_label)),
		OSSL_PARAM_construct_end(),
	};

	b->h = hash_sha256();
	*backend = b->h->name;
	fill(b->secret, sizeof(b->secret), 0x4b4446);
	b->kctx = kdf != NULL ? EVP_KDF_CTX_new(kdf) : NULL;
	EVP_KDF_free(kdf); /* the context keeps its own reference */
	if (b->kctx == NULL || EVP_KDF_CTX_set_params(b->kctx, p) <= 0 ||
	    EVP_KDF_derive(b->kctx, want, sizeof(want), NULL) <= 0)
		return fail("HKDF", "OpenSSL HKDF");
	if (hs_hkdf_op(&(struct op_arg){ .st = b }) != 0)
		return fail("HKDF", "hs HKDF-Expand-Label");
	if (memcmp(b->out, want, sizeof(want)) != 0)
		return fail("HKDF", "hs and OpenSSL outputs differ");
	return 0;
}

static void hkdf_teardown(void *st)
{
	struct hkdf_bench *b = st;

	EVP_KDF_CTX_free(b->kctx);
	b->kctx = NULL;
	wipe(b->secret, sizeof(b->secret));
}

/* ---- AEAD: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305 */

static const size_t aead_lens[] = { 1024, MAX_LEN }; /* the sizes of the rows */
#define N_AEAD_LENS (sizeof(aead_lens) / sizeof(aead_lens[0]))

struct aead_bench {
	const struct aead *(*get)(void);
	const char *cipher; /* OpenSSL's name */
	const struct aead *a;
	struct aead_ctx ctx;
	uint8_t key[HS_AEAD_MAX_KEY_LEN], nonce[HS_AEAD_NONCE_LEN], ad[AD_LEN];
	/* sealed input per size (what open rows open) and the output, each at the offset */
	_Alignas(64) uint8_t ct_room[N_AEAD_LENS][ROOM(MAX_LEN + TAG)];
	_Alignas(64) uint8_t out_room[ROOM(MAX_LEN + TAG)];
	uint8_t *out;
	EVP_CIPHER *evp;
	EVP_CIPHER_CTX *enc, *dec;
};

static uint8_t *sealed(struct aead_bench *b, size_t len)
{
	size_t i = 0;

	while (i + 1 < N_AEAD_LENS && aead_lens[i] != len)
		i++;
	return b->ct_room[i] + misalign;
}

static int ossl_seal(struct aead_bench *b, size_t len, uint8_t *out)
{
	int n, m;

	if (EVP_EncryptInit_ex(b->enc, NULL, NULL, NULL, b->nonce) <= 0 ||
	    EVP_EncryptUpdate(b->enc, NULL, &n, b->ad, AD_LEN) <= 0 ||
	    EVP_EncryptUpdate(b->enc, out, &n, input, (int)len) <= 0 ||
	    EVP_EncryptFinal_ex(b->enc, out + n, &m) <= 0 ||
	    EVP_CIPHER_CTX_ctrl(b->enc, EVP_CTRL_AEAD_GET_TAG, TAG, out + len) <= 0)
		return -1;
	return 0;
}

/* in: len bytes of ciphertext, then the tag. */
static int ossl_open(struct aead_bench *b, uint8_t *in, size_t len, uint8_t *out)
{
	int n, m;

	if (EVP_DecryptInit_ex(b->dec, NULL, NULL, NULL, b->nonce) <= 0 ||
	    EVP_DecryptUpdate(b->dec, NULL, &n, b->ad, AD_LEN) <= 0 ||
	    EVP_DecryptUpdate(b->dec, out, &n, in, (int)len) <= 0 ||
	    EVP_CIPHER_CTX_ctrl(b->dec, EVP_CTRL_AEAD_SET_TAG, TAG, in + len) <= 0 ||
	    EVP_DecryptFinal_ex(b->dec, out + n, &m) <= 0)
		return -1;
	return 0;
}

static int hs_seal_op(void *arg)
{
	const struct op_arg *a = arg;
	struct aead_bench *b = a->st;

	b->a->seal(&b->ctx, b->nonce, b->ad, AD_LEN, input, a->len, b->out);
	return 0;
}

static int ossl_seal_op(void *arg)
{
	const struct op_arg *a = arg;
	struct aead_bench *b = a->st;
	return ossl_seal(b, a->len, b->out);
}

static int hs_open_op(void *arg)
{
	const struct op_arg *a = arg;
	struct aead_bench *b = a->st;
	return b->a->open(&b->ctx, b->nonce, b->ad, AD_LEN, sealed(b, a->len), a->len + TAG,
			  b->out);
}

static int ossl_open_op(void *arg)
{
	const struct op_arg *a = arg;
	struct aead_bench *b = a->st;
	return ossl_open(b, sealed(b, a->len), a->len, b->out);
}

/* For one size: same ciphertext and tag on both sides, each opens the other's, a bad tag fails. */
static int aead_check_len(struct aead_bench *b, size_t len)
{
	uint8_t *ct = sealed(b, len);

	b->a->seal(&b->ctx, b->nonce, b->ad, AD_LEN, input, len, ct);
	if (ossl_seal(b, len, b->out) != 0)
		return fail(b->cipher, "OpenSSL seal");
	if (memcmp(ct, b->out, len + TAG) != 0)
		return fail(b->cipher, "hs and OpenSSL ciphertexts differ");
	if (b->a->open(&b->ctx, b->nonce, b->ad, AD_LEN, b->out, len + TAG, b->out) != 0 ||
	    memcmp(b->out, input, len) != 0)
		return fail(b->cipher, "hs could not open OpenSSL's record");
	if (ossl_open(b, ct, len, b->out) != 0 || memcmp(b->out, input, len) != 0)
		return fail(b->cipher, "OpenSSL could not open hs's record");
	memcpy(b->out, ct, len + TAG);
	b->out[len + TAG - 1] ^= 0x80;
	if (b->a->open(&b->ctx, b->nonce, b->ad, AD_LEN, b->out, len + TAG, b->out) !=
	    HS_ERR_BAD_TAG)
		return fail(b->cipher, "hs accepted a bad tag");
	return 0;
}

static int aead_setup(void *st, const char **backend)
{
	struct aead_bench *b = st;

	b->a = b->get();
	if (b->a == NULL)
		return fail(b->cipher, "hs has no implementation");
	*backend = b->a->name;
	b->out = b->out_room + misalign;
	fill(b->key, sizeof(b->key), 0x6b6579);
	fill(b->nonce, sizeof(b->nonce), 0x6976);
	fill(b->ad, sizeof(b->ad), 0x6164);
	if (b->a->ctx_size > sizeof(b->ctx) || b->a->init(&b->ctx, b->key) != 0)
		return fail(b->cipher, "hs key set-up");
	b->evp = EVP_CIPHER_fetch(NULL, b->cipher, NULL);
	b->enc = EVP_CIPHER_CTX_new();
	b->dec = EVP_CIPHER_CTX_new();
	if (b->evp == NULL || b->enc == NULL || b->dec == NULL ||
	    (size_t)EVP_CIPHER_get_key_length(b->evp) != b->a->key_len ||
	    EVP_EncryptInit_ex(b->enc, b->evp, NULL, b->key, b->nonce) <= 0 ||
	    EVP_DecryptInit_ex(b->dec, b->evp, NULL, b->key, b->nonce) <= 0)
		return fail(b->cipher, "OpenSSL key set-up");
	for (size_t i = 0; i < N_AEAD_LENS; i++)
		if (aead_check_len(b, aead_lens[i]) != 0)
			return -1;
	return 0;
}

static void aead_teardown(void *st)
{
	struct aead_bench *b = st;

	if (b->a != NULL)
		b->a->wipe(&b->ctx);
	EVP_CIPHER_CTX_free(b->enc);
	EVP_CIPHER_CTX_free(b->dec);
	EVP_CIPHER_free(b->evp);
	b->enc = b->dec = NULL;
	b->evp = NULL;
	wipe(b->key, sizeof(b->key));
}

/* ---- the families and the rows */

static struct kx_bench x25519_b = { .kx = &kx_x25519, .ossl_type = "X25519" };
static struct kx_bench p256_b = { .kx = &kx_p256, .ossl_type = "EC", .group = "P-256" };
static struct sig_bench ecdsa_b = { .sig = &sig_ecdsa_p256_sha256, .md = "SHA256" };
static struct sig_bench ed25519_b = { .sig = &sig_ed25519, .deterministic = 1 };
static struct pk_bench rsa_b = { .sig = &sig_rsa_pss_rsae_sha256, .md = "SHA256", .rsa = 1 };
static struct pk_bench p384_b = { .sig = &sig_ecdsa_p384_sha384, .md = "SHA384" };
static struct hash_bench sha256_b;
static struct hkdf_bench hkdf_b;
static struct aead_bench aes128_b = { .get = aead_aes128gcm, .cipher = "AES-128-GCM" };
static struct aead_bench aes256_b = { .get = aead_aes256gcm, .cipher = "AES-256-GCM" };
static struct aead_bench chacha_b = { .get = aead_chacha20poly1305,
				      .cipher = "ChaCha20-Poly1305" };

enum fam {
	F_X25519, F_P256, F_ECDSA, F_ED25519, F_RSA, F_P384, F_SHA256, F_HKDF, F_AES128, F_AES256,
	F_CHACHA
};

struct family {
	int (*setup)(void *st, const char **backend); /* 0, or -1 if a check failed */
	void (*teardown)(void *st);
	void *st;
	int state; /* 0 not set up, 1 ready, -1 check failed */
	const char *backend;
};

#define FAMILY(SETUP, TEARDOWN, ST) { .setup = SETUP, .teardown = TEARDOWN, .st = ST }

static struct family families[] = {
	[F_X25519] = FAMILY(kx_setup, kx_teardown, &x25519_b),
	[F_P256] = FAMILY(kx_setup, kx_teardown, &p256_b),
	[F_ECDSA] = FAMILY(ecdsa_setup, sig_teardown, &ecdsa_b),
	[F_ED25519] = FAMILY(ed25519_setup, sig_teardown, &ed25519_b),
	[F_RSA] = FAMILY(pk_setup, pk_teardown, &rsa_b),
	[F_P384] = FAMILY(pk_setup, pk_teardown, &p384_b),
	[F_SHA256] = FAMILY(sha256_setup, sha256_teardown, &sha256_b),
	[F_HKDF] = FAMILY(hkdf_setup, hkdf_teardown, &hkdf_b),
	[F_AES128] = FAMILY(aead_setup, aead_teardown, &aes128_b),
	[F_AES256] = FAMILY(aead_setup, aead_teardown, &aes256_b),
	[F_CHACHA] = FAMILY(aead_setup, aead_teardown, &chacha_b),
};

struct crypto_row {
	const char *name; /* scripts match these names: do not change them */
	enum fam fam;
	size_t bytes; /* > 0: a MB/s row processing this many bytes per op */
	bench_op hs, ossl;
};

#define ROW(NAME, FAM, BYTES, HS, OSSL) \
	{ .name = NAME, .fam = FAM, .bytes = BYTES, .hs = HS, .ossl = OSSL }
#define AEAD_ROWS(NAME, FAM)                                             \
	ROW(NAME " seal 1 KiB", FAM, 1024, hs_seal_op, ossl_seal_op),     \
	ROW(NAME " open 1 KiB", FAM, 1024, hs_open_op, ossl_open_op),     \
	ROW(NAME " seal 16 KiB", FAM, MAX_LEN, hs_seal_op, ossl_seal_op), \
	ROW(NAME " open 16 KiB", FAM, MAX_LEN, hs_open_op, ossl_open_op)

static const struct crypto_row rows[] = {
	ROW("X25519 keygen", F_X25519, 0, hs_keygen_op, ossl_keygen_op),
	ROW("X25519 shared secret", F_X25519, 0, hs_shared_op, ossl_shared_op),
	ROW("P-256 keygen", F_P256, 0, hs_keygen_op, ossl_keygen_op),
	ROW("P-256 ECDH shared secret", F_P256, 0, hs_shared_op, ossl_shared_op),
	ROW("ECDSA P-256 sign", F_ECDSA, 0, hs_sign_op, ossl_sign_op),
	ROW("ECDSA P-256 verify", F_ECDSA, 0, hs_verify_op, ossl_verify_op),
	ROW("Ed25519 sign", F_ED25519, 0, hs_sign_op, ossl_sign_op),
	ROW("Ed25519 verify", F_ED25519, 0, hs_verify_op, ossl_verify_op),
	ROW("RSA-2048 sign (PSS)", F_RSA, 0, hs_pk_sign_op, ossl_pk_sign_op),
	ROW("RSA-2048 verify (PSS)", F_RSA, 0, hs_pk_verify_op, ossl_pk_verify_op),
	ROW("ECDSA P-384 verify", F_P384, 0, hs_pk_verify_op, ossl_pk_verify_op),
	ROW("SHA-256 64 B", F_SHA256, 64, hs_digest_op, ossl_digest_op),
	ROW("SHA-256 16 KiB", F_SHA256, MAX_LEN, hs_digest_op, ossl_digest_op),
	ROW("HKDF-Expand-Label", F_HKDF, 0, hs_hkdf_op, ossl_hkdf_op),
	AEAD_ROWS("AES-128-GCM", F_AES128),
	AEAD_ROWS("AES-256-GCM", F_AES256),
	AEAD_ROWS("ChaCha20-Poly1305", F_CHACHA),
};

/* Set up the row's family if needed, time it, print it. 0, or -1 if refused. */
static int run_row(const struct bench_opts *o, const struct crypto_row *row)
{
	struct family *f = &families[row->fam];
	struct op_arg arg = { f->st, row->bytes };
	struct bench_side hs = { row->hs, &arg }, ref = { row->ossl, &arg };
	struct bench_row out = { .name = row->name, .unit = row->bytes ? "MB/s" : "ops/s",
				 .bytes = row->bytes };

	if (f->state == 0)
		f->state = f->setup(f->st, &f->backend) == 0 ? 1 : -1;
	if (f->state < 0) {
		fprintf(stderr, "hs-bench: row \"%s\" refused: its check failed\n", row->name);
		return -1;
	}
	if (bench_pair(o, &hs, &ref, &out.hs, &out.ref) != 0) {
		fprintf(stderr, "hs-bench: row \"%s\" refused: an operation failed while timing\n",
			row->name);
		ERR_print_errors_fp(stderr);
		return -1;
	}
	out.backend = f->backend;
	bench_emit(o, &out);
	return 0;
}

int bench_crypto(const struct bench_opts *o)
{
	int status = 0, matched = 0;

	misalign = o->misalign;
	input = input_room + misalign;
	fill(input, MAX_LEN, 0x696e707574);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (!bench_match(o, rows[i].name))
			continue;
		matched = 1;
		if (run_row(o, &rows[i]) != 0)
			status = 1;
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		if (families[i].state != 0)
			families[i].teardown(families[i].st);
		families[i].state = 0;
	}
	if (!matched) {
		fprintf(stderr, "hs-bench: no crypto row matches \"%s\"\n", o->filter);
		return 1;
	}
	return status;
}
