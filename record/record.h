/*
 * The TLS 1.3 record protection layer (RFC 8446 5, 7.2, 7.3): the one used by
 * the engine (libhs/conn.c) and by ktls/'s userspace path.
 *
 *   TLSCiphertext   = 23 || 0x0303 || length || AEAD(TLSInnerPlaintext)
 *   TLSInnerPlaintext = content || content_type || zeros(padding)
 *   nonce           = iv XOR the 64-bit sequence number, left-padded to 12 bytes
 *   additional data = the 5-byte record header
 *
 * A struct rec_key is one direction: traffic secret, IV, sequence number
 * and a pointer to the keyed AEAD context. The context lives in memory its
 * owner gives with rec_key_init (64-byte aligned): a direction the kernel
 * protects is never keyed and needs none, so ktls/ allocates it only on
 * its userspace path, and struct rec_key_mem puts the two side by side for
 * owners that always key (the engine, tests). A keyed rec_key must not be
 * copied (key the copy instead). It holds secrets: rec_key_wipe() clears
 * it and its context, and keeps the context memory for the owner to free.
 *
 * Buffers are the caller's (nothing here allocates), which lets an I/O layer
 * seal straight into the buffer it submits: rec_seal writes the record at
 * the writer's position; if the plaintext is already where the record's body
 * goes (w's free space + REC_HDR) it is sealed there without a copy.
 * rec_open works in place on one received record.
 *
 * Errors: 0 or a negative hs_err; the same input gives the same error on
 * every path (tests/record/test_record_paths.c checks the engine and ktls).
 */
#ifndef HS_RECORD_RECORD_H
#define HS_RECORD_RECORD_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/writer.h"
#include "crypto/aead.h"
#include "crypto/hash.h"

/* RFC 8446 5.1 / 5.2 limits: the one set, for the engine and ktls */
#define REC_HDR 5                                /* type, legacy version, length */
#define REC_MAX_PLAIN 16384                      /* 5.1: content, 2^14 */
#define REC_MAX_INNER (REC_MAX_PLAIN + 1)     /* 5.2: content + type + padding */
#define REC_MAX_CIPHER (REC_MAX_PLAIN + 256)  /* 5.2: protected record body */
#define REC_MAX_WIRE (REC_HDR + REC_MAX_CIPHER)
/*
 * Largest handshake message body we take (or build), after the 4-byte
 * header: during the handshake and after it (post-handshake messages
 * reassembled across records, engine and ktls alike). Longer:
 * HS_ERR_TLS_MSG_TOO_LARGE.
 */
#define REC_MSG_MAX 32768
#define REC_SECRET_MAX 48 /* SHA-384 */

/* Record content types (RFC 8446 B.1) */
#define REC_CCS 20
#define REC_ALERT 21
#define REC_HANDSHAKE 22
#define REC_APP 23

#define REC_LEGACY_VERSION 0x0303

struct rec_key {
	const struct aead *aead;
	const struct hash *hash;
	size_t key_len;
	uint64_t seq;                        /* sequence number of the next record */
	uint8_t iv[HS_AEAD_NONCE_LEN];
	uint8_t secret[REC_SECRET_MAX];   /* current traffic secret */
	int on;                              /* AEAD keyed: records are protected */
	void *ctx;      /* the AEAD context: owner's memory, 64-byte aligned, or NULL */
	size_t ctx_cap; /* its size: an AEAD whose ctx_size is larger is refused */
};

/* A rec_key and the memory of its AEAD context (rec_key_mem_init). */
struct rec_key_mem {
	alignas(64) uint8_t ctx[HS_AEAD_CTX_MAX];
	struct rec_key key;
};

/*
 * Zero k and give it ctx (cap bytes, 64-byte aligned) for its AEAD context;
 * ctx NULL: k may hold a secret and IV but never be keyed (rec_key_load
 * with an AEAD gives HS_ERR_ARG).
 */
void rec_key_init(struct rec_key *k, void *ctx, size_t cap);
/* rec_key_init(&m->key, m->ctx, sizeof(m->ctx)); returns &m->key. */
struct rec_key *rec_key_mem_init(struct rec_key_mem *m);

/*
 * Key k from a traffic secret (7.3: key = HKDF-Expand-Label(secret, "key",
 * "", key_len), iv = ...("iv", "", 12)); seq = 0. secret may be k->secret.
 */
HS_MUST_CHECK int rec_key_set(struct rec_key *k, const struct aead *aead,
				 const struct hash *h, size_t key_len, const uint8_t *secret);
/*
 * Load k from a secret and the key and IV already derived from it (a
 * hand-off), next record seq. aead NULL: keep secret, IV and seq only (a
 * direction the kernel protects); k->on stays 0.
 */
HS_MUST_CHECK int rec_key_load(struct rec_key *k, const struct aead *aead,
				  const struct hash *h, size_t key_len, const uint8_t *secret,
				  const uint8_t *key, const uint8_t *iv, uint64_t seq);
/*
 * KeyUpdate (7.2): k moves to application_traffic_secret_N+1, its key and IV,
 * seq 0; the AEAD is keyed again if it was. key_out (NULL or key_len bytes):
 * the new raw key, for a kernel that takes it; the caller wipes it.
 */
HS_MUST_CHECK int rec_key_next(struct rec_key *k, uint8_t *key_out);
void rec_key_wipe(struct rec_key *k);

/* 7.3: key and IV of a traffic secret. */
HS_MUST_CHECK int rec_traffic_key(const struct hash *h, const uint8_t *secret,
				     size_t key_len, uint8_t *key, uint8_t *iv);
/* 7.2: secret = HKDF-Expand-Label(secret, "traffic upd", "", Hash.length), in place. */
HS_MUST_CHECK int rec_next_secret(const struct hash *h, uint8_t *secret);

/* The nonce of record seq under iv (5.3). */
void rec_nonce(const uint8_t iv[HS_AEAD_NONCE_LEN], uint64_t seq,
		  uint8_t out[HS_AEAD_NONCE_LEN]);

/* Bytes a record of n content bytes and pad bytes of padding takes on the wire. */
size_t rec_wire_len(const struct rec_key *k, size_t n, size_t pad);

/*
 * Append one record carrying p[0..n) of content type to w: protected with k
 * (k->on) or plaintext with legacy_version (before keys, and the CCS).
 * n <= 2^14 and n + 1 + pad <= 2^14 + 1, else HS_ERR_ARG; the last sequence
 * number is never used (HS_ERR_TLS_SEQ_EXHAUSTED). p may overlap w's free
 * space only at w->buf + w->len + REC_HDR (sealed in place, no copy).
 */
HS_MUST_CHECK int rec_seal(struct rec_key *k, uint8_t type, uint16_t legacy_version,
			      const uint8_t *p, size_t n, size_t pad, struct writer *w);

/*
 * Check a record header before its body arrives; *body_len = its length.
 * protected: records are opened with a key (a ciphertext may be longer).
 * Major version not 3: HS_ERR_TLS_RECORD_HEADER; type not 20..23:
 * HS_ERR_TLS_UNEXPECTED_RECORD; too long: HS_ERR_TLS_RECORD_OVERFLOW.
 */
HS_MUST_CHECK int rec_check_header(const uint8_t *hdr, int protected, size_t *body_len);

/*
 * Open rec (header + body of body_len bytes) in place: *type gets the inner
 * content type, the content is rec[5 .. 5 + *len). Errors, in this order:
 * body shorter than a tag + 1: HS_ERR_TLS_BAD_RECORD_MAC; last sequence
 * number reached: HS_ERR_TLS_SEQ_EXHAUSTED; bad tag: HS_ERR_TLS_BAD_RECORD_MAC
 * (the body is then zeroed); inner plaintext over
 * 2^14 + 1: HS_ERR_TLS_RECORD_OVERFLOW; all padding: HS_ERR_TLS_EMPTY_RECORD
 * (unexpected_message, 5.4); empty content of a type other than application
 * data: HS_ERR_TLS_EMPTY_RECORD (5.1, 5.4).
 */
HS_MUST_CHECK int rec_open(struct rec_key *k, uint8_t *rec, size_t body_len, uint8_t *type,
			      size_t *len);
/*
 * The same, decrypting into the caller's out instead of in place (out must
 * not overlap rec; cap >= body_len - 16, else HS_ERR_ARG before anything):
 * the content is out[0 .. *len), followed by its type byte and padding; rec
 * keeps only ciphertext. A reader that wants the plaintext in its own buffer
 * gets it without a copy (ktls/'s userspace RX). Same errors, same order;
 * on a bad tag out[0 .. body_len - 16) is zeroed.
 */
HS_MUST_CHECK int rec_open_to(struct rec_key *k, const uint8_t *rec, size_t body_len,
			      uint8_t *out, size_t cap, uint8_t *type, size_t *len);

#endif
