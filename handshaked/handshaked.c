/*
 * handshaked: the handshake daemon. Answers the kernel's net/handshake
 * upcalls (as tlshd does, for NFS and NVMe over TLS) and the applications'
 * hand-offs with hs.
 *
 * One thread, one event loop (loop.c: io_uring where it works, else
 * epoll) over the notification socket, a signalfd, the hand-off socket and
 * every handshake in flight. On READY (or a freed slot) it takes requests
 * (ACCEPT) and hand-offs while fewer than max_handshakes are in flight;
 * each is a job: a non-blocking handshake (session.c) stepped whenever its
 * socket is ready, with its own deadline (the kernel's timeout, the
 * hand-off's), then kernel TLS and DONE or the hand-off's answer. The loop
 * sleeps until the next report or the earliest deadline: a peer that sends
 * nothing holds its slot until its deadline and nothing else. Requests
 * beyond the limit wait in the kernel's queue or the backlog. SIGHUP
 * reloads the configuration and credentials (handshakes in flight keep
 * the old ones); SIGINT/SIGTERM stop taking requests and finish those in
 * flight (bounded by their deadlines). Readiness goes to systemd
 * (sd_notify protocol) once the group is joined.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "handshaked/conf.h"
#include "handshaked/handoff.h"
#include "handshaked/keys.h"
#include "handshaked/loop.h"
#include "handshaked/netlink.h"
#include "handshaked/session.h"
#include "hs/tls.h"

#define DEFAULT_CONF "/etc/tlshd.conf"
#define REQUEST_MS 5000 /* a hand-off connection must send its request within this */

enum { TAG_NL = 1, TAG_SIG = 2, TAG_LISTEN = 3 }; /* a job's tag: (index + 1) << 32 | generation */

struct creds_ref { /* credentials shared by the jobs that started under them */
	struct hsd_creds cr;
	unsigned refs;
};

enum phase { FREE = 0, REQUEST, HANDSHAKE };

struct job {
	enum phase phase;
	uint32_t gen;             /* bumped when the slot frees: older reports are stale */
	int conn;                 /* the application's hand-off connection, -1 for an upcall */
	int watch_fd, armed;      /* the descriptor watched (-1: none yet); its watch not yet reported */
	struct hsd_req req;       /* req.fd: the socket to handshake on (-1 until known) */
	struct hsd_session *s;
	struct creds_ref *creds;
	int64_t deadline;
};

struct daemon {
	struct hsd_conf conf;
	const char *conf_path;
	char socket_path[sizeof(((struct hsd_conf *)0)->socket_path)];
	struct hsd_nl *mcast, *ctl;      /* NULL: no kernel upcalls here (hand-offs only) */
	struct hsd_loop *loop;
	int lsock, sfd;                  /* the hand-off socket (-1 if none), the signalfd */
	int listen_armed;
	int accept_more; /* the kernel may have requests queued: READY came, or we stopped at the limit */
	gid_t group;
	struct job *jobs;
	unsigned n_jobs, in_flight, peak;
	struct creds_ref *creds;
	int json, verbose;
	unsigned long done_ok, done_failed;
};

static struct daemon d;

static void logf_(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > d.verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "handshaked: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

static void creds_put(struct creds_ref *r)
{
	if (r != NULL && --r->refs == 0) {
		hsd_creds_free(&r->cr);
		free(r);
	}
}

static int load(const char *path, struct hsd_conf *conf, struct creds_ref **out)
{
	char why[512];
	struct creds_ref *r;

	if (hsd_conf_load(path, conf, why, sizeof(why)) != 0) {
		logf_(0, "configuration: %s", why);
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL || hsd_creds_load(conf, &r->cr, why, sizeof(why)) != 0) {
		logf_(0, "credentials: %s", r != NULL ? why : "out of memory");
		free(r);
		return -1;
	}
	if (r->cr.warning[0])
		logf_(0, "warning: %s: handshakes that need the system roots will fail", r->cr.warning);
	r->refs = 1;
	*out = r;
	return 0;
}

/*
 * The configuration's keyrings, linked into our session keyring as tlshd
 * does (so the keys the kernel names from them are ours to read), and the
 * kernel consumers' own (.nvme, .nfs, .nfsd) where they exist, as tlshd
 * always links them. At start and on each reload; a link that exists stays.
 */
static void link_keyrings(const struct hsd_conf *conf)
{
	static const char *const kernel_rings[] = { ".nvme", ".nfs", ".nfsd" };
	char why[256];

	for (size_t i = 0; i < conf->n_keyrings; i++) {
		int32_t k;

		if (strcmp(conf->keyrings[i], ".nvme") == 0 || strcmp(conf->keyrings[i], ".nfs") == 0 ||
		    strcmp(conf->keyrings[i], ".nfsd") == 0)
			continue; /* below */
		k = hsd_keyring_link(conf->keyrings[i], why, sizeof(why));
		if (k < 0)
			logf_(0, "%s", why);
		else
			logf_(1, "keyring %s (%d) linked into the session keyring", conf->keyrings[i], k);
	}
	for (size_t i = 0; i < sizeof(kernel_rings) / sizeof(kernel_rings[0]); i++)
		(void)hsd_keyring_link(kernel_rings[i], why, sizeof(why)); /* absent: no consumer loaded */
}

/* The job slots: as many as max_handshakes asks (grown on reload, never shrunk). */
static int grow_jobs(unsigned n)
{
	struct job *j;

	if (n <= d.n_jobs)
		return 0;
	j = realloc(d.jobs, n * sizeof(*j));
	if (j == NULL)
		return -1;
	memset(j + d.n_jobs, 0, (n - d.n_jobs) * sizeof(*j));
	d.jobs = j;
	d.n_jobs = n;
	return 0;
}

/* ---- jobs ---- */

static uint64_t tag_of(const struct job *j)
{
	return ((uint64_t)(j - d.jobs) + 1) << 32 | j->gen;
}

static const char *role(const struct job *j)
{
	return j->conn >= 0 ? "hand-off" : j->req.msg_type == HSD_MSG_CLIENTHELLO ? "client" : "server";
}

static void watch(struct job *j, int fd, unsigned events)
{
	if (j->watch_fd >= 0 && j->watch_fd != fd)
		hsd_loop_unwatch(d.loop, j->watch_fd, tag_of(j), j->armed);
	j->watch_fd = fd;
	j->armed = hsd_loop_watch(d.loop, fd, events, tag_of(j)) == 0;
	if (!j->armed) /* cannot happen short of memory: the deadline ends the job */
		logf_(0, "cannot watch a socket: %s", strerror(errno));
}

/* A slot for a new job, or NULL at the limit. */
static struct job *job_new(int conn)
{
	if (d.in_flight >= d.conf.max_handshakes)
		return NULL;
	for (unsigned i = 0; i < d.n_jobs; i++) {
		struct job *j = &d.jobs[i];

		if (j->phase != FREE)
			continue;
		j->phase = conn >= 0 ? REQUEST : HANDSHAKE;
		j->conn = conn;
		j->watch_fd = -1;
		j->armed = 0;
		j->s = NULL;
		memset(&j->req, 0, sizeof(j->req));
		j->req.fd = -1;
		j->creds = d.creds;
		j->creds->refs++;
		j->deadline = hsd_now_ms() + REQUEST_MS;
		if (++d.in_flight > d.peak)
			d.peak = d.in_flight;
		return j;
	}
	return NULL;
}

/* The job ends with res: report it (DONE or the answer), log it, free the slot. */
static void finish(struct job *j, const struct hsd_result *res)
{
	const char *peer = j->req.peername[0] ? j->req.peername : "(no name)";
	int err = 0;

	if (j->watch_fd >= 0)
		hsd_loop_unwatch(d.loop, j->watch_fd, tag_of(j), j->armed);
	if (j->conn >= 0) {
		if (j->phase == HANDSHAKE)
			hsd_handoff_answer(j->conn, res);
		close(j->conn);
	} else {
		err = hsd_nl_done(d.ctl, j->req.fd, res->status, res->remote, res->n_remote);
	}
	if (j->req.fd >= 0)
		close(j->req.fd); /* the kernel or the application holds its own reference */
	if (res->status == 0)
		d.done_ok++;
	else
		d.done_failed++;
	if (res->status == 0)
		logf_(1, "%s handshake with %s: %s, kernel TLS, %.1f ms", role(j), peer,
		      hs_suite_name(res->suite), res->ms);
	else
		logf_(0, "%s handshake with %s failed: %s (status %d)", role(j), peer, res->detail,
		      res->status);
	if (d.json) {
		printf("{\"role\": \"%s\", \"peer\": \"%s\", \"status\": %d, \"suite\": \"%s\", "
		       "\"ktls\": %s, \"ms\": %.1f, \"done_reported\": %s, \"auth\": \"%s\", "
		       "\"peer_cert\": %s, \"remote_auth\": [",
		       role(j), j->req.peername[0] ? "named" : "", res->status,
		       res->status == 0 ? hs_suite_name(res->suite) : "", res->ktls ? "true" : "false",
		       res->ms, err == 0 ? "true" : "false",
		       j->req.auth == HSD_AUTH_PSK ? "psk" : j->req.auth == HSD_AUTH_X509 ? "x509" : "unauth",
		       res->peer_cert ? "true" : "false");
		for (size_t i = 0; i < res->n_remote; i++)
			printf("%s%u", i ? ", " : "", (unsigned)res->remote[i]);
		printf("]}\n");
		fflush(stdout);
	}
	hsd_session_free(j->s);
	creds_put(j->creds);
	j->s = NULL;
	j->creds = NULL;
	j->phase = FREE;
	j->gen++;
	d.in_flight--;
}

/* Run the handshake as far as its socket allows. */
static void step(struct job *j)
{
	struct hsd_result res;

	switch (hsd_session_step(j->s, &res)) {
	case HSD_STEP_READ:
		watch(j, j->req.fd, HSD_IN);
		return;
	case HSD_STEP_WRITE:
		watch(j, j->req.fd, HSD_OUT);
		return;
	case HSD_STEP_DONE:
		finish(j, &res);
		return;
	}
}

/* j->req holds a request: start its handshake. */
static void begin(struct job *j)
{
	struct hsd_result res;

	j->phase = HANDSHAKE;
	j->s = hsd_session_start(&j->creds->cr, &j->req, &res);
	if (j->s == NULL) {
		res.ms = 0;
		finish(j, &res);
		return;
	}
	j->deadline = hsd_session_deadline(j->s);
	step(j);
}

/* A hand-off connection is readable: its request, then the handshake. */
static void request(struct job *j)
{
	struct hsd_result res;
	int r = hsd_handoff_read(j->conn, &j->req, &res);

	if (r == HS_ERR_WANT_READ) {
		watch(j, j->conn, HSD_IN);
	} else if (r != 0) {
		j->phase = REQUEST; /* answered already */
		finish(j, &res);
	} else {
		begin(j);
	}
}

static void on_job(uint64_t tag)
{
	uint64_t i = (tag >> 32) - 1;
	struct job *j;

	if (i >= d.n_jobs)
		return;
	j = &d.jobs[i];
	if (j->phase == FREE || j->gen != (uint32_t)tag)
		return; /* the report of a job that has ended */
	j->armed = 0;
	if (j->phase == REQUEST)
		request(j);
	else
		step(j);
}

/* End every job whose deadline has passed; the time to the next deadline (-1: none). */
static int expire(void)
{
	int64_t now = hsd_now_ms(), next = -1;

	for (unsigned i = 0; i < d.n_jobs; i++) {
		struct job *j = &d.jobs[i];
		struct hsd_result res;

		if (j->phase == FREE)
			continue;
		if (j->deadline > now) {
			if (next < 0 || j->deadline - now < next)
				next = j->deadline - now;
			continue;
		}
		if (j->phase == REQUEST) {
			memset(&res, 0, sizeof(res));
			res.status = ETIMEDOUT;
			snprintf(res.detail, sizeof(res.detail), "hand-off: no request within %d ms",
				 REQUEST_MS);
		} else {
			hsd_session_expire(j->s, &res);
		}
		finish(j, &res);
	}
	return next < 0 ? -1 : next > 60000 ? 60000 : (int)next;
}

/* Accept hand-off connections while there are free slots. */
static void take_handoffs(void)
{
	while (d.lsock >= 0 && d.in_flight < d.conf.max_handshakes) {
		int c = accept4(d.lsock, NULL, NULL, SOCK_CLOEXEC);
		struct job *j;

		if (c < 0)
			return;
		if (!hsd_handoff_allowed(c, d.group)) {
			logf_(0, "hand-off refused: the peer is not root, us or in the socket group");
			close(c);
			continue;
		}
		j = job_new(c);
		if (j == NULL) {
			close(c);
			return;
		}
		request(j); /* the request often came with the connection */
	}
}

/*
 * Take every waiting request (up to the limit) and start each. Only after
 * READY (or any notification-socket event, an overflow included) or while
 * requests were left waiting at the limit: an empty queue costs no ACCEPT.
 */
static void take_requests(void)
{
	while (d.ctl != NULL && d.accept_more) {
		struct job *j = job_new(-1);
		int err;

		if (j == NULL)
			return; /* the rest waits in the kernel until a slot frees */
		err = hsd_nl_accept(d.ctl, &j->req);
		if (err) {
			j->req.fd = -1;
			j->phase = FREE;
			creds_put(j->creds);
			d.in_flight--;
			d.accept_more = 0; /* empty (or refused): the next READY says when to look */
			if (err != HS_ERR_WANT_READ)
				logf_(0, "ACCEPT failed: %s", strerror(hsd_nl_errno(d.ctl)));
			return;
		}
		begin(j);
	}
}

/* ---- systemd readiness (the sd_notify datagram, no libsystemd) ---- */

static void notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t n;
	int fd;

	if (path == NULL || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(a.sun_path))
		return;
	n = strlen(path);
	memcpy(a.sun_path, path, n);
	if (a.sun_path[0] == '@')
		a.sun_path[0] = '\0'; /* abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	(void)sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&a,
		     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	close(fd);
}

/* The signalfd is readable: SIGHUP reloads; 1 when asked to stop. */
static int on_signal(void)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(d.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			struct creds_ref *nc = NULL;
			struct hsd_conf conf;

			notify("RELOADING=1");
			if (load(d.conf_path, &conf, &nc) == 0 && grow_jobs(conf.max_handshakes) == 0) {
				creds_put(d.creds);
				d.creds = nc;
				d.conf = conf;
				link_keyrings(&d.conf);
				logf_(0, "reloaded %s", d.conf_path);
			} else if (nc != NULL) {
				creds_put(nc);
			}
			notify("READY=1");
		} else {
			stop = 1;
		}
	}
	(void)hsd_loop_watch(d.loop, d.sfd, HSD_IN, TAG_SIG);
	return stop;
}

/* READY notifications: drain them (take_requests follows). */
static void on_ready(void)
{
	unsigned ready;

	d.accept_more = 1; /* a READY, or an overflow that may have eaten some */
	while (hsd_nl_read_ready(d.mcast, &ready) == 0 && ready > 0)
		;
	(void)hsd_loop_watch(d.loop, hsd_nl_fd(d.mcast), HSD_IN, TAG_NL);
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f, "usage: handshaked [--config FILE] [--socket PATH] [--no-upcalls] [--foreground]\n"
		   "                  [--loop auto|io_uring|epoll] [--json] [-v]\n"
		   "       handshaked --check [--config FILE] | --version | --help\n\n"
		   "Answers the kernel's TLS handshake upcalls (net/handshake) with hs and\n"
		   "installs kernel TLS on each socket.\n\n"
		   "  --config FILE  tlshd's configuration format (default " DEFAULT_CONF ")\n"
		   "  --socket PATH  the application hand-off socket (also [handshaked] socket=)\n"
		   "  --no-upcalls   serve hand-offs only, not the kernel's upcalls\n"
		   "  --loop KIND    the event loop: io_uring where it works (auto), or epoll\n"
		   "  --foreground   stay in the foreground (systemd runs it so); logs go to stderr\n"
		   "  --json         one JSON object per finished handshake on stdout\n"
		   "  --check        read the configuration and credentials, report, exit\n"
		   "  -v             log each successful handshake too (-v -v: more)\n");
}

int main(int argc, char **argv)
{
	struct hsd_event ev[64];
	enum hsd_backend want = HSD_LOOP_AUTO;
	const char *socket_path = NULL;
	int no_upcalls = 0, check = 0, stop = 0;
	sigset_t sigs;
	char why[256], loop_why[160];

	d.conf_path = DEFAULT_CONF;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			d.conf_path = argv[++i];
		else if (strcmp(argv[i], "--foreground") == 0 || strcmp(argv[i], "-f") == 0)
			;
		else if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			socket_path = argv[++i];
		else if (strcmp(argv[i], "--no-upcalls") == 0)
			no_upcalls = 1;
		else if (strcmp(argv[i], "--loop") == 0 && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "epoll") == 0)
				want = HSD_LOOP_EPOLL;
			else if (strcmp(argv[i], "io_uring") == 0)
				want = HSD_LOOP_URING;
			else if (strcmp(argv[i], "auto") != 0) {
				usage(stderr);
				return 2;
			}
		} else if (strcmp(argv[i], "--json") == 0)
			d.json = 1;
		else if (strcmp(argv[i], "--check") == 0)
			check = 1;
		else if (strcmp(argv[i], "-v") == 0)
			d.verbose++;
		else if (strcmp(argv[i], "--version") == 0) {
			printf("handshaked (hs) %s\n", HS_VERSION_STRING);
			return 0;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (load(d.conf_path, &d.conf, &d.creds) != 0)
		return 1;
	if (check) {
		printf("handshaked: %s: configuration and credentials load\n", d.conf_path);
		creds_put(d.creds);
		return 0;
	}
	link_keyrings(&d.conf);
	d.lsock = -1;
	d.group = (gid_t)-1;
	snprintf(d.socket_path, sizeof(d.socket_path), "%s",
		 socket_path != NULL ? socket_path : d.conf.socket_path);
	if (d.socket_path[0] != '\0') {
		struct group *g = d.conf.socket_group[0] ? getgrnam(d.conf.socket_group) : NULL;

		if (hsd_handoff_listen(d.socket_path, d.conf.socket_group, &d.lsock, why, sizeof(why)) != 0) {
			logf_(0, "hand-off socket: %s", why);
			return 1;
		}
		d.group = g != NULL ? g->gr_gid : (gid_t)-1;
	}
	if (!no_upcalls && (hsd_nl_open(&d.mcast, 1, why, sizeof(why)) != 0 ||
			    hsd_nl_open(&d.ctl, 0, why, sizeof(why)) != 0)) {
		hsd_nl_close(d.mcast);
		d.mcast = NULL;
		if (d.lsock < 0) {
			logf_(0, "%s", why);
			return 1;
		}
		logf_(0, "no kernel upcalls here (%s): serving hand-offs only", why);
	}
	if (hsd_loop_new(&d.loop, want, loop_why, sizeof(loop_why)) != 0 ||
	    grow_jobs(d.conf.max_handshakes) != 0) {
		logf_(0, "event loop: %s", loop_why[0] ? loop_why : "out of memory");
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	d.sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d.mcast != NULL)
		fcntl(hsd_nl_fd(d.mcast), F_SETFL, O_NONBLOCK);
	if (d.sfd < 0 || hsd_loop_watch(d.loop, d.sfd, HSD_IN, TAG_SIG) != 0 ||
	    (d.mcast != NULL && hsd_loop_watch(d.loop, hsd_nl_fd(d.mcast), HSD_IN, TAG_NL) != 0)) {
		logf_(0, "event loop: %s", strerror(errno));
		return 1;
	}
	logf_(0, "ready: %s%s%s (at most %u at once, one thread, %s%s%s)",
	      d.mcast ? "answering handshake upcalls" : "", d.mcast && d.lsock >= 0 ? ", " : "",
	      d.lsock >= 0 ? "hand-offs on the socket" : "", d.conf.max_handshakes,
	      hsd_loop_name(d.loop), loop_why[0] ? ": " : "", loop_why);
	notify("READY=1\nSTATUS=answering handshake upcalls");
	d.accept_more = 1;
	take_requests(); /* anything queued before we joined */
	while (!stop || d.in_flight > 0) {
		int timeout = expire(), n;
		int64_t due;

		if (!stop && !d.listen_armed && d.lsock >= 0 && d.in_flight < d.conf.max_handshakes)
			/* at the limit, waiting hand-offs stay in the backlog (not watched): a
			 * freed slot arms it again */
			d.listen_armed = hsd_loop_watch(d.loop, d.lsock, HSD_IN, TAG_LISTEN) == 0;
		n = hsd_loop_wait(d.loop, timeout, ev, 64);
		if (n < 0) {
			logf_(0, "event loop: %s", strerror(errno));
			break;
		}
		/* a batch of handshake steps is CPU work: a deadline that passes meanwhile
		 * is kept before the rest of the batch, not after it */
		due = timeout >= 0 ? hsd_now_ms() + timeout : INT64_MAX;
		for (int i = 0; i < n; i++) {
			if (hsd_now_ms() >= due) {
				timeout = expire();
				due = timeout >= 0 ? hsd_now_ms() + timeout : INT64_MAX;
			}
			if (ev[i].tag == TAG_SIG)
				stop |= on_signal();
			else if (ev[i].tag == TAG_NL)
				on_ready();
			else if (ev[i].tag == TAG_LISTEN)
				d.listen_armed = 0;
			else
				on_job(ev[i].tag);
		}
		/* after READY, or freed slots: requests waiting in the kernel, hand-offs */
		if (!stop) {
			take_requests();
			if (!d.listen_armed)
				take_handoffs();
		}
	}
	notify("STOPPING=1");
	logf_(0, "stopped: %lu handshakes done, %lu failed, at most %u at once", d.done_ok,
	      d.done_failed, d.peak);
	creds_put(d.creds);
	hsd_nl_close(d.mcast);
	hsd_nl_close(d.ctl);
	if (d.lsock >= 0) {
		close(d.lsock);
		unlink(d.socket_path);
	}
	hsd_loop_free(d.loop);
	close(d.sfd);
	free(d.jobs);
	return 0;
}
