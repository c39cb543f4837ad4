/*
 * x509/ internals: the parsed certificate (views into its DER, no copies,
 * no allocation), the pieces the verifier is built from, the leaf's key as
 * the TLS engine uses it, PEM and credentials. Not installed; libhs, the
 * tests and the fuzz target include it. Public API: include/hs/x509.h,
 * x509_write.h, cred.h.
 */
#ifndef HS_X509_X509_H
#define HS_X509_X509_H

#include <stddef.h>
#include <stdint.h>

#include "base/der.h"
#include "base/err.h"
#include "base/reader.h"
#include "crypto/hash.h"
#include "crypto/kx.h"
#include "crypto/rsa.h"
#include "hs/cred.h"
#include "hs/x509.h"

/*
 * The public key types hs knows, in certificates and credentials alike
 * (KEY_NONE: a certificate's key parsed but unusable, e.g. another curve).
 */
enum key_type { KEY_NONE = 0, KEY_P256, KEY_ED25519, KEY_RSA, KEY_P384 };

/* keyUsage bits (RFC 5280 4.2.1.3), bit 0 = digitalSignature */
#define X509_KU_DIGITAL_SIGNATURE (1u << 0)
#define X509_KU_KEY_CERT_SIGN (1u << 5)

/* extendedKeyUsage purposes we know (RFC 5280 4.2.1.12) */
#define X509_EKU_ANY (1u << 0)
#define X509_EKU_SERVER (1u << 1)
#define X509_EKU_CLIENT (1u << 2)

/* Which extensions were present */
#define X509_HAS_BC (1u << 0)
#define X509_HAS_KU (1u << 1)
#define X509_HAS_EKU (1u << 2)
#define X509_HAS_SAN (1u << 3)
#define X509_HAS_NC (1u << 4)
#define X509_HAS_AKI (1u << 5)
#define X509_HAS_SKI (1u << 6)

/* GeneralName tags (RFC 5280 4.2.1.6) hs looks into */
#define GN_DNS 0x82       /* dNSName, IA5String */
#define GN_IP 0x87        /* iPAddress, 4 or 16 octets (twice that in a constraint) */
#define GN_DIRECTORY 0xa4 /* directoryName, a Name */

struct x509_sigalg; /* sig.c: one row per signatureAlgorithm OID */

struct x509_cert {
	struct reader der;      /* the whole certificate */
	struct reader tbs;      /* the signed bytes (TBSCertificate TLV) */
	int version;               /* 1, 2 or 3 */
	const struct x509_sigalg *sigalg; /* NULL: algorithm not supported */
	struct reader sig;      /* signature BIT STRING contents (no unused-bits byte) */
	struct reader issuer;   /* Name TLVs, compared byte for byte */
	struct reader subject;
	int64_t not_before, not_after; /* seconds since the epoch */
	struct reader spki;     /* the SubjectPublicKeyInfo TLV */
	enum key_type key_type;
	struct reader key;      /* EC point, Ed25519 key or DER RSAPublicKey */
	unsigned has;              /* X509_HAS_* */
	int is_ca;
	int path_len;              /* -1: no pathLenConstraint */
	unsigned key_usage;        /* X509_KU_* bits (valid with X509_HAS_KU) */
	unsigned eku;              /* X509_EKU_* bits (valid with X509_HAS_EKU) */
	struct reader san;      /* GeneralNames contents */
	struct reader nc_permitted, nc_excluded; /* GeneralSubtrees contents */
	struct reader ski, aki; /* key identifiers (aki: keyIdentifier only) */
};

/* cert.c: strict DER parse of a certificate (views into der). */
HS_MUST_CHECK int x509_cert_parse(struct x509_cert *c, const uint8_t *der, size_t len);
/* RFC 5280 4.1.2.5 time (UTCTime 0x17 or GeneralizedTime 0x18) to epoch seconds. */
HS_MUST_CHECK int x509_time(uint8_t tag, struct reader v, int64_t *t);
/* One SubjectPublicKeyInfo TLV: *type (KEY_NONE if unknown) and *key, the
 * BIT STRING's contents (for a known type, after its zero unused-bits octet). */
HS_MUST_CHECK int x509_spki_parse(struct reader *r, enum key_type *type,
				     struct reader *key);

/* ext.c: the extensions block ([3] contents) into c. */
HS_MUST_CHECK int x509_exts_parse(struct x509_cert *c, struct reader exts);

/* store.c: the i-th trust anchor (NULL past the end) */
const struct x509_cert *x509_store_at(const struct hs_x509_store *s, size_t i);

/* sig.c */
const struct x509_sigalg *x509_sigalg_find(struct reader oid, struct reader params);
/* Does issuer's key sign subject? 0, HS_ERR_X509_BAD_SIGNATURE or _UNSUPPORTED_ALG. */
HS_MUST_CHECK int x509_check_sig(const struct x509_cert *subject,
				    const struct x509_cert *issuer);

/* name.c */
/*
 * 0 if host (a DNS name, or an IPv4 / IPv6 literal) matches one of the
 * leaf's subjectAltName entries (RFC 9525), else HS_ERR_X509_HOSTNAME.
 * The one host name matcher: pinned mode and path validation both use it.
 */
HS_MUST_CHECK int x509_match_host(const struct x509_cert *leaf, const char *host);
/*
 * 1 if p[0 .. n) is a DNS name in the preferred name syntax as hs takes it:
 * 1 to 253 octets of printable ASCII, dot-separated labels of 1 to 63
 * octets, so no leading, trailing or double dot. A presented dNSName must
 * be one (ext.c), and so must a reference name once its one optional
 * trailing dot is dropped (x509_match_host).
 */
int x509_dns_name_ok(const uint8_t *p, size_t n);
/* 0 if c's names (subject, SAN) satisfy ca's name constraints. */
HS_MUST_CHECK int x509_check_nc(const struct x509_cert *ca, const struct x509_cert *c);

/* verify.c: hs_x509_verify with the leaf already parsed; certs[0 .. n)
 * are the candidate intermediates (n may be 0). On failure *depth (may be
 * NULL) gets the place in the built path of the certificate that failed
 * (0: the leaf, 1: its issuer, ...), -1 when no path reached an anchor. */
HS_MUST_CHECK int x509_verify_leaf(const struct hs_x509_store *s,
				      const struct x509_cert *leaf, const uint8_t *const *certs,
				      const size_t *lens, size_t n,
				      const struct hs_x509_verify_opts *opts, int *depth);

/* ---- leaf.c: a leaf's key as the TLS engine keeps it ---- */

#define LEAF_PUB_MAX 97 /* a P-384 point; RSA keys stay in the SPKI (x509_rsa_key) */
struct leaf_key {
	enum key_type type;
	uint8_t pub[LEAF_PUB_MAX];
	size_t pub_len;
	const uint8_t *spki; /* the whole SubjectPublicKeyInfo, inside the cert */
	size_t spki_len;
};

/* The key of a parsed certificate; HS_ERR_BAD_ENCODING for a malformed point. */
HS_MUST_CHECK int x509_leaf_key(const struct x509_cert *c, struct leaf_key *k);
/*
 * The RSAPublicKey DER inside an rsaEncryption SPKI (the BIT STRING's
 * contents), as a view into spki; *bits gets the modulus size.
 */
HS_MUST_CHECK int x509_rsa_key(const uint8_t *spki, size_t spki_len, const uint8_t **key,
				  size_t *key_len, size_t *bits);

/* ---- pem.c ---- */

/* Next PEM block of label; *der_len gets the decoded size. */
HS_MUST_CHECK int pem_next(struct reader *text, const char *label, uint8_t *der,
			      size_t cap, size_t *der_len);

/* ---- cred.c: credentials as the engine sees them ---- */

#define CRED_MAX_CHAIN 10
/* an RSAPrivateKey of 4096 bits with e = 65537 is 2351 bytes of DER */
#define CRED_PRIV_MAX 2560
struct hs_cred {
	enum key_type type;
	uint16_t scheme; /* for RSA, the preferred one (the server picks per ClientHello) */
	uint8_t priv[32]; /* P-256 scalar or Ed25519 seed */
	struct rsa_private rsa; /* RSA: the key parsed once, with its Montgomery contexts */
	uint8_t pub[HS_KX_MAX_PUB];
	size_t pub_len;
	size_t n_certs;
	const uint8_t *cert[CRED_MAX_CHAIN];
	size_t cert_len[CRED_MAX_CHAIN];
	uint8_t *der; /* one buffer holding every certificate */
};

/* What the signature table's sign() takes as priv for cred's key (crypto/sig.h). */
const void *cred_sign_key(const struct hs_cred *cred);

/*
 * hs_cred_load_pem with flags; CRED_ALLOW_SMALL_RSA takes RSA keys of 1024
 * bits and up in a test build (RFC 8448's 1024-bit key); elsewhere the flag
 * changes nothing.
 */
#define CRED_ALLOW_SMALL_RSA 1u
/* cred.c: hs_load_error_detail()'s text for this thread (printf format), and clearing it */
void x509_load_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void x509_load_detail_clear(void);
HS_MUST_CHECK int cred_load_pem_flags(struct hs_cred **out, const char *chain_pem,
					 size_t chain_len, const char *key_pem, size_t key_len,
					 unsigned flags);
#ifdef HS_TEST_HOOKS
/*
 * Test hook (RFC 8448): RSA-PSS signature of msg for scheme with the given
 * salt instead of a random one (crypto/rsa_pss_salt.h), small keys allowed.
 */
HS_MUST_CHECK int cred_sign_salt(const struct hs_cred *cred, uint16_t scheme,
				    const uint8_t *salt, size_t salt_len, const uint8_t *msg,
				    size_t msg_len, uint8_t *sig, size_t *sig_len);
#endif

#endif
