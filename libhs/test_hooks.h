/*
 * TEST-ONLY hooks, compiled in only when hs is configured with
 * -Dtest_hooks=true (the test suite does; a release build and the installed
 * library never have them, and nothing here is installed). They make a connection deterministic so published traces
 * (RFC 8448) can be reproduced byte for byte (randoms, key shares, the
 * RSA-PSS salt, the server's EncryptedExtensions), and let a test plug in
 * its own verifier for one signature scheme (RFC 8448's 1024-bit RSA key
 * is below what the engine's own verifier accepts).
 * Never use these in a program: they disable randomness.
 *
 * Call conn_test_hooks() right after hs_conn_new(): a client builds its
 * ClientHello lazily, on the first pull / output_pending / feed.
 */
#ifndef HS_LIBHS_TEST_HOOKS_H
#define HS_LIBHS_TEST_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "hs/err.h"
#include "hs/tls.h"

struct test_secrets;

typedef int (*test_verify_fn)(uint16_t scheme, const uint8_t *spki, size_t spki_len,
				 const uint8_t *msg, size_t msg_len, const uint8_t *sig,
				 size_t sig_len);

/* Key-schedule secrets of one connection (digest_len bytes each). */
struct test_secrets {
	size_t len;
	uint8_t client_hs[48], server_hs[48], client_ap[48], server_ap[48];
	uint8_t master[48], handshake[48];
	uint8_t client_early[48]; /* client_early_traffic_secret (0-RTT) */
};

struct test_hooks {
	const uint8_t *random;   /* 32 bytes: ClientHello / ServerHello random */
	const uint8_t *kx_priv;  /* key-share private key for kx_group */
	size_t kx_priv_len;
	uint16_t kx_group;
	/* client: send this ClientHello (whole handshake message) verbatim */
	const uint8_t *client_hello;
	size_t client_hello_len;
	/* accept this extra signature scheme, checked by verify */
	uint16_t extra_scheme;
	test_verify_fn verify;
	/* server: send no legacy compatibility CCS, fixed cookie bytes */
	const uint8_t *cookie;
	size_t cookie_len;
	/* RSA-PSS signer (CertificateVerify): this salt instead of a random one,
	 * and RSA keys from 1024 bits (RFC 8448's key) */
	const uint8_t *pss_salt;
	size_t pss_salt_len;
	/* server: EncryptedExtensions carries exactly these extension bytes
	 * (the whole extensions vector's contents, without its length) */
	const uint8_t *ee_exts;
	size_t ee_exts_len;
	/* each key-schedule secret is copied here as it is derived (the
	 * connection wipes each one as soon as nothing needs it) */
	struct test_secrets *capture;
	/* added to the clock resumption reads (ticket ages, expiry) */
	int64_t clock_skew_ms;
};

#ifdef HS_TEST_HOOKS
HS_MUST_CHECK int conn_test_hooks(struct hs_conn *c, const struct test_hooks *h);

/*
 * Allocation failures: the n-th allocation of the engine from now on
 * (n = 1: the next) fails, as if malloc returned NULL; 0: none fails.
 * Process-wide (one test thread). Returns how many allocations were made
 * since the previous call, so a test can fail each one in turn.
 */
long conn_test_alloc_fail(long n);

/*
 * The key schedule's secrets (digest_len bytes) as the connection holds
 * them now: each is all zeros once wiped (RFC 8446 7.2: the handshake
 * secrets after both Finished, the master secret once the application
 * secrets exist, the first application secrets once the record keys hold
 * them). hooks.capture gets each as it is derived, for checking a trace.
 */
void conn_test_secrets(const struct hs_conn *c, struct test_secrets *s);
#endif

#endif
