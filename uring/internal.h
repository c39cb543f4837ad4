/* uring/: what loop.c, conn.c and ktls.c share (not installed). */
#ifndef HS_URING_INTERNAL_H
#define HS_URING_INTERNAL_H

#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "hs/ktls.h"
#include "hs/uring.h"

#define RING_ENTRIES 512
#define BUF_GROUP 1
#define BUF_COUNT 64           /* receive buffers shared by all connections */
/*
 * 64 KiB: a receive holds several records, so most open in place where they
 * landed; only the one cut by a buffer's end is carried (records.c). With
 * 17 KiB buffers (one record) nearly every record was cut: 87 % carried
 * over a 20 MB echo, 25 % with 64 KiB. 64 x 64 KiB = 4 MiB for the loop.
 */
#define BUF_SIZE 65536
#define SEND_IOV 16            /* chunks one send takes at once (sendmsg) */
/* sendbuf.c: registered send slots of one record each (SEND_SLOTS x 16.6 KiB) */
#define SEND_SLOTS 64
#define SLOT_DATA (HS_RECORD_HEADER_LEN + 16384 + 256 + 59) /* a record, ending 64-aligned */
/* automatic mode: a zero-copy send for a chunk of at least this much */
#define ZC_MIN 8192
/* Linux >= 6.2 uapi, missing from older liburing headers */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif
#define OUT_HIGH (256 * 1024)  /* queued output above which a connection stops reading */

/* user_data = connection address | operation (struct hs_uring_conn is 16-byte aligned) */
enum op { OP_ACCEPT = 1, OP_RECV = 2, OP_SEND = 3, OP_TIMEOUT = 4, OP_CANCEL = 5, OP_SEND_ZC = 6 };
#define OP_MASK 7u

/*
 * Bytes waiting to be sent: records (our path) or plaintext (kernel path:
 * wiped when freed). In a send slot or on the heap (sendbuf.c); 16-byte
 * aligned (a zero-copy send's user_data is its address | OP_SEND_ZC).
 */
struct chunk {
	struct chunk *next;
	struct hs_uring_conn *uc; /* set by a zero-copy send */
	uint8_t *data;            /* cap bytes; [off, len) still to send */
	size_t len, off, cap;
	int slot;                 /* its send slot, or -1: heap */
	unsigned zc_refs;         /* zero-copy sends whose notification is still due */
	bool sent;                /* out of the queue: freed with the last notification */
} __attribute__((aligned(16)));

struct loop;

struct hs_uring_conn {
	struct loop *lp;
	struct hs_conn *tls;
	struct hs_ktls *ktls;        /* after the hand-off to kernel TLS, else NULL */
	int fd;
	unsigned in_flight;          /* submissions whose completion is still due */
	bool recv_armed, send_armed;
	bool ending;                 /* shut down; freed when in_flight reaches 0 */
	bool finish;                 /* end once the output is sent (alert, close_notify) */
	bool timed_out, handshaken, ok_end;
	bool want_ktls;              /* hand off once the handshake is done and all is sent */
	bool align;                  /* receive only to the end of the engine's partial record */
	bool zc_off;                 /* the kernel copied a zero-copy send: plain sends from now */
	int err;
	uint64_t deadline_ns;        /* handshake deadline (absolute, CLOCK_MONOTONIC) */
	uint64_t bytes_in, bytes_out;
	struct __kernel_timespec ts; /* the linked timeout of the receive in flight */
	struct chunk *q_head, *q_tail;
	size_t queued;               /* bytes in the queue */
	struct msghdr send_msg;      /* the send in flight: up to SEND_IOV chunks */
	struct iovec send_iov[SEND_IOV];
	uint8_t *part;               /* a record split across two receive buffers (on demand) */
	size_t part_len;
	struct msghdr msg;           /* kernel path: recvmsg with the record type cmsg */
	struct iovec iov;
	union {
		char buf[32]; /* >= CMSG_SPACE(sizeof(int)): checked in ktls.c */
		size_t align; /* struct cmsghdr's alignment (it ends in a flexible array) */
	} cmsg;
	struct hs_uring_conn *next_wait; /* waiting for a receive buffer */
	struct hs_uring_conn *prev, *next; /* every live connection (to end them on stop) */
} __attribute__((aligned(16)));

struct loop {
	struct io_uring ring;
	const struct hs_uring_config *cfg;
	struct hs_uring_stats *st;
	struct io_uring_buf_ring *br;
	uint8_t *bufs;
	unsigned active, ended;
	bool accept_armed, accept_stopping, stopping;
	struct hs_uring_conn *wait_head;
	struct hs_uring_conn *conns;
	uint8_t *slots;              /* SEND_SLOTS send slots (sendbuf.c) */
	bool slots_fixed, zc_ok;     /* slots registered; IORING_OP_SEND_ZC available */
	unsigned n_free;
	uint16_t free_slot[SEND_SLOTS];
	uint8_t scratch[BUF_SIZE]; /* decrypted application data on its way to on_data */
};

/* loop.c */
struct io_uring_sqe *uring_sqe(struct loop *lp, unsigned need);
uint8_t *uring_buf(struct loop *lp, unsigned bid);
void uring_give_back(struct loop *lp, unsigned bid);
uint64_t uring_now_ns(void);
static inline uint64_t uring_tag(const struct hs_uring_conn *uc, enum op op)
{
	return (uint64_t)(uintptr_t)uc | op;
}

/* conn.c */
void conn_accept(struct loop *lp, int fd);
void conn_on_recv(struct hs_uring_conn *uc, int res, unsigned flags);
void conn_on_send(struct hs_uring_conn *uc, int res);
void conn_arm_recv(struct hs_uring_conn *uc);
void conn_end(struct hs_uring_conn *uc, int err);
void conn_free(struct hs_uring_conn *uc);
int conn_queue(struct hs_uring_conn *uc, const uint8_t *p, size_t n);
void chunk_queue(struct hs_uring_conn *uc, struct chunk *c);
void conn_kick(struct hs_uring_conn *uc);

/* records.c: our records without copies, after the handshake */
void records_on_recv(struct hs_uring_conn *uc, uint8_t *p, size_t n);
int records_send(struct hs_uring_conn *uc, const uint8_t *p, size_t n);
void records_free(struct hs_uring_conn *uc);
int conn_flush(struct hs_uring_conn *uc);
void conn_feed(struct hs_uring_conn *uc, const uint8_t *p, size_t len);
void conn_deliver(struct hs_uring_conn *uc, const uint8_t *p, size_t n);
int conn_events(struct hs_uring_conn *uc);

/* sendbuf.c: send slots and zero-copy sends */
void sendbuf_setup(struct loop *lp);
void sendbuf_teardown(struct loop *lp);
/* A chunk with room for n bytes (len = n; not queued yet), or NULL. */
struct chunk *chunk_new(struct loop *lp, size_t n);
void chunk_free(struct loop *lp, struct chunk *c);
bool sendbuf_want_zc(const struct hs_uring_conn *uc, const struct chunk *c);
void sendbuf_prep_zc(struct hs_uring_conn *uc, struct chunk *c, struct io_uring_sqe *sqe);
struct hs_uring_conn *sendbuf_on_zc(struct chunk *c, int res, unsigned flags);

/* ktls.c */
void ktls_try(struct hs_uring_conn *uc);
void ktls_prep_recv(struct hs_uring_conn *uc, struct io_uring_sqe *sqe);
void ktls_on_recv(struct hs_uring_conn *uc, const uint8_t *p, size_t n);
int ktls_before_send(struct hs_uring_conn *uc);
void ktls_finish(struct hs_uring_conn *uc);

#endif
