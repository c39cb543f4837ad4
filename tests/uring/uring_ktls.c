/*
 * The io_uring loop with kernel TLS (issue 12): for each TLS 1.3 suite, a
 * server on hs_uring_serve(.ktls = 1) in a thread echoes what a kTLS
 * client (ktls/) sends: 64 KiB, then a KeyUpdate asking the server to
 * update too and 16 KiB more (the server answers it before its echo: the
 * client's RX rekeys once), then close_notify both ways.
 *   HS_KTLS_EXPECT=kernel (inside UML 7.x): every hand-off on the kernel,
 *     the server's io_uring I/O on the kTLS socket (recvmsg + cmsg);
 *   HS_KTLS_EXPECT=user (the host, no CONFIG_TLS): the server's hand-off is
 *     refused and it stays on our records, the client on ktls/'s fallback.
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "hs/cred.h"
#include "hs/fd.h"
#include "hs/ktls.h"
#include "hs/tls.h"
#include "loopback.h"
#include "hs/uring.h"
#include "hs/x509_write.h"
#include <liburing.h>
#include "ktls/internal.h"

static int kernel;

struct server {
	pthread_t t;
	struct hs_uring_config cfg;
	struct hs_uring_stats st;
	int err;
	char path[16];
};

static void echo(void *arg, struct hs_uring_conn *uc, const uint8_t *p, size_t n)
{
	struct server *s = arg;

	snprintf(s->path, sizeof(s->path), "%s", hs_uring_record_path(uc));
	if (hs_uring_send(uc, p, n) != 0)
		hs_uring_close(uc);
}

static void *serve(void *arg)
{
	struct server *s = arg;

	s->err = hs_uring_serve(&s->cfg, &s->st);
	return NULL;
}

/* Write n bytes of m, read them back into b. */
static int round_trip(struct hs_ktls *k, const uint8_t *m, uint8_t *b, size_t n)
{
	size_t got = 0, r;
	int err = hs_ktls_write(k, m, n);

	while (err == 0 && got < n) {
		err = hs_ktls_read(k, b + got, n - got, &r);
		if (err == 0 && r == 0)
			err = HS_ERR_TLS_CLOSED;
		got += r;
	}
	return err ? err : memcmp(m, b, n) != 0 ? HS_ERR_INTERNAL : 0;
}

/*
 * Start s's loop on a fresh loopback listener and connect a client to it
 * with ccfg through ktls/ (flags): 0 or the client's error in *err, with
 * *c and *fd set; -1 if the listener or the thread could not start.
 */
static int start_pair(struct server *s, const struct hs_config *ccfg, struct hs_ktls *k,
		      unsigned flags, struct hs_conn **c, int *fd, int *err)
{
	unsigned port;

	s->cfg.arg = s;
	s->cfg.listen_fd = lo_listen(&port);
	if (k == NULL || s->cfg.listen_fd < 0 || pthread_create(&s->t, NULL, serve, s) != 0)
		return -1;
	*fd = lo_dial(port, 20);
	*err = *fd < 0 ? HS_ERR_TLS_IO : hs_conn_new(c, ccfg);
	if (*err == 0)
		*err = hs_ktls_connect(k, *c, *fd, flags);
	return 0;
}

static void one_suite(const struct hs_cred *cred, uint16_t suite)
{
	static uint8_t msg[65536], back[65536];
	const struct hs_cred *creds[1] = { cred };
	struct hs_config scfg = { .role = HS_ROLE_SERVER, .creds = creds, .n_creds = 1 };
	struct hs_config ccfg = { .role = HS_ROLE_CLIENT, .insecure = 1, .suites = &suite,
				  .n_suites = 1 };
	struct server s = { .cfg = { .tls = &scfg, .max_conns = 1, .ktls = 1, .handshake_ms = 10000,
				     .on_data = echo } };
	struct hs_ktls *k = aligned_alloc(64, HS_KTLS_SIZE);
	struct hs_conn *c = NULL;
	const char *name = hs_suite_name(suite);
	size_t r = 1;
	int fd, err;

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 13 + suite);
	if (start_pair(&s, &ccfg, k, kernel ? HS_KTLS_F_KERNEL_ONLY : 0, &c, &fd, &err) != 0) {
		lo_check(0, "%s: setup", name);
		free(k);
		return;
	}
	if (err == 0)
		err = round_trip(k, msg, back, sizeof(msg));
	lo_check(err == 0, "%s: 64 KiB echoed through the io_uring server (%s)", name, hs_strerror(err));
	if (err == 0)
		err = hs_ktls_key_update(k, 1);
	if (err == 0)
		err = round_trip(k, msg, back, 16384);
	lo_check(err == 0 && ktls_of(k)->key_updates_rx == 1,
	      "%s: KeyUpdate(update_requested) answered by the server before its echo (%s, %u)",
	      name, hs_strerror(err), ktls_of(k)->key_updates_rx);
	if (err == 0)
		err = hs_ktls_close(k);
	if (err == 0)
		err = hs_ktls_read(k, back, sizeof(back), &r);
	lo_check(err == 0 && r == 0, "%s: close_notify answered with close_notify (%s)", name,
	      hs_strerror(err));
	pthread_join(s.t, NULL);
	lo_check(s.err == 0 && s.st.handshakes == 1 && s.st.failed == 0 &&
		      s.st.bytes_in == sizeof(msg) + 16384 && s.st.bytes_out == s.st.bytes_in,
	      "%s: the server saw 1 handshake, 0 lo_failures, %llu bytes each way", name,
	      (unsigned long long)s.st.bytes_in);
	if (kernel)
		lo_check(s.st.ktls == 1 && strcmp(s.path, "kernel") == 0 &&
			      hs_ktls_tx_path(k) == HS_KTLS_PATH_KERNEL &&
			      hs_ktls_rx_path(k) == HS_KTLS_PATH_KERNEL,
		      "%s: server and client on kernel TLS both ways (server: %s)", name, s.path);
	else
		lo_check(s.st.ktls == 0 && s.st.ktls_refused == 1 && strcmp(s.path, "user") == 0,
		      "%s: no kTLS here: the server stays on our records (%s)", name, s.path);
	hs_ktls_wipe(k);
	free(k);
	hs_conn_free(c);
	if (fd >= 0)
		close(fd);
	close(s.cfg.listen_fd);
}

/*
 * Our records on the io_uring path (the host's case above, and here
 * deterministically): one record sent in two parts 100 ms apart is carried
 * from one receive to the next and opened whole; the others open in place.
 */
static void split_record(const struct hs_cred *cred)
{
	static uint8_t msg[3000], wire[4096], back[3000];
	const struct hs_cred *creds[1] = { cred };
	struct hs_config scfg = { .role = HS_ROLE_SERVER, .creds = creds, .n_creds = 1 };
	struct hs_config ccfg = { .role = HS_ROLE_CLIENT, .insecure = 1 };
	struct server s = { .cfg = { .tls = &scfg, .max_conns = 1, .handshake_ms = 10000,
				     .on_data = echo } };
	struct hs_conn *c = NULL;
	size_t took, n = 0, got = 0, r;
	unsigned port;
	int fd, err;

	s.cfg.arg = &s;
	memset(msg, 0x6b, sizeof(msg));
	s.cfg.listen_fd = lo_listen(&port);
	if (s.cfg.listen_fd < 0 || pthread_create(&s.t, NULL, serve, &s) != 0) {
		lo_check(0, "split record: setup");
		return;
	}
	fd = lo_dial(port, 20);
	err = fd < 0 ? HS_ERR_TLS_IO : hs_conn_new(&c, &ccfg);
	if (err == 0)
		err = hs_fd_connect(c, fd);
	/* one record, by hand: the engine seals it, we send it in two parts */
	if (err == 0)
		err = hs_conn_write(c, msg, sizeof(msg), &took);
	if (err == 0)
		err = hs_conn_pull(c, wire, sizeof(wire), &n);
	if (err == 0 && (took != sizeof(msg) || send(fd, wire, 100, MSG_NOSIGNAL) != 100))
		err = HS_ERR_TLS_IO;
	usleep(100000);
	if (err == 0 && send(fd, wire + 100, n - 100, MSG_NOSIGNAL) != (ssize_t)(n - 100))
		err = HS_ERR_TLS_IO;
	while (err == 0 && got < sizeof(back)) {
		err = hs_fd_read(c, fd, back + got, sizeof(back) - got, &r);
		if (err == 0 && r == 0)
			err = HS_ERR_TLS_CLOSED;
		got += r;
	}
	if (err == 0)
		err = memcmp(msg, back, sizeof(msg)) != 0 ? HS_ERR_INTERNAL : hs_fd_close(c, fd);
	pthread_join(s.t, NULL);
	lo_check(err == 0 && s.st.records_carried >= 1,
	      "a record cut across two receives is carried and opened whole (%s; %llu carried, "
	      "%llu in place)", hs_strerror(err), (unsigned long long)s.st.records_carried,
	      (unsigned long long)s.st.records_in_place);
	hs_conn_free(c);
	if (fd >= 0)
		close(fd);
	close(s.cfg.listen_fd);
}

/* The kernel's IORING_OP_SEND_ZC (Linux >= 6.0). */
static int have_send_zc(void)
{
	struct io_uring_probe *p = io_uring_get_probe();
	int ok = p != NULL && io_uring_opcode_supported(p, IORING_OP_SEND_ZC);

	if (p != NULL)
		io_uring_free_probe(p);
	return ok;
}

/*
 * Zero-copy sends of our records (host: no kTLS, the server stays on our
 * records): two rounds of 64 KiB echoed (16 KiB records), in each mode.
 * ALWAYS: every echoed record goes out with IORING_OP_SEND_ZC, bytes
 * intact. AUTO: loopback copies, the kernel says so in the notification,
 * and the second round uses plain sends. OFF: none.
 */
static void zero_copy(const struct hs_cred *cred, unsigned mode, const char *name)
{
	static uint8_t msg[65536], back[65536];
	const struct hs_cred *creds[1] = { cred };
	struct hs_config scfg = { .role = HS_ROLE_SERVER, .creds = creds, .n_creds = 1 };
	struct hs_config ccfg = { .role = HS_ROLE_CLIENT, .insecure = 1 };
	struct server s = { .cfg = { .tls = &scfg, .max_conns = 1, .handshake_ms = 10000,
				     .on_data = echo, .send_zc = mode } };
	struct hs_ktls *k = aligned_alloc(64, HS_KTLS_SIZE);
	struct hs_conn *c = NULL;
	uint64_t zc_first = 0;
	int fd, err, zc = have_send_zc();

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + mode);
	if (start_pair(&s, &ccfg, k, 0, &c, &fd, &err) != 0) {
		lo_check(0, "zero-copy %s: setup", name);
		free(k);
		return;
	}
	if (err == 0)
		err = round_trip(k, msg, back, sizeof(msg));
	zc_first = s.st.sends_zc; /* read while the server runs: only a rough view */
	if (err == 0)
		err = round_trip(k, msg, back, sizeof(msg));
	if (err == 0)
		err = hs_ktls_close(k);
	pthread_join(s.t, NULL);
	lo_check(err == 0 && s.err == 0 && s.st.failed == 0 && s.st.bytes_out == 2 * sizeof(msg),
		 "zero-copy %s: 2 x 64 KiB echoed intact (%s)", name, hs_strerror(err));
	if (!zc)
		printf("# this kernel has no IORING_OP_SEND_ZC: the loop sends plainly\n");
	if (mode == HS_URING_ZC_ALWAYS)
		lo_check(!zc || s.st.sends_zc >= 8,
			 "zero-copy always: every echoed record sent zero-copy (%llu sends, %llu "
			 "reported copied)", (unsigned long long)s.st.sends_zc,
			 (unsigned long long)s.st.sends_zc_copied);
	if (mode == HS_URING_ZC_AUTO)
		lo_check(!zc || (s.st.sends_zc >= 1 && s.st.sends_zc_copied >= 1 &&
				 s.st.sends_zc <= s.st.sends_zc_copied + 1 && s.st.sends_zc < 8),
			 "zero-copy auto: loopback copies, the kernel reports it and the "
			 "connection goes back to plain sends (%llu zero-copy sends, %llu copied, "
			 "%llu after the first round)", (unsigned long long)s.st.sends_zc,
			 (unsigned long long)s.st.sends_zc_copied, (unsigned long long)zc_first);
	if (mode == HS_URING_ZC_OFF)
		lo_check(s.st.sends_zc == 0, "zero-copy off: none (%llu)",
			 (unsigned long long)s.st.sends_zc);
	hs_ktls_wipe(k);
	free(k);
	hs_conn_free(c);
	if (fd >= 0)
		close(fd);
	close(s.cfg.listen_fd);
}

int main(void)
{
	static const uint16_t suites[] = { HS_TLS_AES_128_GCM_SHA256, HS_TLS_AES_256_GCM_SHA384,
					   HS_TLS_CHACHA20_POLY1305_SHA256 };
	static const uint8_t lo[4] = { 127, 0, 0, 1 };
	uint64_t now = (uint64_t)time(NULL);
	struct hs_cert_spec spec = { .dns_name = "localhost", .ipv4 = lo, .not_before = now - 60,
				     .not_after = now + 3600 };
	const char *expect = getenv("HS_KTLS_EXPECT");
	char pem[HS_X509_WRITE_PEM_MAX], why[200];
	struct hs_cred *cred = NULL;
	size_t len;

	signal(SIGPIPE, SIG_IGN);
	kernel = expect != NULL && strcmp(expect, "kernel") == 0;
	if (hs_uring_probe(why, sizeof(why)) != 0) {
		printf("SKIP - no io_uring here: %s\n", why);
		return 77;
	}
	if (hs_cred_generate_p256(&cred, &spec, pem, sizeof(pem), &len) != 0)
		return 1;
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		one_suite(cred, suites[i]);
	if (!kernel) {
		split_record(cred);
		zero_copy(cred, HS_URING_ZC_ALWAYS, "always");
		zero_copy(cred, HS_URING_ZC_AUTO, "auto");
		zero_copy(cred, HS_URING_ZC_OFF, "off");
	}
	hs_cred_free(cred);
	printf("%d failed\n", lo_failures);
	return lo_failures ? 1 : 0;
}
