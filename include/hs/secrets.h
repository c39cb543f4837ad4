/*
 * Traffic secrets out of a finished handshake, for the kTLS hand-off
 * (RFC 8446 7.1-7.3): the cipher suite, each direction's current
 * application traffic secret, the key and IV derived from it, and the
 * sequence number of the next record in that direction.
 *
 * The struct holds secrets: the caller owns it and must hs_secrets_wipe()
 * it as soon as the keys are installed.
 */
#ifndef HS_SECRETS_H
#define HS_SECRETS_H

#include <stddef.h>
#include <stdint.h>

#include "hs/err.h"

struct hs_conn;

#define HS_SECRET_MAX 48
#define HS_KEY_MAX 32
#define HS_IV_LEN 12

struct hs_dir_secrets {
	uint8_t secret[HS_SECRET_MAX]; /* application traffic secret (N) */
	uint8_t key[HS_KEY_MAX];
	uint8_t iv[HS_IV_LEN];
	uint64_t seq; /* sequence number of the next record */
};

struct hs_secrets {
	uint16_t suite;    /* HS_TLS_AES_128_GCM_SHA256, ... */
	size_t secret_len; /* hash length: 32 or 48 */
	size_t key_len;    /* 16 or 32 */
	size_t iv_len;     /* 12 */
	struct hs_dir_secrets client, server;
	struct hs_dir_secrets *tx, *rx; /* point into client/server: ours, peer's */
};

/*
 * Fill s after the handshake (HS_ERR_TLS_STATE before). The engine keeps
 * working; after a kTLS install the caller stops using it for records.
 */
HS_API HS_MUST_CHECK int hs_conn_secrets(const struct hs_conn *c, struct hs_secrets *s);
HS_API void hs_secrets_wipe(struct hs_secrets *s);

#endif
