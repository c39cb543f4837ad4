/*
 * The io_uring server loop (uring.h). One ring, one thread.
 *
 * Every submission carries user_data = the connection's address with the
 * operation in its low bits (struct uconn is 16-byte aligned), or a bare
 * operation for the listening socket. In flight per connection: at most one
 * receive (always linked to a timeout: the rest of the handshake deadline,
 * then the idle deadline) and one send. A connection is freed only when
 * nothing of it is in flight; ending one shuts its socket down first, so
 * its receive completes at once.
 *
 * Receives take buffers from one provided-buffer ring (IOSQE_BUFFER_SELECT):
 * an idle connection holds no receive buffer. The engine copies what it is
 * fed, so a buffer goes back to the ring as soon as its completion is
 * handled. A connection whose receive found the ring empty (-ENOBUFS) waits
 * on a list and is re-armed when the batch of completions is done.
 */
#define _GNU_SOURCE
#include "hs/uring.h"

#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <hs/err.h>

#include "base/wipe.h"

#define RING_ENTRIES 512
#define BUF_GROUP 1
#define BUF_COUNT 256      /* receive buffers shared by all connections */
#define BUF_SIZE 16384     /* one full TLS record body fits a buffer */
#define OUT_HIGH (256 * 1024) /* queued output above which a connection stops reading */

enum op { OP_ACCEPT = 1, OP_RECV = 2, OP_SEND = 3, OP_TIMEOUT = 4, OP_CANCEL = 5 };
#define OP_MASK 7u

struct loop;

struct hs_uring_conn {
	struct loop *lp;
	struct hs_conn *tls;
	int fd;
	unsigned in_flight;        /* submissions whose completion is still due */
	bool recv_armed, send_armed;
	bool ending;               /* shut down; freed when in_flight reaches 0 */
	bool finish;               /* end once the output is sent (alert, close_notify) */
	bool timed_out, handshaken, ok_end;
	int err;
	uint64_t deadline_ns;      /* handshake deadline (absolute, CLOCK_MONOTONIC) */
	struct __kernel_timespec ts; /* the linked timeout of the receive in flight */
	uint8_t *out;              /* records waiting to be sent: allocated on demand */
	size_t out_len, out_off, out_cap;
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
	bool accept_armed, accept_stopping;
	struct hs_uring_conn *wait_head;
	struct hs_uring_conn *conns;
	bool stopping;
	uint8_t scratch[BUF_SIZE]; /* decrypted application data on its way to on_data */
};

static char last_error[160];

const char *hs_uring_last_error(void) { return last_error; }

static void set_error(const char *what, int e)
{
	snprintf(last_error, sizeof(last_error), "%s: %s%s", what, strerror(e),
		 e == ENOSYS || e == EPERM
			 ? " (io_uring disabled by sysctl or seccomp, or a kernel without it?)"
			 : "");
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t tag(const struct hs_uring_conn *uc, enum op op)
{
	return (uint64_t)(uintptr_t)uc | op;
}

/* An SQE; submits first when the queue is full. need = 2 keeps a linked pair together. */
static struct io_uring_sqe *get_sqe(struct loop *lp, unsigned need)
{
	if (io_uring_sq_space_left(&lp->ring) < need)
		(void)io_uring_submit(&lp->ring);
	return io_uring_get_sqe(&lp->ring);
}

/* ---- setup ---- */

static int setup_buffers(struct loop *lp)
{
	size_t ring_bytes = BUF_COUNT * sizeof(struct io_uring_buf);
	struct io_uring_buf_reg reg = { 0 };
	int r;

	lp->br = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (lp->br == MAP_FAILED) {
		lp->br = NULL;
		set_error("mmap", errno);
		return HS_ERR_NOMEM;
	}
	reg.ring_addr = (uint64_t)(uintptr_t)lp->br;
	reg.ring_entries = BUF_COUNT;
	reg.bgid = BUF_GROUP;
	r = io_uring_register_buf_ring(&lp->ring, &reg, 0);
	if (r < 0) {
		set_error("io_uring_register_buf_ring (Linux >= 5.19)", -r);
		return HS_ERR_UNSUPPORTED;
	}
	lp->bufs = malloc((size_t)BUF_COUNT * BUF_SIZE);
	if (lp->bufs == NULL) {
		set_error("malloc", ENOMEM);
		return HS_ERR_NOMEM;
	}
	io_uring_buf_ring_init(lp->br);
	for (unsigned i = 0; i < BUF_COUNT; i++)
		io_uring_buf_ring_add(lp->br, lp->bufs + (size_t)i * BUF_SIZE, BUF_SIZE, (unsigned short)i,
				      io_uring_buf_ring_mask(BUF_COUNT), (int)i);
	io_uring_buf_ring_advance(lp->br, BUF_COUNT);
	return 0;
}

static void give_back(struct loop *lp, unsigned bid)
{
	io_uring_buf_ring_add(lp->br, lp->bufs + (size_t)bid * BUF_SIZE, BUF_SIZE, (unsigned short)bid,
			      io_uring_buf_ring_mask(BUF_COUNT), 0);
	io_uring_buf_ring_advance(lp->br, 1);
}

static void teardown(struct loop *lp)
{
	if (lp->br != NULL) {
		(void)io_uring_unregister_buf_ring(&lp->ring, BUF_GROUP);
		munmap(lp->br, BUF_COUNT * sizeof(struct io_uring_buf));
	}
	if (lp->bufs != NULL) {
		/* the buffers held ciphertext only; wiped anyway, it costs little here */
		wipe(lp->bufs, (size_t)BUF_COUNT * BUF_SIZE);
		free(lp->bufs);
	}
	io_uring_queue_exit(&lp->ring);
}

static int ring_init(struct loop *lp)
{
	struct io_uring_params p = { 0 };
	int r;

	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = RING_ENTRIES * 8;
	r = io_uring_queue_init_params(RING_ENTRIES, &lp->ring, &p);
	if (r < 0) {
		set_error("io_uring_setup", -r);
		return HS_ERR_UNSUPPORTED;
	}
	if (!(p.features & IORING_FEAT_NODROP)) {
		io_uring_queue_exit(&lp->ring);
		set_error("io_uring without IORING_FEAT_NODROP (Linux >= 5.5)", ENOTSUP);
		return HS_ERR_UNSUPPORTED;
	}
	return 0;
}

int hs_uring_probe(char *why, size_t cap)
{
	struct loop *lp = calloc(1, sizeof(*lp));
	struct io_uring_probe *pr;
	int err;

	if (lp == NULL)
		return HS_ERR_NOMEM;
	err = ring_init(lp);
	if (err == 0) {
		pr = io_uring_get_probe_ring(&lp->ring);
		if (pr == NULL || !io_uring_opcode_supported(pr, IORING_OP_ACCEPT) ||
		    !io_uring_opcode_supported(pr, IORING_OP_RECV) ||
		    !io_uring_opcode_supported(pr, IORING_OP_SEND) ||
		    !io_uring_opcode_supported(pr, IORING_OP_LINK_TIMEOUT)) {
			set_error("io_uring lacks accept/recv/send/link-timeout", ENOTSUP);
			err = HS_ERR_UNSUPPORTED;
		}
		if (pr != NULL)
			io_uring_free_probe(pr);
		if (err == 0)
			err = setup_buffers(lp);
		teardown(lp);
	}
	if (err && why != NULL && cap > 0)
		snprintf(why, cap, "%s", last_error);
	free(lp);
	return err;
}

/* ---- submissions ---- */

static void arm_accept(struct loop *lp)
{
	struct io_uring_sqe *sqe = get_sqe(lp, 1);

	io_uring_prep_multishot_accept(sqe, lp->cfg->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	io_uring_sqe_set_data64(sqe, OP_ACCEPT);
	lp->accept_armed = true;
}

static void stop_accept(struct loop *lp)
{
	struct io_uring_sqe *sqe;

	if (!lp->accept_armed || lp->accept_stopping)
		return;
	sqe = get_sqe(lp, 1);
	io_uring_prep_cancel64(sqe, OP_ACCEPT, 0);
	io_uring_sqe_set_data64(sqe, OP_CANCEL);
	lp->accept_stopping = true;
}

static void arm_recv(struct hs_uring_conn *uc)
{
	struct loop *lp = uc->lp;
	uint64_t t = now_ns(), left;
	struct io_uring_sqe *sqe;

	if (uc->recv_armed || uc->ending)
		return;
	if (!uc->handshaken) {
		left = uc->deadline_ns > t ? uc->deadline_ns - t : 1;
	} else {
		unsigned ms = lp->cfg->idle_ms ? lp->cfg->idle_ms : 60000;
		left = (uint64_t)ms * 1000000u;
	}
	uc->ts.tv_sec = (long long)(left / 1000000000u);
	uc->ts.tv_nsec = (long long)(left % 1000000000u);
	sqe = get_sqe(lp, 2);
	io_uring_prep_recv(sqe, uc->fd, NULL, BUF_SIZE, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT | IOSQE_IO_LINK;
	sqe->buf_group = BUF_GROUP;
	io_uring_sqe_set_data64(sqe, tag(uc, OP_RECV));
	sqe = get_sqe(lp, 1);
	io_uring_prep_link_timeout(sqe, &uc->ts, 0);
	io_uring_sqe_set_data64(sqe, tag(uc, OP_TIMEOUT));
	uc->recv_armed = true;
	uc->in_flight += 2;
}

static void arm_send(struct hs_uring_conn *uc)
{
	struct io_uring_sqe *sqe;

	if (uc->send_armed || uc->out_off == uc->out_len)
		return;
	sqe = get_sqe(uc->lp, 1);
	io_uring_prep_send(sqe, uc->fd, uc->out + uc->out_off, uc->out_len - uc->out_off,
			   MSG_NOSIGNAL);
	io_uring_sqe_set_data64(sqe, tag(uc, OP_SEND));
	uc->send_armed = true;
	uc->in_flight++;
}

/* ---- one connection ---- */

/* Move the engine's queued records into uc->out (grown on demand), then send. */
static int flush(struct hs_uring_conn *uc)
{
	size_t want, n;
	int err;

	while ((want = hs_conn_output_pending(uc->tls)) > 0) {
		if (uc->out_off == uc->out_len)
			uc->out_off = uc->out_len = 0;
		if (uc->out_cap - uc->out_len < want) {
			size_t cap = uc->out_len + want;
			uint8_t *p;

			/* the old buffer held only records (ciphertext): no wipe */
			if (uc->send_armed) {
				/* the kernel reads out[] now: it must not move; send later */
				break;
			}
			p = realloc(uc->out, cap);
			if (p == NULL)
				return HS_ERR_NOMEM;
			uc->out = p;
			uc->out_cap = cap;
		}
		err = hs_conn_pull(uc->tls, uc->out + uc->out_len, uc->out_cap - uc->out_len, &n);
		if (err)
			return err;
		uc->out_len += n;
	}
	arm_send(uc);
	return 0;
}

static void end_conn(struct hs_uring_conn *uc, int err)
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

static void free_conn(struct hs_uring_conn *uc)
{
	struct loop *lp = uc->lp;

	if (uc->prev != NULL)
		uc->prev->next = uc->next;
	else
		lp->conns = uc->next;
	if (uc->next != NULL)
		uc->next->prev = uc->prev;
	close(uc->fd);
	hs_conn_free(uc->tls);
	free(uc->out);
	free(uc);
	lp->active--;
	lp->ended++;
}

/* Events, application data and output after the engine moved. */
static int drive(struct hs_uring_conn *uc)
{
	const struct hs_uring_config *cfg = uc->lp->cfg;
	enum hs_event ev;
	size_t n;
	int err;

	while ((ev = hs_conn_next_event(uc->tls)) != HS_EVENT_NONE) {
		if (ev == HS_EVENT_HANDSHAKE_DONE && !uc->handshaken) {
			uc->handshaken = true;
			uc->lp->st->handshakes++;
			if (cfg->on_handshake != NULL)
				cfg->on_handshake(cfg->arg, uc);
		}
	}
	for (;;) {
		err = hs_conn_read(uc->tls, uc->lp->scratch, sizeof(uc->lp->scratch), &n);
		if (err || n == 0)
			break;
		uc->lp->st->bytes_in += n;
		if (cfg->on_data != NULL)
			cfg->on_data(cfg->arg, uc, uc->lp->scratch, n);
		wipe(uc->lp->scratch, n);
	}
	if (hs_conn_peer_closed(uc->tls) && !uc->finish) {
		/* answer close_notify with ours; an error is sticky, read below */
		err = hs_conn_close(uc->tls);
		uc->finish = true;
		uc->ok_end = true;
	}
	err = hs_conn_error(uc->tls);
	if (err)
		uc->finish = true; /* the alert goes out first */
	return flush(uc);
}

static void maybe_finish(struct hs_uring_conn *uc)
{
	if (uc->finish && !uc->send_armed && uc->out_off == uc->out_len &&
	    hs_conn_output_pending(uc->tls) == 0)
		end_conn(uc, uc->ok_end ? 0 : (hs_conn_error(uc->tls) ? hs_conn_error(uc->tls)
								       : HS_ERR_TLS_CLOSED));
}

static void on_accept(struct loop *lp, int fd)
{
	struct hs_uring_conn *uc = aligned_alloc(16, sizeof(*uc));
	int err;

	lp->st->accepted++;
	if (uc == NULL) {
		close(fd);
		return;
	}
	memset(uc, 0, sizeof(*uc));
	uc->lp = lp;
	uc->fd = fd;
	err = hs_conn_new(&uc->tls, lp->cfg->tls);
	if (err) {
		close(fd);
		free(uc);
		lp->st->failed++;
		return;
	}
	uc->next = lp->conns;
	if (lp->conns != NULL)
		lp->conns->prev = uc;
	lp->conns = uc;
	lp->active++;
	if (lp->active > lp->st->active_peak)
		lp->st->active_peak = lp->active;
	uc->deadline_ns = now_ns() +
			  (uint64_t)(lp->cfg->handshake_ms ? lp->cfg->handshake_ms : 10000) * 1000000u;
	arm_recv(uc);
}

static void feed(struct hs_uring_conn *uc, const uint8_t *p, size_t len)
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
		(void)flush(uc); /* the engine's alert, if it queued one */
		uc->finish = true;
	}
}

static void on_recv(struct hs_uring_conn *uc, int res, unsigned flags)
{
	struct loop *lp = uc->lp;

	uc->recv_armed = false;
	uc->in_flight--;
	if (res > 0 && (flags & IORING_CQE_F_BUFFER)) {
		unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;

		if (!uc->ending)
			feed(uc, lp->bufs + (size_t)bid * BUF_SIZE, (size_t)res);
		give_back(lp, bid);
	} else if (res == -ENOBUFS && !uc->ending) {
		uc->next_wait = lp->wait_head; /* re-armed once this batch is handled */
		lp->wait_head = uc;
		return;
	} else if (!uc->ending) {
		/* 0: end of stream; -ECANCELED: the linked timeout fired */
		int err = res == 0 ? (uc->ok_end ? 0 : HS_ERR_TLS_CLOSED) : HS_ERR_TLS_IO;

		if (res == -ECANCELED)
			uc->timed_out = true, err = HS_ERR_TLS_TIMEOUT;
		end_conn(uc, err);
		return;
	}
	maybe_finish(uc);
	if (!uc->ending && !uc->finish && uc->out_len - uc->out_off < OUT_HIGH)
		arm_recv(uc);
}

static void on_send(struct hs_uring_conn *uc, int res)
{
	uc->send_armed = false;
	uc->in_flight--;
	if (res < 0) {
		end_conn(uc, HS_ERR_TLS_IO);
		return;
	}
	uc->out_off += (size_t)res;
	if (uc->out_off == uc->out_len) {
		/* idle: the output buffer goes back */
		free(uc->out);
		uc->out = NULL;
		uc->out_off = uc->out_len = uc->out_cap = 0;
	}
	if (uc->ending)
		return;
	if (flush(uc) != 0) {
		end_conn(uc, HS_ERR_NOMEM);
		return;
	}
	maybe_finish(uc);
	if (!uc->ending && !uc->finish && uc->out_len - uc->out_off < OUT_HIGH)
		arm_recv(uc);
}

/* ---- the public calls on a connection ---- */

int hs_uring_send(struct hs_uring_conn *uc, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t off = 0, took;
	int err;

	if (uc->ending || uc->finish)
		return HS_ERR_TLS_CLOSED;
	while (off < n) {
		err = hs_conn_write(uc->tls, b + off, n - off, &took);
		if (err)
			return err;
		off += took;
		uc->lp->st->bytes_out += took;
		if (took == 0 || off < n) {
			/* the engine's queue is full: move it into out[] (no send in flight may hold it) */
			if (uc->send_armed)
				return HS_ERR_WANT_WRITE;
			err = flush(uc);
			if (err)
				return err;
		}
	}
	return flush(uc);
}

void hs_uring_close(struct hs_uring_conn *uc)
{
	if (uc->ending || uc->finish)
		return;
	uc->finish = true;
	uc->ok_end = hs_conn_close(uc->tls) == 0; /* else the engine's sticky error ends it */
	(void)flush(uc);
}

const struct hs_conn *hs_uring_tls(const struct hs_uring_conn *uc) { return uc->tls; }


/* ---- the loop ---- */

static bool done(const struct loop *lp)
{
	const struct hs_uring_config *cfg = lp->cfg;

	if (cfg->stop != NULL && *cfg->stop)
		return lp->active == 0;
	return cfg->max_conns != 0 && lp->ended >= cfg->max_conns && lp->active == 0;
}

static void handle(struct loop *lp, struct io_uring_cqe *cqe)
{
	uint64_t ud = io_uring_cqe_get_data64(cqe);
	struct hs_uring_conn *uc = (struct hs_uring_conn *)(uintptr_t)(ud & ~(uint64_t)OP_MASK);

	switch (ud & OP_MASK) {
	case OP_ACCEPT:
		if (!(cqe->flags & IORING_CQE_F_MORE)) {
			lp->accept_armed = false;
			lp->accept_stopping = false;
		}
		if (cqe->res >= 0)
			on_accept(lp, cqe->res);
		return;
	case OP_CANCEL:
		return;
	case OP_TIMEOUT:
		uc->in_flight--;
		if (cqe->res == -ETIME)
			uc->timed_out = true;
		break;
	case OP_RECV:
		on_recv(uc, cqe->res, cqe->flags);
		break;
	case OP_SEND:
		on_send(uc, cqe->res);
		break;
	}
	if (uc->ending && uc->in_flight == 0)
		free_conn(uc);
}

/* Accept while below the limits, stop accepting at them. */
static void pace_accept(struct loop *lp)
{
	const struct hs_uring_config *cfg = lp->cfg;
	unsigned max_active = cfg->max_active ? cfg->max_active : 1024;
	bool stop = (cfg->stop != NULL && *cfg->stop) ||
		    (cfg->max_conns != 0 && lp->st->accepted >= cfg->max_conns) ||
		    lp->active >= max_active;

	if (stop)
		stop_accept(lp);
	else if (!lp->accept_armed)
		arm_accept(lp);
}

/* *stop: every connection ends now (shut down; freed as its completions come). */
static void end_all(struct loop *lp)
{
	lp->stopping = true;
	for (struct hs_uring_conn *uc = lp->conns; uc != NULL; uc = uc->next)
		end_conn(uc, HS_ERR_TLS_CLOSED);
}

int hs_uring_serve(const struct hs_uring_config *cfg, struct hs_uring_stats *st)
{
	struct hs_uring_stats local = { 0 };
	struct loop *lp = aligned_alloc(64, (sizeof(struct loop) + 63) & ~(size_t)63);
	int err;

	if (lp == NULL)
		return HS_ERR_NOMEM;
	memset(lp, 0, sizeof(*lp));
	lp->cfg = cfg;
	lp->st = st != NULL ? st : &local;
	memset(lp->st, 0, sizeof(*lp->st));
	err = ring_init(lp);
	if (err) {
		free(lp);
		return err;
	}
	err = setup_buffers(lp);
	while (err == 0 && !done(lp)) {
		struct io_uring_cqe *cqe;
		unsigned head, count = 0;
		int r;

		if (cfg->stop != NULL && *cfg->stop && !lp->stopping)
			end_all(lp);
		pace_accept(lp);
		r = io_uring_submit_and_wait(&lp->ring, 1);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
			set_error("io_uring_enter", -r);
			err = HS_ERR_TLS_IO;
			break;
		}
		io_uring_for_each_cqe(&lp->ring, head, cqe)
		{
			handle(lp, cqe);
			count++;
		}
		io_uring_cq_advance(&lp->ring, count);
		while (lp->wait_head != NULL) {
			struct hs_uring_conn *uc = lp->wait_head;

			lp->wait_head = uc->next_wait;
			uc->next_wait = NULL;
			arm_recv(uc);
		}
	}
	teardown(lp);
	free(lp);
	return err;
}
