/*
 * Key-exchange table: what the protocol sees of X25519 and P-256 ECDH.
 * The protocol layer pairs each with its TLS group id.
 */
#ifndef HS_CRYPTO_KX_H
#define HS_CRYPTO_KX_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define HS_KX_MAX_PRIV 32
#define HS_KX_MAX_PUB 65
#define HS_KX_MAX_SHARED 32

struct kx {
	const char *name;
	size_t priv_len, pub_len, shared_len;
	HS_MUST_CHECK int (*keygen)(uint8_t *priv, uint8_t *pub);
	/* validates peer (length, encoding, point) and rejects zero secrets */
	HS_MUST_CHECK int (*shared)(uint8_t *out, const uint8_t *priv, const uint8_t *peer,
				    size_t peer_len);
	/*
	 * keygen, then shared with the new key (a server's step), cheaper
	 * than the two calls; NULL where there is no such shortcut
	 */
	HS_MUST_CHECK int (*keygen_shared)(uint8_t *priv, uint8_t *pub, uint8_t *out,
					   const uint8_t *peer, size_t peer_len);
};

extern const struct kx kx_x25519;
extern const struct kx kx_p256;

#endif
