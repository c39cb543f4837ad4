/*
 * Implementation notes: the rows of "hs-bench memory": bytes one
 * connection holds, hs next to OpenSSL's libssl, counted in the same run.
 *
 *   hs:      hs_conn_memory() (its allocations, rounded to 64 bytes)
 *   OpenSSL: every allocation libcrypto/libssl make through their
 *            allocator, counted with CRYPTO_set_mem_functions (installed
 *            by main() before OpenSSL allocates anything) and charged to
 *            the side (client or server) whose SSL call made it; a block
 *            freed later is taken off the side that made it. The bytes a
 *            side holds are those it made and has not freed (the shared
 *            SSL_CTX and one-time library set-up are not counted: a first
 *            connection of each library warms them up, untimed).
 *
 * Both libraries talk over a socketpair (OpenSSL: SSL_set_fd; hs: the
 * engine's bytes moved with send/recv), so the wire is the kernel's and
 * counts for neither. Suite TLS_AES_128_GCM_SHA256, X25519, ECDSA P-256,
 * no tickets (as "hs-bench handshake", no verification). Rows, server side
 * unless named:
 *
 *   memory, handshake peak (server / client)  the most held during a handshake
 *   memory, idle userspace                    after the handshake and one
 *                                             byte each way, nothing pending
 *   memory, active userspace                  a 16 KiB record written and not
 *                                             yet sent, and a received 16 KiB
 *                                             record of which one byte was read
 *   memory, after hand-off to kTLS            hs: after hs_conn_handoff();
 *                                             OpenSSL (whose kTLS needs a
 *                                             kernel with it): idle with
 *                                             SSL_MODE_RELEASE_BUFFERS, its
 *                                             least
 *   memory, on kernel kTLS (engine + ktls)    hs: the row above plus what
 *                                             ktls/ holds with both
 *                                             directions on the kernel:
 *                                             struct hs_ktls and the heap
 *                                             hs_ktls_init took (mallinfo2
 *                                             before and after). The host
 *                                             has no kTLS, so the kernel's
 *                                             setsockopt is stood in for by
 *                                             one that accepts (the
 *                                             kernel's own memory is not
 *                                             counted, for either library);
 *                                             OpenSSL as above
 *
 * The unit is "bytes": the ratio hs/OpenSSL is below 1 where hs holds less.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "bench/bench.h"
#include "bench/tls_peers.h"
#include "hs/ktls.h"
#include "hs/secrets.h"

/* ---- OpenSSL's allocations, counted per side */

enum side { OTHER = 0, CLIENT = 1, SERVER = 2 };

struct block {
	size_t size;
	int side;
	_Alignas(16) unsigned char data[];
};

static int cur_side;
static size_t live[3], high[3];

static void charge(int side, size_t n)
{
	live[side] += n;
	if (live[side] > high[side])
		high[side] = live[side];
}

static void *count_malloc(size_t n, const char *file, int line)
{
	struct block *b = malloc(sizeof(*b) + n);

	(void)file;
	(void)line;
	if (b == NULL)
		return NULL;
	b->size = n;
	b->side = cur_side;
	charge(cur_side, n);
	return b->data;
}

static void count_free(void *p, const char *file, int line)
{
	struct block *b;

	(void)file;
	(void)line;
	if (p == NULL)
		return;
	b = (struct block *)(void *)((unsigned char *)p - offsetof(struct block, data));
	live[b->side] -= b->size;
	free(b);
}

static void *count_realloc(void *p, size_t n, const char *file, int line)
{
	struct block *b, *nb;
	size_t old;

	if (p == NULL)
		return count_malloc(n, file, line);
	b = (struct block *)(void *)((unsigned char *)p - offsetof(struct block, data));
	old = b->size;
	nb = realloc(b, sizeof(*nb) + n);
	if (nb == NULL)
		return NULL;
	live[nb->side] -= old;
	nb->size = n;
	charge(nb->side, n);
	return nb->data;
}

int bench_memory_hooks(void)
{
	return CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free) ? 0 : -1;
}

/* ---- the two connections over a socketpair */

#define REC 16384

static uint8_t data[REC], sink[REC];

struct hs_side {
	struct hs_conn *c;
	int fd;
};

static int hs_flush(struct hs_side *x)
{
	uint8_t buf[4096];
	size_t n;

	while (hs_conn_output_pending(x->c) > 0) {
		if (hs_conn_pull(x->c, buf, sizeof(buf), &n) != 0)
			return -1;
		if (send(x->fd, buf, n, 0) != (ssize_t)n)
			return -1;
	}
	return 0;
}

/* Feed what the socket holds (non-blocking) as far as the engine takes it. */
static int hs_pump_in(struct hs_side *x)
{
	uint8_t buf[REC + 64];
	size_t used, want;
	ssize_t r;

	for (;;) {
		want = hs_conn_input_wanted(x->c);
		r = recv(x->fd, buf, want < sizeof(buf) ? want : sizeof(buf), 0);
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (r <= 0)
			return -1;
		if (hs_conn_feed(x->c, buf, (size_t)r, &used) != 0 || used != (size_t)r)
			return -1;
		if (hs_conn_handshake_done(x->c) && hs_conn_input_wanted(x->c) == 5)
			return 0;
	}
}

static int hs_handshake(struct hs_side *c, struct hs_side *s, size_t *peak_c, size_t *peak_s)
{
	for (int round = 0; round < 32; round++) {
		if (hs_flush(c) || hs_pump_in(s) || hs_flush(s) || hs_pump_in(c) || hs_flush(c))
			return -1;
		if (hs_conn_handshake_done(c->c) && hs_conn_handshake_done(s->c)) {
			(void)hs_conn_memory(c->c, peak_c);
			(void)hs_conn_memory(s->c, peak_s);
			return hs_pump_in(s);
		}
	}
	return -1;
}

/* One byte a -> b, read. */
static int hs_byte(struct hs_side *a, struct hs_side *b)
{
	size_t n;
	uint8_t x;

	if (hs_conn_write(a->c, data, 1, &n) != 0 || hs_flush(a) != 0 || hs_pump_in(b) != 0 ||
	    hs_conn_read(b->c, &x, 1, &n) != 0 || n != 1)
		return -1;
	return 0;
}

struct numbers {
	double peak_c, peak_s, idle, active, handoff, on_ktls;
};

/* A kernel that takes TCP_ULP "tls", TLS_TX and TLS_RX (the host has no kTLS). */
static int accept_setsockopt(void *user, int fd, int level, int name, const void *val,
			     socklen_t len)
{
	(void)user, (void)fd, (void)level, (void)name, (void)val, (void)len;
	return 0;
}

/* Bytes ktls/ holds for a connection on the kernel path both ways. */
static int ktls_kernel_bytes(int fd, const struct hs_secrets *sec, double *bytes)
{
	struct hs_ktls_ops ops = hs_ktls_sys_ops;
	struct hs_ktls *k = aligned_alloc(64, HS_KTLS_SIZE);
	struct mallinfo2 before, after;
	int r = -1;

	if (k == NULL)
		return -1;
	ops.setsockopt = accept_setsockopt;
	before = mallinfo2();
	if (hs_ktls_init(k, fd, sec, HS_KTLS_F_KERNEL_ONLY, &ops) == 0 && hs_ktls_is_kernel(k)) {
		after = mallinfo2();
		*bytes = (double)sizeof(*k) + (double)(after.uordblks - before.uordblks);
		r = 0;
	}
	hs_ktls_wipe(k);
	free(k);
	return r;
}

static int measure_hs(const struct peers *p, struct numbers *m)
{
	struct hs_side c = { NULL, -1 }, s = { NULL, -1 };
	struct hs_secrets sec;
	int fds[2], r = -1, have_sec = 0;
	size_t n, pc, ps;
	uint8_t x;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0)
		return -1;
	c.fd = fds[0];
	s.fd = fds[1];
	if (hs_conn_new(&c.c, &p->hs_client) != 0 || hs_conn_new(&s.c, &p->hs_server) != 0 ||
	    hs_handshake(&c, &s, &pc, &ps) != 0 || hs_byte(&c, &s) != 0 || hs_byte(&s, &c) != 0)
		goto out;
	m->peak_c = (double)pc;
	m->peak_s = (double)ps;
	m->idle = (double)hs_conn_memory(s.c, NULL);
	/* a record written, not sent; one received, one byte of it read */
	if (hs_conn_write(s.c, data, REC, &n) != 0 || n != REC ||
	    hs_conn_write(c.c, data, REC, &n) != 0 || n != REC || hs_flush(&c) != 0 ||
	    hs_pump_in(&s) != 0 || hs_conn_read(s.c, &x, 1, &n) != 0 || n != 1)
		goto out;
	m->active = (double)hs_conn_memory(s.c, NULL);
	/* everything out and read: then the hand-off */
	if (hs_flush(&s) != 0 || hs_conn_read(s.c, sink, sizeof(sink), &n) != 0 ||
	    hs_pump_in(&c) != 0 || hs_conn_read(c.c, sink, sizeof(sink), &n) != 0 ||
	    hs_conn_secrets(s.c, &sec) != 0)
		goto out;
	have_sec = 1;
	if (hs_conn_handoff(s.c) != 0)
		goto out;
	m->handoff = (double)hs_conn_memory(s.c, NULL);
	if (ktls_kernel_bytes(s.fd, &sec, &m->on_ktls) != 0)
		goto out;
	m->on_ktls += m->handoff;
	r = 0;
out:
	if (have_sec)
		hs_secrets_wipe(&sec);
	hs_conn_free(c.c);
	hs_conn_free(s.c);
	close(fds[0]);
	close(fds[1]);
	return r;
}

/* ---- OpenSSL */

/* One SSL call charged to side. */
#define ON(SIDE, EXPR) (cur_side = (SIDE), (EXPR), cur_side = OTHER)

static int ossl_handshake(SSL *c, SSL *s)
{
	int dc = 0, ds = 0, r;

	for (int round = 0; round < 32 && !(dc && ds); round++) {
		if (!dc) {
			ON(CLIENT, r = SSL_do_handshake(c));
			if (r == 1)
				dc = 1;
			else if (SSL_get_error(c, r) != SSL_ERROR_WANT_READ)
				return -1;
		}
		if (!ds) {
			ON(SERVER, r = SSL_do_handshake(s));
			if (r == 1)
				ds = 1;
			else if (SSL_get_error(s, r) != SSL_ERROR_WANT_READ)
				return -1;
		}
	}
	return dc && ds ? 0 : -1;
}

static int ossl_byte(SSL *a, int sa, SSL *b, int sb)
{
	size_t n;
	int ok;
	uint8_t x;

	ON(sa, ok = SSL_write_ex(a, data, 1, &n));
	if (!ok)
		return -1;
	ON(sb, ok = SSL_read_ex(b, &x, 1, &n));
	return ok ? 0 : -1;
}

/* One connection; release: SSL_MODE_RELEASE_BUFFERS on the server. */
static int ossl_conn(const struct peers *p, int release, struct numbers *m)
{
	SSL *c = NULL, *s = NULL;
	int fds[2], r = -1, ok;
	size_t n;
	uint8_t x;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0)
		return -1;
	live[CLIENT] = live[SERVER] = high[CLIENT] = high[SERVER] = 0;
	ON(CLIENT, c = SSL_new(p->ossl_client));
	ON(SERVER, s = SSL_new(p->ossl_server));
	if (c == NULL || s == NULL || !SSL_set_fd(c, fds[0]) || !SSL_set_fd(s, fds[1]))
		goto out;
	SSL_set_connect_state(c);
	SSL_set_accept_state(s);
	if (release)
		SSL_set_mode(s, SSL_MODE_RELEASE_BUFFERS);
	if (ossl_handshake(c, s) != 0)
		goto out;
	m->peak_c = (double)high[CLIENT];
	m->peak_s = (double)high[SERVER];
	if (ossl_byte(c, CLIENT, s, SERVER) != 0 || ossl_byte(s, SERVER, c, CLIENT) != 0)
		goto out;
	m->idle = (double)live[SERVER];
	/* the server's 16 KiB goes to the socket at once: OpenSSL keeps its
	 * write buffer (unless released); the client's record, one byte read */
	ON(SERVER, ok = SSL_write_ex(s, data, REC, &n));
	if (ok)
		ON(CLIENT, ok = SSL_write_ex(c, data, REC, &n));
	if (ok)
		ON(SERVER, ok = SSL_read_ex(s, &x, 1, &n));
	if (!ok)
		goto out;
	m->active = (double)live[SERVER];
	r = 0;
out:
	ON(CLIENT, SSL_free(c));
	ON(SERVER, SSL_free(s));
	close(fds[0]);
	close(fds[1]);
	ERR_clear_error();
	return r;
}

static int measure_ossl(const struct peers *p, struct numbers *m)
{
	struct numbers rel;

	if (ossl_conn(p, 0, m) != 0 || ossl_conn(p, 1, &rel) != 0)
		return -1;
	m->handoff = m->on_ktls = rel.idle;
	return 0;
}

/* ---- rows */

static void emit(const struct bench_opts *o, const char *name, double hs, double ossl,
		 const char *what)
{
	struct bench_row r = { .name = name, .unit = "bytes", .backend = what };

	if (!bench_match(o, name))
		return;
	r.hs.median = r.hs.min = r.hs.max = hs;
	r.ref.median = r.ref.min = r.ref.max = ossl;
	bench_emit(o, &r);
}

int bench_memory(const struct bench_opts *o)
{
	struct numbers h, ossl, warm;
	struct peers p;
	int r = 0;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	if (peers_init(&p, HS_TLS_AES_128_GCM_SHA256, PEER_NO_VERIFY) != 0)
		return 1;
	/* first connections: one-time set-up of both libraries, not counted */
	if (measure_hs(&p, &warm) != 0 || measure_ossl(&p, &warm) != 0 ||
	    measure_hs(&p, &h) != 0 || measure_ossl(&p, &ossl) != 0) {
		fprintf(stderr, "hs-bench: memory rows refused: a connection failed\n");
		ERR_print_errors_fp(stderr);
		r = 1;
	} else {
		emit(o, "memory, handshake peak (server)", h.peak_s, ossl.peak_s,
		     "hs_conn_memory peak; OpenSSL: its allocations");
		emit(o, "memory, handshake peak (client)", h.peak_c, ossl.peak_c,
		     "hs_conn_memory peak; OpenSSL: its allocations");
		emit(o, "memory, idle userspace", h.idle, ossl.idle,
		     "after the handshake and a byte each way");
		emit(o, "memory, active userspace", h.active, ossl.active,
		     "a 16 KiB record each way in flight");
		emit(o, "memory, after hand-off to kTLS", h.handoff, ossl.handoff,
		     "hs_conn_handoff; OpenSSL: idle, SSL_MODE_RELEASE_BUFFERS");
		emit(o, "memory, on kernel kTLS (engine + ktls)", h.on_ktls, ossl.on_ktls,
		     "+ struct hs_ktls and its heap, kernel path both ways");
	}
	peers_free(&p);
	return r;
}
