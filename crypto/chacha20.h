/*
 * ChaCha20 (RFC 8439 section 2.3-2.4), internal to crypto/: the block
 * function and the keystream XOR used by the ChaCha20-Poly1305 AEAD.
 *
 * The state is the 16-word input matrix of RFC 8439 2.3: four constants,
 * eight key words, the 32-bit block counter (word 12) and three nonce
 * words. It holds the key: wipe it (wipe) when done.
 *
 * Every function here runs in time that depends only on len: no branch or
 * memory index depends on the key, the nonce, the counter or the data.
 */
#ifndef HS_CRYPTO_CHACHA20_H
#define HS_CRYPTO_CHACHA20_H

#include <stddef.h>
#include <stdint.h>

#define HS_CHACHA20_KEY_LEN 32
#define HS_CHACHA20_NONCE_LEN 12
#define HS_CHACHA20_BLOCK_LEN 64

/* Fill st with constants, key, counter and nonce (RFC 8439 2.3). */
void chacha20_init(uint32_t st[16], const uint8_t key[32], const uint8_t nonce[12],
		      uint32_t counter);

/* One 64-byte keystream block for the state st as it is (RFC 8439 2.3). */
void chacha20_block(const uint32_t st[16], uint8_t out[64]);

/*
 * out[i] = (in[i] ^ keystream[i]) & mask for i < len, the keystream
 * starting at block st[12] (st itself is not changed). mask is all-ones to
 * encrypt or decrypt, all-zero to write zeros instead (the AEAD's open uses
 * it to release plaintext only under a valid tag without a branch).
 *
 * The 32-bit counter wraps modulo 2^32: callers keep len within
 * (2^32 - st[12]) blocks (the AEAD enforces RFC 8439's P_MAX).
 * out == in is allowed; other overlaps are not.
 */
typedef void chacha20_xor_fn(const uint32_t st[16], const uint8_t *in, size_t len,
				uint8_t *out, uint32_t mask);

void chacha20_xor_portable(const uint32_t st[16], const uint8_t *in, size_t len,
			      uint8_t *out, uint32_t mask);

/* crypto/asm/ (x86-64 only): call only when cpu_has() reports the features. */
/* HS_CPU_AVX2: 8 blocks at a time. */
void chacha20_xor_avx2(const uint32_t st[16], const uint8_t *in, size_t len, uint8_t *out,
			  uint32_t mask);
/* HS_CPU_AVX512F | HS_CPU_AVX2: 32 blocks at a time, AVX2 for short tails. */
void chacha20_xor_avx512(const uint32_t st[16], const uint8_t *in, size_t len,
			    uint8_t *out, uint32_t mask);
/*
 * chacha20_xor_avx512, and the keystream block of counter st[12] - 1 (the
 * AEAD's block 0, for the MAC key) to block0, computed in scalar registers
 * alongside the first batch, where it costs less than on its own.
 */
void chacha20_xor_key_avx512(const uint32_t st[16], const uint8_t *in, size_t len,
				uint8_t *out, uint32_t mask, uint8_t block0[64]);

#endif
