/*
 * Resumption pieces (RFC 8446 2.2, 4.2.11, 4.6.1): the server's ticket
 * keys and sealed tickets, the client's session object and its
 * serialised form, NewSessionTicket in both directions, PSK binders.
 *
 * Implementation notes.
 * - A ticket is key_name(16) || nonce(12) || AES-256-GCM(plain) || tag(16),
 *   the key name as associated data. plain = version(1) suite(2)
 *   issued(8, Unix ms) lifetime(4) age_add(4) psk_len(1) psk
 *   max_early_data(4) alpn_len(1) alpn (0-RTT's conditions). Only the
 *   server can read it; a ticket that fails to open (tampered, unknown or
 *   rotated-out key) is not an error: the handshake goes on in full.
 * - Key names are public and compared with memcmp; the tag check is the
 *   AEAD's (constant time). Binders are compared with ct_memneq.
 * - Ticket keys: current and previous, each an AEAD context; rotation
 *   wipes the old previous one. A mutex guards them (connections on
 *   several threads share one object).
 * - Secrets here: ticket keys (owned by struct hs_ticket_keys, wiped by
 *   rotation and free), ticket PSKs (in sealed tickets, in the client's
 *   struct hs_session, wiped by hs_session_free), binder keys (stack,
 *   wiped before return).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "libhs/internal.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/hkdf.h"
#include "crypto/hmac.h"
#include "crypto/rand.h"

#define TICKET_VERSION 2
#define KEY_NAME_LEN 16
#define TICKET_PLAIN_MAX (1 + 2 + 8 + 4 + 4 + 1 + HASH_MAX + 4 + 1 + NAME_MAX_LEN)
#define TICKET_SEALED_MAX (KEY_NAME_LEN + HS_AEAD_NONCE_LEN + TICKET_PLAIN_MAX + HS_AEAD_TAG_LEN)
#define SESSION_MAGIC_V1 0x68737331u /* "hss1": no 0-RTT fields */
#define SESSION_MAGIC 0x68737332u    /* "hss2" */

struct ticket_key {
	uint8_t name[KEY_NAME_LEN];
	struct aead_ctx ctx;
	int64_t made; /* Unix seconds */
	int live;
};

struct hs_ticket_keys {
	pthread_mutex_t lock;
	const struct aead *aead;
	uint32_t lifetime, rotate;
	struct ticket_key cur, prev;
};

int64_t resume_now_ms(const struct hs_conn *c)
{
	struct timespec ts;
	int64_t ms;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (c != NULL && test_hooks(c) != NULL)
		ms += test_hooks(c)->clock_skew_ms;
	return ms;
}

/* ---- ticket keys ---- */

static void key_wipe(const struct aead *a, struct ticket_key *k)
{
	if (k->live)
		a->wipe(&k->ctx);
	wipe(k, sizeof(*k));
}

static int key_make(const struct aead *a, struct ticket_key *k)
{
	uint8_t key[32];
	int err = rand_bytes(key, sizeof(key));

	if (err == 0)
		err = rand_bytes(k->name, sizeof(k->name));
	if (err == 0)
		err = a->init(&k->ctx, key);
	wipe(key, sizeof(key));
	k->live = err == 0;
	k->made = (int64_t)time(NULL);
	return err;
}

/* under the lock: the previous key is wiped, the current one moves there */
static int rotate_locked(struct hs_ticket_keys *k)
{
	key_wipe(k->aead, &k->prev);
	k->prev = k->cur;
	wipe(&k->cur, sizeof(k->cur));
	return key_make(k->aead, &k->cur);
}

static int maybe_rotate_locked(struct hs_ticket_keys *k)
{
	if ((int64_t)time(NULL) - k->cur.made >= (int64_t)k->rotate)
		return rotate_locked(k);
	return 0;
}

int hs_ticket_keys_new(struct hs_ticket_keys **out, uint32_t lifetime_secs, uint32_t rotate_secs)
{
	struct hs_ticket_keys *k;
	int err;

	*out = NULL;
	/* 4.6.1: "Servers MUST NOT use any value greater than 604800 seconds" */
	ENSURE(lifetime_secs <= 604800, HS_ERR_ARG);
	/* the AEAD contexts inside want 64-byte alignment (VAES stores);
	 * malloc promises 16: sizeof(*k) is a multiple of 64 (alignas member) */
	k = aligned_alloc(alignof(struct hs_ticket_keys), sizeof(*k));
	if (k == NULL)
		return HS_ERR_NOMEM;
	memset(k, 0, sizeof(*k));
	k->aead = aead_aes256gcm();
	k->lifetime = lifetime_secs != 0 ? lifetime_secs : 7200;
	k->rotate = rotate_secs != 0 ? rotate_secs : k->lifetime;
	pthread_mutex_init(&k->lock, NULL);
	err = key_make(k->aead, &k->cur);
	if (err != 0) {
		hs_ticket_keys_free(k);
		return err;
	}
	*out = k;
	return 0;
}

int hs_ticket_keys_rotate(struct hs_ticket_keys *k)
{
	int err;

	pthread_mutex_lock(&k->lock);
	err = rotate_locked(k);
	pthread_mutex_unlock(&k->lock);
	return err;
}

void hs_ticket_keys_free(struct hs_ticket_keys *k)
{
	if (k == NULL)
		return;
	key_wipe(k->aead, &k->cur);
	key_wipe(k->aead, &k->prev);
	pthread_mutex_destroy(&k->lock);
	wipe(k, sizeof(*k));
	free(k);
}

uint32_t ticket_lifetime(const struct hs_ticket_keys *k)
{
	return k->lifetime;
}

/* ---- sealed tickets ---- */

static void write_u64(struct writer *w, uint64_t v)
{
	write_u32(w, (uint32_t)(v >> 32));
	write_u32(w, (uint32_t)v);
}

static int read_u64(struct reader *r, uint64_t *v)
{
	uint32_t hi, lo;

	TRY(read_u32(r, &hi));
	TRY(read_u32(r, &lo));
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}

int ticket_seal(struct hs_ticket_keys *k, const struct ticket_state *st, uint8_t *out,
		size_t cap, size_t *n)
{
	uint8_t plain[TICKET_PLAIN_MAX];
	struct writer w = writer_init(plain, sizeof(plain));
	struct writer o = writer_init(out, cap);
	uint8_t nonce[HS_AEAD_NONCE_LEN], *dst;
	int err;

	write_u8(&w, TICKET_VERSION);
	write_u16(&w, st->suite);
	write_u64(&w, (uint64_t)st->issued_ms);
	write_u32(&w, st->lifetime);
	write_u32(&w, st->age_add);
	write_u8(&w, (uint8_t)st->psk_len);
	write_bytes(&w, st->psk, st->psk_len);
	write_u32(&w, st->max_early);
	write_u8(&w, (uint8_t)strlen(st->alpn));
	write_bytes(&w, st->alpn, strlen(st->alpn));
	err = writer_error(&w);
	if (err == 0)
		err = rand_bytes(nonce, sizeof(nonce));
	pthread_mutex_lock(&k->lock);
	if (err == 0)
		err = maybe_rotate_locked(k);
	if (err == 0) {
		write_bytes(&o, k->cur.name, KEY_NAME_LEN);
		write_bytes(&o, nonce, sizeof(nonce));
		dst = write_reserve(&o, w.len + HS_AEAD_TAG_LEN);
		err = writer_error(&o);
		if (err == 0)
			k->aead->seal(&k->cur.ctx, nonce, k->cur.name, KEY_NAME_LEN, plain, w.len,
				      dst);
	}
	pthread_mutex_unlock(&k->lock);
	wipe(plain, sizeof(plain));
	*n = o.len;
	return err;
}

/* The ticket's contents, or HS_ERR_BAD_TAG (or a decode error) if it is
 * not one of ours: unknown key, tampered, malformed. */
int ticket_open(struct hs_ticket_keys *k, const uint8_t *t, size_t len, struct ticket_state *st)
{
	struct reader r = reader_init(t, len), p;
	const uint8_t *name, *nonce;
	uint8_t plain[TICKET_PLAIN_MAX];
	const struct ticket_key *key = NULL;
	uint8_t version = 0, psk_len = 0, alpn_len = 0;
	uint64_t issued = 0;
	size_t body;
	int err;

	TRY(read_view(&r, KEY_NAME_LEN, &name));
	TRY(read_view(&r, HS_AEAD_NONCE_LEN, &nonce));
	body = reader_left(&r);
	ENSURE(body >= HS_AEAD_TAG_LEN && body - HS_AEAD_TAG_LEN <= sizeof(plain), HS_ERR_BAD_TAG);
	pthread_mutex_lock(&k->lock);
	err = maybe_rotate_locked(k);
	if (k->cur.live && memcmp(name, k->cur.name, KEY_NAME_LEN) == 0)
		key = &k->cur;
	else if (k->prev.live && memcmp(name, k->prev.name, KEY_NAME_LEN) == 0)
		key = &k->prev;
	if (err == 0)
		err = key == NULL ? HS_ERR_BAD_TAG
				  : k->aead->open(&key->ctx, nonce, name, KEY_NAME_LEN, r.p, body,
						  plain);
	pthread_mutex_unlock(&k->lock);
	if (err != 0)
		return err;
	p = reader_init(plain, body - HS_AEAD_TAG_LEN);
	err = read_u8(&p, &version);
	if (err == 0)
		err = read_u16(&p, &st->suite);
	if (err == 0)
		err = read_u64(&p, &issued);
	if (err == 0)
		err = read_u32(&p, &st->lifetime);
	if (err == 0)
		err = read_u32(&p, &st->age_add);
	if (err == 0)
		err = read_u8(&p, &psk_len);
	if (err == 0 && (version != TICKET_VERSION || psk_len > HASH_MAX))
		err = HS_ERR_BAD_TAG;
	if (err == 0)
		err = read_bytes(&p, st->psk, psk_len);
	if (err == 0)
		err = read_u32(&p, &st->max_early);
	if (err == 0)
		err = read_u8(&p, &alpn_len);
	if (err == 0)
		err = read_bytes(&p, st->alpn, alpn_len);
	st->alpn[err == 0 ? alpn_len : 0] = 0;
	if (err == 0)
		err = read_end(&p);
	st->issued_ms = (int64_t)issued;
	st->psk_len = psk_len;
	wipe(plain, sizeof(plain));
	return err;
}

/* ---- PSK from a ticket nonce (4.6.1), binders (4.2.11.2) ---- */

int ticket_psk(const struct hash *h, const uint8_t *res_master, const uint8_t *nonce,
	       size_t nonce_len, uint8_t *psk)
{
	return hkdf_expand_label(h, res_master, "resumption", nonce, nonce_len, psk,
				 h->digest_len);
}

int psk_binder(const struct transcript *tr, const struct hash *h, const uint8_t *psk,
	       size_t psk_len, int external, const uint8_t *partial, size_t n, uint8_t *out)
{
	struct keysched ks;
	uint8_t key[HASH_MAX], th[HASH_MAX];
	int err;

	err = keysched_start_psk(&ks, h, psk, psk_len);
	if (err == 0)
		err = keysched_binder_key(&ks, external, key);
	transcript_hash_plus(tr, h, partial, n, th);
	if (err == 0)
		err = keysched_finished(h, key, th, out);
	keysched_wipe(&ks);
	wipe(key, sizeof(key));
	return err;
}

/* ---- server: NewSessionTicket ---- */

/* The body of ticket number i (4.6.1) into w: PSK from ks.res_master,
 * sealed under the current ticket key. */
static int ticket_body(struct hs_conn *c, unsigned i, struct writer *w)
{
	const struct hash *h = c->suite->hash();
	struct ticket_state st;
	uint8_t nonce[1] = { (uint8_t)i }, sealed[TICKET_SEALED_MAX];
	size_t n;
	struct writer_vec sub;
	int err;

	st.suite = c->suite->id;
	st.issued_ms = resume_now_ms(c);
	st.lifetime = ticket_lifetime(c->cfg->ticket_keys);
	st.psk_len = h->digest_len;
	st.max_early = c->cfg->max_early_data;
	memcpy(st.alpn, c->alpn, sizeof(st.alpn));
	err = rand_bytes(&st.age_add, sizeof(st.age_add));
	if (err == 0)
		err = ticket_psk(h, c->ks.res_master, nonce, sizeof(nonce), st.psk);
	if (err == 0)
		err = ticket_seal(c->cfg->ticket_keys, &st, sealed, sizeof(sealed), &n);
	wipe(st.psk, sizeof(st.psk));
	TRY(err);
	write_u32(w, st.lifetime);
	write_u32(w, st.age_add);
	write_vec_open(w, 1, &sub);
	write_bytes(w, nonce, sizeof(nonce));
	TRY(write_vec_close(w, &sub));
	write_vec_open(w, 2, &sub);
	write_bytes(w, sealed, n);
	TRY(write_vec_close(w, &sub));
	early_ticket_ext(c, w); /* the extensions: early_data, or none */
	return writer_error(w);
}

/* How many tickets a connection issues: n_tickets (0 = 2), at most 256. */
static unsigned tickets_max(const struct hs_conn *c)
{
	unsigned n = c->cfg->n_tickets != 0 ? c->cfg->n_tickets : 2;

	return n < 256 ? n : 256;
}

int send_tickets(struct hs_conn *c)
{
	for (unsigned i = 0; i < tickets_max(c); i++) {
		struct writer w;
		struct writer_vec v;
		msg_begin(c, HT_NEW_SESSION_TICKET, &w, &v);
		TRY(ticket_body(c, i, &w));
		TRY(msg_end_notr(c, &w, &v));
	}
	return flush_handshake(c, TLS12_VERSION);
}

void hs_conn_end_tickets(struct hs_conn *c)
{
	keysched_forget(c->ks.res_master);
	c->tickets_open = 0;
}

/*
 * defer_tickets: the ticket goes to the caller (a kTLS socket sends it),
 * not to our queue, so it is built in out[] and never in handshake_out.
 */
int hs_conn_make_ticket(struct hs_conn *c, uint8_t *out, size_t cap, size_t *n)
{
	struct writer w = writer_init(out, cap);
	struct writer_vec v;

	*n = 0;
	TRY(c->err);
	ENSURE(c->role == HS_ROLE_SERVER && c->handshake_done && c->tickets_open &&
		       c->n_tickets < tickets_max(c),
	       HS_ERR_TLS_STATE);
	write_u8(&w, HT_NEW_SESSION_TICKET);
	write_vec_open(&w, 3, &v);
	TRY(ticket_body(c, c->n_tickets, &w));
	TRY(write_vec_close(&w, &v));
	TRY(writer_error(&w));
	conn_trace_sent(c, out, w.len);
	*n = w.len;
	if (++c->n_tickets == tickets_max(c))
		hs_conn_end_tickets(c); /* the last one: res_master goes */
	return 0;
}

/* ---- client: tickets kept in the connection, the session object ---- */

void session_add(struct hs_session *s, const struct session_ticket *t, uint16_t suite)
{
	if (s->suite != suite)
		s->n = 0; /* tickets of one suite's hash per session */
	s->suite = suite;
	if (s->n == SESSION_TICKETS) { /* the oldest goes */
		wipe(&s->t[0], sizeof(s->t[0]));
		memmove(&s->t[0], &s->t[1], (SESSION_TICKETS - 1) * sizeof(s->t[0]));
		s->n--;
	}
	s->t[s->n++] = *t;
}

int hs_conn_session(const struct hs_conn *c, struct hs_session **out)
{
	*out = NULL;
	ENSURE(c->role == HS_ROLE_CLIENT && c->tickets != NULL && c->tickets->got.n > 0,
	       HS_ERR_TLS_STATE);
	*out = malloc(sizeof(**out));
	if (*out == NULL)
		return HS_ERR_NOMEM;
	**out = c->tickets->got;
	return 0;
}

static int ticket_fresh(const struct session_ticket *t, int64_t now)
{
	return !t->used && now >= t->recv_ms && now - t->recv_ms < (int64_t)t->lifetime * 1000;
}

size_t hs_session_tickets(const struct hs_session *s)
{
	size_t n = 0;
	int64_t now = resume_now_ms(NULL);

	for (size_t i = 0; i < s->n; i++)
		n += ticket_fresh(&s->t[i], now);
	return n;
}

struct session_ticket *session_pick(struct hs_session *s, int64_t now)
{
	for (size_t i = s->n; i-- > 0;) /* newest first */
		if (ticket_fresh(&s->t[i], now))
			return &s->t[i];
	return NULL;
}

int hs_session_save(const struct hs_session *s, uint8_t *buf, size_t cap, size_t *n)
{
	struct writer w = writer_init(buf, cap);
	int64_t now = resume_now_ms(NULL);
	size_t k = hs_session_tickets(s);

	write_u32(&w, SESSION_MAGIC);
	write_u16(&w, s->suite);
	write_u8(&w, (uint8_t)k);
	for (size_t i = 0; i < s->n; i++) {
		const struct session_ticket *t = &s->t[i];
		struct writer_vec v;
		if (!ticket_fresh(t, now))
			continue;
		write_vec_open(&w, 2, &v);
		write_bytes(&w, t->ticket, t->len);
		write_vec_close(&w, &v);
		write_u32(&w, t->lifetime);
		write_u32(&w, t->age_add);
		write_u64(&w, (uint64_t)t->recv_ms);
		write_u8(&w, (uint8_t)t->psk_len);
		write_bytes(&w, t->psk, t->psk_len);
		write_u32(&w, t->max_early);
		write_u8(&w, (uint8_t)strlen(t->alpn));
		write_bytes(&w, t->alpn, strlen(t->alpn));
	}
	*n = w.len;
	return writer_error(&w);
}

static int load_ticket(struct reader *r, struct session_ticket *t, size_t hlen, int v1)
{
	struct reader tk;
	uint64_t recv;
	uint8_t psk_len, alpn_len;

	TRY(read_vec(r, 2, 1, TICKET_MAX, &tk));
	memcpy(t->ticket, tk.p, tk.len);
	t->len = tk.len;
	TRY(read_u32(r, &t->lifetime));
	TRY(read_u32(r, &t->age_add));
	TRY(read_u64(r, &recv));
	t->recv_ms = (int64_t)recv;
	TRY(read_u8(r, &psk_len));
	ENSURE(psk_len == hlen, HS_ERR_TLS_DECODE);
	t->psk_len = psk_len;
	TRY(read_bytes(r, t->psk, psk_len));
	if (v1) /* saved before 0-RTT: none */
		return 0;
	TRY(read_u32(r, &t->max_early));
	TRY(read_u8(r, &alpn_len));
	TRY(read_bytes(r, t->alpn, alpn_len));
	t->alpn[alpn_len] = 0;
	return 0;
}

int hs_session_load(struct hs_session **out, const uint8_t *buf, size_t len)
{
	struct reader r = reader_init(buf, len);
	struct hs_session *s;
	const struct suite *suite;
	uint32_t magic;
	uint8_t n;
	int err;

	*out = NULL;
	TRY(read_u32(&r, &magic));
	ENSURE(magic == SESSION_MAGIC || magic == SESSION_MAGIC_V1, HS_ERR_TLS_DECODE);
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return HS_ERR_NOMEM;
	err = read_u16(&r, &s->suite);
	if (err == 0)
		err = read_u8(&r, &n);
	suite = err == 0 ? suite_find(s->suite) : NULL;
	if (err == 0 && (suite == NULL || n > SESSION_TICKETS))
		err = HS_ERR_TLS_DECODE;
	for (size_t i = 0; err == 0 && i < n; i++) {
		err = load_ticket(&r, &s->t[i], suite->hash()->digest_len,
				  magic == SESSION_MAGIC_V1);
		s->n += err == 0;
	}
	if (err == 0)
		err = read_end(&r);
	if (err != 0) {
		hs_session_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void hs_session_free(struct hs_session *s)
{
	if (s == NULL)
		return;
	wipe(s, sizeof(*s));
	free(s);
}

int hs_conn_export(const struct hs_conn *c, const char *label, const uint8_t *context,
		   size_t context_len, uint8_t *out, size_t out_len)
{
	ENSURE(c->handshake_done && c->err == 0, HS_ERR_TLS_STATE);
	ENSURE(label != NULL && strlen(label) <= 255 - 6, HS_ERR_ARG);
	return keysched_export(&c->ks, 0, label, context, context_len, out, out_len);
}

int hs_conn_external_psk(const struct hs_conn *c)
{
	return c->resumed != 0 && c->psk_external;
}

int hs_conn_resumed(const struct hs_conn *c)
{
	return c->resumed;
}
