/*
 * Memory per connection (issue 12, libhs/README.md "Memory"), measured
 * with hs_conn_memory():
 *
 * - the peak of a handshake stays within 64 KiB on both sides (plain,
 *   HelloRetryRequest with a cookie, one byte at a time, client
 *   certificates, resumption);
 * - the handshake-only state is gone once the handshake ends; an idle
 *   connection holds no record or message buffer;
 * - on the userspace path a connection holds at most one record buffer
 *   each way while data is in flight, and releases them once drained;
 * - after hs_conn_handoff() (kTLS) at most 4 KiB remain, the getters and
 *   the exporter still work and the record calls are refused;
 * - the zero-copy records (hs_conn_seal / hs_conn_open) allocate nothing,
 *   interoperate with hs_conn_write / hs_conn_feed, wait for the engine's
 *   own records first, and fail a tampered record cleanly;
 * - every allocation of a handshake, a transfer, a KeyUpdate and a
 *   hand-off, failed in turn (test hook), gives HS_ERR_NOMEM on that side
 *   and nothing worse: no crash, and (ASan build) no leak.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "libhs/internal.h"
#include "pair.h"
#include "mtls_certs.h"
#include "tls_certs.h"

#define KIB 1024u
#define PEAK_MAX (64 * KIB)
#define HANDOFF_MAX (4 * KIB)

static uint8_t data[3 * REC_MAX_PLAIN];

static void fill_data(void)
{
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + (i >> 8));
}

static size_t mem(const struct hs_conn *c)
{
	return hs_conn_memory(c, NULL);
}

static size_t peak(const struct hs_conn *c)
{
	size_t p;

	(void)hs_conn_memory(c, &p);
	return p;
}

/* Idle: no handshake state, no buffer, only the header and the keys. */
static void assert_idle(const struct hs_conn *c)
{
	assert_null(c->hs);
	assert_null(c->in);
	assert_null(c->out);
	assert_null(c->handshake_in);
	assert_null(c->handshake_out);
	assert_non_null(c->keys);
}

static void handshake_within_peak(struct pair *p, size_t chunk)
{
	pair_start(p);
	assert_int_equal(pair_handshake(p, chunk), 0);
	assert_true(peak(p->c) <= PEAK_MAX);
	assert_true(peak(p->s) <= PEAK_MAX);
	/* and not trivially: a handshake does allocate record buffers */
	assert_true(peak(p->c) > REC_MAX_PLAIN);
	assert_idle(p->c);
	assert_idle(p->s);
	assert_true(mem(p->c) < peak(p->c));
}

static void test_handshake_peak(void **state)
{
	struct pair p;
	(void)state;
	for (size_t chunk = 0; chunk < 2; chunk++) {
		pair_init(&p, EC_CERT, EC_KEY_PKCS8);
		handshake_within_peak(&p, chunk);
		print_message("handshake peak: client %zu, server %zu bytes; idle %zu / %zu\n",
			      peak(p.c), peak(p.s), mem(p.c), mem(p.s));
		pair_free(&p);
		/* HelloRetryRequest with a cookie */
		pair_init(&p, EC_CERT, EC_KEY_PKCS8);
		p.scfg.hrr_cookie = 1;
		handshake_within_peak(&p, chunk);
		assert_int_equal(hs_conn_used_hrr(p.c), 1);
		pair_free(&p);
	}
}

static void test_handshake_peak_mtls(void **state)
{
	struct hs_x509_store *trust = NULL;
	struct hs_cred *ccred = NULL;
	struct pair p;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	assert_int_equal(hs_cred_load_pem(&ccred, MTLS_EC_CERT, strlen(MTLS_EC_CERT), MTLS_EC_KEY,
					  strlen(MTLS_EC_KEY)),
			 0);
	assert_int_equal(hs_x509_store_new(&trust), 0);
	assert_int_equal(hs_x509_store_add_pem(trust, MTLS_CA, strlen(MTLS_CA), NULL), 0);
	p.ccfg.cred = ccred;
	p.scfg.verify_client = HS_VERIFY_REQUIRE;
	p.scfg.client_trust = trust;
	p.scfg.send_ca_names = 1;
	handshake_within_peak(&p, 0);
	/* the client's chain is kept for hs_conn_peer_cert, at its own size */
	assert_true(hs_conn_peer_cert_count(p.s) > 0);
	assert_true(p.s->peer_certs_cap == p.s->peer_certs_len);
	pair_free(&p);
	hs_cred_free(ccred);
	hs_x509_store_free(trust);
}

/* A pair after its handshake, and what each side holds then. */
static void connected(struct pair *p, size_t *idle_c, size_t *idle_s)
{
	pair_init(p, EC_CERT, EC_KEY_PKCS8);
	pair_start(p);
	assert_int_equal(pair_handshake(p, 0), 0);
	*idle_c = mem(p->c);
	*idle_s = mem(p->s);
}

/* One record buffer each way while data is in flight, none once drained. */
static void test_userspace_buffers(void **state)
{
	struct pair p;
	uint8_t got[REC_MAX_PLAIN];
	size_t n, idle_c, idle_s;
	(void)state;
	connected(&p, &idle_c, &idle_s);
	/* a write of three records takes one: the queue holds one record */
	assert_int_equal(hs_conn_write(p.c, data, sizeof(data), &n), 0);
	assert_int_equal(n, REC_MAX_PLAIN);
	assert_non_null(p.c->out);
	assert_true(mem(p.c) - idle_c <= REC_MAX_WIRE + 256);
	wire_take(p.c, &p.c2s);
	assert_int_equal(mem(p.c), idle_c); /* pulled: released */
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	assert_non_null(p.s->in);
	assert_true(mem(p.s) - idle_s <= REC_MAX_WIRE + 256);
	assert_int_equal(hs_conn_read(p.s, got, 100, &n), 0);
	assert_int_equal(n, 100);
	assert_non_null(p.s->in); /* data left to read */
	assert_int_equal(hs_conn_read(p.s, got + 100, sizeof(got) - 100, &n), 0);
	assert_int_equal(n, sizeof(got) - 100);
	assert_memory_equal(got, data, sizeof(got));
	assert_int_equal(mem(p.s), idle_s); /* drained: released */
	assert_idle(p.s);
	/* the rest, and a KeyUpdate both ways, leave both idle again */
	assert_int_equal(pair_transfer(&p, 1, data, sizeof(data), 0), 0);
	assert_int_equal(hs_conn_key_update(p.c, 1), 0);
	assert_int_equal(pair_transfer(&p, 1, data, 100, 0), 0);
	assert_int_equal(pair_transfer(&p, 0, data, 100, 7), 0);
	assert_int_equal(mem(p.c), idle_c);
	assert_int_equal(mem(p.s), idle_s);
	assert_idle(p.c);
	assert_idle(p.s);
	pair_free(&p);
}

static void test_handoff(void **state)
{
	struct pair p;
	uint8_t a[32], b[32];
	size_t n, used;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(hs_conn_handoff(p.c), HS_ERR_TLS_STATE); /* before the handshake */
	assert_int_equal(pair_handshake(&p, 0), 0);
	/* a queued record not pulled: the hand-off would lose it */
	assert_int_equal(hs_conn_write(p.c, data, 10, &n), 0);
	assert_int_equal(hs_conn_handoff(p.c), HS_ERR_TLS_STATE);
	wire_take(p.c, &p.c2s);
	/* unread data on the server: refused too */
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	assert_int_equal(hs_conn_handoff(p.s), HS_ERR_TLS_STATE);
	assert_int_equal(hs_conn_read(p.s, a, sizeof(a), &n), 0);
	for (int side = 0; side < 2; side++) {
		struct hs_conn *x = side ? p.s : p.c;
		struct hs_secrets s;
		assert_int_equal(hs_conn_secrets(x, &s), 0);
		hs_secrets_wipe(&s);
		assert_int_equal(hs_conn_handoff(x), 0);
		assert_int_equal(hs_conn_handoff(x), 0); /* again: nothing */
		print_message("after hand-off: %zu bytes\n", mem(x));
		assert_true(mem(x) <= HANDOFF_MAX);
		assert_null(x->keys);
		assert_null(x->rd);
		assert_null(x->wr);
		/* still there: the getters and the exporter */
		assert_int_equal(hs_conn_suite(x), HS_TLS_AES_128_GCM_SHA256);
		assert_int_equal(hs_conn_handshake_done(x), 1);
		assert_int_equal(hs_conn_export(x, "EXPORTER-test", NULL, 0, side ? b : a, 32), 0);
		/* refused: every call that needs the keys, without a sticky error */
		assert_int_equal(hs_conn_write(x, data, 1, &n), HS_ERR_TLS_STATE);
		assert_int_equal(hs_conn_feed(x, data, 5, &used), HS_ERR_TLS_STATE);
		assert_int_equal(hs_conn_key_update(x, 0), HS_ERR_TLS_STATE);
		assert_int_equal(hs_conn_secrets(x, &s), HS_ERR_TLS_STATE);
		assert_int_equal(hs_conn_error(x), 0);
	}
	assert_memory_equal(a, b, 32);
	pair_free(&p);
}

/* ---- zero-copy records ---- */

/* Seal len bytes of data from a into buf (in place); returns the record length. */
static size_t seal(struct hs_conn *a, uint8_t *buf, size_t cap, size_t len)
{
	size_t n;

	memcpy(buf + HS_RECORD_HEADER_LEN, data, len);
	assert_int_equal(hs_conn_seal(a, buf, cap, len, &n), 0);
	assert_int_equal(n, len + HS_RECORD_OVERHEAD);
	return n;
}

static void test_zero_copy(void **state)
{
	static uint8_t buf[REC_MAX_WIRE + 64];
	struct pair p;
	uint8_t *d, got[64];
	size_t n, used, dlen, rec, idle_c, idle_s;
	(void)state;
	connected(&p, &idle_c, &idle_s);
	for (size_t len = 0; len <= REC_MAX_PLAIN; len = len ? len * 4 : 1) {
		rec = seal(p.c, buf, sizeof(buf), len);
		/* not a whole record yet */
		assert_int_equal(hs_conn_open(p.s, buf, rec - 1, &used, &d, &dlen), HS_ERR_WANT_READ);
		assert_int_equal(used, 0);
		assert_int_equal(hs_conn_open(p.s, buf, rec, &used, &d, &dlen), 0);
		assert_int_equal(used, rec);
		assert_int_equal(dlen, len);
		assert_ptr_equal(d, buf + HS_RECORD_HEADER_LEN); /* in place */
		assert_memory_equal(d, data, len);
		/* nothing allocated on either side */
		assert_int_equal(mem(p.c), idle_c);
		assert_int_equal(mem(p.s), idle_s);
	}
	/* too small a buffer, too much data */
	assert_int_equal(hs_conn_seal(p.c, buf, 100, 100, &n), HS_ERR_ARG);
	assert_int_equal(hs_conn_seal(p.c, buf, sizeof(buf), REC_MAX_PLAIN + 1, &n), HS_ERR_ARG);
	/* the zero-copy and the copying paths read each other's records */
	rec = seal(p.c, p.c2s.buf, WIRE_CAP, 40);
	p.c2s.len = rec;
	assert_int_equal(wire_feed(&p.c2s, p.s, 3), 0);
	assert_int_equal(hs_conn_read(p.s, got, sizeof(got), &n), 0);
	assert_int_equal(n, 40);
	assert_memory_equal(got, data, 40);
	assert_int_equal(hs_conn_write(p.s, data, 50, &n), 0);
	wire_take(p.s, &p.s2c);
	assert_int_equal(hs_conn_open(p.c, p.s2c.buf, p.s2c.len, &used, &d, &dlen), 0);
	assert_int_equal(dlen, 50);
	assert_memory_equal(d, data, 50);
	p.s2c.len = 0;
	/* the engine's own records first: a KeyUpdate asking for the peer's */
	assert_int_equal(hs_conn_key_update(p.c, 1), 0);
	assert_int_equal(hs_conn_seal(p.c, buf, sizeof(buf), 10, &n), HS_ERR_WANT_WRITE);
	assert_int_equal(hs_conn_error(p.c), 0); /* not sticky */
	wire_take(p.c, &p.c2s);
	assert_int_equal(hs_conn_open(p.s, p.c2s.buf, p.c2s.len, &used, &d, &dlen), 0);
	assert_int_equal(dlen, 0);
	assert_int_equal(used, p.c2s.len);
	p.c2s.len = 0;
	assert_int_equal(hs_conn_next_event(p.s), HS_EVENT_HANDSHAKE_DONE);
	assert_int_equal(hs_conn_next_event(p.s), HS_EVENT_KEY_UPDATE);
	/* the server's answer is queued: its seal waits for it */
	assert_int_equal(hs_conn_seal(p.s, buf, sizeof(buf), 10, &n), HS_ERR_WANT_WRITE);
	wire_take(p.s, &p.s2c);
	assert_int_equal(wire_feed(&p.s2c, p.c, 0), 0);
	rec = seal(p.s, buf, sizeof(buf), 10);
	assert_int_equal(hs_conn_open(p.c, buf, rec, &used, &d, &dlen), 0);
	assert_int_equal(dlen, 10);
	assert_memory_equal(d, data, 10);
	/* both sides on their new keys */
	rec = seal(p.c, buf, sizeof(buf), 1000);
	assert_int_equal(hs_conn_open(p.s, buf, rec, &used, &d, &dlen), 0);
	assert_int_equal(dlen, 1000);
	/* a tampered record: bad_record_mac, sticky, its alert queued */
	rec = seal(p.c, buf, sizeof(buf), 100);
	buf[rec - 1] ^= 1;
	assert_int_equal(hs_conn_open(p.s, buf, rec, &used, &d, &dlen), HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(dlen, 0);
	assert_int_equal(hs_conn_error(p.s), HS_ERR_TLS_BAD_RECORD_MAC);
	assert_true(hs_conn_output_pending(p.s) > 0);
	assert_int_equal(hs_conn_alert(p.s, 0), 20);
	assert_int_equal(hs_conn_seal(p.s, buf, sizeof(buf), 1, &n), HS_ERR_TLS_BAD_RECORD_MAC);
	pair_free(&p);
}

/* zero-copy before the handshake, and with part of a record in the engine */
static void test_zero_copy_state(void **state)
{
	static uint8_t buf[256];
	struct pair p;
	uint8_t *d;
	size_t n, used, dlen;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(hs_conn_seal(p.c, buf, sizeof(buf), 1, &n), HS_ERR_TLS_STATE);
	assert_int_equal(hs_conn_open(p.s, buf, sizeof(buf), &used, &d, &dlen), HS_ERR_TLS_STATE);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_feed(p.s, (const uint8_t *)"\x17\x03", 2, &used), 0);
	assert_int_equal(hs_conn_open(p.s, buf, sizeof(buf), &used, &d, &dlen), HS_ERR_TLS_STATE);
	pair_free(&p);
}

/* ---- every allocation failed in turn ---- */

/* Pump until both are done or one fails; the sides' errors in e[0], e[1]. */
static void pump(struct pair *p, int e[2])
{
	for (int round = 0; round < 40 && e[0] == 0 && e[1] == 0; round++) {
		wire_take(p->c, &p->c2s);
		e[1] = wire_feed(&p->c2s, p->s, 0);
		wire_take(p->s, &p->s2c);
		if (e[0] == 0)
			e[0] = wire_feed(&p->s2c, p->c, 0);
		if (hs_conn_handshake_done(p->c) && hs_conn_handshake_done(p->s) &&
		    p->c2s.len == 0 && p->s2c.len == 0 && hs_conn_output_pending(p->c) == 0 &&
		    hs_conn_output_pending(p->s) == 0)
			return;
	}
}

/*
 * A connection's life, with whatever allocation the hook fails: 1 if one
 * failed. offer: the session the client offers (NULL: a full handshake);
 * keep (not NULL): the client's session afterwards.
 */
static int life(struct pair *p, struct hs_ticket_keys *tk, struct hs_session *offer,
		struct hs_session **keep)
{
	int e[2] = { 0, 0 }, failed = 0;
	uint8_t got[600];
	size_t n;

	p->c2s.len = p->s2c.len = 0;
	p->c = p->s = NULL;
	p->ccfg.keep_tickets = 1;
	p->ccfg.reuse_tickets = 1; /* every run offers the same ticket */
	p->ccfg.session = offer;
	p->scfg.ticket_keys = tk;
	e[0] = hs_conn_new(&p->c, &p->ccfg);
	if (e[0] == 0)
		e[1] = hs_conn_new(&p->s, &p->scfg);
	if (e[0] == 0 && e[1] == 0)
		pump(p, e);
	if (e[0] == 0 && e[1] == 0) {
		e[0] = hs_conn_write(p->c, data, 500, &n);
		wire_take(p->c, &p->c2s);
		if (e[0] == 0)
			e[1] = wire_feed(&p->c2s, p->s, 0);
		if (e[1] == 0)
			e[1] = hs_conn_read(p->s, got, sizeof(got), &n);
		if (e[1] == 0)
			e[1] = hs_conn_key_update(p->s, 1);
		if (e[1] == 0)
			pump(p, e);
		if (e[0] == 0 && e[1] == 0 && hs_conn_error(p->c) == 0)
			e[1] = hs_conn_handoff(p->s);
	}
	/* the sticky errors too: a pull (wire_take) reports none */
	if (e[0] == 0 && p->c != NULL)
		e[0] = hs_conn_error(p->c);
	if (e[1] == 0 && p->s != NULL)
		e[1] = hs_conn_error(p->s);
	for (int side = 0; side < 2; side++) {
		/* a failure is HS_ERR_NOMEM on its side; the peer may see its alert */
		int err = e[side], other = e[1 - side];
		if (err == HS_ERR_NOMEM)
			failed = 1;
		else
			assert_true(err == 0 || (other == HS_ERR_NOMEM && err == HS_ERR_TLS_PEER_ALERT));
	}
	if (keep != NULL)
		assert_int_equal(hs_conn_session(p->c, keep), 0);
	hs_conn_free(p->c);
	hs_conn_free(p->s);
	p->c = p->s = NULL;
	return failed;
}

static void test_alloc_failures(void **state)
{
	struct hs_ticket_keys *tk = NULL;
	struct hs_session *sess = NULL;
	struct pair p;
	long made, k;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	assert_int_equal(hs_ticket_keys_new(&tk, 0, 0), 0);
	assert_int_equal(life(&p, tk, NULL, &sess), 0);
	/* a full handshake, then a resumption with the session it left */
	for (int resumed = 0; resumed < 2; resumed++) {
		struct hs_session *offer = resumed ? sess : NULL;
		(void)conn_test_alloc_fail(0);
		assert_int_equal(life(&p, tk, offer, NULL), 0);
		made = conn_test_alloc_fail(0);
		assert_true(made > 5);
		for (k = 1; k <= made; k++) {
			(void)conn_test_alloc_fail(k);
			assert_int_equal(life(&p, tk, offer, NULL), 1);
		}
		(void)conn_test_alloc_fail(0);
		print_message("%s: %ld allocations, each failed in turn\n",
			      resumed ? "resumption" : "full handshake", made);
	}
	hs_session_free(sess);
	hs_ticket_keys_free(tk);
	pair_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake_peak),
		cmocka_unit_test(test_handshake_peak_mtls),
		cmocka_unit_test(test_userspace_buffers),
		cmocka_unit_test(test_handoff),
		cmocka_unit_test(test_zero_copy),
		cmocka_unit_test(test_zero_copy_state),
		cmocka_unit_test(test_alloc_failures),
	};

	fill_data();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
