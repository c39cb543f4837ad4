/*
 * 0-RTT against OpenSSL (libssl, memory BIOs, same process):
 *
 * - OpenSSL's client resumes with a ticket from hs's server and sends early
 *   data (SSL_write_early_data): hs accepts it (hs_conn_read_early), OpenSSL
 *   reports SSL_EARLY_DATA_ACCEPTED, the early exporters agree
 *   (SSL_export_keying_material_early); the same session offered again is
 *   refused 0-RTT (the ticket is in the anti-replay register) and the
 *   handshake completes in 1-RTT (SSL_EARLY_DATA_REJECTED); OpenSSL's first
 *   flight replayed byte for byte to another hs server is refused 0-RTT.
 * - hs's client resumes with a ticket from OpenSSL's server
 *   (SSL_CTX_set_max_early_data) and sends early data
 *   (hs_conn_write_early): OpenSSL reads it (SSL_read_early_data), both
 *   say accepted, the early exporters agree.
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
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "hs/tls.h"
#include "tls_certs.h"

static const char early_text[] = "early data across implementations";
static const char label[] = "EXPORTER-early-test";
static const uint8_t ctx_bytes[] = { 7, 7, 7 };

struct side {
	SSL *ssl;
	BIO *in, *out; /* in: bytes for OpenSSL; out: OpenSSL's bytes */
	struct hs_conn *hs;
	uint8_t got[4096]; /* early data the hs server read */
	size_t got_len;
	uint8_t *flight; /* OpenSSL's bytes as first sent, if asked */
	size_t flight_len;
};

static void side_new(struct side *s, SSL_CTX *ctx, int server)
{
	memset(s, 0, sizeof(*s));
	s->ssl = SSL_new(ctx);
	s->in = BIO_new(BIO_s_mem());
	s->out = BIO_new(BIO_s_mem());
	assert_non_null(s->ssl);
	SSL_set_bio(s->ssl, s->in, s->out);
	if (server)
		SSL_set_accept_state(s->ssl);
	else
		SSL_set_connect_state(s->ssl);
}

static void side_free(struct side *s)
{
	/* freed unshut, OpenSSL marks the session not resumable */
	SSL_set_shutdown(s->ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
	SSL_free(s->ssl);
	hs_conn_free(s->hs);
}

/* Move bytes both ways once (hs early data and 1-RTT data drained). */
static int pump(struct side *s)
{
	uint8_t buf[16384];
	size_t n, used;
	int moved = 0, r;

	while (hs_conn_output_pending(s->hs) > 0) {
		assert_int_equal(hs_conn_pull(s->hs, buf, sizeof(buf), &n), 0);
		assert_int_equal(BIO_write(s->in, buf, (int)n), (int)n);
		moved = 1;
	}
	while ((r = BIO_read(s->out, buf, sizeof(buf))) > 0) {
		size_t off = 0;
		if (s->flight != NULL && s->flight_len == 0) {
			memcpy(s->flight, buf, (size_t)r);
			s->flight_len = (size_t)r;
		}
		while (off < (size_t)r) {
			assert_int_equal(hs_conn_feed(s->hs, buf + off, (size_t)r - off, &used), 0);
			off += used;
			if (used > 0)
				continue;
			assert_int_equal(hs_conn_read_early(s->hs, s->got + s->got_len,
							    sizeof(s->got) - s->got_len, &n),
					 0);
			s->got_len += n;
			if (n == 0) { /* 1-RTT data: not looked at here */
				uint8_t sink[16384];
				assert_int_equal(hs_conn_read(s->hs, sink, sizeof(sink), &n), 0);
				assert_true(n > 0);
			}
		}
		moved = 1;
	}
	return moved;
}

static void handshake(struct side *s)
{
	for (int i = 0; i < 50; i++) {
		int r = SSL_do_handshake(s->ssl);
		if (r != 1)
			assert_int_equal(SSL_get_error(s->ssl, r), SSL_ERROR_WANT_READ);
		if (!pump(s) && r == 1 && hs_conn_handshake_done(s->hs))
			return;
	}
	fail_msg("handshake with OpenSSL did not finish");
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

/* ---- OpenSSL client, hs server ---- */

struct hs_server {
	struct hs_cred *cred;
	struct hs_ticket_keys *keys;
	struct hs_antireplay *ar;
	struct hs_config cfg;
};

static void hs_server_new(struct hs_server *h)
{
	memset(h, 0, sizeof(*h));
	assert_int_equal(hs_cred_load_pem(&h->cred, EC_CERT, strlen(EC_CERT), EC_KEY_PKCS8,
					  strlen(EC_KEY_PKCS8)),
			 0);
	assert_int_equal(hs_ticket_keys_new(&h->keys, 0, 0), 0);
	assert_int_equal(hs_antireplay_new(&h->ar, 1024, 0), 0);
	h->cfg.role = HS_ROLE_SERVER;
	h->cfg.cred = h->cred;
	h->cfg.ticket_keys = h->keys;
	h->cfg.max_early_data = 16384;
	h->cfg.antireplay = h->ar;
}

static void hs_server_free(struct hs_server *h)
{
	hs_cred_free(h->cred);
	hs_ticket_keys_free(h->keys);
	hs_antireplay_free(h->ar);
}

/* OpenSSL resumes with sess and writes early data; returns its status. */
static int ossl_client_early(SSL_CTX *ctx, struct hs_server *h, SSL_SESSION *sess,
			     uint8_t *flight, size_t *flight_len)
{
	struct side s;
	size_t written = 0;
	int status;

	side_new(&s, ctx, 0);
	s.flight = flight;
	assert_int_equal(SSL_set_session(s.ssl, sess), 1);
	assert_int_equal(hs_conn_new(&s.hs, &h->cfg), 0);
	assert_int_equal(SSL_write_early_data(s.ssl, early_text, sizeof(early_text), &written), 1);
	assert_int_equal(written, sizeof(early_text));
	handshake(&s);
	status = SSL_get_early_data_status(s.ssl);
	assert_int_equal(SSL_session_reused(s.ssl), 1);
	assert_int_equal(hs_conn_resumed(s.hs), 1);
	if (status == SSL_EARLY_DATA_ACCEPTED) {
		uint8_t a[32], b[32];
		assert_int_equal(hs_conn_early_data(s.hs), HS_EARLY_ACCEPTED);
		assert_int_equal(s.got_len, sizeof(early_text));
		assert_memory_equal(s.got, early_text, sizeof(early_text));
		assert_int_equal(SSL_export_keying_material_early(s.ssl, a, 32, label,
								   strlen(label), ctx_bytes, 3),
				 1);
		assert_int_equal(hs_conn_export_early(s.hs, label, ctx_bytes, 3, b, 32), 0);
		assert_memory_equal(a, b, 32);
		/* and the 1-RTT exporter as well */
		assert_int_equal(SSL_export_keying_material(s.ssl, a, 32, label, strlen(label),
							     ctx_bytes, 3, 1),
				 1);
		assert_int_equal(hs_conn_export(s.hs, label, ctx_bytes, 3, b, 32), 0);
		assert_memory_equal(a, b, 32);
	} else {
		assert_int_equal(hs_conn_early_data(s.hs), HS_EARLY_REJECTED);
		assert_int_equal(s.got_len, 0);
	}
	if (flight_len != NULL)
		*flight_len = s.flight_len;
	side_free(&s);
	return status;
}

static void test_openssl_client_early(void **state)
{
	struct hs_server h;
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL_SESSION *sess;
	struct side s;
	static uint8_t flight[16384];
	size_t flight_len = 0, used;
	uint8_t buf[64];
	struct hs_conn *other;
	(void)state;

	assert_non_null(ctx);
	assert_int_equal(SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION), 1);
	hs_server_new(&h);
	/* a full handshake; OpenSSL reads our tickets */
	side_new(&s, ctx, 0);
	assert_int_equal(hs_conn_new(&s.hs, &h.cfg), 0);
	handshake(&s);
	assert_int_equal(SSL_read(s.ssl, buf, sizeof(buf)), -1);
	assert_int_equal(SSL_get_error(s.ssl, -1), SSL_ERROR_WANT_READ);
	sess = SSL_get1_session(s.ssl);
	assert_non_null(sess);
	assert_int_equal(SSL_SESSION_get_max_early_data(sess), 16384);
	side_free(&s);
	/* 0-RTT accepted */
	assert_int_equal(ossl_client_early(ctx, &h, sess, flight, &flight_len),
			 SSL_EARLY_DATA_ACCEPTED);
	/* its first flight again, byte for byte, to another server: refused */
	assert_int_equal(hs_conn_new(&other, &h.cfg), 0);
	assert_true(flight_len > 0);
	assert_int_equal(hs_conn_feed(other, flight, flight_len, &used), 0);
	assert_int_equal(used, flight_len);
	assert_int_equal(hs_conn_early_data(other), HS_EARLY_REJECTED);
	assert_int_equal(hs_conn_resumed(other), 1);
	hs_conn_free(other);
	/* the same session again: 0-RTT refused, 1-RTT goes on */
	assert_int_equal(ossl_client_early(ctx, &h, sess, NULL, NULL), SSL_EARLY_DATA_REJECTED);
	SSL_SESSION_free(sess);
	SSL_CTX_free(ctx);
	hs_server_free(&h);
}

/* ---- hs client, OpenSSL server ---- */

static void test_hs_client_early(void **state)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	X509 *x = pem_x509(EC_CERT);
	EVP_PKEY *k = pem_key(EC_KEY_PKCS8);
	struct hs_config cfg = { .role = HS_ROLE_CLIENT, .insecure = 1, .keep_tickets = 1 };
	struct hs_session *sess = NULL;
	struct side s;
	uint8_t buf[4096], a[32], b[32];
	size_t n = 0, got = 0;
	int r;
	(void)state;

	assert_non_null(ctx);
	assert_int_equal(SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION), 1);
	assert_int_equal(SSL_CTX_use_certificate(ctx, x), 1);
	assert_int_equal(SSL_CTX_use_PrivateKey(ctx, k), 1);
	assert_int_equal(SSL_CTX_set_max_early_data(ctx, 8192), 1);
	/* a full handshake; OpenSSL sends its tickets with its first write */
	side_new(&s, ctx, 1);
	assert_int_equal(hs_conn_new(&s.hs, &cfg), 0);
	handshake(&s);
	assert_int_equal(SSL_write(s.ssl, "x", 1), 1);
	pump(&s);
	assert_int_equal(hs_conn_session(s.hs, &sess), 0);
	side_free(&s);
	/* resumed with early data */
	cfg.session = sess;
	cfg.early_data = 1;
	side_new(&s, ctx, 1);
	assert_int_equal(hs_conn_new(&s.hs, &cfg), 0);
	assert_int_equal(hs_conn_write_early(s.hs, (const uint8_t *)early_text,
					     sizeof(early_text), &n),
			 0);
	assert_int_equal(n, sizeof(early_text));
	assert_int_equal(hs_conn_export_early(s.hs, label, ctx_bytes, 3, a, 32), 0);
	for (int i = 0; i < 50; i++) {
		r = SSL_read_early_data(s.ssl, buf + got, sizeof(buf) - got, &n);
		if (r == SSL_READ_EARLY_DATA_SUCCESS) {
			got += n;
			continue;
		}
		if (r == SSL_READ_EARLY_DATA_FINISH)
			break;
		assert_int_equal(SSL_get_error(s.ssl, r), SSL_ERROR_WANT_READ);
		pump(&s);
	}
	assert_int_equal(r, SSL_READ_EARLY_DATA_FINISH);
	handshake(&s);
	assert_int_equal(SSL_get_early_data_status(s.ssl), SSL_EARLY_DATA_ACCEPTED);
	assert_int_equal(hs_conn_early_data(s.hs), HS_EARLY_ACCEPTED);
	assert_int_equal(hs_conn_resumed(s.hs), 1);
	assert_int_equal(got, sizeof(early_text));
	assert_memory_equal(buf, early_text, got);
	assert_int_equal(SSL_export_keying_material_early(s.ssl, b, 32, label, strlen(label),
							   ctx_bytes, 3),
			 1);
	assert_memory_equal(a, b, 32);
	side_free(&s);
	hs_session_free(sess);
	X509_free(x);
	EVP_PKEY_free(k);
	SSL_CTX_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openssl_client_early),
		cmocka_unit_test(test_hs_client_early),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
