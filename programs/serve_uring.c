/*
 * hs-server --uring: the io_uring loop (uring/) with hs-server's two
 * behaviours, --echo and the --www page, one status line per connection
 * (-v) and a summary at the end. SIGINT/SIGTERM end it cleanly.
 */
#define _POSIX_C_SOURCE 200809L
#include "serve_uring.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifdef HS_HAVE_URING
#include "hs/uring.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct ctx {
	const struct uring_opts *o;
};

static void on_data(void *arg, struct hs_uring_conn *uc, const uint8_t *p, size_t n)
{
	const struct ctx *x = arg;
	char page[2048];
	size_t len;

	if (x->o->echo) {
		if (hs_uring_send(uc, p, n) != 0)
			hs_uring_close(uc);
		return;
	}
	len = x->o->page((struct hs_conn *)hs_uring_tls(uc), page, sizeof(page));
	if (hs_uring_send(uc, page, len) != 0)
		note(1, "cannot send the page");
	hs_uring_close(uc);
}

static void on_end(void *arg, struct hs_uring_conn *uc, int err)
{
	char desc[512];

	(void)arg;
	if (err == 0 || err == HS_ERR_TLS_CLOSED) {
		if (hs_conn_handshake_done(hs_uring_tls(uc))) {
			describe(hs_uring_tls(uc), desc, sizeof(desc));
			note(2, "%s records=%s", desc, hs_uring_record_path(uc));
		}
		return;
	}
	note(1, "connection failed: %s%s", hs_strerror(err),
	     err == HS_ERR_TLS_TIMEOUT ? " (handshake or idle deadline)" : "");
}

int serve_uring(const struct hs_config *cfg, int lsock, const struct uring_opts *o, int *served)
{
	struct ctx x = { .o = o };
	struct hs_uring_config ucfg = {
		.listen_fd = lsock, .tls = cfg, .max_active = o->max_active,
		.max_conns = (unsigned)o->max_conns, .handshake_ms = o->timeout_ms,
		.ktls = (unsigned)o->ktls, .stop = &stop_flag, .on_data = on_data, .on_end = on_end, .arg = &x,
	};
	struct hs_uring_stats st;
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: the wait returns */
	char why[200];
	int err;

	*served = 0;
	if (hs_uring_probe(why, sizeof(why)) != 0) {
		note(1, "io_uring unavailable (%s): serving one connection at a time", why);
		return 0;
	}
	*served = 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	note(1, "io_uring: serving up to %u connections at once",
	     o->max_active ? o->max_active : 1024);
	err = hs_uring_serve(&ucfg, &st);
	note(1,
	     "io_uring: %llu accepted, %llu handshakes, %llu failed (%llu timed out), "
	     "%u at once at most, %llu bytes in, %llu out",
	     (unsigned long long)st.accepted, (unsigned long long)st.handshakes,
	     (unsigned long long)st.failed, (unsigned long long)st.timed_out, st.active_peak,
	     (unsigned long long)st.bytes_in, (unsigned long long)st.bytes_out);
	note(2, "io_uring: records after the handshake: %llu opened in place, %llu carried across receives",
	     (unsigned long long)st.records_in_place, (unsigned long long)st.records_carried);
	if (o->ktls)
		note(1, "io_uring: %llu connections on kernel TLS, %llu kept on our records "
			"(the kernel could not)",
		     (unsigned long long)st.ktls, (unsigned long long)st.ktls_refused);
	if (err)
		return fail(EXIT_NET, "io_uring loop: %s", hs_uring_last_error());
	return 0;
}
#else
int serve_uring(const struct hs_config *cfg, int lsock, const struct uring_opts *o, int *served)
{
	(void)cfg;
	(void)lsock;
	(void)o;
	*served = 0;
	note(1, "io_uring unavailable (built without liburing): serving one connection at a time");
	return 0;
}
#endif
