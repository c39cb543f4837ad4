/*
 * Resumption (RFC 8446 2.2, 4.2.11, 4.6.1) between the engine's client and
 * server in memory: tickets issued (n_tickets), a session kept, saved and
 * loaded, resumed in psk_dhe_ke and psk_ke for every suite, after a
 * HelloRetryRequest (binders over the HRR transcript); each ticket used
 * once unless reuse_tickets; a tampered ticket, a ticket under a rotated-out
 * key and an expired ticket give a full handshake; a binder that does not
 * verify is decrypt_error; pre_shared_key not last is illegal_parameter,
 * without psk_key_exchange_modes missing_extension. External PSKs (with and without (EC)DHE, with
 * and without a server certificate; wrong key, unknown identity). Exporters (7.5) agree on both sides of every
 * connection here, full or resumed. Also: a ticket sealed by another
 * server's keys and a ticket of another suite's hash give a full handshake;
 * a binder bent on the wire is decrypt_error; an unknown external PSK
 * identity to a server with a certificate gives a full handshake; a server
 * with defer_tickets makes its tickets on demand (hs_conn_make_ticket, the
 * kTLS route) and wipes the resumption secret after the last or at
 * hs_conn_end_tickets; a client reads at most MAX_TICKETS_RECV tickets on
 * one connection (unexpected_message beyond).
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

struct opts {
	uint16_t suite;
	int psk_ke, reuse;
	unsigned n_tickets;
	const uint16_t *cgroups, *sgroups;
	size_t n_cgroups, n_sgroups;
	struct test_hooks *shooks, *chooks;
};

/* 7.5: both sides export the same bytes; label, context and length matter */
static void check_exporters(struct pair *p)
{
	static const uint8_t ctx[] = { 1, 2, 3 };
	uint8_t a[64], b[64], d[64];

	assert_int_equal(hs_conn_export(p->c, "EXPORTER-hs-test", ctx, 3, a, 64), 0);
	assert_int_equal(hs_conn_export(p->s, "EXPORTER-hs-test", ctx, 3, b, 64), 0);
	assert_memory_equal(a, b, 64);
	assert_int_equal(hs_conn_export(p->s, "EXPORTER-hs-other", ctx, 3, d, 64), 0);
	assert_memory_not_equal(a, d, 64);
	assert_int_equal(hs_conn_export(p->s, "EXPORTER-hs-test", ctx, 2, d, 64), 0);
	assert_memory_not_equal(a, d, 64);
	assert_int_equal(hs_conn_export(p->c, "EXPORTER-hs-test", NULL, 0, d, 32), 0);
	assert_int_equal(hs_conn_export(p->s, "EXPORTER-hs-test", NULL, 0, b, 32), 0);
	assert_memory_equal(b, d, 32);
}

/* One handshake; *resumed gets hs_conn_resumed(); the new session (if
 * out) from the tickets the client got. Returns the handshake's result. */
static int connect_once(struct hs_ticket_keys *k, struct hs_session *sess, const struct opts *o,
			int *resumed, struct hs_session **out, int *salert)
{
	struct pair p;
	int err;
	static const uint8_t data[] = "resumed data";

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.suites = &o->suite;
	p.ccfg.n_suites = 1;
	p.ccfg.keep_tickets = 1;
	p.ccfg.session = sess;
	p.ccfg.psk_ke = o->psk_ke;
	p.ccfg.reuse_tickets = o->reuse;
	p.ccfg.groups = o->cgroups;
	p.ccfg.n_groups = o->n_cgroups;
	p.scfg.groups = o->sgroups;
	p.scfg.n_groups = o->n_sgroups;
	p.scfg.ticket_keys = k;
	p.scfg.n_tickets = o->n_tickets;
	pair_start(&p);
	if (o->shooks != NULL)
		assert_int_equal(conn_test_hooks(p.s, o->shooks), 0);
	if (o->chooks != NULL)
		assert_int_equal(conn_test_hooks(p.c, o->chooks), 0);
	err = pair_handshake(&p, 0);
	*resumed = hs_conn_resumed(p.c);
	if (salert != NULL)
		*salert = hs_conn_alert(p.s, 0);
	if (err == 0) {
		assert_int_equal(hs_conn_resumed(p.s), *resumed);
		assert_int_equal(hs_conn_suite(p.c), o->suite);
		if (*resumed) /* 2.2: no certificate on resumption */
			assert_int_equal(hs_conn_peer_cert_count(p.c), 0);
		check_exporters(&p);
		assert_int_equal(pair_transfer(&p, 1, data, sizeof(data), 0), 0);
		assert_int_equal(pair_transfer(&p, 0, data, sizeof(data), 0), 0);
		if (out != NULL)
			assert_int_equal(hs_conn_session(p.c, out), 0);
	}
	pair_free(&p);
	return err;
}

static struct hs_session *first_session(struct hs_ticket_keys *k, const struct opts *o)
{
	struct hs_session *s = NULL;
	int resumed;

	assert_int_equal(connect_once(k, NULL, o, &resumed, &s, NULL), 0);
	assert_int_equal(resumed, 0);
	assert_non_null(s);
	return s;
}

static void test_resume_all_suites(void **state)
{
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		for (int ke = 0; ke < 2; ke++) {
			struct hs_ticket_keys *k;
			struct opts o = { .suite = all_suites[i], .psk_ke = ke };
			struct hs_session *s, *s2 = NULL;
			int resumed;

			assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
			s = first_session(k, &o);
			assert_int_equal(hs_session_tickets(s), 2); /* default n_tickets */
			assert_int_equal(connect_once(k, s, &o, &resumed, &s2, NULL), 0);
			assert_int_equal(resumed, ke ? 2 : 1);
			/* a resumed connection issues tickets too, and they resume */
			assert_int_equal(hs_session_tickets(s2), 2);
			assert_int_equal(connect_once(k, s2, &o, &resumed, NULL, NULL), 0);
			assert_int_equal(resumed, ke ? 2 : 1);
			hs_session_free(s);
			hs_session_free(s2);
			hs_ticket_keys_free(k);
		}
	}
}

static void test_ticket_used_once(void **state)
{
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_128_GCM_SHA256, .n_tickets = 3 };
	struct hs_session *s;
	int resumed;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	s = first_session(k, &o);
	assert_int_equal(hs_session_tickets(s), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
		assert_int_equal(resumed, 1);
	}
	assert_int_equal(hs_session_tickets(s), 0);
	assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 0); /* none left: full handshake */
	hs_session_free(s);
	/* reuse_tickets: the application opts in */
	o.reuse = 1;
	o.n_tickets = 1;
	s = first_session(k, &o);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
		assert_int_equal(resumed, 1);
	}
	assert_int_equal(hs_session_tickets(s), 1);
	hs_session_free(s);
	hs_ticket_keys_free(k);
}

static void test_session_save_load(void **state)
{
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_256_GCM_SHA384 };
	struct hs_session *s, *l;
	uint8_t buf[HS_SESSION_MAX];
	size_t n;
	int resumed;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	s = first_session(k, &o);
	assert_int_equal(hs_session_save(s, buf, sizeof(buf), &n), 0);
	hs_session_free(s);
	assert_int_equal(hs_session_load(&l, buf, n), 0);
	assert_int_equal(hs_session_tickets(l), 2);
	assert_int_equal(connect_once(k, l, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 1);
	hs_session_free(l);
	/* truncated or bent: refused */
	assert_int_not_equal(hs_session_load(&l, buf, n - 1), 0);
	assert_null(l);
	buf[0] ^= 1;
	assert_int_not_equal(hs_session_load(&l, buf, n), 0);
	hs_ticket_keys_free(k);
}

static void test_tampered_ticket(void **state)
{
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_128_GCM_SHA256 };
	int resumed;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	/* a byte of the key name, the nonce, the sealed body, the tag */
	const size_t where[] = { 0, 20, 40, 1000 };
	for (size_t i = 0; i < 4; i++) {
		struct hs_session *s = first_session(k, &o);
		struct session_ticket *t = &s->t[s->n - 1];
		t->ticket[where[i] < t->len ? where[i] : t->len - 1] ^= 0x40;
		assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
		assert_int_equal(resumed, 0);
		hs_session_free(s);
	}
	hs_ticket_keys_free(k);
}

static void test_rotated_out_key(void **state)
{
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_128_GCM_SHA256, .n_tickets = 1 };
	struct hs_session *s;
	int resumed;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	s = first_session(k, &o);
	assert_int_equal(hs_ticket_keys_rotate(k), 0); /* now the previous key: accepted */
	assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 1);
	hs_session_free(s);
	s = first_session(k, &o);
	assert_int_equal(hs_ticket_keys_rotate(k), 0);
	assert_int_equal(hs_ticket_keys_rotate(k), 0); /* wiped */
	assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 0);
	hs_session_free(s);
	hs_ticket_keys_free(k);
}

static void test_bad_binder(void **state)
{
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_CHACHA20_POLY1305_SHA256 };
	struct hs_session *s;
	int resumed, alert;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	s = first_session(k, &o);
	s->t[s->n - 1].psk[3] ^= 1; /* the client's binder is now wrong */
	assert_int_equal(connect_once(k, s, &o, &resumed, NULL, &alert),
			 HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(alert, 51); /* decrypt_error (6.2: "a PSK binder") */
	hs_session_free(s);
	hs_ticket_keys_free(k);
}

static void test_expired_ticket(void **state)
{
	struct hs_ticket_keys *k;
	struct test_hooks late = { .clock_skew_ms = 3601 * 1000 };
	struct opts o = { .suite = HS_TLS_AES_128_GCM_SHA256, .n_tickets = 1 };
	struct hs_session *s;
	int resumed;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 3600, 0), 0);
	/* the server finds it expired: full handshake */
	s = first_session(k, &o);
	o.shooks = &late;
	assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 0);
	hs_session_free(s);
	/* the client finds it expired: not offered */
	o.shooks = NULL;
	s = first_session(k, &o);
	o.chooks = &late;
	assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 0);
	assert_int_equal(hs_session_tickets(s), 1); /* not used */
	hs_session_free(s);
	hs_ticket_keys_free(k);
}

static void test_resume_after_hrr(void **state)
{
	static const uint16_t cg[] = { HS_GROUP_X25519, HS_GROUP_SECP256R1 };
	static const uint16_t sg[] = { HS_GROUP_SECP256R1 };
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_256_GCM_SHA384 };
	struct hs_session *s;
	int resumed;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	s = first_session(k, &o);
	/* the server wants P-256: HelloRetryRequest, then the binder over
	 * message_hash(CH1) || HRR || CH2 */
	o.cgroups = cg;
	o.n_cgroups = 2;
	o.sgroups = sg;
	o.n_sgroups = 1;
	assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 1);
	hs_session_free(s);
	hs_ticket_keys_free(k);
}

static void test_no_ticket_keys(void **state)
{
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_128_GCM_SHA256 };
	struct hs_session *s;
	int resumed;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	s = first_session(k, &o);
	/* a server without ticket keys ignores the offer */
	assert_int_equal(connect_once(NULL, s, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 0);
	hs_session_free(s);
	hs_ticket_keys_free(k);
	assert_int_not_equal(hs_ticket_keys_new(&k, 604801, 0), 0);
}

/* The client offers an external PSK (key, identity) with one suite and trusts nothing else. */
static void psk_client(struct pair *p, const uint16_t *suite, const char *key, const char *id)
{
	p->ccfg.anchor_der = NULL;
	p->ccfg.anchor_len = 0;
	p->ccfg.suites = suite;
	p->ccfg.n_suites = 1;
	p->ccfg.psk = (const uint8_t *)key;
	p->ccfg.psk_len = strlen(key);
	p->ccfg.psk_identity = (const uint8_t *)id;
	p->ccfg.psk_identity_len = strlen(id);
}

/* External PSK: key k, identity id on each side; the client trusts nothing
 * else, the server has no certificate unless with_cert. */
static int ext_psk_once(const char *ckey, const char *cid, const char *skey, const char *sid,
			int psk_ke, int with_cert, int *resumed, int *calert, int *salert)
{
	static const uint16_t suite = HS_TLS_CHACHA20_POLY1305_SHA256;
	struct pair p;
	int err;

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	psk_client(&p, &suite, ckey, cid);
	p.ccfg.psk_ke = psk_ke;
	p.scfg.psk = (const uint8_t *)skey;
	p.scfg.psk_len = strlen(skey);
	p.scfg.psk_identity = (const uint8_t *)sid;
	p.scfg.psk_identity_len = strlen(sid);
	if (!with_cert)
		p.scfg.cred = NULL;
	pair_start(&p);
	err = pair_handshake(&p, 0);
	*resumed = hs_conn_resumed(p.s);
	*calert = hs_conn_alert(p.c, 0);
	*salert = hs_conn_alert(p.s, 0);
	if (err == 0) {
		static const uint8_t data[] = "external psk";
		assert_int_equal(hs_conn_resumed(p.c), *resumed);
		assert_int_equal(hs_conn_peer_cert_count(p.c), 0);
		check_exporters(&p);
		assert_int_equal(pair_transfer(&p, 1, data, sizeof(data), 0), 0);
	}
	pair_free(&p);
	return err;
}

static void test_external_psk(void **state)
{
	const char *key = "0123456789abcdef0123456789abcdef";
	int resumed, ca, sa;

	(void)state;
	for (int ke = 0; ke < 2; ke++) {
		for (int cert = 0; cert < 2; cert++) {
			assert_int_equal(ext_psk_once(key, "nvme-host", key, "nvme-host", ke, cert,
						      &resumed, &ca, &sa),
					 0);
			assert_int_equal(resumed, ke ? 2 : 1);
		}
	}
	/* another key: the binder does not verify, decrypt_error */
	assert_int_equal(ext_psk_once(key, "nvme-host", "another key of 32 bytes........", "nvme-host",
				      0, 0, &resumed, &ca, &sa),
			 HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(sa, 51);
	/* an identity the server does not know: a certificate handshake, which
	 * a server without one cannot do (handshake_failure) ... */
	assert_int_equal(ext_psk_once(key, "stranger", key, "nvme-host", 0, 0, &resumed, &ca, &sa),
			 HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(sa, 40);
	/* ... and a client with no trust settings refuses (bad_certificate or
	 * the like: anything but success) */
	assert_int_not_equal(ext_psk_once(key, "stranger", key, "nvme-host", 0, 1, &resumed, &ca,
					  &sa),
			     0);
	assert_int_equal(resumed, 0);
}

/*
 * The client's ClientHello with a ticket, rebuilt with its extensions
 * reordered or one dropped, fed to the server as a plaintext record.
 * mode 0: drop psk_key_exchange_modes; 1: pre_shared_key first.
 * Returns the alert the server sends.
 */
static int bent_hello(struct hs_ticket_keys *k, struct hs_session *s, int mode)
{
	struct pair p;
	uint8_t rec[4096], out[4096];
	size_t n = 0, pos, ext_start, o, used;
	size_t ext_off[64], ext_len[64], n_ext = 0, psk = 64;

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.session = s;
	p.ccfg.reuse_tickets = 1;
	p.scfg.ticket_keys = k;
	pair_start(&p);
	assert_int_equal(hs_conn_pull(p.c, rec, sizeof(rec), &n), 0);
	assert_true(n > 5 && rec[0] == 22);
	/* record(5) type(1) len(3) version(2) random(32) sid, suites, comp */
	pos = 5 + 4 + 2 + 32;
	pos += 1 + rec[pos];
	pos += 2 + (size_t)(rec[pos] << 8 | rec[pos + 1]);
	pos += 1 + rec[pos];
	ext_start = pos + 2;
	for (size_t e = ext_start; e < n; n_ext++) {
		size_t len = 4 + (size_t)(rec[e + 2] << 8 | rec[e + 3]);
		if ((rec[e] << 8 | rec[e + 1]) == 41)
			psk = n_ext;
		ext_off[n_ext] = e;
		ext_len[n_ext] = len;
		e += len;
	}
	assert_true(psk < n_ext);
	memcpy(out, rec, ext_start);
	o = ext_start;
	if (mode == 1) {
		memcpy(out + o, rec + ext_off[psk], ext_len[psk]);
		o += ext_len[psk];
	}
	for (size_t i = 0; i < n_ext; i++) {
		int type = rec[ext_off[i]] << 8 | rec[ext_off[i] + 1];
		if ((mode == 1 && i == psk) || (mode == 0 && type == 45))
			continue;
		memcpy(out + o, rec + ext_off[i], ext_len[i]);
		o += ext_len[i];
	}
	out[ext_start - 2] = (uint8_t)((o - ext_start) >> 8);
	out[ext_start - 1] = (uint8_t)(o - ext_start);
	out[3] = (uint8_t)((o - 5) >> 8);
	out[4] = (uint8_t)(o - 5);
	out[6] = (uint8_t)((o - 9) >> 16);
	out[7] = (uint8_t)((o - 9) >> 8);
	out[8] = (uint8_t)(o - 9);
	assert_int_not_equal(hs_conn_feed(p.s, out, o, &used), 0);
	int alert = hs_conn_alert(p.s, 0);
	pair_free(&p);
	return alert;
}

static void test_psk_extension_rules(void **state)
{
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_128_GCM_SHA256 };
	struct hs_session *s;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	s = first_session(k, &o);
	/* 4.2.9: pre_shared_key without psk_key_exchange_modes: abort
	 * (missing_extension, 9.2) */
	assert_int_equal(bent_hello(k, s, 0), 109);
	/* 4.2.11: not the last extension: illegal_parameter */
	assert_int_equal(bent_hello(k, s, 1), 47);
	hs_session_free(s);
	hs_ticket_keys_free(k);
}

static void test_exporter_before_handshake(void **state)
{
	struct pair p;
	uint8_t out[16];

	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(hs_conn_export(p.c, "EXPORTER-x", NULL, 0, out, 16), HS_ERR_TLS_STATE);
	pair_free(&p);
}

/* ---- more of issue 11's negative list ---- */

/* A ticket another server sealed (other keys): the server cannot open it,
 * a full handshake follows, with or without an external PSK configured. */
static void test_foreign_ticket(void **state)
{
	struct hs_ticket_keys *a, *b;
	struct opts o = { .suite = HS_TLS_AES_128_GCM_SHA256 };
	struct hs_session *s;
	int resumed;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&a, 0, 0), 0);
	assert_int_equal(hs_ticket_keys_new(&b, 0, 0), 0);
	s = first_session(a, &o);
	assert_int_equal(connect_once(b, s, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 0);
	/* the same ticket still resumes with the server that made it */
	assert_int_equal(connect_once(a, s, &o, &resumed, NULL, NULL), 0);
	assert_int_equal(resumed, 1);
	hs_session_free(s);
	hs_ticket_keys_free(a);
	hs_ticket_keys_free(b);
}

/* 4.2.11: a ticket whose hash is not the chosen suite's is not taken. */
static void test_ticket_other_hash(void **state)
{
	static const uint16_t both[] = { HS_TLS_AES_256_GCM_SHA384, HS_TLS_AES_128_GCM_SHA256 };
	static const uint16_t sha256_only[] = { HS_TLS_AES_128_GCM_SHA256 };
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_256_GCM_SHA384 };
	struct hs_session *s;
	struct pair p;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	s = first_session(k, &o); /* a SHA-384 ticket */
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.suites = both;
	p.ccfg.n_suites = 2;
	p.ccfg.session = s;
	p.scfg.suites = sha256_only;
	p.scfg.n_suites = 1;
	p.scfg.ticket_keys = k;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_suite(p.s), HS_TLS_AES_128_GCM_SHA256);
	assert_int_equal(hs_conn_resumed(p.s), 0);
	assert_int_equal(hs_conn_resumed(p.c), 0);
	assert_int_equal(hs_conn_peer_cert_count(p.c), 1); /* the full handshake's */
	assert_int_equal(hs_session_tickets(s), 1);         /* one was offered */
	pair_free(&p);
	hs_session_free(s);
	hs_ticket_keys_free(k);
}

/* The binder itself bent on the wire (the last byte of the ClientHello):
 * decrypt_error, nothing resumed. */
static void test_bent_binder_bytes(void **state)
{
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_128_GCM_SHA256 };
	struct hs_session *s;
	struct pair p;
	uint8_t rec[4096];
	size_t n = 0, used;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	s = first_session(k, &o);
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.session = s;
	p.scfg.ticket_keys = k;
	pair_start(&p);
	assert_int_equal(hs_conn_pull(p.c, rec, sizeof(rec), &n), 0);
	assert_true(n > 5 && rec[0] == 22);
	rec[n - 1] ^= 0x01; /* pre_shared_key is last; its binders end the hello */
	assert_int_equal(hs_conn_feed(p.s, rec, n, &used), HS_ERR_TLS_BAD_BINDER);
	assert_int_equal(hs_conn_alert(p.s, 0), 51);
	assert_int_equal(hs_conn_resumed(p.s), 0);
	pair_free(&p);
	hs_session_free(s);
	hs_ticket_keys_free(k);
}

/* psk_find: a table of identities and keys, and how often it was asked. */
struct psk_table {
	const char *id[3], *key[3];
	unsigned asked;
};

static int table_find(void *arg, const uint8_t *identity, size_t identity_len, uint8_t *key,
		      size_t cap, size_t *key_len)
{
	struct psk_table *t = arg;

	t->asked++;
	for (size_t i = 0; i < 3 && t->id[i] != NULL; i++)
		if (strlen(t->id[i]) == identity_len && memcmp(t->id[i], identity, identity_len) == 0 &&
		    strlen(t->key[i]) <= cap) {
			memcpy(key, t->key[i], strlen(t->key[i]));
			*key_len = strlen(t->key[i]);
			return 0;
		}
	return -1;
}

/*
 * A server without a certificate finds external PSKs by identity
 * (hs_config.psk_find, as handshaked does in a kernel keyring for NVMe):
 * each of two clients with its own key resumes in psk_dhe_ke; a client with
 * the right identity and the wrong key fails its binder (decrypt_error); an
 * identity the table lacks gets handshake_failure (no certificate).
 */
static void test_psk_find(void **state)
{
	static const uint16_t suite = HS_TLS_AES_128_GCM_SHA256;
	struct psk_table t = { { "host-a", "host-b" },
			       { "0123456789abcdef0123456789abcdef",
				 "fedcba9876543210fedcba9876543210fedcba9876543210" } };
	const char *ids[4] = { "host-a", "host-b", "host-a", "host-c" };
	const char *keys[4] = { t.key[0], t.key[1], t.key[1], t.key[0] };
	const int want_alert[4] = { -1, -1, 51, 40 };

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct pair p;
		int err;

		pair_init(&p, EC_CERT, EC_KEY_PKCS8);
		psk_client(&p, &suite, keys[i], ids[i]);
		p.scfg.cred = NULL;
		p.scfg.psk_find = table_find;
		p.scfg.psk_find_arg = &t;
		t.asked = 0;
		pair_start(&p);
		err = pair_handshake(&p, 0);
		assert_int_equal(t.asked, 1);
		if (want_alert[i] < 0) {
			static const uint8_t data[] = "found by identity";
			assert_int_equal(err, 0);
			assert_int_equal(hs_conn_resumed(p.s), 1);
			assert_int_equal(hs_conn_external_psk(p.s), 1);
			assert_int_equal(pair_transfer(&p, 1, data, sizeof(data), 0), 0);
		} else {
			assert_int_not_equal(err, 0);
			assert_int_equal(hs_conn_alert(p.s, 0), want_alert[i]);
		}
		pair_free(&p);
	}
}

/* An external PSK identity the server does not know, to a server with a
 * certificate and a client that trusts it: a full certificate handshake. */
static void test_unknown_psk_identity_full(void **state)
{
	static const uint16_t suite = HS_TLS_AES_128_GCM_SHA256;
	const char *key = "0123456789abcdef0123456789abcdef";
	struct pair p;

	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8); /* the client pins the server's certificate */
	p.ccfg.suites = &suite;
	p.ccfg.n_suites = 1;
	p.ccfg.psk = (const uint8_t *)key;
	p.ccfg.psk_len = strlen(key);
	p.ccfg.psk_identity = (const uint8_t *)"stranger";
	p.ccfg.psk_identity_len = 8;
	p.scfg.psk = (const uint8_t *)key;
	p.scfg.psk_len = strlen(key);
	p.scfg.psk_identity = (const uint8_t *)"nvme-host";
	p.scfg.psk_identity_len = 9;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_resumed(p.s), 0);
	assert_int_equal(hs_conn_resumed(p.c), 0);
	assert_int_equal(hs_conn_external_psk(p.s), 0);
	assert_int_equal(hs_conn_peer_cert_count(p.c), 1);
	pair_free(&p);
}

/* ---- defer_tickets: the application makes the tickets (kTLS) ---- */

static int all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

/* A handshake done with a server that defers its n tickets. */
static void deferred_pair(struct pair *p, struct hs_ticket_keys *k, unsigned n, uint16_t suite)
{
	static uint16_t one;

	one = suite;
	pair_init(p, EC_CERT, EC_KEY_PKCS8);
	p->ccfg.keep_tickets = 1;
	p->ccfg.suites = &one;
	p->ccfg.n_suites = 1;
	p->scfg.ticket_keys = k;
	p->scfg.n_tickets = n;
	p->scfg.defer_tickets = 1;
	pair_start(p);
	assert_int_equal(pair_handshake(p, 0), 0);
}

/* One handshake message as a record under s's write key, fed to c. */
static int give_record(struct pair *p, const uint8_t *msg, size_t n)
{
	struct writer wr = writer_init(p->s2c.buf + p->s2c.len, WIRE_CAP - p->s2c.len);

	assert_int_equal(rec_seal(p->s->wr, CT_HANDSHAKE, 0x0303, msg, n, 0, &wr), 0);
	p->s2c.len += wr.len;
	return wire_feed(&p->s2c, p->c, 0);
}

static void test_deferred_tickets(void **state)
{
	struct hs_ticket_keys *k;
	struct opts o = { .suite = HS_TLS_AES_256_GCM_SHA384 };
	struct hs_session *s = NULL;
	uint8_t msg[HS_TICKET_MSG_MAX];
	size_t n;
	int resumed;
	struct pair p;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	deferred_pair(&p, k, 3, o.suite);
	/* the engine sent none */
	assert_int_equal(hs_conn_output_pending(p.s), 0);
	assert_int_equal(hs_conn_session(p.c, &s), HS_ERR_TLS_STATE);
	assert_false(all_zero(p.s->ks.res_master, sizeof(p.s->ks.res_master)));
	/* too small a buffer: nothing made */
	assert_int_equal(hs_conn_make_ticket(p.s, msg, 20, &n), HS_ERR_NO_SPACE);
	assert_int_equal(hs_conn_make_ticket(p.c, msg, sizeof(msg), &n), HS_ERR_TLS_STATE);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(hs_conn_make_ticket(p.s, msg, sizeof(msg), &n), 0);
		assert_int_equal(msg[0], HT_NEW_SESSION_TICKET);
		assert_int_equal(((size_t)msg[1] << 16 | (size_t)msg[2] << 8 | msg[3]) + 4, n);
		if (i == 0) /* the kTLS route: the message handed over whole */
			assert_int_equal(hs_conn_post_handshake(p.c, msg[0], msg, n), 0);
		else /* the engine's own records */
			assert_int_equal(give_record(&p, msg, n), 0);
	}
	/* the count is reached: res_master is gone */
	assert_true(all_zero(p.s->ks.res_master, sizeof(p.s->ks.res_master)));
	assert_int_equal(hs_conn_make_ticket(p.s, msg, sizeof(msg), &n), HS_ERR_TLS_STATE);
	assert_int_equal(hs_conn_session(p.c, &s), 0);
	pair_free(&p);
	assert_int_equal(hs_session_tickets(s), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(connect_once(k, s, &o, &resumed, NULL, NULL), 0);
		assert_int_equal(resumed, 1);
	}
	hs_session_free(s);

	/* hs_conn_end_tickets: the secret goes at once; on a client, later
	 * tickets are read and not kept */
	deferred_pair(&p, k, 0, o.suite);
	assert_int_equal(hs_conn_make_ticket(p.s, msg, sizeof(msg), &n), 0);
	hs_conn_end_tickets(p.s);
	hs_conn_end_tickets(p.s);
	assert_true(all_zero(p.s->ks.res_master, sizeof(p.s->ks.res_master)));
	hs_conn_end_tickets(p.c);
	assert_true(all_zero(p.c->ks.res_master, sizeof(p.c->ks.res_master)));
	assert_int_equal(give_record(&p, msg, n), 0);
	assert_int_equal(hs_conn_session(p.c, &s), HS_ERR_TLS_STATE);
	assert_int_equal(hs_conn_make_ticket(p.s, msg, sizeof(msg), &n), HS_ERR_TLS_STATE);
	pair_free(&p);

	/* without defer_tickets the engine sent them and kept no secret */
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.scfg.ticket_keys = k;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_make_ticket(p.s, msg, sizeof(msg), &n), HS_ERR_TLS_STATE);
	assert_true(all_zero(p.s->ks.res_master, sizeof(p.s->ks.res_master)));
	pair_free(&p);
	hs_ticket_keys_free(k);
}

/* A server flooding NewSessionTickets: MAX_TICKETS_RECV, then unexpected_message. */
static void test_ticket_flood(void **state)
{
	struct hs_ticket_keys *k;
	uint8_t msg[HS_TICKET_MSG_MAX];
	size_t n = 0;
	struct pair p;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&k, 0, 0), 0);
	deferred_pair(&p, k, 256, HS_TLS_AES_128_GCM_SHA256);
	for (int i = 0; i < MAX_TICKETS_RECV; i++) {
		assert_int_equal(hs_conn_make_ticket(p.s, msg, sizeof(msg), &n), 0);
		assert_int_equal(give_record(&p, msg, n), 0);
	}
	assert_int_equal(give_record(&p, msg, n), HS_ERR_TLS_TOO_MANY_RECORDS);
	assert_int_equal(hs_conn_alert(p.c, 0), 10); /* unexpected_message */
	pair_free(&p);
	/* the same cap on the kTLS route (hs_conn_post_handshake) */
	deferred_pair(&p, k, 1, HS_TLS_AES_128_GCM_SHA256);
	assert_int_equal(hs_conn_make_ticket(p.s, msg, sizeof(msg), &n), 0);
	for (int i = 0; i < MAX_TICKETS_RECV; i++)
		assert_int_equal(hs_conn_post_handshake(p.c, msg[0], msg, n), 0);
	assert_int_equal(hs_conn_post_handshake(p.c, msg[0], msg, n), HS_ERR_TLS_TOO_MANY_RECORDS);
	pair_free(&p);
	hs_ticket_keys_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resume_all_suites), cmocka_unit_test(test_ticket_used_once),
		cmocka_unit_test(test_session_save_load), cmocka_unit_test(test_tampered_ticket),
		cmocka_unit_test(test_rotated_out_key),   cmocka_unit_test(test_bad_binder),
		cmocka_unit_test(test_expired_ticket),    cmocka_unit_test(test_resume_after_hrr),
		cmocka_unit_test(test_no_ticket_keys),    cmocka_unit_test(test_exporter_before_handshake),
		cmocka_unit_test(test_external_psk),      cmocka_unit_test(test_psk_extension_rules),
		cmocka_unit_test(test_deferred_tickets),  cmocka_unit_test(test_ticket_flood),
		cmocka_unit_test(test_foreign_ticket),    cmocka_unit_test(test_ticket_other_hash),
		cmocka_unit_test(test_bent_binder_bytes), cmocka_unit_test(test_unknown_psk_identity_full),
		cmocka_unit_test(test_psk_find),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
