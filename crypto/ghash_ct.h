/*
 * Portable constant-time GHASH (NIST SP 800-38D, section 6.4): no tables;
 * the carry-less products come from ordinary integer multiplications
 * whose carries are kept out of the way (see ghash_ct.c).
 *
 * Internal to crypto/: used by the portable AES-GCM and by the tests.
 */
#ifndef HS_CRYPTO_GHASH_CT_H
#define HS_CRYPTO_GHASH_CT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The hash key H = E_K(0^128), prepared: its big-endian halves (h[0] the
 * first 8 bytes), their XOR, and the same three bit-reversed.
 */
struct ghash_ct_key {
	uint64_t h[3];
	uint64_t hr[3];
};

void ghash_ct_init(struct ghash_ct_key *k, const uint8_t h[16]);

/*
 * Absorb len bytes into the accumulator y (y[0] holds bytes 0..7 of the
 * 16-byte value, big-endian; y[1] bytes 8..15): for each 16-byte block X,
 * y = (y ^ X) * H. A last partial block is zero-padded, so split a message
 * only at multiples of 16 bytes. Only len is observable.
 */
void ghash_ct_update(uint64_t y[2], const struct ghash_ct_key *k, const uint8_t *data,
			size_t len);

/* Write y as 16 bytes. */
void ghash_ct_store(uint8_t out[16], const uint64_t y[2]);

#endif
