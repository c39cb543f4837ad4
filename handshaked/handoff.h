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
 * Serve one accepted connection: read the request and the socket (at most
 * 5 s), run the handshake, answer, close both. Never fails loudly: a bad
 * request gets an error result (or, unreadable, is just closed).
 */
void hsd_handoff_serve(const struct hsd_creds *cr, int conn, struct hsd_result *res);

#endif
