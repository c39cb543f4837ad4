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
#define OUT_HIGH (256 * 1024)  /* queued output above which a connection stops reading */

/* user_data = connection address | operation (struct hs_uring_conn is 16-byte aligned) */
enum op { OP_ACCEPT = 1, OP_RECV = 2, OP_SEND = 3, OP_TIMEOUT = 4, OP_CANCEL = 5 };
#define OP_MASK 7u

/* Bytes waiting to be sent: records (our path) or plaintext (kernel path: wiped when sent). */
struct chunk {
	struct chunk *next;
	size_t len, off;
	uint8_t data[];
};

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
struct chunk *chunk_new(size_t n);
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

/* ktls.c */
void ktls_try(struct hs_uring_conn *uc);
void ktls_prep_recv(struct hs_uring_conn *uc, struct io_uring_sqe *sqe);
void ktls_on_recv(struct hs_uring_conn *uc, const uint8_t *p, size_t n);
int ktls_before_send(struct hs_uring_conn *uc);
void ktls_finish(struct hs_uring_conn *uc);

#endif
