/*
 * The TLS 1.3 record protection layer (see record.h): keys from traffic
 * secrets, the per-record nonce, seal, open in place, padding, limits.
 *
 * Implementation notes:
 * - The padding scan walks from the end of the plaintext; padding length is
 *   not secret in TLS 1.3 (5.4 lets it be observable through timing), so an
 *   early exit is fine. Only public lengths and the content type decide a
 *   branch after decryption.
 * - Raw keys are derived into stack buffers, loaded into the AEAD context
 *   and wiped at once; the secret and IV stay in the key (the secret is
 *   needed for the next KeyUpdate and for a kTLS hand-off).
 * - The sequence number UINT64_MAX is never used, sending or receiving:
 *   5.3 "sequence numbers MUST NOT wrap", so the last one is refused before
 *   it could be.
 */
#include "record/record.h"

#include <string.h>

#include "base/bytes.h"
#include "base/wipe.h"
#include "crypto/hkdf.h"

static void *ctx(const struct rec_key *k) { return k->ctx; }

void rec_key_init(struct rec_key *k, void *ctx_mem, size_t cap)
{
	memset(k, 0, sizeof(*k));
	k->ctx = ctx_mem;
	k->ctx_cap = ctx_mem != NULL ? cap : 0;
}

struct rec_key *rec_key_mem_init(struct rec_key_mem *m)
{
	rec_key_init(&m->key, m->ctx, sizeof(m->ctx));
	return &m->key;
}

int rec_traffic_key(const struct hash *h, const uint8_t *secret, size_t key_len,
		       uint8_t *key, uint8_t *iv)
{
	const struct hkdf_label l[] = {
		{ .label = "key", .out = key, .out_len = key_len },
		{ .label = "iv", .out = iv, .out_len = HS_AEAD_NONCE_LEN },
	};

	return hkdf_expand_labels(h, secret, l, 2); /* HMAC keyed once for both */
}

int rec_next_secret(const struct hash *h, uint8_t *secret)
{
	uint8_t next[REC_SECRET_MAX];
	int err = hkdf_expand_label(h, secret, "traffic upd", NULL, 0, next, h->digest_len);

	if (err == 0)
		memcpy(secret, next, h->digest_len);
	wipe(next, sizeof(next));
	return err;
}

static void unkey(struct rec_key *k)
{
	if (k->on)
		k->aead->wipe(ctx(k));
	k->on = 0;
}

int rec_key_load(struct rec_key *k, const struct aead *aead, const struct hash *h,
		    size_t key_len, const uint8_t *secret, const uint8_t *key, const uint8_t *iv,
		    uint64_t seq)
{
	if (h == NULL || h->digest_len > REC_SECRET_MAX || key_len > HS_AEAD_MAX_KEY_LEN ||
	    (aead != NULL && (aead->key_len != key_len || aead->ctx_size > k->ctx_cap)))
		return HS_ERR_ARG;
	unkey(k);
	k->aead = aead;
	k->hash = h;
	k->key_len = key_len;
	if (k->secret != secret)
		memmove(k->secret, secret, h->digest_len);
	if (k->iv != iv)
		memmove(k->iv, iv, HS_AEAD_NONCE_LEN);
	k->seq = seq;
	if (aead == NULL)
		return 0;
	int err = aead->init(ctx(k), key);
	if (err)
		return err;
	k->on = 1;
	return 0;
}

int rec_key_set(struct rec_key *k, const struct aead *aead, const struct hash *h,
		   size_t key_len, const uint8_t *secret)
{
	uint8_t key[HS_AEAD_MAX_KEY_LEN], iv[HS_AEAD_NONCE_LEN];
	int err = aead == NULL ? HS_ERR_UNSUPPORTED : HS_ERR_ARG;

	if (aead != NULL && h != NULL && key_len <= sizeof(key))
		err = rec_traffic_key(h, secret, key_len, key, iv);
	if (err == 0)
		err = rec_key_load(k, aead, h, key_len, secret, key, iv, 0);
	wipe(key, sizeof(key));
	return err;
}

int rec_key_next(struct rec_key *k, uint8_t *key_out)
{
	uint8_t key[HS_AEAD_MAX_KEY_LEN], iv[HS_AEAD_NONCE_LEN];
	int err = k->hash == NULL ? HS_ERR_ARG : rec_next_secret(k->hash, k->secret);

	if (err == 0)
		err = rec_traffic_key(k->hash, k->secret, k->key_len, key, iv);
	if (err == 0)
		err = rec_key_load(k, k->on ? k->aead : NULL, k->hash, k->key_len, k->secret,
				      key, iv, 0);
	if (err == 0 && key_out != NULL)
		memcpy(key_out, key, k->key_len);
	wipe(key, sizeof(key));
	return err;
}

void rec_key_wipe(struct rec_key *k)
{
	void *mem = k->ctx;
	size_t cap = k->ctx_cap;

	unkey(k);
	if (mem != NULL)
		wipe(mem, cap);
	wipe(k, sizeof(*k));
	k->ctx = mem; /* the memory stays the owner's */
	k->ctx_cap = cap;
}

void rec_nonce(const uint8_t iv[HS_AEAD_NONCE_LEN], uint64_t seq,
		  uint8_t out[HS_AEAD_NONCE_LEN])
{
	/*
	 * The sequence number, big-endian, XORed into the IV's last 8 bytes.
	 * Written as one 4-byte and one 8-byte store, the loads the AES-GCM
	 * backends read the nonce with: each then takes its bytes straight
	 * from the store buffer.
	 */
	uint8_t be[8];
	uint64_t tail, s;
	uint32_t head;

	store_be64(be, seq);
	memcpy(&s, be, 8);
	memcpy(&head, iv, 4);
	memcpy(&tail, iv + 4, 8);
	tail ^= s;
	memcpy(out, &head, 4);
	memcpy(out + 4, &tail, 8);
}

size_t rec_wire_len(const struct rec_key *k, size_t n, size_t pad)
{
	return REC_HDR + n + (k->on ? 1 + pad + HS_AEAD_TAG_LEN : 0);
}

/* hdr: the REC_HDR bytes write_reserve gave (stores, no calls: every record pays this) */
static void put_header(uint8_t *hdr, uint8_t type, uint16_t version, size_t len)
{
	hdr[0] = type;
	store_be16(hdr + 1, version);
	store_be16(hdr + 3, (uint16_t)len); /* len <= 2^14 + 256 */
}

int rec_seal(struct rec_key *k, uint8_t type, uint16_t legacy_version, const uint8_t *p,
		size_t n, size_t pad, struct writer *w)
{
	uint8_t iv[HS_AEAD_NONCE_LEN];
	size_t inner = n + 1 + pad;
	uint8_t *hdr, *body;

	/* 5.1: "The length MUST NOT exceed 2^14 bytes"; 5.2: the inner
	 * plaintext MUST NOT exceed 2^14 + 1 */
	if (n > REC_MAX_PLAIN || (k->on && (pad > REC_MAX_INNER || inner > REC_MAX_INNER)))
		return HS_ERR_ARG;
	/* 5.3: "sequence numbers MUST NOT wrap" */
	if (k->on && k->seq == UINT64_MAX)
		return HS_ERR_TLS_SEQ_EXHAUSTED;
	hdr = write_reserve(w, rec_wire_len(k, n, pad));
	if (hdr == NULL)
		return writer_error(w);
	body = hdr + REC_HDR;
	if (body != p)
		memmove(body, p, n);
	if (!k->on) {
		put_header(hdr, type, legacy_version, n);
		return 0;
	}
	/* 5.2: outer type application_data, legacy_record_version 0x0303 */
	put_header(hdr, REC_APP, REC_LEGACY_VERSION, inner + HS_AEAD_TAG_LEN);
	body[n] = type;
	if (pad > 0)
		memset(body + n + 1, 0, pad);
	rec_nonce(k->iv, k->seq, iv);
	k->aead->seal(ctx(k), iv, hdr, REC_HDR, body, inner, body);
	k->seq++;
	return 0;
}

int rec_check_header(const uint8_t *hdr, int protected, size_t *body_len)
{
	uint8_t type = hdr[0];
	size_t len = ((size_t)hdr[3] << 8) | hdr[4];

	/* legacy_record_version "MUST be ignored for all purposes" (5.1), but a
	 * major byte other than 3 means this is not TLS at all */
	if (hdr[1] != 3)
		return HS_ERR_TLS_RECORD_HEADER;
	if (type < REC_CCS || type > REC_APP)
		return HS_ERR_TLS_UNEXPECTED_RECORD;
	/* 5.1: "The length MUST NOT exceed 2^14 bytes"; 5.2: ciphertext "MUST
	 * NOT exceed 2^14 + 256 bytes" -> record_overflow */
	if (len > (protected && type == REC_APP ? REC_MAX_CIPHER : REC_MAX_PLAIN))
		return HS_ERR_TLS_RECORD_OVERFLOW;
	*body_len = len;
	return 0;
}

/* The inner plaintext pt[0 .. n) once decrypted: limits, padding, type. */
static int inner(const uint8_t *pt, size_t n, uint8_t *type, size_t *len)
{
	/* 5.2: the whole TLSInnerPlaintext MUST NOT exceed 2^14 + 1 octets */
	if (n > REC_MAX_INNER)
		return HS_ERR_TLS_RECORD_OVERFLOW;
	/* 5.4: strip zero padding; the last nonzero byte is the content type.
	 * "If a receiving implementation does not find a non-zero octet in the
	 * cleartext, it MUST terminate the connection with an
	 * unexpected_message alert." */
	while (n > 0 && pt[n - 1] == 0)
		n--;
	if (n == 0)
		return HS_ERR_TLS_EMPTY_RECORD;
	*type = pt[n - 1];
	*len = n - 1;
	/* 5.1: no zero-length fragments of handshake (or alert) content; 5.4:
	 * only application data may be empty */
	if (*len == 0 && *type != REC_APP)
		return HS_ERR_TLS_EMPTY_RECORD;
	return 0;
}

/* Decrypt rec's body into out (in place when out is the body). */
static int open_into(struct rec_key *k, const uint8_t *rec, size_t body_len, uint8_t *out)
{
	uint8_t iv[HS_AEAD_NONCE_LEN];

	if (!k->on || body_len < HS_AEAD_TAG_LEN + 1)
		return k->on ? HS_ERR_TLS_BAD_RECORD_MAC : HS_ERR_INTERNAL;
	if (k->seq == UINT64_MAX)
		return HS_ERR_TLS_SEQ_EXHAUSTED;
	rec_nonce(k->iv, k->seq, iv);
	if (k->aead->open(ctx(k), iv, rec, REC_HDR, rec + REC_HDR, body_len, out) != 0)
		return HS_ERR_TLS_BAD_RECORD_MAC;
	k->seq++;
	return 0;
}

int rec_open(struct rec_key *k, uint8_t *rec, size_t body_len, uint8_t *type, size_t *len)
{
	int err = open_into(k, rec, body_len, rec + REC_HDR);

	return err ? err : inner(rec + REC_HDR, body_len - HS_AEAD_TAG_LEN, type, len);
}

int rec_open_to(struct rec_key *k, const uint8_t *rec, size_t body_len, uint8_t *out,
		size_t cap, uint8_t *type, size_t *len)
{
	int err;

	if (body_len >= HS_AEAD_TAG_LEN && cap < body_len - HS_AEAD_TAG_LEN)
		return HS_ERR_ARG;
	err = open_into(k, rec, body_len, out);
	return err ? err : inner(out, body_len - HS_AEAD_TAG_LEN, type, len);
}
