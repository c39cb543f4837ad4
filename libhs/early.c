/*
 * 0-RTT, early data (RFC 8446 2.3, 4.2.10, 8).
 *
 * Server: with hs_config.max_early_data our tickets carry early_data
 * (resume.c seals the limit and the connection's ALPN into them). A
 * ClientHello's early data is accepted only when every one of these holds:
 * the early_data extension, no HelloRetryRequest, the PSK taken is the
 * first identity and one of our tickets that allowed 0-RTT, the suite and
 * ALPN are the ticket's, the ticket's age puts the ClientHello within the
 * anti-replay window of now (8.3), the application agrees
 * (early_data_ok), and the anti-replay register has not seen the ticket
 * in its window. Anything else rejects it: conn.c skips the
 * records, the handshake goes on in 1-RTT. Accepted, the client's records
 * open under client_early_traffic_secret until its EndOfEarlyData; each
 * record's data waits for hs_conn_read_early (never hs_conn_read), more
 * than the ticket's max_early_data_size is unexpected_message.
 *
 * Client: with hs_config.early_data and a ticket that allows 0-RTT, the
 * first ClientHello offers early_data; hs_conn_write_early seals data
 * under the early key right after it (and the compatibility CCS, D.4).
 * The EncryptedExtensions tell: accepted, EndOfEarlyData goes out under
 * the early key after the server's Finished; rejected (or a
 * HelloRetryRequest), the handshake key takes over and the application
 * learns it from hs_conn_early_data().
 *
 * Implementation notes.
 * - Anti-replay (8.1 and 8.2 together): the register records the ticket
 *   (the PSK identity, so a byte-for-byte replay of a ClientHello and a
 *   client that offers a ticket twice are both caught: one 0-RTT per
 *   ticket per window). It is a set-associative table (8 ways) of 16-byte
 *   tags, HMAC-SHA-256(random salt, identity) (the salt keeps clients from
 *   aiming at one set), each with its expiry. An entry lives window_ms; a
 *   ClientHello is judged only if it is at most window_ms / 2 from now by
 *   its ticket age, so a replay while the first entry lives is caught and
 *   a later one fails the age check. An unexpired entry is never evicted:
 *   a full set rejects 0-RTT. A mutex guards it.
 * - Secrets here: client_early_traffic_secret (wiped once a record key
 *   holds it), early_exporter_master_secret (kept until free, like the
 *   exporter's), the early secret (client: wiped right after).
 */
#define _POSIX_C_SOURCE 200809L /* pthread */
#include "libhs/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/wipe.h"
#include "crypto/hmac.h"
#include "crypto/rand.h"

/* ---- the anti-replay register (8.2) ---- */

#define AR_WAYS 8
#define AR_TAG 16
#define AR_MAX_ENTRIES ((size_t)1 << 24)

struct ar_slot {
	uint8_t tag[AR_TAG];
	int64_t expires_ms;
};

struct hs_antireplay {
	pthread_mutex_t lock;
	uint8_t salt[32];
	int64_t window_ms;
	size_t n_sets;
	struct ar_slot slot[];
};

int hs_antireplay_new(struct hs_antireplay **out, size_t max_entries, uint32_t window_secs)
{
	struct hs_antireplay *r;
	size_t sets;
	int err;

	*out = NULL;
	ENSURE(max_entries > 0 && max_entries <= AR_MAX_ENTRIES && window_secs <= 3600,
	       HS_ERR_ARG);
	sets = (max_entries + AR_WAYS - 1) / AR_WAYS;
	r = calloc(1, sizeof(*r) + sets * AR_WAYS * sizeof(struct ar_slot));
	if (r == NULL)
		return HS_ERR_NOMEM;
	r->n_sets = sets;
	r->window_ms = (int64_t)(window_secs != 0 ? window_secs : 10) * 1000;
	err = rand_bytes(r->salt, sizeof(r->salt));
	if (err != 0) {
		free(r);
		return err;
	}
	pthread_mutex_init(&r->lock, NULL);
	*out = r;
	return 0;
}

void hs_antireplay_free(struct hs_antireplay *r)
{
	if (r == NULL)
		return;
	pthread_mutex_destroy(&r->lock);
	wipe(r, sizeof(*r) + r->n_sets * AR_WAYS * sizeof(struct ar_slot));
	free(r);
}

/* 1: never seen, now recorded; 0: seen before, or no room in its set.
 * d: HMAC-SHA-256(salt, the ticket). */
static int antireplay_fresh(struct hs_antireplay *r, const uint8_t d[32], int64_t now)
{
	struct ar_slot *set, *room = NULL;
	int seen = 0;

	set = &r->slot[(size_t)(load_le64(d) % r->n_sets) * AR_WAYS];
	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < AR_WAYS; i++) {
		if (set[i].expires_ms > now)
			seen |= memcmp(set[i].tag, d + 8, AR_TAG) == 0;
		else if (room == NULL)
			room = &set[i];
	}
	if (!seen && room != NULL) {
		memcpy(room->tag, d + 8, AR_TAG);
		room->expires_ms = now + r->window_ms;
	}
	pthread_mutex_unlock(&r->lock);
	return !seen && room != NULL;
}

/* ---- server ---- */

void early_ticket(struct hs_conn *c, const struct ticket_state *st, uint32_t obf_age,
		  struct reader ticket)
{
	const struct hs_config *cfg = c->cfg;
	/* 4.2.11.1: the client's view of the age, modulo 2^32 */
	int64_t age = (uint32_t)(obf_age - st->age_add), off;

	c->early_candidate = 0;
	if (cfg->max_early_data == 0 || cfg->antireplay == NULL || st->max_early == 0)
		return;
	/* 4.2.10: "The selected cipher suite" and "The selected ALPN protocol, if
	 * any" must be the ticket's for 0-RTT */
	if (st->suite != c->suite->id || strcmp(st->alpn, c->alpn) != 0)
		return;
	/* 8.3: when the ClientHello was made, by the ticket's age, is near now */
	off = resume_now_ms(c) - (st->issued_ms + age);
	if (off > cfg->antireplay->window_ms / 2 || off < -cfg->antireplay->window_ms / 2)
		return;
	hmac(hash_sha256(), cfg->antireplay->salt, sizeof(cfg->antireplay->salt), ticket.p,
	     ticket.len, c->early_key);
	c->early_max = st->max_early;
	c->early_candidate = 1;
}

int early_decide(struct hs_conn *c, int offered)
{
	const struct hs_config *cfg = c->cfg;

	if (!offered)
		return 0;
	c->early = HS_EARLY_REJECTED; /* conn.c skips it (skip_early) */
	if (!c->early_candidate)
		return 0;
	if (cfg->early_data_ok != NULL && !cfg->early_data_ok(cfg->early_data_arg, c))
		return 0;
	/* last: a ClientHello we reject for another reason takes no entry */
	if (!antireplay_fresh(cfg->antireplay, c->early_key, resume_now_ms(c)))
		return 0;
	c->early = HS_EARLY_ACCEPTED;
	c->skip_early = 0;
	return 0;
}

int early_record(struct hs_conn *c, size_t n)
{
	/* application data before the handshake is done is 0-RTT, which only
	 * a server that accepted it reads, and only before EndOfEarlyData */
	ENSURE(c->role == HS_ROLE_SERVER && c->early == HS_EARLY_ACCEPTED &&
		       c->state == S_WAIT_EOED,
	       HS_ERR_TLS_UNEXPECTED_RECORD);
	/* 4.2.10: "If the server receives more than max_early_data_size bytes
	 * of 0-RTT data, it SHOULD abort" (unexpected_message) */
	ENSURE(n <= c->early_max - c->early_bytes, HS_ERR_TLS_EARLY_DATA_LIMIT);
	c->early_bytes += n;
	if (n > 0)
		conn_event(c, HS_EVENT_EARLY_DATA);
	return 0;
}

int on_end_of_early_data(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	struct reader body;

	TRY(msg_body(msg, len, &body));
	TRY(read_end(&body)); /* struct {} EndOfEarlyData */
	transcript_update(&c->hs->tr, msg, len);
	/* the rest of the client's flight: the handshake key (4.5) */
	return set_read_key(c, c->ks.c_hs);
}

void early_ticket_ext(const struct hs_conn *c, struct writer *w)
{
	struct writer_vec exts, e;

	write_vec_open(w, 2, &exts);
	if (c->cfg->max_early_data > 0 && c->cfg->antireplay != NULL) {
		/* 4.6.1: early_data carries max_early_data_size (uint32) */
		write_u16(w, EXT_EARLY_DATA);
		write_vec_open(w, 2, &e);
		write_u32(w, c->cfg->max_early_data);
		write_vec_close(w, &e);
	}
	write_vec_close(w, &exts);
}

int early_ticket_max(const struct ext_list *exts, uint32_t *max)
{
	const struct ext *e = ext_find(exts, EXT_EARLY_DATA);
	struct reader r;

	*max = 0;
	if (e == NULL)
		return 0;
	r = e->body;
	TRY(read_u32(&r, max));
	return read_end(&r);
}

int early_more(const struct hs_conn *c)
{
	return c->role == HS_ROLE_SERVER && c->err == 0 && !c->handshake_done &&
	       ((c->state == S_START && !c->hrr_done) ||
		(c->state == S_WAIT_EOED && c->early == HS_EARLY_ACCEPTED));
}

int hs_conn_read_early(struct hs_conn *c, uint8_t *buf, size_t cap, size_t *n)
{
	size_t k = c->app_early ? (c->app_len < cap ? c->app_len : cap) : 0;

	*n = 0;
	if (k == 0) /* nothing early waits (and the buffer may be gone: memory on demand) */
		return c->err;
	memcpy(buf, c->in + c->app_off, k);
	c->app_off += k;
	c->app_len -= k;
	if (c->app_len == 0)
		c->app_early = 0;
	*n = k;
	conn_idle(c);
	return 0;
}

/* ---- client ---- */

int early_wanted(const struct hs_conn *c, const struct session_ticket *t)
{
	const struct hs_config *cfg = c->cfg;

	if (!cfg->early_data || t->max_early == 0)
		return 0;
	if (t->alpn[0] == 0)
		return 1;
	/* the server answers 0-RTT only with the ticket's ALPN: offer it */
	for (size_t i = 0; i < cfg->n_alpn; i++)
		if (strcmp(cfg->alpn[i], t->alpn) == 0)
			return 1;
	return 0;
}

int early_client_start(struct hs_conn *c)
{
	static const uint8_t none[1];
	const struct hash *h = c->psk_suite->hash();
	uint8_t th[HASH_MAX];
	int err;

	/* the suite is not chosen yet: Hash(ClientHello) with the ticket's hash */
	transcript_hash_plus(&c->hs->tr, h, none, 0, th);
	TRY(keysched_start_psk(&c->ks, h, c->psk_key, c->psk_key_len));
	err = keysched_early(&c->ks, th);
	keysched_forget(c->ks.stage); /* the ServerHello starts again from the PSK */
	TRY(err);
	c->early_exp = 1;
	keysched_note(c, 2);
	/* D.4: in compatibility mode the CCS goes before the protected records */
	if (c->sid_len > 0)
		TRY(send_ccs(c));
	/* 4.2.10: early data is protected with the ticket's suite */
	err = set_write_key_suite(c, c->psk_suite, c->ks.c_e);
	keysched_forget(c->ks.c_e); /* the write key holds it */
	return err;
}

void early_client_hrr(struct hs_conn *c)
{
	if (c->early != HS_EARLY_OFFERED)
		return;
	/* 4.2.10: a HelloRetryRequest rejects 0-RTT; "A client MUST NOT include
	 * the "early_data" extension in its followup ClientHello" */
	c->early = HS_EARLY_REJECTED;
	rec_key_wipe(c->wr); /* the second ClientHello goes in plaintext */
	keysched_forget(c->ks.e_exp);
	c->early_exp = 0;
}

int early_client_answer(struct hs_conn *c, const struct ext *e)
{
	const struct session_ticket *t = c->psk_offer;

	if (e == NULL) {
		if (c->early != HS_EARLY_OFFERED)
			return 0;
		c->early = HS_EARLY_REJECTED; /* the handshake key from here */
		return set_write_key(c, c->ks.c_hs);
	}
	ENSURE(c->early == HS_EARLY_OFFERED, HS_ERR_TLS_UNSOLICITED_EXT);
	ENSURE(reader_left(&e->body) == 0, HS_ERR_TLS_DECODE);
	/* 4.2.10: the server took our first identity (sh_psk checked that
	 * selected_identity is 0) with the ticket's suite and ALPN */
	ENSURE(c->resumed && c->suite == c->psk_suite && strcmp(c->alpn, t->alpn) == 0,
	       HS_ERR_TLS_ILLEGAL_PARAM);
	c->early = HS_EARLY_ACCEPTED;
	return 0;
}

int early_client_end(struct hs_conn *c)
{
	struct writer w;
	struct writer_vec v;

	msg_begin(c, HT_END_OF_EARLY_DATA, &w, &v);
	TRY(msg_end(c, &w, &v));
	TRY(flush_handshake(c, TLS12_VERSION));
	return set_write_key(c, c->ks.c_hs);
}

int hs_conn_write_early(struct hs_conn *c, const uint8_t *buf, size_t len, size_t *n)
{
	*n = 0;
	(void)hs_conn_output_pending(c); /* a client builds its ClientHello first */
	TRY(c->err);
	ENSURE(c->role == HS_ROLE_CLIENT && c->early == HS_EARLY_OFFERED && c->state == C_WAIT_SH &&
		       !c->hrr_done,
	       HS_ERR_TLS_STATE);
	while (*n < len) {
		size_t k = len - *n, left = c->early_max - c->early_bytes;
		if (k > REC_MAX_PLAIN)
			k = REC_MAX_PLAIN;
		if (k > left)
			k = left;
		k = conn_data_room(c, k);
		if (k == 0)
			break;
		TRY(conn_send_data(c, buf + *n, k));
		c->early_bytes += k;
		*n += k;
	}
	return 0;
}

int hs_conn_early_data(const struct hs_conn *c)
{
	return c->early;
}

uint64_t hs_conn_early_bytes(const struct hs_conn *c)
{
	return c->early_bytes;
}

int hs_conn_export_early(const struct hs_conn *c, const char *label, const uint8_t *context,
			 size_t context_len, uint8_t *out, size_t out_len)
{
	ENSURE(c->early_exp && c->err == 0, HS_ERR_TLS_STATE);
	ENSURE(label != NULL && strlen(label) <= 255 - 6, HS_ERR_ARG);
	return keysched_export(&c->ks, 1, label, context, context_len, out, out_len);
}
