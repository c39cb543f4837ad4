/*
 * The application hand-off under load (issue 13): 64 client threads hand
 * 1,000 connected sockets to handshaked (hs_handoff), each to hs-server
 * --uring --echo, while one more hand-off goes to a peer that never answers
 * (a listening socket nobody accepts from). Checks: every other hand-off
 * gets its answer; the staller's is a timeout at its deadline; on a kernel
 * with kTLS (HS_KTLS_EXPECT=kernel, the UML 7.x guest) each socket comes
 * back on kernel TLS and a line sent with send() comes back through the
 * echo server with recv(); without kTLS (the host) each answer is the clear
 * refusal "kernel TLS ..."; bad requests get an error result and the daemon
 * lives on; its descriptors do not grow; many hand-offs progress at once on
 * the daemon's one thread (many_at_once). HSD_LOOP picks its event loop
 * (auto, io_uring, epoll). Prints hand-offs per second.
 *   handoff_load HANDSHAKED HS_SERVER
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
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hs/err.h"
#include "hs/handoff.h"
#include "loopback.h"

#define MAX_THREADS 64
#if defined(__has_feature)
#if __has_feature(address_sanitizer) /* clang's spelling */
#define ASAN_BUILD 1
#endif
#endif
#ifndef ASAN_BUILD
#define ASAN_BUILD 0
#endif
#define STALL_MS 1500

/* 1,000 hand-offs, 64 at once; fewer in the UML guest (one emulated CPU):
 * HANDOFF_TOTAL / HANDOFF_THREADS */
static int total = 1000, n_threads = 64;

static char dir[] = "/tmp/hsd-handoff.XXXXXX", sock_path[200];
static unsigned echo_port, stall_port;
static int kernel;
static atomic_int next_job, ok, refused, bad_result;
static char first_bad[300];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void note_bad(const char *what, const struct hs_handoff_result *r)
{
	pthread_mutex_lock(&lock);
	if (first_bad[0] == '\0')
		snprintf(first_bad, sizeof(first_bad), "%s: %s (%s)", what, hs_strerror(r->status),
			 r->detail);
	pthread_mutex_unlock(&lock);
	atomic_fetch_add(&bad_result, 1);
}

/* One hand-off to the echo server; on kTLS, a line through it. */
static void one(void)
{
	struct hs_handoff_request q = { .role = HS_HANDOFF_CLIENT, .server_name = "localhost",
					.timeout_ms = 30000 };
	struct hs_handoff_result r;
	char line[32] = "through the kernel\n", back[32];
	int fd = lo_dial(echo_port, 20), err;

	if (fd < 0) {
		atomic_fetch_add(&bad_result, 1);
		return;
	}
	err = hs_handoff(sock_path, fd, &q, &r);
	if (err) {
		r.status = err;
		snprintf(r.detail, sizeof(r.detail), "hs_handoff itself failed");
		note_bad("hand-off", &r);
	} else if (kernel && r.status == 0) {
		ssize_t n = send(fd, line, strlen(line), MSG_NOSIGNAL), got = 0;

		while (n > 0 && got < n) {
			ssize_t m = recv(fd, back + got, sizeof(back) - (size_t)got, 0);
			if (m <= 0)
				break;
			got += m;
		}
		if (n > 0 && got == n && memcmp(line, back, (size_t)n) == 0)
			atomic_fetch_add(&ok, 1);
		else
			note_bad("echo on the kTLS socket", &r);
	} else if (!kernel && r.status == HS_ERR_UNSUPPORTED && strstr(r.detail, "kernel TLS") != NULL) {
		atomic_fetch_add(&refused, 1);
	} else {
		note_bad("result", &r);
	}
	close(fd);
}

static int job_limit;

static void *work(void *arg)
{
	(void)arg;
	while (atomic_fetch_add(&next_job, 1) < job_limit)
		one();
	return NULL;
}

/* Hand-offs number from to limit - 1 (n_threads at once); the seconds they took. */
static double run_load(int from, int limit)
{
	pthread_t th[MAX_THREADS];
	double t0 = now_s();

	job_limit = limit;
	atomic_store(&next_job, from);
	for (int i = 0; i < n_threads; i++)
		pthread_create(&th[i], NULL, work, NULL);
	for (int i = 0; i < n_threads; i++)
		pthread_join(th[i], NULL);
	return now_s() - t0;
}

static double stall_s = -1;
static int stall_status;

/* A hand-off to a peer that never answers (listening on port, nobody accepting), with
 * this deadline: its status (HS_ERR_TLS_IO if it got no answer) and how long it took. */
static int to_staller(unsigned port, unsigned timeout_ms, double *secs)
{
	struct hs_handoff_request q = { .role = HS_HANDOFF_CLIENT, .server_name = "localhost",
					.timeout_ms = timeout_ms };
	struct hs_handoff_result r = { .status = HS_ERR_TLS_IO };
	int fd = lo_dial(port, 20);
	double t0 = now_s();

	if (fd >= 0 && hs_handoff(sock_path, fd, &q, &r) != 0)
		r.status = HS_ERR_TLS_IO;
	*secs = now_s() - t0;
	if (fd >= 0)
		close(fd);
	return fd >= 0 ? r.status : HS_ERR_TLS_IO;
}

static void *stall(void *arg)
{
	double secs;

	(void)arg;
	stall_status = to_staller(stall_port, STALL_MS, &secs);
	if (stall_status != HS_ERR_TLS_IO)
		stall_s = secs;
	return NULL;
}

/*
 * Many at once on one thread: N_STALL hand-offs to a silent peer of their own
 * are opened first (a deadline far beyond the test); while every one of them
 * is still unanswered, N_QUICK others must complete, and the daemon must have
 * one thread. Then the silent peer's listening socket closes, which resets its
 * connections: each stalled hand-off is answered with that (no clock involved).
 */
#define N_STALL 8
#define N_QUICK 32
#define OPEN_MS 120000

static atomic_int stalls_back, quick_next, quick_done;
static int stall_resets;
static unsigned open_port;

static void *open_stall(void *arg)
{
	double secs;

	int st;

	(void)arg;
	st = to_staller(open_port, OPEN_MS, &secs);
	if (st == HS_ERR_TLS_RESET || st == HS_ERR_TLS_CLOSED) {
		pthread_mutex_lock(&lock);
		stall_resets++;
		pthread_mutex_unlock(&lock);
	}
	atomic_fetch_add(&stalls_back, 1);
	return NULL;
}

static void *quick(void *arg)
{
	(void)arg;
	while (atomic_fetch_add(&quick_next, 1) < N_QUICK) {
		int before = atomic_load(&ok) + atomic_load(&refused);

		one();
		if (atomic_load(&ok) + atomic_load(&refused) > before)
			atomic_fetch_add(&quick_done, 1);
	}
	return NULL;
}

static void many_at_once(pid_t hsd)
{
	pthread_t st[N_STALL], qt[4];
	long threads, base = lo_count_fds(hsd);
	int back, l = lo_listen(&open_port);

	for (int i = 0; i < N_STALL; i++)
		pthread_create(&st[i], NULL, open_stall, NULL);
	/* the stallers' sockets are in the daemon (2 descriptors each) before the rest start */
	for (int i = 0; i < 200 && lo_count_fds(hsd) < base + 2 * N_STALL; i++)
		usleep(10000);
	for (int i = 0; i < 4; i++)
		pthread_create(&qt[i], NULL, quick, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(qt[i], NULL);
	back = atomic_load(&stalls_back);
	threads = lo_proc_status(hsd, "Threads");
	lo_check(atomic_load(&quick_done) == N_QUICK && back == 0,
		 "%d of %d hand-offs completed while %d stalled ones were open (%d of them answered meanwhile)",
		 atomic_load(&quick_done), N_QUICK, N_STALL, back);
	lo_check(threads == 1, "handshaked runs them all on one thread (%ld threads)", threads);
	close(l); /* resets the stalled connections */
	for (int i = 0; i < N_STALL; i++)
		pthread_join(st[i], NULL);
	lo_check(stall_resets == N_STALL,
		 "the %d stalled hand-offs, their peer gone, each answered with the reset (%d)", N_STALL,
		 stall_resets);
	atomic_store(&ok, 0);
	atomic_store(&refused, 0);
}

/* A peer that reads the ClientHello and closes: the handshake fails mid-way. */
static void *closer(void *arg)
{
	int l = *(int *)arg, c = accept(l, NULL, NULL);
	char buf[512];

	if (c >= 0) {
		(void)!read(c, buf, sizeof(buf));
		close(c);
	}
	return NULL;
}

/* A failed handshake gets its error result, with the alert (the daemon lives on). */
static void failures(void)
{
	struct hs_handoff_request q = { .role = HS_HANDOFF_CLIENT, .server_name = "wrong.example",
					.timeout_ms = 10000 };
	struct hs_handoff_result r = { .status = 0 };
	unsigned port;
	pthread_t t;
	int fd = lo_dial(echo_port, 20), l, sent;

	sent = fd >= 0 && hs_handoff(sock_path, fd, &q, &r) == 0;
	lo_check(sent && r.status != 0 && r.status != HS_ERR_UNSUPPORTED && r.alert >= 0,
		 "a server whose certificate is not for the name asked: %s, alert %d",
		 hs_strerror(r.status), r.alert);
	if (fd >= 0)
		close(fd);
	l = lo_listen(&port);
	pthread_create(&t, NULL, closer, &l);
	fd = lo_dial(port, 20);
	q.server_name = "localhost";
	r.status = 0;
	sent = fd >= 0 && hs_handoff(sock_path, fd, &q, &r) == 0;
	lo_check(sent && (r.status == HS_ERR_TLS_CLOSED || r.status == HS_ERR_TLS_RESET),
		 "a peer that closes mid-handshake: %s", hs_strerror(r.status));
	pthread_join(t, NULL);
	if (fd >= 0)
		close(fd);
	close(l);
}

static pid_t spawn(char *const argv[], const char *err_path)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (freopen(err_path, "w", stderr) == NULL)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait (up to 10 s) for "text" in file; sscanf it with fmt into *v if fmt. */
static int wait_for(const char *file, const char *text, const char *fmt, unsigned *v)
{
	char line[512];

	for (int i = 0; i < 200; i++) {
		FILE *f = fopen(file, "r");

		while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
			char *at = strstr(line, text);

			if (at != NULL && (fmt == NULL || sscanf(at, fmt, v) == 1)) {
				fclose(f);
				return 0;
			}
		}
		if (f != NULL)
			fclose(f);
		usleep(50000);
	}
	return -1;
}

/* A raw request the daemon must refuse with an error result, and live on. */
static int raw_request(const void *msg, size_t len, int with_fd)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct timeval tv = { .tv_sec = 10 };
	uint8_t back[1024];
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), fd = -1;
	ssize_t n = -1;

	memcpy(a.sun_path, sock_path, strlen(sock_path));
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (with_fd) {
		fd = socket(AF_UNIX, SOCK_DGRAM, 0); /* not a TCP socket */
		memset(&cb, 0, sizeof(cb));
		m.msg_control = cb.buf;
		m.msg_controllen = sizeof(cb.buf);
		CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&m)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), &fd, sizeof(int));
	}
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 && sendmsg(s, &m, 0) == (ssize_t)len)
		n = recv(s, back, sizeof(back), 0);
	close(s);
	if (fd >= 0)
		close(fd);
	return n > 4 && memcmp(back, "HSHR", 4) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *expect = getenv("HS_KTLS_EXPECT");
	char conf[256], ca[256], hsd_err[256], srv_err[256], port_arg[32];
	pthread_t st;
	long fds0, fds1, rss0, rss1;
	double secs;
	pid_t srv, hsd;
	int lst, status = -1;
	FILE *f;

	if (argc != 3 || mkdtemp(dir) == NULL)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	kernel = expect != NULL && strcmp(expect, "kernel") == 0;
	if (getenv("HANDOFF_TOTAL") != NULL)
		total = atoi(getenv("HANDOFF_TOTAL"));
	if (getenv("HANDOFF_THREADS") != NULL)
		n_threads = atoi(getenv("HANDOFF_THREADS"));
	if (total < 1 || n_threads < 1 || n_threads > MAX_THREADS)
		return 2;
	snprintf(sock_path, sizeof(sock_path), "%s/handshaked.sock", dir);
	snprintf(conf, sizeof(conf), "%s/tlshd.conf", dir);
	snprintf(ca, sizeof(ca), "%s/server.pem", dir);
	snprintf(hsd_err, sizeof(hsd_err), "%s/hsd.err", dir);
	snprintf(srv_err, sizeof(srv_err), "%s/srv.err", dir);

	/* the TLS peer: hs-server's generated certificate is the daemon's trust anchor */
	{
		char *sv[] = { argv[2], "--listen", "127.0.0.1:0", "--uring", "--echo",
			       "--print-cert", ca, "--no-tickets", NULL };
		srv = spawn(sv, srv_err);
	}
	if (wait_for(srv_err, "listening on 127.0.0.1 port", "listening on 127.0.0.1 port %u",
		     &echo_port) != 0) {
		printf("FAIL - hs-server did not start\n");
		kill(srv, SIGKILL);
		return 1;
	}
	/* the staller: a listening socket nobody accepts from (the kernel completes the TCP
	 * handshake, nothing ever answers the ClientHello) */
	lst = lo_listen(&stall_port);
	if (lst < 0)
		return 1;
	f = fopen(conf, "w");
	fprintf(f, "[authenticate.client]\nx509.truststore=%s\n[handshaked]\nmax_handshakes=64\n", ca);
	fclose(f);
	{
		char *loop = getenv("HSD_LOOP") != NULL ? getenv("HSD_LOOP") : "auto";
		char *hv[] = { argv[1], "--config", conf, "--socket", sock_path, "--no-upcalls",
			       "--loop", loop, NULL };
		hsd = spawn(hv, hsd_err);
	}
	snprintf(port_arg, sizeof(port_arg), "%u", echo_port);
	if (wait_for(hsd_err, "ready:", NULL, NULL) != 0) {
		printf("FAIL - handshaked did not start\n");
		kill(hsd, SIGKILL);
		kill(srv, SIGKILL);
		return 1;
	}
	lo_check(raw_request("HSHO\x01", 5, 1) == 0, "a truncated request gets an error result");
	lo_check(raw_request("HSHO\x01\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00", 16, 1) == 0,
	      "a request with a socket that is not TCP gets an error result");
	lo_check(raw_request("HSHO\x01\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00", 16, 0) == 0,
	      "a request without a socket gets an error result");
	failures();
	many_at_once(hsd);
	/* a quarter of the load to warm up (every slot used at least once), then the
	 * rest with the staller: descriptors and memory must not grow over it */
	secs = run_load(0, total / 4);
	usleep(300000); /* the last answers go out, their sockets close */
	fds0 = lo_count_fds(hsd);
	rss0 = lo_proc_status(hsd, "VmRSS");
	pthread_create(&st, NULL, stall, NULL);
	secs += run_load(total / 4, total);
	pthread_join(st, NULL);
	if (kernel)
		lo_check(atomic_load(&ok) == total && atomic_load(&bad_result) == 0,
		      "%d of %d hand-offs (%d at once) came back on kernel TLS and echoed a line%s%s",
		      atomic_load(&ok), total, n_threads, first_bad[0] ? "; first failure: " : "", first_bad);
	else
		lo_check(atomic_load(&refused) == total && atomic_load(&bad_result) == 0,
		      "%d of %d hand-offs (%d at once) answered with the clear refusal (no kTLS here)%s%s",
		      atomic_load(&refused), total, n_threads, first_bad[0] ? "; first failure: " : "", first_bad);
	printf("    %.0f hand-offs/s (%d client threads, handshake + %s)\n", total / secs, n_threads,
	       kernel ? "kTLS install + one echo" : "refusal");
	lo_check(stall_s >= STALL_MS / 1e3 - 0.2 && stall_s < STALL_MS / 1e3 + 3 &&
		      stall_status == HS_ERR_TLS_TIMEOUT,
	      "the hand-off to a peer that never answers times out at its deadline (%.2f s, %s)",
	      stall_s, hs_strerror(stall_status));
	usleep(300000);
	fds1 = lo_count_fds(hsd);
	rss1 = lo_proc_status(hsd, "VmRSS");
	lo_check(fds0 > 0 && fds1 == fds0, "handshaked's descriptors: %ld after %d hand-offs, %ld after %d",
		 fds0, total / 4, fds1, total);
#if defined(__SANITIZE_ADDRESS__) || ASAN_BUILD
	/* ASan keeps freed memory in its quarantine: resident size says nothing here
	 * (its leak check at exit does: "stops cleanly" below) */
	printf("note: AddressSanitizer build: resident memory not compared (%ld KiB, %ld KiB)\n", rss0,
	       rss1);
#else
	lo_check(rss0 > 0 && rss1 > 0 && rss1 - rss0 < 4096,
		 "handshaked's memory: %ld KiB resident after %d hand-offs, %ld KiB after %d", rss0,
		 total / 4, rss1, total);
#endif
	kill(hsd, SIGTERM);
	waitpid(hsd, &status, 0);
	lo_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "handshaked stops cleanly on SIGTERM");
	kill(srv, SIGTERM);
	waitpid(srv, NULL, 0);
	close(lst);
	unlink(conf);
	unlink(ca);
	unlink(hsd_err);
	unlink(srv_err);
	rmdir(dir);
	printf("%d failed\n", lo_failures);
	return lo_failures ? 1 : 0;
}
