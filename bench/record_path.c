/*
 * Implementation notes: "hs-bench record-path" (issue 12): application data
 * over loopback TCP through every record path this kernel can run, OpenSSL
 * in the same run.
 *
 * A row is one path, one write size (16 KiB, 1 KiB) and a number of
 * connections (1, 8, 64). Two processes: a receiver (forked with the
 * listening socket) and a sender (forked with the port). Every connection
 * does a real TLS 1.3 handshake (bench/tls_peers.c's credential and
 * configurations, TLS_AES_128_GCM_SHA256), then the sender's threads (one
 * per connection) write for --time x --repeat ms and close; the receiver
 * counts what arrives until every connection has closed. Each process
 * reports its bytes, its CPU time (CLOCK_PROCESS_CPUTIME_ID, every thread,
 * user + system: the kernel's record crypto counts there too) and wall time
 * from the first byte (receiver) or the start signal (sender) to its end,
 * over a pipe. MB/s = bytes received / receiver wall time; CPU s/GB for
 * each side. Every byte sent must arrive, or the row fails.
 *
 *   kernel            both ends on kernel TLS (ktls/ hand-off, threads with send/recv)
 *   hs send/recv      both ends on hs's records (ktls/ userspace path, record/), threads
 *   hs io_uring       receiver: the io_uring loop (uring/) on hs's records; sender as above
 *   kernel io_uring   receiver: the io_uring loop on kernel TLS; sender on kernel TLS
 *   hs io_uring send  the other way round: the io_uring loop (listening) sends
 *                     on hs's records, queueing 64 KiB more each time its
 *                     queue drains (on_drained), plain sends (send_zc OFF);
 *                     the dialing process receives (ktls/ userspace, threads)
 *   hs io_uring send zc  the same with every record sent zero-copy
 *                     (IORING_OP_SEND_ZC from the registered send slots,
 *                     send_zc ALWAYS): on loopback the kernel copies anyway,
 *                     so this row shows what a zero-copy send costs where it
 *                     cannot pay (the automatic mode stops using it there)
 * For the two send rows the sender's clock starts at its first handshake.
 *   OpenSSL           SSL_write / SSL_read, threads, over the same kind of sockets
 *
 * Without kernel TLS (the host here: no CONFIG_TLS) the kernel rows are
 * printed as skipped with the kernel's reason; inside User-Mode Linux the
 * kernel has no AES-NI/AVX crypto, so its rows show function, not speed,
 * and say so.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "bench/bench.h"
#include "bench/tls_peers.h"
#include "hs/ktls.h"
#include "hs/tls.h"
#ifdef HS_HAVE_URING
#include "hs/uring.h"
#endif

int bench_record_path(const struct bench_opts *o);

enum path { P_OPENSSL, P_KERNEL, P_USER, P_URING_USER, P_URING_KERNEL, P_URING_TX, P_URING_TX_ZC,
	    N_PATHS };

static const char *const path_name[N_PATHS] = { "OpenSSL", "kernel", "hs send/recv", "hs io_uring",
						 "kernel io_uring", "hs io_uring send",
						 "hs io_uring send zc" };

/* the listening process sends, the dialing one receives */
static int loop_sends(enum path p) { return p == P_URING_TX || p == P_URING_TX_ZC; }

struct report {
	int err;
	char why[160];
	unsigned long long bytes;
	double cpu_s, wall_s;
};

static double clock_s(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int is_kernel(enum path p) { return p == P_KERNEL || p == P_URING_KERNEL; }

/* ---- the receiving process ---- */

struct receiver {
	const struct peers *pe;
	enum path path;
	atomic_ullong bytes;
	atomic_int started, err;
	double cpu0, wall0;
	pthread_mutex_t lock;
};

static void first_byte(struct receiver *r)
{
	int no = 0;

	if (atomic_compare_exchange_strong(&r->started, &no, 1)) {
		r->cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		r->wall0 = clock_s(CLOCK_MONOTONIC);
	}
}

struct rx_conn {
	struct receiver *r;
	int fd;
};

/*
 * hs's receiving end on fd: the handshake (server: accept; client: connect)
 * and the hand-off with flags, then every byte until close_notify, counted.
 */
static int hs_receive(struct receiver *r, int fd, int server, unsigned flags)
{
	static _Thread_local uint8_t buf[65536];
	struct hs_ktls *k = aligned_alloc(64, HS_KTLS_SIZE);
	struct hs_conn *c = NULL;
	size_t n = 1;
	int err = k == NULL ? HS_ERR_NOMEM
			    : hs_conn_new(&c, server ? &r->pe->hs_server : &r->pe->hs_client);

	if (err == 0)
		err = server ? hs_ktls_accept(k, c, fd, flags) : hs_ktls_connect(k, c, fd, flags);
	while (err == 0 && n > 0) {
		err = hs_ktls_read(k, buf, sizeof(buf), &n);
		if (err == 0 && n > 0) {
			first_byte(r);
			atomic_fetch_add(&r->bytes, n);
		}
	}
	if (k != NULL)
		hs_ktls_wipe(k);
	free(k);
	hs_conn_free(c);
	return err;
}

static void *rx_thread(void *arg)
{
	static _Thread_local uint8_t buf[65536];
	struct rx_conn *x = arg;
	struct receiver *r = x->r;
	int err = 0;

	if (r->path == P_OPENSSL) {
		SSL *s = SSL_new(r->pe->ossl_server);
		int n;

		if (s == NULL || SSL_set_fd(s, x->fd) != 1 || SSL_accept(s) != 1)
			err = HS_ERR_TLS_IO;
		while (err == 0 && (n = SSL_read(s, buf, sizeof(buf))) > 0) {
			first_byte(r);
			atomic_fetch_add(&r->bytes, (unsigned long long)n);
		}
		SSL_free(s);
	} else {
		err = hs_receive(r, x->fd, 1,
				 is_kernel(r->path) ? HS_KTLS_F_KERNEL_ONLY : HS_KTLS_F_USER);
	}
	if (err)
		atomic_store(&r->err, err);
	close(x->fd);
	return NULL;
}

#ifdef HS_HAVE_URING
static void rx_count(void *arg, struct hs_uring_conn *uc, const uint8_t *p, size_t n)
{
	(void)uc;
	(void)p;
	first_byte(arg);
	atomic_fetch_add(&((struct receiver *)arg)->bytes, n);
}
#endif

#ifdef HS_HAVE_URING
/* The io_uring loop as the sender (P_URING_TX*): 64 KiB more whenever a queue drains. */
struct loop_tx {
	size_t wlen;
	unsigned ms;
	int started;
	double deadline, cpu0, wall0;
	unsigned long long sent;
};

static void tx_more(void *arg, struct hs_uring_conn *uc)
{
	static uint8_t block[16384];
	struct loop_tx *t = arg;
	double now = clock_s(CLOCK_MONOTONIC);

	if (!t->started) {
		memset(block, 0x5a, sizeof(block));
		t->started = 1;
		t->deadline = now + t->ms / 1e3;
		t->cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		t->wall0 = now;
	}
	if (now >= t->deadline) {
		hs_uring_close(uc);
		return;
	}
	for (size_t n = 0; n < 65536; n += t->wlen) {
		if (hs_uring_send(uc, block, t->wlen) != 0) {
			hs_uring_close(uc);
			return;
		}
		t->sent += t->wlen;
	}
}

static void loop_send(const struct peers *pe, enum path p, unsigned conns, size_t wlen, unsigned ms,
		      int lfd, struct report *rep)
{
	static struct loop_tx t;
	struct hs_uring_config cfg = { .listen_fd = lfd, .tls = &pe->hs_server, .max_conns = conns,
				       .send_zc = p == P_URING_TX_ZC ? HS_URING_ZC_ALWAYS
								     : HS_URING_ZC_OFF,
				       .on_handshake = tx_more, .on_drained = tx_more, .arg = &t };
	struct hs_uring_stats st;

	t = (struct loop_tx){ .wlen = wlen, .ms = ms };
	rep->err = hs_uring_serve(&cfg, &st);
	if (rep->err == 0 && st.failed > 0)
		rep->err = HS_ERR_TLS_IO;
	if (rep->err == 0 && p == P_URING_TX_ZC && st.sends_zc == 0) {
		rep->err = HS_ERR_UNSUPPORTED;
		snprintf(rep->why, sizeof(rep->why), "no zero-copy send here (IORING_OP_SEND_ZC)");
	}
	if (p == P_URING_TX_ZC)
		snprintf(rep->why, sizeof(rep->why), "%llu zero-copy sends, %llu reported copied",
			 (unsigned long long)st.sends_zc, (unsigned long long)st.sends_zc_copied);
	rep->cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t.cpu0;
	rep->wall_s = clock_s(CLOCK_MONOTONIC) - t.wall0;
	rep->bytes = t.sent;
}
#endif

static void receive(const struct peers *pe, enum path p, unsigned conns, int lfd, struct report *rep)
{
	static struct receiver r;
	pthread_t th[64];
	struct rx_conn x[64];
	unsigned n = 0;

	r = (struct receiver){ .pe = pe, .path = p };
	if (p == P_URING_USER || p == P_URING_KERNEL) {
#ifdef HS_HAVE_URING
		struct hs_uring_config cfg = { .listen_fd = lfd, .tls = &pe->hs_server,
					       .max_conns = conns, .ktls = p == P_URING_KERNEL,
					       .on_data = rx_count, .arg = &r };
		struct hs_uring_stats st;

		rep->err = hs_uring_serve(&cfg, &st);
		if (rep->err == 0 && st.failed > 0)
			rep->err = HS_ERR_TLS_IO;
		if (rep->err == 0 && p == P_URING_KERNEL && st.ktls != conns) {
			rep->err = HS_ERR_UNSUPPORTED;
			snprintf(rep->why, sizeof(rep->why), "the io_uring loop could not hand off");
		}
#else
		rep->err = HS_ERR_UNSUPPORTED;
		snprintf(rep->why, sizeof(rep->why), "built without liburing");
#endif
	} else {
		for (; n < conns; n++) {
			x[n] = (struct rx_conn){ .r = &r, .fd = accept(lfd, NULL, NULL) };
			if (x[n].fd < 0 || pthread_create(&th[n], NULL, rx_thread, &x[n]) != 0)
				break;
		}
		for (unsigned i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		rep->err = n < conns ? HS_ERR_TLS_IO : atomic_load(&r.err);
	}
	rep->cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - r.cpu0;
	rep->wall_s = clock_s(CLOCK_MONOTONIC) - r.wall0;
	rep->bytes = atomic_load(&r.bytes);
}

/* ---- the sending process ---- */

struct sender {
	const struct peers *pe;
	enum path path;
	unsigned port;
	size_t wlen;
	double deadline;
	pthread_barrier_t ready, go;
	atomic_ullong bytes;
	atomic_int err;
};

static int dial(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void *tx_thread(void *arg)
{
	static _Thread_local uint8_t block[16384];
	struct sender *s = arg;
	int fd = dial(s->port), err = fd < 0 ? HS_ERR_TLS_IO : 0;
	unsigned long long sent = 0;
	struct hs_ktls *k = NULL;
	struct hs_conn *c = NULL;
	SSL *ssl = NULL;

	memset(block, 0x5a, sizeof(block));
	if (err == 0 && s->path == P_OPENSSL) {
		ssl = SSL_new(s->pe->ossl_client);
		if (ssl == NULL || SSL_set_fd(ssl, fd) != 1 || SSL_connect(ssl) != 1)
			err = HS_ERR_TLS_IO;
	} else if (err == 0) {
		k = aligned_alloc(64, HS_KTLS_SIZE);
		err = k == NULL ? HS_ERR_NOMEM : hs_conn_new(&c, &s->pe->hs_client);
		if (err == 0)
			err = hs_ktls_connect(k, c, fd,
					      is_kernel(s->path) ? HS_KTLS_F_KERNEL_ONLY : HS_KTLS_F_USER);
	}
	pthread_barrier_wait(&s->ready); /* every connection ready, */
	pthread_barrier_wait(&s->go);    /* the deadline set: the clock starts */
	/* at least one write each, however late the scheduler wakes this thread */
	while (err == 0) {
		if (ssl != NULL)
			err = SSL_write(ssl, block, (int)s->wlen) == (int)s->wlen ? 0 : HS_ERR_TLS_IO;
		else
			err = hs_ktls_write(k, block, s->wlen);
		sent += err == 0 ? s->wlen : 0;
		if (clock_s(CLOCK_MONOTONIC) >= s->deadline)
			break;
	}
	if (err == 0 && ssl != NULL)
		SSL_shutdown(ssl);
	else if (err == 0)
		err = hs_ktls_close(k);
	atomic_fetch_add(&s->bytes, sent);
	if (err)
		atomic_store(&s->err, err);
	SSL_free(ssl);
	if (k != NULL)
		hs_ktls_wipe(k);
	free(k);
	hs_conn_free(c);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* P_URING_TX*: a dialing thread that receives until close_notify. */
struct dial_rx {
	struct receiver *r;
	unsigned port;
};

static void *rx_dial_thread(void *arg)
{
	struct dial_rx *d = arg;
	int fd = dial(d->port), err = fd < 0 ? HS_ERR_TLS_IO : hs_receive(d->r, fd, 0, HS_KTLS_F_USER);

	if (err)
		atomic_store(&d->r->err, err);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void receive_dialed(const struct peers *pe, enum path p, unsigned conns, unsigned port,
			   struct report *rep)
{
	static struct receiver r;
	pthread_t th[64];
	struct dial_rx d = { &r, port };
	unsigned n = 0;

	r = (struct receiver){ .pe = pe, .path = p };
	for (; n < conns; n++)
		if (pthread_create(&th[n], NULL, rx_dial_thread, &d) != 0)
			break;
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	rep->err = n < conns ? HS_ERR_TLS_IO : atomic_load(&r.err);
	rep->cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - r.cpu0;
	rep->wall_s = clock_s(CLOCK_MONOTONIC) - r.wall0;
	rep->bytes = atomic_load(&r.bytes);
}

static void send_all(const struct peers *pe, enum path p, unsigned conns, unsigned port, size_t wlen,
		     unsigned ms, struct report *rep)
{
	static struct sender s;
	pthread_t th[64];
	double cpu0, wall0;
	unsigned n = 0;

	s = (struct sender){ .pe = pe, .path = p, .port = port, .wlen = wlen };
	pthread_barrier_init(&s.ready, NULL, conns + 1);
	pthread_barrier_init(&s.go, NULL, conns + 1);
	for (; n < conns; n++)
		if (pthread_create(&th[n], NULL, tx_thread, &s) != 0)
			break;
	if (n < conns) { /* cannot happen short of a thread limit: fail the row */
		rep->err = HS_ERR_NOMEM;
		_exit(3);
	}
	pthread_barrier_wait(&s.ready); /* every handshake done */
	/* written between the barriers, which order it before every thread's reads */
	s.deadline = clock_s(CLOCK_MONOTONIC) + ms / 1e3;
	pthread_barrier_wait(&s.go);
	cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	wall0 = clock_s(CLOCK_MONOTONIC);
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	rep->cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	rep->wall_s = clock_s(CLOCK_MONOTONIC) - wall0;
	rep->bytes = atomic_load(&s.bytes);
	rep->err = atomic_load(&s.err);
	pthread_barrier_destroy(&s.ready);
	pthread_barrier_destroy(&s.go);
}

/* ---- one row: two processes ---- */

static pid_t child(unsigned watchdog_s, void (*body)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(watchdog_s); /* a stuck row is killed, never waited for */
		body(arg);
		_exit(0);
	}
	return pid;
}

struct row_ctx {
	const struct peers *pe;
	enum path path;
	unsigned conns, port, ms;
	size_t wlen;
	int lfd, wfd;
};

static void rx_body(void *arg)
{
	struct row_ctx *x = arg;
	struct report rep = { 0 };

	if (loop_sends(x->path)) {
#ifdef HS_HAVE_URING
		loop_send(x->pe, x->path, x->conns, x->wlen, x->ms, x->lfd, &rep);
#else
		rep.err = HS_ERR_UNSUPPORTED;
		snprintf(rep.why, sizeof(rep.why), "built without liburing");
#endif
	} else {
		receive(x->pe, x->path, x->conns, x->lfd, &rep);
	}
	if (write(x->wfd, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
		_exit(4);
}

static void tx_body(void *arg)
{
	struct row_ctx *x = arg;
	struct report rep = { 0 };

	close(x->lfd);
	if (loop_sends(x->path))
		receive_dialed(x->pe, x->path, x->conns, x->port, &rep);
	else
		send_all(x->pe, x->path, x->conns, x->port, x->wlen, x->ms, &rep);
	if (write(x->wfd, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
		_exit(4);
}

static int read_report(int fd, struct report *r)
{
	ssize_t n = read(fd, r, sizeof(*r));

	close(fd);
	if (n != (ssize_t)sizeof(*r)) {
		memset(r, 0, sizeof(*r));
		r->err = HS_ERR_INTERNAL;
		snprintf(r->why, sizeof(r->why), "the process died (watchdog or crash)");
		return -1;
	}
	return 0;
}

static int run_row(const struct peers *pe, enum path p, unsigned conns, size_t wlen, unsigned ms,
		   struct report *rx, struct report *tx)
{
	struct row_ctx x = { .pe = pe, .path = p, .conns = conns, .wlen = wlen, .ms = ms };
	int prx[2], ptx[2];
	pid_t a, b;

	x.lfd = bench_listen_loopback(&x.port);
	if (x.lfd < 0 || pipe(prx) != 0 || pipe(ptx) != 0)
		return -1;
	x.wfd = prx[1];
	a = child(ms / 1000 + 60, rx_body, &x);
	x.wfd = ptx[1];
	b = child(ms / 1000 + 60, tx_body, &x);
	close(x.lfd);
	close(prx[1]);
	close(ptx[1]);
	/* the send rows: the listening process sent, the dialing one received */
	read_report(ptx[0], loop_sends(p) ? rx : tx);
	read_report(prx[0], loop_sends(p) ? tx : rx);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	return 0;
}

/* ---- the table ---- */

static int in_uml(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	int uml = 0;

	while (f != NULL && !uml && fgets(line, sizeof(line), f) != NULL)
		uml = strstr(line, "User Mode Linux") != NULL;
	if (f != NULL)
		fclose(f);
	return uml;
}

static void emit(const struct bench_opts *o, const char *row, enum path p, unsigned conns,
		 size_t wlen, const struct report *rx, const struct report *tx, double ossl_mbps,
		 const char *note)
{
	double mbps = (double)rx->bytes / rx->wall_s / 1e6;
	double tx_cpu = tx->cpu_s / ((double)tx->bytes / 1e9), rx_cpu = rx->cpu_s / ((double)rx->bytes / 1e9);

	if (o->json && p == P_OPENSSL)
		printf("{\"row\": \"%s\", \"unit\": \"MB/s\", \"hs\": null, \"openssl\": %.1f, "
		       "\"ratio\": null, \"bytes\": %zu, \"connections\": %u, \"path\": \"%s\", "
		       "\"send_cpu_s_per_gb\": %.3f, \"recv_cpu_s_per_gb\": %.3f, \"note\": \"%s\"}\n",
		       row, mbps, wlen, conns, path_name[p], tx_cpu, rx_cpu, note);
	else if (o->json)
		printf("{\"row\": \"%s\", \"unit\": \"MB/s\", \"hs\": %.1f, \"openssl\": %.1f, "
		       "\"ratio\": %.4f, \"bytes\": %zu, \"connections\": %u, \"path\": \"%s\", "
		       "\"send_cpu_s_per_gb\": %.3f, \"recv_cpu_s_per_gb\": %.3f, \"note\": \"%s\"}\n",
		       row, mbps, ossl_mbps, ossl_mbps > 0 ? mbps / ossl_mbps : 0, wlen, conns,
		       path_name[p], tx_cpu, rx_cpu, note);
	else
		printf("%-40s %9.1f %8.2f %10.3f %10.3f  %s\n", row, mbps,
		       ossl_mbps > 0 ? mbps / ossl_mbps : 0, tx_cpu, rx_cpu, note);
}

int bench_record_path(const struct bench_opts *o)
{
	static const size_t wlens[] = { 16384, 1024 };
	static const unsigned conn_counts[] = { 1, 8, 64 };
	struct hs_ktls_caps caps = { 0 };
	struct peers pe;
	unsigned ms = o->time_ms * o->repeat;
	int uml = in_uml(), status = 0, matched = 0, have_kernel;
	FILE *hdr = o->json ? stderr : stdout;
	char row[128];

	bench_header(o, "record-path");
	if (peers_init(&pe, HS_TLS_AES_128_GCM_SHA256, PEER_NO_VERIFY) != 0)
		return 1;
	have_kernel = hs_ktls_probe(&caps) == 0 && caps.ulp;
	if (!have_kernel)
		fprintf(hdr, "  kernel:   no kernel TLS here (%s): the kernel rows are skipped\n",
			caps.reason[0] ? caps.reason : "probe failed");
	if (uml)
		fprintf(hdr, "  kernel:   inside User-Mode Linux: the kernel has no AES-NI/AVX crypto, "
			     "kernel rows show function, not speed\n");
	fprintf(hdr, "  method:   TLS_AES_128_GCM_SHA256, a sending and a receiving process, one "
		     "thread per connection (io_uring rows: the loop, one thread), %u ms of "
		     "sending per row; MB/s at the receiver; CPU s/GB of each process\n", ms);
	if (!o->json)
		printf("\n%-40s %9s %8s %10s %10s  %s\n", "row", "MB/s", "/OpenSSL", "send s/GB",
		       "recv s/GB", "path");
	for (size_t w = 0; w < 2; w++) {
		for (size_t ci = 0; ci < 3; ci++) {
			double ossl = 0;

			for (int p = 0; p < N_PATHS; p++) {
				struct report rx, tx;
				const char *note;

				snprintf(row, sizeof(row), "record-path %s %s x%u", path_name[p],
					 wlens[w] == 16384 ? "16 KiB" : "1 KiB", conn_counts[ci]);
				if (!bench_match(o, row) && p != P_OPENSSL)
					continue;
				if (is_kernel((enum path)p) && !have_kernel) {
					if (o->json) {
						char why[300];

						snprintf(why, sizeof(why), "no kernel TLS: %s", caps.reason);
						printf("{\"row\": \"%s\", \"skipped\": ", row);
						bench_json_str(why);
						printf("}\n");
					}
					else
						printf("%-40s skipped: no kernel TLS here (above)\n", row);
					matched++;
					continue;
				}
				if (run_row(&pe, (enum path)p, conn_counts[ci], wlens[w], ms, &rx, &tx) != 0 ||
				    rx.err || tx.err || rx.bytes == 0 || rx.bytes != tx.bytes) {
					fprintf(stderr, "%s: failed: receiver %s %s, sender %s %s, %llu of %llu bytes\n",
						row, hs_strerror(rx.err), rx.why, hs_strerror(tx.err), tx.why,
						rx.bytes, tx.bytes);
					status = 1;
					continue;
				}
				if (p == P_OPENSSL) {
					ossl = (double)rx.bytes / rx.wall_s / 1e6;
					if (!bench_match(o, row))
						continue; /* measured only as the reference of the group */
				}
				matched++;
				note = p == P_OPENSSL ? "OpenSSL SSL_write/SSL_read (threads)"
				       : p == P_KERNEL ? (uml ? "kernel TLS (UML: function, not speed)" : "kernel TLS (threads)")
				       : p == P_USER ? "hs records over send/recv (threads)"
				       : p == P_URING_USER ? "receiver: io_uring loop, hs records"
				       : p == P_URING_TX ? "sender: io_uring loop, hs records, plain sends"
				       : p == P_URING_TX_ZC ? tx.why
				       : (uml ? "receiver: io_uring loop on kernel TLS (UML: function, not speed)"
					      : "receiver: io_uring loop on kernel TLS");
				emit(o, row, (enum path)p, conn_counts[ci], wlens[w], &rx, &tx, ossl, note);
			}
		}
	}
	peers_free(&pe);
	bench_footer(o);
	return matched ? status : 1;
}
