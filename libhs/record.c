/*
 * The record layer (RFC 8446 5): framing, size limits, AEAD protection
 * with the per-record nonce, padding and content-type recovery.
 *
 *   TLSCiphertext = type(23) || 0x0303 || length || AEAD(inner)
 *   inner         = content || content_type || zeros(pad)
 *   nonce         = iv XOR (64-bit sequence number, left-padded to 12)
 *   additional data = the 5-byte record header
 *
 * Implementation notes: records are sealed and opened in place (out ==
 * in, which the AEAD table allows). The padding scan walks from the end of
 * the plaintext; padding length is not secret in TLS 1.3 (5.4 lets it be
 * observable through timing), so an early exit is fine. Keys are derived,
 * loaded into the AEAD context and wiped from the stack at once.
 */
#include "libhs/internal.h"

#include <string.h>

#include "base/wipe.h"

int hs_rec_set_key(struct rec_key *k, const struct suite *s, const uint8_t *secret)
{
	const struct hs_hash *h = s->hash();
	uint8_t key[HS_AEAD_MAX_KEY_LEN];
	int err;

	if (k->on)
		k->aead->wipe(&k->ctx);
	k->on = 0;
	k->suite = s;
	k->aead = s->aead();
	if (k->aead == NULL)
		return HS_ERR_UNSUPPORTED;
	err = hs_ks_traffic_key(h, secret, s->key_len, key, k->iv);
	if (err == 0)
		err = k->aead->init(&k->ctx, key);
	hs_wipe(key, sizeof(key));
	if (err)
		return err;
	if (k->secret != secret)
		memcpy(k->secret, secret, h->digest_len);
	k->seq = 0;
	k->on = 1;
	return 0;
}

void hs_rec_wipe(struct rec_key *k)
{
	if (k->on)
		k->aead->wipe(&k->ctx);
	hs_wipe(k, sizeof(*k));
}

static void nonce(const struct rec_key *k, uint8_t out[HS_AEAD_NONCE_LEN])
{
	memcpy(out, k->iv, HS_AEAD_NONCE_LEN);
	for (int i = 0; i < 8; i++)
		out[HS_AEAD_NONCE_LEN - 1 - i] ^= (uint8_t)(k->seq >> (8 * i));
}

size_t hs_rec_wire_len(const struct rec_key *k, size_t n, size_t pad)
{
	return REC_HDR + n + (k->on ? 1 + pad + HS_AEAD_TAG_LEN : 0);
}

static int put_header(struct hs_writer *w, uint8_t type, uint16_t version, size_t len)
{
	hs_write_u8(w, type);
	hs_write_u16(w, version);
	return hs_write_u16(w, (uint16_t)len);
}

int hs_rec_seal(struct rec_key *k, uint8_t type, uint16_t legacy_version, const uint8_t *p,
		size_t n, size_t pad, struct hs_writer *w)
{
	uint8_t iv[HS_AEAD_NONCE_LEN];
	uint8_t *hdr, *body;
	size_t inner = n + 1 + pad;

	if (n > REC_MAX_PLAIN || (k->on && inner > REC_MAX_PLAIN + 1))
		return HS_ERR_ARG;
	if (!k->on) {
		put_header(w, type, legacy_version, n);
		return hs_write_bytes(w, p, n);
	}
	if (k->seq == UINT64_MAX)
		return HS_ERR_TLS_SEQ_EXHAUSTED;
	hdr = hs_write_reserve(w, REC_HDR + inner + HS_AEAD_TAG_LEN);
	if (hdr == NULL)
		return hs_writer_error(w);
	/* build the header in place: type 23, 0x0303, length of the ciphertext */
	struct hs_writer hw = hs_writer_init(hdr, REC_HDR);
	TRY(put_header(&hw, CT_APP, TLS12_VERSION, inner + HS_AEAD_TAG_LEN));
	body = hdr + REC_HDR;
	memmove(body, p, n);
	body[n] = type;
	memset(body + n + 1, 0, pad);
	nonce(k, iv);
	k->aead->seal(&k->ctx, iv, hdr, REC_HDR, body, inner, body);
	k->seq++;
	return 0;
}

int hs_rec_check_header(const uint8_t *hdr, int protected, size_t *body_len)
{
	struct hs_reader r = hs_reader_init(hdr, REC_HDR);
	uint8_t type;
	uint16_t version, len;

	TRY(hs_read_u8(&r, &type));
	TRY(hs_read_u16(&r, &version));
	TRY(hs_read_u16(&r, &len));
	/* legacy_record_version "MUST be ignored for all purposes" (5.1), but a
	 * major byte other than 3 means this is not TLS at all */
	ENSURE((version >> 8) == 3, HS_ERR_TLS_RECORD_HEADER);
	ENSURE(type >= CT_CCS && type <= CT_APP, HS_ERR_TLS_UNEXPECTED_RECORD);
	/* 5.1: "The length MUST NOT exceed 2^14 bytes"; 5.2: ciphertext "MUST
	 * NOT exceed 2^14 + 256 bytes" -> record_overflow */
	if (protected && type == CT_APP)
		ENSURE(len <= REC_MAX_CIPHER, HS_ERR_TLS_RECORD_OVERFLOW);
	else
		ENSURE(len <= REC_MAX_PLAIN, HS_ERR_TLS_RECORD_OVERFLOW);
	*body_len = len;
	return 0;
}

int hs_rec_open(struct rec_key *k, uint8_t *rec, size_t body_len, uint8_t *type, size_t *len)
{
	uint8_t iv[HS_AEAD_NONCE_LEN];
	uint8_t *body = rec + REC_HDR;
	size_t n;

	ENSURE(body_len >= HS_AEAD_TAG_LEN + 1, HS_ERR_TLS_BAD_RECORD_MAC);
	ENSURE(k->seq != UINT64_MAX, HS_ERR_TLS_SEQ_EXHAUSTED);
	nonce(k, iv);
	if (k->aead->open(&k->ctx, iv, rec, REC_HDR, body, body_len, body) != 0)
		return HS_ERR_TLS_BAD_RECORD_MAC;
	k->seq++;
	n = body_len - HS_AEAD_TAG_LEN;
	/* 5.2: the whole TLSInnerPlaintext MUST NOT exceed 2^14 + 1 octets */
	ENSURE(n <= REC_MAX_PLAIN + 1, HS_ERR_TLS_RECORD_OVERFLOW);
	/* 5.4: strip zero padding; the last nonzero byte is the content type */
	while (n > 0 && body[n - 1] == 0)
		n--;
	ENSURE(n > 0, HS_ERR_TLS_EMPTY_RECORD);
	*type = body[n - 1];
	n--;
	*len = n;
	return 0;
}
