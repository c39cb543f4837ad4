/*
 * Portable constant-time AES (encryption only: GCM never runs the inverse
 * cipher). Bitsliced over 64-bit words, four blocks at a time, with no
 * lookup table anywhere: the S-box is a boolean circuit. Nothing it does
 * depends on key or data values but the values themselves.
 *
 * Internal to crypto/: used by the portable GCM, by the AES-NI and VAES
 * backends for their key schedule only, and by the tests.
 */
#ifndef HS_CRYPTO_AES_CT_H
#define HS_CRYPTO_AES_CT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define HS_AES_MAX_ROUNDS 14
#define HS_AES_BLOCK_LEN 16

/*
 * Bitsliced round keys: round r is rk[8 * r .. 8 * r + 7], the round key
 * repeated in all four block slots (layout described in aes_ct.c).
 */
struct aes_ct_key {
	uint64_t rk[8 * (HS_AES_MAX_ROUNDS + 1)];
	unsigned rounds; /* 10, 12 or 14 */
};

/*
 * Expand a 16-, 24- or 32-byte key into the byte-order round keys of
 * FIPS-197 (rounds + 1 blocks of 16 bytes into rk, which holds 240 bytes).
 * Returns the number of rounds, or 0 for a bad key_len.
 */
unsigned aes_ct_expand(uint8_t rk[16 * (HS_AES_MAX_ROUNDS + 1)], const uint8_t *key,
			  size_t key_len);

/* Set up k for a 16-, 24- or 32-byte key; HS_ERR_ARG for other lengths. */
HS_MUST_CHECK int aes_ct_init(struct aes_ct_key *k, const uint8_t *key, size_t key_len);

/* Encrypt four consecutive 16-byte blocks (in == out allowed). */
void aes_ct_encrypt4(const struct aes_ct_key *k, const uint8_t in[64], uint8_t out[64]);

/*
 * SubWord of the key schedule: the S-box applied to each byte of w (so to
 * every byte lane; byte order does not matter). Exposed for the tests.
 */
uint32_t aes_ct_subword(uint32_t w);

#endif
