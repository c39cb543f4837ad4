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
	struct hs_x509_store *server_trust;        /* server role: client chains; NULL: none configured */
	/*
	 * server role for a kernel upcall in x509 mode: the store a client
	 * certificate is checked against (server_trust, else the system roots,
	 * as tlshd does); owned unless it is client_trust.
	 */
	struct hs_x509_store *upcall_client_trust;
	int upcall_client_trust_owned;
	char warning[256]; /* the system roots could not be loaded ("" if they were or were not needed) */
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
	/* DONE's remote-auth: the authenticated peer's identity, as tlshd gives it:
	 * a key holding the server's certificate (client role, x509), the PSK's
	 * serial (PSK), HSD_PEER_AUTHENTICATED (server role: a client certificate
	 * was checked); none when the peer was not authenticated */
	int32_t remote[1];
	size_t n_remote;
	int ktls;            /* the socket is on kernel TLS both ways */
	double ms;           /* handshake + hand-off time */
};

/*
 * One handshake as a non-blocking state machine, driven by the event loop:
 * hsd_session_start configures it (NULL and *res filled when the request
 * cannot start: bad request, missing key); hsd_session_step does what the
 * socket allows (MSG_DONTWAIT: the descriptor's own flags stay the
 * requester's) and returns HSD_STEP_READ / HSD_STEP_WRITE (wait for that,
 * then step again) or HSD_STEP_DONE with *res filled (kernel TLS on the
 * socket, or the error); hsd_session_expire ends it at its deadline.
 * hsd_session_free wipes and frees it (the socket stays the requester's).
 */
#define HSD_PEER_AUTHENTICATED ((int32_t)-1) /* UINT_MAX on the wire, as tlshd sends it */

enum hsd_step { HSD_STEP_DONE = 0, HSD_STEP_READ = 1, HSD_STEP_WRITE = 2 };

struct hsd_session;

struct hsd_session *hsd_session_start(const struct hsd_creds *cr, const struct hsd_req *req,
				      struct hsd_result *res);
enum hsd_step hsd_session_step(struct hsd_session *s, struct hsd_result *res);
void hsd_session_expire(struct hsd_session *s, struct hsd_result *res);
void hsd_session_free(struct hsd_session *s);
/* The deadline (CLOCK_MONOTONIC ms): the request's timeout from the start. */
int64_t hsd_session_deadline(const struct hsd_session *s);
int64_t hsd_now_ms(void);

#endif
