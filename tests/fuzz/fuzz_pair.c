/*
 * libFuzzer target: an hs client and an hs server in memory, with a
 * configuration the fuzzer chooses, and a man in the middle that holds
 * the handshake traffic keys (read from the server's key schedule) and
 * rewrites records in flight. Plaintext records (ClientHello, ServerHello,
 * HelloRetryRequest, CCS, alerts) are mutated as they are; records under
 * the handshake keys are opened, mutated and sealed again, so that
 * EncryptedExtensions, Certificate, CertificateRequest, CertificateVerify
 * and Finished parsers on both sides see the mutations (a mutated
 * ciphertext would only ever reach the AEAD). Records under the
 * application keys pass untouched: once a record does not open under the
 * handshake key, that direction is left alone.
 *
 * Input: 4 configuration bytes, then mutations of 5 bytes each:
 *   c0: bits 0-1 suite (default, or one of the three); bits 2-3 groups
 *       (defaults; client P-256 only; client x25519,P-256 / server P-256:
 *       HelloRetryRequest; client P-256,x25519 / server x25519: HRR);
 *       bit 4 hrr_cookie; bit 5 no_compat; bits 6-7 feed chunk (all, 1,
 *       5, 100 bytes)
 *   c1: bits 0-1 server credential (P-256, RSA-2048, Ed25519, all three);
 *       bits 2-3 client signature schemes (default, RSA-PSS, ECDSA,
 *       Ed25519); bits 4-5 verify_client (none, request, require,
 *       require + certificate_authorities); bit 6 the client has a
 *       certificate; bit 7 the client pins the P-256 leaf (else insecure)
 *   c2: bits 0-1 ALPN (none, both h2, no overlap, client only); bits 2-3
 *       server_name (localhost, none, other.test, 127.0.0.1); bit 4
 *       keep_tickets; bit 5 key update after the handshake; bit 6 client
 *       closes; bit 7 server closes
 *   c3: key_update_after (0: default, else c3 & 7 records)
 *   mutation: kind|dir<<7, record index (per direction), offset (2
 *       bytes), value. Kinds: xor, set, truncate, insert, drop, set
 *       content type, duplicate, set two bytes.
 *
 * HS_FUZZ_VERBOSE=1 prints how each run ended. HS_FUZZ_DUMP=PREFIX writes every flight as PREFIX-c2s-N / PREFIX-s2c-N
 * (how the seeds of fuzz_tls were captured). Seeds: tests/fuzz/corpus/pair/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "libhs/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 24
#define PLAIN_CAP (REC_MAX_CIPHER + 512)

struct op {
	uint8_t kind, dir, rec, val;
	uint16_t off;
};

struct dir {
	struct rec_key_mem open_mem, seal_mem; /* first: aligned AEAD contexts */
	struct rec_key open, seal;
	int keyed, done;
	unsigned n_rec;
};

static struct dir dirs[2];
static struct fuzz_wire c2s, s2c, scratch;
static uint8_t rec_copy[REC_HDR + REC_MAX_CIPHER];
static uint8_t plain[PLAIN_CAP];

static const uint16_t suites[3] = { HS_TLS_AES_128_GCM_SHA256, HS_TLS_AES_256_GCM_SHA384,
				    HS_TLS_CHACHA20_POLY1305_SHA256 };
static const uint16_t g_p256[1] = { HS_GROUP_SECP256R1 }, g_x25519[1] = { HS_GROUP_X25519 };
static const uint16_t g_xp[2] = { HS_GROUP_X25519, HS_GROUP_SECP256R1 };
static const uint16_t g_px[2] = { HS_GROUP_SECP256R1, HS_GROUP_X25519 };
static const uint16_t s_pss[3] = { HS_SIG_RSA_PSS_RSAE_SHA256, HS_SIG_RSA_PSS_RSAE_SHA384,
				   HS_SIG_RSA_PSS_RSAE_SHA512 };
static const uint16_t s_ecdsa[1] = { HS_SIG_ECDSA_SECP256R1_SHA256 };
static const uint16_t s_ed[1] = { HS_SIG_ED25519 };
static const size_t chunks[4] = { 0, 1, 5, 100 };

static void groups(const uint8_t *b, struct hs_config *cc, struct hs_config *sc)
{
	switch ((b[0] >> 2) & 3) {
	case 1:
		cc->groups = g_p256;
		cc->n_groups = 1;
		break;
	case 2:
		cc->groups = g_xp;
		cc->n_groups = 2;
		sc->groups = g_p256;
		sc->n_groups = 1;
		break;
	case 3:
		cc->groups = g_px;
		cc->n_groups = 2;
		sc->groups = g_x25519;
		sc->n_groups = 1;
		break;
	default:
		break;
	}
}

static void server_side(const uint8_t *b, struct hs_config *sc, const struct fuzz_creds *fc)
{
	static const struct hs_cred *one[1];
	unsigned sel = b[1] & 3;

	sc->role = HS_ROLE_SERVER;
	sc->hrr_cookie = (b[0] >> 4) & 1;
	if (sel == 3) {
		sc->creds = fc->all;
		sc->n_creds = 3;
	} else {
		one[0] = sel == 0 ? fc->ec : sel == 1 ? fc->rsa : fc->ed;
		sc->creds = one;
		sc->n_creds = 1;
	}
	if ((b[1] >> 4) & 3) {
		sc->verify_client = ((b[1] >> 4) & 3) == 1 ? HS_VERIFY_REQUEST : HS_VERIFY_REQUIRE;
		sc->client_trust = fc->client_ca;
		sc->send_ca_names = ((b[1] >> 4) & 3) == 3;
	}
}

static void client_side(const uint8_t *b, struct hs_config *cc, const struct fuzz_creds *fc)
{
	static const char *const names[4] = { "localhost", NULL, "other.test", "127.0.0.1" };
	static const uint16_t *const sigs[4] = { NULL, s_pss, s_ecdsa, s_ed };
	static const size_t n_sigs[4] = { 0, 3, 1, 1 };

	cc->role = HS_ROLE_CLIENT;
	cc->no_compat = (b[0] >> 5) & 1;
	cc->sig_schemes = sigs[(b[1] >> 2) & 3];
	cc->n_sig_schemes = n_sigs[(b[1] >> 2) & 3];
	if (b[1] & 0x40)
		cc->cred = fc->client_ec;
	if (b[1] & 0x80) {
		cc->anchor_der = fc->ec_der;
		cc->anchor_len = fc->ec_der_len;
	} else {
		cc->insecure = 1;
	}
	cc->server_name = names[(b[2] >> 2) & 3];
	cc->keep_tickets = (b[2] >> 4) & 1;
	cc->key_update_after = b[3] & 7;
}

static void configure(const uint8_t *b, struct hs_config *cc, struct hs_config *sc)
{
	static const char *const h2[1] = { "h2" }, *const other[1] = { "spdy/3" };
	const struct fuzz_creds *fc = fuzz_creds();
	unsigned alpn = b[2] & 3;

	server_side(b, sc, fc);
	client_side(b, cc, fc);
	if (b[0] & 3) {
		sc->suites = cc->suites = &suites[(b[0] & 3) - 1];
		sc->n_suites = cc->n_suites = 1;
	}
	groups(b, cc, sc);
	if (alpn != 0) {
		cc->alpn = h2;
		cc->n_alpn = 1;
	}
	if (alpn == 1 || alpn == 2) {
		sc->alpn = alpn == 1 ? h2 : other;
		sc->n_alpn = 1;
	}
}

/* ---- the man in the middle ---- */

/* Direction d's handshake key, once the server has derived it. */
static void key_dir(const struct hs_conn *server, int d)
{
	struct dir *x = &dirs[d];
	const uint8_t *secret = d == 0 ? server->ks.c_hs : server->ks.s_hs;

	if (server->suite == NULL || server->ks.len == 0)
		return;
	const struct suite *su = server->suite;

	if (x->open.ctx == NULL) {
		rec_key_init(&x->open, x->open_mem.ctx, sizeof(x->open_mem.ctx));
		rec_key_init(&x->seal, x->seal_mem.ctx, sizeof(x->seal_mem.ctx));
	}
	if (rec_key_set(&x->open, su->aead(), su->hash(), su->key_len, secret) != 0 ||
	    rec_key_set(&x->seal, su->aead(), su->hash(), su->key_len, secret) != 0) {
		x->done = 1;
		return;
	}
	x->keyed = 1;
}

/* Apply the mutations aimed at this record; 0 drops it, else 1 + copies. */
static int mutate(const struct op *ops, size_t n_ops, int d, unsigned idx, uint8_t *type,
		  size_t *len)
{
	int copies = 1;

	for (size_t i = 0; i < n_ops; i++) {
		const struct op *o = &ops[i];
		size_t off = o->off % (*len + 1);
		if (o->dir != d || o->rec != idx)
			continue;
		switch (o->kind) {
		case 0:
			if (off < *len)
				plain[off] ^= (uint8_t)(o->val | 1);
			break;
		case 1:
			if (off < *len)
				plain[off] = o->val;
			break;
		case 2:
			*len = off;
			break;
		case 3:
			if (*len < REC_MAX_PLAIN) {
				memmove(plain + off + 1, plain + off, *len - off);
				plain[off] = o->val;
				(*len)++;
			}
			break;
		case 4:
			copies = 0;
			break;
		case 5:
			*type = o->val;
			break;
		case 6:
			copies = 2;
			break;
		default:
			if (off + 1 < *len)
				plain[off] = plain[off + 1] = o->val;
			break;
		}
	}
	return copies;
}

static void emit(struct dir *x, int sealed, uint8_t type, uint16_t version, size_t len)
{
	struct writer w = writer_init(scratch.buf + scratch.len,
					   FUZZ_WIRE_CAP - scratch.len);

	if (sealed) {
		if (len > REC_MAX_PLAIN || rec_seal(&x->seal, type, TLS12_VERSION, plain, len, 0,
						       &w) != 0)
			return;
	} else {
		if (len > 0xffff)
			return;
		write_u8(&w, type);
		write_u16(&w, version);
		write_u16(&w, (uint16_t)len);
		write_bytes(&w, plain, len);
	}
	if (writer_error(&w) == 0)
		scratch.len += w.len;
}

static void one_record(const struct hs_conn *server, int d, const uint8_t *r, size_t body,
		       const struct op *ops, size_t n_ops)
{
	struct dir *x = &dirs[d];
	uint8_t type = r[0], inner;
	uint16_t version = (uint16_t)(r[1] << 8 | r[2]);
	size_t len = body;
	int sealed = 0, copies;

	if (type == CT_APP && !x->done && !x->keyed)
		key_dir(server, d);
	if (type == CT_APP && !x->done && x->keyed) {
		memcpy(rec_copy, r, REC_HDR + body);
		if (rec_open(&x->open, rec_copy, body, &inner, &len) == 0) {
			sealed = 1;
			type = inner;
			memcpy(plain, rec_copy + REC_HDR, len);
		} else {
			x->done = 1; /* application keys from here on: hands off */
		}
	}
	if (!sealed) {
		len = body;
		memcpy(plain, r + REC_HDR, len);
	}
	copies = mutate(ops, n_ops, d, x->n_rec++, &type, &len);
	for (int i = 0; i < copies; i++)
		emit(x, sealed, type, version, len);
}

static void mitm(const struct hs_conn *server, int d, struct fuzz_wire *w, const struct op *ops,
		 size_t n_ops)
{
	size_t off = 0;

	scratch.len = 0;
	while (w->len - off >= REC_HDR) {
		size_t body = (size_t)w->buf[off + 3] << 8 | w->buf[off + 4];
		if (w->len - off < REC_HDR + body || body > REC_MAX_CIPHER)
			break;
		one_record(server, d, w->buf + off, body, ops, n_ops);
		off += REC_HDR + body;
	}
	/* an incomplete tail goes on as it is */
	if (w->len - off <= FUZZ_WIRE_CAP - scratch.len) {
		memcpy(scratch.buf + scratch.len, w->buf + off, w->len - off);
		scratch.len += w->len - off;
	}
	memcpy(w->buf, scratch.buf, scratch.len);
	w->len = scratch.len;
}

/* ---- the run ---- */

static void dump(const char *prefix, const char *dir, int round, const struct fuzz_wire *w)
{
	char path[512];
	FILE *f;

	if (prefix == NULL || w->len == 0)
		return;
	snprintf(path, sizeof(path), "%s-%s-%d", prefix, dir, round);
	f = fopen(path, "wb");
	if (f == NULL)
		return;
	(void)!fwrite(w->buf, 1, w->len, f);
	fclose(f);
}

static size_t parse_ops(const uint8_t *p, size_t n, struct op *ops)
{
	size_t k = 0;

	for (; n >= 5 && k < MAX_OPS; p += 5, n -= 5, k++) {
		ops[k].kind = p[0] & 7;
		ops[k].dir = p[0] >> 7;
		ops[k].rec = p[1];
		ops[k].off = (uint16_t)(p[2] << 8 | p[3]);
		ops[k].val = p[4];
	}
	return k;
}

static void run(struct hs_conn *cl, struct hs_conn *sv, const uint8_t *cfg, const struct op *ops,
		size_t n_ops)
{
	const char *prefix = getenv("HS_FUZZ_DUMP");
	size_t chunk = chunks[cfg[0] >> 6];
	int poked = 0;

	c2s.len = s2c.len = 0;
	for (int round = 0; round < 40; round++) {
		size_t moved;
		fuzz_take(cl, &c2s);
		mitm(sv, 0, &c2s, ops, n_ops);
		dump(prefix, "c2s", round, &c2s);
		moved = c2s.len;
		(void)!fuzz_feed(sv, &c2s, chunk);
		fuzz_take(sv, &s2c);
		mitm(sv, 1, &s2c, ops, n_ops);
		dump(prefix, "s2c", round, &s2c);
		moved += s2c.len;
		(void)!fuzz_feed(cl, &s2c, chunk);
		if (!poked && hs_conn_handshake_done(cl) && hs_conn_handshake_done(sv)) {
			fuzz_poke(cl, (cfg[2] >> 5) & 1, (cfg[2] >> 6) & 1);
			fuzz_poke(sv, 0, cfg[2] >> 7);
			poked = 1;
			continue;
		}
		if (moved == 0 && hs_conn_output_pending(cl) == 0 &&
		    hs_conn_output_pending(sv) == 0)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hs_config cc = { 0 }, sc = { 0 };
	struct hs_conn *cl = NULL, *sv = NULL;
	struct op ops[MAX_OPS];
	size_t n_ops;

	if (size < 4)
		return 0;
	fuzz_rand_reset(0);
	memset(dirs, 0, sizeof(dirs));
	configure(data, &cc, &sc);
	n_ops = parse_ops(data + 4, size - 4, ops);
	if (hs_conn_new(&cl, &cc) == 0 && hs_conn_new(&sv, &sc) == 0) {
		run(cl, sv, data, ops, n_ops);
		if (getenv("HS_FUZZ_VERBOSE") != NULL)
			fprintf(stderr, "pair: done c=%d s=%d, error c=%d s=%d, alert sent c=%d s=%d\n",
				hs_conn_handshake_done(cl), hs_conn_handshake_done(sv),
				hs_conn_error(cl), hs_conn_error(sv), hs_conn_alert(cl, 0),
				hs_conn_alert(sv, 0));
	}
	hs_conn_free(cl);
	hs_conn_free(sv);
	for (int d = 0; d < 2; d++) {
		rec_key_wipe(&dirs[d].open);
		rec_key_wipe(&dirs[d].seal);
	}
	return 0;
}
