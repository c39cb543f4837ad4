/* Helpers for the record tests (see record_util.h). */
#include "record_util.h"

#include <stdlib.h>
#include <string.h>

#include "crypto/hkdf.h"

size_t rec_raw(const struct rec_key *k, uint64_t seq, const uint8_t *inner, size_t n,
	       uint8_t *out)
{
	static struct aead_ctx ctx;
	uint8_t key[HS_AEAD_MAX_KEY_LEN], iv[HS_AEAD_NONCE_LEN], nonce[HS_AEAD_NONCE_LEN];
	size_t clen = n + HS_AEAD_TAG_LEN;

	if (hkdf_expand_label(k->hash, k->secret, "key", NULL, 0, key, k->key_len) != 0 ||
	    hkdf_expand_label(k->hash, k->secret, "iv", NULL, 0, iv, sizeof(iv)) != 0 ||
	    k->aead->init(&ctx, key) != 0)
		abort();
	memcpy(nonce, iv, sizeof(nonce));
	for (int i = 0; i < 8; i++)
		nonce[11 - i] ^= (uint8_t)(seq >> (8 * i));
	out[0] = REC_APP;
	out[1] = 3;
	out[2] = 3;
	out[3] = (uint8_t)(clen >> 8);
	out[4] = (uint8_t)clen;
	memcpy(out + REC_HDR, inner, n);
	k->aead->seal(&ctx, nonce, out, REC_HDR, out + REC_HDR, n, out + REC_HDR);
	k->aead->wipe(&ctx);
	return REC_HDR + clen;
}
