/*
 * The hand-off of an io_uring connection to kernel TLS, and its I/O after:
 * io_uring still receives (recvmsg, the record type in a TLS_GET_RECORD_TYPE
 * cmsg) and sends (plaintext; the kernel seals), ktls/ handles the control
 * records (hs_ktls_take_record: KeyUpdate rekeys RX, close_notify, alerts)
 * and sends what the reading side owes (a KeyUpdate answer, an alert)
 * before the next data.
 *
 * The hand-off needs the socket to hold every record after the one that
 * completed the handshake: it is tried when nothing is in flight and every
 * record of ours is out; if the engine holds part of a record (the client
 * sent data right behind its Finished), receives are cut to the end of that
 * record (conn.c, align) and it is tried again.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <linux/tls.h>

#include "base/wipe.h"
#include "uring/internal.h"

#ifndef SOL_TLS
#define SOL_TLS 282
#endif

void ktls_try(struct hs_uring_conn *uc)
{
	struct hs_uring_stats *st = uc->lp->st;
	struct hs_ktls *k;
	int err;

	if (uc->recv_armed || uc->send_armed || uc->q_head != NULL ||
	    hs_conn_output_pending(uc->tls) > 0)
		return;
	k = aligned_alloc(64, (HS_KTLS_SIZE + 63) & ~(size_t)63);
	if (k == NULL) {
		uc->want_ktls = false;
		st->ktls_refused++;
		return;
	}
	/* kernel both ways or not at all: our records stay in the engine otherwise */
	err = hs_ktls_attach(k, uc->tls, uc->fd, HS_KTLS_F_KERNEL_ONLY);
	if (err == HS_ERR_TLS_STATE) {
		free(k);
		uc->align = true; /* part of a record in the engine: read to its end first */
		return;
	}
	uc->want_ktls = false;
	uc->align = false;
	if (err) {
		hs_ktls_wipe(k);
		free(k);
		st->ktls_refused++;
		return;
	}
	uc->ktls = k;
	st->ktls++;
}

void ktls_prep_recv(struct hs_uring_conn *uc, struct io_uring_sqe *sqe)
{
	_Static_assert(sizeof(struct cmsghdr) + 2 * sizeof(size_t) <= sizeof(uc->cmsg.buf),
		       "room for the record type cmsg (CMSG_SPACE(sizeof(int)))");
	memset(&uc->msg, 0, sizeof(uc->msg));
	memset(&uc->cmsg, 0, sizeof(uc->cmsg));
	uc->iov.iov_base = NULL; /* the buffer comes from the ring */
	uc->iov.iov_len = BUF_SIZE;
	uc->msg.msg_iov = &uc->iov;
	uc->msg.msg_iovlen = 1;
	uc->msg.msg_control = uc->cmsg.buf;
	uc->msg.msg_controllen = sizeof(uc->cmsg.buf);
	io_uring_prep_recvmsg(sqe, uc->fd, &uc->msg, 0);
}

static uint8_t record_type(struct hs_uring_conn *uc)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&uc->msg); cm != NULL; cm = CMSG_NXTHDR(&uc->msg, cm))
		if (cm->cmsg_level == SOL_TLS && cm->cmsg_type == TLS_GET_RECORD_TYPE)
			return *CMSG_DATA(cm);
	return HS_KTLS_DATA;
}

/* One record's plaintext, opened by the kernel, in a ring buffer (wiped here). */
void ktls_on_recv(struct hs_uring_conn *uc, const uint8_t *p, size_t n)
{
	const struct hs_uring_config *cfg = uc->lp->cfg;
	uint8_t type = record_type(uc);
	int err = hs_ktls_take_record(uc->ktls, type, p, n);

	if (err == 0 && type == HS_KTLS_DATA) {
		uc->bytes_in += n;
		uc->lp->st->bytes_in += n;
		if (cfg->on_data != NULL)
			cfg->on_data(cfg->arg, uc, p, n);
	}
	wipe((void *)p, n);
	if (err) {
		/* sends the alert the error calls for, and returns the error again */
		int sticky = hs_ktls_send_owed(uc->ktls);

		conn_end(uc, sticky ? sticky : err);
		return;
	}
	if (hs_ktls_peer_closed(uc->ktls) && !uc->finish) {
		uc->finish = true; /* ours goes once the queue is out */
		uc->ok_end = true;
	}
}

/* Before each send: what the reading side owes goes first. */
int ktls_before_send(struct hs_uring_conn *uc)
{
	int err;

	if (!hs_ktls_tx_owed(uc->ktls))
		return 0;
	err = hs_ktls_send_owed(uc->ktls);
	if (err)
		conn_end(uc, err);
	return err;
}

/* The queue is out: close_notify (or the owed alert), then end. */
void ktls_finish(struct hs_uring_conn *uc)
{
	int err = uc->ok_end ? hs_ktls_close(uc->ktls) : hs_ktls_send_owed(uc->ktls);

	if (uc->ok_end && err == 0)
		conn_end(uc, 0);
	else
		conn_end(uc, err ? err : HS_ERR_TLS_CLOSED);
}
