/*
 * One handshake for one request. The socket stays the requester's: on
 * success it is on kernel TLS (TLS_TX and TLS_RX, our engine's sequence
 * numbers, nothing read past the handshake), on failure the caller reports
 * the error and the requester closes it. Secrets (a PSK read from a key,
 * the engine's keys, the kTLS object) are wiped before returning.
 */
#define _GNU_SOURCE
#include "handshaked/session.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "base/wipe.h"
#include "handshaked/keys.h"
#include "hs/cred.h"
#include "hs/fd.h"
#include "hs/ktls.h"
#include "hs/tls.h"
#include "hs/x509.h"

#define DEFAULT_TIMEOUT_MS 10000

static int load_store(const char *path, struct hs_x509_store **out, char *why, size_t cap)
{
	int err = hs_x509_store_new(out);

	if (err == 0)
		err = path[0] ? hs_x509_store_load_file(*out, path) : hs_x509_store_load_default(*out);
	if (err)
		snprintf(why, cap, "trust store %s: %s", path[0] ? path : "(system)",
			 hs_load_error_detail() ? hs_load_error_detail() : hs_strerror(err));
	return err;
}

static int load_cred(const struct hsd_role_conf *r, struct hs_cred **out, char *why, size_t cap)
{
	int err;

	if (r->certificate[0] == '\0' && r->private_key[0] == '\0')
		return 0;
	err = hs_cred_load_files(out, r->certificate, r->private_key);
	if (err)
		snprintf(why, cap, "%s", hs_load_error_detail() ? hs_load_error_detail() : hs_strerror(err));
	return err;
}

int hsd_creds_load(const struct hsd_conf *c, struct hsd_creds *cr, char *why, size_t cap)
{
	int err;

	memset(cr, 0, sizeof(*cr));
	err = load_store(c->client.truststore, &cr->client_trust, why, cap);
	if (err == 0 && c->server.truststore[0])
		err = load_store(c->server.truststore, &cr->server_trust, why, cap);
	if (err == 0)
		err = load_cred(&c->client, &cr->client_cred, why, cap);
	if (err == 0)
		err = load_cred(&c->server, &cr->server_cred, why, cap);
	if (err)
		hsd_creds_free(cr);
	return err;
}

void hsd_creds_free(struct hsd_creds *cr)
{
	hs_cred_free(cr->client_cred);
	hs_cred_free(cr->server_cred);
	hs_x509_store_free(cr->client_trust);
	hs_x509_store_free(cr->server_trust);
	memset(cr, 0, sizeof(*cr));
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The errno DONE carries for an hs error (the consumer sees it negated). */
static int status_of(int err)
{
	switch (err) {
	case HS_ERR_TLS_TIMEOUT: return ETIMEDOUT;
	case HS_ERR_TLS_CERT_UNTRUSTED:
	case HS_ERR_TLS_CERT_NAME:
	case HS_ERR_TLS_BAD_CERT:
	case HS_ERR_TLS_BAD_CERT_VERIFY:
	case HS_ERR_TLS_CERT_REQUIRED:
	case HS_ERR_TLS_BAD_BINDER:
	case HS_ERR_TLS_PEER_ALERT: return EACCES;
	case HS_ERR_TLS_RESET:
	case HS_ERR_TLS_CLOSED: return ECONNRESET;
	default: return EIO;
	}
}

static int is_tcp(int fd)
{
	int type = 0, proto = 0;
	socklen_t len = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
		return 0;
	len = sizeof(proto);
	return getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) == 0 && proto == IPPROTO_TCP;
}

static void fail(struct hsd_result *res, int status, const char *what, const char *detail)
{
	res->status = status;
	if (res->err == 0)
		res->err = status == ETIMEDOUT ? HS_ERR_TLS_TIMEOUT
			 : status == EOPNOTSUPP ? HS_ERR_UNSUPPORTED
			 : status == ENOKEY	? HS_ERR_TLS_NO_CERT
			 : status == EINVAL	? HS_ERR_ARG
						: HS_ERR_TLS_IO;
	snprintf(res->detail, sizeof(res->detail), "%s%s%.200s", what, detail ? ": " : "",
		 detail ? detail : "");
}

/* "h2,http/1.1" into buf (NULs in place of the commas) and the list (at most 16) */
static int split_alpn(const char *list, char *buf, char **out, size_t *n)
{
	char *save = NULL;

	snprintf(buf, 256, "%s", list);
	*n = 0;
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		if (*n == 16 || *t == '\0' || strlen(t) > 255)
			return -1;
		out[(*n)++] = t;
	}
	return *n > 0 ? 0 : -1;
}

void hsd_session_run(const struct hsd_creds *cr, const struct hsd_req *req, struct hsd_result *res)
{
	const int client = req->msg_type == HSD_MSG_CLIENTHELLO;
	struct hs_config cfg = { .role = client ? HS_ROLE_CLIENT : HS_ROLE_SERVER };
	const struct hs_cred *creds[1];
	struct hs_cred *own = NULL;
	struct hs_conn *c = NULL;
	struct hs_ktls *k = NULL;
	char alpn_buf[256], *alpn[16];
	uint8_t psk[128];
	size_t psk_len = 0;
	char identity[256];
	double t0 = now_ms();
	int err;

	memset(res, 0, sizeof(*res));
	res->alert = -1;
	if (req->malformed)
		return fail(res, EINVAL, "malformed request", NULL);
	if (!is_tcp(req->fd))
		return fail(res, EINVAL, "not a TCP socket", NULL);
	if (req->auth == HSD_AUTH_PSK) {
		if (req->n_peerids == 0 || hsd_key_psk(req->peerids[0], psk, sizeof(psk), &psk_len,
						       identity, sizeof(identity)) != 0)
			return fail(res, ENOKEY, "no usable PSK key", NULL);
		cfg.psk = psk;
		cfg.psk_len = psk_len;
		cfg.psk_identity = (const uint8_t *)identity;
		cfg.psk_identity_len = strlen(identity);
	} else if (req->auth == HSD_AUTH_X509 && req->cert_serial > 0 && req->key_serial > 0) {
		if (hsd_key_cred(req->cert_serial, req->key_serial, &own) != 0)
			return fail(res, ENOKEY, "the certificate or key the kernel named", NULL);
	}
	if (client) {
		cfg.server_name = req->peername[0] ? req->peername : NULL;
		cfg.trust = cr->client_trust;
		if (cfg.server_name == NULL && req->auth != HSD_AUTH_PSK)
			cfg.insecure = 1; /* no name to check: the chain alone cannot say who it is */
		creds[0] = own != NULL ? own : cr->client_cred;
	} else {
		creds[0] = own != NULL ? own : cr->server_cred;
		cfg.client_trust = cr->server_trust;
		cfg.verify_client = cr->server_trust != NULL ? HS_VERIFY_REQUEST : HS_VERIFY_NONE;
		if (creds[0] == NULL && req->auth != HSD_AUTH_PSK) {
			hs_cred_free(own);
			return fail(res, ENOKEY, "no server certificate configured", NULL);
		}
	}
	if (creds[0] != NULL) {
		cfg.creds = creds;
		cfg.n_creds = 1;
	}
	if (req->alpn[0] != '\0' && split_alpn(req->alpn, alpn_buf, alpn, &cfg.n_alpn) != 0) {
		hs_cred_free(own);
		return fail(res, EINVAL, "bad ALPN list", req->alpn);
	}
	cfg.alpn = cfg.n_alpn > 0 ? (const char *const *)alpn : NULL;
	err = hs_conn_new(&c, &cfg);
	if (err == 0)
		err = hs_fd_handshake_deadline(c, req->fd,
					       req->timeout_ms ? req->timeout_ms : DEFAULT_TIMEOUT_MS);
	if (err) {
		res->err = err;
		if (c != NULL) /* the peer's alert, else the one we sent */
			res->alert = hs_conn_alert(c, 1) >= 0 ? hs_conn_alert(c, 1) : hs_conn_alert(c, 0);
		fail(res, status_of(err), "handshake",
		     c != NULL && hs_conn_error_detail(c) ? hs_conn_error_detail(c) : hs_strerror(err));
		goto out;
	}
	res->suite = hs_conn_suite(c);
	res->peer_cert = hs_conn_peer_cert_count(c) > 0;
	snprintf(res->alpn, sizeof(res->alpn), "%s", hs_conn_alpn(c) ? hs_conn_alpn(c) : "");
	snprintf(res->sni, sizeof(res->sni), "%s",
		 !client && hs_conn_server_name(c) ? hs_conn_server_name(c) : "");
	k = aligned_alloc(64, HS_KTLS_SIZE);
	err = k == NULL ? HS_ERR_NOMEM : hs_ktls_attach(k, c, req->fd, HS_KTLS_F_KERNEL_ONLY);
	if (err) {
		fail(res, EOPNOTSUPP, "kernel TLS", k != NULL ? hs_ktls_reason(k, 0) : "out of memory");
		goto out;
	}
	hs_ktls_detach_engine(k);
	res->ktls = 1;
out:
	if (k != NULL) {
		hs_ktls_wipe(k);
		free(k);
	}
	hs_conn_free(c);
	hs_cred_free(own);
	wipe(psk, sizeof(psk));
	res->ms = now_ms() - t0;
}
