/* hs-server --uring: many connections at once on the io_uring loop (uring/). */
#ifndef HS_PROGRAMS_SERVE_URING_H
#define HS_PROGRAMS_SERVE_URING_H

#include <stddef.h>

#include "hs/tls.h"

struct uring_opts {
	int echo;              /* else: answer the first request with page() and close */
	long max_conns;        /* 0 = until SIGINT/SIGTERM */
	unsigned max_active;   /* 0 = the loop's default */
	unsigned timeout_ms;   /* handshake deadline */
	size_t (*page)(struct hs_conn *c, char *out, size_t cap);
};

/*
 * 0 and *served = 1 when it ran; *served = 0 when io_uring is unavailable
 * here (the reason printed): the caller falls back to its blocking loop.
 */
int serve_uring(const struct hs_config *cfg, int lsock, const struct uring_opts *o, int *served);

#endif
