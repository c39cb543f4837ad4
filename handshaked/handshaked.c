/*
 * handshaked: the handshake daemon. Answers the kernel's net/handshake
 * upcalls (as tlshd does, for NFS and NVMe over TLS) with hs.
 *
 * The main thread waits (poll) on the notification socket, a signalfd, the
 * hand-off socket and a pipe that ending workers write to; on READY (or a
 * freed slot) it takes requests (ACCEPT) and hand-offs while fewer than
 * max_handshakes are in flight, each run by a worker thread with its own
 * deadline (the kernel's timeout), which reports DONE or the result.
 * Requests beyond the limit wait in the kernel's queue or the backlog. SIGHUP reloads the configuration and credentials
 * (handshakes in flight keep the old ones); SIGINT/SIGTERM stop taking
 * requests and wait for those in flight (bounded by their deadlines).
 * Readiness goes to systemd (sd_notify protocol) once the group is joined.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "handshaked/conf.h"
#include "handshaked/handoff.h"
#include "handshaked/netlink.h"
#include "handshaked/session.h"
#include "hs/tls.h"

#define DEFAULT_CONF "/etc/tlshd.conf"

struct creds_ref { /* credentials shared by the workers that started under them */
	struct hsd_creds cr;
	atomic_int refs;
};

struct daemon {
	struct hsd_conf conf;
	const char *conf_path;
	struct hsd_nl *mcast, *ctl;      /* NULL: no kernel upcalls here (hand-offs only) */
	int lsock;                       /* the hand-off socket, -1 if none */
	gid_t group;
	pthread_mutex_t ctl_lock; /* ACCEPT and DONE share the request socket */
	pthread_mutex_t lock;
	pthread_cond_t idle;
	unsigned in_flight;
	struct creds_ref *creds;
	int json, verbose;
	int wake[2]; /* a worker that ends writes a byte: the main loop may take more */
	atomic_ulong done_ok, done_failed;
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
	if (r != NULL && atomic_fetch_sub(&r->refs, 1) == 1) {
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
	atomic_init(&r->refs, 1);
	*out = r;
	return 0;
}

/* ---- workers ---- */

struct job {
	struct hsd_req req;  /* a kernel upcall */
	int conn;            /* or an application hand-off connection (>= 0) */
	struct creds_ref *creds;
};

static const char *role(const struct hsd_req *r)
{
	return r->msg_type == 0 ? "hand-off" : r->msg_type == HSD_MSG_CLIENTHELLO ? "client" : "server";
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct hsd_result res;
	int err = 0;

	if (j->conn >= 0) {
		hsd_handoff_serve(&j->creds->cr, j->conn, &res);
		j->req.msg_type = 0;
	} else {
		hsd_session_run(&j->creds->cr, &j->req, &res);
		pthread_mutex_lock(&d.ctl_lock);
		err = hsd_nl_done(d.ctl, j->req.fd, res.status, NULL, 0);
		pthread_mutex_unlock(&d.ctl_lock);
		close(j->req.fd); /* the kernel holds its own reference */
	}
	atomic_fetch_add(res.status == 0 ? &d.done_ok : &d.done_failed, 1);
	if (res.status == 0)
		logf_(1, "%s handshake with %s: %s, kernel TLS, %.1f ms", role(&j->req),
		      j->req.peername[0] ? j->req.peername : "(no name)", hs_suite_name(res.suite), res.ms);
	else
		logf_(0, "%s handshake with %s failed: %s (status %d)", role(&j->req),
		      j->req.peername[0] ? j->req.peername : "(no name)", res.detail, res.status);
	if (d.json)
		printf("{\"role\": \"%s\", \"peer\": \"%s\", \"status\": %d, \"suite\": \"%s\", "
		       "\"ktls\": %s, \"ms\": %.1f, \"done_reported\": %s}\n",
		       role(&j->req), j->req.peername[0] ? "named" : "", res.status,
		       res.status == 0 ? hs_suite_name(res.suite) : "", res.ktls ? "true" : "false", res.ms,
		       err == 0 ? "true" : "false");
	fflush(stdout);
	creds_put(j->creds);
	free(j);
	pthread_mutex_lock(&d.lock);
	d.in_flight--;
	pthread_cond_signal(&d.idle);
	(void)!write(d.wake[1], "", 1); /* a slot is free: the main loop looks again */
	pthread_mutex_unlock(&d.lock);
	return NULL;
}

/* Start a worker for j (in_flight already counted); on failure undo. */
static void start(struct job *j)
{
	pthread_attr_t attr;
	pthread_t t;

	j->creds = d.creds;
	atomic_fetch_add(&j->creds->refs, 1);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, worker, j) != 0) {
		if (j->conn >= 0) {
			close(j->conn);
		} else {
			pthread_mutex_lock(&d.ctl_lock);
			(void)hsd_nl_done(d.ctl, j->req.fd, ENOMEM, NULL, 0);
			pthread_mutex_unlock(&d.ctl_lock);
			close(j->req.fd);
		}
		creds_put(j->creds);
		free(j);
		pthread_mutex_lock(&d.lock);
		d.in_flight--;
		pthread_mutex_unlock(&d.lock);
	}
	pthread_attr_destroy(&attr);
}

static int slot(void)
{
	int ok;

	pthread_mutex_lock(&d.lock);
	ok = d.in_flight < d.conf.max_handshakes;
	if (ok)
		d.in_flight++;
	pthread_mutex_unlock(&d.lock);
	return ok;
}

static void unslot(void)
{
	pthread_mutex_lock(&d.lock);
	d.in_flight--;
	pthread_mutex_unlock(&d.lock);
}

/* Accept hand-off connections while there are free slots. */
static void take_handoffs(void)
{
	while (d.lsock >= 0 && slot()) {
		int c = accept4(d.lsock, NULL, NULL, SOCK_CLOEXEC);
		struct job *j;

		if (c < 0) {
			unslot();
			return;
		}
		if (!hsd_handoff_allowed(c, d.group) || (j = calloc(1, sizeof(*j))) == NULL) {
			logf_(0, "hand-off refused: the peer is not root, us or in the socket group");
			close(c);
			unslot();
			continue;
		}
		j->conn = c;
		start(j);
	}
}

/* Take every waiting request (up to the limit) and start a worker for each. */
static void take_requests(void)
{
	while (d.ctl != NULL && slot()) {
		struct job *j = calloc(1, sizeof(*j));
		int err;

		if (j == NULL) {
			unslot();
			return;
		}
		j->conn = -1;
		pthread_mutex_lock(&d.ctl_lock);
		err = hsd_nl_accept(d.ctl, &j->req);
		pthread_mutex_unlock(&d.ctl_lock);
		if (err) {
			free(j);
			unslot();
			if (err != HS_ERR_WANT_READ)
				logf_(0, "ACCEPT failed: %s", strerror(hsd_nl_errno(d.ctl)));
			return; /* the rest waits in the kernel until a slot frees */
		}
		start(j);
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

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f, "usage: handshaked [--config FILE] [--socket PATH] [--no-upcalls] [--foreground]\n"
		   "                  [--json] [-v]\n"
		   "       handshaked --check [--config FILE] | --version | --help\n\n"
		   "Answers the kernel's TLS handshake upcalls (net/handshake) with hs and\n"
		   "installs kernel TLS on each socket.\n\n"
		   "  --config FILE  tlshd's configuration format (default " DEFAULT_CONF ")\n"
		   "  --socket PATH  the application hand-off socket (also [handshaked] socket=)\n"
		   "  --no-upcalls   serve hand-offs only, not the kernel's upcalls\n"
		   "  --foreground   stay in the foreground (systemd runs it so); logs go to stderr\n"
		   "  --json         one JSON object per finished handshake on stdout\n"
		   "  --check        read the configuration and credentials, report, exit\n"
		   "  -v             log each successful handshake too (-v -v: more)\n");
}

int main(int argc, char **argv)
{
	struct pollfd pfd[4];
	const char *socket_path = NULL;
	int no_upcalls = 0;
	sigset_t sigs;
	char why[256];
	int check = 0, sfd, stop = 0;

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
		else if (strcmp(argv[i], "--json") == 0)
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
	d.lsock = -1;
	d.group = (gid_t)-1;
	if (socket_path != NULL)
		snprintf(d.conf.socket_path, sizeof(d.conf.socket_path), "%s", socket_path);
	if (d.conf.socket_path[0] != '\0') {
		struct group *g = d.conf.socket_group[0] ? getgrnam(d.conf.socket_group) : NULL;

		if (hsd_handoff_listen(d.conf.socket_path, d.conf.socket_group, &d.lsock, why,
				       sizeof(why)) != 0) {
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
	pthread_mutex_init(&d.lock, NULL);
	pthread_mutex_init(&d.ctl_lock, NULL);
	pthread_cond_init(&d.idle, NULL);
	if (pipe2(d.wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		logf_(0, "pipe: %s", strerror(errno));
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* workers inherit the mask */
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (d.mcast != NULL)
		fcntl(hsd_nl_fd(d.mcast), F_SETFL, O_NONBLOCK);
	logf_(0, "ready: %s%s%s (at most %u at once)", d.mcast ? "answering handshake upcalls" : "",
	      d.mcast && d.lsock >= 0 ? ", " : "", d.lsock >= 0 ? "hand-offs on the socket" : "",
	      d.conf.max_handshakes);
	notify("READY=1\nSTATUS=answering handshake upcalls");
	take_requests(); /* anything queued before we joined */
	while (!stop) {
		int full;

		pthread_mutex_lock(&d.lock);
		full = d.in_flight >= d.conf.max_handshakes;
		pthread_mutex_unlock(&d.lock);
		pfd[0] = (struct pollfd){ .fd = d.mcast ? hsd_nl_fd(d.mcast) : -1, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		/* at the limit, waiting hand-offs stay in the backlog: not polled, or
		 * the loop would spin; a worker that ends wakes it (wake[0]) */
		pfd[2] = (struct pollfd){ .fd = full ? -1 : d.lsock, .events = POLLIN };
		pfd[3] = (struct pollfd){ .fd = d.wake[0], .events = POLLIN };
		if (poll(pfd, 4, -1) < 0 && errno != EINTR)
			break;
		if (pfd[3].revents & POLLIN) {
			char drain[64];

			while (read(d.wake[0], drain, sizeof(drain)) > 0)
				;
		}
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					struct creds_ref *nc;
					struct hsd_conf conf;

					notify("RELOADING=1");
					if (load(d.conf_path, &conf, &nc) == 0) {
						creds_put(d.creds);
						d.creds = nc;
						d.conf = conf;
						logf_(0, "reloaded %s", d.conf_path);
					}
					notify("READY=1");
				} else {
					stop = 1;
				}
			}
		}
		if (pfd[0].revents & POLLIN) {
			unsigned ready;

			while (hsd_nl_read_ready(d.mcast, &ready) == 0 && ready > 0)
				;
		}
		/* after READY, or a freed slot: requests waiting in the kernel, hand-offs */
		if (!stop) {
			take_requests();
			take_handoffs();
		}
	}
	notify("STOPPING=1");
	pthread_mutex_lock(&d.lock);
	while (d.in_flight > 0)
		pthread_cond_wait(&d.idle, &d.lock);
	pthread_mutex_unlock(&d.lock);
	logf_(0, "stopped: %lu handshakes done, %lu failed", atomic_load(&d.done_ok),
	      atomic_load(&d.done_failed));
	creds_put(d.creds);
	hsd_nl_close(d.mcast);
	hsd_nl_close(d.ctl);
	if (d.lsock >= 0) {
		close(d.lsock);
		unlink(d.conf.socket_path);
	}
	close(d.wake[0]);
	close(d.wake[1]);
	return 0;
}
