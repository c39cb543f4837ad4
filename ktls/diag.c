/*
 * kTLS sockets through sock_diag, and /proc/net/tls_stat.
 *
 * Implementation notes:
 * - One NETLINK_SOCK_DIAG dump per address family (inet_diag_req_v2, TCP,
 *   every state, with INET_DIAG_INFO asked for so the kernel adds the TCP
 *   "aux" attributes, among them INET_DIAG_ULP_INFO). A socket with a ULP
 *   carries INET_DIAG_ULP_INFO { INET_ULP_INFO_NAME "tls", INET_ULP_INFO_TLS
 *   { TLS_INFO_VERSION, TLS_INFO_CIPHER, TLS_INFO_TXCONF, TLS_INFO_RXCONF,
 *   TLS_INFO_ZC_RO_TX, TLS_INFO_RX_NO_PAD } } (net/tls/tls_main.c).
 * - libmnl does the message walking and attribute validation; no secret is
 *   touched here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tls.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ktls/diag.h"

const char *ktls_conf_name(uint16_t conf)
{
	switch (conf) {
	case TLS_CONF_BASE: return "none";
	case TLS_CONF_SW: return "sw";
	case TLS_CONF_HW: return "hw";
	case TLS_CONF_HW_RECORD: return "hw-record";
	default: return "?";
	}
}

const char *ktls_cipher_name(uint16_t kernel_type)
{
	switch (kernel_type) {
	case TLS_CIPHER_AES_GCM_128: return "aes-gcm-128";
	case TLS_CIPHER_AES_GCM_256: return "aes-gcm-256";
	case TLS_CIPHER_AES_CCM_128: return "aes-ccm-128";
	case TLS_CIPHER_CHACHA20_POLY1305: return "chacha20-poly1305";
	case 0: return "none";
	default: return "?";
	}
}

struct walk {
	ktls_sock_fn fn;
	void *arg;
	int stop;
	struct ktls_sock cur;
	int is_tls;
};

static void addr_str(char *out, size_t cap, int family, const __be32 *a, __be16 port)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, a, ip, sizeof(ip));
	if (family == AF_INET6)
		snprintf(out, cap, "[%s]:%u", ip, ntohs(port));
	else
		snprintf(out, cap, "%s:%u", ip, ntohs(port));
}

static int tls_attr(const struct nlattr *a, void *data)
{
	struct walk *w = data;

	switch (mnl_attr_get_type(a)) {
	case TLS_INFO_VERSION:
		if (mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			w->cur.version = mnl_attr_get_u16(a);
		break;
	case TLS_INFO_CIPHER:
		if (mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			w->cur.cipher = mnl_attr_get_u16(a);
		break;
	case TLS_INFO_TXCONF:
		if (mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			w->cur.txconf = mnl_attr_get_u16(a);
		break;
	case TLS_INFO_RXCONF:
		if (mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			w->cur.rxconf = mnl_attr_get_u16(a);
		break;
	case TLS_INFO_ZC_RO_TX: w->cur.zc_ro_tx = 1; break;
	case TLS_INFO_RX_NO_PAD: w->cur.rx_no_pad = 1; break;
	default: break;
	}
	return MNL_CB_OK;
}

static int ulp_attr(const struct nlattr *a, void *data)
{
	struct walk *w = data;

	if (mnl_attr_get_type(a) == INET_ULP_INFO_NAME &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		w->is_tls = strcmp(mnl_attr_get_str(a), "tls") == 0;
	else if (mnl_attr_get_type(a) == INET_ULP_INFO_TLS)
		mnl_attr_parse_nested(a, tls_attr, w);
	return MNL_CB_OK;
}

static int diag_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == INET_DIAG_ULP_INFO)
		mnl_attr_parse_nested(a, ulp_attr, data);
	return MNL_CB_OK;
}

static int on_msg(const struct nlmsghdr *nlh, void *data)
{
	struct walk *w = data;
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return MNL_CB_ERROR;
	memset(&w->cur, 0, sizeof(w->cur));
	w->is_tls = 0;
	mnl_attr_parse(nlh, sizeof(*m), diag_attr, w);
	if (!w->is_tls)
		return MNL_CB_OK;
	w->cur.family = m->idiag_family;
	w->cur.inode = m->idiag_inode;
	addr_str(w->cur.local, sizeof(w->cur.local), m->idiag_family, m->id.idiag_src,
		 m->id.idiag_sport);
	addr_str(w->cur.peer, sizeof(w->cur.peer), m->idiag_family, m->id.idiag_dst,
		 m->id.idiag_dport);
	w->stop = w->fn(w->arg, &w->cur);
	return w->stop ? MNL_CB_STOP : MNL_CB_OK;
}

static int dump_family(struct mnl_socket *nl, int family, struct walk *w)
{
	/* 32 KiB: more than MNL_SOCKET_BUFFER_SIZE (a page, at most 8 KiB) */
	union {
		char buf[32768];
		struct nlmsghdr align;
	} u;
	char *buf = u.buf;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct inet_diag_req_v2 *req;
	unsigned seq = 1, portid = mnl_socket_get_portid(nl);
	ssize_t n;
	int rc = MNL_CB_OK;

	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = (uint8_t)family;
	req->sdiag_protocol = IPPROTO_TCP;
	req->idiag_states = ~0u;
	req->idiag_ext = 1u << (INET_DIAG_INFO - 1);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return HS_ERR_INTERNAL;
	while ((n = mnl_socket_recvfrom(nl, buf, sizeof(u.buf))) > 0) {
		rc = mnl_cb_run(buf, (size_t)n, seq, portid, on_msg, w);
		if (rc <= MNL_CB_STOP)
			break;
	}
	if (n < 0 || rc == MNL_CB_ERROR)
		return errno == ENOENT || errno == EOPNOTSUPP ? HS_ERR_UNSUPPORTED
							     : HS_ERR_INTERNAL;
	return 0;
}

int ktls_list(ktls_sock_fn fn, void *arg)
{
	struct walk w = { .fn = fn, .arg = arg };
	struct mnl_socket *nl = mnl_socket_open(NETLINK_SOCK_DIAG);
	int err = 0;

	if (!nl)
		return HS_ERR_UNSUPPORTED;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		err = HS_ERR_INTERNAL;
	if (!err)
		err = dump_family(nl, AF_INET, &w);
	/* IPv6 may be absent (a module not loaded): that is not an error */
	if (!err && !w.stop && dump_family(nl, AF_INET6, &w) == HS_ERR_INTERNAL)
		err = HS_ERR_INTERNAL;
	mnl_socket_close(nl);
	return err ? err : w.stop;
}

int ktls_stat(ktls_stat_fn fn, void *arg)
{
	FILE *f = fopen("/proc/net/tls_stat", "r");
	char name[64];
	unsigned long long v;
	int rc = 0;

	if (!f)
		return HS_ERR_UNSUPPORTED;
	while (rc == 0 && fscanf(f, "%63s %llu", name, &v) == 2)
		rc = fn(arg, name, v);
	fclose(f);
	return rc;
}
