/*
 * Implementation notes: "hs-bench tcp" (issue 12): full TLS 1.3 handshakes
 * per second over loopback TCP that one single-threaded server completes
 * under many concurrent clients: the io_uring loop (uring/, hs_uring_serve
 * in a child process) next to `openssl s_server` (the program, one
 * connection at a time as it works) under the same client load.
 *
 * The load is one process of CLIENTS threads, each connecting, doing a
 * full handshake as an hs client (CertificateVerify checked, certificate
 * not: bench/tls_peers.c's PEER_NO_VERIFY, X25519, ECDSA P-256,
 * TLS_AES_128_GCM_SHA256, the same credential in both servers), sending
 * close_notify and closing, over and over for --time x --repeat ms. A row
 * gives handshakes per second of wall time, and the server's CPU use
 * (/proc/PID/stat utime + stime over the window): a server below ~95 % of
 * a CPU was waiting for the clients (on 2 cores the clients need about as
 * much CPU as the server), so the second row, handshakes per second of
 * server CPU, is the one to compare.
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

#include "bench/bench.h"
#include "bench/tls_peers.h"
#include "hs/fd.h"
#include "hs/tls.h"
#ifdef HS_HAVE_URING
#include "hs/uring.h"
#endif

#define CLIENTS 32

int bench_tcp(const struct bench_opts *o);

/* Seconds on the monotonic clock. */
double bench_wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU seconds (user + system) process pid used so far. */
double bench_cpu_of(pid_t pid)
{
	unsigned long ut = 0, st = 0;
	char path[64], buf[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p != NULL ? strrchr(buf, ')') : NULL; /* the name may hold spaces */
	if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
				&st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

#ifndef HS_HAVE_URING
int bench_tcp(const struct bench_opts *o)
{
	(void)o;
	fprintf(stderr, "hs-bench tcp: built without liburing (no io_uring loop)\n");
	return 1;
}
#else
/* ---- the client load ---- */

struct load {
	const struct peers *pe;
	unsigned port;
	double deadline;
	atomic_ulong done, failed;
};

static void *client(void *arg)
{
	struct load *l = arg;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)l->port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while (bench_wall_s() < l->deadline) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err = HS_ERR_TLS_IO;
		struct hs_conn *c = NULL;

		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
		    hs_conn_new(&c, &l->pe->hs_client) == 0) {
			err = hs_fd_connect(c, fd);
			if (err == 0)
				err = hs_fd_close(c, fd);
		}
		atomic_fetch_add(err == 0 ? &l->done : &l->failed, 1);
		hs_conn_free(c);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* Run the load for ms against port; handshakes done (failed in *failed). */
static unsigned long run_load(const struct peers *pe, unsigned port, unsigned ms, double *secs,
			      unsigned long *failed)
{
	static struct load l;
	pthread_t th[CLIENTS];
	unsigned n = 0;
	double t0 = bench_wall_s();

	l = (struct load){ .pe = pe, .port = port, .deadline = t0 + ms / 1e3 };
	for (; n < CLIENTS; n++)
		if (pthread_create(&th[n], NULL, client, &l) != 0)
			break;
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	*secs = bench_wall_s() - t0;
	*failed = atomic_load(&l.failed);
	return atomic_load(&l.done);
}

/* ---- the servers ---- */

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

pid_t bench_uring_server(const struct peers *pe, int lfd)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_term };
		struct hs_uring_config cfg = { .listen_fd = lfd, .tls = &pe->hs_server,
					       .stop = &stop, .max_active = 256 };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		alarm(120); /* never outlives the bench */
		_exit(hs_uring_serve(&cfg, NULL) == 0 ? 0 : 1);
	}
	return pid;
}

static pid_t start_openssl(const char *dir, unsigned port)
{
	char accept[32], cert[300], key[300];
	pid_t pid;

	snprintf(accept, sizeof(accept), "127.0.0.1:%u", port);
	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	pid = fork();
	if (pid == 0) {
		if (freopen("/dev/null", "w", stdout) == NULL || freopen("/dev/null", "w", stderr) == NULL)
			_exit(127);
		alarm(120);
		execlp("openssl", "openssl", "s_server", "-accept", accept, "-cert", cert, "-key", key,
		       "-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256", "-groups", "X25519",
		       "-no_ticket", "-quiet", "-naccept", "100000000", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int wait_listening(unsigned port, pid_t pid)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < 200; i++) { /* 10 s */
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

		ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
		if (fd >= 0)
			close(fd);
		if (ok)
			return 0;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(50000);
	}
	return -1;
}

struct measured {
	double rate, cpu_rate, cpu_share;
	unsigned long done, failed;
};

/* Load the server pid listening on port for ms; then stop it. */
static int measure(const struct peers *pe, pid_t pid, unsigned port, unsigned ms, struct measured *m)
{
	double c0, c1, secs;

	if (wait_listening(port, pid) != 0)
		return -1;
	c0 = bench_cpu_of(pid);
	m->done = run_load(pe, port, ms, &secs, &m->failed);
	c1 = bench_cpu_of(pid);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	if (m->done == 0 || c0 < 0 || c1 <= c0)
		return -1;
	m->rate = (double)m->done / secs;
	m->cpu_rate = (double)m->done / (c1 - c0);
	m->cpu_share = (c1 - c0) / secs;
	return 0;
}

static void stats(struct bench_stats *st, double v)
{
	st->median = st->min = st->max = v;
}

int bench_tcp(const struct bench_opts *o)
{
	const char *row_wall = "tcp handshakes/s, 32 clients", *row_cpu = "tcp handshakes per server CPU s";
	unsigned ms = o->time_ms * o->repeat, hs_port = 0, ossl_port = 0;
	char dir[] = "/tmp/hs-bench-tcp.XXXXXX", cert[300], key[300];
	struct measured h = { 0 }, s = { 0 };
	FILE *hdr = o->json ? stderr : stdout;
	struct bench_row r = { .unit = "ops/s", .backend = "io_uring loop" };
	struct peers pe;
	int lfd, status = 0;
	pid_t pid;

	if (!bench_match(o, row_wall) && !bench_match(o, row_cpu))
		return 1;
	bench_header(o, "tcp");
	{
		char why[200];

		if (hs_uring_probe(why, sizeof(why)) != 0) {
			fprintf(stderr, "hs-bench tcp: no io_uring here: %s\n", why);
			return 1;
		}
	}
	if (peers_init(&pe, HS_TLS_AES_128_GCM_SHA256, PEER_NO_VERIFY) != 0)
		return 1;
	if (mkdtemp(dir) == NULL) {
		peers_free(&pe);
		return 1;
	}
	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	fprintf(hdr, "  method:   %d client threads (hs, full handshakes: X25519, ECDSA P-256, "
		     "AES-128-GCM), %u ms per server; one server thread: io_uring hs_uring_serve vs "
		     "openssl s_server\n", CLIENTS, ms);
	lfd = bench_listen_loopback(&hs_port);
	pid = lfd < 0 ? -1 : bench_uring_server(&pe, lfd);
	if (lfd >= 0)
		close(lfd);
	if (pid < 0 || measure(&pe, pid, hs_port, ms, &h) != 0) {
		fprintf(stderr, "hs-bench tcp: the io_uring server did not serve\n");
		status = 1;
	}
	lfd = bench_listen_loopback(&ossl_port); /* a free port for s_server */
	if (lfd >= 0)
		close(lfd);
	if (peers_write_pem(&pe, cert, key) != 0 || (pid = start_openssl(dir, ossl_port)) < 0 ||
	    measure(&pe, pid, ossl_port, ms, &s) != 0) {
		fprintf(stderr, "hs-bench tcp: openssl s_server did not serve (is openssl in PATH?)\n");
		status = 1;
	}
	unlink(cert);
	unlink(key);
	rmdir(dir);
	peers_free(&pe);
	if (status)
		return status;
	r.name = row_wall;
	stats(&r.hs, h.rate);
	stats(&r.ref, s.rate);
	if (bench_match(o, row_wall))
		bench_emit(o, &r);
	r.name = row_cpu;
	stats(&r.hs, h.cpu_rate);
	stats(&r.ref, s.cpu_rate);
	if (bench_match(o, row_cpu))
		bench_emit(o, &r);
	fprintf(hdr, "  servers:  hs used %.0f%% of a CPU (%lu handshakes, %lu failed), "
		     "openssl s_server %.0f%% (%lu, %lu failed)%s\n",
		h.cpu_share * 100, h.done, h.failed, s.cpu_share * 100, s.done, s.failed,
		h.cpu_share < 0.95 ? "; hs waited for the clients: compare per server CPU s" : "");
	bench_footer(o);
	return 0;
}
#endif
