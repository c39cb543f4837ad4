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
 * close_notify alerts have been exchanged and everything is flushed. A
 * kernel-TLS path would replace the engine calls here and nowhere else.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
			note(2, "session ticket received (not used: no resumption yet)");
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

int relay_run(struct relay *r, struct hs_conn *c, int sock)
{
	static struct pump p; /* ~60 KiB: kept off the stack; one connection at a time */
	int done = 0, err = 0, fl = fcntl(sock, F_GETFL);

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
