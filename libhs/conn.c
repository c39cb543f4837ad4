/*
 * The connection core: byte accounting, record dispatch, handshake message
 * reassembly, alerts, events, and the application-data API.
 *
 * Implementation notes:
 * - feed() copies one record at a time into in[] (header first, so the
 *   size limits are checked before the body is waited for), opens it in
 *   place and hands its content on. It stops early, leaving bytes unused,
 *   when the record just processed completed the handshake, when decrypted
 *   application data waits to be read, or after close_notify.
 * - Handshake bytes collect in handshake_in[], one message at a time (up to
 *   HANDSHAKE_IN_MAX); a message after which the read key changes must end its
 *   record (5.1).
 * - Cheap records are bounded (internal.h): one CCS per connection; empty
 *   application_data records, user_canceled alerts and KeyUpdates in a
 *   row until the peer sends data; KeyUpdate answers coalesce while one is
 *   unsent. A server skips early data it did not accept (4.2.10).
 * - The first fatal error is stored, its alert queued (sealed under the
 *   current write key) and returned from every later call. A plaintext
 *   alert once the peer's records are protected ends it unanswered.
 * - The one allocation happens in hs_conn_new(); hs_conn_free() wipes the
 *   object (keys, transcript, and each buffer as far as it was ever
 *   written: its high-water mark; the header, which holds the marks,
 *   last) before freeing or keeping it. Buffer pages a connection never
 *   uses are never touched (no page faults for them). A magic number
 *   catches a double free (abort).
 */
#include "libhs/internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/rand.h"

/* ---- events and errors ---- */

void conn_event(struct hs_conn *c, enum hs_event ev)
{
	if (c->ev_n < EVQ_LEN) {
		c->evq[(c->ev_head + c->ev_n) % EVQ_LEN] = (uint8_t)ev;
		c->ev_n++;
	}
}

enum hs_event hs_conn_next_event(struct hs_conn *c)
{
	enum hs_event ev;

	if (c->ev_n == 0)
		return HS_EVENT_NONE;
	ev = (enum hs_event)c->evq[c->ev_head];
	c->ev_head = (c->ev_head + 1) % EVQ_LEN;
	c->ev_n--;
	return ev;
}

/* Raise a buffer's high-water mark to n bytes (see struct hs_conn). */
static void touched(size_t *hw, size_t n)
{
	if (n > *hw)
		*hw = n;
}

/* The config's message trace (hs_config.msg_cb), if any. */
static void trace(const struct hs_conn *c, int sent, int type, const uint8_t *p, size_t n)
{
	if (c->cfg->msg_cb != NULL)
		c->cfg->msg_cb(c->cfg->msg_arg, c, sent, type, p, n);
}

static struct writer out_writer(struct hs_conn *c)
{
	if (c->out_off > 0) {
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	return writer_init(c->out + c->out_len, OUT_CAP - c->out_len);
}

static int send_record(struct hs_conn *c, uint8_t type, uint16_t version, const uint8_t *p,
		       size_t n)
{
	struct writer w = out_writer(c);
	int err = rec_seal(&c->wr, type, version, p, n, 0, &w);

	touched(&c->out_hw, c->out_len + w.len);
	if (err == 0) {
		/* handshake messages are traced one by one; application data never */
		if (type == CT_ALERT || type == CT_CCS)
			trace(c, 1, type, p, n);
		trace(c, 1, HS_TRACE_RECORD_HEADER, c->out + c->out_len, REC_HDR);
		c->out_len += w.len;
		c->out_queued += w.len;
	}
	return err;
}

static void send_alert(struct hs_conn *c, uint8_t desc)
{
	uint8_t a[2] = { 2, desc }; /* fatal; close_notify is sent as a warning below */

	if (desc == AL_CLOSE_NOTIFY)
		a[0] = 1;
	/* best effort: a full output queue just loses the alert */
	if (send_record(c, CT_ALERT, TLS12_VERSION, a, 2) == 0 && desc != AL_CLOSE_NOTIFY)
		c->alert_sent = desc;
}

static int fail(struct hs_conn *c, int err)
{
	if (c->err != 0)
		return c->err;
	c->err = err;
	if (err == HS_ERR_TLS_PEER_ALERT && c->alert_recv >= 0)
		conn_detail(c, "the peer sent the fatal alert %s (%d)", hs_alert_name(c->alert_recv),
			    c->alert_recv);
	if (err != HS_ERR_TLS_PEER_ALERT) {
		send_alert(c, (uint8_t)alert_for(err));
		conn_event(c, HS_EVENT_ALERT);
	}
	return err;
}

/* ---- services for client.c / server.c ---- */

int hello_random(struct hs_conn *c, uint8_t out[32])
{
	const struct test_hooks *th = test_hooks(c);

	if (th != NULL && th->random != NULL) {
		memcpy(out, th->random, 32);
		return 0;
	}
	return rand_bytes(out, 32);
}

int conn_keygen(struct hs_conn *c, const struct group *g)
{
	static const uint8_t base9[32] = { 9 };
	const struct test_hooks *th = test_hooks(c);

	c->kx_group = g;
	if (th != NULL && th->kx_priv != NULL && th->kx_group == g->id) {
		/* test hook: a fixed X25519 key; pub = X25519(priv, 9) */
		ENSURE(g->id == HS_GROUP_X25519 && th->kx_priv_len == 32, HS_ERR_UNSUPPORTED);
		memcpy(c->kx_priv, th->kx_priv, 32);
		return g->kx->shared(c->kx_pub, c->kx_priv, base9, 32);
	}
	return g->kx->keygen(c->kx_priv, c->kx_pub);
}

void msg_begin(struct hs_conn *c, uint8_t type, struct writer *w, struct writer_vec *v)
{
	*w = writer_init(c->handshake_out + c->handshake_out_len, HANDSHAKE_OUT_MAX - c->handshake_out_len);
	write_u8(w, type);
	write_vec_open(w, 3, v);
}

int msg_end_notr(struct hs_conn *c, struct writer *w, struct writer_vec *v)
{
	touched(&c->handshake_out_hw, c->handshake_out_len + w->len);
	TRY(write_vec_close(w, v));
	TRY(writer_error(w));
	trace(c, 1, CT_HANDSHAKE, c->handshake_out + c->handshake_out_len, w->len);
	c->handshake_out_len += w->len;
	return 0;
}

int msg_end(struct hs_conn *c, struct writer *w, struct writer_vec *v)
{
	touched(&c->handshake_out_hw, c->handshake_out_len + w->len);
	TRY(write_vec_close(w, v));
	TRY(writer_error(w));
	transcript_update(&c->tr, c->handshake_out + c->handshake_out_len, w->len);
	trace(c, 1, CT_HANDSHAKE, c->handshake_out + c->handshake_out_len, w->len);
	c->handshake_out_len += w->len;
	return 0;
}

int flush_handshake(struct hs_conn *c, uint16_t legacy_version)
{
	size_t off = 0;

	touched(&c->handshake_out_hw, c->handshake_out_len); /* also covers bytes put there verbatim */
	while (off < c->handshake_out_len) {
		size_t n = c->handshake_out_len - off;
		if (n > REC_MAX_PLAIN)
			n = REC_MAX_PLAIN;
		TRY(send_record(c, CT_HANDSHAKE, legacy_version, c->handshake_out + off, n));
		off += n;
	}
	c->handshake_out_len = 0;
	return 0;
}

int send_ccs(struct hs_conn *c)
{
	static const uint8_t one = 1;

	if (c->ccs_sent)
		return 0;
	c->ccs_sent = 1;
	/* D.4: the CCS record is never protected; send it before any key is on */
	struct rec_key *k = &c->wr;
	int on = k->on;
	k->on = 0;
	int err = send_record(c, CT_CCS, TLS12_VERSION, &one, 1);
	k->on = on;
	return err;
}

/* record/'s key from the suite's tables */
static int set_key(struct rec_key *k, const struct suite *s, const uint8_t *secret)
{
	return rec_key_set(k, s->aead(), s->hash(), s->key_len, secret);
}

int set_read_key(struct hs_conn *c, const uint8_t *secret)
{
	c->rd_gen++;
	return set_key(&c->rd, c->suite, secret);
}

int set_write_key(struct hs_conn *c, const uint8_t *secret)
{
	return set_key(&c->wr, c->suite, secret);
}

int set_write_key_suite(struct hs_conn *c, const struct suite *s, const uint8_t *secret)
{
	return set_key(&c->wr, s, secret);
}

int dispatch(struct hs_conn *c, const struct transition *t, size_t n, const uint8_t *msg,
		size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].state == c->state && t[i].msg_type == msg[0]) {
			c->state = t[i].next;
			return t[i].handle(c, msg, len);
		}
	}
	return HS_ERR_TLS_UNEXPECTED_MSG;
}

/* ---- life cycle ---- */

static int check_config(const struct hs_config *cfg)
{
	ENSURE(cfg != NULL, HS_ERR_ARG);
	if (cfg->role == HS_ROLE_SERVER) {
		ENSURE(cfg->cred != NULL || cfg->n_creds > 0 || cfg->psk != NULL ||
			       cfg->select_cred != NULL,
		       HS_ERR_TLS_NO_CERT);
		ENSURE(cfg->n_creds == 0 || cfg->creds != NULL, HS_ERR_ARG);
		for (size_t i = 0; i < cfg->n_creds; i++)
			ENSURE(cfg->creds[i] != NULL, HS_ERR_ARG);
		ENSURE(cfg->verify_client <= HS_VERIFY_REQUIRE, HS_ERR_ARG);
		/* a client certificate is only ever accepted after validation */
		ENSURE(cfg->verify_client == HS_VERIFY_NONE || cfg->client_trust != NULL ||
			       cfg->verify_cert != NULL,
		       HS_ERR_ARG);
	} else
		ENSURE(cfg->anchor_der != NULL || cfg->trust != NULL || cfg->insecure ||
			       cfg->verify_cert != NULL || cfg->psk != NULL,
		       HS_ERR_ARG);
	/* 0-RTT needs the anti-replay register (include/hs/tls.h) */
	ENSURE(cfg->max_early_data == 0 || cfg->antireplay != NULL, HS_ERR_ARG);
	/* an external PSK comes with its identity<1..2^16-1> */
	ENSURE(cfg->psk == NULL || (cfg->psk_len > 0 && cfg->psk_identity != NULL &&
				    cfg->psk_identity_len > 0 && cfg->psk_identity_len <= 0xffff),
	       HS_ERR_ARG);
	if (cfg->server_name != NULL)
		ENSURE(strlen(cfg->server_name) <= NAME_MAX_LEN, HS_ERR_ARG);
	if (cfg->server_name != NULL && cfg->role == HS_ROLE_CLIENT)
		TRY(sni_config_check(cfg->server_name));
	return 0;
}

/*
 * Spare connection blocks, already wiped. A connection is one ~190 KiB
 * block: when a process makes connections one after another, glibc gives
 * the freed block back to the OS (heap trim) and the next connection pays
 * the brk calls and page faults again, a third of a handshake's time. One
 * block per slot is kept instead (two slots: a client and a server in one
 * process). Lock-free, so any thread may take or return one. Off under
 * AddressSanitizer, which must see every use after free.
 */
#if defined(__SANITIZE_ADDRESS__)
#define N_SPARE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define N_SPARE 0
#endif
#endif
#ifndef N_SPARE
#define N_SPARE 2
#endif
static _Atomic(struct hs_conn *) spare[N_SPARE > 0 ? N_SPARE : 1];

static struct hs_conn *conn_alloc(void)
{
	size_t size = (sizeof(struct hs_conn) + 63) & ~(size_t)63;

	for (int i = 0; i < N_SPARE; i++) {
		struct hs_conn *c = atomic_exchange(&spare[i], NULL);
		if (c != NULL)
			return c;
	}
	return aligned_alloc(64, size);
}

/* c must be wiped already. */
static void conn_release(struct hs_conn *c)
{
	for (int i = 0; i < N_SPARE; i++)
		if (atomic_load(&spare[i]) == c)
			abort(); /* freed twice: never hand one block out twice */
	for (int i = 0; i < N_SPARE; i++) {
		struct hs_conn *empty = NULL;
		if (atomic_compare_exchange_strong(&spare[i], &empty, c))
			return;
	}
	free(c);
}

int hs_conn_new(struct hs_conn **out, const struct hs_config *cfg)
{
	struct hs_conn *c;

	*out = NULL;
	TRY(check_config(cfg));
	c = conn_alloc();
	if (c == NULL)
		return HS_ERR_NOMEM;
	/* the buffers are not zeroed: lengths say what they hold (see struct hs_conn) */
	memset(c, 0, offsetof(struct hs_conn, in));
	c->magic = CONN_MAGIC;
	c->cfg = cfg;
	c->role = cfg->role;
	c->alert_sent = -1;
	c->alert_recv = -1;
	c->ku_after = cfg->key_update_after;
	transcript_init(&c->tr);
	*out = c;
	return 0;
}

/*
 * Wipe everything, then free or keep the block. The buffers go first:
 * their high-water marks live in the header, and wiping the header first
 * would leave every buffer (decrypted application data included) intact
 * for the next connection that gets this block. A second free of the same
 * connection finds the magic already wiped and aborts: the alternative is
 * the same block in both spare slots, handed to two connections at once.
 */
void hs_conn_free(struct hs_conn *c)
{
	if (c == NULL)
		return;
	if (c->magic != CONN_MAGIC)
		abort(); /* double free, or not a connection */
	rec_key_wipe(&c->rd);
	rec_key_wipe(&c->wr);
	keysched_wipe(&c->ks);
	wipe(c->peer_certs, c->peer_certs_len);
	wipe(c->in, c->in_hw);
	wipe(c->handshake_in, c->handshake_in_hw);
	wipe(c->handshake_out, c->handshake_out_hw);
	wipe(c->out, c->out_hw);
	wipe(c, offsetof(struct hs_conn, in)); /* the marks and the magic last */
	conn_release(c);
}

#ifdef HS_TEST_HOOKS
int conn_test_hooks(struct hs_conn *c, const struct test_hooks *h)
{
	ENSURE(!c->started && c->err == 0, HS_ERR_TLS_STATE);
	c->hooks = *h;
	c->has_hooks = 1;
	return 0;
}
#endif

static int ensure_started(struct hs_conn *c)
{
	int err;

	if (c->err != 0)
		return c->err;
	if (c->started)
		return 0;
	c->started = 1;
	if (c->role != HS_ROLE_CLIENT)
		return 0;
	err = client_start(c);
	return err ? fail(c, err) : 0;
}

/* ---- receiving ---- */

/* Body length of the message in handshake_in (its 4-byte header is there). */
static size_t in_body_len(const struct hs_conn *c)
{
	return ((size_t)c->handshake_in[1] << 16) | ((size_t)c->handshake_in[2] << 8) | c->handshake_in[3];
}

/*
 * handshake_in holds at most one message: a record's bytes are taken as far as
 * the current message needs, the message is handled, then the rest of the
 * record starts the next one. The announced length is checked as soon as
 * the header is in, before the body is waited for.
 */
static int on_handshake(struct hs_conn *c, const uint8_t *p, size_t n)
{
	size_t off = 0;

	/* 5.1: "Implementations MUST NOT send zero-length fragments of
	 * Handshake types" */
	ENSURE(n > 0, HS_ERR_TLS_EMPTY_RECORD);
	while (off < n) {
		size_t want = c->handshake_in_len < 4 ? 4 - c->handshake_in_len
					       : 4 + in_body_len(c) - c->handshake_in_len;
		size_t take = want < n - off ? want : n - off, len;
		unsigned gen = c->rd_gen;
		int err;

		memcpy(c->handshake_in + c->handshake_in_len, p + off, take);
		c->handshake_in_len += take;
		off += take;
		touched(&c->handshake_in_hw, c->handshake_in_len);
		if (c->handshake_in_len < 4)
			break;
		len = in_body_len(c);
		/* after the handshake: the one post-handshake limit ktls/ applies too */
		ENSURE(len <= (c->handshake_done ? REC_MSG_MAX : HANDSHAKE_IN_MAX), HS_ERR_TLS_MSG_TOO_LARGE);
		if (c->handshake_in_len < 4 + len)
			continue;
		trace(c, 0, CT_HANDSHAKE, c->handshake_in, 4 + len);
		err = c->role == HS_ROLE_CLIENT ? client_handle(c, c->handshake_in, 4 + len)
						: server_handle(c, c->handshake_in, 4 + len);
		c->handshake_in_len = 0;
		TRY(err);
		/* 5.1: a message that changes keys must end its record */
		ENSURE(gen == c->rd_gen || off == n, HS_ERR_TLS_KEY_CHANGE_MID_RECORD);
	}
	return 0;
}

static int on_alert(struct hs_conn *c, const uint8_t *p, size_t n)
{
	/* like an empty Handshake record (5.1): unexpected_message */
	ENSURE(n > 0, HS_ERR_TLS_EMPTY_RECORD);
	ENSURE(n == 2, HS_ERR_TLS_BAD_ALERT);
	if (p[1] == AL_CLOSE_NOTIFY) {
		c->peer_closed = 1;
		conn_event(c, HS_EVENT_CLOSE_NOTIFY);
		return 0;
	}
	if (p[1] == AL_USER_CANCELED) { /* 6.1: may be followed by close_notify */
		ENSURE(++c->n_warn <= MAX_WARNING_ALERTS, HS_ERR_TLS_TOO_MANY_RECORDS);
		return 0;
	}
	/* 6.2: in TLS 1.3 every other alert is fatal, whatever its level */
	c->alert_recv = p[1];
	conn_event(c, HS_EVENT_ALERT);
	return HS_ERR_TLS_PEER_ALERT;
}

/*
 * A plaintext alert once the peer's records are protected: a peer that
 * failed before it had our keys (say, on our ServerHello) can only say so
 * in plaintext. It ends the connection; nothing is sent back (an answer
 * to a fatal alert helps no one, and we could not know it was read).
 */
static int on_plain_alert(struct hs_conn *c, const uint8_t *p, size_t n)
{
	ENSURE(n == 2 && p[1] != AL_CLOSE_NOTIFY, HS_ERR_TLS_UNEXPECTED_RECORD);
	c->alert_recv = p[1];
	conn_event(c, HS_EVENT_ALERT);
	return HS_ERR_TLS_PEER_ALERT;
}

static int peer_finished_seen(const struct hs_conn *c)
{
	return c->role == HS_ROLE_CLIENT ? c->state >= C_CONNECTED : c->state >= S_CONNECTED;
}

static int on_ccs(struct hs_conn *c, const uint8_t *p, size_t n)
{
	/* 5: a CCS of the single byte 0x01, after the first ClientHello and
	 * before the peer's Finished, MUST simply be dropped; anything else
	 * is unexpected_message */
	ENSURE(n == 1 && p[0] == 1, HS_ERR_TLS_BAD_CCS);
	/* one per connection: a peer sends it once, before its second
	 * flight (D.4); a second one is unexpected_message */
	ENSURE(!c->ccs_recv, HS_ERR_TLS_BAD_CCS);
	c->ccs_recv = 1;
	ENSURE(c->handshake_in_len == 0, HS_ERR_TLS_BAD_CCS);
	ENSURE(c->role == HS_ROLE_CLIENT || c->state != S_START || c->hrr_done, HS_ERR_TLS_BAD_CCS);
	ENSURE(!peer_finished_seen(c), HS_ERR_TLS_BAD_CCS);
	return 0;
}

/*
 * 4.2.10: early data we do not accept is skipped, "up to the configured
 * max_early_data_size" (MAX_EARLY_SKIP here); past that, the record is
 * what it looks like: one that fails to authenticate.
 */
static int skip_early(struct hs_conn *c, size_t body_len)
{
	/* our own tickets may have allowed more (hs_config.max_early_data) */
	size_t limit = MAX_EARLY_SKIP + (size_t)c->cfg->max_early_data;

	ENSURE(body_len <= limit - c->early_skipped, HS_ERR_TLS_BAD_RECORD_MAC);
	c->early_skipped += body_len;
	return 0;
}

/* Open a protected record; early data the server skips gives *skipped. */
static int open_record(struct hs_conn *c, uint8_t *type, size_t *n, int *skipped)
{
	size_t body_len = *n;
	int err;

	*skipped = 0;
	if (!c->rd.on) {
		/* after a HelloRetryRequest: the early data that followed the
		 * first ClientHello is all application_data */
		if (*type == CT_APP && c->skip_early) {
			*skipped = 1;
			return skip_early(c, body_len);
		}
		ENSURE(*type != CT_APP, HS_ERR_TLS_UNEXPECTED_RECORD);
		return 0;
	}
	ENSURE(*type == CT_APP, HS_ERR_TLS_UNEXPECTED_RECORD);
	err = rec_open(&c->rd, c->in, body_len, type, n);
	if (err == HS_ERR_TLS_BAD_RECORD_MAC && c->skip_early) {
		/* trial decryption under the handshake key: not ours */
		*skipped = 1;
		return skip_early(c, body_len);
	}
	TRY(err);
	/* the first record that opens starts the client's second flight */
	c->skip_early = 0;
	return 0;
}

static int process_record(struct hs_conn *c)
{
	uint8_t type = c->in[0];
	size_t n = c->in_len - REC_HDR;
	uint8_t *body = c->in + REC_HDR;
	int skipped;

	trace(c, 0, HS_TRACE_RECORD_HEADER, c->in, REC_HDR);
	if (type == CT_CCS || (c->rd.on && type == CT_ALERT))
		trace(c, 0, type, body, n);
	if (type == CT_CCS)
		return on_ccs(c, body, n);
	if (c->rd.on && type == CT_ALERT)
		return on_plain_alert(c, body, n);
	TRY(open_record(c, &type, &n, &skipped));
	if (skipped)
		return 0;
	if (type == CT_ALERT)
		trace(c, 0, type, body, n);
	/* 5.1: handshake messages MUST NOT be interleaved with other types */
	ENSURE(type == CT_HANDSHAKE || c->handshake_in_len == 0, HS_ERR_TLS_UNEXPECTED_RECORD);
	switch (type) {
	case CT_HANDSHAKE:
		return on_handshake(c, body, n);
	case CT_ALERT:
		return on_alert(c, body, n);
	case CT_APP:
		if (!c->handshake_done) /* 0-RTT we accepted (early.c), or unexpected */
			TRY(early_record(c, n));
		if (n == 0) { /* 5.1: allowed, but not without end */
			ENSURE(++c->n_empty <= MAX_EMPTY_RECORDS, HS_ERR_TLS_TOO_MANY_RECORDS);
			return 0;
		}
		c->n_empty = c->n_warn = c->n_ku = 0;
		c->app_off = REC_HDR;
		c->app_len = n;
		c->app_early = !c->handshake_done; /* hs_conn_read_early's, not ours */
		return 0;
	default:
		return HS_ERR_TLS_UNEXPECTED_RECORD;
	}
}

size_t hs_conn_input_wanted(const struct hs_conn *c)
{
	size_t body;

	if (c->in_len < REC_HDR)
		return REC_HDR - c->in_len;
	/* the header was validated when it completed */
	body = ((size_t)c->in[3] << 8) | c->in[4];
	return REC_HDR + body - c->in_len;
}

static int feed_bytes(struct hs_conn *c, const uint8_t *in, size_t len, size_t *used)
{
	int was_done = c->handshake_done;

	while (*used < len) {
		size_t take, body;

		if (c->app_len > 0 || c->peer_closed || (!was_done && c->handshake_done))
			break;
		take = hs_conn_input_wanted(c);
		if (take > len - *used)
			take = len - *used;
		memcpy(c->in + c->in_len, in + *used, take);
		c->in_len += take;
		touched(&c->in_hw, c->in_len);
		*used += take;
		if (c->in_len == REC_HDR)
			TRY(rec_check_header(c->in, c->rd.on, &body));
		if (c->in_len >= REC_HDR && hs_conn_input_wanted(c) == 0) {
			int err = process_record(c);
			c->in_len = 0;
			TRY(err);
		}
	}
	return 0;
}

int hs_conn_feed(struct hs_conn *c, const uint8_t *in, size_t len, size_t *used)
{
	int err;

	*used = 0;
	TRY(ensure_started(c));
	err = feed_bytes(c, in, len, used);
	return err ? fail(c, err) : 0;
}

/* ---- sending ---- */

size_t hs_conn_output_pending(struct hs_conn *c)
{
	(void)ensure_started(c);
	return c->out_len - c->out_off;
}

int hs_conn_pull(struct hs_conn *c, uint8_t *out, size_t cap, size_t *n)
{
	size_t avail;

	*n = 0;
	/* queued bytes (a fatal alert included) still go out after an error */
	(void)ensure_started(c);
	avail = c->out_len - c->out_off;
	if (avail > cap)
		avail = cap;
	memcpy(out, c->out + c->out_off, avail);
	c->out_off += avail;
	c->out_pulled += avail;
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	*n = avail;
	return avail > 0 ? 0 : c->err;
}

const uint8_t *conn_out_view(struct hs_conn *c, size_t *n)
{
	*n = hs_conn_output_pending(c);
	return c->out + c->out_off;
}

void conn_out_ack(struct hs_conn *c, size_t n)
{
	c->out_off += n;
	c->out_pulled += n;
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
}

int hs_conn_read(struct hs_conn *c, uint8_t *buf, size_t cap, size_t *n)
{
	size_t k = c->app_early ? 0 : c->app_len < cap ? c->app_len : cap;

	*n = 0;
	if (k == 0 && c->err != 0)
		return c->err;
	memcpy(buf, c->in + c->app_off, k);
	c->app_off += k;
	c->app_len -= k;
	*n = k;
	return 0;
}

int send_key_update(struct hs_conn *c, int request)
{
	struct writer w;
	struct writer_vec v;
	const struct hash *h = c->suite->hash();

	msg_begin(c, HT_KEY_UPDATE, &w, &v);
	write_u8(&w, request ? 1 : 0);
	TRY(msg_end_notr(c, &w, &v));
	TRY(flush_handshake(c, TLS12_VERSION));
	/* 7.2: application_traffic_secret_N+1 from _N */
	TRY(rec_next_secret(h, c->wr.secret));
	c->ku_answer_end = c->out_queued;
	return set_write_key(c, c->wr.secret);
}

int ku_answer_pending(const struct hs_conn *c)
{
	return c->out_pulled < c->ku_answer_end;
}

static uint64_t ku_limit(const struct hs_conn *c)
{
	return c->ku_after != 0 ? c->ku_after : c->suite->record_limit;
}

/* room for a KeyUpdate record plus one data record of n bytes? */
static size_t fits(struct hs_conn *c, size_t want)
{
	size_t overhead = REC_HDR + 1 + HS_AEAD_TAG_LEN;
	size_t free_ = OUT_CAP - (c->out_len - c->out_off) - 2 * overhead - 8;

	if (free_ > OUT_CAP)
		return 0;
	return want < free_ ? want : free_;
}

size_t conn_out_room(struct hs_conn *c, size_t want)
{
	return fits(c, want);
}

int conn_send_data(struct hs_conn *c, const uint8_t *p, size_t n)
{
	return send_record(c, CT_APP, TLS12_VERSION, p, n);
}

int hs_conn_write(struct hs_conn *c, const uint8_t *buf, size_t len, size_t *n)
{
	*n = 0;
	TRY(c->err);
	ENSURE(c->handshake_done, HS_ERR_TLS_STATE);
	ENSURE(!c->we_closed, HS_ERR_TLS_CLOSED);
	while (*n < len) {
		size_t k = fits(c, len - *n > REC_MAX_PLAIN ? REC_MAX_PLAIN : len - *n);
		int err = 0;

		if (k == 0)
			break;
		/* automatic KeyUpdate before the AEAD's per-key record limit */
		if (c->wr.seq + 1 >= ku_limit(c))
			err = send_key_update(c, 0);
		if (err == 0)
			err = send_record(c, CT_APP, TLS12_VERSION, buf + *n, k);
		if (err)
			return fail(c, err);
		*n += k;
	}
	return 0;
}

int hs_conn_key_update(struct hs_conn *c, int request_peer)
{
	int err;

	TRY(c->err);
	ENSURE(c->handshake_done && !c->we_closed, HS_ERR_TLS_STATE);
	ENSURE(fits(c, 64) == 64, HS_ERR_NO_SPACE);
	err = send_key_update(c, request_peer);
	return err ? fail(c, err) : 0;
}

int hs_conn_close(struct hs_conn *c)
{
	if (c->we_closed)
		return 0;
	c->we_closed = 1;
	send_alert(c, AL_CLOSE_NOTIFY);
	return 0;
}

/*
 * A post-handshake message that another record layer opened (ktls/: the
 * kernel decrypts): the same parsing and bookkeeping as when the engine
 * reads it itself (NewSessionTicket kept under keep_tickets, the events),
 * but the engine's own record keys do not move and nothing is queued in
 * reply: after the hand-off the keys and the socket belong to that layer,
 * which rekeys and answers update_requested itself. An error is sticky.
 */
static int post_fail(struct hs_conn *c, int err)
{
	if (c->err == 0)
		c->err = err; /* no alert queued: the caller's layer sends it */
	return err;
}

int hs_conn_post_handshake(struct hs_conn *c, uint8_t type, const uint8_t *msg, size_t len)
{
	struct reader body;
	uint8_t req;
	int err;

	if (c == NULL || msg == NULL || len < 4 || msg[0] != type)
		return HS_ERR_ARG;
	TRY(c->err);
	ENSURE(c->handshake_done, HS_ERR_TLS_STATE);
	/* the 24-bit length must cover exactly the rest */
	if ((((size_t)msg[1] << 16) | ((size_t)msg[2] << 8) | msg[3]) != len - 4)
		return post_fail(c, HS_ERR_TLS_DECODE);
	trace(c, 0, CT_HANDSHAKE, msg, len);
	if (type == HT_NEW_SESSION_TICKET && c->role == HS_ROLE_CLIENT) {
		err = on_ticket(c, msg, len);
		return err ? post_fail(c, err) : 0;
	}
	if (type != HT_KEY_UPDATE)
		return post_fail(c, HS_ERR_TLS_UNEXPECTED_MSG);
	err = msg_body(msg, len, &body);
	if (!err)
		err = read_u8(&body, &req);
	if (!err)
		err = read_end(&body);
	if (!err && req > 1) /* 4.6.3: any other value is illegal_parameter */
		err = HS_ERR_TLS_BAD_KEY_UPDATE;
	if (err)
		return post_fail(c, err);
	conn_event(c, HS_EVENT_KEY_UPDATE);
	return 0;
}

/* our handshake message built outside handshake_out (hs_conn_make_ticket) */
void conn_trace_sent(const struct hs_conn *c, const uint8_t *msg, size_t len)
{
	trace(c, 1, CT_HANDSHAKE, msg, len);
}

/* ---- getters ---- */

int hs_conn_handshake_done(const struct hs_conn *c) { return c->handshake_done; }
int hs_conn_peer_closed(const struct hs_conn *c) { return c->peer_closed; }
int hs_conn_error(const struct hs_conn *c) { return c->err; }
int hs_conn_used_hrr(const struct hs_conn *c) { return c->hrr_done; }

const char *hs_conn_state_name(const struct hs_conn *c)
{
	/* indexed by enum client_state / enum server_state (internal.h) */
	static const char *const client[] = { "START", "WAIT_SH", "WAIT_EE", "WAIT_CERT_CR",
					      "WAIT_CERT", "WAIT_CV", "WAIT_FINISHED", "CONNECTED" };
	static const char *const server[] = { "START", "WAIT_EOED", "WAIT_CERT", "WAIT_CV",
					      "WAIT_FINISHED", "CONNECTED" };
	unsigned st = (unsigned)c->state;

	if (c->role == HS_ROLE_CLIENT)
		return st < sizeof(client) / sizeof(client[0]) ? client[st] : "?";
	return st < sizeof(server) / sizeof(server[0]) ? server[st] : "?";
}

int hs_conn_alert(const struct hs_conn *c, int from_peer)
{
	return from_peer ? c->alert_recv : c->alert_sent;
}

uint16_t hs_conn_suite(const struct hs_conn *c) { return c->suite ? c->suite->id : 0; }
uint16_t hs_conn_group(const struct hs_conn *c) { return c->group ? c->group->id : 0; }
uint16_t hs_conn_sig_scheme(const struct hs_conn *c) { return c->sig ? c->sig->id : 0; }

const char *hs_conn_alpn(const struct hs_conn *c)
{
	return c->alpn[0] ? c->alpn : NULL;
}

const char *hs_conn_server_name(const struct hs_conn *c)
{
	return c->sni[0] ? c->sni : NULL;
}

size_t hs_conn_peer_cert_count(const struct hs_conn *c)
{
	return c->peer_verified ? c->peer_n : 0;
}

const uint8_t *hs_conn_peer_cert(const struct hs_conn *c, size_t i, size_t *len)
{
	*len = 0;
	if (i >= hs_conn_peer_cert_count(c))
		return NULL;
	*len = c->peer_len[i];
	return c->peer_certs + c->peer_off[i];
}

const uint8_t *hs_conn_ticket(const struct hs_conn *c, size_t *len, uint32_t *lifetime)
{
	*len = c->ticket_len;
	*lifetime = c->ticket_lifetime;
	return c->ticket_len ? c->ticket : NULL;
}

void keysched_note(struct hs_conn *c, int master)
{
	struct test_secrets *s = test_hooks(c) != NULL ? test_hooks(c)->capture : NULL;

	keylog_note(c, master);
	if (s == NULL)
		return;
	s->len = c->ks.len;
	if (master == 2) { /* 0-RTT */
		memcpy(s->client_early, c->ks.c_e, sizeof(s->client_early));
		return;
	}
	if (!master) {
		memcpy(s->client_hs, c->ks.c_hs, sizeof(s->client_hs));
		memcpy(s->server_hs, c->ks.s_hs, sizeof(s->server_hs));
		memcpy(s->handshake, c->ks.handshake_secret, sizeof(s->handshake));
		return;
	}
	memcpy(s->client_ap, c->ks.c_ap, sizeof(s->client_ap));
	memcpy(s->server_ap, c->ks.s_ap, sizeof(s->server_ap));
	memcpy(s->master, c->ks.stage, sizeof(s->master));
}

#ifdef HS_TEST_HOOKS
void conn_test_secrets(const struct hs_conn *c, struct test_secrets *s)
{
	memset(s, 0, sizeof(*s));
	s->len = c->ks.len;
	memcpy(s->client_hs, c->ks.c_hs, sizeof(s->client_hs));
	memcpy(s->server_hs, c->ks.s_hs, sizeof(s->server_hs));
	memcpy(s->client_ap, c->ks.c_ap, sizeof(s->client_ap));
	memcpy(s->server_ap, c->ks.s_ap, sizeof(s->server_ap));
	memcpy(s->handshake, c->ks.handshake_secret, sizeof(s->handshake));
	memcpy(s->master, c->ks.stage, sizeof(s->master));
	memcpy(s->client_early, c->ks.c_e, sizeof(s->client_early));
}
#endif
