/*
 * hs-client: a TLS 1.3 client in the spirit of `openssl s_client`. It
 * connects, verifies the server (path validation to the system roots, or
 * to --ca/--capath, and the name; or a --pin), optionally presents a client
 * certificate (--cert/--key), sends its stdin and writes what it receives
 * to stdout. At the end of stdin it sends close_notify and keeps reading
 * until the server closes.
 *
 * Implementation notes: options are one table (OpenSSL spellings share a
 * row with ours); the handshake runs on the blocking socket through
 * hs_fd_connect(), which reads nothing past the handshake (kTLS seam), then
 * relay_run() moves the data. Status goes to stderr, data only to stdout.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/wipe.h"
#include "cli.h"
#include "hs/cred.h"
#include "hs/fd.h"
#include "hs/handoff.h"
#include "hs/x509.h"

#define ANCHOR_MAX 16384

/* --timeout default: curl's connect timeout (connect and handshake together) */
#define DEFAULT_TIMEOUT 300

struct client {
	const char *target, *servername, *ca, *capath, *pin, *cert, *key;
	int insecure, help, version, json;
	unsigned timeout_s;
	/* resumption: --sess-in FILE offers its ticket, --sess-out FILE keeps
	 * the server's tickets (like openssl s_client -sess_in/-sess_out);
	 * --psk-ke resumes without (EC)DHE */
	const char *sess_in, *sess_out;
	int psk_ke;
	/* --early-data FILE-or-string: 0-RTT (with --sess-in) */
	const char *early_arg;
	char *early;
	size_t early_len;
	/* external PSK: --psk HEX --psk-identity ID (openssl -psk/-psk_identity) */
	const char *psk_identity;
	uint8_t psk[256];
	size_t psk_len;
	enum relay_ktls ktls;
	/* --via PATH: handshaked does the handshake (its keys) and puts the socket on kTLS */
	const char *via, *alpn_list;
	struct algs algs;
	uint8_t anchor[ANCHOR_MAX];
	size_t anchor_len;
};

static int set_target(void *ctx, const char *a)
{
	struct client *cl = ctx;

	if (cl->target != NULL)
		return fail(EXIT_USAGE, "more than one HOST:PORT given");
	cl->target = a;
	return 0;
}
static int set_servername(void *ctx, const char *a)
{
	((struct client *)ctx)->servername = a;
	return 0;
}
static int set_ca(void *ctx, const char *a)
{
	((struct client *)ctx)->ca = a;
	return 0;
}
static int set_capath(void *ctx, const char *a)
{
	((struct client *)ctx)->capath = a;
	return 0;
}
static int set_pin(void *ctx, const char *a)
{
	((struct client *)ctx)->pin = a;
	return 0;
}
static int set_cert(void *ctx, const char *a)
{
	((struct client *)ctx)->cert = a;
	return 0;
}
static int set_key(void *ctx, const char *a)
{
	((struct client *)ctx)->key = a;
	return 0;
}
static int set_insecure(void *ctx, const char *a)
{
	(void)a;
	((struct client *)ctx)->insecure = 1;
	return 0;
}
static int set_alpn(void *ctx, const char *a)
{
	((struct client *)ctx)->alpn_list = a; /* as given, for --via */
	return parse_alpn(&((struct client *)ctx)->algs, a);
}

static int set_via(void *ctx, const char *a)
{
	((struct client *)ctx)->via = a;
	return 0;
}
static int set_suites(void *ctx, const char *a)
{
	return parse_suites(&((struct client *)ctx)->algs, a);
}
static int set_groups(void *ctx, const char *a)
{
	return parse_groups(&((struct client *)ctx)->algs, a);
}
static int set_sigs(void *ctx, const char *a) { return parse_sigs(&((struct client *)ctx)->algs, a); }
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
static int set_ktls(void *ctx, const char *a) { return parse_ktls(&((struct client *)ctx)->ktls, a); }
static int set_sess_in(void *ctx, const char *a)
{
	((struct client *)ctx)->sess_in = a;
	return 0;
}
static int set_sess_out(void *ctx, const char *a)
{
	((struct client *)ctx)->sess_out = a;
	return 0;
}
static int set_psk_ke(void *ctx, const char *a)
{
	(void)a;
	((struct client *)ctx)->psk_ke = 1;
	return 0;
}
static int set_early(void *ctx, const char *a)
{
	((struct client *)ctx)->early_arg = a;
	return 0;
}
static int set_psk(void *ctx, const char *a)
{
	struct client *cl = ctx;

	return parse_psk_hex(a, cl->psk, sizeof(cl->psk), &cl->psk_len);
}
static int set_psk_identity(void *ctx, const char *a)
{
	((struct client *)ctx)->psk_identity = a;
	return 0;
}
static int set_verbose(void *ctx, const char *a)
{
	(void)ctx;
	(void)a;
	prog_verbosity = 3;
	return 0;
}
static int set_json(void *ctx, const char *a)
{
	(void)a;
	((struct client *)ctx)->json = 1;
	return 0;
}
static int set_timeout(void *ctx, const char *a)
{
	char *end;
	unsigned long v = strtoul(a, &end, 10);

	if (*a < '0' || *a > '9' || *end != '\0' || v > 86400)
		return fail(EXIT_USAGE, "--timeout wants seconds from 0 (none) to 86400, not '%s'", a);
	((struct client *)ctx)->timeout_s = (unsigned)v;
	return 0;
}
static int set_version(void *ctx, const char *a)
{
	(void)a;
	((struct client *)ctx)->version = 1;
	return 0;
}
static int set_help(void *ctx, const char *a)
{
	(void)a;
	((struct client *)ctx)->help = 1;
	return 0;
}

static const struct opt options[] = {
	{ "--connect -connect", "HOST:PORT", set_target, "server to connect to (or a positional HOST:PORT)" },
	{ "--servername -servername", "NAME", set_servername,
	  "name sent as SNI and checked against the certificate (default: HOST)" },
	{ "--ca -CAfile", "FILE", set_ca,
	  "trust the CA certificates in FILE (PEM) instead of the system roots" },
	{ "--capath -CApath", "DIR", set_capath,
	  "trust the CA certificates in the files of DIR instead of the system roots" },
	{ "--pin", "FILE", set_pin,
	  "pin: the server's leaf must be exactly the first certificate in FILE" },
	{ "--cert -cert", "FILE", set_cert, "client certificate chain, PEM, leaf first (mTLS)" },
	{ "--key -key", "FILE", set_key, "client private key, PEM (PKCS#8, SEC1)" },
	{ "--insecure -k", NULL, set_insecure, "skip certificate verification (chain, pin, name)" },
	{ "--alpn -alpn", "LIST", set_alpn, "ALPN protocols to offer, comma-separated" },
	{ "--ciphersuites -ciphersuites", "LIST", set_suites,
	  "TLS 1.3 suites in preference order (':' or ',')" },
	{ "--groups -groups -curves", "LIST", set_groups,
	  "groups: x25519, P-256; the first gets a key share" },
	{ "--sigalgs -sigalgs", "LIST", set_sigs, "signature schemes: ecdsa_secp256r1_sha256, ed25519, rsa_pss_rsae_sha256/384/512, ecdsa_secp384r1_sha384 (verify only)" },
	{ "--quiet -quiet", NULL, set_quiet, "no status output (errors only)" },
	{ "--brief -brief", NULL, set_brief, "one status line after the handshake" },
	{ "--verbose -v -msg", NULL, set_verbose,
	  "trace states, records and messages (direction, type, length) on stderr" },
	{ "--json", NULL, set_json,
	  "one JSON object on stderr per connection instead of the status lines" },
	{ "--timeout", "SECS", set_timeout,
	  "give up when connect + handshake take longer (default 300, 0: never)" },
	{ "--via", "PATH", set_via,
	  "let handshaked (its socket PATH) do the handshake and put the socket on kTLS" },
	{ "--ktls", "[=require]", set_ktls,
	  "records on kernel TLS after the handshake (else userspace; =require: or exit 5)" },
	{ "--sess-in -sess_in", "FILE", set_sess_in, "resume with a ticket of this saved session" },
	{ "--sess-out -sess_out", "FILE", set_sess_out,
	  "save the session (the server's tickets, secret: mode 0600) when done" },
	{ "--psk-ke", NULL, set_psk_ke, "resume in psk_ke mode (no (EC)DHE; default psk_dhe_ke)" },
	{ "--early-data -early_data", "FILE|TEXT", set_early,
	  "0-RTT: send FILE's contents (or TEXT itself) as early data (with --sess-in)" },
	{ "--psk -psk", "HEX", set_psk,
	  "external PSK (SHA-256 suites); without --ca/--capath/--pin only the PSK authenticates" },
	{ "--psk-identity -psk_identity", "ID", set_psk_identity, "its identity (default Client_identity)" },
	{ "--version -version", NULL, set_version, "print the version and exit" },
	{ "--help -help -h", NULL, set_help, "this text" },
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static void usage(void)
{
	printf("usage: hs-client HOST:PORT [options]\n"
	       "TLS 1.3 client: sends stdin, writes what it receives to stdout; at the end of\n"
	       "stdin it sends close_notify and waits for the server's.\n\n");
	opts_help(options, N_OPTIONS);
	printf("\nVerification: on by default. The server's chain must lead to a trusted root\n"
	       "(RFC 5280: signatures, validity, CA flags, extendedKeyUsage serverAuth) and its\n"
	       "subjectAltName match the server name. The roots are the system's\n"
	       "(" HS_X509_DEFAULT_BUNDLE "), or those of --ca FILE and/or\n"
	       "--capath DIR (a self-signed server certificate given as --ca is trusted as\n"
	       "itself). --pin FILE instead requires that exact leaf (and the name); with\n"
	       "--ca/--capath too, both must pass. --insecure skips all of it (the server's\n"
	       "CertificateVerify signature is still checked). --cert/--key answer a server's\n"
	       "CertificateRequest; without them, or if the server accepts none of the key's\n"
	       "signature schemes, an empty Certificate is sent.\n"
	       "\nExit status: 0 ok, 1 TLS or transfer failure, 2 usage, 3 certificate\n"
	       "verification failed (the reason: expired, unknown issuer, name mismatch...,\n"
	       "or the server's alert about our certificate), 4 network error, 5 kTLS\n"
	       "unavailable (--ktls=require only; plain --ktls falls back to userspace records\n"
	       "and says so); a one-line reason goes to stderr. --timeout covers connect and\n"
	       "handshake together; running out is a network error (4). --ktls=require\n"
	       "probes the kernel before connecting and offers only the suites it takes.\n");
}

static int load_pin(struct client *cl)
{
	char *pem = NULL;
	size_t len = 0;
	int err;

	if (check_readable("--pin", cl->pin, 0) != 0)
		return EXIT_USAGE;
	if ((err = hs_read_file(cl->pin, &pem, &len)) != 0)
		return fail(EXIT_USAGE, "cannot read --pin file '%s': %s", cl->pin, hs_strerror(err));
	err = hs_pem_cert_to_der(pem, len, cl->anchor, sizeof(cl->anchor), &cl->anchor_len);
	free(pem);
	if (err)
		return ca_fail("--pin", cl->pin, err);
	return 0;
}

/* The trust store: --ca and/or --capath, else the system roots (unless
 * only a --pin is given). *store stays NULL when none is wanted. */
static int load_trust(const struct client *cl, struct hs_x509_store **store)
{
	int err;

	*store = NULL;
	if (cl->ca == NULL && cl->capath == NULL && cl->pin != NULL)
		return 0;
	if (hs_x509_store_new(store) != 0)
		return fail(EXIT_TLS, "out of memory");
	if (cl->ca != NULL && check_readable("--ca", cl->ca, 0) != 0)
		return EXIT_USAGE;
	if (cl->capath != NULL && check_readable("--capath", cl->capath, 1) != 0)
		return EXIT_USAGE;
	if (cl->ca != NULL && (err = hs_x509_store_load_file(*store, cl->ca)) != 0)
		return ca_fail("--ca", cl->ca, err);
	if (cl->capath != NULL)
		(void)capath_check(cl->capath);
	if (cl->capath != NULL && (err = hs_x509_store_load_dir(*store, cl->capath)) != 0)
		return fail(EXIT_USAGE, "cannot load CA directory '%s': %s", cl->capath,
			    hs_strerror(err));
	if (cl->ca == NULL && cl->capath == NULL && (err = hs_x509_store_load_default(*store)) != 0)
		return fail(EXIT_VERIFY, "cannot load the system roots (%s): %s; use --ca FILE, "
					 "--pin FILE or --insecure", HS_X509_DEFAULT_BUNDLE,
			    hs_strerror(err));
	return 0;
}

static int load_client_cred(const struct client *cl, struct hs_cred **cred)
{
	int err;

	*cred = NULL;
	if ((cl->cert == NULL) != (cl->key == NULL))
		return fail(EXIT_USAGE, "--cert and --key go together");
	if (cl->cert == NULL)
		return 0;
	if (check_readable("--cert", cl->cert, 0) != 0 || check_readable("--key", cl->key, 0) != 0)
		return EXIT_USAGE;
	err = hs_cred_load_files(cred, cl->cert, cl->key);
	if (err)
		return cred_fail(cl->cert, cl->key, err);
	return 0;
}

static const char *verify_desc(const struct client *cl)
{
	if (cl->insecure)
		return "skipped";
	if (cl->pin != NULL)
		return cl->ca != NULL || cl->capath != NULL ? "chain+pin+name" : "pin+name";
	return "chain+name";
}

/*
 * Refuse a configuration the engine refuses before connecting: above all
 * a server name that is neither a host name nor an IP address (RFC 6066
 * 3; "example.com." and "a_b" included), which must not go out as SNI.
 */
static int check_config(const struct hs_config *cfg)
{
	struct hs_conn *probe = NULL;
	char name[ESC_MAX];
	int err = hs_conn_new(&probe, cfg);

	hs_conn_free(probe);
	if (err == HS_ERR_ARG)
		return fail(EXIT_USAGE,
			    "invalid server name '%s': want a host name (letters, digits, '-', "
			    "dots between labels, no trailing dot) or an IP address",
			    escape_peer(cfg->server_name, name, sizeof(name)));
	if (err)
		return fail(EXIT_TLS, "cannot create the connection: %s", hs_strerror(err));
	return 0;
}

/* --sess-in: the saved session (*out stays NULL without the option). */
static int load_session(const struct client *cl, struct hs_session **out)
{
	uint8_t buf[HS_SESSION_MAX];
	size_t n;
	FILE *f;
	int err;

	*out = NULL;
	if (cl->sess_in == NULL)
		return 0;
	f = fopen(cl->sess_in, "rb");
	if (f == NULL)
		return fail(EXIT_USAGE, "cannot open --sess-in file '%s'", cl->sess_in);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	err = hs_session_load(out, buf, n);
	wipe(buf, sizeof(buf));
	if (err)
		return fail(EXIT_USAGE, "--sess-in '%s': not a saved session (%s)", cl->sess_in,
			    hs_strerror(err));
	return 0;
}

/* --sess-out: the tickets this connection got, in a file only we read. */
static int save_session(const struct client *cl, const struct hs_conn *c)
{
	struct hs_session *s = NULL;
	uint8_t buf[HS_SESSION_MAX];
	size_t n = 0;
	int err, fd;
	FILE *f;

	if (cl->sess_out == NULL)
		return 0;
	err = hs_conn_session(c, &s);
	if (err == 0)
		err = hs_session_save(s, buf, sizeof(buf), &n);
	hs_session_free(s);
	if (err) {
		note(1, "no session saved: the server sent no ticket");
		return 0;
	}
	fd = open(cl->sess_out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (f == NULL || fwrite(buf, 1, n, f) != n) {
		if (f != NULL)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		wipe(buf, sizeof(buf));
		return fail(EXIT_USAGE, "cannot write --sess-out file '%s'", cl->sess_out);
	}
	wipe(buf, sizeof(buf));
	fclose(f);
	note(2, "session saved to %s", cl->sess_out);
	return 0;
}

/* --early-data: a readable file's contents, else the text itself. */
static int load_early(struct client *cl)
{
	int err;

	if (cl->early_arg == NULL)
		return 0;
	if (cl->sess_in == NULL)
		return fail(EXIT_USAGE, "--early-data needs --sess-in (0-RTT resumes a session)");
	if (access(cl->early_arg, R_OK) == 0) {
		err = hs_read_file(cl->early_arg, &cl->early, &cl->early_len);
		if (err)
			return fail(EXIT_USAGE, "cannot read --early-data file '%s': %s",
				    cl->early_arg, hs_strerror(err));
		return 0;
	}
	cl->early_len = strlen(cl->early_arg);
	cl->early = malloc(cl->early_len + 1);
	if (cl->early == NULL)
		return fail(EXIT_TLS, "out of memory");
	memcpy(cl->early, cl->early_arg, cl->early_len + 1);
	return 0;
}

/*
 * 0-RTT: as much of --early-data as the ticket allows goes out right after
 * the ClientHello (*n bytes). After the handshake: rejected, all of it is
 * sent again as 1-RTT data; accepted, what did not fit follows as 1-RTT.
 */
static int early_write(const struct client *cl, struct hs_conn *c, size_t *n)
{
	int err;

	*n = 0;
	if (cl->early == NULL)
		return 0;
	err = hs_conn_write_early(c, (const uint8_t *)cl->early, cl->early_len, n);
	if (err == HS_ERR_TLS_STATE) {
		note(1, "early data: not offered (the session's ticket allows no 0-RTT)");
		return 0;
	}
	return err;
}

static int early_finish(const struct client *cl, struct hs_conn *c, int sock, size_t n)
{
	int err = 0;

	if (cl->early == NULL)
		return 0;
	if (hs_conn_early_data(c) == HS_EARLY_ACCEPTED) {
		note(1, "early data: accepted %zu bytes", n);
	} else {
		if (hs_conn_early_data(c) == HS_EARLY_REJECTED)
			note(1, "early data: rejected (%zu bytes sent again as 1-RTT data)", n);
		n = 0;
	}
	if (n < cl->early_len)
		err = hs_fd_write(c, sock, cl->early + n, cl->early_len - n);
	return err ? tls_fail(c, err, "sending the early data as 1-RTT") : 0;
}

/* Handshake, report, relay; deadline_ms: what --timeout leaves after connect. */
static int run(const struct client *cl, const struct hs_config *cfg, int sock, unsigned deadline_ms)
{
	struct relay r = { .mode = RELAY_STDIO, .in_fd = 0, .out_fd = 1, .ktls = cl->ktls };
	struct conn_report rep = { .peer = cl->target, .verify = verify_desc(cl),
				   .server_name = cfg->server_name,
				   .client_cert = cfg->cred != NULL ? "offered" : "none",
				   .ktls_tx = "off", .ktls_rx = "off" };
	struct hs_conn *c = NULL;
	char desc[ESC_MAX + 200];
	double t0 = now_ms();
	size_t early_n = 0;
	int err = hs_conn_new(&c, cfg), rc;

	if (err)
		return fail(EXIT_TLS, "cannot create the connection: %s", hs_strerror(err));
	err = early_write(cl, c, &early_n);
	if (err == 0)
		err = hs_fd_handshake_deadline(c, sock, deadline_ms);
	rep.handshake_ms = now_ms() - t0;
	if (err == HS_ERR_TLS_TIMEOUT)
		rc = fail(EXIT_NET, "handshake: timed out after %u s (--timeout)", cl->timeout_s);
	else if (err)
		rc = tls_fail(c, err, "handshake");
	if (err)
		goto report;
	describe(c, desc, sizeof(desc));
	note(1, "%s verify=%s%s", desc, verify_desc(cl), cfg->cred != NULL ? " client-cert=offered" : "");
	if (cfg->psk != NULL)
		note(1, "psk: %s", psk_desc(c, 1));
	else if (cfg->session != NULL || cl->sess_out != NULL)
		note(1, "session: %s", psk_desc(c, 0));
	rc = early_finish(cl, c, sock, early_n);
	if (rc == 0)
		rc = relay_run(&r, c, sock);
	note(2, "done: %llu bytes sent, %llu received", (unsigned long long)r.bytes_out,
	     (unsigned long long)r.bytes_in);
	if (save_session(cl, c) != 0 && rc == 0)
		rc = EXIT_USAGE;
	rep.bytes_sent = r.bytes_out;
	rep.bytes_received = r.bytes_in;
	if (r.ktls_tx != NULL)
		rep.ktls_tx = r.ktls_tx;
	if (r.ktls_rx != NULL)
		rep.ktls_rx = r.ktls_rx;
report:
	rep.exit_code = rc;
	if (cl->json)
		report_json(stderr, c, &rep);
	hs_conn_free(c);
	return rc;
}

/* What --timeout leaves once connect took its part (0: no deadline). */
static unsigned deadline_left(unsigned timeout_s, double t0)
{
	double left = (double)timeout_s * 1000.0 - (now_ms() - t0);

	if (timeout_s == 0)
		return 0;
	return left < 1.0 ? 1u : (unsigned)left;
}

/* --via: the daemon does the handshake with its credentials; then stdin/stdout over kTLS */
static int via(const struct client *cl, const struct hs_config *cfg, int sock, unsigned deadline_ms)
{
	struct hs_handoff_request q = { .role = HS_HANDOFF_CLIENT, .server_name = cfg->server_name,
					.alpn = cl->alpn_list, .timeout_ms = deadline_ms };
	struct relay r = { .mode = RELAY_STDIO, .in_fd = 0, .out_fd = 1 };
	struct hs_handoff_result res;
	char alpn[ESC_MAX];
	int err = hs_handoff(cl->via, sock, &q, &res), rc;

	if (err)
		return fail(EXIT_NET, "handshaked at %s: %s", cl->via, hs_strerror(err));
	if (res.status != 0)
		return fail(res.status == HS_ERR_UNSUPPORTED ? EXIT_KTLS : EXIT_TLS,
			    "handshaked: %s", res.detail[0] ? res.detail : hs_strerror(res.status));
	note(1, "handshaked: TLSv1.3 %s alpn=%s; the socket is on kernel TLS", hs_suite_name(res.suite),
	     res.alpn[0] ? escape_peer(res.alpn, alpn, sizeof(alpn)) : "-");
	rc = relay_adopted(&r, sock, res.suite);
	note(2, "done: %llu bytes sent, %llu received", (unsigned long long)r.bytes_out,
	     (unsigned long long)r.bytes_in);
	return rc;
}

int main(int argc, char **argv)
{
	static struct client cl;
	struct hs_config cfg = { .role = HS_ROLE_CLIENT };
	struct hs_x509_store *trust = NULL;
	struct hs_cred *cred = NULL;
	struct hs_session *sess = NULL;
	char host[256], port[32];
	int rc, sock;

	double t0;

	prog_name = "hs-client";
	signal(SIGPIPE, SIG_IGN);
	cl.timeout_s = DEFAULT_TIMEOUT;
	rc = opts_parse(options, N_OPTIONS, argc, argv, &cl, set_target);
	if (rc)
		return rc;
	if (cl.help) {
		usage();
		return EXIT_OK;
	}
	if (cl.version) {
		print_version();
		return EXIT_OK;
	}
	if (cl.json && prog_verbosity < 3)
		prog_verbosity = 0; /* the object replaces the status lines; errors still print */
	if (cl.target == NULL)
		return fail(EXIT_USAGE, "no HOST:PORT given (try --help)");
	if ((rc = split_hostport(cl.target, host, sizeof(host), port, sizeof(port), 0)) != 0)
		return rc;
	if (cl.ktls == RELAY_KTLS_REQUIRE && (rc = ktls_require_check(&cl.algs)) != 0)
		return rc;
	if (!cl.insecure && cl.pin != NULL && (rc = load_pin(&cl)) != 0)
		return rc;
	/* --psk alone: no roots, the PSK is the only way the server is trusted */
	if (!cl.insecure && !(cl.psk_len > 0 && cl.ca == NULL && cl.capath == NULL && cl.pin == NULL) &&
	    (rc = load_trust(&cl, &trust)) != 0)
		goto out;
	if ((rc = load_client_cred(&cl, &cred)) != 0)
		goto out;
	algs_apply(&cl.algs, &cfg);
	cfg.server_name = cl.servername != NULL ? cl.servername : host;
	cfg.anchor_der = cl.anchor_len > 0 ? cl.anchor : NULL;
	cfg.anchor_len = cl.anchor_len;
	cfg.trust = trust;
	cfg.insecure = cl.insecure;
	cfg.cred = cred;
	if ((rc = load_session(&cl, &sess)) != 0)
		goto out;
	cfg.session = sess;
	cfg.psk_ke = cl.psk_ke;
	if ((rc = load_early(&cl)) != 0)
		goto out;
	cfg.early_data = cl.early != NULL;
	cfg.keep_tickets = cl.sess_out != NULL;
	if (cl.psk_len > 0) {
		const char *id = cl.psk_identity ? cl.psk_identity : "Client_identity";
		cfg.psk = cl.psk;
		cfg.psk_len = cl.psk_len;
		cfg.psk_identity = (const uint8_t *)id;
		cfg.psk_identity_len = strlen(id);
	}
	trace_attach(&cfg);
	if ((rc = check_config(&cfg)) != 0)
		goto out;
	t0 = now_ms();
	if ((rc = net_connect(host, port, cl.timeout_s * 1000u, &sock)) != 0) {
		struct conn_report rep = { .peer = cl.target, .exit_code = rc,
					   .server_name = cfg.server_name, .verify = verify_desc(&cl),
					   .client_cert = "none", .ktls_tx = "off", .ktls_rx = "off" };
		if (cl.json) /* the connection that did not happen gets its object too */
			report_json(stderr, NULL, &rep);
		goto out;
	}
	note(2, "connected to %s port %s", host, port);
	rc = cl.via != NULL ? via(&cl, &cfg, sock, deadline_left(cl.timeout_s, t0))
			    : run(&cl, &cfg, sock, deadline_left(cl.timeout_s, t0));
	close(sock);
out:
	wipe(cl.psk, sizeof(cl.psk));
	free(cl.early);
	hs_session_free(sess);
	hs_cred_free(cred);
	hs_x509_store_free(trust);
	return rc;
}
