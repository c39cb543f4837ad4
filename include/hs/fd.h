/*
 * File-descriptor helpers on top of the sans-I/O engine. They use an
 * already connected / accepted socket (or any fd pair-like stream) and
 * never read past the record that completes the handshake, so after
 * hs_fd_handshake() the kernel socket buffer holds exactly the bytes the
 * engine has not seen (kTLS hand-off).
 *
 * These are the only libhs functions that do I/O. What they return when
 * the socket fails, one result each (errno is left as the failing call
 * set it):
 *   HS_ERR_TLS_CLOSED   the peer closed the TCP connection (EOF) without
 *                       close_notify (errno 0); a close_notify is not an
 *                       error: hs_fd_read() gives 0 bytes
 *   HS_ERR_TLS_RESET    the peer reset the connection (ECONNRESET, EPIPE)
 *   HS_ERR_TLS_TIMEOUT  the handshake deadline, or the socket's
 *                       SO_RCVTIMEO / SO_SNDTIMEO, passed
 *   HS_ERR_TLS_IO       any other socket error (see errno)
 *   HS_ERR_WANT_READ / HS_ERR_WANT_WRITE  on a non-blocking (O_NONBLOCK)
 *                       socket: nothing is lost, call the same function
 *                       again when poll/epoll says the socket is readable /
 *                       writable (hs_fd_handshake, hs_fd_read,
 *                       hs_fd_write_some, hs_fd_close)
 * Writes use send(MSG_NOSIGNAL): a closed peer never raises SIGPIPE (a fd
 * that is not a socket, such as a pipe, gets write(): ignore SIGPIPE).
 */
#ifndef HS_FD_H
#define HS_FD_H

#include <stddef.h>
#include <sys/types.h>

#include "hs/err.h"

struct hs_conn;

/*
 * Run the handshake to completion on fd (non-blocking: until it returns
 * 0; HS_ERR_WANT_* in between). HS_ERR_TLS_CLOSED on EOF. When
 * the handshake fails, our alert is sent, our direction shut down
 * (shutdown SHUT_WR) and what the peer still sends read and dropped for
 * up to 200 ms / 256 KiB, so that closing fd does not reset the
 * connection before the peer reads the alert.
 */
HS_API HS_MUST_CHECK int hs_fd_handshake(struct hs_conn *c, int fd);
/*
 * The same, but the whole handshake must finish within timeout_ms
 * milliseconds (0 = no deadline), however the peer spaces its bytes:
 * HS_ERR_TLS_TIMEOUT otherwise (nothing more is sent). Either role.
 */
HS_API HS_MUST_CHECK int hs_fd_handshake_deadline(struct hs_conn *c, int fd, unsigned timeout_ms);
/* Client role: handshake on a connected socket (same as hs_fd_handshake). */
HS_API HS_MUST_CHECK int hs_fd_connect(struct hs_conn *c, int fd);
/* Server role: handshake on an accepted socket (same as hs_fd_handshake). */
HS_API HS_MUST_CHECK int hs_fd_accept(struct hs_conn *c, int fd);
/*
 * Read application data: blocks until some arrives. *n = 0 means the peer
 * sent close_notify (or closed the socket after it).
 */
HS_API HS_MUST_CHECK int hs_fd_read(struct hs_conn *c, int fd, void *buf, size_t cap, size_t *n);
/*
 * server, 0-RTT (hs_config.max_early_data): run the handshake until
 * accepted early data arrives (*n > 0, that data) or none can come any
 * more (*n = 0: the client's EndOfEarlyData, or 0-RTT not accepted; see
 * hs_conn_early_data); then hs_fd_handshake finishes. Early data must be
 * read this way: hs_fd_handshake fails with HS_ERR_TLS_STATE while some
 * waits unread.
 */
HS_API HS_MUST_CHECK int hs_fd_read_early(struct hs_conn *c, int fd, void *buf, size_t cap,
					  size_t *n);
/*
 * Write all len bytes (on a non-blocking socket it waits with poll() until
 * everything is sent, so the result is all or an error).
 */
HS_API HS_MUST_CHECK int hs_fd_write(struct hs_conn *c, int fd, const void *buf, size_t len);
/*
 * Non-blocking write: *n gets how many bytes of buf were taken (they will
 * be sent: what the socket did not take yet goes out first on the next
 * call). HS_ERR_WANT_WRITE with *n = 0: nothing was taken, wait for
 * POLLOUT and call again with the same bytes.
 */
HS_API HS_MUST_CHECK int hs_fd_write_some(struct hs_conn *c, int fd, const void *buf, size_t len,
					  size_t *n);
/* Send close_notify and flush it (the fd stays open: the caller closes). */
HS_API HS_MUST_CHECK int hs_fd_close(struct hs_conn *c, int fd);

#endif
