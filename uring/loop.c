/*
 * The io_uring server loop (include/hs/uring.h): the ring, the ring of
 * provided receive buffers, multishot accept paced by the limits, and the
 * dispatch of completions to their connection (conn.c). One thread.
 *
 * Every submission carries user_data = the connection's address with the
 * operation in its low bits, or a bare operation for the listening socket.
 * Receives take buffers from one provided-buffer ring (IOSQE_BUFFER_SELECT):
 * an idle connection holds no receive buffer. A connection whose receive
 * found the ring empty (-ENOBUFS) waits on a list and is re-armed when the
 * batch of completions is done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/wipe.h"
#include "uring/internal.h"

static char last_error[160];

const char *hs_uring_last_error(void) { return last_error; }

static void set_error(const char *what, int e)
{
	snprintf(last_error, sizeof(last_error), "%s: %s%s", what, strerror(e),
		 e == ENOSYS || e == EPERM
			 ? " (io_uring disabled by sysctl or seccomp, or a kernel without it?)"
			 : "");
}

uint64_t uring_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* An SQE; submits first when the queue is full. need = 2 keeps a linked pair together. */
struct io_uring_sqe *uring_sqe(struct loop *lp, unsigned need)
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

uint8_t *uring_buf(struct loop *lp, unsigned bid) { return lp->bufs + (size_t)bid * BUF_SIZE; }

void uring_give_back(struct loop *lp, unsigned bid)
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
	sendbuf_teardown(lp);
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

/* ---- accept ---- */

static void arm_accept(struct loop *lp)
{
	struct io_uring_sqe *sqe = uring_sqe(lp, 1);

	io_uring_prep_multishot_accept(sqe, lp->cfg->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	io_uring_sqe_set_data64(sqe, OP_ACCEPT);
	lp->accept_armed = true;
}

static void stop_accept(struct loop *lp)
{
	struct io_uring_sqe *sqe;

	if (!lp->accept_armed || lp->accept_stopping)
		return;
	sqe = uring_sqe(lp, 1);
	io_uring_prep_cancel64(sqe, OP_ACCEPT, 0);
	io_uring_sqe_set_data64(sqe, OP_CANCEL);
	lp->accept_stopping = true;
}

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
			conn_accept(lp, cqe->res);
		return;
	case OP_CANCEL:
		return;
	case OP_TIMEOUT:
		uc->in_flight--;
		if (cqe->res == -ETIME)
			uc->timed_out = true;
		break;
	case OP_RECV:
		conn_on_recv(uc, cqe->res, cqe->flags);
		break;
	case OP_SEND:
		conn_on_send(uc, cqe->res);
		break;
	case OP_SEND_ZC: /* user_data is the chunk's address */
		uc = sendbuf_on_zc((struct chunk *)(void *)uc, cqe->res, cqe->flags);
		break;
	}
	if (uc->ending && uc->in_flight == 0)
		conn_free(uc);
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
		conn_end(uc, HS_ERR_TLS_CLOSED);
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
	if (err == 0)
		sendbuf_setup(lp);
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
			conn_arm_recv(uc);
		}
	}
	teardown(lp);
	free(lp);
	return err;
}
