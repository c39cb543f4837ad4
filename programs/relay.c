/*
 * The one I/O loop of hs-client and hs-server, after the handshake: moves
 * application data between the connection and stdin/stdout (client), back
 * to the peer (echo), or answers one request with a page (www).
 *
 * Implementation notes: the socket is non-blocking and poll() drives three
 * buffers: `in` (socket bytes the engine has not taken yet), `out` (sealed
 * bytes not yet on the socket) and `plain` (application data not yet given
 * to the engine). New plaintext is read (from stdin, or from the engine in
 * echo mode) only when `plain` is empty, and the engine stops taking input
 * while decrypted data waits, so a slow peer applies back-pressure instead
 * of filling memory; the socket is always read while we have input room,
 * so two peers writing at once cannot deadlock. The loop ends when both
 * close_notify alerts have been exchanged and everything is flushed.
 *
 * The kernel-TLS path (--ktls, relay_ktls) replaces the engine calls after
 * the handshake: hs_ktls_attach() hands the socket to the kernel, or to
 * ktls/'s own records on plain send/recv where the kernel cannot, per
 * direction. That path blocks instead of polling: echo and www are one
 * read-then-write loop; the client reads stdin in a second thread (ktls
 * allows one reader and one writer thread on one object), stopped through
 * a pipe once the peer's close_notify arrives. A server's engine deferred
 * its session tickets there (defer_tickets): they go out right after the
 * hand-off (hs_ktls_send_tickets), before any data.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/wipe.h"
#include "hs/ktls.h"

#define CHUNK 16384
#define REQ_MAX 8192

struct pump {
	struct relay *r;
	struct hs_conn *c;
	int sock;
	uint8_t in[CHUNK];
	size_t in_len, in_off;
	uint8_t out[CHUNK + 512];
	size_t out_len, out_off;
	uint8_t plain[CHUNK];
	size_t p_len, p_off;
	char req[REQ_MAX];
	size_t req_len;
	int in_eof, sock_eof, closing, closed, answered;
};

static int out_pending(struct pump *p)
{
	return p->out_off < p->out_len || hs_conn_output_pending(p->c) > 0;
}

/* Give `plain` to the engine; queue close_notify once it is drained. */
static int push_plain(struct pump *p)
{
	size_t n;

	while (p->p_off < p->p_len) {
		int err = hs_conn_write(p->c, p->plain + p->p_off, p->p_len - p->p_off, &n);
		if (err)
			return err;
		if (n == 0)
			return 0; /* output queue full: flush first */
		p->p_off += n;
		p->r->bytes_out += n;
	}
	p->p_len = p->p_off = 0;
	if (p->closing && !p->closed) {
		p->closed = 1;
		return hs_conn_close(p->c);
	}
	return 0;
}

/* Write sealed bytes to the socket until it would block. */
static int flush(struct pump *p)
{
	for (;;) {
		ssize_t w;
		if (p->out_off == p->out_len) {
			size_t n = 0;
			if (hs_conn_output_pending(p->c) == 0)
				return 0;
			if (hs_conn_pull(p->c, p->out, sizeof(p->out), &n) != 0 && n == 0)
				return 0;
			p->out_len = n;
			p->out_off = 0;
		}
		w = write(p->sock, p->out + p->out_off, p->out_len - p->out_off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w < 0)
			return fail(EXIT_NET, "socket write: %s", strerror(errno));
		p->out_off += (size_t)w;
	}
}

static int write_all(int fd, const uint8_t *b, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fail(EXIT_TLS, "cannot write received data: %s", strerror(errno));
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* www: collect the request; once its header is complete, queue the page. */
static int www_take(struct pump *p, const uint8_t *b, size_t n)
{
	size_t room = sizeof(p->req) - 1 - p->req_len, k = n < room ? n : room;

	if (p->answered)
		return 0;
	memcpy(p->req + p->req_len, b, k);
	p->req_len += k;
	p->req[p->req_len] = '\0';
	if (strstr(p->req, "\r\n\r\n") == NULL && strstr(p->req, "\n\n") == NULL && k == n &&
	    p->req_len < sizeof(p->req) - 1)
		return 0;
	p->answered = 1;
	p->p_len = p->r->page(p->c, (char *)p->plain, sizeof(p->plain));
	p->p_off = 0;
	p->closing = 1;
	return 0;
}

/* Take decrypted application data out of the engine, as the mode says. */
static int drain(struct pump *p, int *got)
{
	uint8_t buf[CHUNK];
	size_t n;
	int err;

	*got = 0;
	for (;;) {
		if (p->r->mode == RELAY_ECHO && p->p_len > 0)
			return 0; /* back-pressure: the engine keeps it */
		err = hs_conn_read(p->c, p->r->mode == RELAY_ECHO ? p->plain : buf, CHUNK, &n);
		if (err || n == 0)
			return err;
		*got = 1;
		p->r->bytes_in += n;
		if (p->r->mode == RELAY_ECHO) {
			p->p_len = n;
			p->p_off = 0;
		} else if (p->r->mode == RELAY_WWW) {
			www_take(p, buf, n);
		} else if ((err = write_all(p->r->out_fd, buf, n)) != 0) {
			return err;
		}
	}
}

/* Feed socket bytes we hold; stops when the engine stops taking them. */
static int feed(struct pump *p)
{
	for (;;) {
		size_t used = 0;
		int got, err = drain(p, &got);
		if (err || p->in_off == p->in_len)
			return err;
		err = hs_conn_feed(p->c, p->in + p->in_off, p->in_len - p->in_off, &used);
		if (err)
			return err;
		p->in_off += used;
		if (used == 0) {
			err = drain(p, &got);
			if (err || !got)
				return err;
		}
	}
}

static void note_events(struct pump *p)
{
	enum hs_event ev;

	while ((ev = hs_conn_next_event(p->c)) != HS_EVENT_NONE) {
		if (ev == HS_EVENT_KEY_UPDATE)
			note(2, "peer updated its keys");
		else if (ev == HS_EVENT_TICKET)
			note(2, "session ticket received");
	}
}

static int read_socket(struct pump *p)
{
	ssize_t r = read(p->sock, p->in, sizeof(p->in));

	if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (r < 0)
		return fail(EXIT_NET, "socket read: %s", strerror(errno));
	if (r == 0)
		p->sock_eof = 1;
	p->in_len = (size_t)r;
	p->in_off = 0;
	return 0;
}

static int read_input(struct pump *p)
{
	ssize_t r = read(p->r->in_fd, p->plain, sizeof(p->plain));

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r < 0)
		return fail(EXIT_TLS, "cannot read input: %s", strerror(errno));
	if (r == 0) {
		p->in_eof = 1;
		p->closing = 1; /* half-close: we still read until the peer closes */
	}
	p->p_len = (size_t)r;
	p->p_off = 0;
	return 0;
}

/*
 * Engine work until nothing moves: feeding may free room for plaintext,
 * pushing plaintext (echo) may let the engine give out more data.
 */
static int work(struct pump *p)
{
	for (;;) {
		size_t in_before = p->in_off;
		uint64_t out_before = p->r->bytes_out;
		int err = feed(p);

		note_events(p);
		if (err == 0 && hs_conn_peer_closed(p->c))
			p->closing = 1; /* answer close_notify with ours */
		if (err == 0)
			err = push_plain(p);
		if (err)
			return tls_fail(p->c, err, "transfer");
		if ((err = flush(p)) != 0)
			return err;
		if (p->in_off == in_before && p->r->bytes_out == out_before)
			return 0;
	}
}

/* One round: engine work, then wait for the socket or the input. */
static int step(struct pump *p, int *done)
{
	struct pollfd pf[2];
	nfds_t n = 0;
	int err = work(p);

	if (err)
		return err;
	if (p->closed && hs_conn_peer_closed(p->c) && !out_pending(p)) {
		*done = 1;
		return 0;
	}
	if (p->sock_eof)
		return fail(EXIT_TLS, "connection closed by the peer without close_notify");
	pf[n].fd = p->sock;
	pf[n].events = (short)((p->in_off == p->in_len && !hs_conn_peer_closed(p->c) ? POLLIN : 0) |
			       (out_pending(p) ? POLLOUT : 0));
	n++;
	if (p->r->mode == RELAY_STDIO && !p->in_eof && !p->closing && p->p_len == 0) {
		pf[n].fd = p->r->in_fd;
		pf[n].events = POLLIN;
		n++;
	}
	if (pf[0].events == 0 && n == 1)
		return fail(EXIT_TLS, "transfer stalled (internal error)");
	if (poll(pf, n, -1) < 0 && errno != EINTR)
		return fail(EXIT_NET, "poll: %s", strerror(errno));
	if ((pf[0].events & POLLIN) && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
		err = read_socket(p);
	if (err == 0 && n > 1 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
		err = read_input(p);
	return err;
}

/* ---- the kernel-TLS path ---- */

int parse_ktls(enum relay_ktls *k, const char *arg)
{
	if (arg == NULL)
		*k = RELAY_KTLS_ON;
	else if (strcmp(arg, "require") == 0)
		*k = RELAY_KTLS_REQUIRE;
	else
		return fail(EXIT_USAGE, "--ktls takes no value or =require, not '%s'", arg);
	return 0;
}

struct kt_io {
	struct relay *r;
	struct hs_ktls *k;
	int sock, stop[2]; /* stop[0]: the stdin thread's "give up" pipe */
	int err;           /* the stdin thread's hs_err, or an exit code in fail_rc */
	int fail_rc;
	char req[REQ_MAX]; /* www: the request so far */
	size_t req_len;
};

/* "kernel" or "userspace fallback (why)" for one direction. */
static void dir_desc(const struct hs_ktls *k, int rx, char *out, size_t cap)
{
	enum hs_ktls_path p = rx ? hs_ktls_rx_path(k) : hs_ktls_tx_path(k);

	if (p == HS_KTLS_PATH_KERNEL)
		snprintf(out, cap, "kernel");
	else
		snprintf(out, cap, "userspace fallback (%s)", hs_ktls_reason(k, rx));
}

/* One status line: where each direction runs, and why not on the kernel. */
static void note_paths(const struct hs_ktls *k)
{
	char tx[160], rx[160];

	dir_desc(k, 0, tx, sizeof(tx));
	dir_desc(k, 1, rx, sizeof(rx));
	note(1, "ktls: TX %s, RX %s", tx, rx);
}

static int kt_fail(const struct hs_ktls *k, int err, const char *during)
{
	int alert = hs_ktls_peer_alert(k);

	if (err == HS_ERR_TLS_PEER_ALERT && alert >= 0)
		return fail(EXIT_TLS, "%s (ktls): peer sent alert %s (%d)", during,
			    hs_alert_name(alert), alert);
	if (hs_ktls_errno(k) != 0)
		return fail(EXIT_TLS, "%s (ktls): %s (%s)", during, hs_strerror(err),
			    strerror(hs_ktls_errno(k)));
	return fail(EXIT_TLS, "%s (ktls): %s", during, hs_strerror(err));
}

/* Our close_notify, unless it is already out (HS_ERR_TLS_CLOSED: sent, or the peer is gone). */
static int kt_close_once(struct hs_ktls *k)
{
	int err = hs_ktls_close(k);

	return err == HS_ERR_TLS_CLOSED ? 0 : err;
}

/* The client's writer thread: stdin to the peer, then close_notify. */
static void *kt_stdin(void *arg)
{
	struct kt_io *io = arg;
	static uint8_t buf[CHUNK]; /* one client per process */

	for (;;) {
		struct pollfd pf[2] = { { .fd = io->r->in_fd, .events = POLLIN },
					{ .fd = io->stop[0], .events = POLLIN } };
		ssize_t n;

		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			return NULL; /* the peer closed first: the main thread sends ours */
		if (!pf[0].revents)
			continue;
		n = read(io->r->in_fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			io->fail_rc = fail(EXIT_TLS, "cannot read input: %s", strerror(errno));
			break;
		}
		io->err = n == 0 ? hs_ktls_close(io->k) : hs_ktls_write(io->k, buf, (size_t)n);
		if (io->err || n == 0)
			break;
		io->r->bytes_out += (uint64_t)n;
	}
	if (io->err || io->fail_rc) /* wake the reader: recv sees EOF */
		(void)shutdown(io->sock, SHUT_RDWR);
	return NULL;
}

/* www: collect the request until its header ends, then answer and close. */
static int kt_www(struct kt_io *io, struct hs_conn *c, uint8_t *buf, size_t n, int *answered)
{
	char *req = io->req;
	size_t len = io->req_len, room = sizeof(io->req) - 1 - len, take = n < room ? n : room;
	char *page = (char *)buf;
	int err;

	if (*answered)
		return 0;
	memcpy(req + len, buf, take);
	io->req_len = len += take;
	req[len] = '\0';
	if (strstr(req, "\r\n\r\n") == NULL && strstr(req, "\n\n") == NULL && take == n &&
	    len < sizeof(io->req) - 1)
		return 0;
	*answered = 1;
	n = io->r->page(c, page, CHUNK);
	err = hs_ktls_write(io->k, page, n);
	if (!err)
		io->r->bytes_out += n;
	return err ? err : kt_close_once(io->k);
}

/* Read until the peer's close_notify; echo or answer on the way. */
static int kt_read_loop(struct kt_io *io, struct hs_conn *c)
{
	static uint8_t buf[CHUNK];
	int answered = 0, err;
	size_t n;

	for (;;) {
		if ((err = hs_ktls_read(io->k, buf, sizeof(buf), &n)) != 0)
			return err;
		if (n == 0)
			return 0;
		io->r->bytes_in += n;
		if (io->r->mode == RELAY_ECHO) {
			err = hs_ktls_write(io->k, buf, n);
			io->r->bytes_out += err ? 0 : n;
		} else if (io->r->mode == RELAY_WWW) {
			err = kt_www(io, c, buf, n, &answered);
		} else {
			err = write_all(io->r->out_fd, buf, n) ? HS_ERR_INTERNAL : 0;
			if (err)
				io->fail_rc = EXIT_TLS; /* reason already printed */
		}
		if (err)
			return err;
	}
}

/* Client: the stdin thread writes while this thread reads. */
static int kt_stdio(struct kt_io *io, struct hs_conn *c)
{
	pthread_t t;
	int err;

	if (pipe(io->stop) != 0)
		return fail(EXIT_NET, "pipe: %s", strerror(errno));
	if (pthread_create(&t, NULL, kt_stdin, io) != 0) {
		close(io->stop[0]);
		close(io->stop[1]);
		return fail(EXIT_TLS, "cannot start the input thread");
	}
	err = kt_read_loop(io, c);
	(void)!write(io->stop[1], "x", 1);
	pthread_join(t, NULL);
	close(io->stop[0]);
	close(io->stop[1]);
	if (io->fail_rc)
		return io->fail_rc;
	if (!err && io->err == HS_ERR_TLS_CLOSED)
		return 0; /* the peer closed first, racing our last write */
	return err ? err : io->err;
}

/* Move the data over k (attached or adopted): say where each direction runs. */
static int kt_transfer(struct relay *r, struct hs_ktls *k, struct hs_conn *c, int sock)
{
	static struct kt_io io; /* one connection at a time */
	int err, rc = 0;

	memset(&io, 0, sizeof(io));
	io.r = r;
	io.k = k;
	io.sock = sock;
	r->ktls_tx = hs_ktls_tx_path(k) == HS_KTLS_PATH_KERNEL ? "kernel" : "userspace";
	r->ktls_rx = hs_ktls_rx_path(k) == HS_KTLS_PATH_KERNEL ? "kernel" : "userspace";
	note_paths(k);
	err = r->send_tickets ? hs_ktls_send_tickets(k, c, 0) : 0;
	if (!err && r->send_tickets)
		note(2, "session tickets sent after the hand-off (ktls)");
	if (!err)
		err = r->mode == RELAY_STDIO ? kt_stdio(&io, c) : kt_read_loop(&io, c);
	if (!err) /* the peer closed first (echo, or before stdin's end) */
		err = kt_close_once(k);
	else /* the writer's side sends the alert a read error left (best effort) */
		(void)!hs_ktls_close(k);
	if (io.fail_rc)
		rc = io.fail_rc;
	else if (err)
		rc = kt_fail(k, err, "transfer");
	return rc;
}

static void no_timeouts(int sock)
{
	struct timeval none = { 0 };

	/* the handshake's timeouts must not cut an idle connection */
	(void)setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
	(void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof(none));
}

/*
 * After the handshake: hand the socket to kTLS (or ktls/'s userspace
 * records), say where each direction runs, and move the data.
 */
static int relay_ktls(struct relay *r, struct hs_conn *c, int sock)
{
	static struct hs_ktls k; /* one connection at a time */
	unsigned flags = r->ktls == RELAY_KTLS_REQUIRE ? HS_KTLS_F_KERNEL_ONLY : 0;
	int err, rc;

	no_timeouts(sock);
	err = hs_ktls_attach(&k, c, sock, flags);
	if (err == HS_ERR_UNSUPPORTED && flags)
		rc = fail(EXIT_KTLS, "kTLS unavailable: TX: %s; RX: %s",
			  hs_ktls_tx_path(&k) ? "kernel" : hs_ktls_reason(&k, 0),
			  hs_ktls_rx_path(&k) ? "kernel" : hs_ktls_reason(&k, 1));
	else if (err)
		rc = tls_fail(c, err, "kTLS hand-off");
	else
		rc = kt_transfer(r, &k, c, sock);
	hs_ktls_wipe(&k);
	return rc;
}

int relay_adopted(struct relay *r, int sock, uint16_t suite)
{
	static struct hs_ktls k;
	int rc;

	no_timeouts(sock);
	if (hs_ktls_adopt(&k, sock, suite) != 0)
		return fail(EXIT_TLS, "the daemon reported an unknown suite 0x%04x", suite);
	rc = kt_transfer(r, &k, NULL, sock);
	hs_ktls_wipe(&k);
	return rc;
}

int relay_run(struct relay *r, struct hs_conn *c, int sock)
{
	static struct pump p; /* ~60 KiB: kept off the stack; one connection at a time */
	int done = 0, err = 0, fl = fcntl(sock, F_GETFL);

	r->ktls_tx = r->ktls_rx = "off";
	if (r->ktls != RELAY_KTLS_OFF)
		return relay_ktls(r, c, sock);
	memset(&p, 0, sizeof(p));
	p.r = r;
	p.c = c;
	p.sock = sock;
	if (fl < 0 || fcntl(sock, F_SETFL, fl | O_NONBLOCK) != 0)
		return fail(EXIT_NET, "fcntl: %s", strerror(errno));
	while (err == 0 && !done)
		err = step(&p, &done);
	if (err) /* best effort: get our alert out */
		(void)flush(&p);
	fcntl(sock, F_SETFL, fl);
	return err;
}
