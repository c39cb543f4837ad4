/*
 * External-PSK handshakes as the kernel asks for them over net/handshake
 * (issue 13), for NVMe over TCP with TLS: the client's upcall names the PSK
 * by key serial (HANDSHAKE_A_ACCEPT_PEER_IDENTITY), the target's names none
 * and gives a keyring, where the identity the client offers finds the key.
 *
 * The test is the consumer. No kernel consumer can make a PSK upcall in our
 * guest (UML 7.x is built without CONFIG_NVME_TCP and CONFIG_NVME_TARGET_TCP,
 * the only users of tls_client_hello_psk / tls_server_hello_psk), and
 * userspace cannot send the kernel's ACCEPT reply. So this program builds
 * the request netlink.c fills from that reply (struct hsd_req: role, auth
 * PSK, peer identity serials, keyring, timeout, a connected TCP socket) and
 * runs handshaked's own session state machine on it (hsd_session_start /
 * step, polled as the daemon's loop does), with the PSK in a kernel key of
 * a fresh session keyring ("user" type: the "psk" type is the NVMe
 * keyring's). The other end is hs with the same PSK.
 *
 *   HS_KTLS_EXPECT=kernel (UML 7.x): DONE's status 0, the socket on kernel
 *     TLS both ways (bytes echoed through it with plain send/recv), DONE's
 *     remote identity the PSK's serial;
 *   HS_KTLS_EXPECT=user (the host, no kTLS): the handshake completes with
 *     the PSK (the peer says so) and the hand-off is refused (EOPNOTSUPP).
 * Both: a peer with another key fails (EACCES), an unknown identity to the
 * target fails, a serial that names no key is refused before any byte
 * (ENOKEY). Skipped (77) where keyctl is not permitted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <keyutils.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "handshaked/session.h"
#include "hs/fd.h"
#include "hs/tls.h"
#include "loopback.h"

#define KEY_A "0123456789abcdef0123456789abcdef"
#define KEY_B "fedcba9876543210fedcba9876543210"
#define IDENT "NVMe0R01 nqn.2014-08.org.nvmexpress:host nqn.2014-08.org.nvmexpress:target"

static int kernel;

/* The hs end: handshake with its PSK, then echo until the stream ends. */
struct peer {
	pthread_t t;
	int fd, server;
	const char *key, *identity;
	int err, external;
};

static void *peer_run(void *arg)
{
	static const uint16_t suite = HS_TLS_AES_128_GCM_SHA256;
	struct peer *p = arg;
	struct hs_config cfg = { .role = p->server ? HS_ROLE_SERVER : HS_ROLE_CLIENT,
				 .suites = &suite, .n_suites = 1,
				 .psk = (const uint8_t *)p->key, .psk_len = strlen(p->key),
				 .psk_identity = (const uint8_t *)p->identity,
				 .psk_identity_len = strlen(p->identity) };
	struct hs_conn *c = NULL;
	uint8_t buf[256];
	size_t n = 1;

	p->err = hs_conn_new(&c, &cfg);
	if (p->err == 0)
		p->err = hs_fd_handshake_deadline(c, p->fd, 10000);
	if (p->err == 0)
		p->external = hs_conn_external_psk(c);
	while (p->err == 0 && n > 0) {
		int e = hs_fd_read(c, p->fd, buf, sizeof(buf), &n);
		if (e != 0 || n == 0)
			break; /* the other end went (close or the refused hand-off) */
		p->err = hs_fd_write(c, p->fd, buf, n);
	}
	hs_conn_free(c);
	close(p->fd);
	return NULL;
}

/* handshaked's session on fd, driven as its loop drives it. */
static void run_session(const struct hsd_req *req, struct hsd_result *res, int *started)
{
	static const struct hsd_creds none; /* PSK mode: no certificate, no trust store */
	struct hsd_session *s = hsd_session_start(&none, req, res);
	enum hsd_step st = HSD_STEP_READ;

	*started = s != NULL;
	while (s != NULL && (st = hsd_session_step(s, res)) != HSD_STEP_DONE) {
		struct pollfd pf = { .fd = req->fd, .events = st == HSD_STEP_READ ? POLLIN : POLLOUT };
		int64_t left = hsd_session_deadline(s) - hsd_now_ms();

		if (left <= 0 || poll(&pf, 1, (int)left) == 0) {
			hsd_session_expire(s, res);
			break;
		}
	}
	hsd_session_free(s);
}

/*
 * One handshake: handshaked in role client (1) or server (0) with the
 * request's PSK fields, the peer with key/identity.
 */
static void one(const char *what, int client, int32_t serial, int32_t keyring, const char *key,
		const char *identity, int want_status, int32_t want_remote)
{
	struct hsd_req req = { .msg_type = client ? HSD_MSG_CLIENTHELLO : HSD_MSG_SERVERHELLO,
			       .auth = HSD_AUTH_PSK, .timeout_ms = 10000, .keyring = keyring };
	struct peer p = { .server = client, .key = key, .identity = identity };
	struct hsd_result res;
	unsigned port;
	int lfd = lo_listen(&port), a = -1, b = -1, started = 0;
	char back[5] = { 0 };

	if (serial != 0) {
		req.peerids[0] = serial;
		req.n_peerids = 1;
	}
	snprintf(req.peername, sizeof(req.peername), "127.0.0.1");
	if (lfd >= 0)
		a = lo_dial(port, 10);
	if (a >= 0)
		b = accept(lfd, NULL, NULL);
	if (lfd >= 0)
		close(lfd);
	if (a < 0 || b < 0) {
		lo_check(0, "%s: loopback connection", what);
		return;
	}
	/* the daemon's end is the dialing one as client, the accepted one as server */
	req.fd = client ? a : b;
	p.fd = client ? b : a;
	if (pthread_create(&p.t, NULL, peer_run, &p) != 0) {
		lo_check(0, "%s: thread", what);
		return;
	}
	run_session(&req, &res, &started);
	if (want_status == ENOKEY) {
		lo_check(!started && res.status == ENOKEY,
			 "%s: refused before the handshake (status %d: %s)", what, res.status, res.detail);
	} else if (want_status != 0) {
		lo_check(res.status == want_status && !res.ktls,
			 "%s: fails (status %d, want %d: %s)", what, res.status, want_status,
			 res.detail);
	} else if (kernel) {
		int ok = res.status == 0 && res.ktls && res.n_remote == 1 &&
			 res.remote[0] == want_remote;
		/* the kernel now seals: "ping" out and back through the peer's echo */
		if (ok)
			ok = send(req.fd, "ping", 4, MSG_NOSIGNAL) == 4 &&
			     recv(req.fd, back, 4, MSG_WAITALL) == 4 && memcmp(back, "ping", 4) == 0;
		lo_check(ok, "%s: PSK handshake, socket on kernel TLS, bytes echoed through it, "
			 "DONE names the PSK key %d (status %d: %s)", what,
			 res.n_remote ? res.remote[0] : 0, res.status, res.detail);
	} else {
		lo_check(res.status == EOPNOTSUPP && !res.ktls,
			 "%s: PSK handshake done, the hand-off to kernel TLS refused here (status %d: "
			 "%s)", what, res.status, res.detail);
	}
	shutdown(req.fd, SHUT_RDWR); /* the requester's socket: its end stops the peer's echo */
	pthread_join(p.t, NULL);
	if (want_status == 0)
		lo_check(p.err == 0 && p.external == 1, "%s: the peer used the external PSK (%s)",
			 what, hs_strerror(p.err));
	close(req.fd);
}

int main(void)
{
	key_serial_t ring, k, ring2, k2;
	const char *expect = getenv("HS_KTLS_EXPECT");

	signal(SIGPIPE, SIG_IGN);
	kernel = expect != NULL && strcmp(expect, "kernel") == 0;
	/* our own session keyring: nothing lands in the caller's */
	ring = keyctl_join_session_keyring(NULL);
	if (ring < 0) {
		printf("SKIP - keyctl not permitted here: %s\n", strerror(errno));
		return 77;
	}
	k = add_key("user", IDENT, KEY_A, strlen(KEY_A), KEY_SPEC_SESSION_KEYRING);
	/* a target's keyring, not linked to the session: found only when named */
	ring2 = add_key("keyring", "hs-test-nvme", NULL, 0, KEY_SPEC_PROCESS_KEYRING);
	k2 = ring2 > 0 ? add_key("user", "target-only", KEY_B, strlen(KEY_B), ring2) : -1;
	if (k < 0 || ring2 < 0 || k2 < 0) {
		printf("SKIP - cannot add keys here: %s\n", strerror(errno));
		return 77;
	}
	one("client, PSK named by serial", 1, k, 0, KEY_A, IDENT, 0, k);
	one("target, PSK found by the client's identity", 0, 0, 0, KEY_A, IDENT, 0, k);
	one("target, PSK found in the upcall's keyring", 0, 0, ring2, KEY_B, "target-only", 0, k2);
	one("client, the peer has another key", 1, k, 0, KEY_B, IDENT, EACCES, 0);
	one("target, an identity with no key", 0, 0, 0, KEY_A, "no-such-host", EIO, 0);
	one("target, a key in a keyring the upcall did not name", 0, 0, 0, KEY_B, "target-only",
	    EIO, 0);
	one("client, a serial that names no key", 1, 0x7ffffff0, 0, KEY_A, IDENT, ENOKEY, 0);
	printf("%d failed\n", lo_failures);
	return lo_failures ? 1 : 0;
}
