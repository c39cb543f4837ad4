/*
 * Proves the API an application programs against (issue 10):
 *
 * - hs_version() is the library's version and matches hs/version.h;
 * - the key log callback gets the four NSS key log lines on each side,
 *   well formed and the same on both (tests/keylog/ decrypts a capture);
 * - alpn_select picks the server's protocol from the client's list (in the
 *   client's order), -1 goes on without ALPN, a refusal is
 *   no_application_protocol with a detail;
 * - verify_cert sees the chain and the built-in verdict, and can accept
 *   instead of it (no trust configured) or refuse after it; its error and
 *   a detail come back;
 * - hs_conn_error_detail() is NULL without an error and names the failed
 *   check (pin, name, the peer's alert);
 * - the fd helpers: writing to a closed peer is HS_ERR_TLS_RESET with errno
 *   EPIPE and no SIGPIPE (the test would die); EOF without close_notify is
 *   HS_ERR_TLS_CLOSED; SO_RCVTIMEO is HS_ERR_TLS_TIMEOUT; non-blocking
 *   sockets give WANT_READ / WANT_WRITE and lose no byte, handshake
 *   included;
 * - hs_load_error_detail() names the file and the reason (missing,
 *   encrypted key, key not matching the certificate, no certificate).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <cmocka.h>

#include "hs/fd.h"
#include "hs/version.h"
#include "hs/x509.h"
#include "pair.h"
#include "mtls_certs.h"
#include "rsa_certs.h"
#include "tls_certs.h"

static void test_version(void **state)
{
	char want[32];

	(void)state;
	snprintf(want, sizeof(want), "%d.%d.%d", HS_VERSION_MAJOR, HS_VERSION_MINOR,
		 HS_VERSION_PATCH);
	assert_string_equal(hs_version(), HS_VERSION_STRING);
	assert_string_equal(hs_version(), want);
	assert_int_equal(hs_version_number(), HS_VERSION_NUMBER);
}

/* ---- key log ---- */

struct lines {
	char l[8][256];
	size_t n;
};

static void collect(void *arg, const char *line)
{
	struct lines *L = arg;

	assert_true(L->n < 8);
	assert_true(strlen(line) < sizeof(L->l[0]));
	strcpy(L->l[L->n++], line);
}

static void test_keylog(void **state)
{
	static const char *const labels[] = { "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
					      "SERVER_HANDSHAKE_TRAFFIC_SECRET",
					      "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0" };
	struct lines cl = { .n = 0 }, sl = { .n = 0 };
	struct pair p;

	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.keylog = collect;
	p.ccfg.keylog_arg = &cl;
	p.scfg.keylog = collect;
	p.scfg.keylog_arg = &sl;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(cl.n, 4);
	assert_int_equal(sl.n, 4);
	for (size_t i = 0; i < 4; i++) {
		size_t k = strlen(labels[i]);
		/* LABEL SP 64 hex (ClientHello.random) SP 64 hex (SHA-256 secret) */
		assert_memory_equal(cl.l[i], labels[i], k);
		assert_int_equal(strlen(cl.l[i]), k + 1 + 64 + 1 + 64);
		assert_string_equal(cl.l[i], sl.l[i]);
		assert_int_equal(strspn(cl.l[i] + k + 1, "0123456789abcdef"), 64);
	}
	/* one ClientHello random in all four */
	for (size_t i = 1; i < 4; i++)
		assert_memory_equal(strchr(cl.l[i], ' '), strchr(cl.l[0], ' '), 65);
	pair_free(&p);
}

/* ---- ALPN selection ---- */

struct alpn_seen {
	int answer;
	size_t n;
	char first[32], second[32];
};

static int pick_alpn(void *arg, const char *const *offered, size_t n)
{
	struct alpn_seen *s = arg;

	s->n = n;
	snprintf(s->first, sizeof(s->first), "%s", n > 0 ? offered[0] : "");
	snprintf(s->second, sizeof(s->second), "%s", n > 1 ? offered[1] : "");
	return s->answer;
}

static void alpn_case(int answer, int want_err, const char *want)
{
	static const char *const client_alpn[] = { "http/1.1", "h2" };
	struct alpn_seen seen = { .answer = answer };
	struct pair p;

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.alpn = client_alpn;
	p.ccfg.n_alpn = 2;
	p.scfg.alpn_select = pick_alpn;
	p.scfg.alpn_arg = &seen;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0) != 0, want_err != 0);
	assert_int_equal(seen.n, 2);
	assert_string_equal(seen.first, "http/1.1");
	assert_string_equal(seen.second, "h2");
	if (want_err) {
		assert_int_equal(hs_conn_error(p.s), want_err);
		assert_non_null(strstr(hs_conn_error_detail(p.s), "alpn_select"));
	} else if (want == NULL) {
		assert_null(hs_conn_alpn(p.c));
		assert_null(hs_conn_alpn(p.s));
	} else {
		assert_string_equal(hs_conn_alpn(p.c), want);
		assert_string_equal(hs_conn_alpn(p.s), want);
	}
	pair_free(&p);
}

static void test_alpn_select(void **state)
{
	(void)state;
	alpn_case(1, 0, "h2");
	alpn_case(0, 0, "http/1.1");
	alpn_case(-1, 0, NULL);
	alpn_case(-2, HS_ERR_TLS_NO_ALPN, NULL);
	alpn_case(7, HS_ERR_TLS_NO_ALPN, NULL);
}

/* ---- certificate verification by the application ---- */

struct verify_seen {
	int answer, result;
	size_t n, leaf_len;
	uint8_t leaf[4096];
};

static int check_chain(void *arg, const uint8_t *const *certs, const size_t *lens, size_t n,
		       int result)
{
	struct verify_seen *s = arg;

	s->n = n;
	s->result = result;
	s->leaf_len = lens[0] < sizeof(s->leaf) ? lens[0] : 0;
	memcpy(s->leaf, certs[0], s->leaf_len);
	return s->answer;
}

static void verify_case(int pinned, int answer, int want_result, int want_err)
{
	struct verify_seen seen = { .answer = answer };
	struct pair p;

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	if (!pinned) {
		p.ccfg.anchor_der = NULL;
		p.ccfg.anchor_len = 0;
	}
	p.ccfg.verify_cert = check_chain;
	p.ccfg.verify_arg = &seen;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), want_err);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.result, want_result);
	assert_int_equal(seen.leaf_len, p.anchor_len);
	assert_memory_equal(seen.leaf, p.anchor, p.anchor_len);
	if (want_err) {
		assert_int_equal(hs_conn_error(p.c), want_err);
		assert_non_null(strstr(hs_conn_error_detail(p.c), "verify_cert"));
	}
	pair_free(&p);
}

static void test_verify_cert(void **state)
{
	(void)state;
	/* instead of the built-in validation: nothing configured, the callback accepts */
	verify_case(0, 0, HS_ERR_X509_NO_ANCHORS, 0);
	/* after it: the pin passed, the callback refuses */
	verify_case(1, HS_ERR_X509_EXPIRED, 0, HS_ERR_X509_EXPIRED);
	verify_case(1, 0, 0, 0);
	/* not an hs_err: refused all the same */
	verify_case(1, 5, 0, HS_ERR_TLS_CERT_UNTRUSTED);
}

/* ---- error detail ---- */

static void test_error_detail(void **state)
{
	struct pair p;

	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_null(hs_conn_error_detail(p.c));
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_null(hs_conn_error_detail(p.c));
	pair_free(&p);

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.anchor[p.anchor_len - 1] ^= 1; /* another certificate pinned */
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), HS_ERR_TLS_CERT_UNTRUSTED);
	assert_non_null(strstr(hs_conn_error_detail(p.c), "pinned"));
	/* the server read the client's alert */
	(void)pair_handshake(&p, 0);
	if (hs_conn_error(p.s) == HS_ERR_TLS_PEER_ALERT)
		assert_string_equal(hs_conn_error_detail(p.s),
				    "the peer sent the fatal alert unknown_ca (48)");
	pair_free(&p);

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	p.ccfg.server_name = "example.org";
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), HS_ERR_TLS_CERT_NAME);
	assert_non_null(strstr(hs_conn_error_detail(p.c), "example.org"));
	pair_free(&p);
}

/* the server validates the client's chain: the detail names the depth */
static void client_chain_case(const char *cert, const char *key, int64_t when, int want_err,
			      const char *want)
{
	struct hs_x509_store *ca;
	struct hs_cred *cred;
	struct pair p;

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	assert_int_equal(hs_x509_store_new(&ca), 0);
	assert_int_equal(hs_x509_store_add_pem(ca, MTLS_CA, strlen(MTLS_CA), NULL), 0);
	assert_int_equal(hs_cred_load_pem(&cred, cert, strlen(cert), key, strlen(key)), 0);
	p.scfg.verify_client = HS_VERIFY_REQUIRE;
	p.scfg.client_trust = ca;
	p.scfg.verify_time = when;
	p.ccfg.cred = cred;
	pair_start(&p);
	(void)pair_handshake(&p, 0);
	assert_int_equal(hs_conn_error(p.s), want_err);
	assert_string_equal(hs_conn_error_detail(p.s), want);
	pair_free(&p);
	hs_cred_free(cred);
	hs_x509_store_free(ca);
}

static void test_error_detail_chain(void **state)
{
	(void)state;
	client_chain_case(MTLS_EC_CERT, MTLS_EC_KEY, (int64_t)5000000000, HS_ERR_X509_EXPIRED,
			  "the client's certificate at depth 0 (0 = its own, 1 = its issuer, ...)"
			  " failed validation: certificate has expired");
	client_chain_case(MTLS_OTHER_CERT, MTLS_OTHER_KEY, 0, HS_ERR_X509_UNKNOWN_ISSUER,
			  "the client's certificate chain leads to no trusted root: certificate"
			  " issuer unknown: no path to a trusted root");
	client_chain_case(MTLS_EKU_CERT, MTLS_EKU_KEY, 0, HS_ERR_X509_EKU,
			  "the client's certificate at depth 0 (0 = its own, 1 = its issuer, ...)"
			  " failed validation: certificate extended key usage does not allow this"
			  " purpose");
}

/* ---- loaders: which file, and why ---- */

static void write_tmp(char *path, const char *text)
{
	int fd;

	strcpy(path, "/tmp/hs-api-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void test_load_detail(void **state)
{
	static const char enc[] = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIBvTBXBgkqhkiG9w0BBQ0w\n"
				  "-----END ENCRYPTED PRIVATE KEY-----\n";
	char cert[32], key[32], other[32], want[256];
	struct hs_cred *cred;
	struct hs_x509_store *st;

	(void)state;
	write_tmp(cert, EC_CERT);
	write_tmp(key, enc);
	write_tmp(other, MTLS_EC_KEY);
	assert_int_not_equal(hs_cred_load_files(&cred, "/nonexistent/c.pem", key), 0);
	assert_string_equal(hs_load_error_detail(), "/nonexistent/c.pem: No such file or directory");
	assert_int_not_equal(hs_cred_load_files(&cred, cert, key), 0);
	snprintf(want, sizeof(want), "%s: the private key is encrypted", key);
	assert_memory_equal(hs_load_error_detail(), want, strlen(want));
	assert_int_not_equal(hs_cred_load_files(&cred, cert, other), 0);
	snprintf(want, sizeof(want), "%s and %s: the private key does not match", other, cert);
	assert_memory_equal(hs_load_error_detail(), want, strlen(want));
	assert_int_not_equal(hs_cred_load_files(&cred, key, key), 0);
	snprintf(want, sizeof(want), "%s: no certificate", key);
	assert_memory_equal(hs_load_error_detail(), want, strlen(want));
	assert_int_equal(hs_x509_store_new(&st), 0);
	assert_int_not_equal(hs_x509_store_load_file(st, key), 0);
	snprintf(want, sizeof(want), "%s: no certificate could be loaded", key);
	assert_memory_equal(hs_load_error_detail(), want, strlen(want));
	assert_int_equal(hs_x509_store_load_file(st, cert), 0);
	assert_null(hs_load_error_detail());
	hs_x509_store_free(st);
	unlink(key);
	write_tmp(key, EC_KEY_PKCS8);
	assert_int_equal(hs_cred_load_files(&cred, cert, key), 0);
	assert_null(hs_load_error_detail());
	hs_cred_free(cred);
	unlink(cert);
	unlink(key);
	unlink(other);
}

/* ---- fd helpers ---- */

static void connected_pair(struct pair *p, int sv[2], int nonblock)
{
	pair_init(p, EC_CERT, EC_KEY_PKCS8);
	pair_start(p);
	assert_int_equal(pair_handshake(p, 0), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	for (int i = 0; i < 2 && nonblock; i++)
		assert_int_equal(fcntl(sv[i], F_SETFL, fcntl(sv[i], F_GETFL) | O_NONBLOCK), 0);
}

static void disconnect(struct pair *p, int sv[2])
{
	close(sv[0]);
	close(sv[1]);
	pair_free(p);
}

static void test_fd_results(void **state)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 50000 };
	struct pair p;
	uint8_t buf[64];
	size_t n;
	int sv[2];

	(void)state;
	/* SIGPIPE keeps its default action: a write() would kill the test */
	connected_pair(&p, sv, 0);
	close(sv[1]);
	errno = 0;
	assert_int_equal(hs_fd_write(p.c, sv[0], "data", 4), HS_ERR_TLS_RESET);
	assert_int_equal(errno, EPIPE);
	close(sv[0]);
	pair_free(&p);

	/* EOF without close_notify: closed, errno 0 */
	connected_pair(&p, sv, 0);
	shutdown(sv[1], SHUT_WR);
	assert_int_equal(hs_fd_read(p.c, sv[0], buf, sizeof(buf), &n), HS_ERR_TLS_CLOSED);
	assert_int_equal(errno, 0);
	disconnect(&p, sv);

	/* a close_notify is no error: 0 bytes */
	connected_pair(&p, sv, 0);
	assert_int_equal(hs_fd_close(p.s, sv[1]), 0);
	assert_int_equal(hs_fd_read(p.c, sv[0], buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 0);
	disconnect(&p, sv);

	/* SO_RCVTIMEO on a blocking socket: a timeout */
	connected_pair(&p, sv, 0);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	assert_int_equal(hs_fd_read(p.c, sv[0], buf, sizeof(buf), &n), HS_ERR_TLS_TIMEOUT);
	disconnect(&p, sv);
}

static void test_fd_nonblocking(void **state)
{
	static uint8_t chunk[16384], got[65536];
	struct pair p;
	size_t n, sent = 0, received = 0;
	int sv[2], err;

	(void)state;
	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (uint8_t)(i * 7);
	connected_pair(&p, sv, 1);
	assert_int_equal(hs_fd_read(p.s, sv[1], got, sizeof(got), &n), HS_ERR_WANT_READ);
	/* fill the socket until it refuses: every byte taken must arrive */
	for (int i = 0; i < 1000; i++) {
		err = hs_fd_write_some(p.c, sv[0], chunk + sent % sizeof(chunk),
				       sizeof(chunk) - sent % sizeof(chunk), &n);
		sent += n;
		if (err == HS_ERR_WANT_WRITE) {
			assert_int_equal(n, 0);
			break;
		}
		assert_int_equal(err, 0);
	}
	assert_int_equal(err, HS_ERR_WANT_WRITE);
	assert_true(sent > 0);
	while (received < sent) {
		err = hs_fd_read(p.s, sv[1], got, sizeof(got), &n);
		if (err == HS_ERR_WANT_READ) {
			/* the rest is still queued on the writer's side */
			err = hs_fd_write_some(p.c, sv[0], chunk, 0, &n);
			assert_true(err == 0 || err == HS_ERR_WANT_WRITE);
			continue;
		}
		assert_int_equal(err, 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(got[i], chunk[(received + i) % sizeof(chunk)]);
		received += n;
	}
	assert_int_equal(received, sent);
	disconnect(&p, sv);
}

static void test_fd_nonblocking_handshake(void **state)
{
	struct pair p;
	int sv[2], ce = 1, se = 1, rounds = 0;

	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(fcntl(sv[i], F_SETFL, fcntl(sv[i], F_GETFL) | O_NONBLOCK), 0);
	while ((ce != 0 || se != 0) && rounds++ < 100) {
		if (ce != 0)
			ce = hs_fd_handshake(p.c, sv[0]);
		if (se != 0)
			se = hs_fd_handshake(p.s, sv[1]);
		assert_true(ce == 0 || ce == HS_ERR_WANT_READ || ce == HS_ERR_WANT_WRITE);
		assert_true(se == 0 || se == HS_ERR_WANT_READ || se == HS_ERR_WANT_WRITE);
	}
	assert_int_equal(ce, 0);
	assert_int_equal(se, 0);
	assert_true(rounds > 1); /* it did have to wait */
	assert_int_equal(hs_fd_write(p.c, sv[0], "ping", 4), 0);
	char buf[8];
	size_t n = 0;
	int err;
	while ((err = hs_fd_read(p.s, sv[1], buf, sizeof(buf), &n)) == HS_ERR_WANT_READ)
		;
	assert_int_equal(err, 0);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "ping", 4);
	disconnect(&p, sv);
}

/* ---- credential selection by the application ---- */

struct select_seen {
	const struct hs_cred *answer;
	char sni[64];
	size_t n;
	int has_ecdsa;
	int calls;
};

static const struct hs_cred *choose(void *arg, const char *sni, const uint16_t *sigalgs, size_t n)
{
	struct select_seen *s = arg;

	s->calls++;
	snprintf(s->sni, sizeof(s->sni), "%s", sni);
	s->n = n;
	for (size_t i = 0; i < n; i++)
		s->has_ecdsa |= sigalgs[i] == HS_SIG_ECDSA_SECP256R1_SHA256;
	return s->answer;
}

/* The server has no credential of its own: the callback chooses (or refuses). */
static int select_case(struct select_seen *seen, const struct hs_cred *answer)
{
	struct pair p;
	int err;

	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	memset(seen, 0, sizeof(*seen));
	seen->answer = answer != NULL && answer != (const struct hs_cred *)1 ? answer : NULL;
	if (answer == (const struct hs_cred *)1)
		seen->answer = p.cred; /* the pair's own EC credential */
	p.scfg.cred = NULL;
	p.scfg.select_cred = choose;
	p.scfg.select_cred_arg = seen;
	pair_start(&p);
	err = pair_handshake(&p, 0);
	if (err == 0)
		assert_int_equal(hs_conn_sig_scheme(p.c), HS_SIG_ECDSA_SECP256R1_SHA256);
	else if (answer == NULL) {
		err = hs_conn_error(p.s); /* the server's own error, not the client's view */
		assert_int_equal(hs_conn_alert(p.c, 1), 40); /* handshake_failure */
	}
	pair_free(&p);
	return err;
}

static void test_select_cred(void **state)
{
	struct select_seen seen;
	struct hs_cred *rsa;
	(void)state;

	/* chosen: the client's SNI and signature_algorithms reach the callback */
	assert_int_equal(select_case(&seen, (const struct hs_cred *)1), 0);
	assert_int_equal(seen.calls, 1);
	assert_string_equal(seen.sni, "localhost");
	assert_true(seen.n > 0 && seen.has_ecdsa);
	/* refused: NULL ends the handshake with handshake_failure */
	assert_int_equal(select_case(&seen, NULL), HS_ERR_TLS_NO_SHARED_SIGALG);
	/* a credential whose key the pinned client cannot take: an RSA key is
	 * fine for the schemes, but the pin refuses its certificate */
	assert_int_equal(hs_cred_load_pem(&rsa, RSA2048_CERT, strlen(RSA2048_CERT),
					  RSA2048_KEY_PKCS8, strlen(RSA2048_KEY_PKCS8)), 0);
	assert_int_not_equal(select_case(&seen, rsa), 0);
	hs_cred_free(rsa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_keylog),
		cmocka_unit_test(test_alpn_select),
		cmocka_unit_test(test_verify_cert),
		cmocka_unit_test(test_select_cred),
		cmocka_unit_test(test_error_detail),
		cmocka_unit_test(test_error_detail_chain),
		cmocka_unit_test(test_load_detail),
		cmocka_unit_test(test_fd_results),
		cmocka_unit_test(test_fd_nonblocking),
		cmocka_unit_test(test_fd_nonblocking_handshake),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
