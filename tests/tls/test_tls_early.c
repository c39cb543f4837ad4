/*
 * 0-RTT (RFC 8446 2.3, 4.2.10, 8) between the engine's client and server in
 * memory: accepted early data reaches the server through
 * hs_conn_read_early (HS_EVENT_EARLY_DATA), never through hs_conn_read,
 * for every suite, and 1-RTT data follows; the early exporter agrees on
 * both sides; client_early_traffic_secret is in the key log on both sides
 * and wiped once a record key holds it. Rejected, the handshake completes
 * in 1-RTT, the server skips the early data and both sides say so: the
 * same ticket offered twice, the client's first flight replayed byte for
 * byte to another server sharing the ticket keys and register, a ticket
 * age outside the window, a full register, another ALPN, another suite,
 * the ticket as the second identity, the application refusing, a
 * HelloRetryRequest. Off by default (no early_data in tickets, none
 * accepted). More early data than the ticket allows: unexpected_message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hs/tls.h"
#include "libhs/internal.h"
#include "pair.h"
#include "tls_certs.h"

static const uint16_t all_suites[] = { HS_TLS_AES_128_GCM_SHA256, HS_TLS_AES_256_GCM_SHA384,
				       HS_TLS_CHACHA20_POLY1305_SHA256 };
static const uint8_t early_msg[] = "GET /index.html HTTP/1.1 (0-RTT)";

struct eopts {
	const uint16_t *csuites, *ssuites;
	size_t n_csuites, n_ssuites;
	const char *const *calpn, *const *salpn;
	size_t n_calpn, n_salpn;
	uint32_t max_early;       /* server */
	int no_early;             /* client: early_data off */
	int reuse, hrr_cookie;
	int (*ok)(void *, const struct hs_conn *);
	struct test_hooks *shooks;
	const uint8_t *data; /* early data to write (default early_msg) */
	size_t data_len;
	struct hs_session **out; /* the new session */
	uint8_t *flight; /* the client's first flight, copied here */
	size_t *flight_len;
};

struct eresult {
	int err, serr, salert, calert;
	int c_early, s_early;
	size_t written, got, events;
	uint8_t buf[70000];
};

/* keylog: remember the CLIENT_EARLY_TRAFFIC_SECRET line */
struct klog {
	char early[256];
};

static void keylog(void *arg, const char *line)
{
	struct klog *k = arg;

	if (strncmp(line, "CLIENT_EARLY_TRAFFIC_SECRET ", 28) == 0)
		snprintf(k->early, sizeof(k->early), "%s", line);
}

static void drain_events(struct hs_conn *s, size_t *n)
{
	enum hs_event ev;

	while ((ev = hs_conn_next_event(s)) != HS_EVENT_NONE)
		*n += ev == HS_EVENT_EARLY_DATA;
}

/* Feed the server what the client sent, reading early data as it comes. */
static int feed_server(struct pair *p, struct eresult *r)
{
	uint8_t junk[64];
	size_t n;
	int err;

	for (;;) {
		err = wire_feed(&p->c2s, p->s, 0);
		drain_events(p->s, &r->events);
		if (err != 0)
			return err;
		/* early data is never 1-RTT data */
		assert_int_equal(hs_conn_read(p->s, junk, sizeof(junk), &n), 0);
		assert_int_equal(n, 0);
		assert_int_equal(hs_conn_read_early(p->s, r->buf + r->got, sizeof(r->buf) - r->got, &n),
				 0);
		r->got += n;
		if (n == 0)
			return 0;
	}
}

static int pump(struct pair *p, struct eresult *r)
{
	for (int round = 0; round < 64; round++) {
		int cerr, serr;
		wire_take(p->c, &p->c2s);
		serr = feed_server(p, r);
		wire_take(p->s, &p->s2c);
		cerr = wire_feed(&p->s2c, p->c, 0);
		wire_take(p->c, &p->c2s);
		if (serr || cerr) {
			wire_take(p->s, &p->s2c);
			(void)wire_feed(&p->c2s, p->s, 0);
			(void)wire_feed(&p->s2c, p->c, 0);
			r->serr = serr;
			return cerr ? cerr : serr;
		}
		if (hs_conn_handshake_done(p->c) && hs_conn_handshake_done(p->s) &&
		    p->c2s.len == 0 && p->s2c.len == 0)
			return 0;
	}
	return -9999;
}

static void setup(struct pair *p, struct hs_ticket_keys *k, struct hs_antireplay *ar,
		  struct hs_session *sess, const struct eopts *o, struct klog *ck, struct klog *sk)
{
	pair_init(p, EC_CERT, EC_KEY_PKCS8);
	p->ccfg.suites = o->csuites;
	p->ccfg.n_suites = o->n_csuites;
	p->scfg.suites = o->ssuites;
	p->scfg.n_suites = o->n_ssuites;
	p->ccfg.alpn = o->calpn;
	p->ccfg.n_alpn = o->n_calpn;
	p->scfg.alpn = o->salpn;
	p->scfg.n_alpn = o->n_salpn;
	p->ccfg.keep_tickets = 1;
	p->ccfg.session = sess;
	p->ccfg.reuse_tickets = o->reuse;
	p->ccfg.early_data = !o->no_early;
	p->ccfg.keylog = keylog;
	p->ccfg.keylog_arg = ck;
	p->scfg.keylog = keylog;
	p->scfg.keylog_arg = sk;
	p->scfg.ticket_keys = k;
	p->scfg.max_early_data = o->max_early;
	p->scfg.antireplay = o->max_early ? ar : NULL;
	p->scfg.early_data_ok = o->ok;
	p->scfg.hrr_cookie = o->hrr_cookie;
	pair_start(p);
}

/* One connection: early data written when the client may, the handshake,
 * what each side says of 0-RTT, 1-RTT data both ways. */
static void run(struct hs_ticket_keys *k, struct hs_antireplay *ar, struct hs_session *sess,
		const struct eopts *o, struct eresult *r)
{
	static const uint8_t late[] = "1-RTT data";
	const uint8_t *data = o->data != NULL ? o->data : early_msg;
	size_t len = o->data != NULL ? o->data_len : sizeof(early_msg);
	struct test_secrets cs_, ss_, ccap = { 0 }, scap = { 0 };
	struct test_hooks ch = { .capture = &ccap }, sh = { 0 };
	struct klog ck = { { 0 } }, sk = { { 0 } };
	struct pair p;
	int werr;

	memset(r, 0, offsetof(struct eresult, buf));
	setup(&p, k, ar, sess, o, &ck, &sk);
	if (o->shooks != NULL)
		sh = *o->shooks;
	sh.capture = &scap;
	assert_int_equal(conn_test_hooks(p.c, &ch), 0);
	assert_int_equal(conn_test_hooks(p.s, &sh), 0);
	/* the engine queues one record at a time (libhs/README.md "Memory"): pull
	 * between writes until the data or the ticket's allowance runs out */
	r->written = 0;
	werr = 0;
	for (int i = 0; werr == 0 && r->written < len && i < 16; i++) {
		size_t n = 0;

		werr = hs_conn_write_early(p.c, data + r->written, len - r->written, &n);
		r->written += n;
		if (werr == 0 && r->written < len)
			wire_take(p.c, &p.c2s);
	}
	if (werr == 0) {
		assert_int_equal(hs_conn_early_data(p.c), HS_EARLY_OFFERED);
		if (o->flight != NULL) {
			wire_take(p.c, &p.c2s);
			memcpy(o->flight, p.c2s.buf, p.c2s.len);
			*o->flight_len = p.c2s.len;
		}
	} else {
		assert_int_equal(werr, HS_ERR_TLS_STATE);
		assert_int_equal(r->written, 0);
	}
	r->err = pump(&p, r);
	r->c_early = hs_conn_early_data(p.c);
	r->s_early = hs_conn_early_data(p.s);
	r->salert = hs_conn_alert(p.s, 0);
	r->calert = hs_conn_alert(p.c, 0);
	if (r->err == 0) {
		assert_int_equal(r->c_early, r->s_early == HS_EARLY_NONE && werr != 0 ? HS_EARLY_NONE
										 : r->s_early);
		if (r->s_early == HS_EARLY_ACCEPTED) {
			uint8_t a[48], b[48], x[48];
			/* what was written arrived, whole, as early data */
			assert_int_equal(r->got, r->written);
			assert_memory_equal(r->buf, data, r->got);
			assert_int_equal(hs_conn_early_bytes(p.s), r->got);
			assert_int_equal(hs_conn_early_bytes(p.c), r->written);
			assert_true(r->events > 0);
			/* 7.5: the early exporter, equal on both sides, not the 1-RTT one */
			assert_int_equal(hs_conn_export_early(p.c, "EXPORTER-early", late, 3, a, 48), 0);
			assert_int_equal(hs_conn_export_early(p.s, "EXPORTER-early", late, 3, b, 48), 0);
			assert_memory_equal(a, b, 48);
			assert_int_equal(hs_conn_export(p.s, "EXPORTER-early", late, 3, x, 48), 0);
			assert_memory_not_equal(a, x, 48);
			/* the key log line on both sides, with the secret derived */
			assert_true(ck.early[0] != 0);
			assert_string_equal(ck.early, sk.early);
			assert_true(ccap.len > 0);
			assert_memory_equal(ccap.client_early, scap.client_early, ccap.len);
		} else {
			uint8_t x[16];
			assert_int_equal(r->got, 0);
			assert_int_equal(r->events, 0);
			assert_int_equal(hs_conn_export_early(p.s, "EXPORTER-early", NULL, 0, x, 16),
					 HS_ERR_TLS_STATE);
			assert_true(sk.early[0] == 0);
		}
		/* wiped once the record keys hold it */
		conn_test_secrets(p.c, &cs_);
		conn_test_secrets(p.s, &ss_);
		for (size_t i = 0; i < sizeof(cs_.client_early); i++)
			assert_true(cs_.client_early[i] == 0 && ss_.client_early[i] == 0);
		/* rejected: the application sends it again, now as 1-RTT data */
		if (r->c_early == HS_EARLY_REJECTED)
			assert_int_equal(pair_transfer(&p, 1, data, len, 0), 0);
		assert_int_equal(pair_transfer(&p, 1, late, sizeof(late), 0), 0);
		assert_int_equal(pair_transfer(&p, 0, late, sizeof(late), 0), 0);
		if (o->out != NULL)
			assert_int_equal(hs_conn_session(p.c, o->out), 0);
	}
	pair_free(&p);
}

static struct hs_session *first_session(struct hs_ticket_keys *k, struct hs_antireplay *ar,
					struct eopts o)
{
	struct hs_session *s = NULL;
	struct eresult *r = malloc(sizeof(*r));

	assert_non_null(r);
	o.out = &s;
	run(k, ar, NULL, &o, r);
	assert_int_equal(r->err, 0);
	assert_int_equal(r->c_early, HS_EARLY_NONE);
	assert_non_null(s);
	free(r);
	return s;
}

struct fixture {
	struct hs_ticket_keys *k;
	struct hs_antireplay *ar;
	struct eresult *r;
};

static void fx_new(struct fixture *f, size_t entries)
{
	assert_int_equal(hs_ticket_keys_new(&f->k, 0, 0), 0);
	assert_int_equal(hs_antireplay_new(&f->ar, entries, 0), 0);
	f->r = malloc(sizeof(*f->r));
	assert_non_null(f->r);
}

static void fx_free(struct fixture *f)
{
	hs_ticket_keys_free(f->k);
	hs_antireplay_free(f->ar);
	free(f->r);
}

static void test_early_accepted(void **state)
{
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct fixture f;
		struct eopts o = { .csuites = &all_suites[i], .n_csuites = 1, .max_early = 16384 };
		struct hs_session *s, *s2 = NULL;

		fx_new(&f, 1024);
		s = first_session(f.k, f.ar, o);
		o.out = &s2;
		run(f.k, f.ar, s, &o, f.r);
		assert_int_equal(f.r->err, 0);
		assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
		assert_int_equal(f.r->got, sizeof(early_msg));
		/* the tickets of a 0-RTT connection allow 0-RTT again */
		o.out = NULL;
		run(f.k, f.ar, s2, &o, f.r);
		assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
		hs_session_free(s);
		hs_session_free(s2);
		fx_free(&f);
	}
}

/* As much as the ticket allows, in several records; more is not taken. */
static void test_early_max(void **state)
{
	struct fixture f;
	static uint8_t big[40000];
	struct eopts o = { .max_early = 20000, .data = big, .data_len = sizeof(big) };
	struct hs_session *s;

	(void)state;
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 13);
	fx_new(&f, 1024);
	s = first_session(f.k, f.ar, o);
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
	assert_int_equal(f.r->written, 20000);
	assert_int_equal(f.r->got, 20000);
	hs_session_free(s);
	fx_free(&f);
}

/* The same ticket twice (reuse_tickets): 0-RTT once; the second handshake
 * completes in 1-RTT. */
static void test_early_ticket_twice(void **state)
{
	struct fixture f;
	struct eopts o = { .max_early = 16384, .reuse = 1 };
	struct hs_session *s;

	(void)state;
	fx_new(&f, 1024);
	o.n_csuites = 0;
	s = first_session(f.k, f.ar, o);
	s->n = 1; /* one ticket, offered each time */
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->s_early, HS_EARLY_REJECTED);
	assert_int_equal(f.r->c_early, HS_EARLY_REJECTED);
	hs_session_free(s);
	fx_free(&f);
}

/* The client's first flight (ClientHello, CCS, early data) replayed byte
 * for byte to another server with the same ticket keys and register: the
 * ticket opens, the binder verifies, 0-RTT is refused, the early data
 * skipped. */
static void test_early_replayed_hello(void **state)
{
	struct fixture f;
	struct eopts o = { .max_early = 16384 };
	struct hs_session *s;
	static uint8_t flight[8192];
	size_t flight_len = 0, used;
	struct pair p;
	struct klog ck, sk;
	uint8_t junk[64];

	(void)state;
	fx_new(&f, 1024);
	s = first_session(f.k, f.ar, o);
	o.flight = flight;
	o.flight_len = &flight_len;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
	assert_true(flight_len > 0);
	o.flight = NULL;
	setup(&p, f.k, f.ar, NULL, &o, &ck, &sk);
	assert_int_equal(hs_conn_feed(p.s, flight, flight_len, &used), 0);
	assert_int_equal(used, flight_len); /* early records skipped, not held */
	assert_int_equal(hs_conn_resumed(p.s), 1);
	assert_int_equal(hs_conn_early_data(p.s), HS_EARLY_REJECTED);
	assert_int_equal(hs_conn_read_early(p.s, junk, sizeof(junk), &used), 0);
	assert_int_equal(used, 0);
	assert_true(hs_conn_output_pending(p.s) > 0); /* its 1-RTT flight */
	pair_free(&p);
	hs_session_free(s);
	fx_free(&f);
}

/* A ticket age that puts the ClientHello outside the window (5 s each
 * way with the default 10 s), seen by a server whose clock is ahead. */
static void test_early_age_window(void **state)
{
	struct fixture f;
	struct test_hooks ahead = { .clock_skew_ms = 6000 }, near = { .clock_skew_ms = 4000 };
	struct eopts o = { .max_early = 16384 };
	struct hs_session *s;

	(void)state;
	fx_new(&f, 1024);
	s = first_session(f.k, f.ar, o);
	o.shooks = &ahead;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->s_early, HS_EARLY_REJECTED);
	hs_session_free(s);
	s = first_session(f.k, f.ar, (struct eopts){ .max_early = 16384 });
	o.shooks = &near;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
	hs_session_free(s);
	fx_free(&f);
}

/* A register with room for 8 (one set): the ninth ticket in the window
 * finds no room and is refused 0-RTT, never accepted unchecked; once the
 * window has passed, the expired entries make room. */
static void test_early_register_full(void **state)
{
	struct fixture f;
	struct eopts o = { .max_early = 16384 };

	(void)state;
	fx_new(&f, 1);
	for (int i = 0; i < 9; i++) {
		struct hs_session *s = first_session(f.k, f.ar, o);
		run(f.k, f.ar, s, &o, f.r);
		assert_int_equal(f.r->err, 0);
		assert_int_equal(f.r->s_early, i < 8 ? HS_EARLY_ACCEPTED : HS_EARLY_REJECTED);
		hs_session_free(s);
	}
	/* 11 s on (the server's clock), the entries have expired: room again */
	struct test_hooks later = { .clock_skew_ms = 11000 };
	o.shooks = &later;
	for (int i = 0; i < 2; i++) {
		struct hs_session *s = first_session(f.k, f.ar, o);
		run(f.k, f.ar, s, &o, f.r);
		assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
		hs_session_free(s);
	}
	fx_free(&f);
	assert_int_not_equal(hs_antireplay_new(&f.ar, 0, 0), 0);
	assert_int_not_equal(hs_antireplay_new(&f.ar, 1, 3601), 0);
}

/* 4.2.10: the server picks another ALPN, or another suite of the same
 * hash, than the ticket's: resumed, 0-RTT rejected. */
static void test_early_alpn_suite(void **state)
{
	static const char *const h2_first[] = { "h2", "http/1.1" };
	static const char *const h1_first[] = { "http/1.1", "h2" };
	static const uint16_t aes[] = { HS_TLS_AES_128_GCM_SHA256 };
	static const uint16_t two[] = { HS_TLS_AES_128_GCM_SHA256,
					HS_TLS_CHACHA20_POLY1305_SHA256 };
	static const uint16_t chacha_first[] = { HS_TLS_CHACHA20_POLY1305_SHA256,
						 HS_TLS_AES_128_GCM_SHA256 };
	struct fixture f;
	struct eopts o = { .max_early = 16384, .calpn = h2_first, .n_calpn = 2,
			   .salpn = h2_first, .n_salpn = 2 };
	struct hs_session *s;

	(void)state;
	fx_new(&f, 1024);
	s = first_session(f.k, f.ar, o);
	run(f.k, f.ar, s, &o, f.r); /* same ALPN: accepted */
	assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
	o.salpn = h1_first;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->s_early, HS_EARLY_REJECTED);
	hs_session_free(s);
	/* a client that no longer offers the ticket's ALPN does not try */
	s = first_session(f.k, f.ar, o); /* ticket for http/1.1 */
	o.calpn = h2_first + 0;
	o.n_calpn = 1;
	o.salpn = h2_first;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->c_early, HS_EARLY_NONE);
	assert_int_equal(f.r->s_early, HS_EARLY_NONE);
	hs_session_free(s);
	/* suite: ticket under AES-128-GCM, the server now prefers ChaCha20 */
	o = (struct eopts){ .max_early = 16384, .csuites = aes, .n_csuites = 1 };
	s = first_session(f.k, f.ar, o);
	o.csuites = two;
	o.n_csuites = 2;
	o.ssuites = chacha_first;
	o.n_ssuites = 2;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->s_early, HS_EARLY_REJECTED);
	assert_int_equal(f.r->c_early, HS_EARLY_REJECTED);
	hs_session_free(s);
	fx_free(&f);
}

static int refuse(void *arg, const struct hs_conn *c)
{
	(void)arg;
	assert_int_equal(hs_conn_resumed(c), 1);
	return 0;
}

/* The application refuses; a HelloRetryRequest rejects it too. */
static void test_early_refused(void **state)
{
	struct fixture f;
	struct eopts o = { .max_early = 16384, .reuse = 1 };
	struct hs_session *s;

	(void)state;
	fx_new(&f, 1024);
	s = first_session(f.k, f.ar, o);
	o.ok = refuse;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->s_early, HS_EARLY_REJECTED);
	/* refused ones take no room: the same ticket is accepted after */
	o.ok = NULL;
	o.hrr_cookie = 1;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->s_early, HS_EARLY_REJECTED);
	assert_int_equal(f.r->c_early, HS_EARLY_REJECTED);
	o.hrr_cookie = 0;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
	hs_session_free(s);
	fx_free(&f);
}

/* Off by default: no early_data in tickets, the client does not offer;
 * a client that offers anyway is rejected, the handshake completes. A
 * server config with max_early_data needs the register. */
static void test_early_off_by_default(void **state)
{
	struct fixture f;
	struct eopts o = { 0 };
	struct hs_session *s;
	struct hs_config cfg = { .role = HS_ROLE_SERVER, .max_early_data = 100,
				 .psk = (const uint8_t *)"k", .psk_len = 1,
				 .psk_identity = (const uint8_t *)"i", .psk_identity_len = 1 };
	struct hs_conn *c;
	uint8_t x[8];
	size_t n;

	(void)state;
	fx_new(&f, 1024);
	s = first_session(f.k, f.ar, o);
	assert_int_equal(s->t[0].max_early, 0);
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->c_early, HS_EARLY_NONE);
	assert_int_equal(f.r->s_early, HS_EARLY_NONE);
	for (size_t i = 0; i < s->n; i++)
		s->t[i].max_early = 1000; /* pretend they allowed 0-RTT */
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->c_early, HS_EARLY_REJECTED);
	assert_int_equal(f.r->s_early, HS_EARLY_REJECTED);
	hs_session_free(s);
	/* no session, or early_data off: nothing to write early */
	o.no_early = 1;
	run(f.k, f.ar, NULL, &o, f.r);
	assert_int_equal(f.r->err, 0);
	assert_int_equal(f.r->written, 0);
	assert_int_equal(hs_conn_new(&c, &cfg), HS_ERR_ARG);
	cfg.antireplay = f.ar;
	assert_int_equal(hs_conn_new(&c, &cfg), 0);
	hs_conn_free(c);
	cfg.role = HS_ROLE_CLIENT;
	cfg.insecure = 1;
	cfg.max_early_data = 0;
	cfg.psk = NULL;
	assert_int_equal(hs_conn_new(&c, &cfg), 0);
	assert_int_equal(hs_conn_write_early(c, x, 1, &n), HS_ERR_TLS_STATE);
	assert_int_equal(hs_conn_export_early(c, "x", NULL, 0, x, 8), HS_ERR_TLS_STATE);
	hs_conn_free(c);
	fx_free(&f);
}

/* 4.2.10: more early data than the ticket's max_early_data_size:
 * unexpected_message (the client here believes its ticket allows more). */
static void test_early_over_limit(void **state)
{
	struct fixture f;
	static uint8_t big[3000];
	struct eopts o = { .max_early = 1000, .data = big, .data_len = sizeof(big) };
	struct hs_session *s;

	(void)state;
	fx_new(&f, 1024);
	s = first_session(f.k, f.ar, o);
	assert_int_equal(s->t[s->n - 1].max_early, 1000);
	s->t[s->n - 1].max_early = 100000;
	run(f.k, f.ar, s, &o, f.r);
	assert_int_equal(f.r->written, sizeof(big));
	assert_int_equal(f.r->serr, HS_ERR_TLS_EARLY_DATA_LIMIT);
	assert_int_equal(f.r->salert, 10); /* unexpected_message */
	hs_session_free(s);
	fx_free(&f);
}

/* The session keeps 0-RTT's terms through save and load. */
static void test_early_session_saved(void **state)
{
	static const char *const alpn[] = { "h2" };
	struct fixture f;
	struct eopts o = { .max_early = 4096, .calpn = alpn, .n_calpn = 1, .salpn = alpn,
			   .n_salpn = 1 };
	struct hs_session *s, *l;
	uint8_t buf[HS_SESSION_MAX];
	size_t n;

	(void)state;
	fx_new(&f, 1024);
	s = first_session(f.k, f.ar, o);
	assert_int_equal(hs_session_save(s, buf, sizeof(buf), &n), 0);
	hs_session_free(s);
	assert_int_equal(hs_session_load(&l, buf, n), 0);
	assert_int_equal(l->t[0].max_early, 4096);
	assert_string_equal(l->t[0].alpn, "h2");
	run(f.k, f.ar, l, &o, f.r);
	assert_int_equal(f.r->s_early, HS_EARLY_ACCEPTED);
	hs_session_free(l);
	fx_free(&f);
}

/*
 * The client's ClientHello rebuilt with two identities, its ticket and the
 * ticket with a byte changed, in the order asked (ticket_first), the
 * ticket's binder computed over the new hello; fed to a server. Returns
 * what the server says of 0-RTT.
 */
static int two_identities(struct fixture *f, struct hs_session *s, int ticket_first)
{
	struct eopts o = { .max_early = 16384, .reuse = 1 };
	struct klog ck, sk;
	struct pair p;
	struct transcript tr;
	const struct session_ticket *t = &s->t[s->n - 1];
	uint8_t rec[4096], out[4096];
	size_t n = 0, pos, ext_start, psk_at = 0, o_len, used;
	uint32_t age;

	setup(&p, f->k, f->ar, s, &o, &ck, &sk);
	assert_int_equal(hs_conn_pull(p.c, rec, sizeof(rec), &n), 0);
	assert_true(n > 5 && rec[0] == 22);
	n = 5 + (size_t)(rec[3] << 8 | rec[4]); /* the ClientHello record alone */
	/* record(5) type(1) len(3) version(2) random(32) sid, suites, comp */
	pos = 5 + 4 + 2 + 32;
	pos += 1 + rec[pos];
	pos += 2 + (size_t)(rec[pos] << 8 | rec[pos + 1]);
	pos += 1 + rec[pos];
	ext_start = pos + 2;
	for (size_t e = ext_start; e < n; e += 4 + (size_t)(rec[e + 2] << 8 | rec[e + 3]))
		if ((rec[e] << 8 | rec[e + 1]) == 41)
			psk_at = e;
	assert_true(psk_at > 0);
	/* the age the client sent: after type(2) len(2) ids_len(2) id_len(2) id */
	pos = psk_at + 8 + t->len;
	age = (uint32_t)rec[pos] << 24 | (uint32_t)rec[pos + 1] << 16 | (uint32_t)rec[pos + 2] << 8 |
	      rec[pos + 3];
	memcpy(out, rec, psk_at);
	o_len = psk_at;
	{
		size_t ids = 2 * (2 + t->len + 4), body = 2 + ids + 2 + 2 * 33;
		out[o_len++] = 0;
		out[o_len++] = 41;
		out[o_len++] = (uint8_t)(body >> 8);
		out[o_len++] = (uint8_t)body;
		out[o_len++] = (uint8_t)(ids >> 8);
		out[o_len++] = (uint8_t)ids;
		for (int i = 0; i < 2; i++) {
			int real = (i == 0) == (ticket_first != 0);
			out[o_len++] = (uint8_t)(t->len >> 8);
			out[o_len++] = (uint8_t)t->len;
			memcpy(out + o_len, t->ticket, t->len);
			if (!real)
				out[o_len + t->len - 1] ^= 1;
			o_len += t->len;
			out[o_len++] = (uint8_t)(age >> 24);
			out[o_len++] = (uint8_t)(age >> 16);
			out[o_len++] = (uint8_t)(age >> 8);
			out[o_len++] = (uint8_t)age;
		}
		out[o_len++] = 0;
		out[o_len++] = 66;
		for (int i = 0; i < 2; i++) {
			out[o_len++] = 32;
			memset(out + o_len, 0, 32);
			o_len += 32;
		}
	}
	/* lengths: extensions, handshake message, record */
	out[ext_start - 2] = (uint8_t)((o_len - ext_start) >> 8);
	out[ext_start - 1] = (uint8_t)(o_len - ext_start);
	out[6] = (uint8_t)((o_len - 9) >> 16);
	out[7] = (uint8_t)((o_len - 9) >> 8);
	out[8] = (uint8_t)(o_len - 9);
	out[3] = (uint8_t)((o_len - 5) >> 8);
	out[4] = (uint8_t)(o_len - 5);
	/* the ticket's binder over the new hello up to the binders */
	transcript_init(&tr);
	assert_int_equal(psk_binder(&tr, hash_sha256(), t->psk, t->psk_len, 0, out + 5,
				    o_len - 5 - 2 - 66,
				    out + o_len - (ticket_first ? 66 - 1 : 33 - 1)),
			 0);
	assert_int_equal(hs_conn_feed(p.s, out, o_len, &used), 0);
	assert_int_equal(used, o_len);
	assert_int_equal(hs_conn_resumed(p.s), 1);
	n = (size_t)hs_conn_early_data(p.s);
	pair_free(&p);
	return (int)n;
}

/* 4.2.10: 0-RTT only with the first identity. */
static void test_early_second_identity(void **state)
{
	struct fixture f;
	struct hs_session *s;

	(void)state;
	fx_new(&f, 1024);
	s = first_session(f.k, f.ar, (struct eopts){ .max_early = 16384 });
	/* the ticket second: resumed, 0-RTT rejected (and no room taken) ... */
	assert_int_equal(two_identities(&f, s, 0), HS_EARLY_REJECTED);
	/* ... the same hello with the ticket first: accepted */
	assert_int_equal(two_identities(&f, s, 1), HS_EARLY_ACCEPTED);
	hs_session_free(s);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_early_accepted),
		cmocka_unit_test(test_early_max),
		cmocka_unit_test(test_early_ticket_twice),
		cmocka_unit_test(test_early_replayed_hello),
		cmocka_unit_test(test_early_age_window),
		cmocka_unit_test(test_early_register_full),
		cmocka_unit_test(test_early_alpn_suite),
		cmocka_unit_test(test_early_refused),
		cmocka_unit_test(test_early_off_by_default),
		cmocka_unit_test(test_early_over_limit),
		cmocka_unit_test(test_early_session_saved),
		cmocka_unit_test(test_early_second_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
