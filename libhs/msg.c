/*
 * Handshake messages shared by both sides (RFC 8446 4.4, 4.6):
 * Certificate, CertificateVerify, Finished, KeyUpdate, NewSessionTicket.
 * Builders write through writer into handshake_out (msg_begin/end add them
 * to the transcript); parsers read through reader only.
 *
 * Implementation notes: the Finished comparison is constant time
 * (ct_memneq); the CertificateVerify input is rebuilt in a stack buffer
 * that holds only public data. The peer's SubjectPublicKeyInfo is copied
 * out of the message buffer (which is reused) into the connection, and
 * the peer's chain (public) into peer_certs (conn_keep_peer_cert) for
 * hs_conn_peer_cert().
 * Certificate parsing serves both sides: a client checks the server's
 * chain (pin, trust, name), a server the client's (client_trust,
 * clientAuth, no name; an empty list only in request mode).
 */
#include "libhs/internal.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/rsa.h"
#include "hs/x509.h"

int msg_body(const uint8_t *msg, size_t len, struct reader *body)
{
	struct reader r = reader_init(msg, len);

	TRY(read_skip(&r, 4));
	*body = r;
	return 0;
}

/* ---- Finished (4.4.4) ---- */

int build_finished(struct hs_conn *c, const uint8_t *base_secret)
{
	struct writer w;
	struct writer_vec v;
	const struct hash *h = c->suite->hash();
	uint8_t th[HASH_MAX], mac[HASH_MAX];

	transcript_hash(&c->hs->tr, th);
	TRY(keysched_finished(h, base_secret, th, mac));
	msg_begin(c, HT_FINISHED, &w, &v);
	write_bytes(&w, mac, h->digest_len);
	wipe(mac, sizeof(mac));
	return msg_end(c, &w, &v);
}

int check_finished(struct hs_conn *c, const uint8_t *base_secret, const uint8_t *msg,
		      size_t len)
{
	const struct hash *h = c->suite->hash();
	uint8_t th[HASH_MAX], mac[HASH_MAX];
	struct reader body;
	uint32_t diff;

	TRY(msg_body(msg, len, &body));
	ENSURE(reader_left(&body) == h->digest_len, HS_ERR_TLS_DECODE);
	transcript_hash(&c->hs->tr, th);
	TRY(keysched_finished(h, base_secret, th, mac));
	/* constant time: the expected MAC is secret until compared */
	diff = ct_memneq(mac, body.p, h->digest_len);
	wipe(mac, sizeof(mac));
	return diff ? HS_ERR_TLS_BAD_FINISHED : 0;
}

/* ---- Certificate (4.4.2) ---- */

int build_certificate(struct hs_conn *c, const struct hs_cred *cred, const uint8_t *ctx,
			 size_t ctx_len)
{
	struct writer w;
	struct writer_vec v, cv, list, one;

	msg_begin(c, HT_CERTIFICATE, &w, &v);
	write_vec_open(&w, 1, &cv);
	write_bytes(&w, ctx, ctx_len);
	write_vec_close(&w, &cv);
	write_vec_open(&w, 3, &list);
	for (size_t i = 0; cred != NULL && i < cred->n_certs; i++) {
		write_vec_open(&w, 3, &one);
		write_bytes(&w, cred->cert[i], cred->cert_len[i]);
		write_vec_close(&w, &one);
		write_u16(&w, 0); /* no per-certificate extensions */
	}
	write_vec_close(&w, &list);
	return msg_end(c, &w, &v);
}

/* RSA leaves: 2048 to 4096 bits (a test's verify hook may take RFC 8448's 1024) */
static int check_rsa_leaf(const struct hs_conn *c)
{
	const uint8_t *key;
	size_t key_len, bits;

	if (x509_rsa_key(c->hs->peer.spki, c->hs->peer.spki_len, &key, &key_len, &bits) != 0)
		return HS_ERR_TLS_BAD_CERT;
	ENSURE(bits >= HS_RSA_MIN_BITS || (test_hooks(c) != NULL && test_hooks(c)->verify != NULL),
	       HS_ERR_TLS_UNSUPPORTED_CERT);
	return 0;
}

static int check_leaf(struct hs_conn *c, const struct x509_cert *leaf)
{
	const struct hs_config *cfg = c->cfg;

	if (c->hs->peer.type == KEY_NONE)
		return HS_ERR_TLS_UNSUPPORTED_CERT;
	if (c->hs->peer.type == KEY_RSA)
		TRY(check_rsa_leaf(c));
	/* a server validates a client's chain in verify_chain() only */
	if (c->role == HS_ROLE_SERVER || cfg->insecure)
		return 0;
	/* the pin: the leaf must be exactly the configured certificate */
	if (cfg->anchor_der != NULL && (cfg->anchor_len != leaf->der.len ||
					memcmp(cfg->anchor_der, leaf->der.p, leaf->der.len) != 0)) {
		conn_detail(c, "the server's certificate is not the pinned one (anchor_der)");
		return HS_ERR_TLS_CERT_UNTRUSTED;
	}
	/* with a trust store, verify_chain() checks the name */
	if (cfg->server_name != NULL && cfg->trust == NULL &&
	    x509_match_host(leaf, cfg->server_name) != 0) {
		conn_detail(c, "the server's certificate is not valid for %s", cfg->server_name);
		return HS_ERR_TLS_CERT_NAME;
	}
	return 0;
}

/* Say which certificate of the path failed path validation, and why. */
static int chain_detail(struct hs_conn *c, int err, int depth)
{
	const char *who = c->role == HS_ROLE_CLIENT ? "server" : "client";

	if (err == 0)
		return 0;
	if (depth < 0)
		conn_detail(c, "the %s's certificate chain leads to no trusted root: %s", who,
			    hs_strerror(err));
	else if (err == HS_ERR_X509_HOSTNAME)
		conn_detail(c, "the %s's certificate (depth 0) is not valid for %s", who,
			    c->cfg->server_name);
	else
		conn_detail(c, "the %s's certificate at depth %d (0 = its own, 1 = its issuer, ...)"
			    " failed validation: %s", who, depth, hs_strerror(err));
	return err;
}

/*
 * Path validation against the configured trust store (include/hs/x509.h):
 * a client checks the server's chain (serverAuth, server_name) against
 * trust; a server the client's (clientAuth, no name) against client_trust.
 */
static int verify_chain(struct hs_conn *c, const struct x509_cert *leaf,
			const uint8_t *const *der, const size_t *len, size_t n)
{
	const struct hs_config *cfg = c->cfg;
	struct hs_x509_verify_opts o = {
		.purpose = HS_X509_SERVER_AUTH,
		.host = cfg->server_name,
		.time = cfg->verify_time,
	};
	int depth, err;

	if (c->role == HS_ROLE_SERVER) {
		o.purpose = HS_X509_CLIENT_AUTH;
		o.host = NULL;
		if (cfg->client_trust == NULL)
			return HS_ERR_X509_NO_ANCHORS; /* verify_cert decides */
		err = x509_verify_leaf(cfg->client_trust, leaf, der, len, n, &o, &depth);
		return chain_detail(c, err, depth);
	}
	if (cfg->insecure || cfg->trust == NULL)
		return cfg->insecure || cfg->anchor_der != NULL ? 0 : HS_ERR_X509_NO_ANCHORS;
	err = x509_verify_leaf(cfg->trust, leaf, der, len, n, &o, &depth);
	return chain_detail(c, err, depth);
}

/* Copy certificate number i of the peer's chain into the connection
 * (hs_conn_peer_cert); stops at the first that does not fit. */
static int keep_cert(struct hs_conn *c, size_t i, const struct reader *cert)
{
	size_t off = c->peer_certs_len;
	int kept;

	if (i != c->peer_n || i >= PEER_MAX_CERTS)
		return 0;
	kept = conn_keep_peer_cert(c, cert->p, cert->len);
	if (kept <= 0)
		return kept;
	c->peer_off[i] = off;
	c->peer_len[i] = cert->len;
	c->peer_n++;
	return 0;
}

/* 4.4.2: the certificate_request_context: empty for a server's
 * Certificate, our CertificateRequest's for a client's. */
static int check_cert_context(const struct hs_conn *c, const struct reader *ctx)
{
	if (c->role == HS_ROLE_CLIENT)
		ENSURE(ctx->len == 0, HS_ERR_TLS_ILLEGAL_PARAM);
	else
		ENSURE(ctx->len == c->hs->cr_context_len &&
			       (ctx->len == 0 || memcmp(ctx->p, c->hs->cr_context, ctx->len) == 0),
		       HS_ERR_TLS_ILLEGAL_PARAM);
	return 0;
}

/*
 * One CertificateEntry: cert_data, then its extensions. 4.4.2: "Extensions
 * in the Certificate message from the server MUST correspond to ones from
 * the ClientHello message. Extensions in the Certificate message from the
 * client MUST correspond to extensions in the CertificateRequest message
 * from the server." Neither our ClientHello nor our CertificateRequest
 * carries one that may appear here (status_request, SCT), so any is
 * unsupported_extension (4.2), after the block itself is well formed.
 */
static int read_entry(struct reader *list, struct reader *cert)
{
	struct ext_list exts;

	TRY(read_vec(list, 3, 1, 0xffffff, cert));
	TRY(ext_parse(list, &exts));
	ENSURE(exts.n == 0, HS_ERR_TLS_UNSOLICITED_EXT);
	return 0;
}

/* The leaf, parsed once: its key for CertificateVerify, the rest for the checks. */
static int read_leaf(struct hs_conn *c, struct reader *list, struct reader *cert,
		     struct x509_cert *leaf)
{
	int err;

	TRY(read_entry(list, cert));
	/* an unknown critical extension keeps its own error (and alert) */
	err = x509_cert_parse(leaf, cert->p, cert->len);
	ENSURE(err == 0 || err == HS_ERR_X509_UNKNOWN_CRITICAL, HS_ERR_TLS_BAD_CERT);
	TRY(err);
	ENSURE(x509_leaf_key(leaf, &c->hs->peer) == 0, HS_ERR_TLS_BAD_CERT);
	ENSURE(c->hs->peer.spki_len <= sizeof(c->hs->peer_spki), HS_ERR_TLS_BAD_CERT);
	/* keep the SPKI: the message buffer is reused */
	memcpy(c->hs->peer_spki, c->hs->peer.spki, c->hs->peer.spki_len);
	c->hs->peer.spki = c->hs->peer_spki;
	return check_leaf(c, leaf);
}

int parse_certificate(struct hs_conn *c, const uint8_t *msg, size_t len, size_t *n_certs)
{
	struct reader body, ctx, list, cert;
	struct x509_cert leaf;
	/* views into msg for verify_chain (the intermediates); certificates
	 * past the first HS_X509_MAX_CHAIN are read but not used for path building */
	const uint8_t *der[HS_X509_MAX_CHAIN];
	size_t der_len[HS_X509_MAX_CHAIN], n = 1;

	TRY(msg_body(msg, len, &body));
	TRY(read_vec(&body, 1, 0, 255, &ctx));
	TRY(read_vec(&body, 3, 0, 0xffffff, &list));
	TRY(read_end(&body));
	TRY(check_cert_context(c, &ctx));
	*n_certs = 0;
	if (reader_left(&list) == 0) {
		/* 4.4.2.4: an empty server Certificate -> decode_error */
		ENSURE(c->role == HS_ROLE_SERVER, HS_ERR_TLS_DECODE);
		/* "If the client does not send any certificates, the server
		 * MAY at its discretion either continue the handshake without
		 * client authentication, or abort the handshake with a
		 * "certificate_required" alert." */
		ENSURE(c->cfg->verify_client != HS_VERIFY_REQUIRE, HS_ERR_TLS_CERT_REQUIRED);
		return 0;
	}
	TRY(read_leaf(c, &list, &cert, &leaf));
	TRY(keep_cert(c, 0, &cert));
	der[0] = cert.p;
	der_len[0] = cert.len;
	for (size_t i = 1; reader_left(&list) > 0; i++) {
		TRY(read_entry(&list, &cert));
		TRY(keep_cert(c, i, &cert));
		if (n < HS_X509_MAX_CHAIN) {
			der[n] = cert.p;
			der_len[n++] = cert.len;
		}
	}
	*n_certs = n;
	return verify_hook(c, verify_chain(c, &leaf, der + 1, der_len + 1, n - 1), der, der_len, n);
}

/* ---- CertificateVerify (4.4.3) ---- */

static size_t cv_content(struct hs_conn *c, int server, uint8_t *out)
{
	static const char sctx[] = "TLS 1.3, server CertificateVerify";
	static const char cctx[] = "TLS 1.3, client CertificateVerify";
	size_t n = 0;

	_Static_assert(sizeof(sctx) == sizeof(cctx), "both contexts are 33 characters");
	memset(out, 0x20, 64);
	n = 64;
	memcpy(out + n, server ? sctx : cctx, sizeof(sctx)); /* with its 0 byte */
	n += sizeof(sctx);
	transcript_hash(&c->hs->tr, out + n);
	return n + c->suite->hash()->digest_len;
}

/*
 * The scheme to sign with: a server's was picked from the ClientHello's
 * signature_algorithms (server.c, one of several for an RSA key); else
 * the credential's own.
 */
static const struct sigscheme *cv_scheme(const struct hs_conn *c, const struct hs_cred *cred,
					 int server)
{
	if (server && c->sig != NULL && c->sig->key == cred->type)
		return c->sig;
	return sigscheme_find(cred->scheme);
}

static int cv_sign(const struct hs_conn *c, const struct hs_cred *cred,
		   const struct sigscheme *ss, const uint8_t *content, size_t n, uint8_t *sig,
		   size_t *sig_len)
{
#ifdef HS_TEST_HOOKS
	/* test hook: RSA-PSS with a given salt, to reproduce RFC 8448 */
	if (test_hooks(c) != NULL && test_hooks(c)->pss_salt != NULL && cred->type == KEY_RSA)
		return cred_sign_salt(cred, ss->id, test_hooks(c)->pss_salt,
					 test_hooks(c)->pss_salt_len, content, n, sig, sig_len);
#else
	(void)c;
#endif
	return ss->sig->sign(sig, sig_len, cred_sign_key(cred), cred->pub, content, n);
}

int build_cert_verify(struct hs_conn *c, const struct hs_cred *cred, int server)
{
	/* RSA signatures are the modulus' size, up to HS_RSA_MAX_LEN bytes */
	uint8_t content[64 + 34 + HASH_MAX], sig[HS_RSA_MAX_LEN];
	size_t n = cv_content(c, server, content), sig_len = sizeof(sig);
	struct writer w;
	struct writer_vec v, sv;
	const struct sigscheme *ss = cv_scheme(c, cred, server);

	ENSURE(ss != NULL, HS_ERR_TLS_NO_SHARED_SIGALG);
	if (server) /* hs_conn_sig_scheme() names the server's scheme */
		c->sig = ss;
	TRY(cv_sign(c, cred, ss, content, n, sig, &sig_len));
	msg_begin(c, HT_CERTIFICATE_VERIFY, &w, &v);
	write_u16(&w, ss->id);
	write_vec_open(&w, 2, &sv);
	write_bytes(&w, sig, sig_len);
	write_vec_close(&w, &sv);
	return msg_end(c, &w, &v);
}

/* The peer's key for ss: the point, or the RSAPublicKey inside the SPKI. */
static int peer_verify(const struct hs_conn *c, const struct sigscheme *ss,
		       const uint8_t *content, size_t n, const uint8_t *sig, size_t sig_len)
{
	const uint8_t *pub = c->hs->peer.pub;
	size_t pub_len = c->hs->peer.pub_len, bits;

	if (c->hs->peer.type == KEY_RSA)
		TRY(x509_rsa_key(c->hs->peer.spki, c->hs->peer.spki_len, &pub, &pub_len, &bits));
	return ss->sig->verify(pub, pub_len, content, n, sig, sig_len);
}

int check_cert_verify(struct hs_conn *c, const uint8_t *msg, size_t len, int server)
{
	uint8_t content[64 + 34 + HASH_MAX];
	struct reader body, sig;
	uint16_t scheme;
	const uint16_t *offered;
	const struct sigscheme *ss;
	size_t n_offered, n;

	TRY(msg_body(msg, len, &body));
	TRY(read_u16(&body, &scheme));
	TRY(read_vec(&body, 2, 0, 0xffff, &sig));
	TRY(read_end(&body));
	n = cv_content(c, server, content);
	const struct test_hooks *th = test_hooks(c);

	if (th != NULL && th->verify != NULL && scheme == th->extra_scheme) {
		/* test hook: a verifier for RFC 8448's 1024-bit RSA key */
		if (th->verify(scheme, c->hs->peer.spki, c->hs->peer.spki_len, content, n, sig.p,
				    sig.len) != 0)
			return HS_ERR_TLS_BAD_CERT_VERIFY;
		c->peer_verified = 1;
		return 0;
	}
	/* 4.4.3: the scheme MUST be one we offered (in signature_algorithms
	 * of our ClientHello or CertificateRequest) and fit the leaf's key */
	cfg_sigs(c->cfg, &offered, &n_offered);
	ss = sigscheme_find(scheme);
	ENSURE(ss != NULL && u16_in(offered, n_offered, scheme), HS_ERR_TLS_ILLEGAL_PARAM);
	ENSURE(ss->key == c->hs->peer.type, HS_ERR_TLS_ILLEGAL_PARAM);
	if (peer_verify(c, ss, content, n, sig.p, sig.len) != 0) {
		conn_detail(c, "the %s's CertificateVerify (%s) does not verify with its"
			    " certificate's key", server ? "server" : "client", ss->name);
		return HS_ERR_TLS_BAD_CERT_VERIFY;
	}
	if (server) /* hs_conn_sig_scheme() names the server's scheme */
		c->sig = ss;
	c->peer_verified = 1;
	return 0;
}

/* ---- KeyUpdate (4.6.3) ---- */

int on_key_update(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	struct reader body;
	uint8_t req;

	TRY(msg_body(msg, len, &body));
	TRY(read_u8(&body, &req));
	TRY(read_end(&body));
	/* "If an implementation receives any other value, it MUST terminate
	 * the connection with an illegal_parameter alert" */
	ENSURE(req <= 1, HS_ERR_TLS_BAD_KEY_UPDATE);
	/* a bounded number in a row without application data */
	ENSURE(++c->n_ku <= MAX_KEY_UPDATES, HS_ERR_TLS_TOO_MANY_RECORDS);
	/* 7.2: application_traffic_secret_N+1 replaces _N, which is gone */
	TRY(rec_next_secret(c->suite->hash(), c->rd->secret));
	TRY(set_read_key(c, c->rd->secret));
	conn_event(c, HS_EVENT_KEY_UPDATE);
	/* update_requested: answer with our own (update_not_requested) "prior
	 * to sending its next Application Data record" (4.6.3). While an
	 * answer is still queued unsent it serves every request since: one
	 * answer per batch, so a peer that does not read cannot fill out[]. */
	if (req == 1 && !c->we_closed && !ku_answer_pending(c))
		TRY(send_key_update(c, 0));
	return 0;
}

/* ---- NewSessionTicket (4.6.1): parsed, kept or dropped ---- */

/* 4.6.1: the ticket's PSK = HKDF-Expand-Label(resumption_master_secret,
 * "resumption", ticket_nonce, Hash.length); into the connection's session */
static int keep_ticket(struct hs_conn *c, struct reader ticket, struct reader nonce,
		       uint32_t lifetime, uint32_t age_add, uint32_t max_early)
{
	const struct hash *h = c->suite->hash();
	struct session_ticket t;
	int err;

	if (lifetime == 0) /* "indicates that the ticket should be discarded" */
		return 0;
	t.len = ticket.len;
	memcpy(t.ticket, ticket.p, ticket.len);
	t.lifetime = lifetime;
	t.age_add = age_add;
	t.recv_ms = resume_now_ms(c);
	t.psk_len = h->digest_len;
	t.used = 0;
	t.max_early = max_early; /* 4.2.10: 0-RTT with the ALPN and suite of now */
	memcpy(t.alpn, c->alpn, sizeof(t.alpn));
	err = ticket_psk(h, c->ks.res_master, nonce.p, nonce.len, t.psk);
	if (err == 0)
		session_add(&c->tickets->got, &t, c->suite->id);
	wipe(&t, sizeof(t));
	return err;
}

int on_ticket(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	struct reader body, nonce, ticket;
	struct ext_list exts;
	uint32_t lifetime, age_add, max_early;

	TRY(msg_body(msg, len, &body));
	TRY(read_u32(&body, &lifetime));
	TRY(read_u32(&body, &age_add));
	TRY(read_vec(&body, 1, 0, 255, &nonce));
	TRY(read_vec(&body, 2, 1, 0xffff, &ticket));
	TRY(ext_parse(&body, &exts));
	TRY(read_end(&body));
	/* "Servers MUST NOT use any value greater than 604800 seconds" */
	ENSURE(lifetime <= 604800, HS_ERR_TLS_ILLEGAL_PARAM);
	TRY(early_ticket_max(&exts, &max_early));
	/* a flood of tickets: each would cost an HKDF (internal.h) */
	ENSURE(++c->n_tickets <= MAX_TICKETS_RECV, HS_ERR_TLS_TOO_MANY_RECORDS);
	if (c->cfg->keep_tickets && c->tickets_open && ticket.len <= TICKET_MAX) {
		TRY(conn_tickets(c));
		memcpy(c->tickets->ticket, ticket.p, ticket.len);
		c->ticket_len = ticket.len;
		c->ticket_lifetime = lifetime;
		TRY(keep_ticket(c, ticket, nonce, lifetime, age_add, max_early));
	}
	conn_event(c, HS_EVENT_TICKET);
	return 0;
}
