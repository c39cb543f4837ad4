/*
 * Implementation notes: the rows of "hs-bench record".
 *
 * 16 KiB of application data (one full record) goes through the engine of
 * each library, for each TLS 1.3 suite, over a connection made once per
 * suite (a handshake as in "hs-bench handshake", without verification):
 *
 *   record AEAD seal 16 KiB        client side only: hs_conn_write +
 *                                  hs_conn_pull, the record is discarded;
 *                                  OpenSSL: SSL_write_ex + BIO_read_ex out
 *                                  of the memory BIO
 *   record AEAD seal+open 16 KiB   the same record is then fed to the
 *                                  server and read back: hs_conn_feed +
 *                                  hs_conn_read; OpenSSL: SSL_read_ex
 *
 * AEAD names the suite's AEAD (one suite per AEAD in TLS 1.3: AES-128-GCM
 * is TLS_AES_128_GCM_SHA256, AES-256-GCM TLS_AES_256_GCM_SHA384,
 * ChaCha20-Poly1305 TLS_CHACHA20_POLY1305_SHA256). The open cost alone is the difference of the two (records cannot be
 * opened twice: each has its own sequence number). MB are 10^6 bytes of
 * application data. Before a suite is timed, its check runs once (each
 * library completes a handshake with that suite, one byte each way), and
 * the first seal+open of each side compares the bytes read with the bytes
 * written.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>

#include "bench/bench.h"
#include "bench/tls_peers.h"
#include "crypto/aead.h"

#define REC_LEN 16384

static uint8_t payload[REC_LEN], got[REC_LEN];

struct suite_info {
	uint16_t id;
	const char *seal_row, *both_row; /* scripts match these names: do not change them */
	const struct aead *(*aead)(void);
};

static const struct suite_info suites[] = {
	{ HS_TLS_AES_128_GCM_SHA256, "record AES-128-GCM seal 16 KiB",
	  "record AES-128-GCM seal+open 16 KiB", aead_aes128gcm },
	{ HS_TLS_AES_256_GCM_SHA384, "record AES-256-GCM seal 16 KiB",
	  "record AES-256-GCM seal+open 16 KiB", aead_aes256gcm },
	{ HS_TLS_CHACHA20_POLY1305_SHA256, "record ChaCha20-Poly1305 seal 16 KiB",
	  "record ChaCha20-Poly1305 seal+open 16 KiB", aead_chacha20poly1305 },
};

static struct hs_pair hx;
static struct ossl_pair ox;

static int hs_seal_op(void *arg)
{
	(void)arg;
	return hs_pair_seal(&hx, payload, REC_LEN);
}

static int hs_both_op(void *arg)
{
	(void)arg;
	return hs_pair_send(&hx, 1, payload, REC_LEN, got);
}

static int ossl_seal_op(void *arg)
{
	(void)arg;
	return ossl_pair_seal(&ox, payload, REC_LEN);
}

static int ossl_both_op(void *arg)
{
	(void)arg;
	return ossl_pair_send(&ox, 1, payload, REC_LEN, got);
}

/* One round trip of each side with the bytes compared. */
static int check_round_trip(void)
{
	memset(got, 0, sizeof(got));
	if (hs_both_op(NULL) != 0 || memcmp(got, payload, REC_LEN) != 0)
		return -1;
	memset(got, 0, sizeof(got));
	if (ossl_both_op(NULL) != 0 || memcmp(got, payload, REC_LEN) != 0)
		return -1;
	return 0;
}

/* Fresh connections of both libraries (the suite's peers), checked with one round trip. */
static int connect_both(const struct peers *p)
{
	memset(&ox, 0, sizeof(ox));
	if (hs_pair_start(&hx, p) != 0 || hs_pair_handshake(&hx, 1) != 0 ||
	    ossl_pair_start(&ox, p) != 0 || ossl_pair_handshake(&ox, 1) != 0)
		return -1;
	return check_round_trip();
}

/*
 * Time one row over fresh connections: a seal row leaves the client's
 * sequence numbers ahead of what the server saw, so rows never share them.
 */
static int time_row(const struct bench_opts *o, const struct peers *p, const char *name,
		    bench_op hs_op, bench_op ossl_op, const char *backend)
{
	struct bench_side hs = { hs_op, NULL, NULL }, ref = { ossl_op, NULL, NULL };
	struct bench_row out = { .name = name, .unit = "MB/s", .bytes = REC_LEN,
				 .backend = backend };
	int r;

	if (!bench_match(o, name))
		return 0;
	if (connect_both(p) != 0) {
		fprintf(stderr, "hs-bench: row \"%s\" refused: its check failed\n", name);
		r = -1;
	} else if ((r = bench_pair(o, &hs, &ref, &out.hs, &out.ref)) != 0) {
		fprintf(stderr, "hs-bench: row \"%s\" refused: an operation failed while timing\n",
			name);
		ERR_print_errors_fp(stderr);
	}
	hs_pair_finish(&hx);
	ossl_pair_finish(&ox);
	if (r == 0)
		bench_emit(o, &out);
	return r;
}

static int run_suite(const struct bench_opts *o, const struct suite_info *si)
{
	const char *backend = si->aead()->name;
	struct peers p;
	int r = 0;

	if (peers_init(&p, si->id, PEER_NO_VERIFY) != 0)
		return -1;
	if (peers_check(&p) != 0 || hs_pair_alloc(&hx) != 0) {
		fprintf(stderr, "hs-bench: %s rows refused: the check failed\n",
			hs_suite_name(si->id));
		peers_free(&p);
		return -1;
	}
	if (time_row(o, &p, si->seal_row, hs_seal_op, ossl_seal_op, backend) != 0)
		r = -1;
	if (time_row(o, &p, si->both_row, hs_both_op, ossl_both_op, backend) != 0)
		r = -1;
	hs_pair_release(&hx);
	peers_free(&p);
	return r;
}

int bench_record(const struct bench_opts *o)
{
	int status = 0, matched = 0;
	uint64_t x = 0x7265636f7264;

	for (size_t i = 0; i < REC_LEN; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		payload[i] = (uint8_t)(x >> 32);
	}
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		if (!bench_match(o, suites[i].seal_row) && !bench_match(o, suites[i].both_row))
			continue;
		matched = 1;
		if (run_suite(o, &suites[i]) != 0)
			status = 1;
	}
	if (!matched) {
		fprintf(stderr, "hs-bench: no record row matches \"%s\"\n", o->filter);
		return 1;
	}
	return status;
}
