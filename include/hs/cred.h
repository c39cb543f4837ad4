/*
 * Credentials: a certificate chain (leaf first) and the leaf's private key,
 * loaded from PEM. Keys: PKCS#8 "PRIVATE KEY" (P-256, Ed25519 or RSA),
 * SEC1 "EC PRIVATE KEY" (P-256) and PKCS#1 "RSA PRIVATE KEY" (RSA, 2048 to
 * 4096 bits, two primes). The key must match the leaf's public key.
 *
 * Loading parses the leaf with the full certificate parser (x509/) and
 * checks the key pair; it does not validate the chain. Path validation
 * against a trust store is hs_x509_verify() (hs/x509.h), which the TLS
 * engine runs on the peer's chain.
 */
#ifndef HS_CRED_H
#define HS_CRED_H

#include <stddef.h>
#include <stdint.h>

#include "hs/err.h"

/* Signature schemes (RFC 8446 4.2.3), what hs_cred_sig_scheme() returns. */
#define HS_SIG_ECDSA_SECP256R1_SHA256 0x0403
#define HS_SIG_ED25519 0x0807
#define HS_SIG_ECDSA_SECP384R1_SHA384 0x0503 /* verify only: hs cannot sign with P-384 */
#define HS_SIG_RSA_PSS_RSAE_SHA256 0x0804
#define HS_SIG_RSA_PSS_RSAE_SHA384 0x0805
#define HS_SIG_RSA_PSS_RSAE_SHA512 0x0806
/* RFC 8446 4.2.3: only in signature_algorithms_cert (chains), never in CertificateVerify */
#define HS_SIG_RSA_PKCS1_SHA256 0x0401
#define HS_SIG_RSA_PKCS1_SHA384 0x0501
#define HS_SIG_RSA_PKCS1_SHA512 0x0601

struct hs_cred;

HS_API HS_MUST_CHECK int hs_cred_load_pem(struct hs_cred **out, const char *chain_pem, size_t chain_len,
				   const char *key_pem, size_t key_len);
HS_API HS_MUST_CHECK int hs_cred_load_files(struct hs_cred **out, const char *chain_path,
				     const char *key_path);
/* Wipes the private key. NULL is fine. */
HS_API void hs_cred_free(struct hs_cred *cred);

/* The signature scheme the key signs with (HS_SIG_...); for RSA the preferred
 * one, rsa_pss_rsae_sha256 (a server picks per ClientHello among rsa_pss_rsae_*). */
HS_API uint16_t hs_cred_sig_scheme(const struct hs_cred *cred);
/* The leaf certificate, DER. */
HS_API const uint8_t *hs_cred_leaf(const struct hs_cred *cred, size_t *len);

/*
 * Decode the first "CERTIFICATE" PEM block of pem into der (cap bytes);
 * *der_len gets its length. For loading a trust anchor to pin.
 */
HS_API HS_MUST_CHECK int hs_pem_cert_to_der(const char *pem, size_t pem_len, uint8_t *der, size_t cap,
				     size_t *der_len);

/*
 * What the last failed loader of this thread (hs_cred_load_pem,
 * hs_cred_load_files, hs_read_file, hs_x509_store_load_file / _dir) failed
 * on, for a person: the file and why ("key.pem: No such file or
 * directory", "key.pem: the private key is encrypted ...", "key.pem and
 * cert.pem: the private key does not match the certificate ..."). NULL
 * when the last call succeeded; valid until the next loader call on this
 * thread.
 */
HS_API const char *hs_load_error_detail(void);

/* Read a whole (small) file into a malloc'd buffer; *len gets its size. */
HS_API HS_MUST_CHECK int hs_read_file(const char *path, char **buf, size_t *len);

#endif
