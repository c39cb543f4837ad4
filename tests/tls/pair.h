/*
 * Test helpers for the TLS engine: a client and a server connected through
 * in-memory "wires", pumped in one thread, with a configurable chunk size
 * (1 = one byte at a time).
 */
#ifndef HS_TESTS_TLS_PAIR_H
#define HS_TESTS_TLS_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "hs/cred.h"
#include "hs/tls.h"

#define WIRE_CAP (1u << 20)

struct wire {
	uint8_t *buf;
	size_t len;
};

struct pair {
	struct hs_config ccfg, scfg;
	struct hs_cred *cred;
	struct hs_conn *c, *s;
	struct wire c2s, s2c;
	uint8_t anchor[4096];
	size_t anchor_len;
	int cerr, serr; /* first error seen on each side */
};

/* Load cert + key, fill both configs (pinned anchor, name "localhost"). */
void pair_init(struct pair *p, const char *cert_pem, const char *key_pem);
/* Create the two connections from the configs (after the test edits them). */
void pair_start(struct pair *p);
void pair_free(struct pair *p);

/* Move c's output to w (pull everything). */
void wire_take(struct hs_conn *from, struct wire *w);
/* Feed w into to in chunks of chunk bytes (0 = all at once); returns the error. */
int wire_feed(struct wire *w, struct hs_conn *to, size_t chunk);
/* Pump both ways until both handshakes are done or an error; 0 on success. */
int pair_handshake(struct pair *p, size_t chunk);
/* Send len bytes one way, read them back on the other side; 0 if equal. */
int pair_transfer(struct pair *p, int from_client, const uint8_t *data, size_t len, size_t chunk);

/* Raw record helpers */
size_t wire_record_len(const struct wire *w, size_t off); /* 0 if incomplete */

#endif
