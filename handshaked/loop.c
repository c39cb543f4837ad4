/*
 * The daemon's event loop (loop.h): one-shot readiness watches, on
 * io_uring (one IORING_OP_POLL_ADD per watch, removed with POLL_REMOVE)
 * or on epoll (EPOLLONESHOT, re-armed with EPOLL_CTL_MOD).
 *
 * Descriptors here often share their open file with someone else (the
 * kernel's socket, the application's): closing ours does not end the file,
 * so an epoll registration would outlive it. The caller unwatches before
 * closing; epoll then deletes the registration, io_uring cancels the poll
 * (its -ECANCELED report carries the old tag, which the caller ignores).
 */
#define _GNU_SOURCE
#include "handshaked/loop.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#ifdef HSD_HAVE_URING
#include <liburing.h>
#endif

#define TAG_INTERNAL 0 /* the completions of POLL_REMOVE: nothing to report */

struct hsd_loop {
	enum hsd_backend kind;
	int ep; /* epoll */
#ifdef HSD_HAVE_URING
	struct io_uring ring;
#endif
};

static unsigned to_events(unsigned mask)
{
	unsigned e = 0;

	if (mask & (POLLIN | POLLERR | POLLHUP | POLLRDHUP))
		e |= HSD_IN;
	if (mask & (POLLOUT | POLLERR | POLLHUP))
		e |= HSD_OUT;
	return e;
}

#ifdef HSD_HAVE_URING
static int uring_open(struct hsd_loop *lp, char *why, size_t cap)
{
	struct io_uring_probe *pr;
	int r = io_uring_queue_init(256, &lp->ring, 0);

	if (r < 0) {
		snprintf(why, cap, "io_uring_setup: %s", strerror(-r));
		return -1;
	}
	pr = io_uring_get_probe_ring(&lp->ring);
	r = pr != NULL && io_uring_opcode_supported(pr, IORING_OP_POLL_ADD) &&
	    io_uring_opcode_supported(pr, IORING_OP_POLL_REMOVE);
	if (pr != NULL)
		io_uring_free_probe(pr);
	if (!r) {
		io_uring_queue_exit(&lp->ring);
		snprintf(why, cap, "io_uring without POLL_ADD/POLL_REMOVE");
		return -1;
	}
	lp->kind = HSD_LOOP_URING;
	return 0;
}

static struct io_uring_sqe *sqe_get(struct hsd_loop *lp)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&lp->ring);

	if (sqe == NULL) { /* full: hand what is queued to the kernel first */
		(void)io_uring_submit(&lp->ring);
		sqe = io_uring_get_sqe(&lp->ring);
	}
	return sqe;
}
#else
static int uring_open(struct hsd_loop *lp, char *why, size_t cap)
{
	(void)lp;
	snprintf(why, cap, "built without liburing");
	return -1;
}
#endif

int hsd_loop_new(struct hsd_loop **out, enum hsd_backend want, char *why, size_t cap)
{
	struct hsd_loop *lp = calloc(1, sizeof(*lp));
	char local[128];

	if (why == NULL || cap == 0) {
		why = local;
		cap = sizeof(local);
	}
	why[0] = '\0';
	if (lp == NULL)
		return -1;
	lp->ep = -1;
	if (want != HSD_LOOP_EPOLL && uring_open(lp, why, cap) == 0) {
		*out = lp;
		return 0;
	}
	if (want == HSD_LOOP_URING) {
		free(lp);
		return -1;
	}
	lp->ep = epoll_create1(EPOLL_CLOEXEC);
	if (lp->ep < 0) {
		snprintf(why, cap, "epoll_create1: %s", strerror(errno));
		free(lp);
		return -1;
	}
	lp->kind = HSD_LOOP_EPOLL;
	*out = lp;
	return 0;
}

void hsd_loop_free(struct hsd_loop *lp)
{
	if (lp == NULL)
		return;
#ifdef HSD_HAVE_URING
	if (lp->kind == HSD_LOOP_URING)
		io_uring_queue_exit(&lp->ring);
#endif
	if (lp->ep >= 0)
		close(lp->ep);
	free(lp);
}

const char *hsd_loop_name(const struct hsd_loop *lp)
{
	return lp->kind == HSD_LOOP_URING ? "io_uring" : "epoll";
}

int hsd_loop_watch(struct hsd_loop *lp, int fd, unsigned events, uint64_t tag)
{
	unsigned mask = ((events & HSD_IN) ? POLLIN | POLLRDHUP : 0) | ((events & HSD_OUT) ? POLLOUT : 0);

#ifdef HSD_HAVE_URING
	if (lp->kind == HSD_LOOP_URING) {
		struct io_uring_sqe *sqe = sqe_get(lp);

		if (sqe == NULL) {
			errno = EBUSY;
			return -1;
		}
		io_uring_prep_poll_add(sqe, fd, mask);
		io_uring_sqe_set_data64(sqe, tag);
		return 0;
	}
#endif
	struct epoll_event e = { .events = mask | EPOLLONESHOT, .data.u64 = tag };

	if (epoll_ctl(lp->ep, EPOLL_CTL_MOD, fd, &e) == 0)
		return 0;
	return errno == ENOENT ? epoll_ctl(lp->ep, EPOLL_CTL_ADD, fd, &e) : -1;
}

void hsd_loop_unwatch(struct hsd_loop *lp, int fd, uint64_t tag, int armed)
{
#ifdef HSD_HAVE_URING
	if (lp->kind == HSD_LOOP_URING) {
		struct io_uring_sqe *sqe = armed ? sqe_get(lp) : NULL;

		(void)fd;
		if (sqe != NULL) { /* -ENOENT if it already reported: harmless */
			io_uring_prep_poll_remove(sqe, tag);
			io_uring_sqe_set_data64(sqe, TAG_INTERNAL);
			(void)io_uring_submit(&lp->ring); /* before the caller closes fd */
		}
		return;
	}
#endif
	(void)tag;
	(void)armed; /* a one-shot registration that fired stays registered, disabled */
	(void)epoll_ctl(lp->ep, EPOLL_CTL_DEL, fd, NULL);
}

int hsd_loop_wait(struct hsd_loop *lp, int timeout_ms, struct hsd_event *ev, int cap)
{
	int n = 0;

#ifdef HSD_HAVE_URING
	if (lp->kind == HSD_LOOP_URING) {
		struct __kernel_timespec ts = { .tv_sec = timeout_ms / 1000,
						.tv_nsec = (long long)(timeout_ms % 1000) * 1000000 };
		struct io_uring_cqe *cqe;
		unsigned head, seen = 0;
		int r = io_uring_submit_and_wait_timeout(&lp->ring, &cqe, 1, timeout_ms >= 0 ? &ts : NULL,
							 NULL);

		if (r < 0 && r != -ETIME && r != -EINTR && r != -EAGAIN && r != -EBUSY)
			return -1;
		io_uring_for_each_cqe(&lp->ring, head, cqe)
		{
			uint64_t tag = io_uring_cqe_get_data64(cqe);

			if (n == cap)
				break;
			seen++;
			/* LIBURING_UDATA_TIMEOUT (all ones): liburing's own timeout on old kernels */
			if (tag == TAG_INTERNAL || tag == UINT64_MAX || cqe->res == -ECANCELED)
				continue;
			ev[n].tag = tag;
			ev[n++].events = cqe->res < 0 ? HSD_IN | HSD_OUT : to_events((unsigned)cqe->res);
		}
		io_uring_cq_advance(&lp->ring, seen);
		return n;
	}
#endif
	struct epoll_event e[64];

	if (cap > 64)
		cap = 64;
	n = epoll_wait(lp->ep, e, cap, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -1;
	for (int i = 0; i < n; i++) {
		ev[i].tag = e[i].data.u64;
		ev[i].events = to_events(e[i].events);
	}
	return n;
}
