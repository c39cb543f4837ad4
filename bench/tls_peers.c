/*
 * Implementation notes: the TLS peers of hs-bench (see tls_peers.h).
 *
 * - Each credential is made once per process with OpenSSL: a P-256 (or
 *   RSA-2048) key and a self-signed X.509 v3 certificate (CN and SAN DNS
 *   "localhost", CA:TRUE so that OpenSSL's client can use it as its trust
 *   anchor); for PEER_CHAIN a P-256 root (CA), a P-256 intermediate (CA,
 *   pathlen 0) it issues, and a P-256 leaf (CA:FALSE, SAN "localhost",
 *   serverAuth) the intermediate issues. hs loads the same certificates
 *   and key from PEM (PKCS#8), so both servers present byte-identical
 *   chains (leaf, then intermediate) and sign with the same key.
 * - Both libraries are configured alike: TLS 1.3 only, the one suite asked,
 *   group X25519, one signature scheme (ecdsa_secp256r1_sha256, or
 *   rsa_pss_rsae_sha256 with the RSA key), SNI "localhost", middlebox
 *   compatibility on (both defaults), no session tickets, no session cache.
 * - hs is pumped through two byte buffers allocated once; OpenSSL through
 *   two memory BIOs (one per direction) kept across connections, so
 *   neither side allocates its wires per handshake. Each side creates and
 *   frees its connection objects per handshake (hs_conn_new/SSL_new).
 * - The per-side clocks read CLOCK_THREAD_CPUTIME_ID around each call; a
 *   read costs well under a microsecond, small next to a handshake.
 */
#define _GNU_SOURCE
#include "bench/tls_peers.h"

#include "hs/x509.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#define HOST "localhost"
#define MAX_ROUNDS 16 /* flights of a handshake, with room to spare */

/* The credentials, each made once: the leaf's key and certificate, and for
 * the chain its intermediate and root. */
enum cred_kind { CRED_P256 = 0, CRED_RSA, CRED_CHAIN, CRED_KINDS };
struct made {
	EVP_PKEY *key, *inter_key, *root_key;
	X509 *cert, *inter, *root;
};
static struct made made[CRED_KINDS];

static const uint16_t group_x25519[] = { HS_GROUP_X25519 };
static const uint16_t group_p256[] = { HS_GROUP_SECP256R1 };

/* The key exchange group of a mode (psk_ke's full handshake uses X25519 too). */
uint16_t peers_group(const struct peers *p)
{
	return p->verify == PEER_P256_KX ? HS_GROUP_SECP256R1 : HS_GROUP_X25519;
}

static enum cred_kind kind_of(enum peer_verify v)
{
	return v == PEER_RSA ? CRED_RSA : v == PEER_CHAIN ? CRED_CHAIN : CRED_P256;
}

static int say(const char *what)
{
	fprintf(stderr, "hs-bench: %s\n", what);
	ERR_print_errors_fp(stderr);
	return -1;
}

double peer_thread_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Run EXPR; when the pair's clock is on, add its CPU time to SLOT. */
#define TIMED(X, SLOT, EXPR)                                    \
	do {                                                    \
		double t0_ = (X)->clock ? peer_thread_ns() : 0; \
		EXPR;                                           \
		if ((X)->clock)                                 \
			(X)->SLOT += peer_thread_ns() - t0_;    \
	} while (0)

/* ---- the credential */

static int add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *e;
	int ok;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (e == NULL)
		return 0;
	ok = X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok;
}

/* What one certificate says: its name and its CA-ness. */
struct cert_spec {
	const char *cn;
	const char *bc;   /* basicConstraints */
	const char *ku;   /* keyUsage */
	const char *eku;  /* extendedKeyUsage, or NULL */
	int san;          /* SAN DNS:localhost */
	long serial;
};

/* A v3 certificate for key, issued by issuer/ikey (NULL: self-signed). */
static X509 *new_cert(EVP_PKEY *key, const struct cert_spec *s, X509 *issuer, EVP_PKEY *ikey)
{
	X509 *x = X509_new();
	X509_NAME *name;
	int ok;

	if (x == NULL)
		return NULL;
	name = X509_get_subject_name(x);
	ok = X509_set_version(x, 2) && ASN1_INTEGER_set(X509_get_serialNumber(x), s->serial) &&
	     X509_gmtime_adj(X509_getm_notBefore(x), -3600) != NULL &&
	     X509_gmtime_adj(X509_getm_notAfter(x), 7L * 86400) != NULL &&
	     X509_set_pubkey(x, key) &&
	     X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)s->cn,
					-1, -1, 0) &&
	     X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name) &&
	     add_ext(x, x, NID_basic_constraints, s->bc) &&
	     add_ext(x, x, NID_key_usage, s->ku) &&
	     add_ext(x, x, NID_subject_key_identifier, "hash") &&
	     (issuer == NULL || add_ext(x, issuer, NID_authority_key_identifier, "keyid")) &&
	     (s->eku == NULL || add_ext(x, x, NID_ext_key_usage, s->eku)) &&
	     (!s->san || add_ext(x, x, NID_subject_alt_name, "DNS:" HOST)) &&
	     X509_sign(x, ikey ? ikey : key, EVP_sha256()) > 0;
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

static const struct cert_spec self_spec = { HOST, "critical,CA:TRUE",
					    "critical,digitalSignature,keyCertSign", NULL, 1, 1 };
static const struct cert_spec root_spec = { "hs-bench root", "critical,CA:TRUE",
					    "critical,keyCertSign,cRLSign", NULL, 0, 2 };
static const struct cert_spec inter_spec = { "hs-bench intermediate",
					     "critical,CA:TRUE,pathlen:0",
					     "critical,keyCertSign,cRLSign", NULL, 0, 3 };
static const struct cert_spec leaf_spec = { HOST, "critical,CA:FALSE",
					    "critical,digitalSignature", "serverAuth", 1, 4 };

static int make_chain(struct made *m)
{
	m->root_key = EVP_EC_gen("P-256");
	m->inter_key = EVP_EC_gen("P-256");
	m->key = EVP_EC_gen("P-256");
	if (m->root_key == NULL || m->inter_key == NULL || m->key == NULL)
		return say("cannot make P-256 keys");
	m->root = new_cert(m->root_key, &root_spec, NULL, NULL);
	m->inter = m->root ? new_cert(m->inter_key, &inter_spec, m->root, m->root_key) : NULL;
	m->cert = m->inter ? new_cert(m->key, &leaf_spec, m->inter, m->inter_key) : NULL;
	return m->cert != NULL ? 0 : say("cannot make the certificate chain");
}

static int make_cert(enum cred_kind kind)
{
	struct made *m = &made[kind];

	if (kind == CRED_CHAIN)
		return make_chain(m);
	m->key = kind == CRED_RSA ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
	if (m->key == NULL)
		return say("cannot make a key");
	m->cert = new_cert(m->key, &self_spec, NULL, NULL);
	return m->cert != NULL ? 0 : say("cannot make the self-signed certificate");
}

/* hs's copy of the credential: the same certificate and key through PEM. */
static int load_hs_cred(struct peers *p)
{
	const struct made *m = &made[kind_of(p->verify)];
	BIO *c = BIO_new(BIO_s_mem()), *k = BIO_new(BIO_s_mem());
	char *cp, *kp;
	long cn, kn;
	int r = -1;
	unsigned char *d = p->anchor;
	/* the pin is the leaf; with a chain, the trust store gets the root */
	X509 *anchor = m->root != NULL ? m->root : m->cert;
	int dn = i2d_X509(anchor, NULL);

	if (c == NULL || k == NULL || !PEM_write_bio_X509(c, m->cert) ||
	    (m->inter != NULL && !PEM_write_bio_X509(c, m->inter)) ||
	    !PEM_write_bio_PrivateKey(k, m->key, NULL, NULL, 0, NULL, NULL)) {
		say("cannot write the credential as PEM");
		goto out;
	}
	cn = BIO_get_mem_data(c, &cp);
	kn = BIO_get_mem_data(k, &kp);
	if (hs_cred_load_pem(&p->cred, cp, (size_t)cn, kp, (size_t)kn) != 0) {
		say("hs_cred_load_pem refused the credential");
		goto out;
	}
	if (dn <= 0 || (size_t)dn > sizeof(p->anchor) || i2d_X509(anchor, &d) != dn) {
		say("cannot encode the trust anchor");
		goto out;
	}
	p->anchor_len = (size_t)dn;
	if (m->root != NULL && (hs_x509_store_new(&p->trust) != 0 ||
				hs_x509_store_add_der(p->trust, p->anchor, p->anchor_len) != 0)) {
		say("cannot make hs's trust store");
		goto out;
	}
	r = 0;
out:
	BIO_free(c);
	BIO_free(k); /* the PEM key; BIO_free does not wipe, the key is a throwaway */
	return r;
}

int peers_write_pem(const struct peers *p, const char *cert_path, const char *key_path)
{
	const struct made *m = &made[kind_of(p->verify)];
	FILE *c = fopen(cert_path, "w"), *k = fopen(key_path, "w");
	int ok = c != NULL && k != NULL && PEM_write_X509(c, m->cert) &&
		 (m->inter == NULL || PEM_write_X509(c, m->inter)) &&
		 PEM_write_PrivateKey(k, m->key, NULL, NULL, 0, NULL, NULL);

	if (c != NULL)
		fclose(c);
	if (k != NULL)
		fclose(k);
	return ok ? 0 : say("cannot write the credential's PEM files");
}

/* ---- OpenSSL contexts */

static const char *ossl_suite_name(uint16_t suite)
{
	switch (suite) {
	case HS_TLS_AES_128_GCM_SHA256: return "TLS_AES_128_GCM_SHA256";
	case HS_TLS_AES_256_GCM_SHA384: return "TLS_AES_256_GCM_SHA384";
	case HS_TLS_CHACHA20_POLY1305_SHA256: return "TLS_CHACHA20_POLY1305_SHA256";
	default: return NULL;
	}
}

static int resuming(const struct peers *p)
{
	return p->verify == PEER_RESUME_DHE || p->verify == PEER_RESUME_KE;
}

/* OpenSSL client: the session of the last ticket received (make_sessions) */
static SSL_SESSION *last_session;
static int new_session(SSL *s, SSL_SESSION *sess)
{
	(void)s;
	SSL_SESSION_free(last_session);
	last_session = sess;
	return 1; /* we keep the reference */
}

static SSL_CTX *ossl_ctx(const struct peers *p, int server)
{
	SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	const char *suite = ossl_suite_name(p->suite);
	const struct made *m = &made[kind_of(p->verify)];
	const char *sigalgs = p->scheme == HS_SIG_RSA_PSS_RSAE_SHA256 ? "rsa_pss_rsae_sha256"
								      : "ECDSA+SHA256";
	int ok;

	if (ctx == NULL || suite == NULL)
		goto fail;
	ok = SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) &&
	     SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) &&
	     SSL_CTX_set_ciphersuites(ctx, suite) && SSL_CTX_set1_groups_list(ctx, p->verify == PEER_P256_KX ? "P-256" : "X25519") &&
	     SSL_CTX_set1_sigalgs_list(ctx, sigalgs) &&
	     SSL_CTX_set_num_tickets(ctx, resuming(p) ? 1 : 0);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	if (resuming(p) && !server) { /* the ticket's session reaches new_session */
		SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT |
							SSL_SESS_CACHE_NO_INTERNAL_STORE);
		SSL_CTX_sess_set_new_cb(ctx, new_session);
	}
	if (!resuming(p))
		SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	else if (p->verify == PEER_RESUME_KE)
		SSL_CTX_set_options(ctx, SSL_OP_ALLOW_NO_DHE_KEX);
	if (ok && server)
		ok = SSL_CTX_use_certificate(ctx, m->cert) &&
		     (m->inter == NULL || SSL_CTX_add1_chain_cert(ctx, m->inter)) &&
		     SSL_CTX_use_PrivateKey(ctx, m->key) && SSL_CTX_check_private_key(ctx);
	if (ok && !server && p->verify != PEER_NO_VERIFY) {
		/* the certificate (or the chain's root) is the one trust anchor;
		 * the name is checked against the leaf's SAN */
		ok = X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx),
					 m->root != NULL ? m->root : m->cert) &&
		     X509_VERIFY_PARAM_set1_host(SSL_CTX_get0_param(ctx), HOST, 0);
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	} else if (ok && !server) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	}
	if (ok)
		return ctx;
fail:
	say("cannot set up an OpenSSL context");
	SSL_CTX_free(ctx);
	return NULL;
}

/* ---- hs configs */

static void hs_configs(struct peers *p)
{
	struct hs_config *c = &p->hs_client, *s = &p->hs_server;

	memset(c, 0, sizeof(*c));
	memset(s, 0, sizeof(*s));
	c->role = HS_ROLE_CLIENT;
	s->role = HS_ROLE_SERVER;
	c->suites = s->suites = &p->suite;
	c->n_suites = s->n_suites = 1;
	c->groups = s->groups = p->verify == PEER_P256_KX ? group_p256 : group_x25519;
	c->n_groups = s->n_groups = 1;
	c->sig_schemes = s->sig_schemes = &p->scheme;
	c->n_sig_schemes = s->n_sig_schemes = 1;
	c->server_name = HOST;
	s->cred = p->cred;
	if (p->verify == PEER_CHAIN) {
		c->trust = p->trust; /* path validation to the root, name from the leaf's SAN */
	} else if (p->verify != PEER_NO_VERIFY) {
		c->anchor_der = p->anchor;
		c->anchor_len = p->anchor_len;
	} else {
		c->insecure = 1; /* no pin, no name check; CertificateVerify is still checked */
	}
}

/* Resumption rows: one full handshake of each library gives the session
 * every timed handshake resumes. */
static int make_sessions(struct peers *p)
{
	struct hs_pair hx;
	struct ossl_pair ox = { 0 };
	int r = -1;

	if (hs_ticket_keys_new(&p->tkeys, 0, 0) != 0)
		return say("cannot make hs ticket keys");
	p->hs_server.ticket_keys = p->tkeys;
	p->hs_server.n_tickets = 1;
	p->hs_client.keep_tickets = 1;
	if (hs_pair_alloc(&hx) != 0)
		return -1;
	if (hs_pair_start(&hx, p) == 0 && hs_pair_handshake(&hx, 1) == 0 &&
	    hs_conn_session(hx.c, &p->hs_sess) == 0)
		r = 0;
	hs_pair_release(&hx);
	if (r != 0)
		return say("hs: no session from the first handshake");
	p->hs_client.session = p->hs_sess;
	p->hs_client.reuse_tickets = 1;
	p->hs_client.psk_ke = p->verify == PEER_RESUME_KE;
	r = -1;
	if (ossl_pair_start(&ox, p) == 0 && ossl_pair_handshake(&ox, 1) == 0) {
		p->ossl_sess = last_session;
		last_session = NULL;
	}
	ossl_pair_finish(&ox);
	if (p->ossl_sess == NULL)
		return say("OpenSSL: no resumable session from the first handshake");
	return 0;
}

int peers_init(struct peers *p, uint16_t suite, enum peer_verify verify)
{
	memset(p, 0, sizeof(*p));
	p->suite = suite;
	p->verify = verify;
	p->scheme = verify == PEER_RSA ? HS_SIG_RSA_PSS_RSAE_SHA256 : HS_SIG_ECDSA_SECP256R1_SHA256;
	if (made[kind_of(verify)].cert == NULL && make_cert(kind_of(verify)) != 0)
		return -1;
	if (load_hs_cred(p) != 0)
		return -1;
	hs_configs(p);
	p->ossl_client = ossl_ctx(p, 0);
	p->ossl_server = ossl_ctx(p, 1);
	if (p->ossl_client == NULL || p->ossl_server == NULL ||
	    (resuming(p) && make_sessions(p) != 0)) {
		peers_free(p);
		return -1;
	}
	return 0;
}

void peers_free(struct peers *p)
{
	hs_session_free(p->hs_sess);
	hs_ticket_keys_free(p->tkeys);
	SSL_SESSION_free(p->ossl_sess);
	hs_cred_free(p->cred);
	hs_x509_store_free(p->trust);
	SSL_CTX_free(p->ossl_client);
	SSL_CTX_free(p->ossl_server);
	memset(p, 0, sizeof(*p));
}

/* ---- hs pair */

int hs_pair_alloc(struct hs_pair *x)
{
	memset(x, 0, sizeof(*x));
	x->c2s = malloc(PEER_WIRE_CAP);
	x->s2c = malloc(PEER_WIRE_CAP);
	if (x->c2s == NULL || x->s2c == NULL) {
		hs_pair_release(x);
		return say("out of memory");
	}
	return 0;
}

void hs_pair_release(struct hs_pair *x)
{
	hs_pair_finish(x);
	free(x->c2s);
	free(x->s2c);
	x->c2s = x->s2c = NULL;
}

int hs_pair_start(struct hs_pair *x, const struct peers *p)
{
	int ec, es;

	x->c2s_len = x->s2c_len = 0;
	TIMED(x, client_ns, ec = hs_conn_new(&x->c, &p->hs_client));
	TIMED(x, server_ns, es = hs_conn_new(&x->s, &p->hs_server));
	return ec == 0 && es == 0 ? 0 : -1;
}

void hs_pair_finish(struct hs_pair *x)
{
	TIMED(x, client_ns, hs_conn_free(x->c));
	TIMED(x, server_ns, hs_conn_free(x->s));
	x->c = x->s = NULL;
}

/* Move everything `from` has to send into the wire. */
static int hs_take(struct hs_conn *from, uint8_t *wire, size_t *len)
{
	size_t n;

	do {
		if (hs_conn_pull(from, wire + *len, PEER_WIRE_CAP - *len, &n) != 0)
			return -1;
		*len += n;
	} while (n > 0 && *len < PEER_WIRE_CAP);
	return 0;
}

/* Feed the wire into `to` as far as it takes it; the rest stays in the wire. */
static int hs_give(struct hs_conn *to, uint8_t *wire, size_t *len)
{
	size_t off = 0, used;

	while (off < *len) {
		if (hs_conn_feed(to, wire + off, *len - off, &used) != 0)
			return -1;
		if (used == 0)
			break;
		off += used;
	}
	memmove(wire, wire + off, *len - off);
	*len -= off;
	return 0;
}

static int hs_failed(const struct hs_pair *x, int loud)
{
	if (loud)
		fprintf(stderr, "hs-bench: hs handshake failed: client %s, server %s\n",
			hs_strerror(hs_conn_error(x->c)), hs_strerror(hs_conn_error(x->s)));
	return -1;
}

int hs_pair_handshake(struct hs_pair *x, int loud)
{
	for (int round = 0; round < MAX_ROUNDS; round++) {
		int err = 0;

		TIMED(x, client_ns, err |= hs_take(x->c, x->c2s, &x->c2s_len));
		TIMED(x, server_ns, err |= hs_give(x->s, x->c2s, &x->c2s_len));
		TIMED(x, server_ns, err |= hs_take(x->s, x->s2c, &x->s2c_len));
		TIMED(x, client_ns, err |= hs_give(x->c, x->s2c, &x->s2c_len));
		if (err)
			return hs_failed(x, loud);
		if (hs_conn_handshake_done(x->c) && hs_conn_handshake_done(x->s) &&
		    x->c2s_len == 0 && x->s2c_len == 0)
			return 0;
	}
	return hs_failed(x, loud);
}

int hs_pair_send(struct hs_pair *x, int from_client, const uint8_t *buf, size_t len,
		 uint8_t *got)
{
	struct hs_conn *a = from_client ? x->c : x->s, *b = from_client ? x->s : x->c;
	uint8_t *wire = from_client ? x->c2s : x->s2c;
	size_t *wlen = from_client ? &x->c2s_len : &x->s2c_len;
	size_t sent = 0, recvd = 0, n;

	while (recvd < len) {
		size_t before = recvd + sent;

		if (sent < len && hs_conn_write(a, buf + sent, len - sent, &n) != 0)
			return -1;
		sent += sent < len ? n : 0;
		if (hs_take(a, wire, wlen) != 0)
			return -1;
		do {
			if (hs_give(b, wire, wlen) != 0 ||
			    hs_conn_read(b, got + recvd, len - recvd, &n) != 0)
				return -1;
			recvd += n;
		} while (n > 0 && *wlen > 0);
		if (recvd + sent == before)
			return -1; /* no progress */
	}
	return 0;
}

int hs_pair_seal(struct hs_pair *x, const uint8_t *buf, size_t len)
{
	size_t sent = 0, n;

	while (sent < len) {
		if (hs_conn_write(x->c, buf + sent, len - sent, &n) != 0 || n == 0)
			return -1;
		sent += n;
		x->c2s_len = 0; /* discard: the records are never opened */
		if (hs_take(x->c, x->c2s, &x->c2s_len) != 0)
			return -1;
	}
	x->c2s_len = 0;
	return 0;
}

/* ---- OpenSSL pair */

/* The two memory BIOs (client to server, server to client), kept across connections. */
static BIO *bio_c2s, *bio_s2c;

int ossl_pair_start(struct ossl_pair *x, const struct peers *p)
{
	if (bio_c2s == NULL) {
		bio_c2s = BIO_new(BIO_s_mem());
		bio_s2c = BIO_new(BIO_s_mem());
		if (bio_c2s == NULL || bio_s2c == NULL)
			return say("cannot make memory BIOs");
	}
	(void)BIO_reset(bio_c2s);
	(void)BIO_reset(bio_s2c);
	TIMED(x, client_ns, x->c = SSL_new(p->ossl_client));
	TIMED(x, server_ns, x->s = SSL_new(p->ossl_server));
	if (x->c == NULL || x->s == NULL || !BIO_up_ref(bio_c2s) || !BIO_up_ref(bio_s2c))
		return -1;
	SSL_set_bio(x->c, bio_s2c, bio_c2s); /* takes one reference of each */
	if (!BIO_up_ref(bio_c2s) || !BIO_up_ref(bio_s2c))
		return -1;
	SSL_set_bio(x->s, bio_c2s, bio_s2c);
	SSL_set_connect_state(x->c);
	SSL_set_accept_state(x->s);
	if (p->ossl_sess != NULL && !SSL_set_session(x->c, p->ossl_sess))
		return -1;
	return SSL_set_tlsext_host_name(x->c, HOST) ? 0 : -1;
}

void ossl_pair_finish(struct ossl_pair *x)
{
	/* freed without close_notify, OpenSSL would mark the client's session
	 * not resumable (ssl_clear_bad_session): the resumption rows reuse it */
	if (x->c != NULL)
		SSL_set_shutdown(x->c, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
	TIMED(x, client_ns, SSL_free(x->c));
	TIMED(x, server_ns, SSL_free(x->s));
	x->c = x->s = NULL;
}

/* 1 done, 0 wants more input, -1 failed */
static int ossl_step(SSL *s)
{
	int r = SSL_do_handshake(s);

	if (r == 1)
		return 1;
	return SSL_get_error(s, r) == SSL_ERROR_WANT_READ ? 0 : -1;
}

int ossl_pair_handshake(struct ossl_pair *x, int loud)
{
	int dc = 0, ds = 0;

	for (int round = 0; round < MAX_ROUNDS && !(dc == 1 && ds == 1); round++) {
		TIMED(x, client_ns, dc = ossl_step(x->c));
		if (dc >= 0)
			TIMED(x, server_ns, ds = ossl_step(x->s));
		if (dc < 0 || ds < 0)
			break;
	}
	if (dc == 1 && ds == 1 && BIO_ctrl_pending(bio_s2c) > 0) {
		/* the server's NewSessionTicket: the client takes it on a read */
		uint8_t b;
		int n;
		TIMED(x, client_ns, n = SSL_read(x->c, &b, 1));
		if (n > 0 || SSL_get_error(x->c, n) != SSL_ERROR_WANT_READ)
			dc = -1;
	}
	if (dc == 1 && ds == 1 && BIO_ctrl_pending(bio_c2s) == 0 && BIO_ctrl_pending(bio_s2c) == 0)
		return 0;
	if (loud)
		say("OpenSSL handshake failed");
	ERR_clear_error();
	return -1;
}

int ossl_pair_send(struct ossl_pair *x, int from_client, const uint8_t *buf, size_t len,
		   uint8_t *got)
{
	SSL *a = from_client ? x->c : x->s, *b = from_client ? x->s : x->c;
	size_t sent = 0, recvd = 0, n;

	while (recvd < len) {
		size_t before = recvd + sent;

		if (sent < len && SSL_write_ex(a, buf + sent, len - sent, &n))
			sent += n;
		while (recvd < len && SSL_read_ex(b, got + recvd, len - recvd, &n))
			recvd += n;
		if (recvd + sent == before)
			return -1;
	}
	return 0;
}

int ossl_pair_seal(struct ossl_pair *x, const uint8_t *buf, size_t len)
{
	static uint8_t sink[PEER_WIRE_CAP];
	size_t sent = 0, n;

	while (sent < len) {
		if (!SSL_write_ex(x->c, buf + sent, len - sent, &n))
			return -1;
		sent += n;
		/* discard, copying out as hs_conn_pull does: the records are never opened */
		while (BIO_read_ex(bio_c2s, sink, sizeof(sink), &n) && n > 0)
			;
	}
	return 0;
}

/* ---- the check */

static int check_hs(const struct peers *p)
{
	struct hs_pair x;
	uint8_t b = 0x5a, got = 0;
	int r = -1;

	if (hs_pair_alloc(&x) != 0)
		return -1;
	if (hs_pair_start(&x, p) != 0 || hs_pair_handshake(&x, 1) != 0)
		goto out;
	if (resuming(p)) {
		int ke = p->verify == PEER_RESUME_KE;
		if (hs_conn_resumed(x.c) != 1 + ke || hs_conn_resumed(x.s) != 1 + ke ||
		    hs_conn_group(x.c) != (ke ? 0 : HS_GROUP_X25519)) {
			say("hs did not resume as asked");
			goto out;
		}
	} else if (hs_conn_suite(x.c) != p->suite || hs_conn_suite(x.s) != p->suite ||
	    hs_conn_group(x.c) != peers_group(p) || hs_conn_group(x.s) != peers_group(p) ||
	    hs_conn_sig_scheme(x.c) != p->scheme || hs_conn_sig_scheme(x.s) != p->scheme) {
		say("hs negotiated other parameters than asked");
		goto out;
	}
	if (hs_pair_send(&x, 1, &b, 1, &got) != 0 || got != b ||
	    hs_pair_send(&x, 0, &b, 1, &got) != 0 || got != b) {
		say("hs: one byte did not go through each way");
		goto out;
	}
	r = 0;
out:
	hs_pair_release(&x);
	return r;
}

/* RSA-PSS for the RSA row; the root, intermediate and leaf for the chain row */
static int ossl_scheme_ok(const struct peers *p, SSL *c)
{
	int nid = 0;

	if (!SSL_get_peer_signature_type_nid(c, &nid))
		return 0;
	if (p->scheme == HS_SIG_RSA_PSS_RSAE_SHA256 && nid != EVP_PKEY_RSA_PSS)
		return 0;
	if (p->verify == PEER_CHAIN) {
		STACK_OF(X509) *chain = SSL_get0_verified_chain(c);
		return chain != NULL && sk_X509_num(chain) == 3;
	}
	return 1;
}

static int check_ossl(const struct peers *p)
{
	struct ossl_pair x = { 0 };
	uint8_t b = 0xa5, got = 0;
	const SSL_CIPHER *cs;
	int r = -1;

	if (ossl_pair_start(&x, p) != 0 || ossl_pair_handshake(&x, 1) != 0)
		goto out;
	cs = SSL_get_current_cipher(x.c);
	if (cs == NULL || SSL_CIPHER_get_protocol_id(cs) != p->suite ||
	    SSL_version(x.c) != TLS1_3_VERSION ||
	    (p->verify != PEER_NO_VERIFY && SSL_get_verify_result(x.c) != X509_V_OK)) {
		say("OpenSSL negotiated other parameters than asked");
		goto out;
	}
	if (!resuming(p) && SSL_get_negotiated_group(x.c) !=
				    (p->verify == PEER_P256_KX ? NID_X9_62_prime256v1 : NID_X25519)) {
		say("OpenSSL negotiated another key exchange group than asked");
		goto out;
	}
	if (resuming(p) && !SSL_session_reused(x.c)) {
		say("OpenSSL did not resume");
		goto out;
	}
	/* OpenSSL's client offers psk_dhe_ke whenever it offers psk_ke, and its
	 * server then takes psk_dhe_ke: say so rather than compare silently */
	if (p->verify == PEER_RESUME_KE && SSL_get_negotiated_group(x.c) != 0)
		fprintf(stderr, "hs-bench: note: OpenSSL cannot resume in psk_ke alone (its "
				"client always adds psk_dhe_ke): its psk_ke column is psk_dhe_ke\n");
	if (!resuming(p) && !ossl_scheme_ok(p, x.c)) {
		say("OpenSSL used another signature scheme or chain than asked");
		goto out;
	}
	if (ossl_pair_send(&x, 1, &b, 1, &got) != 0 || got != b ||
	    ossl_pair_send(&x, 0, &b, 1, &got) != 0 || got != b) {
		say("OpenSSL: one byte did not go through each way");
		goto out;
	}
	r = 0;
out:
	ossl_pair_finish(&x);
	return r;
}

int peers_check(const struct peers *p)
{
	return check_hs(p) == 0 && check_ossl(p) == 0 ? 0 : -1;
}
