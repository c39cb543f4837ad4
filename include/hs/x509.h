/*
 * X.509 trust store and certificate path validation (RFC 5280, RFC 6125).
 *
 * A trust store holds trust anchors (root certificates) loaded from PEM
 * or DER: a CA file, a directory of them, or the system bundle
 * (HS_X509_DEFAULT_BUNDLE). hs_x509_verify() builds a path from a peer's
 * chain (leaf first, the rest in any order, extra certificates allowed) to
 * one of the anchors and validates it: signatures, validity at a time,
 * basicConstraints and pathLenConstraint, keyUsage and extendedKeyUsage for
 * the purpose, name constraints, and the host name or IP address against
 * the leaf's subjectAltName (never its subject common name).
 *
 * Errors are specific (base/err.h, HS_ERR_X509_*): expired, not yet valid,
 * unknown issuer, bad signature, hostname mismatch, ... When several
 * candidate paths exist and all fail, the error of the path that got
 * furthest is returned.
 *
 * Memory: the store allocates when certificates are added, never while
 * verifying; verification allocates nothing. A store may be shared by
 * any number of connections (and threads) once loaded.
 */
#ifndef HS_X509_H
#define HS_X509_H

#include <stddef.h>
#include <stdint.h>

#include "hs/err.h"

#define HS_X509_DEFAULT_BUNDLE "/etc/ssl/certs/ca-certificates.crt"
/* Most certificates (leaf + intermediates + extras) one verify takes. */
#define HS_X509_MAX_CHAIN 10

struct hs_x509_store;

HS_API HS_MUST_CHECK int hs_x509_store_new(struct hs_x509_store **out);
HS_API void hs_x509_store_free(struct hs_x509_store *s);
/* Add one DER certificate (copied). Duplicates are ignored. */
HS_API HS_MUST_CHECK int hs_x509_store_add_der(struct hs_x509_store *s, const uint8_t *der, size_t len);
/*
 * Add every "CERTIFICATE" block of a PEM text. Certificates that do not
 * parse are skipped; *n_added (may be NULL) counts the ones accepted (new
 * or already present). Returns
 * the first parse error if none was added, else 0.
 */
HS_API HS_MUST_CHECK int hs_x509_store_add_pem(struct hs_x509_store *s, const char *pem, size_t len,
					size_t *n_added);
/* A PEM file (a bundle or a single certificate); same rules as add_pem,
 * and HS_ERR_X509_NO_ANCHORS for a missing file or one without any. */
HS_API HS_MUST_CHECK int hs_x509_store_load_file(struct hs_x509_store *s, const char *path);
/* Every regular file of a directory (e.g. /etc/ssl/certs); files without
 * certificates are skipped. HS_ERR_X509_NO_ANCHORS if nothing was added. */
HS_API HS_MUST_CHECK int hs_x509_store_load_dir(struct hs_x509_store *s, const char *dir);
/* The system bundle (HS_X509_DEFAULT_BUNDLE). */
HS_API HS_MUST_CHECK int hs_x509_store_load_default(struct hs_x509_store *s);
HS_API size_t hs_x509_store_count(const struct hs_x509_store *s);

enum hs_x509_purpose {
	HS_X509_SERVER_AUTH = 0, /* id-kp-serverAuth: a TLS server's leaf */
	HS_X509_CLIENT_AUTH = 1, /* id-kp-clientAuth: a TLS client's leaf */
};

struct hs_x509_verify_opts {
	enum hs_x509_purpose purpose;
	/* DNS name or IP literal (v4 or v6) the leaf must be valid for;
	 * NULL: no name check. */
	const char *host;
	/* Seconds since the Unix epoch; 0 = the current time. */
	int64_t time;
};

/*
 * Validate certs[0] (the leaf) with the other n - 1 certificates as
 * candidate intermediates against the anchors of s. n is 1 to
 * HS_X509_MAX_CHAIN (HS_ERR_X509_CHAIN_TOO_LONG above). 0 if valid.
 */
HS_API HS_MUST_CHECK int hs_x509_verify(const struct hs_x509_store *s, const uint8_t *const *certs,
				 const size_t *lens, size_t n,
				 const struct hs_x509_verify_opts *opts);

/* Parse one DER certificate as the verifier would; 0 or the error. */
HS_API HS_MUST_CHECK int hs_x509_check_der(const uint8_t *der, size_t len);

#endif
