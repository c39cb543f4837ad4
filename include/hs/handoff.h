/*
 * Application hand-off to handshaked(8): pass a connected TCP socket to
 * the daemon, which does the TLS 1.3 handshake with its own credentials
 * (the private keys never enter the application) and installs kernel TLS
 * on the socket. Afterwards the application's own descriptor is on kTLS:
 * plain send()/recv() carry application data (the kernel seals and opens);
 * control records need the cmsg path (include/hs/ktls.h).
 *
 * The request and the result go over the daemon's Unix socket
 * (SOCK_SEQPACKET, the descriptor by SCM_RIGHTS); the call blocks until
 * the daemon answers, at most the request's timeout plus 5 s.
 */
#ifndef HS_HANDOFF_H
#define HS_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#include "hs/err.h"

enum hs_handoff_role { HS_HANDOFF_CLIENT = 0, HS_HANDOFF_SERVER = 1 };

struct hs_handoff_request {
	enum hs_handoff_role role;
	const char *server_name; /* client: SNI and the name to verify (NULL: none) */
	const char *alpn;        /* comma-separated protocols (NULL: none) */
	const char *credential;  /* which configured credential (NULL or "default") */
	unsigned timeout_ms;     /* whole handshake (0: 10,000; the daemon caps it at 60,000) */
};

#define HS_HANDOFF_TEXT_MAX 256

struct hs_handoff_result {
	int status;  /* 0: the socket is on kernel TLS both ways; else an hs error (hs_strerror) */
	int alert;   /* the TLS alert sent or received, -1 if none */
	uint16_t suite;
	char alpn[HS_HANDOFF_TEXT_MAX];   /* negotiated, "" if none */
	char peer[HS_HANDOFF_TEXT_MAX];   /* server role: the client's SNI; "" if none */
	char detail[HS_HANDOFF_TEXT_MAX]; /* what failed, for a person ("" on success) */
};

/*
 * Hand fd to the daemon listening on socket_path. 0 when the daemon
 * answered (res->status says how the handshake went), or an error reaching
 * it (HS_ERR_TLS_IO with errno, HS_ERR_TLS_TIMEOUT, HS_ERR_BAD_ENCODING for
 * a reply that does not parse).
 */
HS_API HS_MUST_CHECK int hs_handoff(const char *socket_path, int fd,
				    const struct hs_handoff_request *req, struct hs_handoff_result *res);

#endif
