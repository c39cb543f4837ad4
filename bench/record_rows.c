/*
 * Implementation notes: the rows of "hs-bench record".
 *
 * Application records through the engine of each library, for each TLS 1.3
 * suite, over a connection made once per row (a handshake as in "hs-bench
 * handshake", without verification). AEAD names the suite's AEAD (one
 * suite per AEAD in TLS 1.3: AES-128-GCM is TLS_AES_128_GCM_SHA256,
 * AES-256-GCM TLS_AES_256_GCM_SHA384, ChaCha20-Poly1305
 * TLS_CHACHA20_POLY1305_SHA256). MB are 10^6 bytes of application data.
 *
 *   record AEAD seal N           the copying path, client side only:
 *                                hs_conn_write + hs_conn_pull (the record
 *                                discarded); OpenSSL: SSL_write_ex +
 *                                BIO_read_ex out of the memory BIO
 *   record AEAD seal+open 16 KiB the same record then fed to the server and
 *                                read back: hs_conn_feed + hs_conn_read;
 *                                OpenSSL: SSL_read_ex
 *   record AEAD zero-copy seal N hs_conn_seal: the plaintext already in the
 *                                caller's buffer, sealed there in place;
 *                                OpenSSL (which has no such form): as the
 *                                seal row
 *   record AEAD zero-copy open N hs_conn_open of records in the caller's
 *                                buffer, in place; OpenSSL: SSL_read_ex.
 *                                Each operation opens a batch of records
 *                                (1 MiB: 64 of 16 KiB, 967 of 1 KiB) that
 *                                the client sealed just before; only the
 *                                opening is timed (per-thread CPU clock
 *                                around the batch)
 *
 * N is 16 KiB or 1 KiB. Every seal and open row also carries hs's raw AEAD
 * rate for the same payload, measured in the same run (bench_one): seal =
 * the AEAD sealing the record's inner plaintext (N + 1 bytes) in place with
 * the 5-byte header as additional data; open = the AEAD opening it into
 * another buffer; seal+open = both. The ratio to it (vs_aead) is what the
 * engine costs on top of the crypto (issue 12's goal: >= 0.9 for the
 * zero-copy rows).
 *
 * Before a row is timed, its check runs: each library completes a handshake
 * with that suite, and one round trip each way compares the bytes; the
 * zero-copy open check compares the opened bytes too.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>

#include "bench/bench.h"
#include "bench/tls_peers.h"
#include "crypto/aead.h"

#define REC_LEN 16384
/* records per zero-copy open operation: 64 of 16 KiB, as many of 1 KiB in
 * the same bytes (the per-thread CPU clock read around a batch is a system
 * call, 1-2 us in a VM: it must stay small next to the batch; what one
 * empty interval measures is taken off each batch too) */
#define BATCH_MAX 1024
#define HDR HS_RECORD_HEADER_LEN
#define SLOT (REC_LEN + HS_RECORD_OVERHEAD)
/* a record's room in zbuf: each body starts on a 64-byte boundary, as a
 * caller that cares about speed places it (the AEADs' wide loads then never
 * straddle two cache lines; the raw AEAD reference is aligned too) */
#define ROOM (((SLOT + HDR) + 63) & ~(size_t)63)

static uint8_t payload[REC_LEN + 1], got[REC_LEN];
/* the zero-copy rows' buffers: the caller's */
static _Alignas(64) uint8_t zbuf[64 * ROOM + 64];
static size_t op_len, room, batch; /* payload, room and batch of the row being timed */

/* where record i starts: its body at zbuf + 64 + i * room */
static uint8_t *zrec(size_t i)
{
	return zbuf + 64 - HDR + i * room;
}

static void set_len(size_t len)
{
	op_len = len;
	room = ((len + HS_RECORD_OVERHEAD + HDR) + 63) & ~(size_t)63;
	batch = 64 * ROOM / room;
	if (batch > BATCH_MAX)
		batch = BATCH_MAX;
}

enum kind { SEAL, BOTH, ZC_SEAL, ZC_OPEN };

struct row {
	enum kind kind;
	size_t len;
	const char *fmt; /* row name, %s the AEAD: scripts match these names */
};

static const struct row rows[] = {
	{ SEAL, 16384, "record %s seal 16 KiB" },
	{ BOTH, 16384, "record %s seal+open 16 KiB" },
	{ SEAL, 1024, "record %s seal 1 KiB" },
	{ ZC_SEAL, 16384, "record %s zero-copy seal 16 KiB" },
	{ ZC_OPEN, 16384, "record %s zero-copy open 16 KiB" },
	{ ZC_SEAL, 1024, "record %s zero-copy seal 1 KiB" },
	{ ZC_OPEN, 1024, "record %s zero-copy open 1 KiB" },
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

struct suite_info {
	uint16_t id;
	const char *name;
	const struct aead *(*aead)(void);
};

static const struct suite_info suites[] = {
	{ HS_TLS_AES_128_GCM_SHA256, "AES-128-GCM", aead_aes128gcm },
	{ HS_TLS_AES_256_GCM_SHA384, "AES-256-GCM", aead_aes256gcm },
	{ HS_TLS_CHACHA20_POLY1305_SHA256, "ChaCha20-Poly1305", aead_chacha20poly1305 },
};

static struct hs_pair hx;
static struct ossl_pair ox;
static double hs_open_ns, ossl_open_ns; /* the zero-copy open rows' own clocks */
static double clock_floor; /* what an empty interval of the per-thread clock measures */

/* The smallest of a few empty intervals: the clock's own cost inside one. */
static void measure_clock_floor(void)
{
	clock_floor = 1e9;
	for (int i = 0; i < 64; i++) {
		double t0 = peer_thread_ns(), d = peer_thread_ns() - t0;
		if (d < clock_floor)
			clock_floor = d;
	}
}

static int hs_seal_op(void *arg)
{
	(void)arg;
	return hs_pair_seal(&hx, payload, op_len);
}

static int hs_both_op(void *arg)
{
	(void)arg;
	return hs_pair_send(&hx, 1, payload, op_len, got);
}

static int ossl_seal_op(void *arg)
{
	(void)arg;
	return ossl_pair_seal(&ox, payload, op_len);
}

static int ossl_both_op(void *arg)
{
	(void)arg;
	return ossl_pair_send(&ox, 1, payload, op_len, got);
}

/* The engine's own records (the automatic KeyUpdate) go first: discarded here. */
static int hs_zc_seal_at(uint8_t *buf, size_t *n)
{
	int err = hs_conn_seal(hx.c, buf, SLOT, op_len, n);

	if (err == HS_ERR_WANT_WRITE) {
		uint8_t sink[4096];
		size_t k;
		while (hs_conn_output_pending(hx.c) > 0 &&
		       hs_conn_pull(hx.c, sink, sizeof(sink), &k) == 0 && k > 0)
			;
		err = hs_conn_seal(hx.c, buf, SLOT, op_len, n);
	}
	return err;
}

static int hs_zc_seal_op(void *arg)
{
	size_t n;

	(void)arg;
	/* the plaintext is in place; sealing it again and again costs the same */
	return hs_zc_seal_at(zrec(0), &n);
}

/* A batch of records sealed by the client, then opened by the server (timed). */
static int hs_zc_open_op(void *arg)
{
	size_t n[BATCH_MAX], used, dlen;
	uint8_t *d;
	double t0;
	int err = 0;

	(void)arg;
	for (size_t i = 0; i < batch && err == 0; i++) {
		memcpy(zrec(i) + HDR, payload, op_len);
		err = hs_zc_seal_at(zrec(i), &n[i]);
	}
	t0 = peer_thread_ns();
	for (size_t i = 0; i < batch && err == 0; i++)
		err = hs_conn_open(hx.s, zrec(i), n[i], &used, &d, &dlen);
	hs_open_ns += peer_thread_ns() - t0 - clock_floor;
	return err;
}

static int ossl_zc_open_op(void *arg)
{
	size_t n;
	double t0;

	(void)arg;
	for (size_t i = 0; i < batch; i++)
		if (!SSL_write_ex(ox.c, payload, op_len, &n) || n != op_len)
			return -1;
	t0 = peer_thread_ns();
	for (size_t i = 0; i < batch; i++)
		if (!SSL_read_ex(ox.s, got, op_len, &n) || n != op_len)
			return -1;
	ossl_open_ns += peer_thread_ns() - t0 - clock_floor;
	return 0;
}

/* ---- raw AEAD: the reference of each row */

static struct aead_ctx actx;
static const struct aead *raw;
/* 64-byte aligned, as the engine places record bodies (libhs/conn.c) */
static _Alignas(64) uint8_t rbuf[REC_LEN + 1 + 16], rct[REC_LEN + 1 + 16];
static const uint8_t nonce[HS_AEAD_NONCE_LEN] = { 1 }, ad[HDR] = { 23, 3, 3, 0x40, 0x11 };

static int raw_seal_op(void *arg)
{
	(void)arg;
	raw->seal(&actx, nonce, ad, HDR, rbuf, op_len + 1, rbuf);
	return 0;
}

static int raw_open_op(void *arg)
{
	(void)arg;
	return raw->open(&actx, nonce, ad, HDR, rct, op_len + 1 + 16, rbuf);
}

/*
 * The zero-copy open rows' reference: the raw AEAD opening, in place, the
 * same batch of records in the same buffer as hs_zc_open_op (sealed there
 * untimed first), so both read the same bytes from the same caches and the
 * row's ratio is the record layer's cost alone (one buffer reused in L1
 * against a batch of up to 1 MB would measure the caches).
 */
static double raw_open_ns;
static int raw_zc_open_op(void *arg)
{
	double t0;
	int err = 0;

	(void)arg;
	for (size_t i = 0; i < batch; i++) {
		memcpy(zrec(i), ad, HDR);
		memcpy(zrec(i) + HDR, payload, op_len + 1);
		raw->seal(&actx, nonce, zrec(i), HDR, zrec(i) + HDR, op_len + 1, zrec(i) + HDR);
	}
	t0 = peer_thread_ns();
	for (size_t i = 0; i < batch && err == 0; i++)
		err = raw->open(&actx, nonce, zrec(i), HDR, zrec(i) + HDR, op_len + 1 + 16,
				zrec(i) + HDR);
	raw_open_ns += peer_thread_ns() - t0 - clock_floor;
	return err;
}

/* hs's raw AEAD rate (ops/s) for the row's kind: seal, open, or both. */
static int raw_rate(const struct bench_opts *o, const struct suite_info *si, enum kind k,
		    double *rate)
{
	static const uint8_t key[32] = { 7 };
	struct bench_side s = { raw_seal_op, NULL, NULL }, t = { raw_open_op, NULL, NULL };

	if (k == ZC_OPEN)
		t = (struct bench_side){ raw_zc_open_op, NULL, &raw_open_ns };
	struct bench_stats seal, open;

	raw = si->aead();
	if (raw->init(&actx, key) != 0)
		return -1;
	memcpy(rbuf, payload, op_len + 1);
	raw->seal(&actx, nonce, ad, HDR, rbuf, op_len + 1, rct);
	if ((k != ZC_OPEN && bench_one(o, &s, &seal) != 0) ||
	    (k != SEAL && k != ZC_SEAL && bench_one(o, &t, &open) != 0)) {
		raw->wipe(&actx);
		return -1;
	}
	raw->wipe(&actx);
	if (k == BOTH)
		*rate = 1 / (1 / seal.median + 1 / open.median);
	else
		*rate = k == ZC_OPEN ? open.median : seal.median;
	return 0;
}

/* ---- checks and rows */

static int check_round_trip(void)
{
	size_t n, used, dlen;
	uint8_t *d;

	memset(got, 0, sizeof(got));
	if (hs_both_op(NULL) != 0 || memcmp(got, payload, op_len) != 0)
		return -1;
	memset(got, 0, sizeof(got));
	if (ossl_both_op(NULL) != 0 || memcmp(got, payload, op_len) != 0)
		return -1;
	/* the zero-copy path: the opened record holds the payload, in place */
	memcpy(zrec(0) + HDR, payload, op_len);
	if (hs_zc_seal_at(zrec(0), &n) != 0 ||
	    hs_conn_open(hx.s, zrec(0), n, &used, &d, &dlen) != 0 || used != n ||
	    dlen != op_len || d != zrec(0) + HDR || memcmp(d, payload, op_len) != 0)
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

static void sides(enum kind k, struct bench_side *hs, struct bench_side *ref)
{
	static const bench_op hs_ops[] = { hs_seal_op, hs_both_op, hs_zc_seal_op, hs_zc_open_op };
	static const bench_op ossl_ops[] = { ossl_seal_op, ossl_both_op, ossl_seal_op,
					     ossl_zc_open_op };

	*hs = (struct bench_side){ hs_ops[k], NULL, k == ZC_OPEN ? &hs_open_ns : NULL };
	*ref = (struct bench_side){ ossl_ops[k], NULL, k == ZC_OPEN ? &ossl_open_ns : NULL };
}

/*
 * Time one row over fresh connections: a seal row leaves the client's
 * sequence numbers ahead of what the server saw, so rows never share them.
 */
static int time_row(const struct bench_opts *o, const struct peers *p,
		    const struct suite_info *si, const struct row *rw)
{
	char name[96];
	struct bench_side hs, ref;
	size_t per_op;
	struct bench_row out = { .name = name, .unit = "MB/s", .backend = si->aead()->name };
	int r;

	snprintf(name, sizeof(name), rw->fmt, si->name);
	if (!bench_match(o, name))
		return 0;
	set_len(rw->len);
	per_op = rw->kind == ZC_OPEN ? batch : 1;
	out.bytes = rw->len * per_op;
	sides(rw->kind, &hs, &ref);
	if (connect_both(p) != 0) {
		fprintf(stderr, "hs-bench: row \"%s\" refused: its check failed\n", name);
		r = -1;
	} else if ((r = bench_pair(o, &hs, &ref, &out.hs, &out.ref)) != 0 ||
		   (r = raw_rate(o, si, rw->kind, &out.aead)) != 0) {
		fprintf(stderr, "hs-bench: row \"%s\" refused: an operation failed while timing\n",
			name);
		ERR_print_errors_fp(stderr);
	}
	if (rw->kind != ZC_OPEN)
		out.aead /= (double)per_op; /* in row operations (ZC_OPEN's reference is batched too) */
	hs_pair_finish(&hx);
	ossl_pair_finish(&ox);
	if (r == 0)
		bench_emit(o, &out);
	return r;
}

static int suite_matches(const struct bench_opts *o, const struct suite_info *si)
{
	char name[96];

	for (size_t i = 0; i < N_ROWS; i++) {
		snprintf(name, sizeof(name), rows[i].fmt, si->name);
		if (bench_match(o, name))
			return 1;
	}
	return 0;
}

static int run_suite(const struct bench_opts *o, const struct suite_info *si)
{
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
	for (size_t i = 0; i < N_ROWS; i++)
		if (time_row(o, &p, si, &rows[i]) != 0)
			r = -1;
	hs_pair_release(&hx);
	peers_free(&p);
	return r;
}

int bench_record(const struct bench_opts *o)
{
	int status = 0, matched = 0;
	uint64_t x = 0x7265636f7264;

	for (size_t i = 0; i < sizeof(payload); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		payload[i] = (uint8_t)(x >> 32);
	}
	measure_clock_floor();
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		if (!suite_matches(o, &suites[i]))
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
