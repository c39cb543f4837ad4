/*
 * Sockets for hs-client and hs-server: address parsing, connect (trying
 * every address the name resolves to), listen.
 *
 * Implementation notes: failures print one line and return EXIT_NET (or
 * EXIT_USAGE for a malformed address); nothing here knows TLS.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* 0 if p is a decimal port in [min, 65535], min = 0 when listening */
static int check_port(const char *p, int listening)
{
	unsigned long v;
	char *end;

	if (*p < '0' || *p > '9' || strlen(p) > 5)
		return -1;
	v = strtoul(p, &end, 10);
	if (*end != '\0' || v > 65535 || (v == 0 && !listening))
		return -1;
	return 0;
}

int split_hostport(const char *s, char *host, size_t cap, char *port, size_t pcap,
		   int allow_bare)
{
	const char *colon, *h = s;
	size_t hlen;

	if (s[0] == '[') { /* [v6]:port */
		const char *end = strchr(s, ']');
		if (end == NULL || end[1] != ':')
			return fail(EXIT_USAGE, "bad address '%s' (want [V6ADDR]:PORT)", s);
		h = s + 1;
		hlen = (size_t)(end - h);
		colon = end + 1;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL && allow_bare) { /* the whole string is the port */
			if (check_port(s, 1) != 0 || strlen(s) >= pcap)
				return fail(EXIT_USAGE, "bad address '%s' (want ADDR:PORT, "
							"[V6ADDR]:PORT or PORT)", s);
			host[0] = '\0';
			strcpy(port, s);
			return 0;
		} else if (colon == NULL || strchr(s, ':') != colon) {
			return fail(EXIT_USAGE, "bad address '%s' (want HOST:PORT)", s);
		} else {
			hlen = (size_t)(colon - s);
		}
	}
	if (hlen >= cap || strlen(colon + 1) >= pcap || colon[1] == '\0')
		return fail(EXIT_USAGE, "bad address '%s' (want HOST:PORT)", s);
	if (check_port(colon + 1, allow_bare) != 0)
		return fail(EXIT_USAGE, "bad port '%s' in '%s': want a number from %d to 65535",
			    colon + 1, s, allow_bare ? 0 : 1);
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	strcpy(port, colon + 1);
	return 0;
}

static int resolve(const char *host, const char *port, int passive, struct addrinfo **res)
{
	struct addrinfo hints;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = passive ? AI_PASSIVE : 0;
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, res);
	if (rc != 0)
		return fail(EXIT_NET, "cannot resolve '%s' port '%s': %s", host, port,
			    gai_strerror(rc));
	return 0;
}

/*
 * connect() that gives up after timeout_ms (0: the kernel's own limit): a
 * non-blocking connect, then poll for writability. 0 or the errno.
 */
static int connect_within(int s, const struct sockaddr *sa, socklen_t len, unsigned timeout_ms)
{
	int fl = fcntl(s, F_GETFL), err = 0, n;
	socklen_t elen = sizeof(err);
	struct pollfd pfd = { .fd = s, .events = POLLOUT };

	if (timeout_ms == 0)
		return connect(s, sa, len) == 0 ? 0 : errno;
	if (fl < 0 || fcntl(s, F_SETFL, fl | O_NONBLOCK) != 0)
		return errno;
	if (connect(s, sa, len) != 0) {
		if (errno != EINPROGRESS)
			return errno;
		do
			n = poll(&pfd, 1, timeout_ms > INT32_MAX ? INT32_MAX : (int)timeout_ms);
		while (n < 0 && errno == EINTR);
		if (n == 0)
			return ETIMEDOUT;
		if (n < 0 || getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &elen) != 0)
			return n < 0 ? errno : EIO;
		if (err != 0)
			return err;
	}
	return fcntl(s, F_SETFL, fl) == 0 ? 0 : errno;
}

int net_connect(const char *host, const char *port, unsigned timeout_ms, int *fd)
{
	struct addrinfo *res, *ai;
	int err = 0, s = -1;

	*fd = -1;
	if (resolve(host, port, 0, &res))
		return EXIT_NET;
	for (ai = res; ai != NULL && s < 0; ai = ai->ai_next) {
		s = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (s < 0) {
			err = errno;
			continue;
		}
		if ((err = connect_within(s, ai->ai_addr, ai->ai_addrlen, timeout_ms)) != 0) {
			close(s);
			s = -1;
		}
	}
	freeaddrinfo(res);
	if (s < 0 && err == ETIMEDOUT && timeout_ms > 0)
		return fail(EXIT_NET, "cannot connect to %s port %s: timed out after %u s (--timeout)",
			    host, port, timeout_ms / 1000);
	if (s < 0)
		return fail(EXIT_NET, "cannot connect to %s port %s: %s", host, port, strerror(err));
	*fd = s;
	return 0;
}

static unsigned bound_port(int s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(s, (struct sockaddr *)&ss, &len) != 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

int net_listen(const char *host, const char *port, int *fd, unsigned *bound)
{
	struct addrinfo *res;
	int one = 1, s, err = 0;

	*fd = -1;
	if (resolve(host, port, 1, &res))
		return EXIT_NET;
	s = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(s, res->ai_addr, res->ai_addrlen) != 0 || listen(s, SOMAXCONN) != 0)
		err = errno;
	freeaddrinfo(res);
	if (err) {
		if (s >= 0)
			close(s);
		return fail(EXIT_NET, "cannot listen on %s port %s: %s", host[0] ? host : "*",
			    port, strerror(err));
	}
	*fd = s;
	*bound = bound_port(s);
	return 0;
}
