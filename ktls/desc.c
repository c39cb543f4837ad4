/*
 * The kTLS descriptor table: one row per TLS 1.3 cipher suite, saying how
 * its key, IV and sequence number are laid out in linux/tls.h's
 * tls12_crypto_info_* struct.
 *
 * Implementation notes:
 * - TLS 1.3 has a 12-byte per-direction IV (RFC 8446 5.3). The kernel's GCM
 *   structs split it: salt = IV[0..4) (the "implicit" part), iv = IV[4..12).
 *   ChaCha20-Poly1305 has no salt: iv is the whole 12 bytes. For TLS 1.3 the
 *   kernel rebuilds nonce = (salt || iv) XOR seq, as RFC 8446 5.3 says.
 * - rec_seq is the 64-bit sequence number of the next record, big-endian.
 * - Offsets and sizes come from offsetof/sizeof on the kernel's own structs
 *   and are checked against the suite's key length at compile time, so a new
 *   cipher is one new row.
 */
#include <stddef.h>
#include <string.h>

#include <linux/tls.h>

#include "hs/tls.h"
#include "ktls/internal.h"

#define ROW_SIZES(T, pfx)                                                                  \
	.info_size = sizeof(struct T), .key_off = offsetof(struct T, key),                 \
	.key_len = pfx##_KEY_SIZE, .iv_off = offsetof(struct T, iv),                       \
	.iv_len = pfx##_IV_SIZE, .salt_off = offsetof(struct T, salt),                     \
	.salt_len = pfx##_SALT_SIZE, .seq_off = offsetof(struct T, rec_seq),               \
	.seq_len = pfx##_REC_SEQ_SIZE

/* The whole 12-byte TLS 1.3 IV must be salt + iv, and the record sequence 8 bytes. */
_Static_assert(TLS_CIPHER_AES_GCM_128_SALT_SIZE + TLS_CIPHER_AES_GCM_128_IV_SIZE == HS_IV_LEN,
	       "AES-128-GCM: salt + iv != 12");
_Static_assert(TLS_CIPHER_AES_GCM_256_SALT_SIZE + TLS_CIPHER_AES_GCM_256_IV_SIZE == HS_IV_LEN,
	       "AES-256-GCM: salt + iv != 12");
_Static_assert(TLS_CIPHER_CHACHA20_POLY1305_SALT_SIZE + TLS_CIPHER_CHACHA20_POLY1305_IV_SIZE ==
		       HS_IV_LEN,
	       "ChaCha20-Poly1305: salt + iv != 12");
_Static_assert(TLS_CIPHER_AES_GCM_128_KEY_SIZE == 16 && TLS_CIPHER_AES_GCM_256_KEY_SIZE == 32 &&
		       TLS_CIPHER_CHACHA20_POLY1305_KEY_SIZE == 32,
	       "kernel key sizes differ from the suites' (RFC 8446 B.4)");
_Static_assert(TLS_CIPHER_AES_GCM_128_REC_SEQ_SIZE == 8 && TLS_CIPHER_AES_GCM_256_REC_SEQ_SIZE == 8 &&
		       TLS_CIPHER_CHACHA20_POLY1305_REC_SEQ_SIZE == 8,
	       "rec_seq must be the 64-bit record sequence number");
_Static_assert(TLS_CIPHER_AES_GCM_128_KEY_SIZE <= HS_KEY_MAX && TLS_CIPHER_AES_GCM_256_KEY_SIZE <= HS_KEY_MAX,
	       "key does not fit struct hs_dir_secrets");
/* The info header comes first in every struct (the kernel reads it first). */
_Static_assert(offsetof(struct tls12_crypto_info_aes_gcm_128, info) == 0 &&
		       offsetof(struct tls12_crypto_info_aes_gcm_256, info) == 0 &&
		       offsetof(struct tls12_crypto_info_chacha20_poly1305, info) == 0,
	       "crypto_info header not first");

static const struct hs_ktls_cipher rows[HS_KTLS_N_CIPHERS] = {
	[HS_KTLS_AES_128_GCM] = {
		.name = "AES-128-GCM",
		.diag_name = "aes-gcm-128",
		.suite = HS_TLS_AES_128_GCM_SHA256,
		.kernel_type = TLS_CIPHER_AES_GCM_128,
		ROW_SIZES(tls12_crypto_info_aes_gcm_128, TLS_CIPHER_AES_GCM_128),
		.secret_len = 32,
	},
	[HS_KTLS_AES_256_GCM] = {
		.name = "AES-256-GCM",
		.diag_name = "aes-gcm-256",
		.suite = HS_TLS_AES_256_GCM_SHA384,
		.kernel_type = TLS_CIPHER_AES_GCM_256,
		ROW_SIZES(tls12_crypto_info_aes_gcm_256, TLS_CIPHER_AES_GCM_256),
		.secret_len = 48,
	},
	[HS_KTLS_CHACHA20_POLY1305] = {
		.name = "ChaCha20-Poly1305",
		.diag_name = "chacha20-poly1305",
		.suite = HS_TLS_CHACHA20_POLY1305_SHA256,
		.kernel_type = TLS_CIPHER_CHACHA20_POLY1305,
		ROW_SIZES(tls12_crypto_info_chacha20_poly1305, TLS_CIPHER_CHACHA20_POLY1305),
		.secret_len = 32,
	},
};

/* The crypto/ tables of a row (internal: the public rows name no crypto type). */
const struct aead *ktls_cipher_aead(const struct hs_ktls_cipher *c)
{
	switch (c->suite) {
	case HS_TLS_AES_128_GCM_SHA256:
		return aead_aes128gcm();
	case HS_TLS_AES_256_GCM_SHA384:
		return aead_aes256gcm();
	case HS_TLS_CHACHA20_POLY1305_SHA256:
		return aead_chacha20poly1305();
	default:
		return NULL;
	}
}

const struct hash *ktls_cipher_hash(const struct hs_ktls_cipher *c)
{
	return c->secret_len == 48 ? hash_sha384() : hash_sha256();
}

const struct hs_ktls_cipher *hs_ktls_cipher_by_id(enum hs_ktls_cipher_id id)
{
	if ((unsigned)id >= HS_KTLS_N_CIPHERS)
		return NULL;
	return &rows[id];
}

const struct hs_ktls_cipher *hs_ktls_cipher_for_suite(uint16_t suite)
{
	for (size_t i = 0; i < HS_KTLS_N_CIPHERS; i++)
		if (rows[i].suite == suite)
			return &rows[i];
	return NULL;
}

int hs_ktls_crypto_info(const struct hs_ktls_cipher *c, const uint8_t *key, const uint8_t *iv,
			uint64_t seq, uint8_t *buf, size_t cap)
{
	struct tls_crypto_info hdr = { .version = TLS_1_3_VERSION, .cipher_type = c->kernel_type };

	if (cap < c->info_size)
		return HS_ERR_NO_SPACE;
	memset(buf, 0, c->info_size);
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + c->salt_off, iv, c->salt_len);
	memcpy(buf + c->iv_off, iv + c->salt_len, c->iv_len);
	memcpy(buf + c->key_off, key, c->key_len);
	for (size_t i = 0; i < c->seq_len; i++)
		buf[c->seq_off + i] = (uint8_t)(seq >> (8 * (c->seq_len - 1 - i)));
	return 0;
}
