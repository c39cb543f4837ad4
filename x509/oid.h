/*
 * Every OBJECT IDENTIFIER x509/ reads or writes, as DER contents (no tag or
 * length), defined once in oid.c. The sizes are part of the declarations,
 * so sizeof works and the compiler checks them against the definitions.
 */
#ifndef HS_X509_OID_H
#define HS_X509_OID_H

#include <stdint.h>

/* public keys: 1.2.840.10045.2.1 id-ecPublicKey (RFC 5480), its curves
 * 1.2.840.10045.3.1.7 prime256v1 and 1.3.132.0.34 secp384r1;
 * 1.3.101.112 id-Ed25519 (RFC 8410); 1.2.840.113549.1.1.1 rsaEncryption */
extern const uint8_t oid_ec_public_key[7];
extern const uint8_t oid_p256[8];
extern const uint8_t oid_p384[5];
extern const uint8_t oid_ed25519[3];
extern const uint8_t oid_rsa[9];

/* signatures, one row per hash (SHA2_256, SHA2_384, SHA2_512):
 * 1.2.840.10045.4.3.2/3/4 ecdsa-with-SHA256/384/512 (RFC 5758),
 * 1.2.840.113549.1.1.11/12/13 sha256/384/512WithRSAEncryption (RFC 4055);
 * Ed25519 signs with oid_ed25519 */
enum { SHA2_256, SHA2_384, SHA2_512 };
extern const uint8_t oid_ecdsa_with[3][8];
extern const uint8_t oid_rsa_with[3][9];

/* names: 2.5.4.3 id-at-commonName */
extern const uint8_t oid_common_name[3];

/* extensions: the id-ce arc 2.5.29 (RFC 5280 4.2.1) and its members */
extern const uint8_t oid_ce[2];
enum {
	OID_CE_SKI = 14,
	OID_CE_KEY_USAGE = 15,
	OID_CE_SAN = 17,
	OID_CE_BASIC_CONSTRAINTS = 19,
	OID_CE_NAME_CONSTRAINTS = 30,
	OID_CE_AKI = 35,
	OID_CE_EKU = 37,
};
extern const uint8_t oid_san[3];
/* 2.5.29.37.0 anyExtendedKeyUsage; 1.3.6.1.5.5.7.3 id-kp (serverAuth = .1,
 * clientAuth = .2) */
extern const uint8_t oid_any_eku[4];
extern const uint8_t oid_kp[7];

#endif
