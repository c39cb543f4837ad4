/*
 * libhs X.509 internals: the parsed certificate (views into its DER, no
 * copies, no allocation) and the pieces the verifier is built from.
 * Not installed; tests and the fuzz target include it directly.
 */
#ifndef HS_LIBHS_X509_CERT_H
#define HS_LIBHS_X509_CERT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/reader.h"
#include "crypto/hash.h"

/* Public key algorithms a certificate may carry (X509_KEY_OTHER: parsed, unusable). */
enum x509_key_type {
	X509_KEY_OTHER = 0,
	X509_KEY_P256,
	X509_KEY_P384,
	X509_KEY_ED25519,
	X509_KEY_RSA,
};

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

struct x509_sigalg; /* x509_sig.c: one row per signatureAlgorithm OID */

struct x509_cert {
	struct hs_reader der;      /* the whole certificate */
	struct hs_reader tbs;      /* the signed bytes (TBSCertificate TLV) */
	int version;               /* 1, 2 or 3 */
	const struct x509_sigalg *sigalg; /* NULL: algorithm not supported */
	struct hs_reader sig;      /* signature BIT STRING contents (no unused-bits byte) */
	struct hs_reader issuer;   /* Name TLVs, compared byte for byte */
	struct hs_reader subject;
	int64_t not_before, not_after; /* seconds since the epoch */
	enum x509_key_type key_type;
	struct hs_reader key;      /* EC point, Ed25519 key or DER RSAPublicKey */
	unsigned has;              /* X509_HAS_* */
	int is_ca;
	int path_len;              /* -1: no pathLenConstraint */
	unsigned key_usage;        /* X509_KU_* bits (valid with X509_HAS_KU) */
	unsigned eku;              /* X509_EKU_* bits (valid with X509_HAS_EKU) */
	struct hs_reader san;      /* GeneralNames contents */
	struct hs_reader nc_permitted, nc_excluded; /* GeneralSubtrees contents */
	struct hs_reader ski, aki; /* key identifiers (aki: keyIdentifier only) */
};

/* x509_cert.c: strict DER parse of a certificate (views into der). */
HS_MUST_CHECK int hs_x509_cert_parse(struct x509_cert *c, const uint8_t *der, size_t len);
/* RFC 5280 4.1.2.5 time (UTCTime 0x17 or GeneralizedTime 0x18) to epoch seconds. */
HS_MUST_CHECK int hs_x509_time(uint8_t tag, struct hs_reader v, int64_t *t);
/* Walk one TLV whatever its (low-form) tag; *tag gets it. */
HS_MUST_CHECK int hs_x509_tlv(struct hs_reader *r, uint8_t *tag, struct hs_reader *v);

/* x509_ext.c: the extensions block ([3] contents) into c. */
HS_MUST_CHECK int hs_x509_exts_parse(struct x509_cert *c, struct hs_reader exts);

/* x509_store.c: the i-th trust anchor (NULL past the end) */
struct hs_x509_store;
const struct x509_cert *hs_x509_store_at(const struct hs_x509_store *s, size_t i);

/* x509_sig.c */
const struct x509_sigalg *hs_x509_sigalg_find(struct hs_reader oid, struct hs_reader params);
/* Does issuer's key sign subject? 0, HS_ERR_X509_BAD_SIGNATURE or _UNSUPPORTED_ALG. */
HS_MUST_CHECK int hs_x509_check_sig(const struct x509_cert *subject,
				    const struct x509_cert *issuer);

/* x509_name.c */
/* 0 if host (DNS name or IP literal) matches a SAN entry, else HS_ERR_X509_HOSTNAME. */
HS_MUST_CHECK int hs_x509_match_host(const struct x509_cert *leaf, const char *host);
/* 0 if c's names (subject, SAN) satisfy ca's name constraints. */
HS_MUST_CHECK int hs_x509_check_nc(const struct x509_cert *ca, const struct x509_cert *c);
/* One presented dNSName against a reference name (RFC 6125 6.4). */
int hs_x509_dns_match(const uint8_t *pat, size_t pn, const char *host);

#endif
