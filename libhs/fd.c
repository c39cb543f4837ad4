/*
 * File-descriptor helpers over the sans-I/O engine: the only libhs code
 * that does I/O. Kept apart from the core on purpose.
 *
 * Implementation notes: reads ask the engine how many bytes finish the
 * current record (hs_conn_input_wanted) and read at most that, so nothing
 * past the record that completes the handshake leaves the socket (kTLS
 * hand-off). Output is sent from the engine's queue in place
 * (conn_out_view) and only what the kernel took is removed from it
 * (conn_out_ack), so a short or refused send loses nothing and a
 * non-blocking caller can simply call again.
 *
 * Results of the socket calls, one each (include/hs/fd.h):
 *   EINTR                        retried
 *   EAGAIN, O_NONBLOCK socket    HS_ERR_WANT_READ / HS_ERR_WANT_WRITE
 *   EAGAIN, blocking socket      HS_ERR_TLS_TIMEOUT (SO_RCVTIMEO/SO_SNDTIMEO)
 *   ECONNRESET, EPIPE            HS_ERR_TLS_RESET (errno kept)
 *   EOF before close_notify      HS_ERR_TLS_CLOSED (errno 0)
 *   anything else                HS_ERR_TLS_IO (errno kept)
 * send() with MSG_NOSIGNAL: a peer that has gone never raises SIGPIPE.
 * A fd that is not a socket (ENOTSOCK: a pipe, a tty) gets write().
 *
 * A handshake deadline (hs_fd_handshake_deadline) covers the whole
 * handshake, not each read: before every read and write, poll() waits
 * for at most the time left, so a peer that trickles bytes cannot hold
 * the connection past it.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, poll */

#include "hs/fd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "libhs/internal.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* not Linux: the caller ignores SIGPIPE */
#endif

/* A monotonic deadline in ms; 0 = none. */
static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wait until fd is ready for events or the deadline passes. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int64_t left;
		int r;

		if (deadline == 0)
			return 0;
		left = deadline - now_ms();
		if (left <= 0)
			return HS_ERR_TLS_TIMEOUT;
		r = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (r > 0)
			return 0; /* readable, writable, or an error the I/O call reports */
		if (r < 0 && errno != EINTR)
			return HS_ERR_TLS_IO;
	}
}

/* The hs error for a failed read or send (errno set by it); want is
 * HS_ERR_WANT_READ or HS_ERR_WANT_WRITE. */
static int io_error(int fd, int want)
{
	int e = errno, fl;

	if (e == EAGAIN || e == EWOULDBLOCK) {
		fl = fcntl(fd, F_GETFL);
		errno = e;
		return fl >= 0 && (fl & O_NONBLOCK) ? want : HS_ERR_TLS_TIMEOUT;
	}
	if (e == ECONNRESET || e == EPIPE)
		return HS_ERR_TLS_RESET;
	return HS_ERR_TLS_IO;
}

static ssize_t send_some(int fd, const uint8_t *p, size_t n)
{
	ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

	if (w < 0 && errno == ENOTSOCK)
		w = write(fd, p, n);
	return w;
}

/* Send the engine's queued output; on EAGAIN what is unsent stays queued. */
static int flush_out_until(struct hs_conn *c, int fd, int64_t deadline)
{
	size_t n;
	const uint8_t *p;

	while ((p = conn_out_view(c, &n)), n > 0) {
		int err = wait_fd(fd, POLLOUT, deadline);
		if (err)
			return err;
		ssize_t w = send_some(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return io_error(fd, HS_ERR_WANT_WRITE);
		if (w == 0)
			return HS_ERR_TLS_IO;
		conn_out_ack(c, (size_t)w);
	}
	return 0;
}

static int flush_out(struct hs_conn *c, int fd) { return flush_out_until(c, fd, 0); }

/* Read up to one record's remaining bytes and feed them. */
static int read_some_until(struct hs_conn *c, int fd, int64_t deadline)
{
	uint8_t buf[4096];
	size_t want = hs_conn_input_wanted(c), used, off = 0;
	ssize_t r;
	int werr;

	/* 0-RTT data waits unread: the engine takes nothing more until
	 * hs_fd_read_early / hs_conn_read_early drains it */
	if (c->app_early && c->app_len > 0)
		return HS_ERR_TLS_STATE;
	werr = wait_fd(fd, POLLIN, deadline);
	if (werr)
		return werr;
	if (want > sizeof(buf))
		want = sizeof(buf);
	do
		r = read(fd, buf, want);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return io_error(fd, HS_ERR_WANT_READ);
	if (r == 0) {
		errno = 0;
		return HS_ERR_TLS_CLOSED;
	}
	while (off < (size_t)r) {
		int err = hs_conn_feed(c, buf + off, (size_t)r - off, &used);
		if (err)
			return err;
		off += used;
		if (used == 0) /* cannot happen: we read no more than one record */
			return HS_ERR_INTERNAL;
	}
	return 0;
}

static int read_some(struct hs_conn *c, int fd) { return read_some_until(c, fd, 0); }

/*
 * After a failed handshake our alert is out; a peer may still be sending
 * (say, the rest of a message we refused). Closing a socket with unread
 * bytes makes TCP send a reset, and the peer sees "connection reset"
 * instead of our alert. So: end our direction (FIN after the alert), then
 * read and drop what comes, for at most DRAIN_MS and DRAIN_MAX bytes.
 */
#define DRAIN_MS 200
#define DRAIN_MAX (256 * 1024)

static void drain(int fd)
{
	uint8_t buf[4096];
	int64_t end = now_ms() + DRAIN_MS;
	size_t total = 0;
	int saved = errno;

	(void)shutdown(fd, SHUT_WR); /* not a socket: nothing to do */
	while (total < DRAIN_MAX && wait_fd(fd, POLLIN, end) == 0) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		total += (size_t)r;
	}
	errno = saved;
}

static int is_want(int err) { return err == HS_ERR_WANT_READ || err == HS_ERR_WANT_WRITE; }

int hs_fd_handshake_deadline(struct hs_conn *c, int fd, unsigned timeout_ms)
{
	int64_t deadline = timeout_ms ? now_ms() + timeout_ms : 0;
	int err = 0;

	while (err == 0 && !hs_conn_handshake_done(c)) {
		err = flush_out_until(c, fd, deadline);
		if (err == 0)
			err = read_some_until(c, fd, deadline);
	}
	if (is_want(err))
		return err; /* non-blocking: call again when fd is ready */
	/* our last flight (client Finished), or the alert after an error */
	int ferr = err == HS_ERR_TLS_TIMEOUT ? 0 : flush_out_until(c, fd, deadline);
	if (err != 0 && hs_conn_error(c) != 0)
		drain(fd); /* a TLS failure: let the peer read our alert */
	return err ? err : ferr;
}

int hs_fd_handshake(struct hs_conn *c, int fd) { return hs_fd_handshake_deadline(c, fd, 0); }

int hs_fd_connect(struct hs_conn *c, int fd) { return hs_fd_handshake(c, fd); }
int hs_fd_accept(struct hs_conn *c, int fd) { return hs_fd_handshake(c, fd); }

int hs_fd_read(struct hs_conn *c, int fd, void *buf, size_t cap, size_t *n)
{
	int err;

	*n = 0;
	for (;;) {
		err = hs_conn_read(c, buf, cap, n);
		if (err || *n > 0 || hs_conn_peer_closed(c))
			return err;
		/* a KeyUpdate answer may be queued: send it first */
		err = flush_out(c, fd);
		if (err == HS_ERR_WANT_WRITE)
			err = 0; /* it stays queued: the next call sends it */
		if (err == 0)
			err = read_some(c, fd);
		if (err)
			return err;
	}
}

int hs_fd_read_early(struct hs_conn *c, int fd, void *buf, size_t cap, size_t *n)
{
	int err;

	*n = 0;
	for (;;) {
		err = hs_conn_read_early(c, buf, cap, n);
		if (err || *n > 0 || !early_more(c))
			break;
		/* our flight first: the client ends its early data once it has it */
		err = flush_out(c, fd);
		if (err == 0)
			err = read_some(c, fd);
		if (err)
			break;
	}
	if (err != 0 && !is_want(err) && hs_conn_error(c) != 0) {
		(void)flush_out(c, fd); /* our alert */
		drain(fd);
	}
	return err;
}

int hs_fd_write_some(struct hs_conn *c, int fd, const void *buf, size_t len, size_t *n)
{
	int err;

	*n = 0;
	/* what an earlier call left queued goes first: then nothing is taken
	 * unless it can at least start out */
	err = flush_out(c, fd);
	if (err)
		return err;
	err = hs_conn_write(c, buf, len, n);
	if (err)
		return err;
	err = flush_out(c, fd);
	return err == HS_ERR_WANT_WRITE ? 0 : err; /* taken: sent by the next call */
}

int hs_fd_write(struct hs_conn *c, int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t off = 0, n;

	while (off < len || hs_conn_output_pending(c) > 0) {
		int err = hs_fd_write_some(c, fd, p + off, len - off, &n);
		off += n;
		if (err == HS_ERR_WANT_WRITE) {
			/* non-blocking socket: all-or-error, so wait here */
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			if (poll(&pf, 1, -1) < 0 && errno != EINTR)
				return HS_ERR_TLS_IO;
			continue;
		}
		if (err)
			return err;
	}
	return 0;
}

int hs_fd_close(struct hs_conn *c, int fd)
{
	int err = hs_conn_close(c);

	if (err == 0)
		err = flush_out(c, fd);
	return err;
}
