/*
 * ktls: the record layer after the handshake, on kernel TLS or in userspace.
 *
 * After hs's engine (libhs) finishes a TLS 1.3 handshake on a TCP socket,
 * hs_ktls_attach() takes its secrets and hands the socket to the kernel
 * (setsockopt TCP_ULP "tls", then SOL_TLS TLS_TX / TLS_RX). Where the kernel
 * cannot (no CONFIG_TLS, module absent, cipher not built, not a TCP socket)
 * the same object runs our own records (record/, the engine's record layer)
 * over plain send/recv: the caller sees one interface, and hs_ktls_path() says which
 * path each direction is on (hs_ktls_reason() says why it is not the kernel).
 *
 * The two directions are independent: TX may be on the kernel while RX is in
 * userspace (the tests use that to check the kernel's records against ours).
 *
 * Memory: struct hs_ktls is caller memory of a fixed, opaque size
 * (HS_KTLS_SIZE bytes, aligned for any standard type: malloc/calloc, static
 * or automatic storage all do: the state, and each direction's secret, IV
 * and sequence number). The AEAD context of a direction on the userspace
 * path and the record buffers of that path (received bytes, a sealed record,
 * plaintext waiting for a small reader, a post-handshake message split
 * across records) are allocated the first time that path needs them: a
 * socket on the kernel path both ways holds none. Its fields are private (ktls/internal.h; a
 * static assert there keeps them within HS_KTLS_SIZE). It holds secrets:
 * hs_ktls_wipe() clears it and frees those buffers (call it once done with
 * k, whatever happened); the socket is the caller's to close.
 *
 * Errors: 0 or a negative hs_err (hs/err.h). A failed syscall becomes
 * HS_ERR_TLS_CLOSED (EOF, EPIPE, ECONNRESET), HS_ERR_TLS_BAD_RECORD_MAC
 * (EBADMSG: the kernel found a bad tag) or HS_ERR_INTERNAL, with errno kept
 * in hs_ktls_errno(). The first fatal error is sticky, and every later call
 * returns it.
 *
 * Threads: one reader thread (hs_ktls_read, hs_ktls_recv_record) and one
 * writer thread (every call that sends) may share k. Reading never sends and
 * never touches TX state: an error found in the peer's records records the
 * fatal alert to send, and the writer side (its next write, send_record,
 * key_update, send_alert or close) sends it, once, and returns the error. A
 * write in progress stops at its next record once an error is set (on the
 * userspace path; on kernel TX the sendmsg under way finishes). So after
 * a read error, call hs_ktls_close() (from the writer's side) to get the
 * alert out.
 *
 * Non-blocking sockets (O_NONBLOCK): EAGAIN is no error. Reading returns
 * HS_ERR_WANT_READ (a partial record received so far stays in k); a write
 * returns HS_ERR_WANT_WRITE only when nothing of it was sent, so the same
 * call is simply made again once poll() says POLLOUT; once part of it is
 * out, the call finishes it (waiting in poll() for room). Neither is sticky.
 */
#ifndef HS_KTLS_H
#define HS_KTLS_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "hs/err.h"
#include "hs/secrets.h"

struct hs_conn;

/*
 * The connection object: caller memory, fields private. HS_KTLS_SIZE is
 * part of the ABI: from 1.0 on it only grows, with a note in ktls/README.md
 * (under 0.x it shrank twice: from 112 KiB to 8 KiB when the buffers went
 * on demand, then to 1 KiB when the AEAD contexts did).
 */
#define HS_KTLS_SIZE 1024
struct hs_ktls {
	alignas(16) unsigned char opaque[HS_KTLS_SIZE];
};

/* Record content types (RFC 8446 B.1). */
#define HS_KTLS_CCS 20
#define HS_KTLS_ALERT 21
#define HS_KTLS_HANDSHAKE 22
#define HS_KTLS_DATA 23

/* The cipher rows, in the order of the descriptor table. */
enum hs_ktls_cipher_id {
	HS_KTLS_AES_128_GCM = 0,
	HS_KTLS_AES_256_GCM = 1,
	HS_KTLS_CHACHA20_POLY1305 = 2,
	HS_KTLS_N_CIPHERS = 3,
};

/* One row: how a TLS 1.3 suite maps onto linux/tls.h's crypto_info. */
struct hs_ktls_cipher {
	const char *name;      /* "AES-128-GCM" */
	const char *diag_name; /* the kernel's name in INET_DIAG_ULP_INFO ("aes-gcm-128") */
	uint16_t suite;        /* HS_TLS_AES_128_GCM_SHA256, ... */
	uint16_t kernel_type;  /* TLS_CIPHER_AES_GCM_128, ... */
	size_t info_size;      /* sizeof(struct tls12_crypto_info_...) */
	size_t key_off, key_len;
	size_t iv_off, iv_len;     /* the explicit part of the 12-byte IV */
	size_t salt_off, salt_len; /* the implicit part (first bytes of the IV) */
	size_t seq_off, seq_len;
	size_t secret_len; /* hash length of the suite: 32 or 48 */
};

/* Which row serves suite (NULL: not a suite we can hand to the kernel). */
HS_API const struct hs_ktls_cipher *hs_ktls_cipher_for_suite(uint16_t suite);
HS_API const struct hs_ktls_cipher *hs_ktls_cipher_by_id(enum hs_ktls_cipher_id id);

/*
 * Fill buf (at least c->info_size bytes) with the crypto_info the kernel
 * takes for TLS 1.3: version, cipher type, salt = iv[0..salt_len),
 * iv = the rest of the 12-byte IV, key, rec_seq = seq big-endian.
 * The caller wipes buf once setsockopt has copied it.
 */
HS_API HS_MUST_CHECK int hs_ktls_crypto_info(const struct hs_ktls_cipher *c, const uint8_t *key,
				      const uint8_t *iv, uint64_t seq, uint8_t *buf,
				      size_t cap);

/* Why a direction is not on the kernel path. */
enum hs_ktls_why {
	HS_KTLS_WHY_NONE = 0,   /* it is on the kernel path */
	HS_KTLS_WHY_FORCED,     /* the caller asked for userspace */
	HS_KTLS_WHY_NOT_TCP,    /* not a connected TCP socket */
	HS_KTLS_WHY_NO_ULP,     /* TCP_ULP "tls" refused: CONFIG_TLS off or tls.ko absent */
	HS_KTLS_WHY_OLD_KERNEL, /* no TLS 1.3 in this kernel (Linux < 5.1) */
	HS_KTLS_WHY_NO_CIPHER,  /* the kernel lacks this cipher (not built, or < 5.11 for ChaCha) */
	HS_KTLS_WHY_SYSCALL,    /* another setsockopt error (see hs_ktls_errno) */
	HS_KTLS_WHY_NO_REKEY,   /* on the kernel, but it cannot rekey (Linux < 6.14) */
};
HS_API const char *hs_ktls_why_str(enum hs_ktls_why why);

/* What the running kernel can do, found by trying it on loopback sockets. */
struct hs_ktls_caps {
	int ulp;         /* TCP_ULP "tls" accepted */
	unsigned tx, rx; /* bit (1u << hs_ktls_cipher_id) per cipher that installs */
	int no_pad;      /* TLS_RX_EXPECT_NO_PAD accepted (Linux >= 6.0) */
	int rekey;       /* TLS_TX may be set again: TLS 1.3 KeyUpdate (Linux >= 6.14) */
	enum hs_ktls_why why; /* first reason something is missing (NONE: all there) */
	int sys_errno;
	char release[65];  /* uname -r */
	char reason[200];  /* one sentence saying what is missing and why */
};

/* Probe this kernel (real syscalls, a few loopback connections). */
HS_API HS_MUST_CHECK int hs_ktls_probe(struct hs_ktls_caps *caps);

/*
 * Replaceable syscalls, so that tests can check the exact bytes given to the
 * kernel without one. Each behaves like the syscall: -1 and errno on error.
 */
struct hs_ktls_ops {
	int (*setsockopt)(void *user, int fd, int level, int name, const void *val,
			  socklen_t len);
	ssize_t (*sendmsg)(void *user, int fd, const struct msghdr *m, int flags);
	ssize_t (*recvmsg)(void *user, int fd, struct msghdr *m, int flags);
	void *user;
};
/* The real ones. */
extern HS_API const struct hs_ktls_ops hs_ktls_sys_ops;

/* Flags for hs_ktls_attach / hs_ktls_init. */
#define HS_KTLS_F_USER 1u         /* userspace path for both directions */
#define HS_KTLS_F_USER_TX 2u      /* userspace path for TX only */
#define HS_KTLS_F_USER_RX 4u      /* userspace path for RX only */
#define HS_KTLS_F_KERNEL_ONLY 8u  /* fail (HS_ERR_UNSUPPORTED) instead of falling back */
#define HS_KTLS_F_NO_PAD 16u      /* the peer never pads records: TLS_RX_EXPECT_NO_PAD */

enum hs_ktls_path { HS_KTLS_PATH_USER = 0, HS_KTLS_PATH_KERNEL = 1 };

/*
 * Called with each post-handshake message other than KeyUpdate (e.g.
 * NewSessionTicket), whole (reassembled if it came in several records), after
 * the engine (hs_conn_post_handshake, when k came from hs_ktls_attach) took it.
 */
typedef int (*hs_ktls_handshake_fn)(void *arg, const uint8_t *msg, size_t len);

/*
 * Set k up on fd from the secrets (traffic keys, IVs and next sequence
 * numbers of both directions) and install what the kernel takes. ops NULL:
 * the real syscalls. The secrets stay the caller's (wipe them after).
 */
HS_API HS_MUST_CHECK int hs_ktls_init(struct hs_ktls *k, int fd, const struct hs_secrets *s,
			       unsigned flags, const struct hs_ktls_ops *ops);

/* Route post-handshake messages (NewSessionTicket...) to fn. */
HS_API void hs_ktls_on_handshake(struct hs_ktls *k, hs_ktls_handshake_fn fn, void *arg);

/*
 * Plaintext that was decrypted before the hand-off (the engine read it): it
 * is returned by hs_ktls_read before anything from the socket. At most one
 * record's worth (2^14 bytes) in all.
 */
HS_API HS_MUST_CHECK int hs_ktls_push_plaintext(struct hs_ktls *k, const uint8_t *p, size_t len);

HS_API enum hs_ktls_path hs_ktls_tx_path(const struct hs_ktls *k);
HS_API enum hs_ktls_path hs_ktls_rx_path(const struct hs_ktls *k);
/* Both directions on the kernel? */
HS_API int hs_ktls_is_kernel(const struct hs_ktls *k);
/* Why TX (or RX) is not on the kernel, as a sentence ("" when it is). */
HS_API const char *hs_ktls_reason(const struct hs_ktls *k, int rx);
HS_API int hs_ktls_errno(const struct hs_ktls *k);
HS_API int hs_ktls_error(const struct hs_ktls *k);
/* Received alert description, -1 if none. */
HS_API int hs_ktls_peer_alert(const struct hs_ktls *k);
HS_API int hs_ktls_fd(const struct hs_ktls *k);
HS_API uint16_t hs_ktls_suite(const struct hs_ktls *k);

/* Write all len bytes of application data (records of at most 16 KiB). */
HS_API HS_MUST_CHECK int hs_ktls_write(struct hs_ktls *k, const void *buf, size_t len);
/*
 * Read application data: blocks until some arrives. Handles the records of
 * other types on the way (KeyUpdate: rekey RX, and if the peer asked for
 * ours, the next write sends it; alerts; other handshake messages to the
 * callback). *n = 0: the peer sent close_notify. Reading never sends.
 */
HS_API HS_MUST_CHECK int hs_ktls_read(struct hs_ktls *k, void *buf, size_t cap, size_t *n);

/* One record of any content type: send (len <= 16 KiB) / receive. */
HS_API HS_MUST_CHECK int hs_ktls_send_record(struct hs_ktls *k, uint8_t type, const void *buf,
				      size_t len);
/*
 * Receive the next record's content (at most cap bytes; application data may
 * come as several records merged) and its type. EOF gives HS_ERR_TLS_CLOSED.
 */
HS_API HS_MUST_CHECK int hs_ktls_recv_record(struct hs_ktls *k, uint8_t *type, void *buf, size_t cap,
				      size_t *n);

/*
 * Event loops that do the socket I/O themselves (io_uring: uring/): after
 * the hand-off they receive with recvmsg and a TLS_GET_RECORD_TYPE cmsg
 * buffer, and send application data as plain send() on the kernel-TX
 * socket. hs_ktls_take_record() gets each received record the kernel
 * opened (type from the cmsg, HS_KTLS_DATA when none): alerts and
 * post-handshake messages are handled as in hs_ktls_read (KeyUpdate rekeys
 * RX, NewSessionTicket goes to the engine); for application data it only
 * checks the record may come now (the caller keeps the bytes). Before each
 * send, hs_ktls_tx_owed() says whether the reading side left something to
 * send first (a KeyUpdate answer, a fatal alert): hs_ktls_send_owed() sends
 * it (synchronously; a few bytes) and returns the sticky error if any.
 * These need the kernel path both ways (HS_KTLS_F_KERNEL_ONLY).
 */
HS_API HS_MUST_CHECK int hs_ktls_take_record(struct hs_ktls *k, uint8_t type, const void *buf,
					     size_t len);
HS_API int hs_ktls_peer_closed(const struct hs_ktls *k);
HS_API int hs_ktls_tx_owed(const struct hs_ktls *k);
HS_API HS_MUST_CHECK int hs_ktls_send_owed(struct hs_ktls *k);
/*
 * Send an alert (level 1 warning, 2 fatal). After a sticky error: sends the
 * fatal alert that error calls for (once) instead, and returns the error.
 */
HS_API HS_MUST_CHECK int hs_ktls_send_alert(struct hs_ktls *k, uint8_t level, uint8_t desc);
/* Send close_notify (the socket stays open); after an error, see hs_ktls_send_alert. */
HS_API HS_MUST_CHECK int hs_ktls_close(struct hs_ktls *k);

/*
 * Send a KeyUpdate (request_peer: ask the peer to update too) and move TX to
 * the next traffic secret (RFC 8446 4.6.3, 7.2). On a kernel that cannot
 * rekey (Linux < 6.14) this fails with HS_ERR_UNSUPPORTED before sending
 * anything, and the connection stays usable on the old keys.
 */
HS_API HS_MUST_CHECK int hs_ktls_key_update(struct hs_ktls *k, int request_peer);

/*
 * A socket another process already put on kernel TLS both ways (handshaked's
 * hand-off, include/hs/handoff.h), with the suite it negotiated: read,
 * write, control records, alerts and close_notify work as after
 * hs_ktls_init; a KeyUpdate (ours or the peer's) cannot, for want of the
 * traffic secrets: HS_ERR_UNSUPPORTED. The peer's NewSessionTickets are
 * read and dropped.
 */
HS_API HS_MUST_CHECK int hs_ktls_adopt(struct hs_ktls *k, int fd, uint16_t suite);
/* Wipe every secret in k (the fd is not closed). */
HS_API void hs_ktls_wipe(struct hs_ktls *k);

/* ---- hand-off from the engine (ktls/handoff.c) ---- */
struct hs_conn;

/*
 * After the handshake: flush what the engine still has to send, move any
 * application data it already decrypted into k, take its secrets and
 * install. Fails with HS_ERR_TLS_STATE if the engine holds part of a record
 * (the seam would lose bytes). Later post-handshake messages (tickets,
 * KeyUpdate) are also given to c (hs_conn_post_handshake), so c must outlive
 * k's reads (or call hs_ktls_detach_engine first). Only the reader touches c.
 */
HS_API HS_MUST_CHECK int hs_ktls_attach(struct hs_ktls *k, struct hs_conn *c, int fd, unsigned flags);
/*
 * Server, after the hand-off, when c's config has defer_tickets: make n
 * NewSessionTickets with c (hs_conn_make_ticket) and send them as handshake
 * records (on the kernel path with TLS_SET_RECORD_TYPE = 22). n = 0: every
 * ticket c may still make (n_tickets in all), then hs_conn_end_tickets(c)
 * wipes the resumption master secret; none left is no error then. n > 0:
 * HS_ERR_TLS_STATE if fewer than n could be made (those made are sent).
 * A writer call that also touches c: make it before a reader thread starts
 * (right after hs_ktls_attach / hs_ktls_accept), or from the reader's thread.
 * On a non-blocking socket, HS_ERR_WANT_WRITE means the record in hand was
 * not sent: those tickets are simply not issued (a ticket is an offer, and
 * the count of c's tickets is spent).
 */
HS_API HS_MUST_CHECK int hs_ktls_send_tickets(struct hs_ktls *k, struct hs_conn *c, unsigned n);
/* Stop giving post-handshake messages to the engine (before freeing it). */
HS_API void hs_ktls_detach_engine(struct hs_ktls *k);
/* Handshake on a connected (client) / accepted (server) socket, then attach. */
HS_API HS_MUST_CHECK int hs_ktls_connect(struct hs_ktls *k, struct hs_conn *c, int fd,
				  unsigned flags);
HS_API HS_MUST_CHECK int hs_ktls_accept(struct hs_ktls *k, struct hs_conn *c, int fd, unsigned flags);

#endif
