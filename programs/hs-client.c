/*
 * hs-client: a TLS 1.3 client in the spirit of `openssl s_client`. It
 * connects, verifies the server (the pinned certificate and the name),
 * sends its stdin and writes what it receives to stdout. At the end of
 * stdin it sends close_notify and keeps reading until the server closes.
 *
 * Implementation notes: options are one table (OpenSSL spellings share a
 * row with ours); the handshake runs on the blocking socket through
 * hs_fd_connect(), which reads nothing past the handshake (kTLS seam), then
 * relay_run() moves the data. Status goes to stderr, data only to stdout.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hs/cred.h"
#include "hs/fd.h"

#define ANCHOR_MAX 16384

struct client {
	const char *target, *servername, *ca;
	int insecure, help;
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
static int set_insecure(void *ctx, const char *a)
{
	(void)a;
	((struct client *)ctx)->insecure = 1;
	return 0;
}
static int set_alpn(void *ctx, const char *a) { return parse_alpn(&((struct client *)ctx)->algs, a); }
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
	  "PIN the server's certificate: the first certificate in FILE must be the server's leaf" },
	{ "--insecure -k", NULL, set_insecure, "skip certificate verification (pin and name)" },
	{ "--alpn -alpn", "LIST", set_alpn, "ALPN protocols to offer, comma-separated" },
	{ "--ciphersuites -ciphersuites", "LIST", set_suites,
	  "TLS 1.3 suites in preference order (':' or ',')" },
	{ "--groups -groups -curves", "LIST", set_groups,
	  "groups: x25519, P-256; the first gets a key share" },
	{ "--sigalgs -sigalgs", "LIST", set_sigs, "signature schemes: ecdsa_secp256r1_sha256, ed25519" },
	{ "--quiet -quiet", NULL, set_quiet, "no status output (errors only)" },
	{ "--brief -brief", NULL, set_brief, "one status line after the handshake" },
	{ "--help -help -h", NULL, set_help, "this text" },
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static void usage(void)
{
	printf("usage: hs-client HOST:PORT [options]\n"
	       "TLS 1.3 client: sends stdin, writes what it receives to stdout; at the end of\n"
	       "stdin it sends close_notify and waits for the server's.\n\n");
	opts_help(options, N_OPTIONS);
	printf("\nVerification: on by default. Full certificate path validation does not exist\n"
	       "yet, so --ca FILE pins a certificate: the server must present exactly it, and\n"
	       "its subjectAltName must match the server name. --insecure skips both (the\n"
	       "server's CertificateVerify signature is still checked).\n"
	       "\nExit status: 0 ok, 1 TLS or transfer failure, 2 usage, 3 certificate\n"
	       "verification failed, 4 network error; a one-line reason goes to stderr.\n");
}

static int load_anchor(struct client *cl)
{
	char *pem = NULL;
	size_t len = 0;
	int err = hs_read_file(cl->ca, &pem, &len);

	if (err)
		return fail(EXIT_USAGE, "cannot read --ca file '%s'", cl->ca);
	err = hs_pem_cert_to_der(pem, len, cl->anchor, sizeof(cl->anchor), &cl->anchor_len);
	free(pem);
	if (err)
		return fail(EXIT_USAGE, "no usable CERTIFICATE in '%s': %s", cl->ca, hs_strerror(err));
	return 0;
}

/* Handshake, report, relay. */
static int run(struct client *cl, const struct hs_config *cfg, int sock)
{
	struct relay r = { .mode = RELAY_STDIO, .in_fd = 0, .out_fd = 1 };
	struct hs_conn *c = NULL;
	char desc[200];
	int err = hs_conn_new(&c, cfg), rc;

	if (err)
		return fail(EXIT_TLS, "cannot create the connection: %s", hs_strerror(err));
	err = hs_fd_connect(c, sock);
	if (err) {
		rc = tls_fail(c, err, "handshake");
		hs_conn_free(c);
		return rc;
	}
	describe(c, desc, sizeof(desc));
	note(1, "%s verify=%s", desc, cl->insecure ? "skipped" : "pin+name");
	rc = relay_run(&r, c, sock);
	note(2, "done: %llu bytes sent, %llu received", (unsigned long long)r.bytes_out,
	     (unsigned long long)r.bytes_in);
	hs_conn_free(c);
	return rc;
}

int main(int argc, char **argv)
{
	static struct client cl;
	struct hs_config cfg = { .role = HS_ROLE_CLIENT };
	char host[256], port[32];
	int rc, sock;

	prog_name = "hs-client";
	signal(SIGPIPE, SIG_IGN);
	rc = opts_parse(options, N_OPTIONS, argc, argv, &cl, set_target);
	if (rc)
		return rc;
	if (cl.help) {
		usage();
		return EXIT_OK;
	}
	if (cl.target == NULL)
		return fail(EXIT_USAGE, "no HOST:PORT given (try --help)");
	if ((rc = split_hostport(cl.target, host, sizeof(host), port, sizeof(port), 0)) != 0)
		return rc;
	if (cl.ca == NULL && !cl.insecure)
		return fail(EXIT_VERIFY, "cannot verify the server without --ca FILE "
					 "(the certificate to pin); --insecure skips verification");
	if (cl.ca != NULL && !cl.insecure && (rc = load_anchor(&cl)) != 0)
		return rc;
	algs_apply(&cl.algs, &cfg);
	cfg.server_name = cl.servername != NULL ? cl.servername : host;
	cfg.anchor_der = cl.anchor_len > 0 ? cl.anchor : NULL;
	cfg.anchor_len = cl.anchor_len;
	cfg.insecure = cl.insecure;
	if ((rc = net_connect(host, port, &sock)) != 0)
		return rc;
	note(2, "connected to %s port %s", host, port);
	rc = run(&cl, &cfg, sock);
	close(sock);
	return rc;
}
