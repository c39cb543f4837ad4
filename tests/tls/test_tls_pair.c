/*
 * Proves that the engine's client and server complete TLS 1.3 handshakes
 * with each other in memory and then carry data, for every cipher suite x
 * group x signature scheme; that HelloRetryRequest works for a group
 * mismatch and for a cookie; that ALPN and SNI are negotiated; that input
 * fed one byte at a time and fully coalesced both work and never consume a
 * byte past the record that completes the handshake; KeyUpdate both ways
 * (requested, automatic at the record limit); close_notify; the client
 * parsing a NewSessionTicket; that the secrets API gives each side the
 * other's keys; and that the message trace (hs_config.msg_cb) sees every
 * handshake message of both flights whole, each record header, the
 * close_notify alert, and never application data.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hs/secrets.h"
#include "hs/tls.h"
#include "libhs/internal.h"
#include "pair.h"
#include "testutil.h"
#include "tls_certs.h"

static const uint16_t all_suites[] = { HS_TLS_AES_128_GCM_SHA256, HS_TLS_AES_256_GCM_SHA384,
				       HS_TLS_CHACHA20_POLY1305_SHA256 };
static const uint16_t all_groups[] = { HS_GROUP_X25519, HS_GROUP_SECP256R1 };

static void one_combo(uint16_t suite, uint16_t group, int ed, size_t chunk)
{
	struct pair p;
	uint8_t data[3000];
	struct test_rng rng;

	pair_init(&p, ed ? ED_CERT : EC_CERT, ed ? ED_KEY_PKCS8 : EC_KEY_PKCS8);
	p.ccfg.suites = &suite;
	p.ccfg.n_suites = 1;
	p.ccfg.groups = &group;
	p.ccfg.n_groups = 1;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, chunk), 0);
	assert_int_equal(hs_conn_suite(p.c), suite);
	assert_int_equal(hs_conn_suite(p.s), suite);
	assert_int_equal(hs_conn_group(p.c), group);
	assert_int_equal(hs_conn_sig_scheme(p.c),
			 ed ? HS_SIG_ED25519 : HS_SIG_ECDSA_SECP256R1_SHA256);
	assert_int_equal(hs_conn_used_hrr(p.c), 0);
	assert_int_equal(hs_conn_next_event(p.c), HS_EVENT_HANDSHAKE_DONE);
	assert_int_equal(hs_conn_next_event(p.s), HS_EVENT_HANDSHAKE_DONE);
	test_rng_init(&rng, 42);
	test_rng_bytes(&rng, data, sizeof(data));
	assert_int_equal(pair_transfer(&p, 1, data, sizeof(data), chunk), 0);
	assert_int_equal(pair_transfer(&p, 0, data, 100, chunk), 0);
	pair_free(&p);
}

/* What the message trace saw on one side. */
struct seen {
	char msgs[64]; /* handshake types in order: 'C'lientHello, 'S'erverHello, ... */
	size_t n_msgs, n_headers, n_alerts, n_other;
	size_t len_ok; /* messages whose 24-bit length covers the rest exactly */
	int sent_mask; /* 1: something sent, 2: something received */
	/* record headers each way, and those whose body starts 64-byte aligned */
	size_t tx_headers, tx_aligned, rx_headers, rx_aligned;
};

static void seen_cb(void *arg, const struct hs_conn *c, int sent, int type, const uint8_t *m,
		    size_t len)
{
	static const char letters[] = { [1] = 'C', [2] = 'S', [4] = 'T', [8] = 'E', [11] = 'c',
					[13] = 'R', [15] = 'v', [20] = 'F', [24] = 'K' };
	struct seen *s = arg;

	assert_non_null(c);
	assert_non_null(hs_conn_state_name(c));
	s->sent_mask |= sent ? 1 : 2;
	if (type == HS_TRACE_RECORD_HEADER) {
		int aligned = ((uintptr_t)(m + len) & 63) == 0;

		assert_int_equal(len, 5);
		s->n_headers++;
		if (sent) {
			s->tx_headers++;
			s->tx_aligned += (size_t)aligned;
		} else {
			s->rx_headers++;
			s->rx_aligned += (size_t)aligned;
		}
	} else if (type == 22) {
		assert_true(len >= 4 && m[0] < sizeof(letters) && letters[m[0]] != 0);
		if (s->n_msgs + 1 < sizeof(s->msgs))
			s->msgs[s->n_msgs++] = letters[m[0]];
		if ((((size_t)m[1] << 16) | ((size_t)m[2] << 8) | m[3]) == len - 4)
			s->len_ok++;
	} else if (type == 21) {
		assert_int_equal(len, 2);
		s->n_alerts++;
	} else {
		s->n_other++; /* ChangeCipherSpec; application data must never come */
		assert_int_equal(type, 20);
	}
}

static void test_message_trace(void **state)
{
	struct pair p;
	struct seen cs = { 0 }, ss = { 0 };
	static const uint8_t data[] = "application data stays out of the trace";
	(void)state;

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.msg_cb = seen_cb;
	p.ccfg.msg_arg = &cs;
	p.scfg.msg_cb = seen_cb;
	p.scfg.msg_arg = &ss;
	pair_start(&p);
	assert_string_equal(hs_conn_state_name(p.c), "START");
	assert_int_equal(pair_handshake(&p, 7), 0);
	assert_string_equal(hs_conn_state_name(p.c), "CONNECTED");
	assert_string_equal(hs_conn_state_name(p.s), "CONNECTED");
	/* client: ClientHello out, ServerHello EE Certificate CV Finished in, Finished out */
	assert_string_equal(cs.msgs, "CSEcvFF");
	assert_string_equal(ss.msgs, "CSEcvFF");
	assert_int_equal(cs.len_ok, cs.n_msgs);
	assert_int_equal(ss.len_ok, ss.n_msgs);
	assert_int_equal(cs.sent_mask, 3);
	assert_true(cs.n_headers >= 4 && ss.n_headers >= 4);
	/* the engine opens every record in place with its body 64-byte aligned */
	assert_int_equal(cs.rx_aligned, cs.rx_headers);
	assert_int_equal(ss.rx_aligned, ss.rx_headers);
	/* and seals the first record into an empty buffer so too: the data */
	cs.tx_headers = cs.tx_aligned = 0;
	assert_int_equal(pair_transfer(&p, 1, data, sizeof(data), 0), 0);
	assert_int_equal(cs.tx_headers, 1);
	assert_int_equal(cs.tx_aligned, 1);
	assert_int_equal(ss.rx_aligned, ss.rx_headers);
	assert_int_equal(hs_conn_close(p.c), 0);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	assert_int_equal(cs.n_alerts, 1); /* our close_notify */
	assert_int_equal(ss.n_alerts, 1); /* the peer's */
	pair_free(&p);
}

static void test_matrix(void **state)
{
	(void)state;
	for (size_t s = 0; s < 3; s++)
		for (size_t g = 0; g < 2; g++)
			for (int ed = 0; ed < 2; ed++)
				one_combo(all_suites[s], all_groups[g], ed, 0);
}

static void test_byte_at_a_time(void **state)
{
	(void)state;
	one_combo(HS_TLS_AES_128_GCM_SHA256, HS_GROUP_X25519, 0, 1);
	one_combo(HS_TLS_CHACHA20_POLY1305_SHA256, HS_GROUP_SECP256R1, 1, 1);
	one_combo(HS_TLS_AES_256_GCM_SHA384, HS_GROUP_X25519, 1, 7);
}

static void test_sec1_key(void **state)
{
	struct pair p;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_SEC1);
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	pair_free(&p);
}

static void test_hrr_group_mismatch(void **state)
{
	static const uint16_t cg[] = { HS_GROUP_X25519, HS_GROUP_SECP256R1 };
	static const uint16_t sg[] = { HS_GROUP_SECP256R1 };
	struct pair p;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.groups = cg; /* share for x25519 only */
	p.ccfg.n_groups = 2;
	p.scfg.groups = sg; /* server takes only P-256 */
	p.scfg.n_groups = 1;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_used_hrr(p.c), 1);
	assert_int_equal(hs_conn_used_hrr(p.s), 1);
	assert_int_equal(hs_conn_group(p.c), HS_GROUP_SECP256R1);
	assert_int_equal(pair_transfer(&p, 1, (const uint8_t *)"hello", 5, 0), 0);
	pair_free(&p);
}

static void test_hrr_cookie(void **state)
{
	struct pair p;
	(void)state;
	for (size_t chunk = 0; chunk < 2; chunk++) {
		pair_init(&p, EC_CERT, EC_KEY_PKCS8);
		p.scfg.hrr_cookie = 1;
		pair_start(&p);
		assert_int_equal(pair_handshake(&p, chunk), 0);
		assert_int_equal(hs_conn_used_hrr(p.c), 1);
		assert_int_equal(hs_conn_group(p.c), HS_GROUP_X25519);
		/* the cookie was echoed: the server checks it (check_retry) before it
		 * goes on; its handshake-only state (the cookie) is gone since */
		assert_null(p.s->hs);
		assert_int_equal(pair_transfer(&p, 0, (const uint8_t *)"hello", 5, 0), 0);
		pair_free(&p);
	}
}

static void test_hrr_no_compat(void **state)
{
	static const uint16_t sg[] = { HS_GROUP_SECP256R1 };
	struct pair p;
	(void)state;
	pair_init(&p, ED_CERT, ED_KEY_PKCS8);
	p.ccfg.no_compat = 1;
	p.scfg.groups = sg;
	p.scfg.n_groups = 1;
	p.scfg.hrr_cookie = 1;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_used_hrr(p.c), 1);
	assert_int_equal(p.c->ccs_sent, 0);
	assert_int_equal(p.s->ccs_sent, 0);
	pair_free(&p);
}

static void test_alpn_sni(void **state)
{
	static const char *const calpn[] = { "http/1.1", "h2" };
	static const char *const salpn[] = { "h2", "http/1.1" };
	static const char *const other[] = { "imap" };
	struct pair p;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.alpn = calpn;
	p.ccfg.n_alpn = 2;
	p.scfg.alpn = salpn;
	p.scfg.n_alpn = 2;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_string_equal(hs_conn_alpn(p.c), "h2");
	assert_string_equal(hs_conn_alpn(p.s), "h2");
	assert_string_equal(hs_conn_server_name(p.s), "localhost");
	pair_free(&p);

	/* wildcard SAN *.example.com */
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.server_name = "www.example.com";
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_string_equal(hs_conn_server_name(p.s), "www.example.com");
	assert_null(hs_conn_alpn(p.c));
	pair_free(&p);

	/* no common protocol: no_application_protocol */
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.alpn = other;
	p.ccfg.n_alpn = 1;
	p.scfg.alpn = salpn;
	p.scfg.n_alpn = 2;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(p.serr, HS_ERR_TLS_NO_ALPN);
	assert_int_equal(hs_conn_alert(p.s, 0), 120);
	assert_int_equal(hs_conn_alert(p.c, 1), 120);
	pair_free(&p);
}

static void test_name_and_pin(void **state)
{
	struct pair p;
	uint8_t other[2048];
	size_t n;
	(void)state;
	/* wrong name: bad_certificate */
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.server_name = "evil.test";
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), HS_ERR_TLS_CERT_NAME);
	assert_int_equal(hs_conn_alert(p.c, 0), 42);
	assert_int_equal(hs_conn_alert(p.s, 1), 42);
	pair_free(&p);
	/* another pinned certificate: unknown_ca */
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	assert_int_equal(hs_pem_cert_to_der(OTHER_CERT, strlen(OTHER_CERT), other, sizeof(other), &n), 0);
	p.ccfg.anchor_der = other;
	p.ccfg.anchor_len = n;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), HS_ERR_TLS_CERT_UNTRUSTED);
	assert_int_equal(hs_conn_alert(p.c, 0), 48);
	pair_free(&p);
	/* insecure: no pin, no name check, CertificateVerify still checked */
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.anchor_der = NULL;
	p.ccfg.anchor_len = 0;
	p.ccfg.insecure = 1;
	p.ccfg.server_name = "evil.test";
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	pair_free(&p);
}

/* Coalesced: the server's whole flight plus application data in one buffer;
 * the client must stop right after the record that completes the handshake. */
static void test_coalesced_exact_consumption(void **state)
{
	struct pair p;
	size_t used, n, before;
	uint8_t buf[64];
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	wire_take(p.s, &p.s2c);
	before = p.s2c.len;
	/* pretend the server already sent app data: append a fake trailing
	 * record; the client must leave it untouched */
	memcpy(p.s2c.buf + p.s2c.len, "\x17\x03\x03\x00\x05zzzzz", 10);
	p.s2c.len += 10;
	assert_int_equal(hs_conn_feed(p.c, p.s2c.buf, p.s2c.len, &used), 0);
	assert_int_equal(used, before);
	assert_true(hs_conn_handshake_done(p.c));
	/* the client's Finished completes the server */
	wire_take(p.c, &p.c2s);
	memcpy(p.c2s.buf + p.c2s.len, "\x17\x03\x03\x00\x05zzzzz", 10);
	assert_int_equal(hs_conn_feed(p.s, p.c2s.buf, p.c2s.len + 10, &used), 0);
	assert_int_equal(used, p.c2s.len);
	assert_true(hs_conn_handshake_done(p.s));
	/* several application records coalesced, one read at a time */
	p.c2s.len = 0;
	p.s2c.len = 0;
	for (int i = 0; i < 5; i++)
		assert_int_equal(hs_conn_write(p.s, (const uint8_t *)"abcd", 4, &n), 0);
	wire_take(p.s, &p.s2c);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(wire_feed(&p.s2c, p.c, 0), 0);
		assert_int_equal(hs_conn_read(p.c, buf, sizeof(buf), &n), 0);
		assert_int_equal(n, 4);
		assert_memory_equal(buf, "abcd", 4);
	}
	assert_int_equal(p.s2c.len, 0);
	pair_free(&p);
}

static void test_large_transfer(void **state)
{
	struct pair p;
	size_t len = 200000;
	uint8_t *data = malloc(len);
	struct test_rng rng;
	(void)state;
	test_rng_init(&rng, 7);
	test_rng_bytes(&rng, data, len);
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(pair_transfer(&p, 1, data, len, 0), 0);
	assert_int_equal(pair_transfer(&p, 0, data, len, 1000), 0);
	pair_free(&p);
	free(data);
}

static void check_secrets_match(struct pair *p)
{
	struct hs_secrets a, b;
	assert_int_equal(hs_conn_secrets(p->c, &a), 0);
	assert_int_equal(hs_conn_secrets(p->s, &b), 0);
	assert_int_equal(a.suite, b.suite);
	assert_memory_equal(a.tx->key, b.rx->key, a.key_len);
	assert_memory_equal(a.tx->iv, b.rx->iv, 12);
	assert_memory_equal(a.tx->secret, b.rx->secret, a.secret_len);
	assert_memory_equal(a.rx->key, b.tx->key, a.key_len);
	assert_int_equal(a.tx->seq, b.rx->seq);
	assert_int_equal(a.rx->seq, b.tx->seq);
	assert_memory_not_equal(a.tx->key, a.rx->key, a.key_len);
	hs_secrets_wipe(&a);
	hs_secrets_wipe(&b);
}

static void test_key_update(void **state)
{
	struct pair p;
	struct hs_secrets before, after;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.suites = &all_suites[1];
	p.ccfg.n_suites = 1;
	pair_start(&p);
	assert_int_equal(hs_conn_secrets(p.c, &before), HS_ERR_TLS_STATE);
	assert_int_equal(pair_handshake(&p, 0), 0);
	check_secrets_match(&p);
	assert_int_equal(hs_conn_secrets(p.c, &before), 0);
	/* client updates and requests; server must answer */
	assert_int_equal(hs_conn_key_update(p.c, 1), 0);
	assert_int_equal(pair_transfer(&p, 1, (const uint8_t *)"after-ku", 8, 0), 0);
	assert_int_equal(pair_transfer(&p, 0, (const uint8_t *)"reply", 5, 0), 0);
	assert_int_equal(pair_transfer(&p, 1, (const uint8_t *)"again", 5, 0), 0);
	assert_int_equal(hs_conn_secrets(p.c, &after), 0);
	assert_memory_not_equal(before.tx->secret, after.tx->secret, before.secret_len);
	assert_memory_not_equal(before.rx->secret, after.rx->secret, before.secret_len);
	check_secrets_match(&p);
	/* server updates without request */
	assert_int_equal(hs_conn_key_update(p.s, 0), 0);
	assert_int_equal(pair_transfer(&p, 0, (const uint8_t *)"x", 1, 1), 0);
	check_secrets_match(&p);
	hs_secrets_wipe(&before);
	hs_secrets_wipe(&after);
	pair_free(&p);
}

static void test_auto_key_update(void **state)
{
	struct pair p;
	uint8_t data[100] = { 0 };
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.key_update_after = 3;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(pair_transfer(&p, 1, data, sizeof(data), 0), 0);
	/* 10 records at most 3 per key: the client's write key moved on */
	assert_true(p.c->wr->seq < 3);
	check_secrets_match(&p);
	pair_free(&p);
}

static void test_close_notify(void **state)
{
	struct pair p;
	size_t n;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_write(p.c, (const uint8_t *)"bye", 3, &n), 0);
	assert_int_equal(hs_conn_close(p.c), 0);
	assert_int_equal(hs_conn_write(p.c, (const uint8_t *)"x", 1, &n), HS_ERR_TLS_CLOSED);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	uint8_t buf[8];
	assert_int_equal(hs_conn_read(p.s, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	assert_true(hs_conn_peer_closed(p.s));
	assert_int_equal(hs_conn_next_event(p.s), HS_EVENT_HANDSHAKE_DONE);
	assert_int_equal(hs_conn_next_event(p.s), HS_EVENT_CLOSE_NOTIFY);
	/* the server may still send, then closes too */
	assert_int_equal(pair_transfer(&p, 0, (const uint8_t *)"last", 4, 0), 0);
	assert_int_equal(hs_conn_close(p.s), 0);
	wire_take(p.s, &p.s2c);
	assert_int_equal(wire_feed(&p.s2c, p.c, 0), 0);
	assert_true(hs_conn_peer_closed(p.c));
	pair_free(&p);
}

/* The server never sends tickets; inject one through its internals to
 * prove the client parses, keeps and reports it. */
static void test_client_parses_ticket(void **state)
{
	struct pair p;
	struct writer w;
	struct writer_vec v, sub;
	const uint8_t *t;
	size_t len;
	uint32_t life;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.keep_tickets = 1;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	msg_begin(p.s, HT_NEW_SESSION_TICKET, &w, &v);
	write_u32(&w, 7200);
	write_u32(&w, 12345);
	write_vec_open(&w, 1, &sub);
	write_u8(&w, 0);
	write_vec_close(&w, &sub);
	write_vec_open(&w, 2, &sub);
	write_bytes(&w, "TICKETDATA", 10);
	write_vec_close(&w, &sub);
	write_u16(&w, 0);
	assert_int_equal(msg_end_notr(p.s, &w, &v), 0);
	assert_int_equal(flush_handshake(p.s, 0x0303), 0);
	wire_take(p.s, &p.s2c);
	assert_int_equal(wire_feed(&p.s2c, p.c, 0), 0);
	t = hs_conn_ticket(p.c, &len, &life);
	assert_non_null(t);
	assert_int_equal(len, 10);
	assert_memory_equal(t, "TICKETDATA", 10);
	assert_int_equal(life, 7200);
	assert_int_equal(hs_conn_next_event(p.c), HS_EVENT_HANDSHAKE_DONE);
	assert_int_equal(hs_conn_next_event(p.c), HS_EVENT_TICKET);
	assert_int_equal(pair_transfer(&p, 0, (const uint8_t *)"ok", 2, 0), 0);
	pair_free(&p);
}

static void test_padding_accepted(void **state)
{
	struct pair p;
	struct writer w;
	uint8_t buf[16];
	size_t n;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	/* a padded application record (1000 zero bytes of padding) */
	w = writer_init(p.s2c.buf, WIRE_CAP);
	assert_int_equal(rec_seal(p.s->wr, 23, 0x0303, (const uint8_t *)"padded", 6, 1000, &w), 0);
	p.s2c.len = w.len;
	assert_int_equal(wire_feed(&p.s2c, p.c, 0), 0);
	assert_int_equal(hs_conn_read(p.c, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 6);
	assert_memory_equal(buf, "padded", 6);
	pair_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_byte_at_a_time),
		cmocka_unit_test(test_sec1_key),
		cmocka_unit_test(test_hrr_group_mismatch),
		cmocka_unit_test(test_hrr_cookie),
		cmocka_unit_test(test_hrr_no_compat),
		cmocka_unit_test(test_alpn_sni),
		cmocka_unit_test(test_name_and_pin),
		cmocka_unit_test(test_coalesced_exact_consumption),
		cmocka_unit_test(test_large_transfer),
		cmocka_unit_test(test_key_update),
		cmocka_unit_test(test_auto_key_update),
		cmocka_unit_test(test_close_notify),
		cmocka_unit_test(test_client_parses_ticket),
		cmocka_unit_test(test_padding_accepted),
		cmocka_unit_test(test_message_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
