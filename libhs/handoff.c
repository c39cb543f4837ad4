/*
 * hs_handoff(): the application's side of the hand-off to handshaked.
 * One SOCK_SEQPACKET connection per call: the request with the socket
 * (SCM_RIGHTS), then one result message. Waits with poll() for at most the
 * request's timeout plus 5 s (the daemon enforces the timeout itself).
 */
#define _GNU_SOURCE
#include "hs/handoff.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "libhs/handoff_msg.h"

int hs_handoff(const char *socket_path, int fd, const struct hs_handoff_request *req,
	       struct hs_handoff_result *res)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	uint8_t msg[HANDOFF_MSG_MAX];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct iovec iov = { .iov_base = msg };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	struct pollfd p;
	unsigned timeout = req->timeout_ms ? req->timeout_ms : 10000;
	size_t len;
	ssize_t n;
	int s, err;

	memset(res, 0, sizeof(*res));
	res->alert = -1;
	if (socket_path == NULL || strlen(socket_path) >= sizeof(a.sun_path) || fd < 0)
		return HS_ERR_ARG;
	err = handoff_req_encode(req, msg, sizeof(msg), &len);
	if (err)
		return err;
	memcpy(a.sun_path, socket_path, strlen(socket_path));
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return HS_ERR_TLS_IO;
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		err = HS_ERR_TLS_IO;
		goto out;
	}
	iov.iov_len = len;
	memset(&cb, 0, sizeof(cb));
	m.msg_control = cb.buf;
	m.msg_controllen = sizeof(cb.buf);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(s, &m, MSG_NOSIGNAL) != (ssize_t)len) {
		err = HS_ERR_TLS_IO;
		goto out;
	}
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	do
		n = poll(&p, 1, (int)(timeout + 5000));
	while (n < 0 && errno == EINTR);
	if (n == 0) {
		err = HS_ERR_TLS_TIMEOUT;
		goto out;
	}
	do
		n = recv(s, msg, sizeof(msg), 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		err = HS_ERR_TLS_IO; /* the daemon went away without answering */
		goto out;
	}
	err = handoff_res_decode(msg, (size_t)n, res);
out:
	close(s);
	return err;
}
