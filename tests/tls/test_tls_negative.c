/*
 * Proves the engine answers malformed and hostile input with the right
 * alert, without crashing or leaking (run in the ASan/UBSan build too):
 *
 * - a server fed crafted ClientHellos: every truncation, overlong and
 *   out-of-range lengths, wrong versions, duplicate extensions, missing
 *   extensions, no common suite/group, bad compression, key shares outside
 *   supported_groups; GREASE values are tolerated;
 * - a client fed crafted ServerHellos / HelloRetryRequests: wrong session
 *   id echo, unoffered suite, wrong versions, missing or mismatched key
 *   share, unsolicited and misplaced extensions, bad points, a second HRR;
 * - record-level abuse on both sides: oversized records, unknown types,
 *   application data or CCS at the wrong time, empty records, unexpected
 *   messages, oversized handshake messages, malformed alerts.
 * The alert we send is checked on the wire (plaintext alerts before keys).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/x25519.h"
#include "libhs/internal.h"
#include "pair.h"
#include "testutil.h"
#include "tls_certs.h"

enum {
	A_UNEXPECTED = 10, A_BAD_MAC = 20, A_OVERFLOW = 22, A_HS_FAIL = 40, A_ILLEGAL = 47,
	A_DECODE = 50, A_DECRYPT = 51, A_VERSION = 70, A_MISSING = 109, A_UNSUPPORTED_EXT = 110,
};

/* ---- crafted ClientHellos ---- */

struct ch_opts {
	int no_sv, sv12, dup, comp1, no_sig, no_ks, bad_suites, bad_groups, share_outside;
	int grease, sid_len;
};

static uint8_t ch_pub[32];

static size_t build_ch(const struct ch_opts *o, uint8_t *buf, size_t cap)
{
	struct writer w = writer_init(buf, cap);
	struct writer_vec rec, msg, v, e, l;
	uint8_t random[32] = { 1, 2, 3 };

	write_u8(&w, 22);
	write_u16(&w, 0x0301);
	write_vec_open(&w, 2, &rec);
	write_u8(&w, 1);
	write_vec_open(&w, 3, &msg);
	write_u16(&w, 0x0303);
	write_bytes(&w, random, 32);
	write_vec_open(&w, 1, &v);
	for (int i = 0; i < o->sid_len; i++)
		write_u8(&w, (uint8_t)i);
	write_vec_close(&w, &v);
	write_vec_open(&w, 2, &v);
	if (o->grease)
		write_u16(&w, 0x3a3a);
	write_u16(&w, o->bad_suites ? 0x00ff : 0x1301);
	write_vec_close(&w, &v);
	write_u16(&w, o->comp1 ? 0x0101 : 0x0100);
	write_vec_open(&w, 2, &e);
	if (o->grease)
		write_u32(&w, 0x0a0a0000); /* empty GREASE extension */
	if (!o->no_sv) {
		uint16_t sv[2] = { 0x2a2a, (uint16_t)(o->sv12 ? 0x0303 : 0x0304) };
		ext_w_u16_list(&w, EXT_SUPPORTED_VERSIONS, 1, sv + !o->grease, 1 + !!o->grease);
	}
	uint16_t groups[2] = { 0x1a1a, (uint16_t)(o->bad_groups ? 0x0019 : 0x001d) };
	ext_w_u16_list(&w, EXT_SUPPORTED_GROUPS, 2, groups + !o->grease, 1 + !!o->grease);
	if (o->dup)
		ext_w_u16_list(&w, EXT_SUPPORTED_GROUPS, 2, groups + 1, 1);
	if (!o->no_sig) {
		uint16_t sigs[2] = { 0x0403, 0x0807 };
		ext_w_u16_list(&w, EXT_SIG_ALGS, 2, sigs, 2);
	}
	if (!o->no_ks) {
		write_u16(&w, EXT_KEY_SHARE);
		write_vec_open(&w, 2, &l);
		write_vec_open(&w, 2, &v);
		write_u16(&w, o->share_outside ? 0x0017 : groups[1]);
		write_u16(&w, 32);
		write_bytes(&w, ch_pub, 32);
		write_vec_close(&w, &v);
		write_vec_close(&w, &l);
	}
	write_vec_close(&w, &e);
	write_vec_close(&w, &msg);
	write_vec_close(&w, &rec);
	assert_int_equal(writer_error(&w), 0);
	return w.len;
}

static struct hs_cred *cred;

static struct hs_conn *new_server(struct hs_config *cfg)
{
	struct hs_conn *s;
	memset(cfg, 0, sizeof(*cfg));
	cfg->role = HS_ROLE_SERVER;
	cfg->cred = cred;
	assert_int_equal(hs_conn_new(&s, cfg), 0);
	return s;
}

/* Feed bytes; expect error err (0 = none) and, if alert >= 0, that alert
 * as the last record on the wire (plaintext). */
static void expect(struct hs_conn *x, const uint8_t *in, size_t n, int err, int alert)
{
	uint8_t out[8192];
	size_t used, got;
	int e = hs_conn_feed(x, in, n, &used);

	if (err == 0) {
		assert_int_equal(e, 0);
		return;
	}
	assert_int_not_equal(e, 0);
	if (err != 1)
		assert_int_equal(e, err);
	assert_int_equal(hs_conn_alert(x, 0), alert);
	if (hs_conn_pull(x, out, sizeof(out), &got) != 0)
		got = 0;
	if (!x->wr->on) {
		assert_true(got >= 7);
		assert_memory_equal(out + got - 7, "\x15\x03\x03\x00\x02\x02", 6);
		assert_int_equal(out[got - 1], alert);
	}
	/* the error is sticky */
	assert_int_equal(hs_conn_feed(x, in, n, &used), e);
}

static void server_case(const struct ch_opts *o, int err, int alert)
{
	struct hs_config cfg;
	struct hs_conn *s = new_server(&cfg);
	uint8_t buf[1024];
	size_t n = build_ch(o, buf, sizeof(buf));

	expect(s, buf, n, err, alert);
	hs_conn_free(s);
}

static int setup(void **state)
{
	uint8_t priv[32];
	(void)state;
	assert_int_equal(x25519_keygen(priv, ch_pub), 0);
	return hs_cred_load_pem(&cred, EC_CERT, strlen(EC_CERT), EC_KEY_PKCS8, strlen(EC_KEY_PKCS8));
}

static int teardown(void **state)
{
	(void)state;
	hs_cred_free(cred);
	return 0;
}

static void test_server_hello_fields(void **state)
{
	(void)state;
	server_case(&(struct ch_opts){ .grease = 1, .sid_len = 32 }, 0, -1);
	server_case(&(struct ch_opts){ 0 }, 0, -1);
	server_case(&(struct ch_opts){ .no_sv = 1 }, HS_ERR_TLS_VERSION, A_VERSION);
	server_case(&(struct ch_opts){ .sv12 = 1 }, HS_ERR_TLS_VERSION, A_VERSION);
	server_case(&(struct ch_opts){ .dup = 1 }, HS_ERR_TLS_DUP_EXT, A_ILLEGAL);
	server_case(&(struct ch_opts){ .comp1 = 1 }, HS_ERR_TLS_ILLEGAL_PARAM, A_ILLEGAL);
	server_case(&(struct ch_opts){ .no_sig = 1 }, HS_ERR_TLS_MISSING_EXT, A_MISSING);
	server_case(&(struct ch_opts){ .no_ks = 1 }, HS_ERR_TLS_MISSING_EXT, A_MISSING);
	server_case(&(struct ch_opts){ .bad_suites = 1 }, HS_ERR_TLS_NO_SHARED_SUITE, A_HS_FAIL);
	server_case(&(struct ch_opts){ .bad_groups = 1 }, HS_ERR_TLS_NO_SHARED_GROUP, A_HS_FAIL);
	server_case(&(struct ch_opts){ .share_outside = 1 }, HS_ERR_TLS_ILLEGAL_PARAM, A_ILLEGAL);
	server_case(&(struct ch_opts){ .sid_len = 33 }, 1, A_DECODE);
}

/* Every truncation of a valid ClientHello (message length fixed up to
 * match) is decode_error, except the cut right after the compression
 * methods, which is a pre-1.3 hello without extensions: protocol_version. */
static void test_server_truncations(void **state)
{
	uint8_t full[1024], buf[1024];
	size_t n = build_ch(&(struct ch_opts){ .grease = 1 }, full, sizeof(full));
	size_t body = n - 9, no_ext = 2 + 32 + 1 + 2 + 4 + 2;
	(void)state;
	for (size_t cut = 0; cut < body; cut++) {
		struct hs_config cfg;
		struct hs_conn *s = new_server(&cfg);
		memcpy(buf, full, 9 + cut);
		buf[3] = (uint8_t)((4 + cut) >> 8);
		buf[4] = (uint8_t)(4 + cut);
		buf[6] = (uint8_t)(cut >> 16);
		buf[7] = (uint8_t)(cut >> 8);
		buf[8] = (uint8_t)cut;
		expect(s, buf, 9 + cut, 1, cut == no_ext ? A_VERSION : A_DECODE);
		hs_conn_free(s);
	}
	/* overlong: every length field byte bumped up by one */
	for (size_t i = 9; i < n; i++) {
		struct hs_config cfg;
		struct hs_conn *s = new_server(&cfg);
		size_t used;
		memcpy(buf, full, n);
		buf[i] ^= 0x80; /* arbitrary corruption: must never crash */
		if (hs_conn_feed(s, buf, n, &used) == 0)
			assert_true(used <= n);
		hs_conn_free(s);
	}
}

static void test_records(void **state)
{
	struct hs_config cfg;
	struct hs_conn *s;
	static uint8_t big[5 + 16385];
	(void)state;
	s = new_server(&cfg);
	memcpy(big, "\x16\x03\x03\x40\x01", 5); /* 16385 bytes of plaintext */
	expect(s, big, 5, HS_ERR_TLS_RECORD_OVERFLOW, A_OVERFLOW);
	hs_conn_free(s);
	s = new_server(&cfg);
	expect(s, (const uint8_t *)"\x63\x03\x03\x00\x01\x00", 6, HS_ERR_TLS_UNEXPECTED_RECORD,
	       A_UNEXPECTED);
	hs_conn_free(s);
	s = new_server(&cfg);
	expect(s, (const uint8_t *)"\x16\x05\x03\x00\x01\x00", 6, HS_ERR_TLS_RECORD_HEADER, A_DECODE);
	hs_conn_free(s);
	s = new_server(&cfg); /* CCS before any ClientHello */
	expect(s, (const uint8_t *)"\x14\x03\x03\x00\x01\x01", 6, HS_ERR_TLS_BAD_CCS, A_UNEXPECTED);
	hs_conn_free(s);
	s = new_server(&cfg); /* application data before keys */
	expect(s, (const uint8_t *)"\x17\x03\x03\x00\x01\x00", 6, HS_ERR_TLS_UNEXPECTED_RECORD,
	       A_UNEXPECTED);
	hs_conn_free(s);
	s = new_server(&cfg); /* empty handshake record */
	expect(s, (const uint8_t *)"\x16\x03\x03\x00\x00", 5, HS_ERR_TLS_EMPTY_RECORD, A_UNEXPECTED);
	hs_conn_free(s);
	s = new_server(&cfg); /* Finished first */
	expect(s, (const uint8_t *)"\x16\x03\x03\x00\x08\x14\x00\x00\x04" "abcd", 13,
	       HS_ERR_TLS_UNEXPECTED_MSG, A_UNEXPECTED);
	hs_conn_free(s);
	s = new_server(&cfg); /* a 1 MiB handshake message announced */
	expect(s, (const uint8_t *)"\x16\x03\x03\x00\x04\x01\x10\x00\x00", 9,
	       HS_ERR_TLS_MSG_TOO_LARGE, A_ILLEGAL);
	hs_conn_free(s);
	s = new_server(&cfg); /* malformed alert */
	expect(s, (const uint8_t *)"\x15\x03\x03\x00\x03\x02(\x00", 8, HS_ERR_TLS_BAD_ALERT,
	       A_DECODE);
	hs_conn_free(s);
	s = new_server(&cfg); /* the peer's fatal alert: no alert back */
	assert_int_equal(hs_conn_feed(s, (const uint8_t *)"\x15\x03\x03\x00\x02\x02\x28", 7,
				      &(size_t){ 0 }),
			 HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(hs_conn_alert(s, 1), 40);
	assert_int_equal(hs_conn_alert(s, 0), -1);
	hs_conn_free(s);
}

/* ---- the client against crafted ServerHellos ---- */

struct sh_opts {
	int bad_sid, suite, sv, no_sv, no_ks, ks_group, extra_ext, dup, comp, legacy, zero_pub;
	int hrr, hrr_group;
};

static size_t build_sh(struct hs_conn *c, const struct sh_opts *o, uint8_t *buf, size_t cap)
{
	static const uint8_t hrr_rand[32] = { 0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11,
					      0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
					      0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e,
					      0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c };
	struct writer w = writer_init(buf, cap);
	struct writer_vec rec, msg, v, e;
	uint8_t random[32] = { 9 }, priv[32], pub[32] = { 0 };
	uint16_t sv = (uint16_t)(o->sv ? o->sv : 0x0304);

	assert_int_equal(x25519_keygen(priv, pub), 0);
	if (o->zero_pub)
		memset(pub, 0, 32);
	write_u8(&w, 22);
	write_u16(&w, 0x0303);
	write_vec_open(&w, 2, &rec);
	write_u8(&w, 2);
	write_vec_open(&w, 3, &msg);
	write_u16(&w, (uint16_t)(o->legacy ? o->legacy : 0x0303));
	write_bytes(&w, o->hrr ? hrr_rand : random, 32);
	write_vec_open(&w, 1, &v);
	write_u8(&w, (uint8_t)(c->sid[0] ^ (o->bad_sid ? 1 : 0)));
	write_bytes(&w, c->sid + 1, c->sid_len - 1);
	write_vec_close(&w, &v);
	write_u16(&w, (uint16_t)(o->suite ? o->suite : 0x1301));
	write_u8(&w, (uint8_t)o->comp);
	write_vec_open(&w, 2, &e);
	if (!o->no_ks && o->hrr)
		ext_w_key_share(&w, (uint16_t)o->hrr_group, NULL, 0, 0);
	else if (!o->no_ks)
		ext_w_key_share(&w, (uint16_t)(o->ks_group ? o->ks_group : 0x001d), pub, 32, 0);
	if (!o->no_sv)
		ext_w_opaque(&w, EXT_SUPPORTED_VERSIONS, 0, (uint8_t[]){ sv >> 8, sv & 0xff }, 2);
	if (o->dup)
		ext_w_opaque(&w, EXT_SUPPORTED_VERSIONS, 0, (uint8_t[]){ 3, 4 }, 2);
	if (o->extra_ext)
		ext_w_opaque(&w, (uint16_t)o->extra_ext, 0, NULL, 0);
	write_vec_close(&w, &e);
	write_vec_close(&w, &msg);
	write_vec_close(&w, &rec);
	assert_int_equal(writer_error(&w), 0);
	return w.len;
}

static struct hs_conn *new_client(struct hs_config *cfg)
{
	struct hs_conn *c;
	uint8_t out[4096];
	size_t n;
	static const uint16_t groups[] = { 0x001d, 0x0017 };

	memset(cfg, 0, sizeof(*cfg));
	cfg->role = HS_ROLE_CLIENT;
	cfg->insecure = 1;
	cfg->groups = groups;
	cfg->n_groups = 2;
	assert_int_equal(hs_conn_new(&c, cfg), 0);
	assert_int_equal(hs_conn_pull(c, out, sizeof(out), &n), 0); /* ClientHello */
	return c;
}

static void client_case(const struct sh_opts *o, int err, int alert)
{
	struct hs_config cfg;
	struct hs_conn *c = new_client(&cfg);
	uint8_t buf[1024];
	size_t n = build_sh(c, o, buf, sizeof(buf));

	expect(c, buf, n, err, alert);
	hs_conn_free(c);
}

static void test_client_server_hello(void **state)
{
	(void)state;
	client_case(&(struct sh_opts){ 0 }, 0, -1);
	client_case(&(struct sh_opts){ .bad_sid = 1 }, HS_ERR_TLS_BAD_SESSION_ID, A_ILLEGAL);
	client_case(&(struct sh_opts){ .suite = 0x1305 }, HS_ERR_TLS_BAD_SUITE, A_ILLEGAL);
	client_case(&(struct sh_opts){ .sv = 0x0303 }, HS_ERR_TLS_ILLEGAL_PARAM, A_ILLEGAL);
	client_case(&(struct sh_opts){ .no_sv = 1 }, HS_ERR_TLS_VERSION, A_VERSION);
	client_case(&(struct sh_opts){ .legacy = 0x0304 }, HS_ERR_TLS_VERSION, A_VERSION);
	client_case(&(struct sh_opts){ .no_ks = 1 }, HS_ERR_TLS_MISSING_EXT, A_MISSING);
	client_case(&(struct sh_opts){ .ks_group = 0x0017 }, HS_ERR_TLS_BAD_KEY_SHARE, A_ILLEGAL);
	client_case(&(struct sh_opts){ .extra_ext = 16 }, HS_ERR_TLS_UNSOLICITED_EXT,
		    A_UNSUPPORTED_EXT);
	client_case(&(struct sh_opts){ .extra_ext = 10 }, HS_ERR_TLS_EXT_NOT_ALLOWED, A_ILLEGAL);
	client_case(&(struct sh_opts){ .dup = 1 }, HS_ERR_TLS_DUP_EXT, A_ILLEGAL);
	client_case(&(struct sh_opts){ .comp = 1 }, HS_ERR_TLS_ILLEGAL_PARAM, A_ILLEGAL);
	client_case(&(struct sh_opts){ .zero_pub = 1 }, HS_ERR_ZERO_SHARED, A_ILLEGAL);
	/* HRR naming the group we already sent a share for */
	client_case(&(struct sh_opts){ .hrr = 1, .hrr_group = 0x001d }, HS_ERR_TLS_BAD_HRR,
		    A_ILLEGAL);
	/* HRR that changes nothing */
	client_case(&(struct sh_opts){ .hrr = 1, .no_ks = 1 }, HS_ERR_TLS_BAD_HRR, A_ILLEGAL);
}

static void test_client_second_hrr(void **state)
{
	struct hs_config cfg;
	struct hs_conn *c = new_client(&cfg);
	uint8_t buf[1024], out[4096];
	size_t n = build_sh(c, &(struct sh_opts){ .hrr = 1, .hrr_group = 0x0017 }, buf, sizeof(buf));
	(void)state;
	expect(c, buf, n, 0, -1);
	assert_int_equal(hs_conn_pull(c, out, sizeof(out), &n), 0); /* CCS + ClientHello2 */
	n = build_sh(c, &(struct sh_opts){ .hrr = 1, .hrr_group = 0x001d }, buf, sizeof(buf));
	expect(c, buf, n, HS_ERR_TLS_UNEXPECTED_MSG, A_UNEXPECTED);
	hs_conn_free(c);
}

static void test_client_truncated_server_hello(void **state)
{
	uint8_t full[1024], buf[1024];
	(void)state;
	for (size_t cut = 0;; cut++) {
		struct hs_config cfg;
		struct hs_conn *c = new_client(&cfg);
		size_t n = build_sh(c, &(struct sh_opts){ 0 }, full, sizeof(full));
		size_t body = n - 9;
		if (cut >= body) {
			hs_conn_free(c);
			break;
		}
		memcpy(buf, full, 9 + cut);
		buf[3] = (uint8_t)((4 + cut) >> 8);
		buf[4] = (uint8_t)(4 + cut);
		buf[6] = 0;
		buf[7] = (uint8_t)(cut >> 8);
		buf[8] = (uint8_t)cut;
		expect(c, buf, 9 + cut, 1, A_DECODE);
		hs_conn_free(c);
	}
}

/* After the ServerHello the client reads protected records only. */
static void test_client_encrypted_phase(void **state)
{
	struct pair p;
	size_t used;
	static uint8_t big[5 + 16640];
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	wire_take(p.s, &p.s2c);
	/* deliver only the ServerHello record (and the CCS) */
	size_t sh = wire_record_len(&p.s2c, 0);
	assert_int_equal(hs_conn_feed(p.c, p.s2c.buf, sh + 6, &used), 0);
	/* a plaintext handshake record now: unexpected_message */
	assert_int_equal(hs_conn_feed(p.c, (const uint8_t *)"\x16\x03\x03\x00\x04\x08\x00\x00\x00",
				      9, &used),
			 HS_ERR_TLS_UNEXPECTED_RECORD);
	assert_int_equal(hs_conn_alert(p.c, 0), A_UNEXPECTED);
	pair_free(&p);

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	wire_take(p.s, &p.s2c);
	sh = wire_record_len(&p.s2c, 0);
	assert_int_equal(hs_conn_feed(p.c, p.s2c.buf, sh, &used), 0);
	/* protected record over 2^14 + 256: record_overflow */
	memcpy(big, "\x17\x03\x03\x41\x01", 5);
	assert_int_equal(hs_conn_feed(p.c, big, 5, &used), HS_ERR_TLS_RECORD_OVERFLOW);
	assert_int_equal(hs_conn_alert(p.c, 0), A_OVERFLOW);
	pair_free(&p);
}

/* Flip a bit of the server's or client's expected Finished key after the
 * record keys are set: the peer's Finished must fail with decrypt_error. */
static void test_bad_finished_both_sides(void **state)
{
	struct pair p;
	size_t used;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	wire_take(p.s, &p.s2c);
	size_t sh = wire_record_len(&p.s2c, 0);
	assert_int_equal(hs_conn_feed(p.c, p.s2c.buf, sh, &used), 0);
	p.c->ks.s_hs[0] ^= 1;
	assert_int_equal(hs_conn_feed(p.c, p.s2c.buf + sh, p.s2c.len - sh, &used),
			 HS_ERR_TLS_BAD_FINISHED);
	assert_int_equal(hs_conn_alert(p.c, 0), A_DECRYPT);
	pair_free(&p);

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	p.s->ks.c_hs[0] ^= 1;
	wire_take(p.s, &p.s2c);
	assert_int_equal(wire_feed(&p.s2c, p.c, 0), 0);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), HS_ERR_TLS_BAD_FINISHED);
	assert_int_equal(hs_conn_alert(p.s, 0), A_DECRYPT);
	/* the client sees the server's (encrypted) decrypt_error alert */
	wire_take(p.s, &p.s2c);
	assert_int_equal(wire_feed(&p.s2c, p.c, 0), HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(hs_conn_alert(p.c, 1), A_DECRYPT);
	pair_free(&p);
}

/* A server key that does not match its certificate: the client's
 * CertificateVerify check fails with decrypt_error. */
static void test_bad_signature(void **state)
{
	struct pair p;
	(void)state;
	for (int ed = 0; ed < 2; ed++) {
		pair_init(&p, ed ? ED_CERT : EC_CERT, ed ? ED_KEY_PKCS8 : EC_KEY_PKCS8);
		p.cred->priv[5] ^= 0x10; /* sign with another key */
		pair_start(&p);
		assert_int_equal(pair_handshake(&p, 0), HS_ERR_TLS_BAD_CERT_VERIFY);
		assert_int_equal(hs_conn_alert(p.c, 0), A_DECRYPT);
		assert_int_equal(hs_conn_alert(p.s, 1), A_DECRYPT);
		pair_free(&p);
	}
}

/* Application data tampering and KeyUpdate misuse after the handshake. */
static void test_after_handshake(void **state)
{
	struct pair p;
	size_t n;
	struct writer w;
	struct writer_vec v;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_write(p.c, (const uint8_t *)"data", 4, &n), 0);
	wire_take(p.c, &p.c2s);
	p.c2s.buf[8] ^= 1;
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(hs_conn_alert(p.s, 0), A_BAD_MAC);
	pair_free(&p);

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	msg_begin(p.c, HT_KEY_UPDATE, &w, &v);
	write_u8(&w, 2); /* neither 0 nor 1 */
	assert_int_equal(msg_end_notr(p.c, &w, &v), 0);
	assert_int_equal(flush_handshake(p.c, 0x0303), 0);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), HS_ERR_TLS_BAD_KEY_UPDATE);
	assert_int_equal(hs_conn_alert(p.s, 0), A_ILLEGAL);
	pair_free(&p);

	/* a ClientHello after the handshake (renegotiation does not exist) */
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	msg_begin(p.c, HT_CLIENT_HELLO, &w, &v);
	write_u16(&w, 0x0303);
	assert_int_equal(msg_end_notr(p.c, &w, &v), 0);
	assert_int_equal(flush_handshake(p.c, 0x0303), 0);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), HS_ERR_TLS_UNEXPECTED_MSG);
	assert_int_equal(hs_conn_alert(p.s, 0), A_UNEXPECTED);
	pair_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server_hello_fields),
		cmocka_unit_test(test_server_truncations),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_client_server_hello),
		cmocka_unit_test(test_client_second_hrr),
		cmocka_unit_test(test_client_truncated_server_hello),
		cmocka_unit_test(test_client_encrypted_phase),
		cmocka_unit_test(test_bad_finished_both_sides),
		cmocka_unit_test(test_bad_signature),
		cmocka_unit_test(test_after_handshake),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
