/*
 * Session tickets across the kTLS hand-off, hs on both ends over loopback
 * TCP (the server in a thread), for each TLS 1.3 suite:
 * - the server's engine defers its tickets (defer_tickets); once its socket
 *   is on kTLS (or the userspace fallback) hs_ktls_send_tickets sends them
 *   as handshake records (TLS_SET_RECORD_TYPE 22 on the kernel path);
 * - the client, on kTLS too, receives them as control records
 *   (TLS_GET_RECORD_TYPE), its engine keeps them (hs_conn_session);
 * - a second connection resumes with one of them (psk_dhe_ke), both sides
 *   on kTLS again, and gets fresh tickets the same way; a third resumes
 *   with those in psk_ke;
 * - after hs_ktls_send_tickets the server can make no more tickets (the
 *   resumption master secret is gone).
 *
 * HS_KTLS_EXPECT=kernel: every hand-off must land on the kernel (UML);
 * HS_KTLS_EXPECT=user: the host without kTLS, the userspace path.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "../tls/pair.h"
#include "../tls/tls_certs.h"
#include "hs/ktls.h"
#include "hs/tls.h"
#include "kt_util.h"

static const uint16_t suites[] = {
	HS_TLS_AES_128_GCM_SHA256,
	HS_TLS_AES_256_GCM_SHA384,
	HS_TLS_CHACHA20_POLY1305_SHA256,
};
#define N_SUITES (sizeof(suites) / sizeof(suites[0]))

static int expect_kernel, expect_user;

static unsigned kflags(void)
{
	return expect_kernel ? HS_KTLS_F_KERNEL_ONLY : 0;
}


struct side {
	struct hs_conn *c;
	struct hs_ktls *k;
	int fd, err, more; /* more: hs_conn_make_ticket's result after the tickets */
	char got[64];
	size_t got_len;
};

/* Read until close_notify into s->got. */
static int read_to_close(struct side *s)
{
	size_t n;
	int err;

	do {
		err = hs_ktls_read(s->k, s->got + s->got_len, sizeof(s->got) - s->got_len, &n);
		s->got_len += n;
	} while (!err && n > 0 && s->got_len < sizeof(s->got));
	return err;
}

/* The server: hand-off, tickets through kTLS, a greeting, close. */
static void *server_main(void *arg)
{
	struct side *s = arg;
	uint8_t msg[HS_TICKET_MSG_MAX];
	size_t n;
	int err = hs_ktls_accept(s->k, s->c, s->fd, kflags());

	if (!err)
		err = hs_ktls_send_tickets(s->k, s->c, 0);
	s->more = hs_conn_make_ticket(s->c, msg, sizeof(msg), &n);
	if (!err)
		err = hs_ktls_write(s->k, "hello from the server", 21);
	if (!err)
		err = hs_ktls_close(s->k);
	if (!err)
		err = read_to_close(s);
	if (err)
		shutdown(s->fd, SHUT_RDWR);
	s->err = err;
	return NULL;
}

/* The client: hand-off, read (the tickets come first), answer, close. */
static int client_run(struct side *s)
{
	int err = hs_ktls_connect(s->k, s->c, s->fd, kflags());

	if (!err)
		err = read_to_close(s);
	if (!err)
		err = hs_ktls_write(s->k, "thanks", 6);
	if (!err)
		err = hs_ktls_close(s->k);
	return err;
}

/*
 * One connection with suite, offering sess (NULL: none); returns the
 * session the client got and checks both sides' resumption mode.
 */
static struct hs_session *one(struct hs_ticket_keys *tk, uint16_t suite,
			      struct hs_session *sess, int psk_ke, int want_resumed)
{
	static uint16_t one_suite;
	struct pair p;
	struct side cli = { 0 }, srv = { 0 };
	struct hs_session *out = NULL;
	pthread_t t;
	int fds[2], tickets = 0;
	enum hs_event ev;

	one_suite = suite;
	pair_init(&p, EC_CERT, EC_KEY_SEC1);
	p.ccfg.suites = &one_suite;
	p.ccfg.n_suites = 1;
	p.ccfg.keep_tickets = 1;
	p.ccfg.session = sess;
	p.ccfg.psk_ke = psk_ke;
	p.scfg.ticket_keys = tk;
	p.scfg.n_tickets = 3;
	p.scfg.defer_tickets = 1;
	pair_start(&p);
	assert_int_equal(kt_tcp_pair(fds), 0);
	cli = (struct side){ .c = p.c, .fd = fds[0], .k = calloc(1, sizeof(struct hs_ktls)) };
	srv = (struct side){ .c = p.s, .fd = fds[1], .k = calloc(1, sizeof(struct hs_ktls)) };
	assert_non_null(cli.k);
	assert_non_null(srv.k);
	assert_int_equal(pthread_create(&t, NULL, server_main, &srv), 0);
	cli.err = client_run(&cli);
	if (cli.err)
		shutdown(fds[0], SHUT_RDWR);
	pthread_join(t, NULL);
	if (cli.err || srv.err)
		printf("# %s: client %s, server %s\n", hs_suite_name(suite), hs_strerror(cli.err),
		       hs_strerror(srv.err));
	assert_int_equal(cli.err, 0);
	assert_int_equal(srv.err, 0);
	assert_true(kt_paths_ok(cli.k, expect_kernel, expect_user));
	assert_true(kt_paths_ok(srv.k, expect_kernel, expect_user));
	assert_int_equal(hs_conn_suite(p.c), suite);
	assert_int_equal(hs_conn_resumed(p.c), want_resumed);
	assert_int_equal(hs_conn_resumed(p.s), want_resumed);
	assert_int_equal(cli.got_len, 21);
	assert_memory_equal(cli.got, "hello from the server", 21);
	assert_int_equal(srv.got_len, 6);
	/* the server's engine made 3, then no more (its secret is wiped) */
	assert_int_equal(srv.more, HS_ERR_TLS_STATE);
	while ((ev = hs_conn_next_event(p.c)) != HS_EVENT_NONE)
		tickets += ev == HS_EVENT_TICKET;
	assert_int_equal(tickets, 3);
	assert_int_equal(hs_conn_session(p.c, &out), 0);
	assert_int_equal(hs_session_tickets(out), 3);
	hs_ktls_detach_engine(cli.k);
	hs_ktls_wipe(cli.k);
	hs_ktls_wipe(srv.k);
	free(cli.k);
	free(srv.k);
	pair_free(&p);
	close(fds[0]);
	close(fds[1]);
	return out;
}

static void test_tickets_across_handoff(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_SUITES; i++) {
		struct hs_ticket_keys *tk;
		struct hs_session *s1, *s2, *s3;

		assert_int_equal(hs_ticket_keys_new(&tk, 0, 0), 0);
		s1 = one(tk, suites[i], NULL, 0, 0);
		s2 = one(tk, suites[i], s1, 0, 1);
		assert_int_equal(hs_session_tickets(s1), 2); /* one used */
		s3 = one(tk, suites[i], s2, 1, 2);
		printf("# %s: tickets after the hand-off on %s, resumed twice: ok\n",
		       hs_suite_name(suites[i]), expect_kernel ? "kTLS" : "the userspace path");
		hs_session_free(s1);
		hs_session_free(s2);
		hs_session_free(s3);
		hs_ticket_keys_free(tk);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tickets_across_handoff),
	};

	signal(SIGPIPE, SIG_IGN);
	if (kt_expect(&expect_kernel, &expect_user) != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
