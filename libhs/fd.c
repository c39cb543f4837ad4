/*
 * Blocking file-descriptor helpers over the sans-I/O engine: the only libhs
 * code that does I/O. Kept apart from the core on purpose.
 *
 * Implementation notes: reads ask the engine how many bytes finish the
 * current record (hs_conn_input_wanted) and read at most that, so nothing
 * past the record that completes the handshake leaves the socket (kTLS
 * hand-off). EINTR is retried; EOF before close_notify is HS_ERR_TLS_CLOSED.
 */
#include "hs/fd.h"

#include <errno.h>
#include <unistd.h>

#include "hs/tls.h"

static int flush_out(struct hs_conn *c, int fd)
{
	uint8_t buf[4096];
	size_t n;

	while (hs_conn_output_pending(c) > 0) {
		if (hs_conn_pull(c, buf, sizeof(buf), &n) != 0 && n == 0)
			break;
		for (size_t off = 0; off < n;) {
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

/* Read up to one record's remaining bytes and feed them. */
static int read_some(struct hs_conn *c, int fd)
{
	uint8_t buf[4096];
	size_t want = hs_conn_input_wanted(c), used, off = 0;
	ssize_t r;

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

int hs_fd_handshake(struct hs_conn *c, int fd)
{
	int err = 0;

	while (err == 0 && !hs_conn_handshake_done(c)) {
		err = flush_out(c, fd);
		if (err == 0)
			err = read_some(c, fd);
	}
	/* our last flight (client Finished), or the alert after an error */
	int ferr = flush_out(c, fd);
	return err ? err : ferr;
}

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
