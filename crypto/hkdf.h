/*
 * HKDF (RFC 5869) and the TLS 1.3 helpers built on it (RFC 8446 7.1):
 *   HKDF-Expand-Label(Secret, Label, Context, Length)
 *     = HKDF-Expand(Secret, HkdfLabel, Length), with label "tls13 " + Label
 *   Derive-Secret(Secret, Label, Messages)
 *     = HKDF-Expand-Label(Secret, Label, Transcript-Hash(Messages), Hash.length)
 * Derive-Secret here takes the transcript hash, not the messages.
 */
#ifndef HS_CRYPTO_HKDF_H
#define HS_CRYPTO_HKDF_H

#include "base/err.h"
#include "crypto/hash.h"

/* prk gets h->digest_len bytes. salt may be NULL with salt_len 0. */
void hkdf_extract(const struct hash *h, const void *salt, size_t salt_len,
		     const void *ikm, size_t ikm_len, uint8_t *prk);
/* HS_ERR_TOO_LONG if out_len > 255 * digest_len. out may overlap prk. */
HS_MUST_CHECK int hkdf_expand(const struct hash *h, const uint8_t *prk, size_t prk_len,
				 const void *info, size_t info_len, uint8_t *out,
				 size_t out_len);
/* label without the "tls13 " prefix; secret is digest_len bytes; context
 * may be NULL when context_len is 0. HS_ERR_ARG if "tls13 " + label is
 * over 255 bytes or context_len > 255; HS_ERR_TOO_LONG as for expand.
 * out may overlap secret. */
HS_MUST_CHECK int hkdf_expand_label(const struct hash *h, const uint8_t *secret,
				       const char *label, const uint8_t *context,
				       size_t context_len, uint8_t *out, size_t out_len);
/* One output of hkdf_expand_labels: HKDF-Expand-Label(secret, label,
 * context, out_len) into out; context may be NULL when context_len is 0. */
struct hkdf_label {
	const char *label;
	const uint8_t *context;
	size_t context_len;
	uint8_t *out;
	size_t out_len;
};
/* The n labels from one secret, byte-identical to n hkdf_expand_label calls
 * but with HMAC keyed once (each label after the first saves the two
 * compressions of keying). Every label is checked before any output is
 * written (errors as for hkdf_expand_label: then nothing is written). The
 * secret is absorbed first, so an out may overlap it; a context is read
 * when its own label is expanded, after the earlier outputs. */
HS_MUST_CHECK int hkdf_expand_labels(const struct hash *h, const uint8_t *secret,
					const struct hkdf_label *labels, size_t n);
/* out gets digest_len bytes; transcript_hash is digest_len bytes. */
HS_MUST_CHECK int derive_secret(const struct hash *h, const uint8_t *secret,
				   const char *label, const uint8_t *transcript_hash,
				   uint8_t *out);

#endif
