/*
 * uring/: a TLS 1.3 server event loop on io_uring (liburing), driving many
 * connections at once through the sans-I/O engine (libhs). One thread, no
 * thread per connection: multishot accept, receives into one ring of
 * provided buffers shared by every connection, each receive linked to a
 * timeout (the handshake deadline, then the idle deadline), sends from the
 * engine's output. After the handshake a connection stays on our records
 * (record/, through the engine).
 *
 * Part of libhs (and this header installed) where libhs was built with
 * liburing (meson option uring, auto). Memory per connection and the
 * kernel versions it needs: uring/README.md.
 */
#ifndef HS_URING_H
#define HS_URING_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "hs/err.h"
#include "hs/tls.h"

struct hs_uring_conn;

struct hs_uring_config {
	int listen_fd;                /* bound and listening (TCP, any family) */
	const struct hs_config *tls;  /* server role; shared by the connections */
	unsigned max_active;          /* connections at once (0 = 1024); more wait in the backlog */
	unsigned max_conns;           /* stop after this many accepted and ended (0 = no limit) */
	unsigned handshake_ms;        /* whole-handshake deadline (0 = 10,000) */
	unsigned idle_ms;             /* deadline for each read after it (0 = 60,000) */
	/*
	 * 1: after each handshake, hand the connection to kernel TLS where the
	 * kernel can (both directions; else it stays on our records); io_uring
	 * still does its I/O. 0: our records (the engine's) always.
	 */
	unsigned ktls;
	/*
	 * Zero-copy sends (IORING_OP_SEND_ZC) of our records:
	 * HS_URING_ZC_AUTO (0): for chunks of 8 KiB or more, until the kernel
	 * reports that it copied one anyway (it does on loopback), then plain
	 * sends for that connection; HS_URING_ZC_OFF: never;
	 * HS_URING_ZC_ALWAYS: every send of our records (tests, benchmarks).
	 */
	unsigned send_zc;
	volatile sig_atomic_t *stop;  /* set (from a signal handler) to end: optional */
	/* Callbacks, all optional. They may call hs_uring_send / hs_uring_close. */
	void (*on_handshake)(void *arg, struct hs_uring_conn *uc);
	void (*on_data)(void *arg, struct hs_uring_conn *uc, const uint8_t *p, size_t n);
	/* err = 0: closed cleanly (close_notify or end of stream after it). */
	void (*on_end)(void *arg, struct hs_uring_conn *uc, int err);
	void *arg;
	/*
	 * Optional: everything queued on uc was handed to the kernel (its send
	 * queue is empty): a streaming sender queues its next piece here.
	 */
	void (*on_drained)(void *arg, struct hs_uring_conn *uc);
};

#define HS_URING_ZC_AUTO 0u
#define HS_URING_ZC_OFF 1u
#define HS_URING_ZC_ALWAYS 2u

struct hs_uring_stats {
	uint64_t accepted, handshakes, failed, timed_out;
	uint64_t bytes_in, bytes_out; /* application data */
	uint64_t ktls, ktls_refused;  /* handed to kernel TLS; the kernel could not */
	/* our records after the handshake: opened in the receive buffer they came
	 * in; carried over (cut by the end of a receive, completed from the next) */
	uint64_t records_in_place, records_carried;
	unsigned active_peak;
	/* zero-copy sends; of them, those the kernel reported it copied */
	uint64_t sends_zc, sends_zc_copied;
};

/*
 * Can this process use io_uring as hs_uring_serve needs it (ring setup,
 * provided-buffer rings, multishot accept)? 0 if so; else an hs error and,
 * in why, the reason ("io_uring_setup: Function not implemented (blocked by
 * seccomp or a kernel without io_uring?)").
 */
HS_API HS_MUST_CHECK int hs_uring_probe(char *why, size_t cap);

/*
 * Serve until max_conns connections have ended or *stop is set; then end
 * every connection and free everything. 0, or an error setting up (why as
 * in hs_uring_probe through hs_uring_last_error).
 */
HS_API HS_MUST_CHECK int hs_uring_serve(const struct hs_uring_config *cfg, struct hs_uring_stats *st);
HS_API const char *hs_uring_last_error(void);

/* Queue application data (sealed now, sent as the socket allows). */
HS_API HS_MUST_CHECK int hs_uring_send(struct hs_uring_conn *uc, const void *p, size_t n);
/* Send close_notify after what is queued, then close. */
HS_API void hs_uring_close(struct hs_uring_conn *uc);
/* The engine of this connection (parameters, peer, ...). */
HS_API const struct hs_conn *hs_uring_tls(const struct hs_uring_conn *uc);
/* "kernel" (handed to kernel TLS) or "user" (our records). */
HS_API const char *hs_uring_record_path(const struct hs_uring_conn *uc);
/* Application bytes received and sent on this connection so far. */
HS_API void hs_uring_conn_bytes(const struct hs_uring_conn *uc, uint64_t *in, uint64_t *out);
/* Its socket (getpeername, ...): the loop owns it; do not read, write or close it. */
HS_API int hs_uring_fd(const struct hs_uring_conn *uc);

#endif
