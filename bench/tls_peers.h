/*
 * hs-bench: the TLS peers shared by "hs-bench handshake" and "hs-bench
 * record". One credential (a fresh self-signed P-256 certificate for
 * "localhost", generated at start with OpenSSL; or, for the RSA row, a
 * self-signed RSA-2048 one; or, for the chain row, a P-256 leaf issued by
 * a P-256 intermediate under a P-256 root) is given to both libraries;
 * each library gets a client and a server configured alike:
 * TLS 1.3 only, one suite, one group (X25519), one signature scheme
 * (ecdsa_secp256r1_sha256, or rsa_pss_rsae_sha256 for RSA), no tickets, no
 * resumption.
 *
 * A "pair" is one client and one server of the same library connected in
 * memory and pumped in one thread: hs through hs_conn_pull/hs_conn_feed
 * into a byte buffer per direction, OpenSSL through a BIO pair.
 *
 * Per-side CPU time: when a pair's clock is on, every call into a side's
 * connection is bracketed by CLOCK_THREAD_CPUTIME_ID reads and the time is
 * added to that side's counter (client_ns, server_ns), so the handshake
 * cost of each side can be told apart.
 */
#ifndef HS_BENCH_TLS_PEERS_H
#define HS_BENCH_TLS_PEERS_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>
#include <sys/types.h>

#include "hs/cred.h"
#include "hs/tls.h"

#define PEER_WIRE_CAP (1u << 17) /* bytes in flight one way: 4 full records and more */

/* What the client checks about the server's certificate. */
enum peer_verify {
	PEER_NO_VERIFY = 0, /* CertificateVerify only (hs: insecure; OpenSSL: SSL_VERIFY_NONE) */
	PEER_PINNED = 1,    /* + trust anchor and host name "localhost" */
	PEER_RSA = 2,       /* PEER_PINNED with a self-signed RSA-2048 certificate */
	PEER_CHAIN = 3,     /* leaf + intermediate sent; the client validates the path
			       to the root (hs: trust store; OpenSSL: root as CA) + name */
	PEER_RESUME_DHE = 4, /* PEER_PINNED's session resumed: psk_dhe_ke, X25519 */
	PEER_RESUME_KE = 5,  /* the same in psk_ke (no (EC)DHE) */
	PEER_P256_KX = 6,    /* PEER_PINNED with P-256 (secp256r1) as the key exchange group */
	PEER_MODES = 7,
};

/* The credential and both libraries' configurations, set up once. */
struct hs_x509_store;

struct peers {
	uint16_t suite;
	enum peer_verify verify;
	uint16_t scheme; /* the one signature scheme both sides use */
	struct hs_cred *cred;
	struct hs_x509_store *trust; /* PEER_CHAIN: hs's store holding the root */
	uint8_t anchor[2048]; /* the certificate, DER: hs's pin */
	size_t anchor_len;
	struct hs_config hs_client, hs_server;
	SSL_CTX *ossl_client, *ossl_server;
	/* resumption rows: each side's server issues one ticket per
	 * handshake; the client offers the same session every time (hs:
	 * reuse_tickets; OpenSSL: SSL_set_session of one SSL_SESSION) */
	struct hs_ticket_keys *tkeys;
	struct hs_session *hs_sess;
	SSL_SESSION *ossl_sess;
};

/* One client and one server of one library, and the per-side clocks. */
struct hs_pair {
	struct hs_conn *c, *s;
	uint8_t *c2s, *s2c; /* PEER_WIRE_CAP bytes each */
	size_t c2s_len, s2c_len;
	int clock;                  /* measure per-side CPU time */
	double client_ns, server_ns; /* accumulated while clock is on */
};

struct ossl_pair {
	SSL *c, *s;
	int clock;
	double client_ns, server_ns;
};

/*
 * Make the credential (once per process) and both libraries' contexts for
 * suite and verify mode. 0, or -1 with the reason on stderr.
 */
int peers_init(struct peers *p, uint16_t suite, enum peer_verify verify);
/* The key exchange group the mode's full handshakes use. */
uint16_t peers_group(const struct peers *p);
void peers_free(struct peers *p);
/* The credential as PEM files (for a peer program such as openssl s_server). */
int peers_write_pem(const struct peers *p, const char *cert_path, const char *key_path);

/* Thread CPU time in ns (for the per-side clocks). */
double peer_thread_ns(void);

/* hs: the wires are allocated once; start/finish make and free the connections. */
int hs_pair_alloc(struct hs_pair *x);
void hs_pair_release(struct hs_pair *x);
int hs_pair_start(struct hs_pair *x, const struct peers *p);
void hs_pair_finish(struct hs_pair *x);
/* Pump until both handshakes are done. 0, or -1 (reason on stderr when loud). */
int hs_pair_handshake(struct hs_pair *x, int loud);
/* Send len bytes one way through the engine and read them back on the other side. */
int hs_pair_send(struct hs_pair *x, int from_client, const uint8_t *buf, size_t len,
		 uint8_t *got);
/* Seal only: write len bytes on the client and pull the records, discarding them. */
int hs_pair_seal(struct hs_pair *x, const uint8_t *buf, size_t len);

int ossl_pair_start(struct ossl_pair *x, const struct peers *p);
void ossl_pair_finish(struct ossl_pair *x);
int ossl_pair_handshake(struct ossl_pair *x, int loud);
int ossl_pair_send(struct ossl_pair *x, int from_client, const uint8_t *buf, size_t len,
		   uint8_t *got);
int ossl_pair_seal(struct ossl_pair *x, const uint8_t *buf, size_t len);

/*
 * The check run once per row before timing: a handshake of each library,
 * both complete, the negotiated suite is the asked one, and one byte goes
 * each way. 0, or -1 with the reason on stderr.
 */
int peers_check(const struct peers *p);

/*
 * bench/tcp_rows.c (with liburing): a child process serving TLS with pe's
 * server on the listening socket lfd (hs_uring_serve) until SIGTERM.
 */
pid_t bench_uring_server(const struct peers *pe, int lfd);

#endif
