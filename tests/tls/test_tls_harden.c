/*
 * Proves the engine's fixes for issue 9, each with a case that failed on
 * the code before (94ce7e7):
 *
 * - hs_conn_free wipes the buffers of a recycled block (no plaintext of one
 *   connection in the next) and a double free is caught (abort);
 * - cheap records are bounded: one CCS, 32 empty records, 4 warning
 *   alerts, 32 KeyUpdates in a row; KeyUpdate answers coalesce; the fd
 *   helpers' handshake deadline covers the whole handshake;
 * - secrets are wiped once unused (handshake, master, first application
 *   secrets; the old traffic secret after KeyUpdate);
 * - ClientHello lists, extensions and message sizes without silent caps;
 *   HelloRetryRequest cookies up to 2^16-1;
 * - early data the server does not accept is skipped (trial decryption,
 *   after HRR by type) up to MAX_EARLY_SKIP;
 * - empty encrypted Alert -> unexpected_message; wrong-size X25519 share
 *   -> illegal_parameter; a plaintext fatal alert is not answered;
 * - CertificateEntry extensions and a non-empty handshake
 *   certificate_request_context are rejected.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <signal.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crypto/x25519.h"
#include "hs/fd.h"
#include "libhs/internal.h"
#include "pair.h"
#include "tls_certs.h"

enum { A_UNEXPECTED = 10, A_BAD_MAC = 20, A_ILLEGAL = 47, A_UNSUPPORTED_EXT = 110 };

static struct hs_cred *cred;
static uint8_t ch_pub[64]; /* an X25519 key, then room for a share too long */

static int setup(void **state)
{
	uint8_t priv[32];
	(void)state;
	assert_int_equal(x25519_keygen(priv, ch_pub), 0);
	return hs_cred_load_pem(&cred, EC_CERT, strlen(EC_CERT), EC_KEY_PKCS8, strlen(EC_KEY_PKCS8));
}

static int teardown(void **state)
{
	(void)state;
	hs_cred_free(cred);
	return 0;
}

static int find(const void *hay, size_t n, const void *needle, size_t m)
{
	const uint8_t *h = hay;
	for (size_t i = 0; i + m <= n; i++)
		if (memcmp(h + i, needle, m) == 0)
			return 1;
	return 0;
}

static int all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

static struct hs_conn *new_server(struct hs_config *cfg)
{
	struct hs_conn *s;
	memset(cfg, 0, sizeof(*cfg));
	cfg->role = HS_ROLE_SERVER;
	cfg->cred = cred;
	assert_int_equal(hs_conn_new(&s, cfg), 0);
	return s;
}

/* Seal one record of type under x's write key onto w. */
static void seal(struct hs_conn *x, uint8_t type, const uint8_t *p, size_t n, struct wire *w)
{
	struct writer wr = writer_init(w->buf + w->len, WIRE_CAP - w->len);
	assert_int_equal(rec_seal(x->wr, type, 0x0303, p, n, 0, &wr), 0);
	w->len += wr.len;
}

static void handshake(struct pair *p)
{
	pair_init(p, EC_CERT, EC_KEY_PKCS8);
	pair_start(p);
	assert_int_equal(pair_handshake(p, 0), 0);
}

/* ---- 2: free ---- */

static void test_free_wipes_recycled_block(void **state)
{
	static const char token[] = "Authorization: Bearer hs-9f3c-secret-token-4711";
	struct pair p;
	struct hs_conn *next;
	uint8_t buf[128];
	size_t n;
	(void)state;
	handshake(&p);
	assert_int_equal(hs_conn_write(p.c, (const uint8_t *)token, sizeof(token) - 1, &n), 0);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	assert_int_equal(hs_conn_read(p.s, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, sizeof(token) - 1);
	hs_conn_free(p.s);
	p.s = NULL;
	/* outside ASan the freed block is kept and handed out again */
	assert_int_equal(hs_conn_new(&next, &p.scfg), 0);
	assert_false(find(next, sizeof(*next), token, sizeof(token) - 1));
	hs_conn_free(next);
	pair_free(&p);
}

static void test_double_free_caught(void **state)
{
	struct hs_config cfg;
	int st;
	pid_t pid;
	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct hs_conn *s = new_server(&cfg);
		/* quiet: under ASan the report of the second free is expected */
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		hs_conn_free(s);
		hs_conn_free(s); /* must not return */
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_false(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ---- 5: cheap records ---- */

static void test_second_ccs(void **state)
{
	struct pair p;
	static const uint8_t ccs[6] = { 0x14, 3, 3, 0, 1, 1 };
	size_t used;
	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_PKCS8);
	pair_start(&p);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	assert_int_equal(hs_conn_feed(p.s, ccs, 6, &used), 0);
	assert_int_equal(hs_conn_feed(p.s, ccs, 6, &used), HS_ERR_TLS_BAD_CCS);
	assert_int_equal(hs_conn_alert(p.s, 0), A_UNEXPECTED);
	pair_free(&p);
}

/* n records of type (content p[0..len)) from the client, then data if asked */
static int flood(struct pair *p, uint8_t type, const uint8_t *body, size_t len, int n)
{
	for (int i = 0; i < n; i++)
		seal(p->c, type, body, len, &p->c2s);
	return wire_feed(&p->c2s, p->s, 0);
}

static void test_empty_record_cap(void **state)
{
	struct pair p;
	uint8_t buf[8];
	size_t n;
	(void)state;
	/* at the cap, then data resets the count, then at the cap again */
	handshake(&p);
	assert_int_equal(flood(&p, CT_APP, (const uint8_t *)"", 0, MAX_EMPTY_RECORDS), 0);
	assert_int_equal(flood(&p, CT_APP, (const uint8_t *)"x", 1, 1), 0);
	assert_int_equal(hs_conn_read(p.s, buf, sizeof(buf), &n), 0);
	assert_int_equal(flood(&p, CT_APP, (const uint8_t *)"", 0, MAX_EMPTY_RECORDS), 0);
	assert_int_equal(flood(&p, CT_APP, (const uint8_t *)"", 0, 1), HS_ERR_TLS_TOO_MANY_RECORDS);
	assert_int_equal(hs_conn_alert(p.s, 0), A_UNEXPECTED);
	pair_free(&p);
}

static void test_warning_alert_cap(void **state)
{
	static const uint8_t warn[2] = { 1, AL_USER_CANCELED };
	struct pair p;
	(void)state;
	handshake(&p);
	assert_int_equal(flood(&p, CT_ALERT, warn, 2, MAX_WARNING_ALERTS), 0);
	assert_int_equal(flood(&p, CT_ALERT, warn, 2, 1), HS_ERR_TLS_TOO_MANY_RECORDS);
	assert_int_equal(hs_conn_alert(p.s, 0), A_UNEXPECTED);
	pair_free(&p);
}

static void test_key_update_cap(void **state)
{
	struct pair p;
	(void)state;
	/* KeyUpdates: the server must follow each key change, so one per
	 * record sealed under the client's next key */
	handshake(&p);
	for (int i = 0; i <= MAX_KEY_UPDATES; i++) {
		assert_int_equal(send_key_update(p.c, 0), 0);
		wire_take(p.c, &p.c2s);
		int err = wire_feed(&p.c2s, p.s, 0);
		assert_int_equal(err, i < MAX_KEY_UPDATES ? 0 : HS_ERR_TLS_TOO_MANY_RECORDS);
	}
	assert_int_equal(hs_conn_alert(p.s, 0), A_UNEXPECTED);
	pair_free(&p);
}

/* A peer that asks for KeyUpdates and never reads gets one answer queued,
 * not one per request (it used to fill out[]: internal_error). */
static void test_key_update_answers_coalesce(void **state)
{
	struct pair p;
	uint8_t buf[8];
	size_t n;
	(void)state;
	handshake(&p);
	for (int i = 0; i < 4000; i++) {
		assert_int_equal(send_key_update(p.c, 1), 0);
		if (i % 16 == 15)
			assert_int_equal(hs_conn_write(p.c, (const uint8_t *)"x", 1, &n), 0);
		wire_take(p.c, &p.c2s);
		assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
		assert_int_equal(hs_conn_read(p.s, buf, sizeof(buf), &n), 0);
	}
	assert_int_equal(hs_conn_error(p.s), 0);
	assert_true(hs_conn_output_pending(p.s) <= 64); /* one KeyUpdate record */
	/* and the keys still agree both ways */
	assert_int_equal(pair_transfer(&p, 0, (const uint8_t *)"after", 5, 0), 0);
	assert_int_equal(pair_transfer(&p, 1, (const uint8_t *)"again", 5, 0), 0);
	pair_free(&p);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A peer trickling one byte every 50 ms: every read gets data in time,
 * but the handshake as a whole must end at the deadline. */
static void test_fd_handshake_deadline(void **state)
{
	struct hs_config cfg;
	int sv[2], st;
	pid_t pid;
	double t0;
	(void)state;
	for (int role = 0; role < 2; role++) {
		struct hs_conn *x;
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			static const uint8_t hdr[5] = { 0x16, 3, 3, 0x10, 0 };
			close(sv[0]);
			for (int i = 0; i < 200; i++) {
				uint8_t b = i < 5 ? hdr[i] : 0;
				if (write(sv[1], &b, 1) != 1)
					break;
				nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
			}
			_exit(0);
		}
		close(sv[1]);
		if (role == 0) {
			x = new_server(&cfg);
		} else {
			memset(&cfg, 0, sizeof(cfg));
			cfg.role = HS_ROLE_CLIENT;
			cfg.insecure = 1;
			assert_int_equal(hs_conn_new(&x, &cfg), 0);
		}
		t0 = now_s();
		assert_int_equal(hs_fd_handshake_deadline(x, sv[0], 400), HS_ERR_TLS_TIMEOUT);
		assert_true(now_s() - t0 < 2.0);
		assert_true(now_s() - t0 >= 0.35);
		hs_conn_free(x);
		close(sv[0]);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
}

/* A handshake refused mid-message (a Certificate-sized message past
 * HANDSHAKE_IN_MAX): the peer, still sending, gets our alert and a clean end, not
 * a reset (the fd helper drains before the caller closes). TCP loopback. */
static void test_refused_handshake_no_reset(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct hs_config cfg;
	struct hs_conn *s;
	int ls = socket(AF_INET, SOCK_STREAM, 0), fd, st;
	pid_t pid;
	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(ls >= 0);
	assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(ls, 1), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&a, &alen), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static uint8_t rec[5 + 16384];
		uint8_t got[64];
		size_t n = 0;
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&a, sizeof(a)) != 0)
			_exit(1);
		/* a ClientHello announced at 0x030000 bytes, then 12 records of it
		 * (192 KiB: within what the server drains) */
		for (int i = 0; i < 12; i++) {
			memcpy(rec, "\x16\x03\x01\x40\x00", 5);
			if (i == 0)
				memcpy(rec + 5, "\x01\x03\x00\x00", 4);
			for (size_t off = 0; off < sizeof(rec);) {
				ssize_t w = write(c, rec + off, sizeof(rec) - off);
				if (w <= 0)
					_exit(2); /* reset while sending */
				off += (size_t)w;
			}
		}
		for (;;) {
			ssize_t r = read(c, got + n, sizeof(got) - n);
			if (r < 0)
				_exit(3); /* reset before the alert was read */
			if (r == 0)
				break;
			n += (size_t)r;
		}
		_exit(n == 7 && memcmp(got, "\x15\x03\x03\x00\x02\x02\x2f", 7) == 0 ? 0 : 4);
	}
	fd = accept(ls, NULL, NULL);
	assert_true(fd >= 0);
	s = new_server(&cfg);
	assert_int_equal(hs_fd_handshake_deadline(s, fd, 5000), HS_ERR_TLS_MSG_TOO_LARGE);
	close(fd);
	hs_conn_free(s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(ls);
}

/* ---- 6: secrets ---- */

#ifdef HS_TEST_HOOKS /* the secrets are read through the test hooks */
static void test_secrets_wiped(void **state)
{
	struct pair p;
	struct test_secrets s;
	struct hs_secrets k;
	uint8_t old_tx[HASH_MAX], old_rx[HASH_MAX];
	(void)state;
	handshake(&p);
	for (int side = 0; side < 2; side++) {
		struct hs_conn *x = side ? p.s : p.c;
		conn_test_secrets(x, &s);
		assert_true(all_zero(s.client_hs, sizeof(s.client_hs)));
		assert_true(all_zero(s.server_hs, sizeof(s.server_hs)));
		assert_true(all_zero(s.client_ap, sizeof(s.client_ap)));
		assert_true(all_zero(s.server_ap, sizeof(s.server_ap)));
		assert_true(all_zero(s.master, sizeof(s.master)));
		assert_true(all_zero(s.handshake, sizeof(s.handshake)));
		/* the kTLS hand-off still has the current secrets */
		assert_int_equal(hs_conn_secrets(x, &k), 0);
		assert_memory_equal(k.tx->secret, x->wr->secret, k.secret_len);
		assert_memory_equal(k.rx->secret, x->rd->secret, k.secret_len);
		assert_false(all_zero(k.tx->secret, k.secret_len));
		hs_secrets_wipe(&k);
	}
	/* 7.2: after a KeyUpdate the old traffic secret is nowhere */
	memcpy(old_tx, p.c->wr->secret, sizeof(old_tx));
	memcpy(old_rx, p.s->rd->secret, sizeof(old_rx));
	assert_int_equal(hs_conn_key_update(p.c, 0), 0);
	assert_int_equal(pair_transfer(&p, 1, (const uint8_t *)"data", 4, 0), 0);
	assert_false(find(p.c, sizeof(*p.c), old_tx, 32));
	assert_false(find(p.s, sizeof(*p.s), old_rx, 32));
	/* the record keys live in their own block */
	assert_false(find(p.c->keys, sizeof(*p.c->keys), old_tx, 32));
	assert_false(find(p.s->keys, sizeof(*p.s->keys), old_rx, 32));
	pair_free(&p);
}
#endif

/* ---- 7, 8, 9: crafted ClientHellos ---- */

struct ch {
	int n_sigs, sig_pos;     /* sig list of n_sigs, ecdsa_p256 at sig_pos */
	int n_groups, group_pos; /* groups list, x25519 at group_pos */
	int extra_shares;        /* shares of unknown groups before ours */
	int extra_exts;          /* empty unknown extensions */
	size_t pad;              /* a padding extension (21) of pad bytes */
	int early;               /* early_data extension */
	size_t share_len;        /* our x25519 share's length (32) */
};

/* The ClientHello message (no record header) into a malloc'd buffer. */
static uint8_t *build_ch(const struct ch *o, size_t *len)
{
	size_t cap = 300000;
	uint8_t *buf = malloc(cap), random[32] = { 7 };
	struct writer w = writer_init(buf, cap);
	struct writer_vec msg, v, e, x, l, k;

	assert_non_null(buf);
	write_u8(&w, HT_CLIENT_HELLO);
	write_vec_open(&w, 3, &msg);
	write_u16(&w, 0x0303);
	write_bytes(&w, random, 32);
	write_u8(&w, 0);
	write_vec_open(&w, 2, &v);
	write_u16(&w, 0x1301);
	write_vec_close(&w, &v);
	write_u16(&w, 0x0100);
	write_vec_open(&w, 2, &e);
	ext_w_opaque(&w, EXT_SUPPORTED_VERSIONS, 1, (const uint8_t[]){ 3, 4 }, 2);
	write_u16(&w, EXT_SIG_ALGS);
	write_vec_open(&w, 2, &x);
	write_vec_open(&w, 2, &l);
	for (int i = 0; i < o->n_sigs; i++)
		write_u16(&w, (uint16_t)(i == o->sig_pos ? 0x0403 : 0x0e00 + i));
	write_vec_close(&w, &l);
	write_vec_close(&w, &x);
	write_u16(&w, EXT_SUPPORTED_GROUPS);
	write_vec_open(&w, 2, &x);
	write_vec_open(&w, 2, &l);
	for (int i = 0; i < o->extra_shares; i++)
		write_u16(&w, (uint16_t)(0x0100 + i));
	for (int i = 0; i < o->n_groups; i++)
		write_u16(&w, (uint16_t)(i == o->group_pos ? 0x001d : 0x0200 + i));
	write_vec_close(&w, &l);
	write_vec_close(&w, &x);
	write_u16(&w, EXT_KEY_SHARE);
	write_vec_open(&w, 2, &x);
	write_vec_open(&w, 2, &l);
	for (int i = 0; i < o->extra_shares; i++) {
		write_u16(&w, (uint16_t)(0x0100 + i));
		write_vec_open(&w, 2, &k);
		write_u8(&w, 1);
		write_vec_close(&w, &k);
	}
	write_u16(&w, 0x001d);
	write_vec_open(&w, 2, &k);
	write_bytes(&w, ch_pub, o->share_len ? o->share_len : 32);
	write_vec_close(&w, &k);
	write_vec_close(&w, &l);
	write_vec_close(&w, &x);
	for (int i = 0; i < o->extra_exts; i++)
		ext_w_opaque(&w, (uint16_t)(1000 + i), 0, NULL, 0);
	if (o->early)
		ext_w_opaque(&w, EXT_EARLY_DATA, 0, NULL, 0);
	if (o->pad > 0) {
		uint8_t *zeros = calloc(1, o->pad);
		ext_w_opaque(&w, 21, 0, zeros, o->pad);
		free(zeros);
	}
	write_vec_close(&w, &e);
	write_vec_close(&w, &msg);
	assert_int_equal(writer_error(&w), 0);
	*len = w.len;
	return buf;
}

/* Feed msg as plaintext handshake records of up to 16384 bytes. */
static int feed_msg(struct hs_conn *s, const uint8_t *msg, size_t len)
{
	uint8_t rec[5 + 16384];
	int err = 0;

	for (size_t off = 0; err == 0 && off < len;) {
		size_t n = len - off > 16384 ? 16384 : len - off, used;
		memcpy(rec, "\x16\x03\x01", 3);
		rec[3] = (uint8_t)(n >> 8);
		rec[4] = (uint8_t)n;
		memcpy(rec + 5, msg + off, n);
		err = hs_conn_feed(s, rec, 5 + n, &used);
		off += n;
	}
	return err;
}

/* The server takes the hello (answers with its flight) or fails with err. */
static void ch_case(const struct ch *o, int err, int alert)
{
	struct hs_config cfg;
	struct hs_conn *s = new_server(&cfg);
	size_t len;
	uint8_t *msg = build_ch(o, &len);

	assert_int_equal(feed_msg(s, msg, len), err);
	if (err == 0)
		assert_true(hs_conn_output_pending(s) > 0);
	else
		assert_int_equal(hs_conn_alert(s, 0), alert);
	hs_conn_free(s);
	free(msg);
}

/* a usable scheme after position 64 (was cut: handshake_failure) */
static void test_sigalgs_past_64(void **state)
{
	(void)state;
	ch_case(&(struct ch){ .n_sigs = 1, .n_groups = 1 }, 0, 0);
	ch_case(&(struct ch){ .n_sigs = 200, .sig_pos = 150, .n_groups = 1 }, 0, 0);
	/* still: no usable scheme at all */
	ch_case(&(struct ch){ .n_sigs = 200, .sig_pos = -1, .n_groups = 1 },
		HS_ERR_TLS_NO_SHARED_SIGALG, 40);
}

/* our group after position 64 (was cut: illegal_parameter) */
static void test_groups_past_64(void **state)
{
	(void)state;
	ch_case(&(struct ch){ .n_sigs = 1, .n_groups = 300, .group_pos = 250 }, 0, 0);
}

/* more than 16 key shares (was illegal_parameter) */
static void test_many_key_shares(void **state)
{
	(void)state;
	ch_case(&(struct ch){ .n_sigs = 1, .n_groups = 1, .extra_shares = 40 }, 0, 0);
}

/* more than 48 extensions (was decode_error) */
static void test_many_extensions(void **state)
{
	(void)state;
	ch_case(&(struct ch){ .n_sigs = 1, .n_groups = 1, .extra_exts = 300 }, 0, 0);
}

/* handshake messages over 32 KiB, up to the extensions block's limit */
static void test_big_client_hello(void **state)
{
	(void)state;
	ch_case(&(struct ch){ .n_sigs = 1, .n_groups = 1, .pad = 40000 }, 0, 0);
	ch_case(&(struct ch){ .n_sigs = 1, .n_groups = 1, .pad = 65535 - 200 }, 0, 0);
}

static void test_message_size_limit(void **state)
{
	struct hs_config cfg;
	struct hs_conn *s = new_server(&cfg);
	uint8_t rec[9] = { 0x16, 3, 1, 0, 4, HT_CLIENT_HELLO };
	size_t used, big = HANDSHAKE_IN_MAX + 1;
	(void)state;
	rec[6] = (uint8_t)(big >> 16);
	rec[7] = (uint8_t)(big >> 8);
	rec[8] = (uint8_t)big;
	assert_int_equal(hs_conn_feed(s, rec, 9, &used), HS_ERR_TLS_MSG_TOO_LARGE);
	hs_conn_free(s);
}

/* A client echoes HelloRetryRequest cookies of any size the RFC allows. */
static void test_client_big_cookie(void **state)
{
	static const uint8_t hrr_rand[32] = { 0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11,
					      0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
					      0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e,
					      0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c };
	/* the cookie extension's body is cookie<1..2^16-1> inside
	 * extension_data<0..2^16-1>, next to our other extensions in one
	 * block of at most 2^16-1: about 65,000 bytes is the practical top */
	static const size_t sizes[] = { 1, 255, 256, 300, 40000, 65000 };
	(void)state;
	for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
		struct hs_config cfg = { .role = HS_ROLE_CLIENT, .insecure = 1 };
		struct hs_conn *c;
		struct wire out = { .buf = malloc(WIRE_CAP) };
		uint8_t *msg = malloc(70000), *cookie = malloc(sizes[t]);
		struct writer w = writer_init(msg, 70000);
		struct writer_vec m, v, e;
		size_t n;

		assert_int_equal(hs_conn_new(&c, &cfg), 0);
		wire_take(c, &out); /* ClientHello 1 */
		out.len = 0;
		for (size_t i = 0; i < sizes[t]; i++)
			cookie[i] = (uint8_t)(i * 7 + 1);
		write_u8(&w, HT_SERVER_HELLO);
		write_vec_open(&w, 3, &m);
		write_u16(&w, 0x0303);
		write_bytes(&w, hrr_rand, 32);
		write_vec_open(&w, 1, &v);
		write_bytes(&w, c->sid, c->sid_len);
		write_vec_close(&w, &v);
		write_u16(&w, 0x1301);
		write_u8(&w, 0);
		write_vec_open(&w, 2, &e);
		ext_w_opaque(&w, EXT_SUPPORTED_VERSIONS, 0, (const uint8_t[]){ 3, 4 }, 2);
		ext_w_opaque(&w, EXT_COOKIE, 2, cookie, sizes[t]);
		write_vec_close(&w, &e);
		write_vec_close(&w, &m);
		assert_int_equal(writer_error(&w), 0);
		assert_int_equal(feed_msg(c, msg, w.len), 0);
		wire_take(c, &out); /* CCS + ClientHello 2, which carries the cookie */
		assert_true(find(out.buf, out.len, cookie, sizes[t] < 16000 ? sizes[t] : 16000));
		n = out.len;
		assert_true(n > sizes[t]);
		hs_conn_free(c);
		free(out.buf);
		free(msg);
		free(cookie);
	}
}

/* ---- 8: early data ---- */

static void junk(struct wire *w, size_t body, int count)
{
	for (int i = 0; i < count; i++) {
		uint8_t *r = w->buf + w->len;
		memcpy(r, "\x17\x03\x03", 3);
		r[3] = (uint8_t)(body >> 8);
		r[4] = (uint8_t)body;
		for (size_t j = 0; j < body; j++)
			r[5 + j] = (uint8_t)(j * 13 + (size_t)i);
		w->len += 5 + body;
	}
}

static void test_early_data_skipped(void **state)
{
	struct hs_config cfg;
	struct hs_conn *s;
	struct wire w = { .buf = malloc(WIRE_CAP) };
	size_t len;
	uint8_t *msg = build_ch(&(struct ch){ .n_sigs = 1, .n_groups = 1, .early = 1 }, &len);
	struct rec_key_mem k_mem; /* AEAD context memory */
	struct rec_key k = *rec_key_mem_init(&k_mem);
	static const uint8_t fin[4 + 32] = { HT_FINISHED, 0, 0, 32 };
	(void)state;

	/* trial decryption: junk skipped, then a record under the client's
	 * handshake key is processed (a wrong Finished: decrypt_error) */
	s = new_server(&cfg);
	assert_int_equal(feed_msg(s, msg, len), 0);
	junk(&w, 300, 3);
	junk(&w, 16000, 2);
	assert_int_equal(wire_feed(&w, s, 0), 0);
	assert_int_equal(rec_key_set(&k, s->suite->aead(), s->suite->hash(), s->suite->key_len,
					 s->ks.c_hs), 0);
	{
		struct writer wr = writer_init(w.buf, WIRE_CAP);
		assert_int_equal(rec_seal(&k, CT_HANDSHAKE, 0x0303, fin, sizeof(fin), 0, &wr), 0);
		w.len = wr.len;
	}
	assert_int_equal(wire_feed(&w, s, 0), HS_ERR_TLS_BAD_FINISHED);
	rec_key_wipe(&k);
	hs_conn_free(s);
	free(w.buf);
	free(msg);
}

/* The bounds: past MAX_EARLY_SKIP, or without early_data offered, a
 * record that fails to open is bad_record_mac (as before). */
static void test_early_data_bounds(void **state)
{
	struct hs_config cfg;
	struct hs_conn *s;
	struct wire w = { .buf = malloc(WIRE_CAP) };
	size_t len, plain_len;
	uint8_t *msg = build_ch(&(struct ch){ .n_sigs = 1, .n_groups = 1, .early = 1 }, &len);
	uint8_t *plain = build_ch(&(struct ch){ .n_sigs = 1, .n_groups = 1 }, &plain_len);
	(void)state;

	/* past MAX_EARLY_SKIP: bad_record_mac */
	s = new_server(&cfg);
	w.len = 0;
	assert_int_equal(feed_msg(s, msg, len), 0);
	junk(&w, 16000, MAX_EARLY_SKIP / 16000 + 1);
	assert_int_equal(wire_feed(&w, s, 0), HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(hs_conn_alert(s, 0), A_BAD_MAC);
	hs_conn_free(s);

	/* without early_data offered a record that fails is bad_record_mac */
	s = new_server(&cfg);
	w.len = 0;
	assert_int_equal(feed_msg(s, plain, plain_len), 0);
	junk(&w, 300, 1);
	assert_int_equal(wire_feed(&w, s, 0), HS_ERR_TLS_BAD_RECORD_MAC);
	hs_conn_free(s);
	free(w.buf);
	free(msg);
	free(plain);
}

/* After a HelloRetryRequest, application_data records before the second
 * ClientHello are early data: skipped (was unexpected_message). */
static void test_early_data_after_hrr(void **state)
{
	struct hs_config cfg;
	struct hs_conn *s;
	struct wire w = { .buf = malloc(WIRE_CAP) };
	size_t len;
	uint8_t *msg = build_ch(&(struct ch){ .n_sigs = 1, .n_groups = 1, .early = 1 }, &len);
	(void)state;

	s = new_server(&cfg);
	cfg.hrr_cookie = 1;
	w.len = 0;
	assert_int_equal(feed_msg(s, msg, len), 0);
	assert_int_equal(s->hrr_done, 1);
	junk(&w, 500, 4);
	assert_int_equal(wire_feed(&w, s, 0), 0);
	hs_conn_free(s);
	free(w.buf);
	free(msg);
}

/* ---- 9: alerts, key share size ---- */

/* an empty encrypted Alert record: unexpected_message (was decode_error) */
static void test_empty_encrypted_alert(void **state)
{
	struct pair p;
	(void)state;

	handshake(&p);
	seal(p.c, CT_ALERT, (const uint8_t *)"", 0, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), HS_ERR_TLS_EMPTY_RECORD);
	assert_int_equal(hs_conn_alert(p.s, 0), A_UNEXPECTED);
	pair_free(&p);
}

/* X25519 shares of 31 and 33 bytes: illegal_parameter, as for P-256 */
static void test_x25519_share_size(void **state)
{
	(void)state;
	ch_case(&(struct ch){ .n_sigs = 1, .n_groups = 1, .share_len = 31 },
		HS_ERR_TLS_BAD_KEY_SHARE, A_ILLEGAL);
	ch_case(&(struct ch){ .n_sigs = 1, .n_groups = 1, .share_len = 33 },
		HS_ERR_TLS_BAD_KEY_SHARE, A_ILLEGAL);
}

/* a plaintext fatal alert once our handshake keys are on: the connection
 * ends, nothing is added to what we send (was: unexpected_message back) */
static void test_plaintext_alert_unanswered(void **state)
{
	struct hs_config cfg;
	struct hs_conn *s;
	size_t len, used, before;
	uint8_t *msg;
	(void)state;
	s = new_server(&cfg);
	msg = build_ch(&(struct ch){ .n_sigs = 1, .n_groups = 1 }, &len);
	assert_int_equal(feed_msg(s, msg, len), 0);
	before = hs_conn_output_pending(s);
	assert_int_equal(hs_conn_feed(s, (const uint8_t *)"\x15\x03\x03\x00\x02\x02\x28", 7, &used),
			 HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(hs_conn_alert(s, 1), 40);
	assert_int_equal(hs_conn_alert(s, 0), -1);
	assert_int_equal(hs_conn_output_pending(s), before);
	hs_conn_free(s);
	free(msg);
}

/* ---- 10: Certificate extensions, CertificateRequest context ---- */

/* CertificateEntry extensions we never asked for (were ignored) */
static void test_certificate_entry_exts(void **state)
{
	struct hs_config cfg = { .role = HS_ROLE_CLIENT, .insecure = 1 };
	struct hs_conn *c;
	uint8_t der[4096], msg[5000], out[4096];
	size_t der_len, n;
	struct writer w;
	struct writer_vec m, v, l, x;
	(void)state;
	assert_int_equal(hs_pem_cert_to_der(EC_CERT, strlen(EC_CERT), der, sizeof(der), &der_len), 0);
	for (int ext = 0; ext < 2; ext++) {
		assert_int_equal(hs_conn_new(&c, &cfg), 0);
		assert_int_equal(hs_conn_pull(c, out, sizeof(out), &n), 0);
		w = writer_init(msg, sizeof(msg));
		write_u8(&w, HT_CERTIFICATE);
		write_vec_open(&w, 3, &m);
		write_u8(&w, 0);
		write_vec_open(&w, 3, &l);
		write_vec_open(&w, 3, &v);
		write_bytes(&w, der, der_len);
		write_vec_close(&w, &v);
		write_vec_open(&w, 2, &x);
		if (ext) /* status_request: we never asked */
			ext_w_opaque(&w, 5, 0, NULL, 0);
		write_vec_close(&w, &x);
		write_vec_close(&w, &l);
		write_vec_close(&w, &m);
		assert_int_equal(writer_error(&w), 0);
		assert_int_equal(parse_certificate(c, msg, w.len, &n),
				 ext ? HS_ERR_TLS_UNSOLICITED_EXT : 0);
		hs_conn_free(c);
	}
	assert_int_equal(alert_for(HS_ERR_TLS_UNSOLICITED_EXT), A_UNSUPPORTED_EXT);
}

/* CertificateRequest in the handshake: the context must be empty */
static void test_cr_context(void **state)
{
	struct hs_config cfg = { .role = HS_ROLE_CLIENT, .insecure = 1 };
	struct hs_conn *c;
	uint8_t msg[512], out[4096];
	size_t n;
	struct writer w;
	struct writer_vec m, v, x;
	(void)state;
	for (int ctx = 0; ctx < 2; ctx++) {
		assert_int_equal(hs_conn_new(&c, &cfg), 0);
		assert_int_equal(hs_conn_pull(c, out, sizeof(out), &n), 0);
		c->state = C_WAIT_CERT_CR;
		w = writer_init(msg, sizeof(msg));
		write_u8(&w, HT_CERTIFICATE_REQUEST);
		write_vec_open(&w, 3, &m);
		write_vec_open(&w, 1, &v);
		if (ctx)
			write_u16(&w, 0x0107);
		write_vec_close(&w, &v);
		write_vec_open(&w, 2, &x);
		ext_w_u16_list(&w, EXT_SIG_ALGS, 2, (const uint16_t[]){ 0x0403 }, 1);
		write_vec_close(&w, &x);
		write_vec_close(&w, &m);
		assert_int_equal(writer_error(&w), 0);
		assert_int_equal(client_handle(c, msg, w.len), ctx ? HS_ERR_TLS_ILLEGAL_PARAM : 0);
		hs_conn_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_wipes_recycled_block),
		cmocka_unit_test(test_double_free_caught),
		cmocka_unit_test(test_second_ccs),
		cmocka_unit_test(test_empty_record_cap),
		cmocka_unit_test(test_warning_alert_cap),
		cmocka_unit_test(test_key_update_cap),
		cmocka_unit_test(test_key_update_answers_coalesce),
		cmocka_unit_test(test_fd_handshake_deadline),
		cmocka_unit_test(test_refused_handshake_no_reset),
#ifdef HS_TEST_HOOKS
		cmocka_unit_test(test_secrets_wiped),
#endif
		cmocka_unit_test(test_sigalgs_past_64),
		cmocka_unit_test(test_groups_past_64),
		cmocka_unit_test(test_many_key_shares),
		cmocka_unit_test(test_many_extensions),
		cmocka_unit_test(test_big_client_hello),
		cmocka_unit_test(test_message_size_limit),
		cmocka_unit_test(test_client_big_cookie),
		cmocka_unit_test(test_early_data_skipped),
		cmocka_unit_test(test_early_data_bounds),
		cmocka_unit_test(test_early_data_after_hrr),
		cmocka_unit_test(test_empty_encrypted_alert),
		cmocka_unit_test(test_x25519_share_size),
		cmocka_unit_test(test_plaintext_alert_unanswered),
		cmocka_unit_test(test_certificate_entry_exts),
		cmocka_unit_test(test_cr_context),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
