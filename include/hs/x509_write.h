/*
 * Writing the little X.509 hs needs: a self-signed ECDSA P-256 certificate
 * for a host name (hs-server's default credential, generated at start), the
 * SEC1 private key that goes with it, and PEM (RFC 7468) armour.
 *
 * The certificate is X.509 v3 (RFC 5280) with subject = issuer = CN=<name>,
 * a subjectAltName holding the dNSName (and optional IPv4 and IPv6 iPAddress
 * entries: hs-server's default certificate names 127.0.0.1 and ::1), no
 * other extension, signed with ecdsa-with-SHA256. Everything is
 * deterministic for a given key and spec (RFC 6979 nonces, serial number
 * taken from the public key's SHA-256), so tests can repeat it.
 */
#ifndef HS_X509_WRITE_H
#define HS_X509_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "hs/err.h"

struct hs_cred;

struct hs_cert_spec {
	const char *dns_name;    /* subject CN and SAN dNSName: 1..64 chars */
	const uint8_t *ipv4;     /* optional SAN iPAddress (4 bytes), or NULL */
	uint64_t not_before;     /* validity, seconds since 1970-01-01 UTC */
	uint64_t not_after;      /* (years 1950..9999) */
	const uint8_t *ipv6;     /* optional SAN iPAddress (16 bytes), or NULL */
};

/* Largest DER / PEM these functions produce for a name of up to 64 chars. */
#define HS_X509_WRITE_DER_MAX 768
#define HS_X509_WRITE_PEM_MAX 1200

/*
 * DER of a self-signed certificate for spec whose key is the P-256 private
 * scalar priv; *len gets its length. HS_ERR_NO_SPACE if cap is too small.
 */
HS_API HS_MUST_CHECK int hs_x509_write_selfsigned_p256(uint8_t *der, size_t cap, size_t *len,
						const struct hs_cert_spec *spec,
						const uint8_t priv[32]);

/* SEC1 ECPrivateKey (RFC 5915) DER for priv, with curve and public key. */
HS_API HS_MUST_CHECK int hs_p256_key_to_der(uint8_t *der, size_t cap, size_t *len,
				     const uint8_t priv[32]);

/*
 * PEM armour: "-----BEGIN label-----", base64 in 64-character lines,
 * "-----END label-----", each line ending in '\n'; out is NUL-terminated
 * (*len excludes the NUL). The encoding does not branch on or index by the
 * data, so private keys may pass through.
 */
HS_API HS_MUST_CHECK int hs_pem_write(char *out, size_t cap, size_t *len, const char *label,
			       const uint8_t *der, size_t der_len);

/*
 * Generate a fresh P-256 key and a self-signed certificate for spec, load
 * them as a credential (*out, free with hs_cred_free) and copy the
 * certificate's PEM to cert_pem (cap bytes, NUL-terminated, *pem_len
 * without the NUL). The private key exists only inside the credential.
 */
HS_API HS_MUST_CHECK int hs_cred_generate_p256(struct hs_cred **out, const struct hs_cert_spec *spec,
					char *cert_pem, size_t cap, size_t *pem_len);

#endif
