/*
 * handshaked/session.c: one handshake for one request (a kernel upcall or
 * an application hand-off): configure hs from the request and the
 * daemon's credentials, handshake on the socket under the deadline, hand
 * the socket to kernel TLS both ways, and say what happened.
 */
#ifndef HS_HANDSHAKED_SESSION_H
#define HS_HANDSHAKED_SESSION_H

#include <stdint.h>

#include "handshaked/conf.h"
#include "handshaked/netlink.h"

/* Loaded from the configuration at start and on SIGHUP; read-only while shared. */
struct hsd_creds {
	struct hs_cred *client_cred, *server_cred; /* NULL: none configured */
	struct hs_x509_store *client_trust;        /* client role: the server's chain */
	struct hs_x509_store *server_trust;        /* server role: client chains; NULL: no mTLS */
};

int hsd_creds_load(const struct hsd_conf *c, struct hsd_creds *cr, char *why, size_t cap);
void hsd_creds_free(struct hsd_creds *cr);

struct hsd_result {
	int status;          /* 0, or the positive errno DONE reports */
	int err;             /* the hs error behind it (0 on success) */
	int alert;           /* the alert sent or received, -1 if none */
	char alpn[256];      /* negotiated ("" if none) */
	char sni[256];       /* server role: the client's SNI ("" if none) */
	char detail[256];    /* what failed, for the log ("" on success) */
	uint16_t suite;
	int peer_cert;       /* the peer authenticated with a certificate */
	int ktls;            /* the socket is on kernel TLS both ways */
	double ms;           /* handshake + hand-off time */
};

void hsd_session_run(const struct hsd_creds *cr, const struct hsd_req *req, struct hsd_result *res);

#endif
