/*
 * Proves the server name checks (RFC 6066 3) and the server's choice among
 * several credentials:
 *
 * - a server fed a ClientHello whose host_name is not a host name (ESC,
 *   CR/LF, NUL, non-ASCII, '_', a trailing dot, empty labels, labels that
 *   start or end with '-', a label over 63 bytes, a name over 253 bytes,
 *   IPv4 and IPv6 literals) refuses it with illegal_parameter, and one
 *   whose lengths do not add up with decode_error; LDH names and A-labels
 *   are accepted (the old code took any byte but NUL);
 * - a client refuses a malformed server_name at hs_conn_new() and sends no
 *   SNI for an IP literal;
 * - one server holding RSA-2048, P-256 and Ed25519 credentials serves an
 *   RSA-PSS-only, an ECDSA-only and an Ed25519-only client each with the
 *   matching leaf, with creds alone or with cred as the last candidate;
 *   a client none of them fits gets handshake_failure;
 * - with two credentials of one key type, the SNI picks the leaf whose
 *   subjectAltName matches (the first credential when none does).
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
#include "rsa_certs.h"
#include "tls_certs.h"

enum { A_HS_FAIL = 40, A_ILLEGAL = 47, A_DECODE = 50 };

static uint8_t ch_pub[32];
static struct hs_cred *ec, *other, *rsa, *ed;

/*
 * A ClientHello record whose server_name extension body is sni[0..sni_len)
 * verbatim (NULL: no server_name extension).
 */
static size_t build_ch(const uint8_t *sni, size_t sni_len, uint8_t *buf, size_t cap)
{
	static const uint16_t sv[] = { 0x0304 }, groups[] = { 0x001d }, sigs[] = { 0x0403 };
	struct writer w = writer_init(buf, cap);
	struct writer_vec rec, msg, v, e, l;
	uint8_t random[32] = { 7 };

	write_u8(&w, 22);
	write_u16(&w, 0x0301);
	write_vec_open(&w, 2, &rec);
	write_u8(&w, 1);
	write_vec_open(&w, 3, &msg);
	write_u16(&w, 0x0303);
	write_bytes(&w, random, 32);
	write_u8(&w, 0); /* legacy_session_id */
	write_vec_open(&w, 2, &v);
	write_u16(&w, 0x1301);
	write_vec_close(&w, &v);
	write_u16(&w, 0x0100);
	write_vec_open(&w, 2, &e);
	if (sni != NULL)
		ext_w_opaque(&w, EXT_SERVER_NAME, 0, sni, sni_len);
	ext_w_u16_list(&w, EXT_SUPPORTED_VERSIONS, 1, sv, 1);
	ext_w_u16_list(&w, EXT_SUPPORTED_GROUPS, 2, groups, 1);
	ext_w_u16_list(&w, EXT_SIG_ALGS, 2, sigs, 1);
	write_u16(&w, EXT_KEY_SHARE);
	write_vec_open(&w, 2, &l);
	write_vec_open(&w, 2, &v);
	write_u16(&w, 0x001d);
	write_u16(&w, 32);
	write_bytes(&w, ch_pub, 32);
	write_vec_close(&w, &v);
	write_vec_close(&w, &l);
	write_vec_close(&w, &e);
	write_vec_close(&w, &msg);
	write_vec_close(&w, &rec);
	assert_int_equal(writer_error(&w), 0);
	return w.len;
}

/* A ServerNameList with one host_name entry of name[0..n). */
static size_t sni_body(const char *name, size_t n, uint8_t *out, size_t cap)
{
	struct writer w = writer_init(out, cap);
	struct writer_vec l, h;

	write_vec_open(&w, 2, &l);
	write_u8(&w, 0);
	write_vec_open(&w, 2, &h);
	write_bytes(&w, name, n);
	write_vec_close(&w, &h);
	write_vec_close(&w, &l);
	assert_int_equal(writer_error(&w), 0);
	return w.len;
}

/*
 * Feed the ClientHello to a fresh server. alert < 0: accepted, and the
 * server recorded expect_name; else the error (1: any) and that plaintext
 * alert.
 */
static void server_sni_case(const uint8_t *body, size_t body_len, int err, int alert,
			    const char *expect_name)
{
	struct hs_config cfg = { .role = HS_ROLE_SERVER, .cred = ec };
	struct hs_conn *s;
	uint8_t ch[1024], out[8192];
	size_t n = build_ch(body, body_len, ch, sizeof(ch)), used, got;
	int e;

	assert_int_equal(hs_conn_new(&s, &cfg), 0);
	e = hs_conn_feed(s, ch, n, &used);
	if (alert < 0) {
		assert_int_equal(e, 0);
		assert_non_null(hs_conn_server_name(s));
		assert_string_equal(hs_conn_server_name(s), expect_name);
		hs_conn_free(s);
		return;
	}
	if (err == 1)
		assert_int_not_equal(e, 0); /* any error: the alert says which kind */
	else
		assert_int_equal(e, err);
	assert_int_equal(hs_conn_alert(s, 0), alert);
	assert_int_equal(hs_conn_pull(s, out, sizeof(out), &got), 0);
	assert_true(got >= 7);
	assert_memory_equal(out + got - 7, "\x15\x03\x03\x00\x02\x02", 6);
	assert_int_equal(out[got - 1], alert);
	assert_null(hs_conn_server_name(s));
	hs_conn_free(s);
}

static void name_case(const char *name, size_t n, int ok)
{
	uint8_t body[600];
	size_t len = sni_body(name, n, body, sizeof(body));
	char copy[300] = { 0 };

	if (ok) {
		memcpy(copy, name, n);
		server_sni_case(body, len, 0, -1, copy);
	} else {
		server_sni_case(body, len, HS_ERR_TLS_ILLEGAL_PARAM, A_ILLEGAL, NULL);
	}
}
#define NAME_OK(s) name_case(s, sizeof(s) - 1, 1)
#define NAME_BAD(s) name_case(s, sizeof(s) - 1, 0)

static void test_server_sni_accepts_host_names(void **state)
{
	char label63[64], long253[254];
	(void)state;
	NAME_OK("localhost");
	NAME_OK("www.example.com");
	NAME_OK("WWW.Example.COM");
	NAME_OK("xn--bcher-kva.example");
	NAME_OK("a-b.c-d.e");
	NAME_OK("1.2.3.example");
	NAME_OK("123abc");
	memset(label63, 'a', 63);
	name_case(label63, 63, 1);
	/* 253 bytes: labels of 63 + '.' (x3) and 61 */
	memset(long253, 'b', 253);
	long253[63] = long253[127] = long253[191] = '.';
	name_case(long253, 253, 1);
}

static void test_server_sni_refuses_what_is_not_a_host_name(void **state)
{
	char label64[65], long254[255];
	(void)state;
	NAME_BAD("evil\x1b[31m.test");   /* terminal escape */
	NAME_BAD("a.test\r\nX-Log: 1"); /* log injection */
	NAME_BAD("a\0b.test");
	NAME_BAD("\x7f.test");
	NAME_BAD("caf\xc3\xa9.test"); /* UTF-8, not an A-label */
	NAME_BAD("a_b.test");
	NAME_BAD("a b.test");
	NAME_BAD("example.com."); /* trailing dot */
	NAME_BAD(".example.com");
	NAME_BAD("a..b");
	NAME_BAD(".");
	NAME_BAD("-a.test");
	NAME_BAD("a-.test");
	NAME_BAD("a.-");
	NAME_BAD("192.0.2.1"); /* IP literals */
	NAME_BAD("127.1");
	NAME_BAD("4294967295");
	NAME_BAD("::1");
	NAME_BAD("[2001:db8::1]");
	NAME_BAD("host:443");
	memset(label64, 'a', 64);
	name_case(label64, 64, 0);
	memset(long254, 'b', 254);
	long254[63] = long254[127] = long254[191] = '.';
	name_case(long254, 254, 0);
}

static void test_server_sni_encoding(void **state)
{
	/* lengths that do not add up: decode_error */
	static const uint8_t empty_list[] = { 0, 0 };
	static const uint8_t empty_name[] = { 0, 3, 0, 0, 0 };
	static const uint8_t short_list[] = { 0, 9, 0, 0, 4, 'a', 'b', 'c', 'd' };
	static const uint8_t long_name[] = { 0, 7, 0, 0, 5, 'a', 'b', 'c', 'd' };
	static const uint8_t no_body[] = { 0 };
	/* two host_names: illegal_parameter; another name_type is skipped */
	static const uint8_t two[] = { 0, 8, 0, 0, 1, 'a', 0, 0, 1, 'b' };
	static const uint8_t other_type[] = { 0, 10, 1, 0, 2, 0xff, 0x00, 0, 0, 2, 'o', 'k' };
	(void)state;
	server_sni_case(empty_list, sizeof(empty_list), 1, A_DECODE, NULL);
	server_sni_case(empty_name, sizeof(empty_name), 1, A_DECODE, NULL);
	server_sni_case(short_list, sizeof(short_list), 1, A_DECODE, NULL);
	server_sni_case(long_name, sizeof(long_name), 1, A_DECODE, NULL);
	server_sni_case(no_body, sizeof(no_body), 1, A_DECODE, NULL);
	server_sni_case(two, sizeof(two), HS_ERR_TLS_ILLEGAL_PARAM, A_ILLEGAL, NULL);
	server_sni_case(other_type, sizeof(other_type), 0, -1, "ok");
}

/* ---- client side ---- */

static void test_client_refuses_malformed_server_name(void **state)
{
	static const char *const bad[] = { "example.com.", "a..b", "-x.test", "x-.test",
					   "evil\x1b[31m", "a\r\nb", "a_b", "caf\xc3\xa9",
					   "", "1.2.3", "256.1.1.1", "127.1", "host:443",
					   "a:b", "[::1]", "fe80::1%eth0" };
	static const char *const good[] = { "localhost", "www.example.com", "xn--bcher-kva.ch",
					    "192.0.2.1", "::1", "2001:db8::1" };
	struct hs_config cfg = { .role = HS_ROLE_CLIENT, .insecure = 1 };
	struct hs_conn *c;
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.server_name = bad[i];
		c = NULL;
		assert_int_equal(hs_conn_new(&c, &cfg), HS_ERR_ARG);
		assert_null(c);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cfg.server_name = good[i];
		assert_int_equal(hs_conn_new(&c, &cfg), 0);
		hs_conn_free(c);
	}
}

static void test_client_sends_no_sni_for_ip_literal(void **state)
{
	static const char *const ips[] = { "127.0.0.1", "::1" };
	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct pair p;
		pair_init(&p, EC_CERT, EC_KEY_PKCS8);
		p.ccfg.server_name = ips[i];
		p.ccfg.anchor_der = NULL;
		p.ccfg.insecure = 1;
		pair_start(&p);
		assert_int_equal(pair_handshake(&p, 0), 0);
		assert_null(hs_conn_server_name(p.s));
		pair_free(&p);
	}
}

/* ---- several credentials ---- */

static void der_of(const char *pem, uint8_t *der, size_t cap, size_t *len)
{
	assert_int_equal(hs_pem_cert_to_der(pem, strlen(pem), der, cap, len), 0);
}

/*
 * One handshake against a server holding creds (and cred): the client
 * offers only sigs and pins the leaf of want_pem; want_scheme is what the
 * server signed with. want_pem NULL: expect handshake_failure.
 */
static void multi_case(const struct hs_cred *const *creds, size_t n, const struct hs_cred *cred,
		       const uint16_t *sigs, size_t n_sigs, const char *sni,
		       const char *want_pem, uint16_t want_scheme)
{
	static uint8_t der[4096];
	size_t der_len = 0;
	struct pair p;
	const uint8_t *leaf;
	size_t leaf_len;

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.scfg.cred = cred;
	p.scfg.creds = creds;
	p.scfg.n_creds = n;
	p.ccfg.sig_schemes = sigs;
	p.ccfg.n_sig_schemes = n_sigs;
	p.ccfg.server_name = sni;
	p.ccfg.anchor_der = NULL;
	p.ccfg.insecure = 1; /* the leaf is compared below */
	pair_start(&p);
	if (want_pem == NULL) {
		assert_int_not_equal(pair_handshake(&p, 0), 0);
		assert_int_equal(p.serr, HS_ERR_TLS_NO_SHARED_SIGALG);
		assert_int_equal(hs_conn_alert(p.s, 0), A_HS_FAIL);
		assert_int_equal(hs_conn_alert(p.c, 1), A_HS_FAIL);
		pair_free(&p);
		return;
	}
	der_of(want_pem, der, sizeof(der), &der_len);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_sig_scheme(p.s), want_scheme);
	assert_int_equal(hs_conn_sig_scheme(p.c), want_scheme);
	leaf = hs_conn_peer_cert(p.c, 0, &leaf_len);
	assert_non_null(leaf);
	assert_int_equal(leaf_len, der_len);
	assert_memory_equal(leaf, der, der_len);
	assert_int_equal(pair_transfer(&p, 1, (const uint8_t *)"ping", 4, 0), 0);
	pair_free(&p);
}

static const uint16_t only_pss[] = { HS_SIG_RSA_PSS_RSAE_SHA256, HS_SIG_RSA_PSS_RSAE_SHA384,
				     HS_SIG_RSA_PSS_RSAE_SHA512 };
static const uint16_t only_pss384[] = { HS_SIG_RSA_PSS_RSAE_SHA384 };
static const uint16_t only_ecdsa[] = { HS_SIG_ECDSA_SECP256R1_SHA256 };
static const uint16_t only_ed[] = { HS_SIG_ED25519 };
static const uint16_t only_p384[] = { HS_SIG_ECDSA_SECP384R1_SHA384 };

static void test_one_server_rsa_and_ecdsa_clients(void **state)
{
	const struct hs_cred *two[] = { rsa, ec }, *three[] = { ec, rsa, ed };
	(void)state;
	multi_case(two, 2, NULL, only_pss, 3, NULL, RSA2048_CERT, HS_SIG_RSA_PSS_RSAE_SHA256);
	multi_case(two, 2, NULL, only_pss384, 1, NULL, RSA2048_CERT, HS_SIG_RSA_PSS_RSAE_SHA384);
	multi_case(two, 2, NULL, only_ecdsa, 1, NULL, EC_CERT, HS_SIG_ECDSA_SECP256R1_SHA256);
	multi_case(two, 2, NULL, only_ed, 1, NULL, NULL, 0);
	multi_case(three, 3, NULL, only_ed, 1, NULL, ED_CERT, HS_SIG_ED25519);
	multi_case(three, 3, NULL, only_pss, 3, "localhost", RSA2048_CERT,
		   HS_SIG_RSA_PSS_RSAE_SHA256);
	/* defaults offer every scheme: the first candidate wins */
	multi_case(three, 3, NULL, NULL, 0, NULL, EC_CERT, HS_SIG_ECDSA_SECP256R1_SHA256);
	/* cred stays the last candidate */
	multi_case(two, 1, ec, only_ecdsa, 1, NULL, EC_CERT, HS_SIG_ECDSA_SECP256R1_SHA256);
	multi_case(two, 1, ec, only_pss, 3, NULL, RSA2048_CERT, HS_SIG_RSA_PSS_RSAE_SHA256);
	multi_case(NULL, 0, rsa, only_pss, 3, NULL, RSA2048_CERT, HS_SIG_RSA_PSS_RSAE_SHA256);
	multi_case(NULL, 0, rsa, only_ecdsa, 1, NULL, NULL, 0);
	multi_case(three, 3, NULL, only_p384, 1, NULL, NULL, 0);
}

static void test_sni_picks_the_leaf(void **state)
{
	const struct hs_cred *both[] = { ec, other };
	(void)state;
	multi_case(both, 2, NULL, NULL, 0, "other.test", OTHER_CERT,
		   HS_SIG_ECDSA_SECP256R1_SHA256);
	multi_case(both, 2, NULL, NULL, 0, "localhost", EC_CERT, HS_SIG_ECDSA_SECP256R1_SHA256);
	multi_case(both, 2, NULL, NULL, 0, "www.example.com", EC_CERT,
		   HS_SIG_ECDSA_SECP256R1_SHA256);
	multi_case(both, 1, other, NULL, 0, "other.test", OTHER_CERT,
		   HS_SIG_ECDSA_SECP256R1_SHA256);
	/* no leaf has the name: the first candidate */
	multi_case(both, 2, NULL, NULL, 0, "unknown.test", EC_CERT,
		   HS_SIG_ECDSA_SECP256R1_SHA256);
	/* the name matches a leaf the client cannot verify: the key type wins */
	const struct hs_cred *mixed[] = { other, rsa };
	multi_case(mixed, 2, NULL, only_pss, 3, "other.test", RSA2048_CERT,
		   HS_SIG_RSA_PSS_RSAE_SHA256);
}

static void test_config_checks_creds(void **state)
{
	const struct hs_cred *holes[] = { ec, NULL };
	struct hs_config cfg = { .role = HS_ROLE_SERVER };
	struct hs_conn *c;
	(void)state;
	assert_int_equal(hs_conn_new(&c, &cfg), HS_ERR_TLS_NO_CERT);
	cfg.creds = holes;
	cfg.n_creds = 2;
	assert_int_equal(hs_conn_new(&c, &cfg), HS_ERR_ARG);
	cfg.creds = NULL;
	assert_int_equal(hs_conn_new(&c, &cfg), HS_ERR_ARG);
	cfg.creds = holes;
	cfg.n_creds = 1;
	assert_int_equal(hs_conn_new(&c, &cfg), 0);
	hs_conn_free(c);
}

static struct hs_cred *load(const char *cert, const char *key)
{
	struct hs_cred *cr = NULL;
	assert_int_equal(hs_cred_load_pem(&cr, cert, strlen(cert), key, strlen(key)), 0);
	return cr;
}

static int setup(void **state)
{
	uint8_t priv[32];
	(void)state;
	if (x25519_keygen(priv, ch_pub) != 0)
		return -1;
	ec = load(EC_CERT, EC_KEY_PKCS8);
	other = load(OTHER_CERT, OTHER_KEY);
	rsa = load(RSA2048_CERT, RSA2048_KEY_PKCS8);
	ed = load(ED_CERT, ED_KEY_PKCS8);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hs_cred_free(ec);
	hs_cred_free(other);
	hs_cred_free(rsa);
	hs_cred_free(ed);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server_sni_accepts_host_names),
		cmocka_unit_test(test_server_sni_refuses_what_is_not_a_host_name),
		cmocka_unit_test(test_server_sni_encoding),
		cmocka_unit_test(test_client_refuses_malformed_server_name),
		cmocka_unit_test(test_client_sends_no_sni_for_ip_literal),
		cmocka_unit_test(test_one_server_rsa_and_ecdsa_clients),
		cmocka_unit_test(test_sni_picks_the_leaf),
		cmocka_unit_test(test_config_checks_creds),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
