/*
 * HKDF (RFC 5869) and TLS 1.3's HKDF-Expand-Label and Derive-Secret
 * (RFC 8446, section 7.1).
 *
 * Implementation notes:
 * - Expand keys HMAC once with the PRK and copies that keyed state for each
 *   output block T(i) = HMAC(PRK, T(i-1) | info | i); hkdf_expand_labels
 *   shares one keyed state between several labels of one secret (a TLS 1.3
 *   secret gives key and iv, or two traffic secrets and "derived").
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

/* T(1) | T(2) | ... from a keyed HMAC state (RFC 5869, 2.3); the caller
 * checked out_len <= 255 * HashLen. */
static void expand_keyed(const struct hmac *keyed, const void *info, size_t info_len,
			 uint8_t *out, size_t out_len)
{
	struct hmac m;
	uint8_t t[HS_HASH_MAX_LEN];
	size_t hl = keyed->hash->digest_len, tlen = 0;

	for (unsigned i = 1; out_len > 0; i++) {
		uint8_t ctr = (uint8_t)i;
		size_t n = out_len < hl ? out_len : hl;

		m = *keyed;
		hmac_update(&m, t, tlen);
		hmac_update(&m, info, info_len);
		hmac_update(&m, &ctr, 1);
		hmac_final(&m, t); /* wipes m */
		tlen = hl;
		memcpy(out, t, n);
		out += n;
		out_len -= n;
	}
	wipe(t, sizeof(t));
}

int hkdf_expand(const struct hash *h, const uint8_t *prk, size_t prk_len,
		   const void *info, size_t info_len, uint8_t *out, size_t out_len)
{
	struct hmac keyed;

	/* RFC 5869, 2.3: L <= 255 * HashLen */
	if (out_len > 255 * h->digest_len)
		return HS_ERR_TOO_LONG;
	hmac_init(&keyed, h, prk, prk_len);
	expand_keyed(&keyed, info, info_len, out, out_len);
	wipe(&keyed, sizeof(keyed));
	return 0;
}

static int check_label(const struct hash *h, const struct hkdf_label *l)
{
	if (strlen(l->label) > 255 - TLS13_PREFIX_LEN || l->context_len > 255)
		return HS_ERR_ARG;
	if (l->out_len > 255 * h->digest_len)
		return HS_ERR_TOO_LONG; /* also keeps out_len within uint16 */
	return 0;
}

/* HkdfLabel of a checked label into info (room for the longest one). */
static int build_info(const struct hkdf_label *l, uint8_t *info, size_t cap, size_t *len)
{
	struct writer w = writer_init(info, cap);
	struct writer_vec v;

	write_u16(&w, (uint16_t)l->out_len);
	write_vec_open(&w, 1, &v);
	write_bytes(&w, TLS13_PREFIX, TLS13_PREFIX_LEN);
	write_bytes(&w, l->label, strlen(l->label));
	write_vec_close(&w, &v);
	write_vec_open(&w, 1, &v);
	write_bytes(&w, l->context, l->context_len);
	write_vec_close(&w, &v);
	*len = w.len;
	return writer_error(&w) ? HS_ERR_INTERNAL : 0; /* check_label makes this impossible */
}

int hkdf_expand_labels(const struct hash *h, const uint8_t *secret,
			  const struct hkdf_label *labels, size_t n)
{
	uint8_t info[2 + 1 + 255 + 1 + 255];
	struct hmac keyed;
	size_t info_len;
	int err = 0;

	for (size_t i = 0; i < n && err == 0; i++)
		err = check_label(h, &labels[i]);
	if (err)
		return err;
	hmac_init(&keyed, h, secret, h->digest_len);
	for (size_t i = 0; i < n && err == 0; i++) {
		err = build_info(&labels[i], info, sizeof(info), &info_len);
		if (err == 0)
			expand_keyed(&keyed, info, info_len, labels[i].out, labels[i].out_len);
	}
	wipe(&keyed, sizeof(keyed));
	return err;
}

int hkdf_expand_label(const struct hash *h, const uint8_t *secret, const char *label,
			 const uint8_t *context, size_t context_len, uint8_t *out,
			 size_t out_len)
{
	const struct hkdf_label l = {
		.label = label,
		.context = context,
		.context_len = context_len,
		.out = out,
		.out_len = out_len,
	};

	return hkdf_expand_labels(h, secret, &l, 1);
}

int derive_secret(const struct hash *h, const uint8_t *secret, const char *label,
		     const uint8_t *transcript_hash, uint8_t *out)
{
	return hkdf_expand_label(h, secret, label, transcript_hash, h->digest_len, out,
				    h->digest_len);
}
