/*
 * hs-server: a TLS 1.3 server in the spirit of `openssl s_server`. It
 * handles connections one at a time: --echo sends back what it receives;
 * otherwise it answers one request like `s_server -www`, with a short page
 * naming the negotiated parameters. Without --cert/--key it generates a
 * self-signed P-256 certificate for "localhost" (and 127.0.0.1) at start,
 * prints its SHA-256 fingerprint and, with --print-cert FILE, writes its
 * PEM so a client can trust (--ca) or pin it. --verify-client or
 * --require-client CAFILE asks for a client certificate (mTLS) and
 * validates it against the CAs of CAFILE. --cert/--key may be given up to
 * four times (say RSA-2048 and ECDSA P-256): the engine picks one per
 * ClientHello (hs_config.creds). Whatever came from the client (SNI,
 * ALPN) is printed through escape_peer().
 *
 * Implementation notes: options are one table (OpenSSL spellings share a
 * row with ours); each connection runs the handshake on the blocking
 * socket (hs_fd_accept), then relay_run(). A failed connection is
 * reported and the server goes on; the exit status is that of the first
 * failed connection (0 if none) once --max-conns connections are done.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/wipe.h"
#include "cli.h"
#include "serve_uring.h"
#include "crypto/sha2.h"
#include "hs/cred.h"
#include "hs/fd.h"
#include "hs/x509.h"
#include "hs/x509_write.h"

#define HANDSHAKE_TIMEOUT 30 /* seconds */

#define MAX_CREDS 4 /* --cert/--key pairs, e.g. RSA-2048 and ECDSA P-256 */

struct server {
	const char *listen, *ca, *print_cert, *client_ca;
	const char *cert[MAX_CREDS], *key[MAX_CREDS];
	size_t n_cert, n_key;
	enum hs_verify_mode verify_client;
	int echo, help, hrr_cookie, version, json;
	/* resumption: tickets after each handshake (--tickets N, default 2;
	 * --no-tickets: none), sealed with keys made at start */
	long n_tickets;
	int no_tickets;
	/* 0-RTT: --early-data[=MAX] (max_early_data_size, default 16384) */
	long early_max;
	/* external PSK: --psk HEX --psk-identity ID (openssl -psk/-psk_identity) */
	const char *psk_identity;
	uint8_t psk[256];
	size_t psk_len;
	enum relay_ktls ktls;
	long max_conns;
	/* --uring: many connections at once (io_uring loop), --max-active of them */
	int uring;
	long max_active, timeout;
	struct algs algs;
};

#define S(ctx) ((struct server *)(ctx))
static int set_listen(void *ctx, const char *a)
{
	S(ctx)->listen = a;
	return 0;
}
static int set_cert(void *ctx, const char *a)
{
	if (S(ctx)->n_cert == MAX_CREDS)
		return fail(EXIT_USAGE, "at most %d --cert", MAX_CREDS);
	S(ctx)->cert[S(ctx)->n_cert++] = a;
	return 0;
}
static int set_key(void *ctx, const char *a)
{
	if (S(ctx)->n_key == MAX_CREDS)
		return fail(EXIT_USAGE, "at most %d --key", MAX_CREDS);
	S(ctx)->key[S(ctx)->n_key++] = a;
	return 0;
}
static int set_ca(void *ctx, const char *a)
{
	S(ctx)->ca = a;
	return 0;
}
static int set_verify_client(void *ctx, const char *a)
{
	S(ctx)->client_ca = a;
	S(ctx)->verify_client = HS_VERIFY_REQUEST;
	return 0;
}
static int set_require_client(void *ctx, const char *a)
{
	S(ctx)->client_ca = a;
	S(ctx)->verify_client = HS_VERIFY_REQUIRE;
	return 0;
}
static int set_print_cert(void *ctx, const char *a)
{
	S(ctx)->print_cert = a;
	return 0;
}
static int set_echo(void *ctx, const char *a)
{
	(void)a;
	S(ctx)->echo = 1;
	return 0;
}
static int set_www(void *ctx, const char *a)
{
	(void)a;
	S(ctx)->echo = 0;
	return 0;
}
static int set_hrr(void *ctx, const char *a)
{
	(void)a;
	S(ctx)->hrr_cookie = 1;
	return 0;
}
static int set_max(void *ctx, const char *a)
{
	return parse_count("--max-conns", a, 1, 1000000000, &S(ctx)->max_conns);
}
static int set_alpn(void *ctx, const char *a) { return parse_alpn(&S(ctx)->algs, a); }
static int set_suites(void *ctx, const char *a) { return parse_suites(&S(ctx)->algs, a); }
static int set_groups(void *ctx, const char *a) { return parse_groups(&S(ctx)->algs, a); }
static int set_sigs(void *ctx, const char *a) { return parse_sigs(&S(ctx)->algs, a); }
static int set_ktls(void *ctx, const char *a) { return parse_ktls(&S(ctx)->ktls, a); }
static int set_quiet(void *ctx, const char *a)
{
	(void)ctx;
	(void)a;
	prog_verbosity = 0;
	return 0;
}
static int set_brief(void *ctx, const char *a)
{
	(void)ctx;
	(void)a;
	prog_verbosity = 1;
	return 0;
}
static int set_help(void *ctx, const char *a)
{
	(void)a;
	S(ctx)->help = 1;
	return 0;
}
static int set_version(void *ctx, const char *a)
{
	(void)a;
	S(ctx)->version = 1;
	return 0;
}
static int set_json(void *ctx, const char *a)
{
	(void)a;
	S(ctx)->json = 1;
	return 0;
}
static int set_verbose(void *ctx, const char *a)
{
	(void)ctx;
	(void)a;
	prog_verbosity = 3;
	return 0;
}

static int set_tickets(void *ctx, const char *a)
{
	char *end;
	long n = strtol(a, &end, 10);

	if (*a == 0 || *end != 0 || n < 1 || n > 16)
		return fail(EXIT_USAGE, "--tickets: want 1 to 16");
	S(ctx)->n_tickets = n;
	return 0;
}
static int set_no_tickets(void *ctx, const char *a)
{
	(void)a;
	S(ctx)->no_tickets = 1;
	return 0;
}

static int set_early(void *ctx, const char *a)
{
	char *end;
	long n = a != NULL ? strtol(a, &end, 10) : 16384;

	if (a != NULL && (*a == 0 || *end != 0 || n < 1 || n > 1048576))
		return fail(EXIT_USAGE, "--early-data=MAX: want 1 to 1048576 bytes");
	S(ctx)->early_max = n;
	return 0;
}

static int set_psk(void *ctx, const char *a)
{
	return parse_psk_hex(a, S(ctx)->psk, sizeof(S(ctx)->psk), &S(ctx)->psk_len);
}
static int set_psk_identity(void *ctx, const char *a)
{
	S(ctx)->psk_identity = a;
	return 0;
}

static int set_uring(void *ctx, const char *a)
{
	(void)a;
	S(ctx)->uring = 1;
	return 0;
}

static int set_max_active(void *ctx, const char *a)
{
	return parse_count("--max-active", a, 1, 100000, &S(ctx)->max_active);
}

static int set_timeout(void *ctx, const char *a)
{
	return parse_count("--timeout", a, 1, 3600, &S(ctx)->timeout);
}

static const struct opt options[] = {
	{ "--listen -accept", "ADDR:PORT", set_listen,
	  "where to listen (default 127.0.0.1:4433; port 0 picks a free one)" },
	{ "--cert -cert", "FILE", set_cert,
	  "certificate chain, PEM, leaf first (repeat with --key: up to 4 credentials)" },
	{ "--key -key", "FILE", set_key,
	  "private key of the --cert before, PEM (PKCS#8 P-256/Ed25519/RSA, SEC1, PKCS#1)" },
	{ "--ca -CAfile", "FILE", set_ca,
	  "CA certificate(s) sent after the leaf (our chain; not for client certificates)" },
	{ "--verify-client", "CAFILE", set_verify_client,
	  "ask for a client certificate; if one is sent it must chain to a CA in CAFILE" },
	{ "--require-client", "CAFILE", set_require_client,
	  "require a client certificate chaining to a CA in CAFILE (else certificate_required)" },
	{ "--print-cert", "FILE", set_print_cert, "write the generated default certificate's PEM" },
	{ "--echo", NULL, set_echo, "echo what the client sends" },
	{ "--www -www", NULL, set_www, "answer a request with a page of parameters (default)" },
	{ "--alpn -alpn", "LIST", set_alpn, "ALPN protocols accepted, in preference order" },
	{ "--ciphersuites -ciphersuites", "LIST", set_suites, "TLS 1.3 suites, preference order" },
	{ "--groups -groups -curves", "LIST", set_groups, "groups accepted: x25519, P-256" },
	{ "--sigalgs -sigalgs", "LIST", set_sigs, "signature schemes" },
	{ "--hrr-cookie", NULL, set_hrr, "always send a HelloRetryRequest with a cookie first" },
	{ "--max-conns -naccept", "N", set_max, "exit after N connections" },
	{ "--uring", NULL, set_uring,
	  "many connections at once on io_uring (else, or where unavailable: one at a time)" },
	{ "--max-active", "N", set_max_active, "--uring: connections at once (default 1024)" },
	{ "--timeout", "SECS", set_timeout, "deadline for each handshake (default 30)" },
	{ "--quiet -quiet", NULL, set_quiet, "no status output (errors only)" },
	{ "--brief -brief", NULL, set_brief, "one status line per connection" },
	{ "--verbose -v -msg", NULL, set_verbose,
	  "trace states, records and messages (direction, type, length) on stderr" },
	{ "--json", NULL, set_json, "one JSON object per connection on stdout (keys: hs-server(1))" },
	{ "--ktls", "[=require]", set_ktls,
	  "records on kernel TLS after the handshake (else userspace; =require: or exit 5)" },
	{ "--tickets", "N", set_tickets, "session tickets after each handshake (default 2)" },
	{ "--no-tickets -no_ticket", NULL, set_no_tickets, "send no session tickets (no resumption)" },
	{ "--early-data -early_data", "[=MAX]", set_early,
	  "accept 0-RTT, up to MAX bytes (default 16384), once per ticket (replayable: see man)" },
	{ "--psk -psk", "HEX", set_psk, "accept this external PSK (SHA-256 suites)" },
	{ "--psk-identity -psk_identity", "ID", set_psk_identity,
	  "the PSK's identity (default Client_identity)" },
	{ "--version -version", NULL, set_version, "print the version and exit" },
	{ "--help -help -h", NULL, set_help, "this text" },
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static void usage(void)
{
	printf("usage: hs-server [options]\n"
	       "TLS 1.3 server; one connection at a time.\n\n");
	opts_help(options, N_OPTIONS);
	printf("\nSeveral --cert/--key pairs (say RSA-2048 and ECDSA P-256): each client\n"
	       "gets the first whose key signs with a scheme of its signature_algorithms,\n"
	       "one whose certificate names its SNI first. --ca goes after every chain.\n");
	printf("\nWithout --cert/--key a self-signed P-256 certificate for localhost,\n"
	       "127.0.0.1 and ::1 is generated at start; its SHA-256 fingerprint is printed, and\n"
	       "--print-cert FILE writes it for `hs-client --ca FILE` to trust (it is\n"
	       "self-signed: as a trust anchor it stands for itself) or `--pin FILE`.\n"
	       "\nClient certificates (like s_server -verify / -Verify with -CAfile):\n"
	       "--verify-client CAFILE requests one and accepts its absence;\n"
	       "--require-client CAFILE fails the handshake without one. A certificate sent\n"
	       "must chain to a CA of CAFILE (extendedKeyUsage clientAuth if present) and\n"
	       "its CertificateVerify must check out; the page (--www) says whether one was.\n"
	       "The CertificateRequest names CAFILE's CAs (certificate_authorities).\n"
	       "\nExit status (after --max-conns connections): 0 all ok, 1 TLS or transfer\n"
	       "failure, 2 usage, 3 certificate verification failed, 4 network error, 5 kTLS\n"
	       "unavailable (--ktls=require only); a one-line reason goes to stderr.\n"
	       "--ktls prints which path (kernel, or the userspace fallback and why) each\n"
	       "direction takes.\n");
}

static int write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	int ok = f != NULL && fwrite(text, 1, len, f) == len;

	if (f != NULL && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : fail(EXIT_USAGE, "cannot write '%s'", path);
}

static void print_fingerprint(const struct hs_cred *cred, const char *what)
{
	size_t len;
	const uint8_t *der = hs_cred_leaf(cred, &len);
	uint8_t fp[HS_SHA256_LEN];
	char hex[3 * HS_SHA256_LEN];

	sha256(der, len, fp);
	for (size_t i = 0; i < sizeof(fp); i++)
		snprintf(hex + 3 * i, 4, "%02X%s", fp[i], i + 1 < sizeof(fp) ? ":" : "");
	note(1, "certificate%s SHA-256 fingerprint %s", what, hex);
}

static int default_cred(const struct server *sv, struct hs_cred **cred)
{
	static const uint8_t loopback[4] = { 127, 0, 0, 1 }, loopback6[16] = { [15] = 1 };
	uint64_t now = (uint64_t)time(NULL);
	struct hs_cert_spec spec = { .dns_name = "localhost", .ipv4 = loopback, .ipv6 = loopback6,
				     .not_before = now - 3600, .not_after = now + 30 * 86400 };
	char pem[HS_X509_WRITE_PEM_MAX];
	size_t len;
	int err = hs_cred_generate_p256(cred, &spec, pem, sizeof(pem), &len);

	if (err)
		return fail(EXIT_TLS, "cannot generate the default certificate: %s", hs_strerror(err));
	note(2, "generated a self-signed P-256 certificate for localhost, 127.0.0.1 and ::1");
	if (sv->print_cert != NULL)
		return write_text(sv->print_cert, pem, len);
	return 0;
}

/* --cert (+ --ca appended to the chain) and --key, pair i */
static int load_cred(const struct server *sv, size_t i, struct hs_cred **cred)
{
	const char *cert = sv->cert[i], *keyf = sv->key[i];
	char *chain = NULL, *ca = NULL, *key = NULL, *both = NULL;
	size_t chain_len = 0, ca_len = 0, key_len = 0;
	int err, rc = 0;

	if (check_readable("--cert", cert, 0) != 0 || check_readable("--key", keyf, 0) != 0 ||
	    (sv->ca != NULL && check_readable("--ca", sv->ca, 0) != 0))
		rc = EXIT_USAGE;
	else if (hs_read_file(cert, &chain, &chain_len) != 0)
		rc = fail(EXIT_USAGE, "cannot read --cert file '%s'", cert);
	else if (hs_read_file(keyf, &key, &key_len) != 0)
		rc = fail(EXIT_USAGE, "cannot read --key file '%s'", keyf);
	else if (sv->ca != NULL && hs_read_file(sv->ca, &ca, &ca_len) != 0)
		rc = fail(EXIT_USAGE, "cannot read --ca file '%s'", sv->ca);
	else if ((both = malloc(chain_len + ca_len + 2)) == NULL)
		rc = fail(EXIT_TLS, "out of memory");
	if (rc == 0) {
		memcpy(both, chain, chain_len);
		both[chain_len] = '\n';
		if (ca_len > 0)
			memcpy(both + chain_len + 1, ca, ca_len);
		err = hs_cred_load_pem(cred, both, chain_len + 1 + ca_len, key, key_len);
		if (err)
			rc = cred_fail(cert, keyf, err);
	}
	if (key != NULL)
		memset(key, 0, key_len); /* the program's copy; libhs wipes its own */
	free(key);
	free(ca);
	free(chain);
	free(both);
	return rc;
}

static size_t page(struct hs_conn *c, char *out, size_t cap)
{
	char alpn[ESC_MAX], sni[ESC_MAX];
	int n = snprintf(out, cap,
			 "HTTP/1.0 200 ok\r\nContent-type: text/plain\r\n\r\n"
			 "hs-server\n"
			 "Protocol version: TLSv1.3\n"
			 "Ciphersuite: %s\n"
			 "Group: %s\n"
			 "Signature scheme: %s\n"
			 "ALPN: %s\n"
			 "Server name: %s\n"
			 "HelloRetryRequest: %s\n"
			 "Client certificate: %s\n",
			 hs_suite_name(hs_conn_suite(c)), hs_group_name(hs_conn_group(c)),
			 hs_sig_scheme_name(hs_conn_sig_scheme(c)),
			 hs_conn_alpn(c) ? escape_peer(hs_conn_alpn(c), alpn, sizeof(alpn)) : "(none)",
			 hs_conn_server_name(c) ? escape_peer(hs_conn_server_name(c), sni, sizeof(sni))
						: "(none)",
			 hs_conn_used_hrr(c) ? "yes" : "no",
			 hs_conn_peer_cert_count(c) > 0 ? "verified" : "(none)");
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* 0-RTT: the early data, read before the handshake ends (hs_fd_read_early) */
static int read_early(const struct hs_config *cfg, struct hs_conn *c, int sock, uint8_t **buf,
		      size_t *len)
{
	size_t n;
	int err;

	*len = 0;
	*buf = malloc(cfg->max_early_data + 1u);
	if (*buf == NULL)
		return HS_ERR_NOMEM;
	do {
		err = hs_fd_read_early(c, sock, *buf + *len, cfg->max_early_data - *len, &n);
		*len += n;
	} while (err == 0 && n > 0);
	return err;
}

/* A request header's end (the blank line, as relay.c's www mode wants it). */
static int whole_request(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (b[i] == '\n' && (b[i + 1] == '\n' ||
				      (i + 2 < n && b[i + 1] == '\r' && b[i + 2] == '\n')))
			return 1;
	return 0;
}

/* After the handshake: say what became of 0-RTT; echo it, or answer it
 * (www) when it held a whole request. *done: nothing more to relay. */
static int after_early(const struct server *sv, struct hs_conn *c, int sock, const uint8_t *buf,
		       size_t len, int *done)
{
	char page_buf[4096];
	size_t n;
	int err = 0;

	*done = 0;
	if (hs_conn_early_data(c) == HS_EARLY_REJECTED)
		note(1, "early data: rejected");
	if (hs_conn_early_data(c) != HS_EARLY_ACCEPTED)
		return 0;
	note(1, "early data: accepted %zu bytes", len);
	if (len == 0)
		return 0;
	if (sv->echo)
		err = hs_fd_write(c, sock, buf, len);
	else if (whole_request(buf, len)) {
		n = page(c, page_buf, sizeof(page_buf));
		err = hs_fd_write(c, sock, page_buf, n);
		if (err == 0)
			err = hs_fd_close(c, sock);
		/* read (and drop) what the client still sends until it closes, so
		 * closing the socket does not reset the page away (SO_RCVTIMEO) */
		for (int i = 0; err == 0 && i < 64; i++)
			if (hs_fd_read(c, sock, page_buf, sizeof(page_buf), &n) != 0 || n == 0)
				break;
		*done = 1;
	}
	return err ? tls_fail(c, err, "answering the early data") : 0;
}

static int serve_one(const struct server *sv, const struct hs_config *cfg, int sock,
		     const char *peer)
{
	struct relay r = { .mode = sv->echo ? RELAY_ECHO : RELAY_WWW, .in_fd = -1, .out_fd = -1,
			   .page = page, .ktls = sv->ktls, .send_tickets = cfg->defer_tickets };
	struct conn_report rep = { .peer = peer, .ktls_tx = "off", .ktls_rx = "off" };
	struct hs_conn *c = NULL;
	char desc[ESC_MAX + 200], sni[ESC_MAX];
	double t0 = now_ms();
	uint8_t *early = NULL;
	size_t early_len = 0;
	int err = hs_conn_new(&c, cfg), rc, done = 0;

	if (err)
		return fail(EXIT_TLS, "cannot create the connection: %s", hs_strerror(err));
	if (cfg->max_early_data > 0) /* SO_RCVTIMEO bounds each read */
		err = read_early(cfg, c, sock, &early, &early_len);
	if (err == 0) /* whole handshake */
		err = hs_fd_handshake_deadline(c, sock, (unsigned)sv->timeout * 1000);
	rep.handshake_ms = now_ms() - t0;
	rep.client_cert = hs_conn_peer_cert_count(c) > 0 ? "verified" : "none";
	if (err) {
		rc = tls_fail(c, err, "handshake");
		goto report;
	}
	describe(c, desc, sizeof(desc));
	note(1, "%s sni=%s client-cert=%s", desc,
	     escape_peer(hs_conn_server_name(c), sni, sizeof(sni)), rep.client_cert);
	if (cfg->psk != NULL && hs_conn_resumed(c) && hs_conn_external_psk(c))
		note(1, "psk: %s", psk_desc(c, 1));
	else if (cfg->ticket_keys != NULL)
		note(1, "session: %s", psk_desc(c, 0));
	rc = after_early(sv, c, sock, early, early_len, &done);
	if (rc == 0 && !done)
		rc = relay_run(&r, c, sock);
	note(2, "connection done: %llu bytes received, %llu sent",
	     (unsigned long long)r.bytes_in, (unsigned long long)r.bytes_out);
	rep.bytes_sent = r.bytes_out;
	rep.bytes_received = r.bytes_in;
	if (r.ktls_tx != NULL)
		rep.ktls_tx = r.ktls_tx;
	if (r.ktls_rx != NULL)
		rep.ktls_rx = r.ktls_rx;
report:
	rep.exit_code = rc;
	if (sv->json)
		report_json(stdout, c, &rep);
	if (early != NULL)
		wipe(early, early_len);
	free(early);
	hs_conn_free(c);
	return rc;
}

/* "ADDR:PORT" of the accepted client (for --json) */
static void peer_name(const struct sockaddr_storage *ss, char *out, size_t cap)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(out, cap, "%s:%u", host, ntohs(a->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(out, cap, "[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		snprintf(out, cap, "?");
	}
}

static int serve(const struct server *sv, const struct hs_config *cfg, int lsock)
{
	int first_rc = 0;

	for (long n = 0; sv->max_conns == 0 || n < sv->max_conns; n++) {
		/* a client that stalls mid-handshake must not hold the server forever */
		struct timeval tv = { .tv_sec = sv->timeout };
		struct sockaddr_storage ss = { 0 };
		socklen_t ss_len = sizeof(ss);
		char peer[INET6_ADDRSTRLEN + 16];
		int s = accept(lsock, (struct sockaddr *)&ss, &ss_len), rc;
		if (s < 0)
			return fail(EXIT_NET, "accept failed");
		peer_name(&ss, peer, sizeof(peer));
		(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		(void)setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		rc = serve_one(sv, cfg, s, peer);
		close(s);
		if (first_rc == 0)
			first_rc = rc;
	}
	return first_rc;
}

/* creds[0..*n): every --cert/--key pair, or the generated one */
static int setup(struct server *sv, struct hs_cred **creds, size_t *n)
{
	int rc;

	*n = 0;
	if (sv->n_cert != sv->n_key)
		return fail(EXIT_USAGE, "--cert and --key go together (one --key per --cert)");
	if (sv->n_cert == 0 && sv->ca != NULL)
		return fail(EXIT_USAGE, "--ca needs --cert and --key");
	if (sv->n_cert > 0 && sv->print_cert != NULL)
		return fail(EXIT_USAGE, "--print-cert is for the generated certificate only");
	if (sv->n_cert == 0) {
		rc = default_cred(sv, &creds[0]);
		*n = rc == 0;
		return rc;
	}
	for (size_t i = 0; i < sv->n_cert; i++) {
		if ((rc = load_cred(sv, i, &creds[i])) != 0)
			return rc;
		*n = i + 1;
	}
	return 0;
}

/* --verify-client / --require-client CAFILE: the client CAs */
static int load_client_cas(const struct server *sv, struct hs_x509_store **store)
{
	int err;

	*store = NULL;
	if (sv->client_ca == NULL)
		return 0;
	if (check_readable("client CA", sv->client_ca, 0) != 0)
		return EXIT_USAGE;
	if (hs_x509_store_new(store) != 0)
		return fail(EXIT_TLS, "out of memory");
	err = hs_x509_store_load_file(*store, sv->client_ca);
	if (err)
		return ca_fail("client CA", sv->client_ca, err);
	return 0;
}

int main(int argc, char **argv)
{
	static struct server sv;
	struct hs_config cfg = { .role = HS_ROLE_SERVER };
	struct hs_cred *creds[MAX_CREDS] = { NULL };
	size_t n_creds = 0;
	struct hs_x509_store *client_cas = NULL;
	struct hs_ticket_keys *tkeys = NULL;
	struct hs_antireplay *replay = NULL;
	char host[256], port[32];
	unsigned bound;
	int rc, lsock;

	prog_name = "hs-server";
	signal(SIGPIPE, SIG_IGN);
	if ((rc = opts_parse(options, N_OPTIONS, argc, argv, &sv, NULL)) != 0)
		return rc;
	if (sv.help) {
		usage();
		return EXIT_OK;
	}
	if (sv.version) {
		print_version();
		return EXIT_OK;
	}
	if (sv.timeout == 0)
		sv.timeout = HANDSHAKE_TIMEOUT;
	if (sv.uring && sv.early_max > 0) /* the io_uring loop reads no early data yet */
		return fail(EXIT_USAGE, "--early-data does not go with --uring yet");
	/* the io_uring loop reports a summary, not one object per connection, and
	 * keeps a connection on our records where the kernel refuses kTLS */
	if (sv.uring && sv.json)
		return fail(EXIT_USAGE, "--json does not go with --uring yet");
	if (sv.uring && sv.ktls == RELAY_KTLS_REQUIRE)
		return fail(EXIT_USAGE, "--ktls=require does not go with --uring (use --ktls)");
	if ((rc = split_hostport(sv.listen ? sv.listen : "127.0.0.1:4433", host, sizeof(host),
				 port, sizeof(port), 1)) != 0)
		return rc;
	if (sv.ktls == RELAY_KTLS_REQUIRE && (rc = ktls_require_check(&sv.algs)) != 0)
		return rc;
	if ((rc = setup(&sv, creds, &n_creds)) != 0)
		goto out;
	if ((rc = load_client_cas(&sv, &client_cas)) != 0)
		goto out;
	for (size_t i = 0; i < n_creds; i++) {
		char what[64] = "";
		if (n_creds > 1)
			snprintf(what, sizeof(what), " %zu (%s)", i + 1,
				 hs_sig_scheme_name(hs_cred_sig_scheme(creds[i])));
		print_fingerprint(creds[i], what);
	}
	algs_apply(&sv.algs, &cfg);
	cfg.creds = (const struct hs_cred *const *)creds;
	cfg.n_creds = n_creds;
	cfg.hrr_cookie = sv.hrr_cookie;
	cfg.verify_client = sv.verify_client;
	cfg.client_trust = client_cas;
	cfg.send_ca_names = client_cas != NULL; /* as s_server does with -CAfile */
	if (!sv.no_tickets && hs_ticket_keys_new(&tkeys, 0, 0) != 0) {
		rc = fail(EXIT_TLS, "cannot make the ticket keys");
		goto out;
	}
	cfg.ticket_keys = tkeys;
	if (sv.psk_len > 0) {
		const char *id = sv.psk_identity ? sv.psk_identity : "Client_identity";
		cfg.psk = sv.psk;
		cfg.psk_len = sv.psk_len;
		cfg.psk_identity = (const uint8_t *)id;
		cfg.psk_identity_len = strlen(id);
	}
	cfg.n_tickets = (unsigned)sv.n_tickets;
	/* 0-RTT: one ticket's early data once per 10 s window, 16384 tickets
	 * at once (384 KiB); more in a window are refused 0-RTT */
	if (sv.early_max > 0 && hs_antireplay_new(&replay, 16384, 0) != 0) {
		rc = fail(EXIT_TLS, "cannot make the anti-replay register");
		goto out;
	}
	cfg.max_early_data = (uint32_t)sv.early_max;
	cfg.antireplay = replay;
	/* --ktls: the tickets go out after the hand-off, through kTLS (the
	 * --uring loop hands off only once the engine has sent them; a server
	 * verifying clients issues none) */
	cfg.defer_tickets = sv.ktls != RELAY_KTLS_OFF && !sv.uring && tkeys != NULL &&
			    cfg.verify_client == HS_VERIFY_NONE;
	trace_attach(&cfg);
	rc = net_listen(host, port, &lsock, &bound);
	if (rc == 0) {
		note(1, "listening on %s port %u", host[0] ? host : "*", bound);
		int served = 0;
		if (sv.uring) {
			struct uring_opts uo = {
				.echo = sv.echo, .max_conns = sv.max_conns,
				.max_active = (unsigned)sv.max_active, .page = page,
				.ktls = sv.ktls != RELAY_KTLS_OFF,
				.timeout_ms = (unsigned)sv.timeout * 1000,
			};
			rc = serve_uring(&cfg, lsock, &uo, &served);
		}
		if (!served)
			rc = serve(&sv, &cfg, lsock);
		close(lsock);
	}
out:
	hs_antireplay_free(replay);
	hs_ticket_keys_free(tkeys);
	hs_x509_store_free(client_cas);
	for (size_t i = 0; i < n_creds; i++)
		hs_cred_free(creds[i]);
	return rc;
}
