/*
 * A complete client on the installed library (README.md shows this file):
 * connect to HOST:PORT over TCP, check the server's certificate against the
 * CA file (and HOST), send one line, print what comes back.
 *
 *   cc example.c $(pkg-config --cflags --libs libhs) -o example
 *   ./example localhost 4433 ca.pem
 */
#define _POSIX_C_SOURCE 200809L

#include <hs/fd.h>
#include <hs/tls.h>
#include <hs/version.h>
#include <hs/x509.h>

#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int tcp_connect(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *a;
	int fd = -1;

	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -1;
	for (a = res; a != NULL && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

int main(int argc, char **argv)
{
	struct hs_x509_store *trust = NULL;
	struct hs_conn *c = NULL;
	const char *line = "hello from libhs\n";
	char buf[4096];
	size_t n;
	int fd = -1, err;

	if (argc != 4) {
		fprintf(stderr, "usage: %s HOST PORT CAFILE\n", argv[0]);
		return 2;
	}
	printf("libhs %s (built with %s)\n", hs_version(), HS_VERSION_STRING);
	err = hs_x509_store_new(&trust);
	if (err == 0)
		err = hs_x509_store_load_file(trust, argv[3]);
	if (err != 0) {
		fprintf(stderr, "%s: %s\n", argv[3], hs_strerror(err));
		goto out;
	}
	struct hs_config cfg = {
		.role = HS_ROLE_CLIENT,
		.server_name = argv[1], /* SNI, and the name the certificate must carry */
		.trust = trust,
	};
	err = hs_conn_new(&c, &cfg);
	if (err != 0)
		goto out;
	fd = tcp_connect(argv[1], argv[2]);
	if (fd < 0) {
		perror("connect");
		err = -1;
		goto out;
	}
	err = hs_fd_connect(c, fd);
	if (err != 0)
		goto out;
	printf("connected: %s, %s\n", hs_suite_name(hs_conn_suite(c)),
	       hs_group_name(hs_conn_group(c)));
	err = hs_fd_write(c, fd, line, strlen(line));
	if (err == 0)
		err = hs_fd_read(c, fd, buf, sizeof(buf), &n);
	if (err == 0)
		printf("received: %.*s", (int)n, buf);
	if (err == 0)
		err = hs_fd_close(c, fd);
out:
	if (err != 0 && err != -1)
		fprintf(stderr, "error: %s\n", c != NULL && hs_conn_error(c) != 0 ?
			hs_conn_error_detail(c) : hs_strerror(err));
	hs_conn_free(c);
	hs_x509_store_free(trust);
	if (fd >= 0)
		close(fd);
	return err == 0 ? 0 : 1;
}
