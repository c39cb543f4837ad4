/*
 * Implementation notes: "hs-bench handoff" (issue 13): application
 * hand-offs per second through handshaked's Unix socket. The daemon runs
 * as a child (--no-upcalls, its one thread and event loop), a TLS server
 * (uring/'s loop, bench/tcp_rows.c) on loopback is the peer, and CLIENTS
 * threads each connect a TCP socket to it, hand it to the daemon
 * (hs_handoff: role client, server name "localhost") and wait for the
 * answer, over and over for --time x --repeat ms. The daemon does the
 * handshake (X25519, ECDSA P-256, TLS_AES_128_GCM_SHA256, the chain
 * checked against the server's certificate as its trust store), installs
 * kernel TLS and answers. Where the kernel has no kTLS (CONFIG_TLS off, as
 * on the build host) the install is refused and the answer is that clear
 * refusal: the footer says which it was; a hand-off then costs everything
 * but the setsockopt calls that would have succeeded.
 *
 * Reference: none that could run. tlshd (ktls-utils) serves only the
 * kernel's upcalls (it has no hand-off socket), and is not packaged in
 * Debian 12; the row says so instead of a number.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/tls_peers.h"
#include "hs/handoff.h"
#include "hs/tls.h"

#define CLIENTS 32

int bench_handoff(const struct bench_opts *o);

#ifndef HS_HAVE_URING
int bench_handoff(const struct bench_opts *o)
{
	(void)o;
	fprintf(stderr, "hs-bench handoff: built without liburing (the TLS peer is the io_uring loop)\n");
	return 1;
}
#else
struct load {
	const char *sock;
	unsigned port;
	double deadline;
	atomic_ulong ktls, refused, failed;
	pthread_mutex_t lock;
	char first_failure[300];
};

static void *client(void *arg)
{
	struct load *l = arg;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)l->port) };
	struct hs_handoff_request q = { .role = HS_HANDOFF_CLIENT, .server_name = "localhost",
					.timeout_ms = 10000 };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while (bench_wall_s() < l->deadline) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err = HS_ERR_TLS_IO;
		struct hs_handoff_result r = { .status = HS_ERR_TLS_IO };

		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			err = hs_handoff(l->sock, fd, &q, &r);
		if (err == 0 && r.status == 0) {
			atomic_fetch_add(&l->ktls, 1);
		} else if (err == 0 && r.status == HS_ERR_UNSUPPORTED) {
			atomic_fetch_add(&l->refused, 1);
		} else {
			pthread_mutex_lock(&l->lock);
			if (l->first_failure[0] == '\0')
				snprintf(l->first_failure, sizeof(l->first_failure), "%s (%s)",
					 hs_strerror(err ? err : r.status), err ? "" : r.detail);
			pthread_mutex_unlock(&l->lock);
			atomic_fetch_add(&l->failed, 1);
		}
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* The daemon, its stderr in err_path; its event loop's name from its "ready:" line. */
static pid_t start_daemon(const char *exe, const char *conf, const char *sock, const char *err_path,
			  char *loop, size_t cap)
{
	char line[512];
	pid_t pid = fork();

	if (pid == 0) {
		if (freopen(err_path, "w", stderr) == NULL || freopen("/dev/null", "w", stdout) == NULL)
			_exit(127);
		alarm(120); /* never outlives the bench */
		execl(exe, exe, "--config", conf, "--socket", sock, "--no-upcalls", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; pid > 0 && i < 200; i++) { /* 10 s */
		FILE *f = fopen(err_path, "r");

		while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
			char *at = strstr(line, "one thread, ");

			if (strstr(line, "ready:") != NULL) {
				snprintf(loop, cap, "%.*s", at != NULL ? (int)strcspn(at + 12, ":)\n") : 0,
					 at != NULL ? at + 12 : "");
				fclose(f);
				return pid;
			}
		}
		if (f != NULL)
			fclose(f);
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(50000);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

static const char *daemon_path(void)
{
	const char *env = getenv("HS_HANDSHAKED");

#ifdef HS_BENCH_HANDSHAKED
	return env != NULL ? env : HS_BENCH_HANDSHAKED;
#else
	return env;
#endif
}

struct run {
	char dir[64], cert[300], key[300], conf[300], sock[300], err[300], loop[32];
	pid_t srv, hsd;
	double secs, cpu;
};

/* The peer and the daemon up; 0, or -1 with the reason on stderr. */
static int setup(struct run *u, const struct peers *pe, unsigned *port)
{
	const char *exe = daemon_path();
	FILE *f;
	int lfd;

	snprintf(u->dir, sizeof(u->dir), "/tmp/hs-bench-handoff.XXXXXX");
	if (exe == NULL || access(exe, X_OK) != 0) {
		fprintf(stderr, "hs-bench handoff: no handshaked (not built here; HS_HANDSHAKED=PATH)\n");
		return -1;
	}
	if (mkdtemp(u->dir) == NULL)
		return -1;
	snprintf(u->cert, sizeof(u->cert), "%s/cert.pem", u->dir);
	snprintf(u->key, sizeof(u->key), "%s/key.pem", u->dir);
	snprintf(u->conf, sizeof(u->conf), "%s/tlshd.conf", u->dir);
	snprintf(u->sock, sizeof(u->sock), "%s/handshaked.sock", u->dir);
	snprintf(u->err, sizeof(u->err), "%s/handshaked.err", u->dir);
	if (peers_write_pem(pe, u->cert, u->key) != 0 || (f = fopen(u->conf, "w")) == NULL)
		return -1;
	fprintf(f, "[authenticate.client]\nx509.truststore=%s\n[handshaked]\nmax_handshakes=%d\n",
		u->cert, 2 * CLIENTS);
	fclose(f);
	lfd = bench_listen_loopback(port);
	u->srv = lfd < 0 ? -1 : bench_uring_server(pe, lfd);
	if (lfd >= 0)
		close(lfd);
	if (u->srv < 0) {
		fprintf(stderr, "hs-bench handoff: the TLS peer did not start\n");
		return -1;
	}
	u->hsd = start_daemon(exe, u->conf, u->sock, u->err, u->loop, sizeof(u->loop));
	if (u->hsd < 0) {
		fprintf(stderr, "hs-bench handoff: %s did not start (its log: %s)\n", exe, u->err);
		return -1;
	}
	return 0;
}

static void teardown(struct run *u)
{
	if (u->hsd > 0) {
		kill(u->hsd, SIGTERM);
		waitpid(u->hsd, NULL, 0);
	}
	if (u->srv > 0) {
		kill(u->srv, SIGTERM);
		waitpid(u->srv, NULL, 0);
	}
	unlink(u->cert);
	unlink(u->key);
	unlink(u->conf);
	unlink(u->err);
	unlink(u->sock);
	rmdir(u->dir);
}

static void row(const struct bench_opts *o, const char *name, double v, const char *backend)
{
	struct bench_row r = { .name = name, .unit = "ops/s", .backend = backend,
			       .no_ref = "tlshd not available (not packaged in Debian 12; it has no "
					 "hand-off socket either)" };

	r.hs.median = r.hs.min = r.hs.max = v;
	if (bench_match(o, name))
		bench_emit(o, &r);
}

int bench_handoff(const struct bench_opts *o)
{
	const char *row_wall = "handoff hand-offs/s, 32 clients",
		   *row_cpu = "handoff hand-offs per daemon CPU s";
	static struct load l;
	struct run u = { .srv = -1, .hsd = -1 };
	FILE *hdr = o->json ? stderr : stdout;
	unsigned ms = o->time_ms * o->repeat, n = 0;
	unsigned long done;
	pthread_t th[CLIENTS];
	char backend[64];
	struct peers pe;
	double c0, t0;

	if (!bench_match(o, row_wall) && !bench_match(o, row_cpu))
		return 1;
	bench_header(o, "handoff");
	if (peers_init(&pe, HS_TLS_AES_128_GCM_SHA256, PEER_NO_VERIFY) != 0)
		return 1;
	l = (struct load){ .sock = u.sock };
	pthread_mutex_init(&l.lock, NULL);
	if (setup(&u, &pe, &l.port) != 0) {
		teardown(&u);
		peers_free(&pe);
		return 1;
	}
	fprintf(hdr, "  method:   %d client threads, each: connect to a local TLS server, hs_handoff to "
		     "handshaked (client role, X25519, ECDSA P-256, AES-128-GCM, chain checked), wait "
		     "for the answer; %u ms\n", CLIENTS, ms);
	c0 = bench_cpu_of(u.hsd);
	t0 = bench_wall_s();
	l.deadline = t0 + ms / 1e3;
	for (; n < CLIENTS; n++)
		if (pthread_create(&th[n], NULL, client, &l) != 0)
			break;
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	u.secs = bench_wall_s() - t0;
	u.cpu = bench_cpu_of(u.hsd) - c0;
	teardown(&u);
	peers_free(&pe);
	done = atomic_load(&l.ktls) + atomic_load(&l.refused);
	if (done == 0 || atomic_load(&l.failed) > 0 || u.cpu <= 0) {
		fprintf(stderr, "hs-bench handoff: %lu hand-offs failed (first: %s), %lu done\n",
			atomic_load(&l.failed), l.first_failure, done);
		return 1;
	}
	snprintf(backend, sizeof(backend), "handshaked%s%s", u.loop[0] ? ", one thread, " : "",
		 u.loop);
	row(o, row_wall, (double)done / u.secs, backend);
	row(o, row_cpu, (double)done / u.cpu, backend);
	fprintf(hdr, "  daemon:   %.0f%% of a CPU, %lu hand-offs: %lu on kernel TLS, %lu with the "
		     "kernel's kTLS refusal%s\n",
		u.cpu / u.secs * 100, done, atomic_load(&l.ktls), atomic_load(&l.refused),
		atomic_load(&l.refused) > 0 ? " (no kTLS in this kernel: each hand-off is the handshake "
					       "and the refused install, answered with that refusal)"
					    : "");
	bench_footer(o);
	return 0;
}
#endif
