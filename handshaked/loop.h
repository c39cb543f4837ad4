/*
 * handshaked/loop.c: the daemon's one event loop, a readiness source for
 * many descriptors at once on one thread: io_uring (IORING_OP_POLL_ADD)
 * where this process may use it, else epoll. Each watch is one-shot: it
 * reports once, then the caller arms it again if it still waits.
 *
 * Why not uring/'s hs_uring_serve: that loop accepts from one listening
 * socket and serves one server configuration with its own receives and
 * sends for the life of each connection; the daemon's sockets come from
 * the kernel (ACCEPT) or an application (SCM_RIGHTS), in either role, and
 * leave it once kernel TLS is on them, next to the netlink, signal and
 * hand-off descriptors. What it needs from io_uring is readiness only.
 */
#ifndef HS_HANDSHAKED_LOOP_H
#define HS_HANDSHAKED_LOOP_H

#include <stddef.h>
#include <stdint.h>

enum { HSD_IN = 1, HSD_OUT = 2 };
enum hsd_backend { HSD_LOOP_AUTO = 0, HSD_LOOP_URING = 1, HSD_LOOP_EPOLL = 2 };

struct hsd_loop;

struct hsd_event {
	uint64_t tag; /* what hsd_loop_watch was given */
	unsigned events; /* HSD_IN / HSD_OUT; an error or hang-up reports both */
};

/* AUTO: io_uring if it works here, else epoll (why says why not, if asked). */
int hsd_loop_new(struct hsd_loop **out, enum hsd_backend want, char *why, size_t cap);
void hsd_loop_free(struct hsd_loop *lp);
const char *hsd_loop_name(const struct hsd_loop *lp); /* "io_uring" or "epoll" */
/*
 * Report fd once when it is ready for events (HSD_IN and/or HSD_OUT) with
 * tag. Watching an fd again (after its report, or to change events)
 * replaces the watch. 0 or -1 (errno).
 */
int hsd_loop_watch(struct hsd_loop *lp, int fd, unsigned events, uint64_t tag);
/*
 * Stop watching fd before closing it (armed: its last watch, under tag, has
 * not reported yet). A report already on its way for the old tag may still
 * come: tags carry a generation so that the caller can tell.
 */
void hsd_loop_unwatch(struct hsd_loop *lp, int fd, uint64_t tag, int armed);
/* Wait up to timeout_ms (-1: no limit) for reports; their count (0 on timeout or EINTR). */
int hsd_loop_wait(struct hsd_loop *lp, int timeout_ms, struct hsd_event *ev, int cap);

#endif
