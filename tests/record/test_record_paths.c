/*
 * One record layer, one answer: the same bad record, fed to the engine
 * (hs_conn_feed after a handshake) and to ktls's userspace path (hs_ktls_read
 * with fake syscalls, the same secrets and sequence number), gives the same
 * error on both.
 *
 * Proves, for each record below, engine error == ktls error == the RFC's:
 * - bad tag: bad_record_mac (5.2);
 * - inner plaintext over 2^14 + 1, by content or by padding: record_overflow (5.2);
 * - ciphertext length over 2^14 + 256 in the header: record_overflow (5.2);
 * - all padding: HS_ERR_TLS_EMPTY_RECORD, unexpected_message (5.4);
 * - an empty handshake record: HS_ERR_TLS_EMPTY_RECORD (5.1);
 * - the last sequence number reached: HS_ERR_TLS_SEQ_EXHAUSTED (5.3);
 * - a change_cipher_spec after the handshake: HS_ERR_TLS_BAD_CCS (5);
 * - an unprotected handshake record after the keys: HS_ERR_TLS_UNEXPECTED_RECORD;
 * - an unknown inner content type: HS_ERR_TLS_UNEXPECTED_RECORD;
 * - a post-handshake message body over REC_MSG_MAX: HS_ERR_TLS_MSG_TOO_LARGE.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/socket.h>

#include "../tls/pair.h"
#include "../tls/tls_certs.h"
#include "hs/ktls.h"
#include "hs/secrets.h"
#include "ktls/internal.h"  /* white-box: the rows' crypto tables */
#include "libhs/internal.h" /* white-box: the engine's read sequence number */
#include "record/record.h"
#include "record_util.h"
#include "testutil.h"

enum kind { RAW, SEALED, SEALED_FLIP };

struct bad {
	const char *name;
	enum kind kind;
	uint8_t inner[64]; /* RAW: the record; SEALED: the inner plaintext's first bytes */
	size_t inner_len;  /* RAW: of the record; SEALED: of the whole inner plaintext */
	size_t prefix;     /* SEALED: bytes of inner[] used; fill bytes after them ... */
	uint8_t fill;
	uint8_t last;      /* ... and this last byte, when inner_len > prefix */
	int seq_max;       /* both sides at the last sequence number */
	int want;
};

static const struct bad bads[] = {
	{ "bad tag", SEALED_FLIP, { 'h', 'i', REC_APP }, 3, 3, 0, 0, 0,
	  HS_ERR_TLS_BAD_RECORD_MAC },
	{ "content over 2^14", SEALED, { 0 }, REC_MAX_INNER + 1, 0, 'a', REC_APP, 0,
	  HS_ERR_TLS_RECORD_OVERFLOW },
	{ "padding over 2^14 + 1", SEALED, { 'a', REC_APP }, REC_MAX_INNER + 1, 2, 0, 0, 0,
	  HS_ERR_TLS_RECORD_OVERFLOW },
	{ "all padding", SEALED, { 0 }, 40, 0, 0, 0, 0, HS_ERR_TLS_EMPTY_RECORD },
	{ "empty handshake", SEALED, { REC_HANDSHAKE, 0, 0 }, 3, 3, 0, 0, 0,
	  HS_ERR_TLS_EMPTY_RECORD },
	{ "sequence number exhausted", SEALED, { 'h', 'i', REC_APP }, 3, 3, 0, 0, 1,
	  HS_ERR_TLS_SEQ_EXHAUSTED },
	{ "ciphertext length over 2^14 + 256", RAW, { 23, 3, 3, 0x41, 0x01, 0 }, 6, 0, 0, 0, 0,
	  HS_ERR_TLS_RECORD_OVERFLOW },
	{ "change_cipher_spec after the handshake", RAW, { 20, 3, 3, 0, 1, 1 }, 6, 0, 0, 0, 0,
	  HS_ERR_TLS_BAD_CCS },
	{ "unprotected handshake record", RAW, { 22, 3, 3, 0, 4, 24, 0, 0, 1 }, 9, 0, 0, 0, 0,
	  HS_ERR_TLS_UNEXPECTED_RECORD },
	{ "unknown inner content type", SEALED, { 'x', 24 }, 2, 2, 0, 0, 0,
	  HS_ERR_TLS_UNEXPECTED_RECORD },
	{ "post-handshake message over REC_MSG_MAX", SEALED,
	  { 4, 0x00, 0x80, 0x01, 0, 0, 0, 0, REC_HANDSHAKE }, 9, 9, 0, 0, 0,
	  HS_ERR_TLS_MSG_TOO_LARGE },
};

/* recvmsg hands out one buffer, then EOF; sendmsg swallows everything. */
struct feed {
	const uint8_t *p;
	size_t len;
	int done;
};

static int fake_setsockopt(void *user, int fd, int level, int name, const void *val,
			   socklen_t len)
{
	(void)user, (void)fd, (void)level, (void)name, (void)val, (void)len;
	errno = ENOPROTOOPT;
	return -1;
}

static ssize_t fake_sendmsg(void *user, int fd, const struct msghdr *m, int flags)
{
	(void)user, (void)fd, (void)flags;
	return (ssize_t)m->msg_iov[0].iov_len;
}

static ssize_t fake_recvmsg(void *user, int fd, struct msghdr *m, int flags)
{
	struct feed *f = user;

	(void)fd, (void)flags;
	if (f->done)
		return 0;
	assert_true(m->msg_iov[0].iov_len >= f->len);
	memcpy(m->msg_iov[0].iov_base, f->p, f->len);
	f->done = 1;
	return (ssize_t)f->len;
}

/* The record of b, as the server would send it to the client at seq. */
static size_t build(const struct bad *b, const struct hs_secrets *s, uint64_t seq, uint8_t *out)
{
	static uint8_t inner[REC_MAX_INNER + 64];
	const struct hs_ktls_cipher *c = hs_ktls_cipher_for_suite(s->suite);
	struct rec_key_mem peer_mem; /* AEAD context memory */
	struct rec_key peer = *rec_key_mem_init(&peer_mem);
	size_t n = b->inner_len, len;

	if (b->kind == RAW) {
		memcpy(out, b->inner, n);
		return n;
	}
	memset(inner, b->fill, sizeof(inner));
	memcpy(inner, b->inner, b->prefix);
	if (n > b->prefix)
		inner[n - 1] = b->last;
	assert_int_equal(rec_key_set(&peer, ktls_cipher_aead(c), ktls_cipher_hash(c), c->key_len, s->rx->secret), 0);
	len = rec_raw(&peer, seq, inner, n, out);
	if (b->kind == SEALED_FLIP)
		out[len - 1] ^= 0x40;
	rec_key_wipe(&peer);
	return len;
}

static void one(const struct bad *b)
{
	static uint8_t rec[REC_MAX_WIRE + 128];
	struct pair p;
	struct hs_secrets s;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	struct feed f = { 0 };
	struct hs_ktls_ops ops = { fake_setsockopt, fake_sendmsg, fake_recvmsg, &f };
	uint64_t seq;
	size_t len, used, n;
	uint8_t buf[64];
	int err_engine, err_ktls;

	pair_init(&p, EC_CERT, EC_KEY_SEC1);
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_secrets(p.c, &s), 0);
	seq = b->seq_max ? UINT64_MAX : s.rx->seq;
	len = build(b, &s, seq, rec);

	/* the engine: the client's connection after its handshake */
	p.c->rd->seq = seq;
	err_engine = hs_conn_feed(p.c, rec, len, &used);

	/* ktls's userspace path: the same secrets and sequence number */
	s.rx->seq = seq;
	f.p = rec;
	f.len = len;
	assert_int_equal(hs_ktls_init(k, -1, &s, HS_KTLS_F_USER, &ops), 0);
	err_ktls = hs_ktls_read(k, buf, sizeof(buf), &n);

	print_message("%-45s engine %-4d ktls %-4d (%s)\n", b->name, err_engine, err_ktls,
		      hs_strerror(b->want));
	assert_int_equal(err_engine, b->want);
	assert_int_equal(err_ktls, b->want);
	hs_secrets_wipe(&s);
	hs_ktls_wipe(k);
	free(k);
	pair_free(&p);
}

static void test_same_error(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++)
		one(&bads[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
