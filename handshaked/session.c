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

#include "base/err.h"
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

/*
 * The system roots, for a role whose configuration names no trust store.
 * Their absence (a minimal root without ca-certificates) is no reason not
 * to start, as with tlshd: the store stays NULL, cr->warning says why, and
 * only the handshakes that would need them fail (configure()).
 */
static void load_system_store(struct hsd_creds *cr, struct hs_x509_store **out)
{
	if (load_store("", out, cr->warning, sizeof(cr->warning)) != 0) {
		hs_x509_store_free(*out);
		*out = NULL;
	}
}

int hsd_creds_load(const struct hsd_conf *c, struct hsd_creds *cr, char *why, size_t cap)
{
	int err = 0;

	memset(cr, 0, sizeof(*cr));
	if (c->client.truststore[0])
		err = load_store(c->client.truststore, &cr->client_trust, why, cap);
	else
		load_system_store(cr, &cr->client_trust);
	if (err == 0 && c->server.truststore[0])
		err = load_store(c->server.truststore, &cr->server_trust, why, cap);
	/* a server upcall in x509 mode asks for a client certificate: checked against
	 * the server's trust store, else the system roots (tlshd's rule) */
	if (err == 0 && cr->server_trust != NULL) {
		cr->upcall_client_trust = cr->server_trust;
	} else if (err == 0 && c->client.truststore[0] == '\0') {
		cr->upcall_client_trust = cr->client_trust; /* already the system roots */
	} else if (err == 0) {
		load_system_store(cr, &cr->upcall_client_trust);
		cr->upcall_client_trust_owned = cr->upcall_client_trust != NULL;
	}
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
	if (cr->upcall_client_trust_owned)
		hs_x509_store_free(cr->upcall_client_trust);
	memset(cr, 0, sizeof(*cr));
}

int64_t hsd_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static double now_ms_frac(void)
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

struct hsd_session {
	int fd;                 /* the requester's socket (ours to use, not to close) */
	int client;
	uint32_t auth;          /* the request's (enum hsd_auth) */
	int handoff;            /* an application's hand-off: no DONE, no remote identity */
	int32_t psk_serial;     /* the PSK's key (auth PSK): named, or found by identity */
	int32_t keyring;        /* the upcall's keyring, where a server finds the PSK */
	struct hs_conn *c;
	struct hs_cred *own;    /* a credential the kernel named by serial */
	/* the engine keeps cfg and what it points to for the connection's life */
	struct hs_config cfg;
	const struct hs_cred *creds[1];
	char alpn_buf[256], *alpn[16], identity[256], peername[256];
	uint8_t psk[128];       /* wiped at free */
	uint8_t *out;           /* pulled from the engine, not yet sent */
	size_t out_len, out_off;
	int64_t deadline;
	double t0;
};

int64_t hsd_session_deadline(const struct hsd_session *s) { return s->deadline; }

/* hs_config.psk_find for a server in PSK mode: the key the identity names. */
static int find_psk(void *arg, const uint8_t *identity, size_t identity_len, uint8_t *key,
		    size_t cap, size_t *key_len)
{
	struct hsd_session *s = arg;
	int32_t k = hsd_key_psk_find(s->keyring, identity, identity_len, key, cap, key_len);

	if (k <= 0)
		return -1;
	s->psk_serial = k; /* DONE's remote identity: the PSK both sides used */
	return 0;
}

/* Configure the engine from the request; 0 or a fail()ed res. */
static int configure(struct hsd_session *s, const struct hsd_creds *cr, const struct hsd_req *req,
		     struct hsd_result *res)
{
	struct hs_config *cfg = &s->cfg;
	size_t psk_len = 0;
	int err;

	cfg->role = s->client ? HS_ROLE_CLIENT : HS_ROLE_SERVER;
	if (req->auth == HSD_AUTH_PSK && !s->client && req->n_peerids == 0) {
		/* an NVMe target: the client's identity names the key (keyring lookup) */
		s->keyring = req->keyring;
		cfg->psk_find = find_psk;
		cfg->psk_find_arg = s;
	} else if (req->auth == HSD_AUTH_PSK) {
		if (req->n_peerids == 0 ||
		    hsd_key_psk(req->peerids[0], s->psk, sizeof(s->psk), &psk_len, s->identity,
				sizeof(s->identity)) != 0)
			return fail(res, ENOKEY, "no usable PSK key", NULL), -1;
		cfg->psk = s->psk;
		cfg->psk_len = psk_len;
		cfg->psk_identity = (const uint8_t *)s->identity;
		cfg->psk_identity_len = strlen(s->identity);
	} else if (req->auth == HSD_AUTH_X509 && req->cert_serial > 0 && req->key_serial > 0) {
		if (hsd_key_cred(req->cert_serial, req->key_serial, &s->own) != 0)
			return fail(res, ENOKEY, "the certificate or key the kernel named", NULL), -1;
	}
	if (s->client) {
		cfg->server_name = s->peername[0] ? s->peername : NULL;
		cfg->trust = cr->client_trust;
		if (cfg->server_name == NULL && req->auth != HSD_AUTH_PSK)
			cfg->insecure = 1; /* no name to check: the chain alone cannot say who it is */
		if (cfg->trust == NULL && !cfg->insecure && req->auth != HSD_AUTH_PSK)
			return fail(res, ENOKEY, "no trust store for the server's chain", cr->warning), -1;
		/* unauth (xprtsec=tls): no client certificate, even if one is configured */
		s->creds[0] = s->own != NULL ? s->own : req->auth == HSD_AUTH_UNAUTH ? NULL : cr->client_cred;
	} else {
		s->creds[0] = s->own != NULL ? s->own : cr->server_cred;
		if (!req->handoff && req->auth == HSD_AUTH_X509) {
			/* the kernel's x509 server (knfsd): ask for a client certificate; DONE
			 * then says whether one was checked (xprtsec=mtls exports need one) */
			cfg->client_trust = cr->upcall_client_trust;
			cfg->verify_client = cfg->client_trust != NULL ? HS_VERIFY_REQUEST : HS_VERIFY_NONE;
		} else {
			cfg->client_trust = cr->server_trust;
			cfg->verify_client = cr->server_trust != NULL ? HS_VERIFY_REQUEST : HS_VERIFY_NONE;
		}
		if (s->creds[0] == NULL && req->auth != HSD_AUTH_PSK)
			return fail(res, ENOKEY, "no server certificate configured", NULL), -1;
	}
	if (s->creds[0] != NULL && s->client) {
		cfg->cred = s->creds[0]; /* a client answers a CertificateRequest with cred */
	} else if (s->creds[0] != NULL) {
		cfg->creds = s->creds;
		cfg->n_creds = 1;
	}
	if (req->alpn[0] != '\0' && split_alpn(req->alpn, s->alpn_buf, s->alpn, &cfg->n_alpn) != 0)
		return fail(res, EINVAL, "bad ALPN list", req->alpn), -1;
	cfg->alpn = cfg->n_alpn > 0 ? (const char *const *)s->alpn : NULL;
	err = hs_conn_new(&s->c, cfg);
	if (err) {
		res->err = err;
		return fail(res, EIO, "handshake", hs_strerror(err)), -1;
	}
	return 0;
}

struct hsd_session *hsd_session_start(const struct hsd_creds *cr, const struct hsd_req *req,
				      struct hsd_result *res)
{
	struct hsd_session *s;

	memset(res, 0, sizeof(*res));
	res->alert = -1;
	if (req->malformed)
		return fail(res, EINVAL, "malformed request", NULL), NULL;
	if (!is_tcp(req->fd))
		return fail(res, EINVAL, "not a TCP socket", NULL), NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return fail(res, ENOMEM, "out of memory", NULL), NULL;
	s->fd = req->fd;
	s->auth = req->auth;
	s->handoff = req->handoff;
	s->psk_serial = req->n_peerids > 0 ? req->peerids[0] : 0;
	snprintf(s->peername, sizeof(s->peername), "%s", req->peername);
	s->client = req->msg_type == HSD_MSG_CLIENTHELLO;
	s->t0 = now_ms_frac();
	s->deadline = hsd_now_ms() + (req->timeout_ms ? req->timeout_ms : DEFAULT_TIMEOUT_MS);
	if (configure(s, cr, req, res) != 0) {
		hsd_session_free(s);
		return NULL;
	}
	return s;
}

void hsd_session_free(struct hsd_session *s)
{
	if (s == NULL)
		return;
	hs_conn_free(s->c);
	hs_cred_free(s->own);
	wipe(s->psk, sizeof(s->psk));
	if (s->out != NULL) {
		wipe(s->out, s->out_len);
		free(s->out);
	}
	free(s);
}

/* The engine's failure into res: the peer's alert, else the one we sent. */
static void engine_failed(struct hsd_session *s, int err, struct hsd_result *res)
{
	res->err = err;
	res->alert = hs_conn_alert(s->c, 1) >= 0 ? hs_conn_alert(s->c, 1) : hs_conn_alert(s->c, 0);
	fail(res, status_of(err), "handshake",
	     hs_conn_error_detail(s->c) ? hs_conn_error_detail(s->c) : hs_strerror(err));
	res->ms = now_ms_frac() - s->t0;
}

/* Send what the engine has queued: 0 (all out), HS_ERR_WANT_WRITE, or an error. */
static int flush(struct hsd_session *s)
{
	for (;;) {
		size_t pending;
		ssize_t w;

		if (s->out_off == s->out_len) {
			pending = hs_conn_output_pending(s->c);
			if (s->out != NULL) {
				free(s->out); /* records only: nothing secret */
				s->out = NULL;
			}
			s->out_len = s->out_off = 0;
			if (pending == 0)
				return 0;
			s->out = malloc(pending);
			if (s->out == NULL)
				return HS_ERR_NOMEM;
			TRY(hs_conn_pull(s->c, s->out, pending, &s->out_len));
		}
		w = send(s->fd, s->out + s->out_off, s->out_len - s->out_off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return HS_ERR_WANT_WRITE;
		if (w < 0)
			return errno == ECONNRESET || errno == EPIPE ? HS_ERR_TLS_RESET : HS_ERR_TLS_IO;
		s->out_off += (size_t)w;
	}
}

/* Read at most what finishes the current record (never past the handshake) and feed it. */
static int receive(struct hsd_session *s)
{
	uint8_t buf[4096];
	size_t want = hs_conn_input_wanted(s->c), off = 0, used;
	ssize_t r;

	if (want > sizeof(buf))
		want = sizeof(buf);
	do
		r = recv(s->fd, buf, want, MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return HS_ERR_WANT_READ;
	if (r < 0)
		return errno == ECONNRESET ? HS_ERR_TLS_RESET : HS_ERR_TLS_IO;
	if (r == 0)
		return HS_ERR_TLS_CLOSED;
	while (off < (size_t)r) {
		int err = hs_conn_feed(s->c, buf + off, (size_t)r - off, &used);

		if (err == 0 && used == 0)
			err = HS_ERR_INTERNAL; /* cannot happen: no more than one record was read */
		if (err)
			return err;
		off += used;
	}
	return 0;
}

/*
 * DONE's remote-auth for a kernel upcall, once the socket is on kernel TLS
 * (leaf: the server's certificate, copied before the hand-off).
 */
static void remote_identity(const struct hsd_session *s, const uint8_t *leaf, size_t leaf_len,
			    struct hsd_result *res)
{
	int32_t k;

	if (s->handoff)
		return;
	if (s->auth == HSD_AUTH_PSK && s->psk_serial > 0) {
		res->remote[res->n_remote++] = s->psk_serial; /* the PSK both sides used */
	} else if (s->client && leaf != NULL) {
		k = hsd_key_peer_cert(leaf, leaf_len, s->peername);
		if (k > 0)
			res->remote[res->n_remote++] = k;
	} else if (!s->client && hs_conn_peer_cert_count(s->c) > 0) {
		res->remote[res->n_remote++] = HSD_PEER_AUTHENTICATED;
	}
}

/* Handshake done and flushed: kernel TLS both ways. */
static void install(struct hsd_session *s, struct hsd_result *res)
{
	struct hs_ktls *k = aligned_alloc(64, HS_KTLS_SIZE);
	const uint8_t *p;
	uint8_t *leaf = NULL;
	size_t leaf_len = 0;
	int err;

	/* the server's certificate, when its chain and name were checked */
	if (s->client && !s->cfg.insecure && s->auth != HSD_AUTH_PSK && !s->handoff &&
	    (p = hs_conn_peer_cert(s->c, 0, &leaf_len)) != NULL && (leaf = malloc(leaf_len)) != NULL)
		memcpy(leaf, p, leaf_len);

	res->suite = hs_conn_suite(s->c);
	res->peer_cert = hs_conn_peer_cert_count(s->c) > 0;
	snprintf(res->alpn, sizeof(res->alpn), "%s", hs_conn_alpn(s->c) ? hs_conn_alpn(s->c) : "");
	snprintf(res->sni, sizeof(res->sni), "%s",
		 !s->client && hs_conn_server_name(s->c) ? hs_conn_server_name(s->c) : "");
	err = k == NULL ? HS_ERR_NOMEM : hs_ktls_attach(k, s->c, s->fd, HS_KTLS_F_KERNEL_ONLY);
	if (err) {
		fail(res, EOPNOTSUPP, "kernel TLS", k != NULL ? hs_ktls_reason(k, 0) : "out of memory");
	} else {
		hs_ktls_detach_engine(k);
		res->ktls = 1;
		remote_identity(s, leaf, leaf_len, res);
	}
	free(leaf);
	if (k != NULL) {
		hs_ktls_wipe(k);
		free(k);
	}
	res->ms = now_ms_frac() - s->t0;
}

enum hsd_step hsd_session_step(struct hsd_session *s, struct hsd_result *res)
{
	int err;

	memset(res, 0, sizeof(*res));
	res->alert = -1;
	for (;;) {
		err = flush(s);
		if (hs_conn_error(s->c) != 0) { /* its alert went out with what the socket took */
			engine_failed(s, hs_conn_error(s->c), res);
			return HSD_STEP_DONE;
		}
		if (err == HS_ERR_WANT_WRITE)
			return HSD_STEP_WRITE;
		if (err == 0 && hs_conn_handshake_done(s->c)) {
			install(s, res);
			return HSD_STEP_DONE;
		}
		if (err == 0)
			err = receive(s);
		if (err == HS_ERR_WANT_READ)
			return HSD_STEP_READ;
		if (err != 0 && hs_conn_error(s->c) == 0) { /* the socket: closed, reset */
			engine_failed(s, err, res);
			return HSD_STEP_DONE;
		}
		/* an engine error queued its alert: the next round sends it and reports */
	}
}

void hsd_session_expire(struct hsd_session *s, struct hsd_result *res)
{
	memset(res, 0, sizeof(*res));
	res->alert = -1;
	res->err = HS_ERR_TLS_TIMEOUT;
	fail(res, ETIMEDOUT, "handshake", hs_strerror(HS_ERR_TLS_TIMEOUT));
	res->ms = now_ms_frac() - s->t0;
}
