/*
 * NIST P-384 (secp384r1): ECDSA verification (FIPS 186-5, SEC 1 4.1.4).
 * Public keys are SEC1 uncompressed points, 97 bytes: 0x04 || X || Y.
 * Raw signatures are r || s, 48 bytes each, big-endian. Verification
 * works on public data and is variable time. No signing (not needed yet:
 * the signature table's sign returns HS_ERR_UNSUPPORTED).
 */
#ifndef HS_CRYPTO_P384_H
#define HS_CRYPTO_P384_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "crypto/sig.h"

#define HS_P384_PUB_LEN 97
#define HS_P384_SIG_LEN 96      /* raw r || s */
#define HS_P384_SIG_DER_MAX 104 /* SEQUENCE of two 49-byte INTEGERs */

/* 0, or HS_ERR_BAD_POINT unless: 97 bytes, prefix 0x04, x, y < p, on the curve. */
HS_MUST_CHECK int p384_check_public(const uint8_t *pub, size_t pub_len);

/*
 * ECDSA over a message digest of any length (its leftmost 384 bits are
 * used, SEC 1 4.1.4 step 3). 0 if valid; HS_ERR_BAD_SIG (including r or s
 * outside [1, n-1]), or HS_ERR_BAD_POINT for a bad public key.
 */
HS_MUST_CHECK int ecdsa_p384_verify(const uint8_t *pub, size_t pub_len, const uint8_t *hash,
				       size_t hash_len, const uint8_t sig[96]);

/*
 * Strict DER Ecdsa-Sig-Value to raw r || s of int_len bytes each (1..66:
 * 32 for P-256, 48 for P-384, 66 for P-521). The rules
 * of ecdsa_sig_from_der (crypto/p256.h, whose 32-byte case this is; both
 * in ecdsa_der.c), for any size: minimal lengths,
 * no negative or zero-padded integers, nothing left over, and integers
 * wider than int_len bytes rejected. HS_ERR_BAD_ENCODING otherwise.
 */
HS_MUST_CHECK int ecdsa_sig_from_der_n(uint8_t *raw, size_t int_len, const uint8_t *der,
					  size_t der_len);

/* ecdsa_secp384r1_sha384: pub = 97-byte point, DER signatures; no sign. */
extern const struct sig sig_ecdsa_p384_sha384;

#endif
