/*
 * One connection of the io_uring loop: its receive (always linked to a
 * timeout: the rest of the handshake deadline, then the idle deadline), its
 * send queue, the engine fed from completions, its end.
 *
 * In flight per connection: at most one receive (+ its linked timeout) and
 * one send. It is freed only once nothing of it is in flight; ending it
 * shuts the socket down first, so its receive completes at once. Output is
 * a queue of chunks, each allocated for what there is to send and freed
 * once sent, so an idle connection holds no buffer; above OUT_HIGH queued
 * it stops reading until its peer reads (back-pressure).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/wipe.h"
#include "uring/internal.h"

/* ---- submissions ---- */

void conn_arm_recv(struct hs_uring_conn *uc)
{
	struct loop *lp = uc->lp;
	uint64_t t = uring_now_ns(), left;
	struct io_uring_sqe *sqe;
	size_t len = BUF_SIZE;

	if (uc->recv_armed || uc->ending)
		return;
	if (!uc->handshaken)
		left = uc->deadline_ns > t ? uc->deadline_ns - t : 1;
	else
		left = (uint64_t)(lp->cfg->idle_ms ? lp->cfg->idle_ms : 60000) * 1000000u;
	uc->ts.tv_sec = (long long)(left / 1000000000u);
	uc->ts.tv_nsec = (long long)(left % 1000000000u);
	sqe = uring_sqe(lp, 2);
	if (uc->ktls != NULL) {
		ktls_prep_recv(uc, sqe);
	} else {
		/* before a hand-off, never read past the record the engine is completing */
		if (uc->align && hs_conn_input_wanted(uc->tls) < len)
			len = hs_conn_input_wanted(uc->tls);
		io_uring_prep_recv(sqe, uc->fd, NULL, len, 0);
	}
	sqe->flags |= IOSQE_BUFFER_SELECT | IOSQE_IO_LINK;
	sqe->buf_group = BUF_GROUP;
	io_uring_sqe_set_data64(sqe, uring_tag(uc, OP_RECV));
	sqe = uring_sqe(lp, 1);
	io_uring_prep_link_timeout(sqe, &uc->ts, 0);
	io_uring_sqe_set_data64(sqe, uring_tag(uc, OP_TIMEOUT));
	uc->recv_armed = true;
	uc->in_flight += 2;
}

/* One send for up to SEND_IOV queued chunks (sendmsg): small records go out together. */
static void arm_send(struct hs_uring_conn *uc)
{
	struct io_uring_sqe *sqe;
	size_t n = 0;

	if (uc->send_armed || uc->q_head == NULL || uc->ending)
		return;
	if (uc->ktls != NULL && ktls_before_send(uc) != 0)
		return; /* ended */
	if (sendbuf_want_zc(uc, uc->q_head)) {
		/* one chunk: result, then the notification (both counted in flight) */
		sqe = uring_sqe(uc->lp, 1);
		sendbuf_prep_zc(uc, uc->q_head, sqe);
		uc->send_armed = true;
		uc->in_flight += 2;
		return;
	}
	for (struct chunk *c = uc->q_head; c != NULL && n < SEND_IOV; c = c->next, n++) {
		uc->send_iov[n].iov_base = c->data + c->off;
		uc->send_iov[n].iov_len = c->len - c->off;
	}
	memset(&uc->send_msg, 0, sizeof(uc->send_msg));
	uc->send_msg.msg_iov = uc->send_iov;
	uc->send_msg.msg_iovlen = n;
	sqe = uring_sqe(uc->lp, 1);
	io_uring_prep_sendmsg(sqe, uc->fd, &uc->send_msg, MSG_NOSIGNAL);
	io_uring_sqe_set_data64(sqe, uring_tag(uc, OP_SEND));
	uc->send_armed = true;
	uc->in_flight++;
}

/* Put c, holding c->len bytes to send, at the end of the send queue. */
void chunk_queue(struct hs_uring_conn *uc, struct chunk *c)
{
	if (uc->q_tail != NULL)
		uc->q_tail->next = c;
	else
		uc->q_head = c;
	uc->q_tail = c;
	uc->queued += c->len;
}

/* Queue n bytes to send (a chunk of their own). */
int conn_queue(struct hs_uring_conn *uc, const uint8_t *p, size_t n)
{
	struct chunk *c = chunk_new(uc->lp, n);

	if (c == NULL)
		return HS_ERR_NOMEM;
	memcpy(c->data, p, n);
	chunk_queue(uc, c);
	return 0;
}

static void drop_head(struct hs_uring_conn *uc)
{
	struct chunk *c = uc->q_head;

	uc->q_head = c->next;
	if (uc->q_head == NULL)
		uc->q_tail = NULL;
	uc->queued -= c->len - c->off;
	if (c->zc_refs > 0)
		c->sent = true; /* the kernel still reads it: freed by its notification */
	else
		chunk_free(uc->lp, c);
}

/* Move the engine's queued records into the send queue, then send. */
int conn_flush(struct hs_uring_conn *uc)
{
	size_t want, n;
	int err;

	while (uc->ktls == NULL && (want = hs_conn_output_pending(uc->tls)) > 0) {
		struct chunk *c = chunk_new(uc->lp, want);

		if (c == NULL)
			return HS_ERR_NOMEM;
		err = hs_conn_pull(uc->tls, c->data, want, &n);
		if (err) {
			chunk_free(uc->lp, c);
			return err;
		}
		c->len = n;
		chunk_queue(uc, c);
	}
	arm_send(uc);
	return 0;
}

/* ---- life ---- */

void conn_end(struct hs_uring_conn *uc, int err)
{
	struct loop *lp = uc->lp;

	if (uc->ending)
		return;
	uc->ending = true;
	uc->err = err;
	/* an end of stream without close_notify after the handshake is the peer's choice */
	if (err && !(err == HS_ERR_TLS_CLOSED && uc->handshaken)) {
		lp->st->failed++;
		if (uc->timed_out)
			lp->st->timed_out++;
	}
	if (lp->cfg->on_end != NULL)
		lp->cfg->on_end(lp->cfg->arg, uc, err);
	(void)shutdown(uc->fd, SHUT_RDWR); /* the receive in flight completes now */
}

void conn_free(struct hs_uring_conn *uc)
{
	struct loop *lp = uc->lp;

	if (uc->prev != NULL)
		uc->prev->next = uc->next;
	else
		lp->conns = uc->next;
	if (uc->next != NULL)
		uc->next->prev = uc->prev;
	while (uc->q_head != NULL)
		drop_head(uc);
	records_free(uc);
	close(uc->fd);
	if (uc->ktls != NULL) {
		hs_ktls_wipe(uc->ktls);
		free(uc->ktls);
	}
	hs_conn_free(uc->tls);
	free(uc);
	lp->active--;
	lp->ended++;
}

void conn_accept(struct loop *lp, int fd)
{
	const struct hs_uring_config *cfg = lp->cfg;
	struct hs_uring_conn *uc = aligned_alloc(16, sizeof(*uc));

	lp->st->accepted++;
	if (uc == NULL) {
		close(fd);
		lp->st->failed++;
		return;
	}
	memset(uc, 0, sizeof(*uc));
	if (hs_conn_new(&uc->tls, cfg->tls) != 0) {
		close(fd);
		free(uc);
		lp->st->failed++;
		return;
	}
	uc->lp = lp;
	uc->fd = fd;
	uc->want_ktls = cfg->ktls != 0;
	uc->next = lp->conns;
	if (lp->conns != NULL)
		lp->conns->prev = uc;
	lp->conns = uc;
	lp->active++;
	if (lp->active > lp->st->active_peak)
		lp->st->active_peak = lp->active;
	uc->deadline_ns = uring_now_ns() + (uint64_t)(cfg->handshake_ms ? cfg->handshake_ms : 10000) *
						  1000000u;
	conn_arm_recv(uc);
}

/* ---- our records: the engine ---- */

/* Application data for the application. */
void conn_deliver(struct hs_uring_conn *uc, const uint8_t *p, size_t n)
{
	const struct hs_uring_config *cfg = uc->lp->cfg;

	uc->bytes_in += n;
	uc->lp->st->bytes_in += n;
	if (cfg->on_data != NULL)
		cfg->on_data(cfg->arg, uc, p, n);
}

/* Events, close_notify and errors after the engine moved; then its output. */
int conn_events(struct hs_uring_conn *uc)
{
	const struct hs_uring_config *cfg = uc->lp->cfg;
	enum hs_event ev;

	while ((ev = hs_conn_next_event(uc->tls)) != HS_EVENT_NONE) {
		if (ev == HS_EVENT_HANDSHAKE_DONE && !uc->handshaken) {
			uc->handshaken = true;
			uc->lp->st->handshakes++;
			if (cfg->on_handshake != NULL)
				cfg->on_handshake(cfg->arg, uc);
		}
	}
	if (hs_conn_peer_closed(uc->tls) && !uc->finish) {
		/* answer close_notify with ours; its error is sticky, read below */
		uc->ok_end = hs_conn_close(uc->tls) == 0;
		uc->finish = true;
	}
	if (hs_conn_error(uc->tls) != 0)
		uc->finish = true; /* the alert goes out first */
	return conn_flush(uc);
}

/* After hs_conn_feed: the application data it decrypted, the events, the output. */
static int drive(struct hs_uring_conn *uc)
{
	size_t n;

	while (hs_conn_read(uc->tls, uc->lp->scratch, sizeof(uc->lp->scratch), &n) == 0 && n > 0) {
		conn_deliver(uc, uc->lp->scratch, n);
		wipe(uc->lp->scratch, n);
	}
	return conn_events(uc);
}

void conn_feed(struct hs_uring_conn *uc, const uint8_t *p, size_t len)
{
	size_t off = 0, used;
	int err = 0;

	while (off < len && !uc->finish) {
		err = hs_conn_feed(uc->tls, p + off, len - off, &used);
		off += used;
		if (err == 0)
			err = drive(uc);
		if (err)
			break;
		if (used == 0 && !uc->finish) {
			err = HS_ERR_INTERNAL; /* the engine took nothing and wants nothing read */
			break;
		}
	}
	if (err && !uc->finish) {
		(void)conn_flush(uc); /* the engine's alert, if it queued one */
		uc->finish = true;
	}
}

static int end_error(const struct hs_uring_conn *uc)
{
	int err = uc->ktls != NULL ? hs_ktls_error(uc->ktls) : hs_conn_error(uc->tls);

	return uc->ok_end ? 0 : err ? err : HS_ERR_TLS_CLOSED;
}

/* Everything sent after close_notify or an alert: end. */
static void maybe_finish(struct hs_uring_conn *uc)
{
	if (!uc->finish || uc->ending || uc->send_armed || uc->q_head != NULL)
		return;
	if (uc->ktls != NULL)
		ktls_finish(uc);
	else if (hs_conn_output_pending(uc->tls) == 0)
		conn_end(uc, end_error(uc));
}

/* After a completion: hand off, finish, or read on (unless back-pressured). */
void conn_kick(struct hs_uring_conn *uc)
{
	if (uc->ending)
		return;
	if (uc->want_ktls && uc->handshaken && !uc->finish) {
		if (uc->send_armed || uc->q_head != NULL)
			return; /* the hand-off waits for every record to be out */
		ktls_try(uc);
	}
	maybe_finish(uc);
	if (!uc->ending && !uc->finish && uc->queued < OUT_HIGH)
		conn_arm_recv(uc);
}

void conn_on_recv(struct hs_uring_conn *uc, int res, unsigned flags)
{
	struct loop *lp = uc->lp;

	uc->recv_armed = false;
	uc->in_flight--;
	if (res > 0 && (flags & IORING_CQE_F_BUFFER)) {
		unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;

		if (!uc->ending && uc->ktls != NULL)
			ktls_on_recv(uc, uring_buf(lp, bid), (size_t)res);
		else if (!uc->ending && uc->handshaken && !uc->want_ktls)
			records_on_recv(uc, uring_buf(lp, bid), (size_t)res);
		else if (!uc->ending)
			conn_feed(uc, uring_buf(lp, bid), (size_t)res);
		uring_give_back(lp, bid);
	} else if (res == -ENOBUFS && !uc->ending) {
		uc->next_wait = lp->wait_head; /* re-armed once this batch is handled */
		lp->wait_head = uc;
		return;
	} else if (!uc->ending) {
		/* 0: end of stream; -ECANCELED: the linked timeout fired */
		int err = res == 0 ? end_error(uc) : HS_ERR_TLS_IO;

		if (res == -ECANCELED) {
			uc->timed_out = true;
			err = HS_ERR_TLS_TIMEOUT;
		}
		conn_end(uc, err);
		return;
	}
	conn_kick(uc);
}

void conn_on_send(struct hs_uring_conn *uc, int res)
{
	uc->send_armed = false;
	uc->in_flight--;
	if (res < 0) {
		conn_end(uc, HS_ERR_TLS_IO);
		return;
	}
	for (size_t left = (size_t)res; left > 0 && uc->q_head != NULL;) {
		struct chunk *c = uc->q_head;
		size_t k = c->len - c->off < left ? c->len - c->off : left;

		c->off += k;
		uc->queued -= k;
		left -= k;
		if (c->off == c->len)
			drop_head(uc); /* sent: freed (and wiped) at once */
	}
	if (uc->ending)
		return;
	if (uc->q_head == NULL && uc->handshaken && !uc->finish && uc->lp->cfg->on_drained != NULL)
		uc->lp->cfg->on_drained(uc->lp->cfg->arg, uc);
	if (conn_flush(uc) != 0) {
		conn_end(uc, HS_ERR_NOMEM);
		return;
	}
	conn_kick(uc);
}

/* ---- the public calls on a connection ---- */

int hs_uring_send(struct hs_uring_conn *uc, const void *p, size_t n)
{
	const uint8_t *b = p;
	int err;

	if (uc->ending || uc->finish)
		return HS_ERR_TLS_CLOSED;
	/* kernel path: the kernel seals it; ours: sealed in the chunk that is sent (one copy) */
	err = uc->ktls != NULL ? conn_queue(uc, b, n) : records_send(uc, b, n);
	if (err)
		return err;
	uc->bytes_out += n;
	uc->lp->st->bytes_out += n;
	arm_send(uc);
	return 0;
}

void hs_uring_close(struct hs_uring_conn *uc)
{
	if (uc->ending || uc->finish)
		return;
	uc->finish = true;
	uc->ok_end = true;
	if (uc->ktls == NULL) {
		uc->ok_end = hs_conn_close(uc->tls) == 0; /* else the sticky error ends it */
		(void)conn_flush(uc);
	}
	/* the kernel path sends close_notify once the queue is out (ktls_finish) */
}

const struct hs_conn *hs_uring_tls(const struct hs_uring_conn *uc) { return uc->tls; }

const char *hs_uring_record_path(const struct hs_uring_conn *uc)
{
	return uc->ktls != NULL ? "kernel" : "user";
}

void hs_uring_conn_bytes(const struct hs_uring_conn *uc, uint64_t *in, uint64_t *out)
{
	*in = uc->bytes_in;
	*out = uc->bytes_out;
}

int hs_uring_fd(const struct hs_uring_conn *uc) { return uc->fd; }
