/*
 * Implementation notes: the rows of "hs-bench handshake".
 *
 * One operation is one full TLS 1.3 handshake between a client and a
 * server of the same library, pumped in memory in one thread (see
 * tls_peers.h): X25519, an ECDSA P-256 certificate, TLS_AES_128_GCM_SHA256,
 * no resumption. It includes making and freeing both connection objects
 * (hs_conn_new/hs_conn_free, SSL_new/SSL_free); the credentials, contexts
 * and wires are made once.
 *
 *   handshake, no verify      the client checks CertificateVerify but not
 *                             the certificate (hs: insecure; OpenSSL:
 *                             SSL_VERIFY_NONE)
 *   handshake, pinned + name  the client also checks the certificate: hs
 *                             pins it (byte-identical leaf) and matches
 *                             "localhost" against its SAN; OpenSSL:
 *                             SSL_VERIFY_PEER with the certificate as the
 *                             only trust anchor and the host name set
 *   handshake, client side    the pinned + name handshake, counting only
 *   handshake, server side    the CPU time spent inside one side's calls
 *                             (thread CPU clock read around each call), so
 *                             the rate is handshakes per CPU second of
 *                             that side alone
 *   handshake, RSA-2048 server cert
 *                             pinned + name with a self-signed RSA-2048
 *                             certificate: the server signs
 *                             rsa_pss_rsae_sha256, the client verifies it
 *   handshake, chain via intermediate
 *                             P-256 root -> intermediate -> leaf; the
 *                             server sends leaf + intermediate, the client
 *                             validates the path (hs: hs_x509 trust store
 *                             holding the root; OpenSSL: SSL_VERIFY_PEER,
 *                             the root as CA) and the name
 *
 *   handshake, resumed psk_dhe_ke
 *   handshake, resumed psk_ke
 *                             a ticket from a pinned + name handshake
 *                             resumed (RFC 8446 2.2): X25519 with the PSK,
 *                             or the PSK alone; no certificate, no
 *                             signature. The server issues one ticket per
 *                             handshake, which the client takes (hs:
 *                             keep_tickets; OpenSSL: the SSL_read that
 *                             reads it); the client offers the same
 *                             session each time (hs: reuse_tickets)
 *
 *   handshake, P-256 key exchange (and its client / server side rows)
 *                             pinned + name with secp256r1 as the one key
 *                             exchange group (both sides: keygen + ECDH
 *                             on P-256 instead of X25519)
 *
 * Before a row is timed, its check runs once: each library completes a
 * handshake with the asked parameters and one byte goes each way.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>

#include "bench/bench.h"
#include "bench/tls_peers.h"

enum side_only { BOTH = 0, CLIENT_ONLY, SERVER_ONLY };

struct hs_row {
	const char *name; /* scripts match these names: do not change them */
	enum peer_verify verify;
	enum side_only side;
};

static const struct hs_row rows[] = {
	{ "handshake, no verify", PEER_NO_VERIFY, BOTH },
	{ "handshake, pinned + name", PEER_PINNED, BOTH },
	{ "handshake, client side", PEER_PINNED, CLIENT_ONLY },
	{ "handshake, server side", PEER_PINNED, SERVER_ONLY },
	{ "handshake, RSA-2048 server cert", PEER_RSA, BOTH },
	{ "handshake, chain via intermediate", PEER_CHAIN, BOTH },
	{ "handshake, resumed psk_dhe_ke", PEER_RESUME_DHE, BOTH },
	{ "handshake, resumed psk_ke", PEER_RESUME_KE, BOTH },
	{ "handshake, P-256 key exchange", PEER_P256_KX, BOTH },
	{ "handshake, P-256 kx client side", PEER_P256_KX, CLIENT_ONLY },
	{ "handshake, P-256 kx server side", PEER_P256_KX, SERVER_ONLY },
};

struct hs_arg {
	const struct peers *p;
	struct hs_pair x;
};

struct ossl_arg {
	const struct peers *p;
	struct ossl_pair x;
};

static int hs_handshake_op(void *arg)
{
	struct hs_arg *a = arg;
	int r = hs_pair_start(&a->x, a->p);

	if (r == 0)
		r = hs_pair_handshake(&a->x, 0);
	hs_pair_finish(&a->x);
	return r;
}

static int ossl_handshake_op(void *arg)
{
	struct ossl_arg *a = arg;
	int r = ossl_pair_start(&a->x, a->p);

	if (r == 0)
		r = ossl_pair_handshake(&a->x, 0);
	ossl_pair_finish(&a->x);
	return r;
}

static const double *own(enum side_only side, double *client_ns, double *server_ns)
{
	return side == CLIENT_ONLY ? client_ns : side == SERVER_ONLY ? server_ns : NULL;
}

static int run_row(const struct bench_opts *o, const struct hs_row *row, const struct peers *p)
{
	static struct hs_arg ha;
	static struct ossl_arg oa;
	struct bench_side hs = { hs_handshake_op, &ha, NULL }, ref = { ossl_handshake_op, &oa, NULL };
	char backend[128];
	struct bench_row out = { .name = row->name, .unit = "ops/s", .backend = backend };
	int r;

	if (peers_check(p) != 0) {
		fprintf(stderr, "hs-bench: row \"%s\" refused: its check failed\n", row->name);
		return -1;
	}
	if (hs_pair_alloc(&ha.x) != 0)
		return -1;
	ha.p = oa.p = p;
	memset(&oa.x, 0, sizeof(oa.x));
	ha.x.clock = oa.x.clock = row->side != BOTH;
	hs.own_ns = own(row->side, &ha.x.client_ns, &ha.x.server_ns);
	ref.own_ns = own(row->side, &oa.x.client_ns, &oa.x.server_ns);
	r = bench_pair(o, &hs, &ref, &out.hs, &out.ref);
	hs_pair_release(&ha.x);
	if (r != 0) {
		fprintf(stderr, "hs-bench: row \"%s\" refused: a handshake failed while timing\n",
			row->name);
		ERR_print_errors_fp(stderr);
		return -1;
	}
	snprintf(backend, sizeof(backend), "%s %s %s", hs_suite_name(p->suite),
		 p->verify == PEER_RESUME_KE ? "no-dhe" : hs_group_name(peers_group(p)),
		 (p->verify == PEER_RESUME_DHE || p->verify == PEER_RESUME_KE) ? "psk" : hs_sig_scheme_name(p->scheme));
	bench_emit(o, &out);
	return 0;
}

int bench_handshake(const struct bench_opts *o)
{
	struct peers p[PEER_MODES];
	int inited[PEER_MODES] = { 0 }, status = 0, matched = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum peer_verify v = rows[i].verify;

		if (!bench_match(o, rows[i].name))
			continue;
		matched = 1;
		if (inited[v] == 0)
			inited[v] = peers_init(&p[v], HS_TLS_AES_128_GCM_SHA256, v) == 0 ? 1 : -1;
		if (inited[v] < 0 || run_row(o, &rows[i], &p[v]) != 0)
			status = 1;
	}
	for (int v = 0; v < PEER_MODES; v++)
		if (inited[v] > 0)
			peers_free(&p[v]);
	if (!matched) {
		fprintf(stderr, "hs-bench: no handshake row matches \"%s\"\n", o->filter);
		return 1;
	}
	return status;
}
