/*
 * The connection after the hand-off: application data, the records of other
 * types (alerts, close_notify, post-handshake messages) and KeyUpdate, the
 * same on the kernel path and ours.
 *
 * Implementation notes:
 * - KeyUpdate (RFC 8446 4.6.3, 7.2): record/'s rec_key_next moves a
 *   direction to the next secret, key and IV (the engine's derivation), and
 *   the sequence number restarts at 0. Sending: the
 *   KeyUpdate goes out under the old key, then TX moves. Receiving: the
 *   kernel (>= 6.14) pauses decryption after a KeyUpdate record (reads fail
 *   with EKEYEXPIRED) until TLS_RX is set again with the new key.
 * - A kernel without rekey (< 6.14) answers EBUSY to a second TLS_TX. Before
 *   sending our KeyUpdate we ask it with a crypto_info whose cipher type is
 *   0: a kernel that can rekey refuses that with EINVAL and changes nothing
 *   (it checks that version and cipher stay the same), an older one says
 *   EBUSY. So our own KeyUpdate fails cleanly before anything is sent; the
 *   peer's KeyUpdate on such a kernel fails the connection with
 *   HS_ERR_UNSUPPORTED (the peer has already switched keys).
 * - "Handshake messages MUST NOT span key changes" (RFC 8446 5.1): a
 *   KeyUpdate must be the last message of its record. A post-handshake
 *   message may span records (RFC 8446 5.1): it is gathered in k->hs (a
 *   body of up to REC_MSG_MAX bytes, the engine's limit, else
 *   HS_ERR_TLS_MSG_TOO_LARGE) and no record of another type may come between
 *   its parts (HS_ERR_TLS_UNEXPECTED_MSG).
 * - Threads: the reader touches only RX state and never sends (see
 *   ktls/internal.h); each call that sends starts with ktls_tx_check, which
 *   sends the alert a reading error left and returns the sticky error.
 * - After hs_ktls_attach, each post-handshake message also goes to the
 *   engine (hs_conn_post_handshake): it keeps tickets (keep_tickets) and
 *   raises its events, so that bookkeeping stays in libhs; the keys of the
 *   records are moved here, where they are.
 */
#include <errno.h>
#include <string.h>

#include <linux/tls.h>
#include <sys/socket.h>

#include "base/wipe.h"
#include "hs/tls.h"
#include "ktls/internal.h"

#define HS_MSG_NEW_SESSION_TICKET 4
#define HS_MSG_KEY_UPDATE 24
#define ALERT_CLOSE_NOTIFY 0
#define ALERT_USER_CANCELED 90

/*
 * Move d to the next traffic secret (RFC 8446 7.2) and key it on its path:
 * record/ keys the userspace AEAD; the kernel gets the new key with TLS_TX
 * or TLS_RX (name) again.
 */
static int rekey_dir(struct ktls_state *k, struct ktls_dir *d, int name)
{
	uint8_t key[HS_AEAD_MAX_KEY_LEN];
	int err, e = 0;

	if (k->adopted) { /* no traffic secret to step from: whoever installed the keys must */
		d->why = HS_KTLS_WHY_NO_REKEY;
		return ktls_fail(k, HS_ERR_UNSUPPORTED, 0);
	}
	err = rec_key_next(&d->rec, key);

	if (err == 0 && d->path == HS_KTLS_PATH_KERNEL)
		e = ktls_set_conf(k, name, key, d->rec.iv, 0);
	wipe(key, sizeof(key));
	if (err)
		return ktls_fail(k, err, 0);
	if (e == 0)
		return 0;
	d->why = e == EBUSY ? HS_KTLS_WHY_NO_REKEY : HS_KTLS_WHY_SYSCALL;
	d->why_errno = e;
	return ktls_fail(k, HS_ERR_UNSUPPORTED, e);
}

/* Can the kernel take TLS_TX again? (see the notes above) */
static int kernel_can_rekey(struct ktls_state *k)
{
	struct tls_crypto_info probe = { .version = TLS_1_3_VERSION, .cipher_type = 0 };
	int rc = k->ops.setsockopt(k->ops.user, k->fd, SOL_TLS, TLS_TX, &probe, sizeof(probe));

	return rc != 0 && errno == EINVAL;
}

static int key_update(struct ktls_state *k, int request_peer)
{
	uint8_t msg[5] = { HS_MSG_KEY_UPDATE, 0, 0, 1, request_peer ? 1 : 0 };
	int err = ktls_tx_check(k);

	if (err)
		return err;
	if (k->sent_close)
		return HS_ERR_TLS_CLOSED;
	k->tx_progress = 0;
	if (k->adopted || (k->tx.path == HS_KTLS_PATH_KERNEL && !kernel_can_rekey(k))) {
		k->tx.why = HS_KTLS_WHY_NO_REKEY;
		k->tx.why_errno = EBUSY;
		return HS_ERR_UNSUPPORTED; /* nothing sent: the connection goes on */
	}
	err = ktls_send(k, HS_KTLS_HANDSHAKE, msg, sizeof(msg));
	if (err)
		return err;
	err = rekey_dir(k, &k->tx, TLS_TX);
	if (err)
		return err;
	atomic_store(&k->want_update, 0);
	k->key_updates_tx++;
	return 0;
}

int hs_ktls_key_update(struct hs_ktls *pub, int request_peer)
{
	return key_update(ktls_of(pub), request_peer);
}

static int on_key_update(struct ktls_state *k, const uint8_t *m, size_t rest)
{
	int err;

	if (rest != 0)
		return ktls_fail(k, HS_ERR_TLS_KEY_CHANGE_MID_RECORD, 0);
	if (m[0] > 1)
		return ktls_fail(k, HS_ERR_TLS_BAD_KEY_UPDATE, 0);
	err = rekey_dir(k, &k->rx, TLS_RX);
	if (err)
		return err;
	k->key_updates_rx++;
	/*
	 * RFC 8446 4.6.3: answer update_requested before our next application
	 * data record. The writer sends it (hs_ktls_write / send_record): the
	 * reader never touches TX, so a reader and a writer thread can share k.
	 * (After our close_notify the writer sends nothing, this included.)
	 */
	if (m[0] == 1)
		atomic_store(&k->want_update, 1);
	return 0;
}

/*
 * One whole post-handshake message m (mlen bytes, header included); rest:
 * the bytes after it in its record. The engine (hs_ktls_attach's) does the
 * bookkeeping: tickets (keep_tickets), events; the keys here move here.
 */
static int one_message(struct ktls_state *k, const uint8_t *m, size_t mlen, size_t rest)
{
	int err = 0;

	if (m[0] == HS_MSG_KEY_UPDATE && mlen != 5)
		return ktls_fail(k, HS_ERR_TLS_DECODE, 0);
	if (m[0] == HS_MSG_KEY_UPDATE)
		err = on_key_update(k, m + 4, rest);
	else if (m[0] != HS_MSG_NEW_SESSION_TICKET)
		err = ktls_fail(k, HS_ERR_TLS_UNEXPECTED_MSG, 0);
	if (!err && k->conn)
		err = hs_conn_post_handshake(k->conn, m[0], m, mlen);
	if (!err && m[0] == HS_MSG_NEW_SESSION_TICKET && k->on_handshake)
		err = k->on_handshake(k->on_handshake_arg, m, mlen);
	return err ? ktls_fail(k, err, 0) : 0; /* the sticky error if one is set */
}

/* Length of the handshake message whose 4-byte header is h, header included. */
static size_t msg_len(const uint8_t *h)
{
	return 4 + (((size_t)h[1] << 16) | ((size_t)h[2] << 8) | h[3]);
}

/*
 * Gather the next part of a message that spans records (RFC 8446 5.1
 * allows it) into k->hs; *m is set once it is whole.
 */
static int gather(struct ktls_state *k, const uint8_t **p, size_t *len, const uint8_t **m)
{
	size_t want, take;
	int err = ktls_buf(k, &k->hs, KTLS_HS_CAP);

	*m = NULL;
	if (err)
		return err;
	want = k->len < 4 ? 4 - k->len : msg_len(k->hs) - k->len;
	take = want < *len ? want : *len;
	memcpy(k->hs + k->len, *p, take);
	k->len += take;
	*p += take;
	*len -= take;
	/* the engine's limit (hs_conn_feed) */
	if (k->len >= 4 && msg_len(k->hs) - 4 > REC_MSG_MAX)
		return ktls_fail(k, HS_ERR_TLS_MSG_TOO_LARGE, 0);
	if (k->len >= 4 && k->len == msg_len(k->hs))
		*m = k->hs;
	return 0;
}

static int on_handshake(struct ktls_state *k, const uint8_t *p, size_t len)
{
	while (len > 0) {
		const uint8_t *m;
		size_t mlen;
		int err;

		if (k->len == 0 && len >= 4 && msg_len(p) <= len) {
			mlen = msg_len(p); /* whole in this record: no copy */
			err = one_message(k, p, mlen, len - mlen);
			p += mlen;
			len -= mlen;
		} else {
			if ((err = gather(k, &p, &len, &m)) != 0)
				return err;
			if (m == NULL)
				continue; /* the rest comes in the next record */
			mlen = k->len;
			k->len = 0;
			err = one_message(k, m, mlen, len);
			wipe(k->hs, mlen);
		}
		if (err)
			return err;
	}
	return 0;
}

static int on_alert(struct ktls_state *k, const uint8_t *p, size_t len)
{
	if (len != 2)
		return ktls_fail(k, HS_ERR_TLS_BAD_ALERT, 0);
	if (p[1] == ALERT_CLOSE_NOTIFY) {
		k->peer_closed = 1;
		return 0;
	}
	if (p[1] == ALERT_USER_CANCELED) /* RFC 8446 6.1: the one other non-fatal alert */
		return 0;
	atomic_store(&k->peer_alert, p[1]);
	return ktls_fail(k, HS_ERR_TLS_PEER_ALERT, 0);
}

static int on_control(struct ktls_state *k, uint8_t type, const uint8_t *p, size_t len)
{
	if (type == HS_KTLS_ALERT)
		return on_alert(k, p, len);
	if (type == HS_KTLS_HANDSHAKE)
		return on_handshake(k, p, len);
	return ktls_fail(k, HS_ERR_TLS_UNEXPECTED_RECORD, 0);
}

static size_t take_pt(struct ktls_state *k, uint8_t *buf, size_t cap)
{
	size_t n = k->pt_len - k->pt_off;

	if (n > cap)
		n = cap;
	memcpy(buf, k->pt + k->pt_off, n);
	wipe(k->pt + k->pt_off, n);
	k->pt_off += n;
	if (k->pt_off == k->pt_len)
		k->pt_off = k->pt_len = 0;
	return n;
}

int hs_ktls_read(struct hs_ktls *pub, void *buf, size_t cap, size_t *n)
{
	struct ktls_state *k = ktls_of(pub);
	uint8_t *dst, type;
	size_t got, dcap;
	int err;

	*n = 0;
	if (cap == 0)
		return HS_ERR_ARG;
	for (;;) {
		if (k->pt_len > k->pt_off) {
			*n = take_pt(k, buf, cap);
			return 0;
		}
		if ((err = atomic_load(&k->err)) != 0)
			return err;
		if (k->peer_closed)
			return 0;
		/* a small buffer: receive into k->pt (a control record must fit) */
		if (cap < REC_MAX_PLAIN && (err = ktls_buf(k, &k->pt, KTLS_PT_CAP)) != 0)
			return err;
		dst = cap >= REC_MAX_PLAIN ? buf : k->pt;
		dcap = cap >= REC_MAX_PLAIN ? cap : REC_MAX_PLAIN;
		err = ktls_recv(k, &type, dst, dcap, &got);
		if (err)
			return err;
		if (type != HS_KTLS_HANDSHAKE && k->len > 0) {
			/* RFC 8446 5.1: no other record inside a split handshake message */
			wipe(dst, got);
			return ktls_fail(k, HS_ERR_TLS_UNEXPECTED_MSG, 0);
		}
		if (type != HS_KTLS_DATA) {
			err = on_control(k, type, dst, got);
			wipe(dst, got);
			if (err)
				return err;
		} else if (dst == buf) {
			*n = got;
			return 0;
		} else {
			k->pt_off = 0;
			k->pt_len = got;
		}
	}
}

int hs_ktls_write(struct hs_ktls *pub, const void *buf, size_t len)
{
	struct ktls_state *k = ktls_of(pub);
	int err = ktls_tx_check(k);

	if (err)
		return err;
	if (k->sent_close)
		return HS_ERR_TLS_CLOSED;
	k->tx_progress = 0; /* HS_ERR_WANT_WRITE only while none of this call is out */
	if (atomic_load(&k->want_update) && (err = key_update(k, 0)) != 0)
		return err;
	return ktls_send(k, HS_KTLS_DATA, buf, len);
}

int hs_ktls_send_record(struct hs_ktls *pub, uint8_t type, const void *buf, size_t len)
{
	struct ktls_state *k = ktls_of(pub);
	int err = ktls_tx_check(k);

	if (err)
		return err;
	k->tx_progress = 0;
	if (atomic_load(&k->want_update) && !k->sent_close && (err = key_update(k, 0)) != 0)
		return err;
	if (len > REC_MAX_PLAIN)
		return HS_ERR_TOO_LONG;
	if (len == 0 && type != HS_KTLS_DATA)
		return HS_ERR_ARG;
	return ktls_send(k, type, buf, len);
}

int hs_ktls_recv_record(struct hs_ktls *pub, uint8_t *type, void *buf, size_t cap, size_t *n)
{
	struct ktls_state *k = ktls_of(pub);
	int err;

	*n = 0;
	if (k->pt_len > k->pt_off) {
		*type = HS_KTLS_DATA;
		*n = take_pt(k, buf, cap);
		return 0;
	}
	if ((err = atomic_load(&k->err)) != 0)
		return err;
	return ktls_recv(k, type, buf, cap, n);
}

/*
 * For event loops that receive on a kernel-RX socket themselves (io_uring's
 * recvmsg with a TLS_GET_RECORD_TYPE cmsg): the same checks and handling as
 * hs_ktls_read, one record at a time.
 */
int hs_ktls_take_record(struct hs_ktls *pub, uint8_t type, const void *buf, size_t len)
{
	struct ktls_state *k = ktls_of(pub);
	int err = atomic_load(&k->err);

	if (err)
		return err;
	if (type != HS_KTLS_HANDSHAKE && k->len > 0) /* RFC 8446 5.1, as in hs_ktls_read */
		return ktls_fail(k, HS_ERR_TLS_UNEXPECTED_MSG, 0);
	if (type == HS_KTLS_DATA)
		return k->peer_closed ? ktls_fail(k, HS_ERR_TLS_UNEXPECTED_RECORD, 0) : 0;
	return on_control(k, type, buf, len);
}

int hs_ktls_peer_closed(const struct hs_ktls *pub) { return ktls_of_const(pub)->peer_closed; }

int hs_ktls_tx_owed(const struct hs_ktls *pub)
{
	const struct ktls_state *k = ktls_of_const(pub);

	return atomic_load(&k->alert) != KTLS_NO_ALERT ||
	       (atomic_load(&k->want_update) && !k->sent_close);
}

int hs_ktls_send_owed(struct hs_ktls *pub)
{
	struct ktls_state *k = ktls_of(pub);
	int err = ktls_tx_check(k);

	if (err)
		return err;
	k->tx_progress = 0;
	if (atomic_load(&k->want_update) && !k->sent_close)
		return key_update(k, 0);
	return 0;
}

int hs_ktls_send_alert(struct hs_ktls *pub, uint8_t level, uint8_t desc)
{
	struct ktls_state *k = ktls_of(pub);
	uint8_t a[2] = { level, desc };
	int err = ktls_tx_check(k);

	if (err)
		return err;
	if (k->sent_close)
		return HS_ERR_TLS_CLOSED;
	k->tx_progress = 0;
	err = ktls_send(k, HS_KTLS_ALERT, a, sizeof(a));
	if (err != HS_ERR_WANT_WRITE && (level == 2 || desc == ALERT_CLOSE_NOTIFY))
		k->sent_close = 1; /* on WANT_WRITE the call is made again */
	return err;
}

int hs_ktls_close(struct hs_ktls *pub)
{
	return hs_ktls_send_alert(pub, 1, ALERT_CLOSE_NOTIFY);
}
