/*
 * Credentials: a certificate chain (leaf first) and the leaf's private key,
 * loaded from PEM. Keys: PKCS#8 "PRIVATE KEY" (P-256, Ed25519 or RSA),
 * SEC1 "EC PRIVATE KEY" (P-256) and PKCS#1 "RSA PRIVATE KEY" (RSA, 2048 to
 * 4096 bits, two primes). The key must match the leaf's public key.
 *
 * Certificates are only parsed as far as the engine needs: the leaf's
 * SubjectPublicKeyInfo and its subjectAltName dNSNames. Full path
 * validation is a separate piece of work.
 */
#ifndef HS_CRED_H
#define HS_CRED_H

#include <stddef.h>
#include <stdint.h>

#include "hs/err.h"

struct hs_cred;

HS_MUST_CHECK int hs_cred_load_pem(struct hs_cred **out, const char *chain_pem, size_t chain_len,
				   const char *key_pem, size_t key_len);
HS_MUST_CHECK int hs_cred_load_files(struct hs_cred **out, const char *chain_path,
				     const char *key_path);
/* Wipes the private key. NULL is fine. */
void hs_cred_free(struct hs_cred *cred);

/* The signature scheme the key signs with (HS_SIG_...); for RSA the preferred
 * one, rsa_pss_rsae_sha256 (a server picks per ClientHello among rsa_pss_rsae_*). */
uint16_t hs_cred_sig_scheme(const struct hs_cred *cred);
/* The leaf certificate, DER. */
const uint8_t *hs_cred_leaf(const struct hs_cred *cred, size_t *len);

/*
 * Decode the first "CERTIFICATE" PEM block of pem into der (cap bytes);
 * *der_len gets its length. For loading a trust anchor to pin.
 */
HS_MUST_CHECK int hs_pem_cert_to_der(const char *pem, size_t pem_len, uint8_t *der, size_t cap,
				     size_t *der_len);

/* Read a whole (small) file into a malloc'd buffer; *len gets its size. */
HS_MUST_CHECK int hs_read_file(const char *path, char **buf, size_t *len);

#endif
