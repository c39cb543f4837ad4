/*
 * handshaked/handoff.c: the application hand-off socket (include/hs/handoff.h
 * is the client's side). A SOCK_SEQPACKET Unix socket, mode 0660 and owned
 * by the configured group (root only without one); each connection brings
 * one request and a TCP socket (SCM_RIGHTS) and gets one result.
 */
#ifndef HS_HANDSHAKED_HANDOFF_H
#define HS_HANDSHAKED_HANDOFF_H

#include <sys/types.h>

#include "handshaked/session.h"

/* Listen on path (a stale socket file is replaced); group "" = root only. */
int hsd_handoff_listen(const char *path, const char *group, int *fd, char *why, size_t cap);
/*
 * A connection accepted from the listening socket: may this peer use us?
 * (SO_PEERCRED: root, our own user, or the group.)
 */
int hsd_handoff_allowed(int conn, gid_t group);
/*
 * Read the request of an accepted connection without blocking (call when
 * it is readable). 0: *req is a handshake to run on req->fd (ours to
 * close once answered; the application keeps its own descriptor);
 * HS_ERR_WANT_READ: nothing yet; -1: a bad request, already answered with
 * its error result (described in *res for the log); close conn.
 */
int hsd_handoff_read(int conn, struct hsd_req *req, struct hsd_result *res);
/* Answer the request with the handshake's result (conn is the caller's to close). */
void hsd_handoff_answer(int conn, const struct hsd_result *res);

#endif
