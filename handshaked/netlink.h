/*
 * handshaked/netlink.c: the kernel's "handshake" generic netlink family.
 * Two sockets: one joined to the "tlshd" multicast group (READY
 * notifications only), one for requests (ACCEPT, DONE), whose replies must
 * not interleave with notifications. hsd_nl objects are not thread-safe:
 * the caller serialises ACCEPT and DONE on the request socket.
 */
#ifndef HS_HANDSHAKED_NETLINK_H
#define HS_HANDSHAKED_NETLINK_H

#include <stddef.h>
#include <stdint.h>

#define HSD_MAX_PEERIDS 5 /* the kernel sends at most 5 (tls_handshake_req.th_peerid[5]) */

enum hsd_msg { HSD_MSG_CLIENTHELLO = 1, HSD_MSG_SERVERHELLO = 2 };
enum hsd_auth { HSD_AUTH_UNAUTH = 1, HSD_AUTH_PSK = 2, HSD_AUTH_X509 = 3 };

/* One request, as the kernel's ACCEPT reply gives it. */
struct hsd_req {
	int fd;                   /* the socket, installed in this process */
	uint32_t msg_type;        /* enum hsd_msg: our role is client or server */
	uint32_t auth;            /* enum hsd_auth */
	uint32_t timeout_ms;      /* 0: none given */
	int32_t peerids[HSD_MAX_PEERIDS]; /* key serials: PSKs (auth PSK) */
	size_t n_peerids;
	int32_t cert_serial, key_serial;  /* x509: 0 = none (use the configuration's) */
	int32_t keyring;          /* 0 = none */
	char peername[256];       /* the server's name (client role) or the peer's address */
	int malformed;            /* an attribute failed its check: answer EINVAL */
	char alpn[256];           /* application hand-off only: protocols, comma-separated */
	int handoff;              /* an application's hand-off, not a kernel upcall */
};

struct hsd_nl;

/* join: also join the "tlshd" multicast group (the notification socket). */
int hsd_nl_open(struct hsd_nl **out, int join, char *why, size_t cap);
void hsd_nl_close(struct hsd_nl *nl);
int hsd_nl_fd(const struct hsd_nl *nl);
/* The errno of the last refused request (ACCEPT). */
int hsd_nl_errno(const struct hsd_nl *nl);
/* Read one batch of notifications (non-blocking socket); *ready = READY count. */
int hsd_nl_read_ready(struct hsd_nl *nl, unsigned *ready);
/* Take one pending request: 0, HS_ERR_WANT_READ when none waits, else an error. */
int hsd_nl_accept(struct hsd_nl *nl, struct hsd_req *req);
/*
 * The parsing behind hsd_nl_accept, on one ACCEPT reply as the kernel
 * sends it (netlink header, genetlink header, attributes): 0 with req
 * filled (req->malformed when an attribute or value failed its check),
 * HS_ERR_WANT_READ when it carries no socket, HS_ERR_ARG when the
 * message itself does not parse. (tests/handshaked/test_netlink.c)
 */
int hsd_nl_parse_accept(const void *buf, size_t len, struct hsd_req *req);
/* Report the result for fd (status: 0 or a positive errno); remote: peer identity key serials. */
int hsd_nl_done(struct hsd_nl *nl, int fd, int status, const int32_t *remote, size_t n_remote);

#endif
