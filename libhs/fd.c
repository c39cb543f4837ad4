/*
 * Blocking file-descriptor helpers over the sans-I/O engine: the only libhs
 * code that does I/O. Kept apart from the core on purpose.
 *
 * Implementation notes: reads ask the engine how many bytes finish the
 * current record (hs_conn_input_wanted) and read at most that, so nothing
 * past the record that completes the handshake leaves the socket (kTLS
 * hand-off). EINTR is retried; EOF before close_notify is HS_ERR_TLS_CLOSED.
 * A handshake deadline (hs_fd_handshake_deadline) covers the whole
 * handshake, not each read: before every read and write, poll() waits
 * for at most the time left, so a peer that trickles bytes cannot hold
 * the connection past it.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, poll */

#include "hs/fd.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hs/tls.h"

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
			return HS_ERR_TLS_CLOSED;
	}
}

static int flush_out_until(struct hs_conn *c, int fd, int64_t deadline)
{
	uint8_t buf[4096];
	size_t n;

	while (hs_conn_output_pending(c) > 0) {
		if (hs_conn_pull(c, buf, sizeof(buf), &n) != 0 && n == 0)
			break;
		for (size_t off = 0; off < n;) {
			int err = wait_fd(fd, POLLOUT, deadline);
			if (err)
				return err;
			ssize_t w = write(fd, buf + off, n - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return HS_ERR_TLS_CLOSED;
			off += (size_t)w;
		}
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
	int werr = wait_fd(fd, POLLIN, deadline);

	if (werr)
		return werr;
	if (want > sizeof(buf))
		want = sizeof(buf);
	do
		r = read(fd, buf, want);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return HS_ERR_TLS_CLOSED;
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

	(void)shutdown(fd, SHUT_WR); /* not a socket: nothing to do */
	while (total < DRAIN_MAX && wait_fd(fd, POLLIN, end) == 0) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		total += (size_t)r;
	}
}

int hs_fd_handshake_deadline(struct hs_conn *c, int fd, unsigned timeout_ms)
{
	int64_t deadline = timeout_ms ? now_ms() + timeout_ms : 0;
	int err = 0;

	while (err == 0 && !hs_conn_handshake_done(c)) {
		err = flush_out_until(c, fd, deadline);
		if (err == 0)
			err = read_some_until(c, fd, deadline);
	}
	/* our last flight (client Finished), or the alert after an error */
	int ferr = err == HS_ERR_TLS_TIMEOUT ? 0 : flush_out_until(c, fd, deadline);
	if (err != 0 && err != HS_ERR_TLS_TIMEOUT && err != HS_ERR_TLS_CLOSED)
		drain(fd);
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
		err = read_some(c, fd);
		/* a KeyUpdate answer may be queued */
		if (err == 0)
			err = flush_out(c, fd);
		if (err)
			return err;
	}
}

int hs_fd_write(struct hs_conn *c, int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t off = 0, n;

	while (off < len) {
		int err = hs_conn_write(c, p + off, len - off, &n);
		if (err)
			return err;
		off += n;
		err = flush_out(c, fd);
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
