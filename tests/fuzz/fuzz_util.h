/*
 * What the engine fuzz targets (fuzz_tls.c, fuzz_pair.c) share: a
 * deterministic rand_bytes (the targets link with
 * -Wl,--wrap=rand_bytes, so every random byte the engine and crypto/
 * draw comes from a counter reset per input: the same input always takes
 * the same path, whatever the test hooks), the test credentials loaded
 * once, and byte pumps that never block and always terminate.
 */
#ifndef HS_TESTS_FUZZ_UTIL_H
#define HS_TESTS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "hs/cred.h"
#include "hs/tls.h"
#include "hs/x509.h"

/* Restart the random stream (call first thing for every input). */
void fuzz_rand_reset(uint32_t seed);

struct fuzz_creds {
	struct hs_cred *ec, *rsa, *ed, *client_ec;
	const struct hs_cred *all[3]; /* rsa, ec, ed: one server, every client */
	struct hs_x509_store *client_ca;
	uint8_t ec_der[2048];
	size_t ec_der_len;
};
/* Load the test credentials on the first call; aborts if they do not load. */
const struct fuzz_creds *fuzz_creds(void);

/* A byte queue between two connections. */
#define FUZZ_WIRE_CAP (256u * 1024u)
struct fuzz_wire {
	uint8_t buf[FUZZ_WIRE_CAP];
	size_t len;
};
/* Append what c has to send (stops when the queue is full). */
void fuzz_take(struct hs_conn *c, struct fuzz_wire *w);
/*
 * Feed w to c in chunks of chunk bytes (0: all at once), reading any
 * application data that holds the input back; the bytes fed leave w.
 * Returns the engine's error (0 if none).
 */
int fuzz_feed(struct hs_conn *c, struct fuzz_wire *w, size_t chunk);
/* Feed p[0..n) (a scratch wire is used). */
int fuzz_feed_bytes(struct hs_conn *c, const uint8_t *p, size_t n, size_t chunk);
/* Drain and discard what c has to send. */
void fuzz_drain(struct hs_conn *c);
/* After a handshake: exercise write, key update and close (errors ignored). */
void fuzz_poke(struct hs_conn *c, int key_update, int close);

#endif
