/*
 * The kernel's "handshake" generic netlink family (Linux >= 6.5,
 * net/handshake; Documentation/netlink/specs/handshake.yaml), spoken with
 * libmnl: resolve the family and its "tlshd" multicast group, join it, take
 * requests (ACCEPT: the kernel installs the socket in this process and
 * sends its parameters) and report results (DONE).
 *
 * Every attribute of a reply is checked for type and length before use
 * (mnl_attr_validate); an unknown attribute is skipped, a malformed one
 * refuses the request, which is then answered DONE with EINVAL.
 */
#define _GNU_SOURCE
#include "handshaked/netlink.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hs/err.h"

/* The family's constants, as the kernel's uapi header linux/handshake.h defines them. */
#define HANDSHAKE_FAMILY_NAME "handshake"
#define HANDSHAKE_MCGRP_TLSHD "tlshd"
enum { HANDSHAKE_CMD_READY = 1, HANDSHAKE_CMD_ACCEPT = 2, HANDSHAKE_CMD_DONE = 3 };
enum { HANDSHAKE_HANDLER_CLASS_TLSHD = 1 };
enum {
	A_ACCEPT_SOCKFD = 1,
	A_ACCEPT_HANDLER_CLASS = 2,
	A_ACCEPT_MESSAGE_TYPE = 3,
	A_ACCEPT_TIMEOUT = 4,
	A_ACCEPT_AUTH_MODE = 5,
	A_ACCEPT_PEER_IDENTITY = 6,
	A_ACCEPT_CERTIFICATE = 7,
	A_ACCEPT_PEERNAME = 8,
	A_ACCEPT_KEYRING = 9,
	A_ACCEPT_MAX = 9,
};
enum { A_X509_CERT = 1, A_X509_PRIVKEY = 2, A_X509_MAX = 2 };
enum { A_DONE_STATUS = 1, A_DONE_SOCKFD = 2, A_DONE_REMOTE_AUTH = 3 };

struct hsd_nl {
	struct mnl_socket *sk;
	uint16_t family;
	uint32_t group, seq;
	int last_errno;
	char buf[16384]; /* >= MNL_SOCKET_BUFFER_SIZE (8 KiB or a page) */
};

/* ---- resolving the family (the generic netlink controller) ---- */

struct family {
	uint16_t id;
	uint32_t group;
};

static int group_cb(const struct nlattr *a, void *data)
{
	struct family *f = data;
	const struct nlattr *g;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(g, a)
	{
		if (mnl_attr_get_type(g) == CTRL_ATTR_MCAST_GRP_NAME &&
		    mnl_attr_validate(g, MNL_TYPE_NUL_STRING) == 0)
			name = mnl_attr_get_str(g);
		else if (mnl_attr_get_type(g) == CTRL_ATTR_MCAST_GRP_ID &&
			 mnl_attr_validate(g, MNL_TYPE_U32) == 0)
			id = mnl_attr_get_u32(g);
	}
	if (name != NULL && strcmp(name, HANDSHAKE_MCGRP_TLSHD) == 0)
		f->group = id;
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct family *f = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
	{
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
		    mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			f->id = mnl_attr_get_u16(a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GROUPS &&
			 mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
			mnl_attr_for_each_nested(a, a) group_cb(a, f);
	}
	return MNL_CB_OK;
}

static struct nlmsghdr *genl_msg(struct hsd_nl *nl, uint16_t type, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

/* Send nlh and run cb over the answer until its ACK (or error). */
static int talk(struct hsd_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	unsigned portid = mnl_socket_get_portid(nl->sk);
	uint32_t seq = nlh->nlmsg_seq;
	ssize_t n;
	int r;

	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(nl->sk, nl->buf, sizeof(nl->buf));
		if (n < 0)
			return -errno;
		r = mnl_cb_run(nl->buf, (size_t)n, seq, portid, cb, data);
		if (r <= MNL_CB_STOP)
			return r < 0 ? -errno : 0;
	}
}

int hsd_nl_open(struct hsd_nl **out, int join, char *why, size_t cap)
{
	struct hsd_nl *nl = calloc(1, sizeof(*nl));
	struct family f = { 0 };
	struct nlmsghdr *nlh;
	int r;

	*out = NULL;
	if (nl == NULL)
		return HS_ERR_NOMEM;
	nl->seq = (uint32_t)time(NULL);
	nl->sk = mnl_socket_open(NETLINK_GENERIC);
	if (nl->sk == NULL || mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		snprintf(why, cap, "generic netlink socket: %s", strerror(errno));
		hsd_nl_close(nl);
		return HS_ERR_UNSUPPORTED;
	}
	nlh = genl_msg(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, HANDSHAKE_FAMILY_NAME);
	r = talk(nl, nlh, family_cb, &f);
	if (r != 0 || f.id == 0 || f.group == 0) {
		snprintf(why, cap, "no \"handshake\" netlink family%s (Linux >= 6.5 with CONFIG_NET_HANDSHAKE)",
			 r == -ENOENT ? "" : r != 0 ? ": error" : " group");
		hsd_nl_close(nl);
		return HS_ERR_UNSUPPORTED;
	}
	nl->family = f.id;
	nl->group = f.group;
	if (join && mnl_socket_setsockopt(nl->sk, NETLINK_ADD_MEMBERSHIP, &nl->group, sizeof(nl->group)) < 0) {
		snprintf(why, cap, "joining the \"tlshd\" group: %s (CAP_NET_ADMIN?)", strerror(errno));
		hsd_nl_close(nl);
		return HS_ERR_UNSUPPORTED;
	}
	*out = nl;
	return 0;
}

void hsd_nl_close(struct hsd_nl *nl)
{
	if (nl == NULL)
		return;
	if (nl->sk != NULL)
		mnl_socket_close(nl->sk);
	free(nl);
}

int hsd_nl_fd(const struct hsd_nl *nl) { return mnl_socket_get_fd(nl->sk); }

int hsd_nl_errno(const struct hsd_nl *nl) { return nl->last_errno; }

/* ---- READY notifications ---- */

static int ready_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len >= MNL_NLMSG_HDRLEN + sizeof(*g) && g->cmd == HANDSHAKE_CMD_READY)
		(*(unsigned *)data)++;
	return MNL_CB_OK;
}

int hsd_nl_read_ready(struct hsd_nl *nl, unsigned *ready)
{
	ssize_t n = mnl_socket_recvfrom(nl->sk, nl->buf, sizeof(nl->buf));

	*ready = 0;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : HS_ERR_TLS_IO;
	/* notifications carry sequence 0 and port 0 */
	if (mnl_cb_run(nl->buf, (size_t)n, 0, 0, ready_cb, ready) < 0 && errno != ENOBUFS)
		return 0; /* a malformed notification: ignored, the next ACCEPT finds the work */
	return 0;
}

/* ---- ACCEPT ---- */

struct accept_ctx {
	struct hsd_req *req;
	int bad, got_fd;
};

static int x509_cb(const struct nlattr *a, struct accept_ctx *x)
{
	const struct nlattr *c;

	mnl_attr_for_each_nested(c, a)
	{
		int type = mnl_attr_get_type(c);

		if (type != A_X509_CERT && type != A_X509_PRIVKEY)
			continue;
		if (mnl_attr_validate(c, MNL_TYPE_U32) < 0) {
			x->bad = 1;
			continue;
		}
		if (type == A_X509_CERT)
			x->req->cert_serial = (int32_t)mnl_attr_get_u32(c);
		else
			x->req->key_serial = (int32_t)mnl_attr_get_u32(c);
	}
	/* the nest must hold whole attributes and nothing else */
	if ((const char *)c != (const char *)mnl_attr_get_payload(a) + mnl_attr_get_payload_len(a))
		x->bad = 1;
	return MNL_CB_OK;
}

static int accept_cb(const struct nlmsghdr *nlh, void *data)
{
	struct accept_ctx *x = data;
	struct hsd_req *r = x->req;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
	{
		int type = mnl_attr_get_type(a);

		if (type > A_ACCEPT_MAX || type == A_ACCEPT_HANDLER_CLASS)
			continue; /* newer attributes: not ours to refuse */
		if (type == A_ACCEPT_PEERNAME) {
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0 ||
			    mnl_attr_get_payload_len(a) > sizeof(r->peername)) {
				x->bad = 1;
				continue;
			}
			snprintf(r->peername, sizeof(r->peername), "%s", mnl_attr_get_str(a));
			continue;
		}
		if (type == A_ACCEPT_CERTIFICATE) {
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
				x->bad = 1;
			else
				x509_cb(a, x);
			continue;
		}
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0) {
			x->bad = 1;
			continue;
		}
		switch (type) {
		case A_ACCEPT_SOCKFD:
			r->fd = (int)mnl_attr_get_u32(a);
			x->got_fd = 1;
			break;
		case A_ACCEPT_MESSAGE_TYPE:
			r->msg_type = mnl_attr_get_u32(a);
			break;
		case A_ACCEPT_TIMEOUT:
			r->timeout_ms = mnl_attr_get_u32(a);
			break;
		case A_ACCEPT_AUTH_MODE:
			r->auth = mnl_attr_get_u32(a);
			break;
		case A_ACCEPT_PEER_IDENTITY:
			if (r->n_peerids < HSD_MAX_PEERIDS)
				r->peerids[r->n_peerids++] = (int32_t)mnl_attr_get_u32(a);
			break;
		case A_ACCEPT_KEYRING:
			r->keyring = (int32_t)mnl_attr_get_u32(a);
			break;
		}
	}
	/* an attribute whose length runs past the message ended the walk early */
	if ((const char *)a != (const char *)mnl_nlmsg_get_payload_tail(nlh))
		x->bad = 1;
	return MNL_CB_OK;
}

/* After the walk: the request's values in range, else malformed (answered EINVAL). */
static void accept_check(const struct accept_ctx *x, struct hsd_req *req)
{
	if (x->bad || req->msg_type < HSD_MSG_CLIENTHELLO || req->msg_type > HSD_MSG_SERVERHELLO ||
	    req->auth < HSD_AUTH_UNAUTH || req->auth > HSD_AUTH_X509)
		req->malformed = 1;
}

int hsd_nl_parse_accept(const void *buf, size_t len, struct hsd_req *req)
{
	struct accept_ctx x = { .req = req };
	int r;

	memset(req, 0, sizeof(*req));
	req->fd = -1;
	r = mnl_cb_run(buf, len, 0, 0, accept_cb, &x);
	if (r < 0)
		return HS_ERR_ARG;
	if (!x.got_fd)
		return HS_ERR_WANT_READ;
	accept_check(&x, req);
	return 0;
}

int hsd_nl_accept(struct hsd_nl *nl, struct hsd_req *req)
{
	struct accept_ctx x = { .req = req };
	struct nlmsghdr *nlh;
	int r;

	memset(req, 0, sizeof(*req));
	req->fd = -1;
	nlh = genl_msg(nl, nl->family, HANDSHAKE_CMD_ACCEPT, NLM_F_ACK);
	mnl_attr_put_u32(nlh, A_ACCEPT_HANDLER_CLASS, HANDSHAKE_HANDLER_CLASS_TLSHD);
	r = talk(nl, nlh, accept_cb, &x);
	if (r != 0 || !x.got_fd) {
		if (x.got_fd && req->fd >= 0)
			close(req->fd);
		req->fd = -1;
		nl->last_errno = r < 0 ? -r : 0;
		/* nothing pending: the kernel answers ENOENT (or EAGAIN on some versions) */
		return r == -ENOENT || r == -EAGAIN || (r == 0 && !x.got_fd) ? HS_ERR_WANT_READ
									    : HS_ERR_TLS_IO;
	}
	accept_check(&x, req);
	return 0;
}

/* ---- DONE ---- */

int hsd_nl_done(struct hsd_nl *nl, int fd, int status, const int32_t *remote, size_t n_remote)
{
	struct nlmsghdr *nlh = genl_msg(nl, nl->family, HANDSHAKE_CMD_DONE, NLM_F_ACK);

	mnl_attr_put_u32(nlh, A_DONE_STATUS, (uint32_t)status);
	mnl_attr_put_u32(nlh, A_DONE_SOCKFD, (uint32_t)fd);
	for (size_t i = 0; i < n_remote; i++)
		mnl_attr_put_u32(nlh, A_DONE_REMOTE_AUTH, (uint32_t)remote[i]);
	return talk(nl, nlh, NULL, NULL) == 0 ? 0 : HS_ERR_TLS_IO;
}
