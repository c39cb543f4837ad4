/*
 * uring-echo: the smallest useful io_uring TLS server on libhs.
 *
 *   uring-echo [PORT [CONNECTIONS]]
 *
 * Listens on 127.0.0.1:PORT (default 4433; 0 picks a free port, printed),
 * with a self-signed P-256 certificate for "localhost" made at start, and
 * echoes what each client sends, many clients at once on one thread.
 * After CONNECTIONS connections (default: none, run until Ctrl-C) it exits.
 * Try: hs-client --insecure localhost:4433   or   openssl s_client -connect localhost:4433
 *
 * Build against an installed libhs (built with liburing):
 *   cc uring-echo.c $(pkg-config --cflags --libs libhs) -o uring-echo
 *
 * What the library does (include/hs/uring.h): one io_uring, multishot
 * accept, receives into a ring of buffers shared by all connections, each
 * handshake under a deadline, the TLS 1.3 engine driven by completions.
 * What the application does: configure TLS, say what to do with data.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <hs/cred.h>
#include <hs/tls.h>
#include <hs/uring.h>
#include <hs/x509_write.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Every piece of application data the client sends goes straight back. */
static void echo(void *arg, struct hs_uring_conn *uc, const uint8_t *p, size_t n)
{
	(void)arg;
	if (hs_uring_send(uc, p, n) != 0)
		hs_uring_close(uc);
}

static void ended(void *arg, struct hs_uring_conn *uc, int err)
{
	(void)arg;
	(void)uc;
	if (err != 0 && err != HS_ERR_TLS_CLOSED)
		fprintf(stderr, "uring-echo: a connection failed: %s\n", hs_strerror(err));
}

static int listen_on(unsigned port, unsigned *bound)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof(a);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, SOMAXCONN) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		perror("uring-echo: listen");
		return -1;
	}
	*bound = ntohs(a.sin_port);
	return fd;
}

int main(int argc, char **argv)
{
	static const uint8_t loopback[4] = { 127, 0, 0, 1 };
	uint64_t now = (uint64_t)time(NULL);
	struct hs_cert_spec spec = { .dns_name = "localhost", .ipv4 = loopback,
				     .not_before = now - 3600, .not_after = now + 86400 };
	struct hs_config tls = { .role = HS_ROLE_SERVER };
	struct hs_uring_config loop = { .tls = &tls, .stop = &stop, .on_data = echo,
					.on_end = ended, .handshake_ms = 10000 };
	struct hs_uring_stats st;
	struct sigaction sa = { .sa_handler = on_signal };
	const struct hs_cred *creds[1];
	struct hs_cred *cred = NULL;
	char pem[HS_X509_WRITE_PEM_MAX], why[200];
	unsigned port = argc > 1 ? (unsigned)atoi(argv[1]) : 4433, bound;
	size_t pem_len;
	int err;

	if (hs_uring_probe(why, sizeof(why)) != 0) {
		fprintf(stderr, "uring-echo: no io_uring here: %s\n", why);
		return 1;
	}
	if (hs_cred_generate_p256(&cred, &spec, pem, sizeof(pem), &pem_len) != 0)
		return 1;
	creds[0] = cred;
	tls.creds = creds;
	tls.n_creds = 1;
	loop.max_conns = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	loop.listen_fd = listen_on(port, &bound);
	if (loop.listen_fd < 0)
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: the loop sees it and ends */
	sigaction(SIGTERM, &sa, NULL);
	printf("uring-echo: listening on 127.0.0.1:%u\n", bound);
	fflush(stdout);
	err = hs_uring_serve(&loop, &st);
	if (err)
		fprintf(stderr, "uring-echo: %s\n", hs_uring_last_error());
	printf("uring-echo: %llu connections, %llu handshakes, %llu failed\n",
	       (unsigned long long)st.accepted, (unsigned long long)st.handshakes,
	       (unsigned long long)st.failed);
	close(loop.listen_fd);
	hs_cred_free(cred);
	return err ? 1 : 0;
}
