/*
 * The seam between the engine (libhs) and the record layer here.
 *
 * Implementation notes:
 * - No byte is lost or read twice: the engine's fd helpers never read past
 *   the record that completes the handshake, so the socket holds every
 *   record after it (the server's NewSessionTickets, early application
 *   data); the engine's own sequence numbers (hs_conn_secrets) are the ones
 *   given to the kernel. What the engine did read and decrypt beyond the
 *   handshake (application data fed to it before the hand-off) is moved
 *   into k and returned first by hs_ktls_read.
 * - The engine must hold no part of a record (hs_conn_input_wanted() is a
 *   full header); bytes it still has to send (a server's tickets) are sent
 *   before TX moves, since they are already sealed with the engine's keys.
 * - A server whose engine deferred its tickets (defer_tickets) sends them
 *   after the hand-off with hs_ktls_send_tickets: the engine makes each
 *   NewSessionTicket (hs_conn_make_ticket), this layer seals the record.
 * - Then hs_conn_handoff(): the engine wipes and frees its record keys,
 *   buffers and what is left of the handshake, keeping its small header
 *   (libhs/README.md "Memory") for post-handshake messages and getters.
 */
#include <errno.h>
#include <string.h>

#include <sys/socket.h>

#include "base/wipe.h"
#include "hs/fd.h"
#include "hs/secrets.h"
#include "hs/tls.h"
#include "ktls/internal.h"

static int send_all(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t r = send(fd, p, len, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return HS_ERR_TLS_CLOSED;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int flush_engine(struct hs_conn *c, int fd)
{
	uint8_t buf[4096];
	size_t n;
	int err = 0;

	while (!err && hs_conn_output_pending(c) > 0) {
		err = hs_conn_pull(c, buf, sizeof(buf), &n);
		if (!err)
			err = send_all(fd, buf, n);
	}
	return err;
}

/* Application data the engine decrypted before the hand-off. */
static int drain_engine(struct hs_ktls *k, struct hs_conn *c)
{
	uint8_t buf[4096];
	size_t n;
	int err;

	do {
		err = hs_conn_read(c, buf, sizeof(buf), &n);
		if (!err && n > 0)
			err = hs_ktls_push_plaintext(k, buf, n);
	} while (!err && n > 0);
	wipe(buf, sizeof(buf));
	return err;
}

int hs_ktls_attach(struct hs_ktls *k, struct hs_conn *c, int fd, unsigned flags)
{
	struct hs_secrets s;
	int err;

	if (!k || !c)
		return HS_ERR_ARG;
	if (!hs_conn_handshake_done(c) || hs_conn_error(c))
		return HS_ERR_TLS_STATE;
	err = flush_engine(c, fd);
	if (err)
		return err;
	if (hs_conn_input_wanted(c) != REC_HDR)
		return HS_ERR_TLS_STATE; /* part of a record is inside the engine */
	err = hs_conn_secrets(c, &s);
	if (err)
		return err;
	err = hs_ktls_init(k, fd, &s, flags, NULL);
	hs_secrets_wipe(&s);
	if (!err)
		err = drain_engine(k, c);
	/* the engine keeps only its header: k has the keys and the records */
	if (!err)
		err = hs_conn_handoff(c);
	if (!err)
		ktls_of(k)->conn = c;
	return err;
}

/*
 * Tickets after the hand-off (the engine deferred them: defer_tickets):
 * made by the engine, sent here as handshake records (TLS_SET_RECORD_TYPE
 * 22 on the kernel path, record/'s records on ours), several messages to a
 * record. Tickets are sealed under the server's ticket key: no secret here.
 */
int hs_ktls_send_tickets(struct hs_ktls *k, struct hs_conn *c, unsigned n)
{
	uint8_t buf[8 * HS_TICKET_MSG_MAX];
	size_t len = 0, m;
	unsigned made = 0;
	int err = 0;

	if (!k || !c)
		return HS_ERR_ARG;
	while (n == 0 || made < n) {
		if (sizeof(buf) - len < HS_TICKET_MSG_MAX) {
			err = hs_ktls_send_record(k, HS_KTLS_HANDSHAKE, buf, len);
			len = 0;
			if (err)
				return err;
		}
		err = hs_conn_make_ticket(c, buf + len, sizeof(buf) - len, &m);
		if (err)
			break;
		len += m;
		made++;
	}
	/* n = 0: every ticket left, so running out is the end, not an error */
	if (err == HS_ERR_TLS_STATE && n == 0)
		err = 0;
	if (len > 0) {
		int e = hs_ktls_send_record(k, HS_KTLS_HANDSHAKE, buf, len);
		err = err ? err : e;
	}
	if (n == 0)
		hs_conn_end_tickets(c);
	return err;
}

void hs_ktls_detach_engine(struct hs_ktls *k)
{
	ktls_of(k)->conn = NULL;
}

int hs_ktls_connect(struct hs_ktls *k, struct hs_conn *c, int fd, unsigned flags)
{
	int err = hs_fd_connect(c, fd);

	return err ? err : hs_ktls_attach(k, c, fd, flags);
}

int hs_ktls_accept(struct hs_ktls *k, struct hs_conn *c, int fd, unsigned flags)
{
	int err = hs_fd_accept(c, fd);

	return err ? err : hs_ktls_attach(k, c, fd, flags);
}
