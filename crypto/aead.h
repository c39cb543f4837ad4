/*
 * The AEAD table (AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305), each with a
 * 12-byte nonce and a 16-byte tag. The context is caller memory of at least
 * ctx_size bytes, 64-byte aligned (struct aead_ctx is always enough).
 *
 * seal writes len bytes of ciphertext then the tag (len + 16 bytes).
 * open takes ciphertext with its tag (len >= 16), writes len - 16 bytes of
 * plaintext, and returns HS_ERR_BAD_TAG (output zeroed) on a bad tag.
 * out == in (in place) is allowed; other overlaps are not.
 */
#ifndef HS_CRYPTO_AEAD_H
#define HS_CRYPTO_AEAD_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define HS_AEAD_NONCE_LEN 12
#define HS_AEAD_TAG_LEN 16
#define HS_AEAD_MAX_KEY_LEN 32
#define HS_AEAD_CTX_MAX 2048

struct aead_ctx {
	alignas(64) uint8_t buf[HS_AEAD_CTX_MAX];
};

struct aead {
	const char *name; /* e.g. "AES-128-GCM (AES-NI)" */
	size_t key_len;
	size_t nonce_len;
	size_t tag_len;
	size_t ctx_size;
	HS_MUST_CHECK int (*init)(void *ctx, const uint8_t *key);
	void (*seal)(const void *ctx, const uint8_t *nonce, const uint8_t *ad, size_t ad_len,
		     const uint8_t *in, size_t len, uint8_t *out);
	HS_MUST_CHECK int (*open)(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
				  size_t ad_len, const uint8_t *in, size_t len, uint8_t *out);
	void (*wipe)(void *ctx);
};

/* Best implementation for this CPU (honours cpu_force_portable). */
const struct aead *aead_aes128gcm(void);
const struct aead *aead_aes256gcm(void);
const struct aead *aead_chacha20poly1305(void);

/* Named backends; the accelerated ones return NULL when the CPU lacks them. */
const struct aead *aead_aes128gcm_portable(void);
const struct aead *aead_aes256gcm_portable(void);
const struct aead *aead_aes128gcm_aesni(void);
const struct aead *aead_aes256gcm_aesni(void);
/* VAES + VPCLMULQDQ on 512-bit vectors: needs AVX-512 F/BW/VL as well. */
const struct aead *aead_aes128gcm_vaes512(void);
const struct aead *aead_aes256gcm_vaes512(void);
const struct aead *aead_chacha20poly1305_portable(void);
const struct aead *aead_chacha20poly1305_avx2(void);   /* HS_CPU_AVX2 */
const struct aead *aead_chacha20poly1305_avx512(void); /* HS_CPU_AVX512F | HS_CPU_AVX2 */
/* HS_CPU_AVX512F | HS_CPU_AVX512IFMA | HS_CPU_AVX2 */
const struct aead *aead_chacha20poly1305_avx512ifma(void);

#endif
