/*
 * Client certificates (mutual TLS, RFC 8446 4.3.2, 4.4.2, 4.4.3) on
 * in-memory client/server pairs. Proves that:
 * - a server in require or request mode sends a CertificateRequest, and a
 *   client holding a P-256, Ed25519 or RSA (PSS) credential answers with its chain and
 *   a CertificateVerify the server checks; the server then exposes the
 *   client's verified chain (hs_conn_peer_cert), byte for byte; also with
 *   certificate_authorities in the CertificateRequest, and after a
 *   HelloRetryRequest;
 * - request mode without a client certificate completes (no peer chain);
 * - require mode without one fails with certificate_required (116), also
 *   when the client's only key signs with a scheme the server did not list;
 * - a client chain from an unknown CA -> unknown_ca, a leaf without the
 *   clientAuth EKU -> unsupported_certificate, a client key that does not
 *   match its certificate -> decrypt_error, all on the server side;
 * - a server without verify_client sends no CertificateRequest, so a
 *   client credential goes unused; a server in verify mode needs a trust
 *   store (hs_conn_new refuses one without).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hs/x509.h"
#include "libhs/internal.h"
#include "mtls_certs.h"
#include "pair.h"
#include "tls_certs.h"

enum { A_BAD_CERT = 42, A_UNSUPPORTED_CERT = 43, A_UNKNOWN_CA = 48, A_DECRYPT = 51,
       A_CERT_REQUIRED = 116 };

static int send_names; /* servers send certificate_authorities */
static int hrr;        /* servers start with a HelloRetryRequest (cookie) */

struct mtls {
	struct pair p;
	struct hs_x509_store *ca;
	struct hs_cred *ccred;
};

/* A pair whose server (EC credential) runs verify mode mode against
 * MTLS_CA; the client presents cert/key when cert is not NULL. */
static void mtls_init(struct mtls *m, enum hs_verify_mode mode, const char *cert, const char *key)
{
	memset(m, 0, sizeof(*m));
	pair_init(&m->p, EC_CERT, EC_KEY_PKCS8);
	assert_int_equal(hs_x509_store_new(&m->ca), 0);
	assert_int_equal(hs_x509_store_add_pem(m->ca, MTLS_CA, strlen(MTLS_CA), NULL), 0);
	m->p.scfg.verify_client = mode;
	m->p.scfg.client_trust = m->ca;
	m->p.scfg.send_ca_names = send_names;
	m->p.scfg.hrr_cookie = hrr;
	if (cert != NULL) {
		assert_int_equal(hs_cred_load_pem(&m->ccred, cert, strlen(cert), key, strlen(key)),
				 0);
		m->p.ccfg.cred = m->ccred;
	}
}

static void mtls_free(struct mtls *m)
{
	pair_free(&m->p);
	hs_cred_free(m->ccred);
	hs_x509_store_free(m->ca);
}

/* The server's view of the client's chain is exactly the client's chain. */
static void assert_peer_is(struct hs_conn *s, const struct hs_cred *cred)
{
	size_t len, want_len;
	const uint8_t *got = hs_conn_peer_cert(s, 0, &len);
	const uint8_t *want = hs_cred_leaf(cred, &want_len);

	assert_int_equal(hs_conn_peer_cert_count(s), cred->n_certs);
	assert_non_null(got);
	assert_int_equal(len, want_len);
	assert_memory_equal(got, want, len);
	assert_null(hs_conn_peer_cert(s, cred->n_certs, &len));
	assert_int_equal(len, 0);
}

static void good_handshake(const char *cert, const char *key, enum hs_verify_mode mode,
			   size_t chunk)
{
	static const uint8_t msg[] = "authenticated hello";
	struct mtls m;

	mtls_init(&m, mode, cert, key);
	pair_start(&m.p);
	assert_int_equal(pair_handshake(&m.p, chunk), 0);
	assert_int_equal(hs_conn_used_hrr(m.p.s), hrr);
	assert_peer_is(m.p.s, m.ccred);
	/* the client saw the server's certificate; sig_scheme is the server's */
	assert_int_equal(hs_conn_peer_cert_count(m.p.c), 1);
	assert_int_equal(hs_conn_sig_scheme(m.p.s), HS_SIG_ECDSA_SECP256R1_SHA256);
	assert_int_equal(hs_conn_sig_scheme(m.p.c), HS_SIG_ECDSA_SECP256R1_SHA256);
	assert_int_equal(pair_transfer(&m.p, 1, msg, sizeof(msg), 0), 0);
	assert_int_equal(pair_transfer(&m.p, 0, msg, sizeof(msg), 0), 0);
	mtls_free(&m);
}

static void test_mtls_p256(void **state)
{
	(void)state;
	good_handshake(MTLS_EC_CERT, MTLS_EC_KEY, HS_VERIFY_REQUIRE, 0);
	good_handshake(MTLS_EC_CERT, MTLS_EC_KEY, HS_VERIFY_REQUEST, 1);
	send_names = 1; /* the client parses and ignores certificate_authorities */
	good_handshake(MTLS_EC_CERT, MTLS_EC_KEY, HS_VERIFY_REQUIRE, 3);
	send_names = 0;
	hrr = 1; /* the CertificateVerify covers a transcript restarted by HRR */
	good_handshake(MTLS_EC_CERT, MTLS_EC_KEY, HS_VERIFY_REQUIRE, 0);
	hrr = 0;
}

static void test_mtls_ed25519(void **state)
{
	(void)state;
	good_handshake(MTLS_ED_CERT, MTLS_ED_KEY, HS_VERIFY_REQUIRE, 0);
	good_handshake(MTLS_ED_CERT, MTLS_ED_KEY, HS_VERIFY_REQUEST, 7);
}

static void test_mtls_rsa(void **state)
{
	(void)state;
	good_handshake(MTLS_RSA_CERT, MTLS_RSA_KEY, HS_VERIFY_REQUIRE, 0);
}

static void test_request_without_cert(void **state)
{
	struct mtls m;
	size_t len;
	(void)state;
	mtls_init(&m, HS_VERIFY_REQUEST, NULL, NULL);
	pair_start(&m.p);
	assert_int_equal(pair_handshake(&m.p, 0), 0);
	assert_int_equal(hs_conn_peer_cert_count(m.p.s), 0);
	assert_null(hs_conn_peer_cert(m.p.s, 0, &len));
	mtls_free(&m);
}

/* The server fails with err and sends alert; the client receives it. */
static void expect_server_failure(struct mtls *m, int err, int alert)
{
	pair_start(&m->p);
	assert_int_equal(pair_handshake(&m->p, 0), HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(m->p.serr, err);
	assert_int_equal(hs_conn_alert(m->p.s, 0), alert);
	assert_int_equal(hs_conn_alert(m->p.c, 1), alert);
	assert_int_equal(hs_conn_peer_cert_count(m->p.s), 0);
	mtls_free(m);
}

static void test_require_without_cert(void **state)
{
	struct mtls m;
	static const uint16_t ecdsa_only[] = { HS_SIG_ECDSA_SECP256R1_SHA256 };
	(void)state;
	mtls_init(&m, HS_VERIFY_REQUIRE, NULL, NULL);
	expect_server_failure(&m, HS_ERR_TLS_CERT_REQUIRED, A_CERT_REQUIRED);
	/* an Ed25519 client key, but the server lists only ECDSA: empty answer */
	mtls_init(&m, HS_VERIFY_REQUIRE, MTLS_ED_CERT, MTLS_ED_KEY);
	m.p.scfg.sig_schemes = ecdsa_only;
	m.p.scfg.n_sig_schemes = 1;
	expect_server_failure(&m, HS_ERR_TLS_CERT_REQUIRED, A_CERT_REQUIRED);
	/* ... which request mode accepts */
	mtls_init(&m, HS_VERIFY_REQUEST, MTLS_ED_CERT, MTLS_ED_KEY);
	m.p.scfg.sig_schemes = ecdsa_only;
	m.p.scfg.n_sig_schemes = 1;
	pair_start(&m.p);
	assert_int_equal(pair_handshake(&m.p, 0), 0);
	assert_int_equal(hs_conn_peer_cert_count(m.p.s), 0);
	mtls_free(&m);
}

static void test_bad_client_chain(void **state)
{
	struct mtls m;
	(void)state;
	mtls_init(&m, HS_VERIFY_REQUEST, MTLS_OTHER_CERT, MTLS_OTHER_KEY);
	expect_server_failure(&m, HS_ERR_X509_UNKNOWN_ISSUER, A_UNKNOWN_CA);
	mtls_init(&m, HS_VERIFY_REQUIRE, MTLS_EKU_CERT, MTLS_EKU_KEY);
	expect_server_failure(&m, HS_ERR_X509_EKU, A_UNSUPPORTED_CERT);
	/* the server's own self-signed certificate is no client CA's */
	mtls_init(&m, HS_VERIFY_REQUIRE, EC_CERT, EC_KEY_PKCS8);
	expect_server_failure(&m, HS_ERR_X509_UNKNOWN_ISSUER, A_UNKNOWN_CA);
	/* expired, per the server's clock (the client CA's leaves end in 2126) */
	mtls_init(&m, HS_VERIFY_REQUIRE, MTLS_EC_CERT, MTLS_EC_KEY);
	m.p.scfg.verify_time = (int64_t)5000000000; /* year 2128 */
	expect_server_failure(&m, HS_ERR_X509_EXPIRED, 45);
}

static void test_bad_client_signature(void **state)
{
	struct mtls m;
	(void)state;
	for (int ed = 0; ed < 2; ed++) {
		mtls_init(&m, HS_VERIFY_REQUIRE, ed ? MTLS_ED_CERT : MTLS_EC_CERT,
			  ed ? MTLS_ED_KEY : MTLS_EC_KEY);
		m.ccred->priv[3] ^= 0x40; /* sign with another key */
		expect_server_failure(&m, HS_ERR_TLS_BAD_CERT_VERIFY, A_DECRYPT);
	}
}

static void test_no_request(void **state)
{
	struct mtls m;
	struct hs_conn *s;
	(void)state;
	mtls_init(&m, HS_VERIFY_NONE, MTLS_EC_CERT, MTLS_EC_KEY);
	pair_start(&m.p);
	assert_int_equal(pair_handshake(&m.p, 0), 0);
	assert_int_equal(hs_conn_peer_cert_count(m.p.s), 0);
	m.p.scfg.verify_client = HS_VERIFY_REQUIRE;
	m.p.scfg.client_trust = NULL;
	assert_int_equal(hs_conn_new(&s, &m.p.scfg), HS_ERR_ARG);
	m.p.scfg.verify_client = (enum hs_verify_mode)7;
	m.p.scfg.client_trust = m.ca;
	assert_int_equal(hs_conn_new(&s, &m.p.scfg), HS_ERR_ARG);
	mtls_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtls_p256),
		cmocka_unit_test(test_mtls_ed25519),
		cmocka_unit_test(test_mtls_rsa),
		cmocka_unit_test(test_request_without_cert),
		cmocka_unit_test(test_require_without_cert),
		cmocka_unit_test(test_bad_client_chain),
		cmocka_unit_test(test_bad_client_signature),
		cmocka_unit_test(test_no_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
