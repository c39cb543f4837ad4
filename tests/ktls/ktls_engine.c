/*
 * hs's handshake, then the hand-off to kTLS (or the userspace fallback),
 * over loopback TCP with both peers in this process.
 *
 * Proves, for each TLS 1.3 suite:
 * - hs client and hs server both on kTLS (hs_ktls_connect / hs_ktls_accept):
 *   both directions at once, odd write and read sizes, every byte checked
 *   (one large transfer: HS_KTLS_HUGE bytes, 64 MiB in the UML runs), and a
 *   KeyUpdate(update_requested) mid-stream answered by the peer's own;
 * - the seam: application data the server's engine sent right after the
 *   handshake, data the client's engine sent right behind its Finished, and
 *   data the server's engine already decrypted before the hand-off all reach
 *   the application once, in order;
 * - OpenSSL (libssl, userspace) as the peer, hs on kTLS on the other end,
 *   both roles: our keys, IVs and sequence numbers agree with an independent
 *   implementation; OpenSSL's two NewSessionTickets (sent right after the
 *   handshake) arrive through kTLS as handshake records and reach the
 *   callback; KeyUpdate both ways (ours and OpenSSL's) where the kernel can
 *   rekey, the clear HS_ERR_UNSUPPORTED where it cannot;
 * - the seam against the openssl command's s_server (two NewSessionTickets
 *   right behind its Finished): the tickets reach the callback through kTLS
 *   and the echoed line comes back intact.
 *
 * HS_KTLS_EXPECT=kernel: every hand-off must land on the kernel;
 * HS_KTLS_EXPECT=user: the host without kTLS, the userspace path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "../tls/pair.h"
#include "../tls/tls_certs.h"
#include "hs/fd.h"
#include "hs/tls.h"
#include "kt_util.h"
#include "hs/ktls.h"
#include "ktls/internal.h" /* white-box: KeyUpdate counters */

static const uint16_t suites[] = {
	HS_TLS_AES_128_GCM_SHA256,
	HS_TLS_AES_256_GCM_SHA384,
	HS_TLS_CHACHA20_POLY1305_SHA256,
};
static const char *const ossl_names[] = {
	"TLS_AES_128_GCM_SHA256",
	"TLS_AES_256_GCM_SHA384",
	"TLS_CHACHA20_POLY1305_SHA256",
};
#define N_SUITES (sizeof(suites) / sizeof(suites[0]))

static int expect_kernel, expect_user;
static size_t huge = 8u << 20;
static struct hs_ktls_caps caps;

static unsigned kflags(void)
{
	return expect_kernel ? HS_KTLS_F_KERNEL_ONLY | HS_KTLS_F_NO_PAD : HS_KTLS_F_NO_PAD;
}

static void check_paths(const struct hs_ktls *k)
{
	assert_true(kt_paths_ok(k, expect_kernel, expect_user));
}

/* ---- hs <-> hs ---- */

struct peer {
	struct hs_conn *conn;
	struct hs_ktls *k;
	int fd, server, err;
	uint16_t suite;
	size_t send_len, recv_len, got;
	size_t ku_at; /* KeyUpdate(update_requested) after this many bytes; 0: none */
	int ku_err;
	uint64_t send_seed, recv_seed;
	int mismatch;
	int (*body)(struct peer *p); /* what to do; NULL: hand-off then stream */
	pthread_t thread;
};

/* Send our stream in a thread while reading the peer's. */
static int stream_both(struct peer *p)
{
	struct kt_sender s = { .k = p->k, .len = p->send_len, .seed = p->send_seed,
			       .max_chunk = 50021, .close = 1, .request_peer = 1,
			       .key_update_at = p->ku_at ? p->ku_at : SIZE_MAX };
	int err;

	kt_sender_start(&s);
	err = kt_receive(p->k, p->recv_seed, 33333, &p->got, &p->mismatch);
	if (err)
		shutdown(p->fd, SHUT_RDWR);
	kt_sender_join(&s);
	p->ku_err = s.ku_err;
	return err ? err : s.err;
}

static void *peer_main(void *arg)
{
	struct peer *p = arg;

	if (p->body) {
		p->err = p->body(p);
		return NULL;
	}
	p->err = p->server ? hs_ktls_accept(p->k, p->conn, p->fd, kflags())
			   : hs_ktls_connect(p->k, p->conn, p->fd, kflags());
	if (!p->err)
		p->err = stream_both(p);
	return NULL;
}

struct hs_run {
	struct pair cfg;
	struct peer cli, srv;
	int fds[2];
};

static void run_open(struct hs_run *r, uint16_t suite)
{
	memset(r, 0, sizeof(*r));
	pair_init(&r->cfg, EC_CERT, EC_KEY_SEC1);
	r->cfg.ccfg.suites = &suites[0];
	for (size_t i = 0; i < N_SUITES; i++)
		if (suites[i] == suite)
			r->cfg.ccfg.suites = &suites[i];
	r->cfg.ccfg.n_suites = 1;
	pair_start(&r->cfg);
	assert_int_equal(kt_tcp_pair(r->fds), 0);
	r->cli = (struct peer){ .conn = r->cfg.c, .fd = r->fds[0], .suite = suite };
	r->srv = (struct peer){ .conn = r->cfg.s, .fd = r->fds[1], .server = 1, .suite = suite };
	r->cli.k = calloc(1, sizeof(struct hs_ktls));
	r->srv.k = calloc(1, sizeof(struct hs_ktls));
	assert_non_null(r->cli.k);
	assert_non_null(r->srv.k);
}

static void run_go(struct hs_run *r)
{
	assert_int_equal(pthread_create(&r->srv.thread, NULL, peer_main, &r->srv), 0);
	peer_main(&r->cli);
	if (r->cli.err)
		shutdown(r->fds[0], SHUT_RDWR);
	pthread_join(r->srv.thread, NULL);
	if (r->cli.err || r->srv.err)
		printf("# %s: client %d (%s), server %d (%s)\n", hs_suite_name(r->cli.suite),
		       r->cli.err, hs_strerror(r->cli.err), r->srv.err, hs_strerror(r->srv.err));
}

static void run_close(struct hs_run *r)
{
	hs_ktls_wipe(r->cli.k);
	hs_ktls_wipe(r->srv.k);
	free(r->cli.k);
	free(r->srv.k);
	r->cfg.c = r->cfg.s = NULL;
	hs_conn_free(r->cli.conn);
	hs_conn_free(r->srv.conn);
	pair_free(&r->cfg);
	close(r->fds[0]);
	close(r->fds[1]);
}

static void hs_both(uint16_t suite, size_t c2s, size_t s2c, int key_update)
{
	struct hs_run r;

	run_open(&r, suite);
	r.cli.ku_at = key_update ? c2s / 2 : 0;
	r.srv.ku_at = key_update ? s2c / 2 : 0;
	r.cli.send_len = r.srv.recv_len = c2s;
	r.srv.send_len = r.cli.recv_len = s2c;
	r.cli.send_seed = r.srv.recv_seed = 1000 + suite;
	r.srv.send_seed = r.cli.recv_seed = 2000 + suite;
	run_go(&r);
	assert_int_equal(r.cli.err, 0);
	assert_int_equal(r.srv.err, 0);
	assert_int_equal(hs_conn_suite(r.cli.conn), suite);
	check_paths(r.cli.k);
	check_paths(r.srv.k);
	assert_int_equal(r.srv.got, c2s);
	assert_int_equal(r.cli.got, s2c);
	assert_false(r.cli.mismatch || r.srv.mismatch);
	if (key_update && (caps.rekey || !hs_ktls_is_kernel(r.cli.k))) {
		/* each side's KeyUpdate went out mid-stream and was followed */
		assert_int_equal(r.cli.ku_err, 0);
		assert_int_equal(r.srv.ku_err, 0);
		assert_true(ktls_of(r.srv.k)->key_updates_rx >= 1);
		assert_true(ktls_of(r.cli.k)->key_updates_rx >= 1);
	} else if (key_update) {
		assert_int_equal(r.cli.ku_err, HS_ERR_UNSUPPORTED);
		assert_int_equal(r.srv.ku_err, HS_ERR_UNSUPPORTED);
	}
	run_close(&r);
}

static void test_hs_pair(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_SUITES; i++) {
		hs_both(suites[i], 1, 1, 0);
		hs_both(suites[i], 123457, 1000003, 0);
		hs_both(suites[i], 2000003, 160001, 1);
	}
	/* one large transfer (client -> server) */
	hs_both(suites[0], huge, 7, 0);
	printf("# hs <-> hs on %s: 3 suites, both ways, up to %zu bytes: ok\n",
	       expect_kernel ? "kTLS" : "the userspace path", huge);
}

/* seam A: the server's engine writes at once, then hands off and writes more */
static int server_writes_first(struct peer *p)
{
	int err = hs_fd_accept(p->conn, p->fd);

	if (!err)
		err = hs_fd_write(p->conn, p->fd, "engine-record;", 14);
	if (!err)
		err = hs_ktls_attach(p->k, p->conn, p->fd, kflags());
	if (!err)
		err = hs_ktls_write(p->k, "ktls-record", 11);
	if (!err)
		err = hs_ktls_close(p->k);
	return err;
}

/* seam B: the client's engine sends data right behind its Finished */
static int client_writes_first(struct peer *p)
{
	int err = hs_fd_connect(p->conn, p->fd);

	if (!err)
		err = hs_fd_write(p->conn, p->fd, "engine-record;", 14);
	if (!err)
		err = hs_ktls_attach(p->k, p->conn, p->fd, kflags());
	if (!err)
		err = hs_ktls_write(p->k, "ktls-record", 11);
	if (!err)
		err = hs_ktls_close(p->k);
	return err;
}

static int read_all(struct hs_ktls *k, char *buf, size_t cap, size_t *got)
{
	size_t n;
	int err;

	*got = 0;
	do {
		err = hs_ktls_read(k, buf + *got, cap - *got, &n);
		*got += n;
	} while (!err && n > 0 && *got < cap);
	return err;
}

static char seam_buf[2][64];
static size_t seam_got[2];

static int connect_and_read(struct peer *p)
{
	int err = hs_ktls_connect(p->k, p->conn, p->fd, kflags());

	return err ? err : read_all(p->k, seam_buf[0], sizeof(seam_buf[0]), &seam_got[0]);
}

static int accept_and_read(struct peer *p)
{
	int err = hs_ktls_accept(p->k, p->conn, p->fd, kflags());

	return err ? err : read_all(p->k, seam_buf[1], sizeof(seam_buf[1]), &seam_got[1]);
}

/* seam C: the server's engine decrypts a record and gives part of it, then hands off */
static int server_reads_some(struct peer *p)
{
	size_t n;
	int err = hs_fd_accept(p->conn, p->fd);

	if (!err)
		err = hs_fd_read(p->conn, p->fd, seam_buf[1], 4, &n);
	if (!err && n != 4)
		err = HS_ERR_INTERNAL;
	if (!err)
		err = hs_ktls_attach(p->k, p->conn, p->fd, kflags());
	if (!err)
		err = read_all(p->k, seam_buf[1] + 4, sizeof(seam_buf[1]) - 4, &seam_got[1]);
	seam_got[1] += 4;
	return err;
}

static int client_three_records(struct peer *p)
{
	int err = hs_ktls_connect(p->k, p->conn, p->fd, kflags());

	if (!err)
		err = hs_ktls_write(p->k, "one-record;", 11);
	if (!err)
		err = hs_ktls_write(p->k, "two;", 4);
	if (!err)
		err = hs_ktls_write(p->k, "three", 5);
	if (!err)
		err = hs_ktls_close(p->k);
	return err;
}

static void test_seam(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_SUITES; i++) {
		struct hs_run r;

		memset(seam_got, 0, sizeof(seam_got));
		run_open(&r, suites[i]);
		r.srv.body = server_writes_first;
		r.cli.body = connect_and_read;
		run_go(&r);
		assert_int_equal(r.cli.err, 0);
		assert_int_equal(r.srv.err, 0);
		assert_int_equal(seam_got[0], 25);
		assert_memory_equal(seam_buf[0], "engine-record;ktls-record", 25);
		check_paths(r.cli.k);
		run_close(&r);

		run_open(&r, suites[i]);
		r.cli.body = client_writes_first;
		r.srv.body = accept_and_read;
		run_go(&r);
		assert_int_equal(r.cli.err, 0);
		assert_int_equal(r.srv.err, 0);
		assert_int_equal(seam_got[1], 25);
		assert_memory_equal(seam_buf[1], "engine-record;ktls-record", 25);
		check_paths(r.srv.k);
		run_close(&r);

		run_open(&r, suites[i]);
		r.cli.body = client_three_records;
		r.srv.body = server_reads_some;
		run_go(&r);
		assert_int_equal(r.cli.err, 0);
		assert_int_equal(r.srv.err, 0);
		assert_int_equal(seam_got[1], 20);
		assert_memory_equal(seam_buf[1], "one-record;two;three", 20);
		check_paths(r.srv.k);
		run_close(&r);
	}
}

/* ---- OpenSSL as the peer ---- */

static SSL_CTX *ossl_ctx(int server, const char *suite)
{
	SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	BIO *b;
	X509 *x;
	EVP_PKEY *pk;

	assert_non_null(ctx);
	assert_int_equal(SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION), 1);
	assert_int_equal(SSL_CTX_set_ciphersuites(ctx, suite), 1);
	if (server) {
		b = BIO_new_mem_buf(EC_CERT, -1);
		x = PEM_read_bio_X509(b, NULL, NULL, NULL);
		BIO_free(b);
		b = BIO_new_mem_buf(EC_KEY_SEC1, -1);
		pk = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
		BIO_free(b);
		assert_int_equal(SSL_CTX_use_certificate(ctx, x), 1);
		assert_int_equal(SSL_CTX_use_PrivateKey(ctx, pk), 1);
		X509_free(x);
		EVP_PKEY_free(pk);
	}
	return ctx;
}

struct ossl_peer {
	SSL *ssl;
	int fd, server, rekey; /* rekey: SSL_key_update before answering */
	size_t len;            /* bytes to read, then the same count is sent back */
	uint64_t seed_in, seed_out;
	int err, mismatch;
	pthread_t thread;
};

static int ssl_read_exact(SSL *ssl, uint8_t *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		int r = SSL_read(ssl, buf + off, (int)(len - off > 65536 ? 65536 : len - off));
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

/* read 8-byte length + stream, check it, answer with another stream, close */
static void *ossl_main(void *arg)
{
	struct ossl_peer *o = arg;
	uint8_t *buf = NULL, *exp = NULL, hdr[8];
	size_t len = 0;

	o->err = o->server ? SSL_accept(o->ssl) != 1 : SSL_connect(o->ssl) != 1;
	if (!o->err)
		o->err = ssl_read_exact(o->ssl, hdr, 8);
	for (int i = 0; i < 8; i++)
		len = len << 8 | hdr[i];
	if (!o->err && len == o->len) {
		buf = malloc(len + 1);
		exp = malloc(len + 1);
		o->err = !buf || !exp || ssl_read_exact(o->ssl, buf, len);
	} else {
		o->err = 1;
	}
	if (!o->err) {
		kt_stream(o->seed_in, 0, exp, len);
		o->mismatch = memcmp(buf, exp, len) != 0;
		if (o->rekey && SSL_key_update(o->ssl, SSL_KEY_UPDATE_REQUESTED) != 1)
			o->err = 1;
		kt_stream(o->seed_out, 0, buf, len);
		for (size_t off = 0; !o->err && off < len;) {
			int w = SSL_write(o->ssl, buf + off, (int)(len - off > 40000 ? 40000 : len - off));
			o->err = w <= 0;
			off += w > 0 ? (size_t)w : 0;
		}
	}
	if (!o->err)
		SSL_shutdown(o->ssl);
	else
		printf("# OpenSSL peer stopped (SSL error %d; expected where our side failed "
		       "on purpose)\n", SSL_get_error(o->ssl, -1));
	if (o->err)
		shutdown(o->fd, SHUT_RDWR);
	free(buf);
	free(exp);
	return NULL;
}

static int count_tickets(void *arg, const uint8_t *msg, size_t len)
{
	(void)msg;
	(void)len;
	(*(int *)arg)++;
	return 0;
}

static void ossl_one(size_t si, int hs_server, int ossl_rekey)
{
	struct pair cfg;
	struct ossl_peer o = { 0 };
	struct hs_ktls *k = calloc(1, sizeof(*k));
	struct hs_conn *conn;
	SSL_CTX *ctx = ossl_ctx(!hs_server, ossl_names[si]);
	int fds[2], tickets = 0, err, ku_err, mismatch;
	size_t len = 200003, got;
	uint8_t hdr[8];

	assert_non_null(k);
	pair_init(&cfg, EC_CERT, EC_KEY_SEC1);
	cfg.ccfg.suites = &suites[si];
	cfg.ccfg.n_suites = 1;
	cfg.ccfg.insecure = 0;
	assert_int_equal(hs_conn_new(&conn, hs_server ? &cfg.scfg : &cfg.ccfg), 0);
	assert_int_equal(kt_tcp_pair(fds), 0);
	o.ssl = SSL_new(ctx);
	assert_non_null(o.ssl);
	o.fd = fds[hs_server ? 0 : 1];
	o.server = !hs_server;
	o.len = len;
	o.rekey = ossl_rekey;
	o.seed_in = 11 + si;
	o.seed_out = 22 + si;
	SSL_set_fd(o.ssl, o.fd);
	assert_int_equal(pthread_create(&o.thread, NULL, ossl_main, &o), 0);

	err = hs_server ? hs_ktls_accept(k, conn, fds[1], kflags())
			: hs_ktls_connect(k, conn, fds[0], kflags());
	assert_int_equal(err, 0);
	check_paths(k);
	hs_ktls_on_handshake(k, count_tickets, &tickets);
	for (int i = 0; i < 8; i++)
		hdr[i] = (uint8_t)(len >> (56 - 8 * i));
	assert_int_equal(hs_ktls_write(k, hdr, 8), 0);
	struct kt_sender s = { .k = k, .len = len, .seed = o.seed_in, .max_chunk = 30011,
			       .key_update_at = len / 3, .request_peer = 1 };
	kt_sender_start(&s);
	kt_sender_join(&s);
	ku_err = s.ku_err;
	assert_int_equal(s.err, 0);
	err = kt_receive(k, o.seed_out, 20000, &got, &mismatch);
	if (err) /* let OpenSSL's writes fail instead of blocking */
		shutdown(fds[hs_server ? 1 : 0], SHUT_RDWR);
	pthread_join(o.thread, NULL);
	printf("# %s, hs %s vs OpenSSL: our KeyUpdate %s, OpenSSL's KeyUpdate %s: read %s%s%s, "
	       "%d ticket(s)\n",
	       ossl_names[si], hs_server ? "server" : "client", hs_strerror(ku_err),
	       ossl_rekey ? "sent" : "not sent", hs_strerror(err), err ? ": " : "",
	       err ? hs_ktls_reason(k, 1) : "", tickets);
	if (o.err)
		ERR_print_errors_fp(stdout);
	assert_false(o.mismatch);
	if (hs_ktls_tx_path(k) == HS_KTLS_PATH_KERNEL && !caps.rekey)
		assert_int_equal(ku_err, HS_ERR_UNSUPPORTED);
	else
		assert_int_equal(ku_err, 0);
	if (ossl_rekey && hs_ktls_rx_path(k) == HS_KTLS_PATH_KERNEL && !caps.rekey) {
		assert_int_equal(err, HS_ERR_UNSUPPORTED);
		assert_non_null(strstr(hs_ktls_reason(k, 1), "6.14"));
	} else {
		assert_int_equal(o.err, 0);
		assert_int_equal(err, 0);
		assert_int_equal(got, len);
		assert_false(mismatch);
	}
	if (!hs_server)
		assert_int_equal(tickets, 2); /* OpenSSL's default: two NewSessionTickets */
	SSL_free(o.ssl);
	SSL_CTX_free(ctx);
	hs_ktls_wipe(k);
	free(k);
	hs_conn_free(conn);
	pair_free(&cfg);
	close(fds[0]);
	close(fds[1]);
}

static void test_openssl_peer(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_SUITES; i++)
		for (int hs_server = 0; hs_server <= 1; hs_server++)
			for (int rekey = 0; rekey <= 1; rekey++)
				ossl_one(i, hs_server, rekey);
}

/* ---- the openssl command as server: NewSessionTickets right behind its Finished ---- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	fclose(f);
}

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(s, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(s);
	return port;
}

/* connect to 127.0.0.1:port, retrying while the server starts (up to ~10 s) */
static int connect_retry(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < 200; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		close(fd);
		usleep(50000);
	}
	return -1;
}

static void s_server_one(size_t si, const char *dir)
{
	char cert[256], key[256], acc[32], line[64];
	struct pair cfg;
	struct hs_conn *conn;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	int port = free_port(), fd, tickets = 0, status;
	size_t got = 0, n;
	pid_t pid;

	assert_non_null(k);
	assert_true(port > 0);
	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	snprintf(acc, sizeof(acc), "127.0.0.1:%d", port);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execlp("openssl", "openssl", "s_server", "-accept", acc, "-naccept", "1",
		       "-tls1_3", "-ciphersuites", ossl_names[si], "-cert", cert, "-key", key,
		       "-rev", (char *)NULL);
		_exit(127);
	}
	fd = connect_retry(port);
	assert_true(fd >= 0);
	pair_init(&cfg, EC_CERT, EC_KEY_SEC1);
	cfg.ccfg.suites = &suites[si];
	cfg.ccfg.n_suites = 1;
	assert_int_equal(hs_conn_new(&conn, &cfg.ccfg), 0);
	assert_int_equal(hs_ktls_connect(k, conn, fd, kflags()), 0);
	check_paths(k);
	hs_ktls_on_handshake(k, count_tickets, &tickets);
	assert_int_equal(hs_ktls_write(k, "hello kTLS\n", 11), 0);
	while (got < sizeof(line) - 1 && memchr(line, '\n', got) == NULL) {
		assert_int_equal(hs_ktls_read(k, line + got, sizeof(line) - 1 - got, &n), 0);
		assert_true(n > 0);
		got += n;
	}
	line[got] = 0;
	printf("# openssl s_server %s: reply \"%.*s\", %d ticket(s) through %s\n",
	       ossl_names[si], (int)got - 1, line, tickets,
	       hs_ktls_is_kernel(k) ? "kTLS" : "the userspace path");
	assert_string_equal(line, "SLTk olleh\n");
	assert_int_equal(tickets, 2);
	assert_int_equal(hs_ktls_close(k), 0);
	close(fd);
	for (int i = 0; i < 100 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(50000);
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	hs_ktls_wipe(k);
	free(k);
	hs_conn_free(conn);
	pair_free(&cfg);
}

static void test_openssl_s_server(void **state)
{
	char dir[] = "/tmp/hs-ktls-sserver-XXXXXX", path[256];

	(void)state;
	if (system("openssl version >/dev/null 2>&1") != 0) {
		printf("# no openssl command: skipped\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cert.pem", dir);
	write_file(path, EC_CERT);
	snprintf(path, sizeof(path), "%s/key.pem", dir);
	write_file(path, EC_KEY_SEC1);
	for (size_t i = 0; i < N_SUITES; i++)
		s_server_one(i, dir);
	snprintf(path, sizeof(path), "%s/cert.pem", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/key.pem", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const char *e = getenv("HS_KTLS_EXPECT"), *h = getenv("HS_KTLS_HUGE");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hs_pair),
		cmocka_unit_test(test_seam),
		cmocka_unit_test(test_openssl_peer),
		cmocka_unit_test(test_openssl_s_server),
	};

	signal(SIGPIPE, SIG_IGN); /* a failing peer gives EPIPE, not a dead test */
	expect_kernel = e && strcmp(e, "kernel") == 0;
	expect_user = e && strcmp(e, "user") == 0;
	if (h)
		huge = strtoul(h, NULL, 0);
	if (hs_ktls_probe(&caps) != 0)
		return 1;
	if (expect_user && caps.ulp) {
		printf("# this kernel has kTLS: nothing to check on the fallback here\n");
		expect_user = 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
