/*
 * handshaked's reading of the kernel's ACCEPT reply (issue 13, bad input):
 * messages built here as net/handshake sends them (netlink and genetlink
 * headers, the attributes of Documentation/netlink/specs/handshake.yaml),
 * well formed and then broken one way at a time. Each broken one is either
 * refused as a message or marked malformed, and a malformed request is
 * answered EINVAL by the session before any byte moves (the daemon then
 * reports DONE with that status and lives on: the loop's path for every
 * request). No kernel needed: the parser is hsd_nl_parse_accept, the one
 * hsd_nl_accept runs on the kernel's reply.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "handshaked/netlink.h"
#include "handshaked/session.h"
#include "hs/err.h"
#include "loopback.h"

/* linux/handshake.h's attribute numbers (the spec's order) */
enum { SOCKFD = 1, HANDLER_CLASS = 2, MESSAGE_TYPE = 3, TIMEOUT = 4, AUTH_MODE = 5,
       PEER_IDENTITY = 6, CERTIFICATE = 7, PEERNAME = 8, KEYRING = 9 };
enum { X509_CERT = 1, X509_PRIVKEY = 2 };

static char buf[8192];

/* What to break in the message. */
enum fault {
	NONE, FD_U16, NO_FD, MSG_TYPE_0, MSG_TYPE_9, AUTH_7, PEERNAME_NO_NUL, PEERNAME_LONG,
	CERT_NOT_NESTED, CERT_SERIAL_U8, ATTR_PAST_END, UNKNOWN_ATTR, TRUNCATED,
	TIMEOUT_EMPTY, N_FAULTS
};

static const char *const fault_name[N_FAULTS] = {
	"well formed", "socket attribute of 2 bytes", "no socket attribute",
	"message type 0", "message type 9", "auth mode 7", "peer name without its NUL",
	"peer name of 300 bytes", "certificate not nested", "certificate serial of 1 byte",
	"an attribute longer than the message", "an attribute newer than we know",
	"the message cut short", "timeout of 0 bytes",
};

/* The ACCEPT reply, broken by f; its length. */
static size_t build(enum fault f, int fd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *nest;
	char name[301];

	nlh->nlmsg_type = 0x20; /* the family id the controller gave (any) */
	g->cmd = 2;             /* HANDSHAKE_CMD_ACCEPT */
	g->version = 1;
	if (f == FD_U16)
		mnl_attr_put_u16(nlh, SOCKFD, (uint16_t)fd);
	else if (f != NO_FD)
		mnl_attr_put_u32(nlh, SOCKFD, (uint32_t)fd);
	mnl_attr_put_u32(nlh, MESSAGE_TYPE, f == MSG_TYPE_0 ? 0 : f == MSG_TYPE_9 ? 9 : 1);
	if (f == TIMEOUT_EMPTY)
		mnl_attr_put(nlh, TIMEOUT, 0, NULL);
	else
		mnl_attr_put_u32(nlh, TIMEOUT, 5000);
	mnl_attr_put_u32(nlh, AUTH_MODE, f == AUTH_7 ? 7 : 3);
	mnl_attr_put_u32(nlh, PEER_IDENTITY, 1234);
	if (f == CERT_NOT_NESTED) {
		mnl_attr_put_u32(nlh, CERTIFICATE, 5);
	} else {
		nest = mnl_attr_nest_start(nlh, CERTIFICATE);
		if (f == CERT_SERIAL_U8)
			mnl_attr_put_u8(nlh, X509_CERT, 5);
		else
			mnl_attr_put_u32(nlh, X509_CERT, 5);
		mnl_attr_put_u32(nlh, X509_PRIVKEY, 6);
		mnl_attr_nest_end(nlh, nest);
	}
	if (f == PEERNAME_NO_NUL) {
		mnl_attr_put(nlh, PEERNAME, 9, "localhost"); /* no terminating NUL */
	} else if (f == PEERNAME_LONG) {
		memset(name, 'a', 300);
		name[300] = '\0';
		mnl_attr_put_strz(nlh, PEERNAME, name);
	} else {
		mnl_attr_put_strz(nlh, PEERNAME, "localhost");
	}
	mnl_attr_put_u32(nlh, KEYRING, 77);
	if (f == UNKNOWN_ATTR)
		mnl_attr_put_u32(nlh, 42, 1);
	if (f == ATTR_PAST_END) {
		/* the last attribute claims 64 more bytes than the message holds */
		struct nlattr *a = (struct nlattr *)((char *)nlh + nlh->nlmsg_len);
		mnl_attr_put_u32(nlh, KEYRING, 78);
		a->nla_len = (uint16_t)(a->nla_len + 64);
	}
	if (f == TRUNCATED)
		return nlh->nlmsg_len - 6; /* the header says more than there is */
	return nlh->nlmsg_len;
}

int main(void)
{
	unsigned port;
	int lfd = lo_listen(&port), fd = lfd >= 0 ? lo_dial(port, 5) : -1;

	if (fd < 0) {
		printf("FAIL - loopback socket\n");
		return 1;
	}
	for (int f = 0; f < N_FAULTS; f++) {
		struct hsd_req req;
		struct hsd_result res;
		static const struct hsd_creds none;
		size_t len = build((enum fault)f, fd);
		int r = hsd_nl_parse_accept(buf, len, &req);

		if (f == NONE || f == UNKNOWN_ATTR) {
			lo_check(r == 0 && !req.malformed && req.fd == fd &&
					 req.msg_type == 1 && req.auth == 3 && req.timeout_ms == 5000 &&
					 req.n_peerids == 1 && req.peerids[0] == 1234 &&
					 req.cert_serial == 5 && req.key_serial == 6 && req.keyring == 77 &&
					 strcmp(req.peername, "localhost") == 0,
				 "%s: every attribute read", fault_name[f]);
			continue;
		}
		if (f == NO_FD) {
			lo_check(r == HS_ERR_WANT_READ, "%s: no request (%d)", fault_name[f], r);
			continue;
		}
		if (f == TRUNCATED || f == FD_U16) {
			/* the socket attribute unreadable or the message cut: no request taken */
			lo_check(r != 0 || req.malformed, "%s: refused (%d, malformed %d)",
				 fault_name[f], r, req.malformed);
			if (r != 0)
				continue;
		}
		lo_check(r == 0 && req.malformed, "%s: marked malformed (%d)", fault_name[f], r);
		if (r == 0) {
			/* the daemon's answer: EINVAL, before the handshake */
			struct hsd_session *s = hsd_session_start(&none, &req, &res);
			lo_check(s == NULL && res.status == EINVAL,
				 "%s: the session answers EINVAL (%d: %s)", fault_name[f],
				 res.status, res.detail);
			hsd_session_free(s);
		}
	}
	close(fd);
	close(lfd);
	printf("%d failed\n", lo_failures);
	return lo_failures ? 1 : 0;
}
