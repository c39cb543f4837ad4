/*
 * Sockets for hs-client and hs-server: address parsing, connect (trying
 * every address the name resolves to), listen.
 *
 * Implementation notes: failures print one line and return EXIT_NET (or
 * EXIT_USAGE for a malformed address); nothing here knows TLS.
 */
#include "cli.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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
		if (colon == NULL && allow_bare) {
			colon = s - 1; /* the whole string is the port */
			hlen = 0;
		} else if (colon == NULL || strchr(s, ':') != colon) {
			return fail(EXIT_USAGE, "bad address '%s' (want HOST:PORT)", s);
		} else {
			hlen = (size_t)(colon - s);
		}
	}
	if (hlen >= cap || strlen(colon + 1) >= pcap || colon[1] == '\0')
		return fail(EXIT_USAGE, "bad address '%s' (want HOST:PORT)", s);
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

int net_connect(const char *host, const char *port, int *fd)
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
		if (connect(s, ai->ai_addr, ai->ai_addrlen) != 0) {
			err = errno;
			close(s);
			s = -1;
		}
	}
	freeaddrinfo(res);
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
	    bind(s, res->ai_addr, res->ai_addrlen) != 0 || listen(s, 16) != 0)
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
