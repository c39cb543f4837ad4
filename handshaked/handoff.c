/*
 * The application hand-off socket of handshaked. The request and result
 * formats are libhs/handoff_msg.h's (one home for both ends). The
 * descriptor that comes with a request must be exactly one TCP socket;
 * extra descriptors are closed, a request without one is refused.
 */
#define _GNU_SOURCE
#include "handshaked/handoff.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hs/err.h"
#include "libhs/handoff_msg.h"

#define MAX_TIMEOUT_MS 60000

int hsd_handoff_listen(const char *path, const char *group, int *fd, char *why, size_t cap)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct group *g = NULL;
	int s;

	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(why, cap, "%s: path too long for a Unix socket", path);
		return -1;
	}
	if (group[0] != '\0' && (g = getgrnam(group)) == NULL) {
		snprintf(why, cap, "socket_group %s: no such group", group);
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path));
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	(void)unlink(path); /* a stale socket from an earlier run */
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    chmod(path, g != NULL ? 0660 : 0600) != 0 ||
	    (g != NULL && chown(path, (uid_t)-1, g->gr_gid) != 0) || listen(s, 128) != 0) {
		snprintf(why, cap, "%s: %s", path, strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	*fd = s;
	return 0;
}

int hsd_handoff_allowed(int conn, gid_t group)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return 0;
	return uc.uid == 0 || uc.uid == geteuid() || (group != (gid_t)-1 && uc.gid == group);
}

/* The request and the one descriptor that came with it (-1 if none); non-blocking. */
static int receive(int conn, struct handoff_req *q, int *fd)
{
	uint8_t msg[HANDOFF_MSG_MAX];
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb.buf,
			    .msg_controllen = sizeof(cb.buf) };
	ssize_t n;

	*fd = -1;
	n = recvmsg(conn, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return HS_ERR_WANT_READ;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); n >= 0 && cm != NULL; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int one;

			memcpy(&one, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = one;
			else
				close(one); /* one socket per request: the rest are not ours */
		}
	}
	if (n <= 0 || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return HS_ERR_BAD_ENCODING;
	return handoff_req_decode(msg, (size_t)n, q);
}

static void answer(int conn, const struct hs_handoff_result *r)
{
	uint8_t msg[HANDOFF_MSG_MAX];
	size_t len;

	/* one small message into an empty socket: it fits, or the peer is gone */
	if (handoff_res_encode(r, msg, sizeof(msg), &len) == 0)
		(void)send(conn, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

int hsd_handoff_read(int conn, struct hsd_req *req, struct hsd_result *res)
{
	struct hs_handoff_result out = { .alert = -1 };
	struct handoff_req q;
	int err;

	memset(req, 0, sizeof(*req));
	req->fd = -1;
	req->auth = HSD_AUTH_X509;
	req->handoff = 1;
	err = receive(conn, &q, &req->fd);
	if (err == HS_ERR_WANT_READ)
		return err;
	memset(res, 0, sizeof(*res));
	res->alert = -1;
	if (err || req->fd < 0) {
		out.status = err ? err : HS_ERR_ARG;
		snprintf(out.detail, sizeof(out.detail), "%s",
			 err ? "malformed request" : "no socket came with the request");
		res->status = EINVAL;
	} else if (q.credential[0] != '\0' && strcmp(q.credential, "default") != 0) {
		out.status = HS_ERR_TLS_NO_CERT;
		snprintf(out.detail, sizeof(out.detail), "no credential named \"%.64s\"", q.credential);
		res->status = ENOKEY;
	} else {
		req->msg_type = q.role == 1 ? HSD_MSG_SERVERHELLO : HSD_MSG_CLIENTHELLO;
		req->timeout_ms = q.timeout_ms == 0 ? 10000
				  : q.timeout_ms > MAX_TIMEOUT_MS ? MAX_TIMEOUT_MS
								  : q.timeout_ms;
		snprintf(req->peername, sizeof(req->peername), "%s", q.server_name);
		snprintf(req->alpn, sizeof(req->alpn), "%s", q.alpn);
		return 0;
	}
	snprintf(res->detail, sizeof(res->detail), "hand-off: %.200s", out.detail);
	res->err = out.status;
	answer(conn, &out);
	if (req->fd >= 0)
		close(req->fd);
	req->fd = -1;
	return -1;
}

void hsd_handoff_answer(int conn, const struct hsd_result *res)
{
	struct hs_handoff_result out = { .alert = res->alert, .suite = res->suite };

	out.status = res->status == 0 ? 0 : res->err ? res->err : HS_ERR_TLS_IO;
	snprintf(out.alpn, sizeof(out.alpn), "%s", res->alpn);
	snprintf(out.peer, sizeof(out.peer), "%s", res->sni);
	snprintf(out.detail, sizeof(out.detail), "%s", res->detail);
	answer(conn, &out);
}
