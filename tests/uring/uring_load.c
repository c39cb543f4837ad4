/*
 * hs-server --uring under load (issue 12): 64 client threads, hs and
 * OpenSSL clients mixed, 1,024 connections each doing a full handshake and
 * a 1 KiB echo, while one more client stalls mid-handshake (half a
 * ClientHello, then nothing). Checks that every other connection completes,
 * that the staller is cut at the server's deadline (--timeout 2), that the
 * server's descriptors and resident memory do not grow from the first 128
 * connections to the last, and that SIGTERM ends it cleanly with the right
 * summary. Loopback only; every wait is bounded.
 *   uring_load HS_SERVER
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "hs/fd.h"
#include "hs/tls.h"
#include "loopback.h"

#define THREADS 64
#define WARM_PER_THREAD 2   /* 128 connections before the first measurement */
#define MAIN_PER_THREAD 14  /* 896 after it: 1,024 in all */
#define DEADLINE_S 2        /* hs-server --timeout */
#define MSG 1024

static int port;
static pid_t server;
static SSL_CTX *ossl_ctx;
static atomic_int ok_conns, bad_conns;
static char first_error[256];
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void bad(const char *what, int code)
{
	pthread_mutex_lock(&err_lock);
	if (first_error[0] == '\0')
		snprintf(first_error, sizeof(first_error), "%s (%d)", what, code);
	pthread_mutex_unlock(&err_lock);
	atomic_fetch_add(&bad_conns, 1);
}

static void fill(uint8_t *m, unsigned seed)
{
	for (size_t i = 0; i < MSG; i++)
		m[i] = (uint8_t)(seed * 131u + i * 7u);
}

static void one_hs(unsigned seed)
{
	struct hs_config cfg = { .role = HS_ROLE_CLIENT, .insecure = 1 };
	uint8_t msg[MSG], back[MSG];
	struct hs_conn *c = NULL;
	size_t got = 0, n;
	int fd = lo_dial((unsigned)port, 20), err;

	if (fd < 0)
		return bad("hs client: connect", errno);
	err = hs_conn_new(&c, &cfg);
	if (err == 0)
		err = hs_fd_connect(c, fd);
	fill(msg, seed);
	if (err == 0)
		err = hs_fd_write(c, fd, msg, MSG);
	while (err == 0 && got < MSG) {
		err = hs_fd_read(c, fd, back + got, MSG - got, &n);
		if (err == 0 && n == 0)
			err = HS_ERR_TLS_CLOSED;
		got += n;
	}
	if (err == 0 && memcmp(msg, back, MSG) != 0)
		err = HS_ERR_INTERNAL;
	if (err == 0)
		err = hs_fd_close(c, fd);
	if (err == 0)
		atomic_fetch_add(&ok_conns, 1);
	else
		bad("hs client", err);
	hs_conn_free(c);
	close(fd);
}

static void one_openssl(unsigned seed)
{
	uint8_t msg[MSG], back[MSG];
	size_t got = 0;
	int fd = lo_dial((unsigned)port, 20), ok = 0;
	SSL *s;

	if (fd < 0)
		return bad("openssl client: connect", errno);
	s = SSL_new(ossl_ctx);
	fill(msg, seed);
	if (s != NULL && SSL_set_fd(s, fd) == 1 && SSL_connect(s) == 1 &&
	    SSL_write(s, msg, MSG) == MSG) {
		while (got < MSG) {
			int r = SSL_read(s, back + got, (int)(MSG - got));
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		ok = got == MSG && memcmp(msg, back, MSG) == 0;
		SSL_shutdown(s);
	}
	if (ok)
		atomic_fetch_add(&ok_conns, 1);
	else
		bad("openssl client", (int)ERR_peek_last_error());
	SSL_free(s);
	ERR_clear_error();
	close(fd);
}

struct worker {
	pthread_t t;
	unsigned id, count;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	for (unsigned i = 0; i < w->count; i++) {
		if (w->id % 2 == 0)
			one_hs(w->id * 1000 + i);
		else
			one_openssl(w->id * 1000 + i);
	}
	return NULL;
}

static int run_clients(unsigned per_thread)
{
	struct worker w[THREADS];

	for (unsigned i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .id = i, .count = per_thread };
		if (pthread_create(&w[i].t, NULL, work, &w[i]) != 0)
			return -1;
	}
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(w[i].t, NULL);
	return 0;
}

/* The staller: a record header announcing 512 bytes, 40 of them, then silence. */
static double stall_cut_after = -1;

static void *stall(void *arg)
{
	uint8_t part[45] = { 22, 3, 1, 2, 0, 1, 0, 1, 252, 3, 3 };
	uint8_t b[64];
	double t0;
	int fd = lo_dial((unsigned)port, 20);

	(void)arg;
	if (fd < 0)
		return NULL;
	t0 = now_s();
	if (send(fd, part, sizeof(part), MSG_NOSIGNAL) == (ssize_t)sizeof(part)) {
		ssize_t r = recv(fd, b, sizeof(b), 0); /* SO_RCVTIMEO 20 s */
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			stall_cut_after = now_s() - t0;
	}
	close(fd);
	return NULL;
}



/* Start hs-server; its stderr goes to errfile; the port comes from it. */
static int start_server(const char *prog, const char *errfile)
{
	char line[512];
	FILE *f;

	server = fork();
	if (server < 0)
		return -1;
	if (server == 0) {
		if (freopen(errfile, "w", stderr) == NULL)
			_exit(127);
#if defined(__SANITIZE_ADDRESS__)
		/* ASan's quarantine keeps freed memory resident: without it the
		 * memory check below measures the server, not the sanitizer */
		setenv("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1:quarantine_size_mb=0", 1);
#endif
		execl(prog, prog, "--listen", "127.0.0.1:0", "--uring", "--echo", "--timeout", "2",
		      "--max-active", "256", "--no-tickets", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200 && port == 0; i++) { /* up to 10 s */
		usleep(50000);
		f = fopen(errfile, "r");
		if (f == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "hs-server: listening on 127.0.0.1 port %d", &port) == 1)
				break;
		fclose(f);
	}
	return port > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	char errfile[] = "/tmp/uring_load.XXXXXX", summary[512] = "", line[512];
	long fds0, fds1, rss0, rss1;
	pthread_t staller;
	int status = -1, fd;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: uring_load HS_SERVER\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	fd = mkstemp(errfile);
	if (fd < 0)
		return 2;
	close(fd);
	if (start_server(argv[1], errfile) != 0) {
		printf("FAIL - hs-server --uring did not start\n");
		kill(server, SIGKILL);
		unlink(errfile);
		return 1;
	}
	f = fopen(errfile, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, "io_uring unavailable") != NULL) {
			printf("SKIP - %s", line); /* the fallback has its own test */
			fclose(f);
			kill(server, SIGKILL);
			waitpid(server, NULL, 0);
			unlink(errfile);
			return 77;
		}
	if (f != NULL)
		fclose(f);
	ossl_ctx = SSL_CTX_new(TLS_client_method());
	SSL_CTX_set_min_proto_version(ossl_ctx, TLS1_3_VERSION);
	SSL_CTX_set_verify(ossl_ctx, SSL_VERIFY_NONE, NULL);
	SSL_CTX_set_session_cache_mode(ossl_ctx, SSL_SESS_CACHE_OFF);

	pthread_create(&staller, NULL, stall, NULL);
	run_clients(WARM_PER_THREAD);
	pthread_join(staller, NULL);
	lo_check(stall_cut_after >= DEADLINE_S - 0.3 && stall_cut_after < DEADLINE_S + 4,
	      "the stalling client is cut at the 2 s deadline (after %.2f s) while %d others completed",
	      stall_cut_after, atomic_load(&ok_conns));
	usleep(200000);
	fds0 = lo_count_fds(server);
	rss0 = lo_proc_status(server, "VmRSS");
	run_clients(MAIN_PER_THREAD);
	usleep(200000);
	fds1 = lo_count_fds(server);
	rss1 = lo_proc_status(server, "VmRSS");
	lo_check(atomic_load(&ok_conns) == THREADS * (WARM_PER_THREAD + MAIN_PER_THREAD) &&
		      atomic_load(&bad_conns) == 0,
	      "%d connections (64 at once, hs and OpenSSL clients) completed, %d failed%s%s",
	      atomic_load(&ok_conns), atomic_load(&bad_conns), first_error[0] ? ": " : "",
	      first_error);
	lo_check(fds0 > 0 && fds1 == fds0, "server descriptors: %ld after 128 connections, %ld after 1,024",
	      fds0, fds1);
	/* a leak of even 16 KiB a connection would add 14 MiB over the 896; the
	 * allocator's own slack between two peaks of 64 clients stays well under 12 */
	lo_check(rss0 > 0 && rss1 > 0 && rss1 - rss0 < 12288,
	      "server memory: %ld KiB resident after 128 connections, %ld KiB after 1,024", rss0, rss1);

	kill(server, SIGTERM);
	for (int i = 0; i < 100; i++) { /* up to 10 s */
		if (waitpid(server, &status, WNOHANG) == server)
			break;
		usleep(100000);
	}
	if (!WIFEXITED(status)) {
		kill(server, SIGKILL);
		waitpid(server, &status, 0);
	}
	f = fopen(errfile, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, "accepted") != NULL)
			snprintf(summary, sizeof(summary), "%s", line);
	if (f != NULL)
		fclose(f);
	summary[strcspn(summary, "\n")] = '\0';
	lo_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "SIGTERM ends the server cleanly (exit %d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	lo_check(strstr(summary, "1025 accepted, 1024 handshakes, 1 failed (1 timed out)") != NULL,
	      "its summary: %s", summary);
	SSL_CTX_free(ossl_ctx);
	unlink(errfile);
	printf("%d failed\n", lo_failures);
	return lo_failures ? 1 : 0;
}
