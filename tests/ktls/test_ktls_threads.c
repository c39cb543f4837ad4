/*
 * Issue 9, defect 3: one reader thread and one writer thread on one
 * struct hs_ktls (what hs-client --ktls runs), with fake syscalls.
 *
 * The writer sends 128 KiB of application data (eight records) in one
 * hs_ktls_write; after its third record the reader receives a record with a
 * bad tag. The fake sendmsg holds the writer's fourth send until the reader
 * has failed, so the error lands in the middle of the write (the fourth
 * record may or may not have been sealed by then: three or four go out).
 *
 * Proves:
 * - the reader never sends: every sendmsg comes from the writer thread (the
 *   old code sealed the alert into the shared output buffer from the reader,
 *   racing the writer over it and over the TX sequence number);
 * - the write loop stops at the sticky error: hs_ktls_write returns
 *   HS_ERR_TLS_BAD_RECORD_MAC without sending the rest of its data;
 * - the writer sends the fatal alert the reader's error calls for, once,
 *   after its last record: the peer opens every record in order (no
 *   sequence number used twice) and ends on bad_record_mac;
 * - later writer calls return the error and send nothing.
 * Run under the ASan build; by hand under -Db_sanitize=thread it is clean.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <sys/socket.h>

#include "hs/ktls.h"
#include "hs/tls.h"
#include "kt_util.h"
#include "testutil.h"

#define DATA_LEN (8 * 16384)
#define WIRE_CAP (DATA_LEN + 4096)

struct fake {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct hs_ktls *k;
	pthread_t writer;
	int sends, reader_sends, records_before_error;
	uint8_t wire[WIRE_CAP];
	size_t wire_len;
	/* the peer's side: recvmsg hands out in[in_off, in_len), then EOF */
	const uint8_t *in;
	size_t in_len, in_off;
};

static int fake_setsockopt(void *user, int fd, int level, int name, const void *val,
			   socklen_t len)
{
	(void)user, (void)fd, (void)level, (void)name, (void)val, (void)len;
	errno = ENOPROTOOPT;
	return -1;
}

/* Wait on f->cv until cond() holds, at most 5 s (a broken build must not hang). */
static void wait_until(struct fake *f, int (*cond)(struct fake *))
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += 5;
	while (!cond(f))
		if (pthread_cond_timedwait(&f->cv, &f->mu, &t) == ETIMEDOUT)
			break;
}

static int error_set(struct fake *f)
{
	return hs_ktls_error(f->k) != 0;
}

static int three_sent(struct fake *f)
{
	return f->sends >= 3;
}

static ssize_t fake_sendmsg(void *user, int fd, const struct msghdr *m, int flags)
{
	struct fake *f = user;
	size_t len = m->msg_iov[0].iov_len;

	(void)fd, (void)flags;
	pthread_mutex_lock(&f->mu);
	if (!pthread_equal(pthread_self(), f->writer)) {
		f->reader_sends++;
	} else if (f->sends == 3) {
		/* the writer's fourth record: hold it until the reader has failed */
		wait_until(f, error_set);
	}
	f->sends++;
	if (f->wire_len + len <= sizeof(f->wire)) {
		memcpy(f->wire + f->wire_len, m->msg_iov[0].iov_base, len);
		f->wire_len += len;
	}
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	return (ssize_t)len;
}

/* The reader's socket: after three of the writer's records, a record with a bad tag. */
static ssize_t fake_recvmsg(void *user, int fd, struct msghdr *m, int flags)
{
	static const uint8_t bad[5 + 32] = { 23, 3, 3, 0, 32, 0xba, 0xd0 };
	struct fake *f = user;

	(void)fd, (void)flags;
	pthread_mutex_lock(&f->mu);
	wait_until(f, three_sent);
	f->records_before_error = f->sends;
	pthread_mutex_unlock(&f->mu);
	memcpy(m->msg_iov[0].iov_base, bad, sizeof(bad));
	return (ssize_t)sizeof(bad);
}

/* The peer reads f->in: the writer's records, as much as it asks for. */
static ssize_t peer_recvmsg(void *user, int fd, struct msghdr *m, int flags)
{
	struct fake *f = user;
	size_t n = m->msg_iov[0].iov_len;

	(void)fd, (void)flags;
	if (n > f->in_len - f->in_off)
		n = f->in_len - f->in_off;
	memcpy(m->msg_iov[0].iov_base, f->in + f->in_off, n);
	f->in_off += n;
	return (ssize_t)n; /* 0 at the end: EOF */
}

struct writer_arg {
	struct hs_ktls *k;
	const uint8_t *data;
	int err;
};

static void *writer_main(void *arg)
{
	struct writer_arg *w = arg;

	w->err = hs_ktls_write(w->k, w->data, DATA_LEN);
	return NULL;
}

static void test_reader_never_sends(void **state)
{
	static struct fake f, peer_f;
	struct hs_ktls_ops ops = { fake_setsockopt, fake_sendmsg, fake_recvmsg, &f };
	struct hs_ktls_ops peer_ops = { fake_setsockopt, fake_sendmsg, peer_recvmsg, &peer_f };
	struct hs_ktls *k = calloc(1, sizeof(*k)), *peer = calloc(1, sizeof(*peer));
	uint8_t *data = malloc(DATA_LEN), *got = malloc(DATA_LEN + 64), buf[64];
	struct test_rng rng = { .s = 9 };
	struct hs_secrets a, b;
	struct writer_arg w = { k, data, 0 };
	size_t n, total = 0;
	int err;

	(void)state;
	memset(&f, 0, sizeof(f));
	pthread_mutex_init(&f.mu, NULL);
	pthread_cond_init(&f.cv, NULL);
	f.k = k;
	test_rng_bytes(&rng, data, DATA_LEN);
	kt_secrets(&a, &b, HS_TLS_AES_128_GCM_SHA256, &rng, 0, 0);
	assert_int_equal(hs_ktls_init(k, -1, &a, HS_KTLS_F_USER, &ops), 0);

	pthread_mutex_lock(&f.mu); /* f.writer is set before the writer's first sendmsg */
	assert_int_equal(pthread_create(&f.writer, NULL, writer_main, &w), 0);
	pthread_mutex_unlock(&f.mu);
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), HS_ERR_TLS_BAD_RECORD_MAC);
	pthread_mutex_lock(&f.mu); /* wake a writer held in sendmsg: the error is set */
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	pthread_join(f.writer, NULL);

	assert_int_equal(f.reader_sends, 0);
	assert_int_equal(f.records_before_error, 3);
	assert_int_equal(w.err, HS_ERR_TLS_BAD_RECORD_MAC); /* the write loop stopped */
	/* three data records, perhaps the fourth (sealed before the error), then the alert */
	assert_true(f.sends == 4 || f.sends == 5);

	/* the peer opens what was sent, in order, and ends on our alert */
	peer_f.in = f.wire;
	peer_f.in_len = f.wire_len;
	assert_int_equal(hs_ktls_init(peer, -1, &b, HS_KTLS_F_USER, &peer_ops), 0);
	while ((err = hs_ktls_read(peer, got + total, DATA_LEN + 64 - total, &n)) == 0 && n > 0)
		total += n;
	assert_int_equal(err, HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(hs_ktls_peer_alert(peer), 20); /* bad_record_mac */
	assert_int_equal(total, (size_t)(f.sends - 1) * 16384);
	assert_memory_equal(got, data, total);

	/* later calls on the writer's side: the error, nothing more sent */
	assert_int_equal(hs_ktls_write(k, "x", 1), HS_ERR_TLS_BAD_RECORD_MAC);
	n = (size_t)f.sends;
	assert_int_equal(hs_ktls_close(k), HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(f.sends, n);

	hs_secrets_wipe(&a);
	hs_secrets_wipe(&b);
	hs_ktls_wipe(k);
	hs_ktls_wipe(peer);
	pthread_cond_destroy(&f.cv);
	pthread_mutex_destroy(&f.mu);
	free(k);
	free(peer);
	free(data);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_never_sends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
