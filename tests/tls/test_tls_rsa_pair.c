/*
 * Proves RSA and P-384 server certificates work in the engine, in memory:
 *
 * - hs server with an RSA key (2048 bits PKCS#8 and the same key as PKCS#1
 *   "RSA PRIVATE KEY", 4096 bits) and hs client: the handshake completes
 *   with rsa_pss_rsae_sha256 (the server's preference), for every suite,
 *   and data flows; a client that offers only rsa_pss_rsae_sha384 or
 *   _sha512 gets that scheme; a client offering no RSA-PSS scheme gets
 *   handshake_failure; a server with a 1024-bit RSA certificate is refused
 *   by the client (unsupported_certificate); an RSA key that does not match
 *   the certificate, or a 1024-bit one, is refused at load; the
 *   ClientHello's signature_algorithms_cert lists rsa_pkcs1_sha256/384/512
 *   (and they have no CertificateVerify row, so signature_algorithms
 *   cannot list them);
 * - against OpenSSL (libssl, memory BIOs, same process): OpenSSL's client
 *   verifies hs's RSA-PSS CertificateVerify (SSL_VERIFY_PEER with the
 *   certificate as its CA, host name checked) and reports RSA-PSS with
 *   SHA-256; hs's client verifies OpenSSL's RSA-PSS (sha256, and sha512
 *   when only that is offered) and ECDSA P-384 (ecdsa_secp384r1_sha384)
 *   CertificateVerify, and a P-384 leaf is accepted; data flows both ways.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "hs/tls.h"
#include "libhs/internal.h"
#include "pair.h"
#include "rsa_certs.h"
#include "tls_certs.h"

static void data_both_ways(struct pair *p)
{
	uint8_t data[2000];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(pair_transfer(p, 1, data, sizeof(data), 0), 0);
	assert_int_equal(pair_transfer(p, 0, data, 300, 0), 0);
}

/* hs client <-> hs server with an RSA credential; the client may limit its schemes. */
static void rsa_pair(const char *cert, const char *key, const uint16_t *sigs, size_t n_sigs,
		     uint16_t want_scheme)
{
	struct pair p;

	pair_init(&p, cert, key);
	p.ccfg.sig_schemes = sigs;
	p.ccfg.n_sig_schemes = n_sigs;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_sig_scheme(p.c), want_scheme);
	assert_int_equal(hs_conn_sig_scheme(p.s), want_scheme);
	data_both_ways(&p);
	pair_free(&p);
}

static void test_rsa_server(void **state)
{
	static const uint16_t suites[] = { HS_TLS_AES_128_GCM_SHA256, HS_TLS_AES_256_GCM_SHA384,
					   HS_TLS_CHACHA20_POLY1305_SHA256 };
	(void)state;

	rsa_pair(RSA2048_CERT, RSA2048_KEY_PKCS8, NULL, 0, HS_SIG_RSA_PSS_RSAE_SHA256);
	rsa_pair(RSA2048_CERT, RSA2048_KEY_PKCS1, NULL, 0, HS_SIG_RSA_PSS_RSAE_SHA256);
	rsa_pair(RSA4096_CERT, RSA4096_KEY_PKCS8, NULL, 0, HS_SIG_RSA_PSS_RSAE_SHA256);
	for (size_t i = 0; i < 3; i++) {
		struct pair p;
		pair_init(&p, RSA2048_CERT, RSA2048_KEY_PKCS8);
		p.ccfg.suites = &suites[i];
		p.ccfg.n_suites = 1;
		pair_start(&p);
		assert_int_equal(pair_handshake(&p, 1), 0); /* one byte at a time */
		assert_int_equal(hs_conn_suite(p.c), suites[i]);
		data_both_ways(&p);
		pair_free(&p);
	}
}

static void test_rsa_negotiation(void **state)
{
	static const uint16_t s384[] = { HS_SIG_ECDSA_SECP256R1_SHA256,
					 HS_SIG_RSA_PSS_RSAE_SHA384 };
	static const uint16_t s512[] = { HS_SIG_RSA_PSS_RSAE_SHA512, HS_SIG_ED25519 };
	static const uint16_t none[] = { HS_SIG_ECDSA_SECP256R1_SHA256, HS_SIG_ED25519,
					 HS_SIG_ECDSA_SECP384R1_SHA384 };
	struct pair p;
	(void)state;

	rsa_pair(RSA2048_CERT, RSA2048_KEY_PKCS8, s384, 2, HS_SIG_RSA_PSS_RSAE_SHA384);
	rsa_pair(RSA2048_CERT, RSA2048_KEY_PKCS8, s512, 2, HS_SIG_RSA_PSS_RSAE_SHA512);
	/* no RSA-PSS offered: the server has nothing to sign with */
	pair_init(&p, RSA2048_CERT, RSA2048_KEY_PKCS8);
	p.ccfg.sig_schemes = none;
	p.ccfg.n_sig_schemes = 3;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(p.serr, HS_ERR_TLS_NO_SHARED_SIGALG);
	assert_int_equal(hs_conn_alert(p.c, 1), AL_HANDSHAKE_FAILURE);
	pair_free(&p);
}

/* The ClientHello lists rsa_pkcs1_* in signature_algorithms_cert only. */
static void test_sig_algs_cert(void **state)
{
	/* extension 50, length 14, list length 12: ecdsa_secp256r1_sha256,
	 * ecdsa_secp384r1_sha384, ed25519, rsa_pkcs1_sha256/384/512 */
	static const uint8_t want[] = { 0x00, 0x32, 0x00, 0x0e, 0x00, 0x0c, 0x04, 0x03, 0x05,
					0x03, 0x08, 0x07, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01 };
	struct pair p;
	size_t at = 0;
	(void)state;

	pair_init(&p, RSA2048_CERT, RSA2048_KEY_PKCS8);
	pair_start(&p);
	wire_take(p.c, &p.c2s);
	while (at + sizeof(want) <= p.c2s.len && memcmp(p.c2s.buf + at, want, sizeof(want)) != 0)
		at++;
	assert_true(at + sizeof(want) <= p.c2s.len);
	/* signature_algorithms only lists schemes with a row, and rsa_pkcs1_*
	 * have none (so a CertificateVerify with one is illegal_parameter) */
	assert_null(sigscheme_find(HS_SIG_RSA_PKCS1_SHA256));
	assert_null(sigscheme_find(HS_SIG_RSA_PKCS1_SHA384));
	assert_null(sigscheme_find(HS_SIG_RSA_PKCS1_SHA512));
	assert_int_equal(pair_handshake(&p, 0), 0);
	pair_free(&p);
}

static void test_rsa_refused(void **state)
{
	static const uint8_t salt[32] = { 1 };
	struct test_hooks hooks = { .pss_salt = salt, .pss_salt_len = 32 };
	struct hs_cred *cred;
	struct pair p;
	(void)state;

	/* key of another certificate: said so, not "invalid private key" */
	assert_int_equal(hs_cred_load_pem(&cred, RSA2048_CERT, strlen(RSA2048_CERT),
					  RSA4096_KEY_PKCS8, strlen(RSA4096_KEY_PKCS8)),
			 HS_ERR_X509_KEY_MISMATCH);
	assert_int_equal(hs_cred_load_pem(&cred, EC_CERT, strlen(EC_CERT), RSA2048_KEY_PKCS8,
					  strlen(RSA2048_KEY_PKCS8)),
			 HS_ERR_X509_KEY_MISMATCH);
	assert_int_equal(hs_cred_load_pem(&cred, RSA2048_CERT, strlen(RSA2048_CERT),
					  EC_KEY_PKCS8, strlen(EC_KEY_PKCS8)),
			 HS_ERR_X509_KEY_MISMATCH);
	/* 1024 bits: refused at load ... */
	assert_int_equal(hs_cred_load_pem(&cred, RSA1024_CERT, strlen(RSA1024_CERT),
					  RSA1024_KEY_PKCS8, strlen(RSA1024_KEY_PKCS8)),
			 HS_ERR_BAD_KEY);
	/* ... and by a client, from a server that loaded it anyway */
	memset(&p, 0, sizeof(p));
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	hs_cred_free(p.cred);
	assert_int_equal(cred_load_pem_flags(&p.cred, RSA1024_CERT, strlen(RSA1024_CERT),
						RSA1024_KEY_PKCS8, strlen(RSA1024_KEY_PKCS8),
						CRED_ALLOW_SMALL_RSA),
			 0);
	p.scfg.cred = p.cred;
	p.ccfg.anchor_der = NULL;
	p.ccfg.insecure = 1;
	pair_start(&p);
	/* the real signer refuses 1024 bits too: sign through the salt hook */
	assert_int_equal(conn_test_hooks(p.s, &hooks), 0);
	assert_int_equal(pair_handshake(&p, 0), HS_ERR_TLS_UNSUPPORTED_CERT);
	assert_int_equal(hs_conn_alert(p.c, 0), AL_UNSUPPORTED_CERTIFICATE);
	pair_free(&p);
}

/* ---- against OpenSSL, in memory ---- */

struct ossl {
	SSL_CTX *ctx;
	SSL *ssl;
	BIO *in, *out; /* in: bytes for OpenSSL; out: OpenSSL's bytes */
	struct hs_conn *hs;
};

static void ossl_new(struct ossl *o, int server)
{
	o->ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	assert_non_null(o->ctx);
	assert_int_equal(SSL_CTX_set_min_proto_version(o->ctx, TLS1_3_VERSION), 1);
	o->ssl = SSL_new(o->ctx);
	o->in = BIO_new(BIO_s_mem());
	o->out = BIO_new(BIO_s_mem());
	assert_non_null(o->ssl);
	SSL_set_bio(o->ssl, o->in, o->out);
	if (server)
		SSL_set_accept_state(o->ssl);
	else
		SSL_set_connect_state(o->ssl);
}

static void ossl_free(struct ossl *o)
{
	SSL_free(o->ssl);
	SSL_CTX_free(o->ctx);
	hs_conn_free(o->hs);
}

/* Move bytes both ways once; 1 if anything moved. */
static int ossl_pump(struct ossl *o)
{
	uint8_t buf[16384];
	size_t n, used;
	int moved = 0, r;

	while (hs_conn_output_pending(o->hs) > 0) {
		assert_int_equal(hs_conn_pull(o->hs, buf, sizeof(buf), &n), 0);
		assert_int_equal(BIO_write(o->in, buf, (int)n), (int)n);
		moved = 1;
	}
	while ((r = BIO_read(o->out, buf, sizeof(buf))) > 0) {
		size_t off = 0;
		while (off < (size_t)r) {
			assert_int_equal(hs_conn_feed(o->hs, buf + off, (size_t)r - off, &used), 0);
			off += used;
			if (used == 0) { /* application data waiting: drain it */
				uint8_t sink[16384];
				assert_int_equal(hs_conn_read(o->hs, sink, sizeof(sink), &n), 0);
				assert_true(n > 0);
			}
		}
		moved = 1;
	}
	return moved;
}

static void ossl_handshake(struct ossl *o)
{
	for (int i = 0; i < 50; i++) {
		int r = SSL_do_handshake(o->ssl);
		if (r != 1)
			assert_int_equal(SSL_get_error(o->ssl, r), SSL_ERROR_WANT_READ);
		if (!ossl_pump(o) && r == 1 && hs_conn_handshake_done(o->hs))
			return;
	}
	fail_msg("handshake with OpenSSL did not finish");
}

/* hs -> OpenSSL and OpenSSL -> hs, one message each way. */
static void ossl_data(struct ossl *o)
{
	static const char ping[] = "ping from hs", pong[] = "pong from OpenSSL";
	char buf[64];
	size_t n = 0;

	assert_int_equal(hs_conn_write(o->hs, (const uint8_t *)ping, sizeof(ping), &n), 0);
	ossl_pump(o);
	assert_int_equal(SSL_read(o->ssl, buf, sizeof(buf)), (int)sizeof(ping));
	assert_memory_equal(buf, ping, sizeof(ping));
	assert_int_equal(SSL_write(o->ssl, pong, sizeof(pong)), (int)sizeof(pong));
	{
		uint8_t raw[4096];
		size_t used;
		int r = BIO_read(o->out, raw, sizeof(raw));
		assert_true(r > 0);
		assert_int_equal(hs_conn_feed(o->hs, raw, (size_t)r, &used), 0);
		assert_int_equal(used, (size_t)r);
	}
	assert_int_equal(hs_conn_read(o->hs, (uint8_t *)buf, sizeof(buf), &n), 0);
	assert_int_equal(n, sizeof(pong));
	assert_memory_equal(buf, pong, sizeof(pong));
}

static X509 *pem_x509(const char *pem)
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);

	BIO_free(b);
	assert_non_null(x);
	return x;
}

static EVP_PKEY *pem_key(const char *pem)
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	EVP_PKEY *k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);

	BIO_free(b);
	assert_non_null(k);
	return k;
}

static void test_openssl_client(void **state)
{
	struct hs_config cfg = { .role = HS_ROLE_SERVER };
	struct hs_cred *cred;
	struct ossl o;
	X509 *ca = pem_x509(RSA2048_CERT);
	int nid = 0;
	(void)state;

	assert_int_equal(hs_cred_load_pem(&cred, RSA2048_CERT, strlen(RSA2048_CERT),
					  RSA2048_KEY_PKCS1, strlen(RSA2048_KEY_PKCS1)),
			 0);
	cfg.cred = cred;
	ossl_new(&o, 0);
	assert_int_equal(X509_STORE_add_cert(SSL_CTX_get_cert_store(o.ctx), ca), 1);
	SSL_set_verify(o.ssl, SSL_VERIFY_PEER, NULL);
	assert_int_equal(SSL_set1_host(o.ssl, "localhost"), 1);
	assert_int_equal(hs_conn_new(&o.hs, &cfg), 0);
	ossl_handshake(&o);
	assert_int_equal(SSL_get_verify_result(o.ssl), X509_V_OK);
	assert_int_equal(SSL_get_peer_signature_type_nid(o.ssl, &nid), 1);
	assert_int_equal(nid, EVP_PKEY_RSA_PSS);
	assert_int_equal(SSL_get_peer_signature_nid(o.ssl, &nid), 1);
	assert_int_equal(nid, NID_sha256);
	assert_int_equal(hs_conn_sig_scheme(o.hs), HS_SIG_RSA_PSS_RSAE_SHA256);
	ossl_data(&o);
	ossl_free(&o);
	X509_free(ca);
	hs_cred_free(cred);
}

/* hs client against an OpenSSL server holding cert/key. */
static void hs_client_vs(const char *cert, const char *key, const uint16_t *sigs,
			 size_t n_sigs, uint16_t want)
{
	struct hs_config cfg = { .role = HS_ROLE_CLIENT, .server_name = "localhost" };
	uint8_t anchor[4096];
	size_t anchor_len;
	struct ossl o;
	X509 *x = pem_x509(cert);
	EVP_PKEY *k = pem_key(key);

	assert_int_equal(hs_pem_cert_to_der(cert, strlen(cert), anchor, sizeof(anchor),
					    &anchor_len),
			 0);
	cfg.anchor_der = anchor;
	cfg.anchor_len = anchor_len;
	cfg.sig_schemes = sigs;
	cfg.n_sig_schemes = n_sigs;
	ossl_new(&o, 1);
	assert_int_equal(SSL_use_certificate(o.ssl, x), 1);
	assert_int_equal(SSL_use_PrivateKey(o.ssl, k), 1);
	assert_int_equal(hs_conn_new(&o.hs, &cfg), 0);
	ossl_handshake(&o);
	assert_int_equal(hs_conn_sig_scheme(o.hs), want);
	ossl_data(&o);
	ossl_free(&o);
	X509_free(x);
	EVP_PKEY_free(k);
}

static void test_openssl_server(void **state)
{
	static const uint16_t only512[] = { HS_SIG_RSA_PSS_RSAE_SHA512 };
	(void)state;

	hs_client_vs(RSA2048_CERT, RSA2048_KEY_PKCS8, NULL, 0, HS_SIG_RSA_PSS_RSAE_SHA256);
	hs_client_vs(RSA4096_CERT, RSA4096_KEY_PKCS8, only512, 1, HS_SIG_RSA_PSS_RSAE_SHA512);
	hs_client_vs(P384_CERT, P384_KEY_PKCS8, NULL, 0, HS_SIG_ECDSA_SECP384R1_SHA384);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rsa_server),
		cmocka_unit_test(test_rsa_negotiation),
		cmocka_unit_test(test_sig_algs_cert),
		cmocka_unit_test(test_rsa_refused),
		cmocka_unit_test(test_openssl_client),
		cmocka_unit_test(test_openssl_server),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
