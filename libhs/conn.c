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
 * - Memory on demand (libhs/README.md "Memory"): hs_conn_new() allocates
 *   the header, the record keys and the handshake-only state (conn_hs);
 *   each buffer is allocated when a byte must be stored in it, grows as
 *   needed, and is wiped (as far as it was written) and freed when it is
 *   empty at the end of an API call (conn_idle). The handshake-only state
 *   goes when the handshake ends (conn_hs_end), the keys and every buffer
 *   at hs_conn_handoff(). conn_mem_alloc/conn_mem_free count every byte
 *   (hs_conn_memory). A magic number catches a double free (abort).
 */
#include "libhs/internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/rand.h"
#include "x509/x509.h"

/* ---- memory on demand ---- */

/*
 * Record-sized buffers (in, and out while it holds one record) come and go
 * with every record on the copying path; a few wiped ones are kept for the
 * next connection that needs one (process-wide, lock-free, so any thread
 * may take or return one), so that a busy connection does not pay malloc
 * and page faults per record. Off under AddressSanitizer, which must see
 * every use after free.
 */
#define REC_BUF ((OUT_DATA_CAP + 63) & ~(size_t)63)
/*
 * A received record sits REC_LEAD bytes into in, and the first record
 * sealed into an empty out as far into it, so that each one's body starts
 * on a 64-byte boundary: both are sealed and opened in place, and the
 * 512-bit AEADs' loads and stores then never straddle two cache lines
 * (which costs AES-GCM up to a tenth of its speed at 16 KiB;
 * crypto/README.md).
 */
#define REC_LEAD (64 - REC_HDR)
_Static_assert(REC_LEAD + REC_MAX_WIRE <= REC_BUF, "a record fits after the lead");
#if defined(__SANITIZE_ADDRESS__)
#define N_SPARE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define N_SPARE 0
#endif
#endif
#ifndef N_SPARE
#define N_SPARE 4
#endif
static _Atomic(void *) spare[N_SPARE > 0 ? N_SPARE : 1];

#ifdef HS_TEST_HOOKS
static atomic_long alloc_fail_at, alloc_count;

long conn_test_alloc_fail(long n)
{
	long made = atomic_exchange(&alloc_count, 0);

	atomic_store(&alloc_fail_at, n);
	return made;
}
#endif

static size_t round64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

static void *mem_get(size_t size)
{
#ifdef HS_TEST_HOOKS
	long at = atomic_load(&alloc_fail_at);

	if (atomic_fetch_add(&alloc_count, 1) + 1 == at && at > 0)
		return NULL; /* the allocation-failure test */
#endif
	if (size == REC_BUF)
		for (int i = 0; i < N_SPARE; i++) {
			void *p = atomic_exchange(&spare[i], NULL);
			if (p != NULL)
				return p;
		}
	return aligned_alloc(64, size);
}

/* p wiped already */
static void mem_put(void *p, size_t size)
{
	if (size == REC_BUF)
		for (int i = 0; i < N_SPARE; i++) {
			void *empty = NULL;
			if (atomic_compare_exchange_strong(&spare[i], &empty, p))
				return;
		}
	free(p);
}

void *conn_mem_alloc(struct hs_conn *c, size_t size)
{
	void *p = mem_get(round64(size));

	if (p == NULL)
		return NULL;
	c->mem += round64(size);
	if (c->mem > c->mem_peak)
		c->mem_peak = c->mem;
	return p;
}

void conn_mem_free(struct hs_conn *c, void *p, size_t size, size_t used)
{
	if (p == NULL)
		return;
	wipe(p, used);
	c->mem -= round64(size);
	mem_put(p, round64(size));
}

/*
 * Buffer *buf of *cap bytes, *len of them in use, to at least want bytes
 * (at most max; min: the first size): a new block, the bytes in use
 * copied, the old one wiped as far as *hw and freed.
 */
static int grow(struct hs_conn *c, uint8_t **buf, size_t *cap, size_t *hw, size_t len,
		size_t want, size_t min, size_t max)
{
	size_t n = *cap > 0 ? *cap : min;
	uint8_t *p;

	if (want <= *cap)
		return 0;
	ENSURE(want <= max, HS_ERR_NO_SPACE);
	while (n < want)
		n *= 2;
	if (n > max)
		n = max;
	p = conn_mem_alloc(c, n);
	ENSURE(p != NULL, HS_ERR_NOMEM);
	if (len > 0)
		memcpy(p, *buf, len);
	conn_mem_free(c, *buf, *cap, *hw);
	*buf = p;
	*cap = n;
	*hw = len;
	return 0;
}

/* Release one buffer (wiped as far as it was written). */
static void drop(struct hs_conn *c, uint8_t **buf, size_t *cap, size_t *hw)
{
	conn_mem_free(c, *buf, *cap, *hw);
	*buf = NULL;
	*cap = *hw = 0;
}

/*
 * At the end of every API call: each buffer that holds nothing is
 * released. Sealed records hold ciphertext only (a record's plaintext is
 * sealed in place), so out is not wiped; the others are, as far as they
 * were written.
 */
void conn_idle(struct hs_conn *c)
{
	if (c->in != NULL && c->in_len == 0 && c->app_len == 0)
		drop(c, &c->in, &c->in_cap, &c->in_hw);
	if (c->handshake_in != NULL && c->handshake_in_len == 0)
		drop(c, &c->handshake_in, &c->handshake_in_cap, &c->handshake_in_hw);
	if (c->handshake_out != NULL && c->handshake_out_len == 0)
		drop(c, &c->handshake_out, &c->handshake_out_cap, &c->handshake_out_hw);
	if (c->out != NULL && c->out_len == c->out_off) {
		c->out_hw = 0; /* ciphertext and public records only */
		c->out_off = c->out_len = 0;
		drop(c, &c->out, &c->out_cap, &c->out_hw);
	}
}

/* The handshake ended (or failed): its own state goes. */
static void conn_hs_end(struct hs_conn *c)
{
	if (c->hs == NULL)
		return;
	transcript_wipe(&c->hs->tr);
	conn_mem_free(c, c->hs, sizeof(*c->hs), sizeof(*c->hs));
	c->hs = NULL;
}

int conn_out_room(struct hs_conn *c, size_t n)
{
	size_t want = c->handshake_out_len + n;

	if (want > HANDSHAKE_OUT_MAX)
		want = HANDSHAKE_OUT_MAX;
	return grow(c, &c->handshake_out, &c->handshake_out_cap, &c->handshake_out_hw,
		    c->handshake_out_len, want, 1024, HANDSHAKE_OUT_MAX);
}

int conn_keep_peer_cert(struct hs_conn *c, const uint8_t *p, size_t n)
{
	size_t hw = c->peer_certs_len;

	if (n > HS_PEER_CERTS_MAX - c->peer_certs_len)
		return 0;
	/* exact size: the chain is kept until free */
	if (c->peer_certs_len + n > c->peer_certs_cap) {
		uint8_t *q = conn_mem_alloc(c, c->peer_certs_len + n);
		ENSURE(q != NULL, HS_ERR_NOMEM);
		if (c->peer_certs_len > 0)
			memcpy(q, c->peer_certs, c->peer_certs_len);
		conn_mem_free(c, c->peer_certs, c->peer_certs_cap, hw);
		c->peer_certs = q;
		c->peer_certs_cap = c->peer_certs_len + n;
	}
	memcpy(c->peer_certs + c->peer_certs_len, p, n);
	c->peer_certs_len += n;
	return 1;
}

int conn_tickets(struct hs_conn *c)
{
	if (c->tickets != NULL)
		return 0;
	c->tickets = conn_mem_alloc(c, sizeof(*c->tickets));
	ENSURE(c->tickets != NULL, HS_ERR_NOMEM);
	memset(c->tickets, 0, sizeof(*c->tickets));
	return 0;
}

size_t hs_conn_memory(const struct hs_conn *c, size_t *peak)
{
	if (peak != NULL)
		*peak = c->mem_peak;
	return c->mem;
}

/*
 * Room in handshake_out for one message of type: enough for every field
 * whose size the configuration decides (chains, cookies, ALPN lists, CA
 * names); 4 KiB for the rest.
 */
static size_t msg_room(const struct hs_conn *c, uint8_t type)
{
	const struct hs_config *cfg = c->cfg;
	const struct hs_cred *cred;
	const struct x509_cert *a;
	size_t n = 4096;

	switch (type) {
	case HT_CLIENT_HELLO:
		n += c->echo_cookie_len + c->psk_id_len + 2 * (cfg->n_suites + cfg->n_groups +
							       cfg->n_sig_schemes);
		for (size_t i = 0; i < cfg->n_alpn; i++)
			n += strlen(cfg->alpn[i]) + 1;
		break;
	case HT_CERTIFICATE:
		cred = c->role == HS_ROLE_SERVER ? c->server_cred : c->client_cred;
		for (size_t i = 0; cred != NULL && i < cred->n_certs; i++)
			n += cred->cert_len[i] + 5;
		break;
	case HT_CERTIFICATE_REQUEST:
		n += 2 * cfg->n_sig_schemes;
		for (size_t i = 0; cfg->send_ca_names && cfg->client_trust != NULL &&
				   (a = x509_store_at(cfg->client_trust, i)) != NULL; i++)
			n += a->subject.len + 2;
		break;
	case HT_ENCRYPTED_EXTENSIONS:
		if (test_hooks(c) != NULL)
			n += test_hooks(c)->ee_exts_len;
		break;
	case HT_NEW_SESSION_TICKET:
		n += TICKET_MAX;
		break;
	default:
		break;
	}
	return n;
}

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

/* A writer over out's free space, with room for want more bytes. */
static int out_writer(struct hs_conn *c, size_t want, struct writer *w)
{
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = REC_LEAD; /* empty: see REC_LEAD */
	} else if (c->out_off > REC_LEAD) { /* at most the lead is left unused */
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	if (c->out_len + want > OUT_CAP)
		want = OUT_CAP - c->out_len; /* the seal fails: no space */
	/* a handshake flight takes what it needs; records, a record buffer */
	TRY(grow(c, &c->out, &c->out_cap, &c->out_hw, c->out_off < c->out_len ? c->out_len : 0,
		 c->out_len + want, c->handshake_done ? REC_BUF : 4096, OUT_CAP));
	*w = writer_init(c->out + c->out_len, c->out_cap - c->out_len);
	return 0;
}

static int send_record(struct hs_conn *c, uint8_t type, uint16_t version, const uint8_t *p,
		       size_t n)
{
	struct writer w;
	int err;

	ENSURE(c->wr != NULL, HS_ERR_TLS_STATE); /* handed off */
	TRY(out_writer(c, rec_wire_len(c->wr, n, 0), &w));
	err = rec_seal(c->wr, type, version, p, n, 0, &w);

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
	conn_hs_end(c); /* nothing more of the handshake is needed */
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

/* a test hook fixes this group's key */
static int kx_key_fixed(const struct hs_conn *c, const struct group *g)
{
	const struct test_hooks *th = test_hooks(c);

	return th != NULL && th->kx_priv != NULL && th->kx_group == g->id;
}

int conn_keygen(struct hs_conn *c, const struct group *g)
{
	static const uint8_t base9[32] = { 9 };
	const struct test_hooks *th = test_hooks(c);

	c->kx_group = g;
	if (kx_key_fixed(c, g)) {
		/* test hook: a fixed X25519 key; pub = X25519(priv, 9) */
		ENSURE(g->id == HS_GROUP_X25519 && th->kx_priv_len == 32, HS_ERR_UNSUPPORTED);
		memcpy(c->hs->kx_priv, th->kx_priv, 32);
		return g->kx->shared(c->hs->kx_pub, c->hs->kx_priv, base9, 32);
	}
	return g->kx->keygen(c->hs->kx_priv, c->hs->kx_pub);
}

int conn_keygen_shared(struct hs_conn *c, const struct group *g, uint8_t *out,
		       const uint8_t *peer, size_t peer_len)
{
	int err;

	if (g->kx->keygen_shared == NULL || kx_key_fixed(c, g)) {
		err = conn_keygen(c, g);
		return err ? err : g->kx->shared(out, c->hs->kx_priv, peer, peer_len);
	}
	c->kx_group = g;
	return g->kx->keygen_shared(c->hs->kx_priv, c->hs->kx_pub, out, peer, peer_len);
}

void msg_begin(struct hs_conn *c, uint8_t type, struct writer *w, struct writer_vec *v)
{
	int err = conn_out_room(c, msg_room(c, type));

	if (err == HS_ERR_NOMEM) {
		*w = writer_init(NULL, 0);
		w->err = err; /* msg_end returns it */
		return;
	}
	*w = writer_init(c->handshake_out + c->handshake_out_len,
			 c->handshake_out_cap - c->handshake_out_len);
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
	transcript_update(&c->hs->tr, c->handshake_out + c->handshake_out_len, w->len);
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
	struct rec_key *k = c->wr;
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
	return set_key(c->rd, c->suite, secret);
}

int set_write_key(struct hs_conn *c, const uint8_t *secret)
{
	return set_key(c->wr, c->suite, secret);
}

int set_write_key_suite(struct hs_conn *c, const struct suite *s, const uint8_t *secret)
{
	return set_key(c->wr, s, secret);
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
			       cfg->psk_find != NULL || cfg->select_cred != NULL,
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

int hs_conn_new(struct hs_conn **out, const struct hs_config *cfg)
{
	struct hs_conn *c;

	*out = NULL;
	TRY(check_config(cfg));
	c = mem_get(round64(sizeof(*c)));
	if (c == NULL)
		return HS_ERR_NOMEM;
	memset(c, 0, sizeof(*c));
	c->mem = c->mem_peak = round64(sizeof(*c));
	c->magic = CONN_MAGIC;
	c->cfg = cfg;
	c->role = cfg->role;
	c->alert_sent = -1;
	c->alert_recv = -1;
	c->ku_after = cfg->key_update_after;
	c->keys = conn_mem_alloc(c, sizeof(*c->keys));
	if (c->keys != NULL) {
		memset(c->keys, 0, sizeof(*c->keys));
		c->hs = conn_mem_alloc(c, sizeof(*c->hs));
	}
	if (c->hs == NULL) {
		hs_conn_free(c);
		return HS_ERR_NOMEM;
	}
	memset(c->hs, 0, sizeof(*c->hs));
	c->rd = rec_key_mem_init(&c->keys->rd);
	c->wr = rec_key_mem_init(&c->keys->wr);
	transcript_init(&c->hs->tr);
	*out = c;
	return 0;
}

/* The record keys and every buffer go (hs_conn_handoff, hs_conn_free). */
static void conn_release_records(struct hs_conn *c)
{
	if (c->keys != NULL) {
		rec_key_wipe(&c->keys->rd.key);
		rec_key_wipe(&c->keys->wr.key);
		conn_mem_free(c, c->keys, sizeof(*c->keys), 0);
	}
	c->keys = NULL;
	c->rd = c->wr = NULL;
	c->in_len = c->app_len = c->handshake_in_len = c->handshake_out_len = 0;
	c->out_off = c->out_len = 0;
	conn_idle(c);
}

/*
 * Wipe everything, then free. A second free of the same connection finds
 * the magic already wiped and aborts.
 */
void hs_conn_free(struct hs_conn *c)
{
	if (c == NULL)
		return;
	if (c->magic != CONN_MAGIC)
		abort(); /* double free, or not a connection */
	conn_hs_end(c);
	conn_release_records(c);
	keysched_wipe(&c->ks);
	if (c->tickets != NULL)
		conn_mem_free(c, c->tickets, sizeof(*c->tickets), sizeof(*c->tickets));
	conn_mem_free(c, c->peer_certs, c->peer_certs_cap, c->peer_certs_len);
	wipe(c, sizeof(*c)); /* the magic too */
	free(c);
}

int hs_conn_handoff(struct hs_conn *c)
{
	ENSURE(c != NULL, HS_ERR_ARG);
	TRY(c->err);
	if (c->handed_off)
		return 0;
	/* nothing may be lost: every queued byte pulled, no part of a record
	 * taken, no decrypted data unread */
	ENSURE(c->handshake_done && c->out_len == c->out_off && c->in_len == 0 &&
		       c->app_len == 0 && c->handshake_in_len == 0,
	       HS_ERR_TLS_STATE);
	conn_hs_end(c);
	conn_release_records(c);
	c->handed_off = 1;
	return 0;
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

		TRY(grow(c, &c->handshake_in, &c->handshake_in_cap, &c->handshake_in_hw,
			 c->handshake_in_len, c->handshake_in_len + take, 1024,
			 4 + HANDSHAKE_IN_MAX));
		memcpy(c->handshake_in + c->handshake_in_len, p + off, take);
		c->handshake_in_len += take;
		off += take;
		touched(&c->handshake_in_hw, c->handshake_in_len);
		if (c->handshake_in_len < 4)
			break;
		len = in_body_len(c);
		/* after the handshake: the one post-handshake limit ktls/ applies too */
		ENSURE(len <= (c->handshake_done ? REC_MSG_MAX : HANDSHAKE_IN_MAX), HS_ERR_TLS_MSG_TOO_LARGE);
		/* the whole message's room, now that its length is known */
		TRY(grow(c, &c->handshake_in, &c->handshake_in_cap, &c->handshake_in_hw,
			 c->handshake_in_len, 4 + len, 1024, 4 + HANDSHAKE_IN_MAX));
		if (c->handshake_in_len < 4 + len)
			continue;
		trace(c, 0, CT_HANDSHAKE, c->handshake_in, 4 + len);
		err = c->role == HS_ROLE_CLIENT ? client_handle(c, c->handshake_in, 4 + len)
						: server_handle(c, c->handshake_in, 4 + len);
		c->handshake_in_len = 0;
		TRY(err);
		if (c->handshake_done)
			conn_hs_end(c); /* the transcript and the rest are done with */
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

/* Open the protected record rec; early data the server skips gives *skipped. */
static int open_record(struct hs_conn *c, uint8_t *rec, uint8_t *type, size_t *n, int *skipped)
{
	size_t body_len = *n;
	int err;

	*skipped = 0;
	if (!c->rd->on) {
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
	err = rec_open(c->rd, rec, body_len, type, n);
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

/*
 * One whole record, rec[0 .. REC_HDR + body), header checked; application
 * data is left in place: *app_len bytes at rec + REC_HDR.
 */
static int process_record(struct hs_conn *c, uint8_t *rec, size_t rec_len, size_t *app_len)
{
	uint8_t type = rec[0];
	size_t n = rec_len - REC_HDR;
	uint8_t *body = rec + REC_HDR;
	int skipped;

	*app_len = 0;
	trace(c, 0, HS_TRACE_RECORD_HEADER, rec, REC_HDR);
	if (type == CT_CCS || (c->rd->on && type == CT_ALERT))
		trace(c, 0, type, body, n);
	if (type == CT_CCS)
		return on_ccs(c, body, n);
	if (c->rd->on && type == CT_ALERT)
		return on_plain_alert(c, body, n);
	TRY(open_record(c, rec, &type, &n, &skipped));
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
		*app_len = n;
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
	body = ((size_t)c->in[REC_LEAD + 3] << 8) | c->in[REC_LEAD + 4];
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
		if (c->in == NULL) {
			c->in = conn_mem_alloc(c, REC_BUF);
			ENSURE(c->in != NULL, HS_ERR_NOMEM);
			c->in_cap = REC_BUF;
		}
		memcpy(c->in + REC_LEAD + c->in_len, in + *used, take);
		c->in_len += take;
		touched(&c->in_hw, REC_LEAD + c->in_len);
		*used += take;
		if (c->in_len == REC_HDR)
			TRY(rec_check_header(c->in + REC_LEAD, c->rd->on, &body));
		if (c->in_len >= REC_HDR && hs_conn_input_wanted(c) == 0) {
			int err = process_record(c, c->in + REC_LEAD, c->in_len, &c->app_len);
			c->app_off = REC_LEAD + REC_HDR;
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
	ENSURE(!c->handed_off, HS_ERR_TLS_STATE);
	TRY(ensure_started(c));
	err = feed_bytes(c, in, len, used);
	if (err)
		err = fail(c, err);
	conn_idle(c);
	return err;
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
	if (avail > 0) /* out is NULL while nothing is queued */
		memcpy(out, c->out + c->out_off, avail);
	c->out_off += avail;
	c->out_pulled += avail;
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	*n = avail;
	conn_idle(c);
	return avail > 0 ? 0 : c->err;
}

const uint8_t *conn_out_view(struct hs_conn *c, size_t *n)
{
	*n = hs_conn_output_pending(c);
	return *n > 0 ? c->out + c->out_off : NULL;
}

void conn_out_ack(struct hs_conn *c, size_t n)
{
	c->out_off += n;
	c->out_pulled += n;
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	conn_idle(c);
}

int hs_conn_read(struct hs_conn *c, uint8_t *buf, size_t cap, size_t *n)
{
	size_t k = c->app_early ? 0 : c->app_len < cap ? c->app_len : cap;

	*n = 0;
	if (k == 0 && c->err != 0)
		return c->err;
	if (k > 0)
		memcpy(buf, c->in + c->app_off, k);
	c->app_off += k;
	c->app_len -= k;
	*n = k;
	conn_idle(c);
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
	TRY(rec_next_secret(h, c->wr->secret));
	c->ku_answer_end = c->out_queued;
	return set_write_key(c, c->wr->secret);
}

int ku_answer_pending(const struct hs_conn *c)
{
	return c->out_pulled < c->ku_answer_end;
}

static uint64_t ku_limit(const struct hs_conn *c)
{
	return c->ku_after != 0 ? c->ku_after : c->suite->record_limit;
}

/*
 * How much of want bytes of application data to queue: one record's worth
 * at a time (OUT_DATA_CAP: with room for a KeyUpdate before it), so the
 * queue holds at most one record buffer.
 */
static size_t fits(struct hs_conn *c, size_t want)
{
	size_t overhead = REC_HDR + 1 + HS_AEAD_TAG_LEN;
	size_t free_ = OUT_DATA_CAP - (c->out_len - c->out_off) - 2 * overhead - 8;

	if (free_ > OUT_DATA_CAP)
		return 0;
	return want < free_ ? want : free_;
}

size_t conn_data_room(struct hs_conn *c, size_t want)
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
	ENSURE(c->handshake_done && !c->handed_off, HS_ERR_TLS_STATE);
	ENSURE(!c->we_closed, HS_ERR_TLS_CLOSED);
	while (*n < len) {
		size_t want = len - *n > REC_MAX_PLAIN ? REC_MAX_PLAIN : len - *n;
		size_t k = fits(c, want);
		int err = 0;

		/* no short record behind a queued one: wait until it is pulled */
		if (k == 0 || (k < want && c->out_len > c->out_off))
			break;
		/* automatic KeyUpdate before the AEAD's per-key record limit */
		if (c->wr->seq + 1 >= ku_limit(c))
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
	ENSURE(c->handshake_done && !c->we_closed && !c->handed_off, HS_ERR_TLS_STATE);
	ENSURE(c->out_len - c->out_off + 64 <= OUT_CAP, HS_ERR_NO_SPACE);
	err = send_key_update(c, request_peer);
	return err ? fail(c, err) : 0;
}

/* ---- zero-copy records: the caller's buffers (include/hs/tls.h) ---- */

int hs_conn_seal(struct hs_conn *c, uint8_t *buf, size_t cap, size_t len, size_t *n)
{
	struct writer w = writer_init(buf, cap);
	int err;

	*n = 0;
	TRY(c->err);
	ENSURE(c->handshake_done && !c->handed_off, HS_ERR_TLS_STATE);
	ENSURE(!c->we_closed, HS_ERR_TLS_CLOSED);
	ENSURE(len <= REC_MAX_PLAIN && cap >= len + HS_RECORD_OVERHEAD, HS_ERR_ARG);
	/* the engine's own records (a KeyUpdate answer, tickets) go first */
	if (c->out_len > c->out_off)
		return HS_ERR_WANT_WRITE;
	/* automatic KeyUpdate before the AEAD's per-key record limit: queued,
	 * to be pulled and sent before this record, sealed on the next call */
	if (c->wr->seq + 1 >= ku_limit(c)) {
		err = send_key_update(c, 0);
		return err ? fail(c, err) : HS_ERR_WANT_WRITE;
	}
	/* the plaintext is where the record's body goes: sealed in place */
	err = rec_seal(c->wr, CT_APP, TLS12_VERSION, buf + REC_HDR, len, 0, &w);
	if (err)
		return fail(c, err);
	c->out_queued += w.len;
	c->out_pulled += w.len;
	*n = w.len;
	return 0;
}

int hs_conn_open(struct hs_conn *c, uint8_t *buf, size_t len, size_t *used, uint8_t **data,
		 size_t *data_len)
{
	size_t body;
	int err;

	*used = 0;
	*data = NULL;
	*data_len = 0;
	TRY(c->err);
	/* no part of a record and no unread data inside the engine */
	ENSURE(c->handshake_done && !c->handed_off && c->in_len == 0 && c->app_len == 0,
	       HS_ERR_TLS_STATE);
	if (c->peer_closed)
		return 0;
	if (len < REC_HDR)
		return HS_ERR_WANT_READ;
	err = rec_check_header(buf, c->rd->on, &body);
	if (err == 0 && len < REC_HDR + body)
		return HS_ERR_WANT_READ;
	if (err == 0)
		err = process_record(c, buf, REC_HDR + body, data_len);
	if (err) {
		*data_len = 0;
		err = fail(c, err);
	} else {
		*used = REC_HDR + body;
		*data = buf + REC_HDR;
	}
	conn_idle(c);
	return err;
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
	return c->ticket_len && c->tickets != NULL ? c->tickets->ticket : NULL;
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
