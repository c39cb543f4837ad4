/*
 * Helpers shared by the ktls tests: loopback TCP pairs, made-up secrets for
 * both ends of a connection, a sender thread that writes a seeded stream in
 * odd-sized pieces, and SHA-256 of what arrives.
 */
#ifndef HS_TESTS_KT_UTIL_H
#define HS_TESTS_KT_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "hs/secrets.h"
#include "hs/ktls.h"
#include "testutil.h"

/* A connected loopback TCP pair (fds[0] connected, fds[1] accepted); 0 ok. */
int kt_tcp_pair(int fds[2]);

/* Secrets of both ends for suite, from rng; seqs are the first record numbers. */
void kt_secrets(struct hs_secrets *cli, struct hs_secrets *srv, uint16_t suite,
		struct test_rng *rng, uint64_t seq_c2s, uint64_t seq_s2c);

/* The seeded stream: byte i of stream seed. */
void kt_stream(uint64_t seed, size_t off, uint8_t *out, size_t n);

struct kt_sender {
	struct hs_ktls *k;
	size_t len;          /* bytes of the stream to send */
	uint64_t seed;       /* stream and chunk sizes */
	size_t max_chunk;    /* largest single write (>= 1) */
	size_t key_update_at; /* send a KeyUpdate after this many bytes (SIZE_MAX: none) */
	int request_peer;     /* ... asking the peer to update too */
	int close;            /* send close_notify at the end */
	int err;              /* first error */
	int ku_err;           /* hs_ktls_key_update's result */
	pthread_t thread;
};
void kt_sender_start(struct kt_sender *s);
void kt_sender_join(struct kt_sender *s);

/*
 * Read until close_notify (or an error) with read sizes up to max_read,
 * checking the bytes against the stream; returns 0 or the error, *got the
 * count, *mismatch 1 if any byte differed (also compared by SHA-256).
 */
int kt_receive(struct hs_ktls *k, uint64_t seed, size_t max_read, size_t *got, int *mismatch);

const char *kt_suite_name(uint16_t suite);

/*
 * HS_KTLS_EXPECT: "kernel" sets *kernel (every hand-off must land on the
 * kernel), "user" sets *user (the userspace fallback; cleared, with a note,
 * when this kernel has kTLS after all). Returns 0, or -1 if probing failed.
 */
int kt_expect(int *kernel, int *user);
/* Are both directions of k where kernel / user want them? */
int kt_paths_ok(const struct hs_ktls *k, int kernel, int user);

#endif
