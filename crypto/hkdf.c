/*
 * HKDF (RFC 5869) and TLS 1.3's HKDF-Expand-Label and Derive-Secret
 * (RFC 8446, section 7.1).
 *
 * Implementation notes:
 * - Expand keys HMAC once with the PRK and copies that keyed state for each
 *   output block T(i) = HMAC(PRK, T(i-1) | info | i).
 * - The PRK is absorbed before any output is written, so out may overlap
 *   prk / secret (in-place derivation is allowed).
 * - Only lengths are observable: no branch or index depends on key bytes.
 *   The keyed states and the last T(i) are wiped.
 * - HkdfLabel is built with the bounds-checked writer:
 *     struct { uint16 length; opaque label<7..255>; opaque context<0..255>; }
 *   with label = "tls13 " + Label.
 */
#include "crypto/hkdf.h"

#include <string.h>

#include "base/wipe.h"
#include "base/writer.h"
#include "crypto/hmac.h"

#define TLS13_PREFIX "tls13 "
#define TLS13_PREFIX_LEN 6

void hkdf_extract(const struct hash *h, const void *salt, size_t salt_len,
		     const void *ikm, size_t ikm_len, uint8_t *prk)
{
	/* RFC 5869, 2.2: a missing salt is HashLen zeros, which HMAC pads to
	 * the same key as an empty one. */
	hmac(h, salt, salt_len, ikm, ikm_len, prk);
}

int hkdf_expand(const struct hash *h, const uint8_t *prk, size_t prk_len,
		   const void *info, size_t info_len, uint8_t *out, size_t out_len)
{
	struct hmac keyed, m;
	uint8_t t[HS_HASH_MAX_LEN];
	size_t hl = h->digest_len, tlen = 0;

	/* RFC 5869, 2.3: L <= 255 * HashLen */
	if (out_len > 255 * hl)
		return HS_ERR_TOO_LONG;
	hmac_init(&keyed, h, prk, prk_len);
	for (unsigned i = 1; out_len > 0; i++) {
		uint8_t ctr = (uint8_t)i;
		size_t n = out_len < hl ? out_len : hl;

		m = keyed;
		hmac_update(&m, t, tlen);
		hmac_update(&m, info, info_len);
		hmac_update(&m, &ctr, 1);
		hmac_final(&m, t);
		tlen = hl;
		memcpy(out, t, n);
		out += n;
		out_len -= n;
	}
	wipe(&keyed, sizeof(keyed));
	wipe(t, sizeof(t));
	return 0;
}

int hkdf_expand_label(const struct hash *h, const uint8_t *secret, const char *label,
			 const uint8_t *context, size_t context_len, uint8_t *out,
			 size_t out_len)
{
	uint8_t info[2 + 1 + 255 + 1 + 255];
	struct writer w = writer_init(info, sizeof(info));
	struct writer_vec v;
	size_t label_len = strlen(label);

	if (label_len > 255 - TLS13_PREFIX_LEN || context_len > 255)
		return HS_ERR_ARG;
	if (out_len > 255 * h->digest_len)
		return HS_ERR_TOO_LONG; /* also keeps out_len within uint16 */
	write_u16(&w, (uint16_t)out_len);
	write_vec_open(&w, 1, &v);
	write_bytes(&w, TLS13_PREFIX, TLS13_PREFIX_LEN);
	write_bytes(&w, label, label_len);
	write_vec_close(&w, &v);
	write_vec_open(&w, 1, &v);
	write_bytes(&w, context, context_len);
	write_vec_close(&w, &v);
	if (writer_error(&w))
		return HS_ERR_INTERNAL; /* the checks above make this impossible */
	return hkdf_expand(h, secret, h->digest_len, info, w.len, out, out_len);
}

int derive_secret(const struct hash *h, const uint8_t *secret, const char *label,
		     const uint8_t *transcript_hash, uint8_t *out)
{
	return hkdf_expand_label(h, secret, label, transcript_hash, h->digest_len, out,
				    h->digest_len);
}
