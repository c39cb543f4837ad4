/*
 * ktls record layer against the real kernel, with made-up secrets (no
 * handshake), both peers in this process over loopback TCP.
 *
 * Proves, for AES-128-GCM, AES-256-GCM and ChaCha20-Poly1305:
 * - kernel TX -> our userspace record open, our userspace seal -> kernel RX,
 *   and kernel <-> kernel, from 1 byte to several MiB in odd write and read
 *   sizes, sequence numbers crossing 2^32; every byte compared (and SHA-256);
 * - records of other types: post-handshake messages reach the callback,
 *   user_canceled is skipped, close_notify ends the stream, a fatal alert
 *   gives HS_ERR_TLS_PEER_ALERT, a raw record keeps its type;
 * - a flipped tag bit gives HS_ERR_TLS_BAD_RECORD_MAC (EBADMSG on the kernel);
 * - KeyUpdate both ways with data intact where the kernel can rekey
 *   (Linux >= 6.14), and the clear HS_ERR_UNSUPPORTED where it cannot;
 * - sendfile() and splice() of a file through kernel TX.
 *
 * HS_KTLS_EXPECT=kernel (inside UML): every kernel install must succeed
 * (HS_KTLS_F_KERNEL_ONLY), HS_KTLS_EXPECT_REKEY=1|0 says what the kernel must
 * answer. HS_KTLS_EXPECT=user (the host, no CONFIG_TLS): the probe must say
 * why, and the same transfers run through the userspace fallback.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hs/tls.h"
#include "kt_util.h"
#include "hs/ktls.h"
#include "ktls/internal.h" /* white-box: KeyUpdate counters */

static const uint16_t suites[] = {
	HS_TLS_AES_128_GCM_SHA256,
	HS_TLS_AES_256_GCM_SHA384,
	HS_TLS_CHACHA20_POLY1305_SHA256,
};
#define N_SUITES (sizeof(suites) / sizeof(suites[0]))

static int expect_kernel, expect_user, expect_rekey = -1;
static int force_user; /* the host has kTLS: test the fallback by asking for it */
static size_t big = 4u << 20;
static struct hs_ktls_caps caps;

/* sender path, receiver path: 1 = kernel */
struct mode {
	const char *name;
	int tx_kernel, rx_kernel;
};
static const struct mode modes[] = {
	{ "kernel->kernel", 1, 1 },
	{ "kernel->user", 1, 0 },
	{ "user->kernel", 0, 1 },
};
#define N_MODES (sizeof(modes) / sizeof(modes[0]))

struct conn {
	int fds[2];
	struct hs_ktls *a, *b; /* a sends (client end), b receives (server end) */
};

static unsigned flags_for(int kernel)
{
	if (!kernel || force_user)
		return HS_KTLS_F_USER;
	return expect_kernel ? HS_KTLS_F_KERNEL_ONLY : 0;
}

static void conn_open(struct conn *c, uint16_t suite, const struct mode *m, uint64_t seed,
		      uint64_t seq, const struct hs_ktls_ops *ops_a)
{
	struct hs_secrets sa, sb;
	struct test_rng rng = { .s = seed };

	assert_int_equal(kt_tcp_pair(c->fds), 0);
	c->a = calloc(1, sizeof(*c->a));
	c->b = calloc(1, sizeof(*c->b));
	assert_non_null(c->a);
	assert_non_null(c->b);
	kt_secrets(&sa, &sb, suite, &rng, seq, seq + 7);
	assert_int_equal(hs_ktls_init(c->a, c->fds[0], &sa, flags_for(m->tx_kernel), ops_a), 0);
	assert_int_equal(hs_ktls_init(c->b, c->fds[1], &sb,
				      flags_for(m->rx_kernel) | HS_KTLS_F_NO_PAD, NULL), 0);
	hs_secrets_wipe(&sa);
	hs_secrets_wipe(&sb);
	if (expect_kernel) {
		assert_int_equal(hs_ktls_tx_path(c->a), m->tx_kernel);
		assert_int_equal(hs_ktls_rx_path(c->b), m->rx_kernel);
	}
	if (expect_user) {
		assert_int_equal(hs_ktls_tx_path(c->a), HS_KTLS_PATH_USER);
		assert_int_equal(hs_ktls_rx_path(c->b), HS_KTLS_PATH_USER);
		assert_string_not_equal(hs_ktls_reason(c->a, 0), "");
	}
}

static void conn_close(struct conn *c)
{
	hs_ktls_wipe(c->a);
	hs_ktls_wipe(c->b);
	free(c->a);
	free(c->b);
	close(c->fds[0]);
	close(c->fds[1]);
}

static void test_probe(void **state)
{
	(void)state;
	printf("# kernel %s: ulp %d tx %#x rx %#x no_pad %d rekey %d\n", caps.release, caps.ulp,
	       caps.tx, caps.rx, caps.no_pad, caps.rekey);
	if (caps.why != HS_KTLS_WHY_NONE)
		printf("# not all there: %s\n", caps.reason);
	if (expect_kernel) {
		assert_true(caps.ulp);
		assert_int_equal(caps.tx, 7);
		assert_int_equal(caps.rx, 7);
		assert_true(caps.no_pad); /* both test kernels are >= 6.0 */
	}
	if (expect_rekey >= 0)
		assert_int_equal(caps.rekey, expect_rekey);
	if (expect_user && !force_user) {
		assert_false(caps.ulp);
		assert_int_equal(caps.why, HS_KTLS_WHY_NO_ULP);
		assert_non_null(strstr(caps.reason, "CONFIG_TLS"));
	}
}

/* One transfer a -> b of len bytes; returns after checking every byte. */
static void transfer(uint16_t suite, const struct mode *m, size_t len, uint64_t seq,
		     uint64_t seed)
{
	struct conn c;
	struct kt_sender s = { 0 };
	size_t got;
	int mismatch, err;

	conn_open(&c, suite, m, seed, seq, NULL);
	s.k = c.a;
	s.len = len;
	s.seed = seed;
	s.max_chunk = len < 70000 ? len : 70000;
	s.key_update_at = SIZE_MAX;
	s.close = 1;
	kt_sender_start(&s);
	err = kt_receive(c.b, seed, 40000, &got, &mismatch);
	if (err)
		shutdown(c.fds[1], SHUT_RDWR);
	kt_sender_join(&s);
	if (err || s.err || got != len || mismatch)
		printf("# %s %s %zu bytes: recv %d (%s) send %d got %zu mismatch %d\n",
		       hs_suite_name(suite), m->name, len, err, hs_strerror(err), s.err, got,
		       mismatch);
	assert_int_equal(err, 0);
	assert_int_equal(s.err, 0);
	assert_int_equal(got, len);
	assert_false(mismatch);
	conn_close(&c);
}

static void test_transfer(void **state)
{
	const size_t sizes[] = { 1, 16384, 16385, 100003, big };

	(void)state;
	for (size_t i = 0; i < N_SUITES; i++)
		for (size_t j = 0; j < N_MODES; j++)
			for (size_t n = 0; n < sizeof(sizes) / sizeof(sizes[0]); n++)
				transfer(suites[i], &modes[j], sizes[n],
					 n == 2 ? 0xfffffff0u : n, 1000 * i + 10 * j + n);
	printf("# %zu suites x %zu modes x 1 B..%zu B: ok\n", N_SUITES, N_MODES, big);
}

/* Both directions at once on one connection (each end both sends and receives). */
static void test_both_ways(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_SUITES; i++) {
		struct conn c;
		struct kt_sender s1 = { 0 }, s2 = { 0 };
		size_t got1, got2, len = 1000003;
		int mm1, mm2, e1, e2;

		conn_open(&c, suites[i], &modes[0], 77 + i, 0x01020304fffffffdull, NULL);
		s1 = (struct kt_sender){ .k = c.a, .len = len, .seed = 5, .max_chunk = 30011,
					 .key_update_at = SIZE_MAX, .close = 1 };
		s2 = (struct kt_sender){ .k = c.b, .len = len, .seed = 6, .max_chunk = 5003,
					 .key_update_at = SIZE_MAX, .close = 1 };
		kt_sender_start(&s1);
		kt_sender_start(&s2);
		e1 = kt_receive(c.b, 5, 65536, &got1, &mm1);
		e2 = kt_receive(c.a, 6, 777, &got2, &mm2);
		kt_sender_join(&s1);
		kt_sender_join(&s2);
		assert_int_equal(e1, 0);
		assert_int_equal(e2, 0);
		assert_int_equal(s1.err, 0);
		assert_int_equal(s2.err, 0);
		assert_int_equal(got1, len);
		assert_int_equal(got2, len);
		assert_false(mm1 || mm2);
		conn_close(&c);
	}
}

struct nst_seen {
	uint8_t msg[64];
	size_t len;
	int count;
};

static int on_nst(void *arg, const uint8_t *msg, size_t len)
{
	struct nst_seen *n = arg;

	if (len > sizeof(n->msg))
		return HS_ERR_TLS_DECODE;
	memcpy(n->msg, msg, len);
	n->len = len;
	n->count++;
	return 0;
}

static void control_one(uint16_t suite, const struct mode *m)
{
	static const uint8_t nst[] = { 4, 0, 0, 9, 0, 0, 0x1c, 0x20, 1, 2, 3, 4, 0 };
	struct conn c;
	struct nst_seen seen = { 0 };
	uint8_t buf[64], type;
	size_t n, total = 0;
	int err;

	conn_open(&c, suite, m, 42, 3, NULL);
	hs_ktls_on_handshake(c.b, on_nst, &seen);
	assert_int_equal(hs_ktls_write(c.a, "hello", 5), 0);
	assert_int_equal(hs_ktls_send_record(c.a, HS_KTLS_HANDSHAKE, nst, sizeof(nst)), 0);
	assert_int_equal(hs_ktls_send_alert(c.a, 1, 90), 0); /* user_canceled */
	assert_int_equal(hs_ktls_write(c.a, " world", 6), 0);
	assert_int_equal(hs_ktls_close(c.a), 0);
	assert_int_equal(hs_ktls_write(c.a, "x", 1), HS_ERR_TLS_CLOSED);
	do {
		err = hs_ktls_read(c.b, buf + total, sizeof(buf) - total, &n);
		total += n;
	} while (!err && n > 0);
	assert_int_equal(err, 0);
	assert_int_equal(total, 11);
	assert_memory_equal(buf, "hello world", 11);
	assert_int_equal(seen.count, 1);
	assert_int_equal(seen.len, sizeof(nst));
	assert_memory_equal(seen.msg, nst, sizeof(nst));
	conn_close(&c);

	/* a raw record keeps its type; a fatal alert ends the connection */
	conn_open(&c, suite, m, 43, 0, NULL);
	assert_int_equal(hs_ktls_send_record(c.a, HS_KTLS_HANDSHAKE, nst, sizeof(nst)), 0);
	assert_int_equal(hs_ktls_send_alert(c.a, 2, 40), 0); /* handshake_failure */
	assert_int_equal(hs_ktls_recv_record(c.b, &type, buf, sizeof(buf), &n), 0);
	assert_int_equal(type, HS_KTLS_HANDSHAKE);
	assert_int_equal(n, sizeof(nst));
	assert_memory_equal(buf, nst, sizeof(nst));
	assert_int_equal(hs_ktls_read(c.b, buf, sizeof(buf), &n), HS_ERR_TLS_PEER_ALERT);
	assert_int_equal(hs_ktls_peer_alert(c.b), 40);
	conn_close(&c);
}

static void test_control(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_SUITES; i++)
		for (size_t j = 0; j < N_MODES; j++)
			control_one(suites[i], &modes[j]);
}

/* sendmsg that flips one bit in the tag of the second record sent */
struct tamper {
	int sent;
};

static ssize_t tamper_sendmsg(void *user, int fd, const struct msghdr *m, int flags)
{
	struct tamper *t = user;
	struct iovec *iov = m->msg_iov;

	if (++t->sent == 2 && m->msg_iovlen == 1 && iov->iov_len > 0)
		((uint8_t *)iov->iov_base)[iov->iov_len - 1] ^= 0x20;
	return sendmsg(fd, m, flags);
}

static void test_bad_tag(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_SUITES; i++) {
		for (int rx_kernel = 0; rx_kernel <= 1; rx_kernel++) {
			struct mode m = { "user->?", 0, rx_kernel };
			struct tamper t = { 0 };
			struct hs_ktls_ops ops = hs_ktls_sys_ops;
			struct conn c;
			uint8_t buf[64];
			size_t n;

			ops.sendmsg = tamper_sendmsg;
			ops.user = &t;
			conn_open(&c, suites[i], &m, 9, 0xfffffffeu, &ops);
			assert_int_equal(hs_ktls_write(c.a, "first", 5), 0);
			assert_int_equal(hs_ktls_write(c.a, "second", 6), 0);
			assert_int_equal(hs_ktls_read(c.b, buf, sizeof(buf), &n), 0);
			assert_int_equal(n, 5);
			assert_int_equal(hs_ktls_read(c.b, buf, sizeof(buf), &n),
					 HS_ERR_TLS_BAD_RECORD_MAC);
			if (hs_ktls_rx_path(c.b) == HS_KTLS_PATH_KERNEL)
				assert_int_equal(hs_ktls_errno(c.b), EBADMSG);
			/* sticky */
			assert_int_equal(hs_ktls_read(c.b, buf, sizeof(buf), &n),
					 HS_ERR_TLS_BAD_RECORD_MAC);
			conn_close(&c);
		}
	}
}

static void key_update_one(uint16_t suite, const struct mode *m)
{
	struct conn c;
	struct kt_sender s = { 0 };
	size_t got, len = 300007, n;
	int mismatch, err, can_tx, can_rx;
	uint8_t buf[16];

	conn_open(&c, suite, m, 123, 0xffffffffu, NULL);
	s = (struct kt_sender){ .k = c.a, .len = len, .seed = 99, .max_chunk = 20000,
				.key_update_at = len / 2, .request_peer = 1, .close = 0 };
	kt_sender_start(&s);
	/* read exactly len bytes (no close yet) */
	{
		struct hs_ktls *k = c.b;
		uint8_t *exp = malloc(65536), *rb = malloc(65536);
		got = 0;
		mismatch = 0;
		err = 0;
		while (!err && got < len) {
			size_t cap = len - got < 65536 ? len - got : 65536;
			err = hs_ktls_read(k, rb, cap, &n);
			if (!err && n == 0)
				err = HS_ERR_TLS_CLOSED;
			if (!err) {
				kt_stream(99, got, exp, n);
				mismatch |= memcmp(rb, exp, n) != 0;
				got += n;
			}
		}
		free(exp);
		free(rb);
	}
	if (err)
		shutdown(c.fds[1], SHUT_RDWR);
	kt_sender_join(&s);
	can_tx = hs_ktls_tx_path(c.a) == HS_KTLS_PATH_USER || caps.rekey;
	can_rx = hs_ktls_rx_path(c.b) == HS_KTLS_PATH_USER || caps.rekey;
	printf("# %s %s KeyUpdate: send %d (%s), recv %d (%s)%s%s\n", hs_suite_name(suite),
	       m->name, s.ku_err, hs_strerror(s.ku_err), err, hs_strerror(err),
	       err ? ": " : "", err ? hs_ktls_reason(c.b, 1) : "");
	if (!can_tx) {
		/* our KeyUpdate refused before anything was sent; data intact */
		assert_int_equal(s.ku_err, HS_ERR_UNSUPPORTED);
		assert_string_not_equal(hs_ktls_reason(c.a, 0), "");
		assert_int_equal(err, 0);
		assert_int_equal(got, len);
		assert_false(mismatch);
	} else if (!can_rx) {
		/* the peer moved to new keys: the connection fails clearly, no garbage */
		assert_int_equal(s.ku_err, 0);
		assert_int_equal(err, HS_ERR_UNSUPPORTED);
		assert_int_equal(hs_ktls_rx_path(c.b), HS_KTLS_PATH_KERNEL);
		assert_non_null(strstr(hs_ktls_reason(c.b, 1), "6.14"));
		assert_true(got <= len / 2);
		assert_false(mismatch);
	} else {
		assert_int_equal(s.ku_err, 0);
		assert_int_equal(s.err, 0);
		assert_int_equal(err, 0);
		assert_int_equal(got, len);
		assert_false(mismatch);
		/* b answered the request with its own KeyUpdate: a reads b's new keys */
		assert_int_equal(hs_ktls_write(c.b, "ack", 3), 0);
		assert_int_equal(hs_ktls_close(c.b), 0);
		assert_int_equal(hs_ktls_read(c.a, buf, sizeof(buf), &n), 0);
		assert_int_equal(n, 3);
		assert_memory_equal(buf, "ack", 3);
		assert_int_equal(hs_ktls_read(c.a, buf, sizeof(buf), &n), 0);
		assert_int_equal(n, 0);
		assert_int_equal(ktls_of(c.a)->key_updates_rx, 1);
		assert_int_equal(ktls_of(c.b)->key_updates_tx, 1);
	}
	conn_close(&c);
}

static void test_key_update(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_SUITES; i++)
		for (size_t j = 0; j < N_MODES; j++)
			key_update_one(suites[i], &modes[j]);
}

static int temp_file(size_t len, uint64_t seed)
{
	char path[] = "/tmp/hs-ktls-XXXXXX";
	uint8_t buf[8192];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	for (size_t off = 0; off < len;) {
		size_t n = len - off < sizeof(buf) ? len - off : sizeof(buf);
		kt_stream(seed, off, buf, n);
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		off += n;
	}
	return fd;
}

static void zero_copy_one(uint16_t suite, int use_splice)
{
	const struct mode m = { "kernel->user", 1, 0 };
	size_t len = 1000001, got;
	int fd = temp_file(len, 31), mismatch, err;
	struct conn c;
	off_t off = 0;

	conn_open(&c, suite, &m, 5, 0, NULL);
	if (hs_ktls_tx_path(c.a) != HS_KTLS_PATH_KERNEL) {
		close(fd);
		conn_close(&c);
		skip();
	}
	if (fork() == 0) {
		/* child: push the file through kernel TX, then close_notify */
		int p[2], rc = 0;
		if (!use_splice) {
			while (rc == 0 && (size_t)off < len)
				if (sendfile(c.fds[0], fd, &off, len - (size_t)off) <= 0)
					rc = 1;
		} else if (pipe(p) == 0) {
			loff_t lo = 0;
			while (rc == 0 && (size_t)lo < len) {
				ssize_t r = splice(fd, &lo, p[1], NULL, 65536, 0);
				for (ssize_t left = r; r > 0 && left > 0;) {
					ssize_t w = splice(p[0], NULL, c.fds[0], NULL, (size_t)left, 0);
					if (w <= 0) {
						rc = 1;
						break;
					}
					left -= w;
				}
				if (r <= 0)
					rc = 1;
			}
		}
		if (rc == 0 && hs_ktls_close(c.a) != 0)
			rc = 1;
		_exit(rc);
	}
	err = kt_receive(c.b, 31, 30000, &got, &mismatch);
	int status = 0;
	wait(&status);
	assert_int_equal(err, 0);
	assert_int_equal(got, len);
	assert_false(mismatch);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
	conn_close(&c);
}

static void test_sendfile(void **state)
{
	(void)state;
	if (expect_user)
		skip(); /* the userspace path has no zero-copy sendfile */
	for (size_t i = 0; i < N_SUITES; i++)
		zero_copy_one(suites[i], 0);
}

static void test_splice(void **state)
{
	(void)state;
	if (expect_user)
		skip();
	for (size_t i = 0; i < N_SUITES; i++)
		zero_copy_one(suites[i], 1);
}

int main(void)
{
	const char *e = getenv("HS_KTLS_EXPECT"), *r = getenv("HS_KTLS_EXPECT_REKEY"),
		   *b = getenv("HS_KTLS_BIG");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_transfer),
		cmocka_unit_test(test_both_ways),
		cmocka_unit_test(test_control),
		cmocka_unit_test(test_bad_tag),
		cmocka_unit_test(test_key_update),
		cmocka_unit_test(test_sendfile),
		cmocka_unit_test(test_splice),
	};

	expect_kernel = e && strcmp(e, "kernel") == 0;
	expect_user = e && strcmp(e, "user") == 0;
	if (r)
		expect_rekey = atoi(r);
	if (b)
		big = strtoul(b, NULL, 0);
	if (hs_ktls_probe(&caps) != 0)
		return 1;
	if (expect_user && caps.ulp) {
		printf("# this kernel has kTLS: the fallback tests ask for the userspace path\n");
		force_user = 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
