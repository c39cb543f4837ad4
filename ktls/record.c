/*
 * Record I/O of one connection, on either path: the kernel's (sendmsg /
 * recvmsg with the TLS_SET_RECORD_TYPE / TLS_GET_RECORD_TYPE cmsg) or ours
 * (RFC 8446 5.2 records from record/, the engine's record layer, over plain
 * send/recv), and the sticky error shared by the reader and the writer.
 *
 * Implementation notes:
 * - Userspace records: header checks, nonce, seal, open, padding and every
 *   limit are record/'s (rec_*), so a bad record gives the same error
 *   here as in the engine. We never pad.
 * - Records are sealed into k->out; a received record is opened straight
 *   into the caller's buffer when its whole inner plaintext fits there
 *   (rec_open_to: no copy, no plaintext left in k->in), else in place in
 *   k->in and copied. The buffers are allocated the first time a path needs
 *   them (ktls_buf). A received record's plaintext that
 *   does not fit the caller's buffer waits in k->pt.
 * - The sticky error is an atomic set once (compare-exchange from 0). The
 *   reader never sends: ktls_fail records the alert, ktls_tx_check (writer
 *   side) sends it, and the send loop stops at the next record once an
 *   error is set, so the TX sequence number and k->out have one owner.
 * - Syscalls go through k->ops (tests replace them). EINTR is retried.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include <linux/tls.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "base/wipe.h"
#include "hs/tls.h"
#include "ktls/internal.h"

int ktls_fail(struct ktls_state *k, int err, int sys_errno)
{
	int first = 0;

	if (!atomic_compare_exchange_strong(&k->err, &first, err))
		return first; /* the first error stays */
	atomic_store(&k->sys_errno, sys_errno);
	/* An error we found in the peer's records: the writer tells it (best effort). */
	if (err <= HS_ERR_TLS_FIRST && err >= HS_ERR_TLS_LAST && err != HS_ERR_TLS_PEER_ALERT &&
	    err != HS_ERR_TLS_CLOSED)
		atomic_store(&k->alert, hs_err_alert(err));
	return err;
}

static int sys_err(struct ktls_state *k, int e)
{
	switch (e) {
	case EBADMSG: return ktls_fail(k, HS_ERR_TLS_BAD_RECORD_MAC, e);
	case EPIPE:
	case ECONNRESET: return ktls_fail(k, HS_ERR_TLS_CLOSED, e);
	case EMSGSIZE: return ktls_fail(k, HS_ERR_TLS_RECORD_OVERFLOW, e);
	case EKEYEXPIRED: return ktls_fail(k, HS_ERR_TLS_STATE, e);
	default: return ktls_fail(k, HS_ERR_INTERNAL, e);
	}
}

static int would_block(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK;
}

/* Part of a write is out: wait for room to send the rest (non-blocking socket). */
static int wait_writable(struct ktls_state *k)
{
	struct pollfd pf = { .fd = k->fd, .events = POLLOUT };

	while (poll(&pf, 1, -1) < 0)
		if (errno != EINTR)
			return sys_err(k, errno);
	return 0;
}

/* ---- sending ---- */

static int send_raw(struct ktls_state *k, uint8_t type, const uint8_t *p, size_t len)
{
	union {
		char buf[CMSG_SPACE(1)];
		struct cmsghdr align;
	} cb;
	struct msghdr m;
	struct iovec iov;
	struct cmsghdr *cm;
	ssize_t r;

	do {
		memset(&m, 0, sizeof(m));
		iov.iov_base = (void *)p;
		iov.iov_len = len;
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		if (type != HS_KTLS_DATA) {
			/* kernel TX: the record type rides in a cmsg */
			memset(&cb, 0, sizeof(cb));
			m.msg_control = cb.buf;
			m.msg_controllen = sizeof(cb.buf);
			cm = CMSG_FIRSTHDR(&m);
			cm->cmsg_level = SOL_TLS;
			cm->cmsg_type = TLS_SET_RECORD_TYPE;
			cm->cmsg_len = CMSG_LEN(1);
			*CMSG_DATA(cm) = type;
		}
		r = k->ops.sendmsg(k->ops.user, k->fd, &m, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && would_block(errno) && !k->tx_progress)
			return HS_ERR_WANT_WRITE; /* nothing of this call sent: it is made again */
		if (r < 0 && would_block(errno)) {
			int err = wait_writable(k);
			if (err)
				return err;
			continue;
		}
		if (r < 0)
			return sys_err(k, errno);
		k->tx_progress = 1;
		p += r;
		len -= (size_t)r;
	} while (len > 0);
	return 0;
}

/* Seal one record of at most 2^14 bytes into k->out and send it. */
static int user_send_one(struct ktls_state *k, uint8_t type, const uint8_t *p, size_t len)
{
	struct writer w;
	int e = ktls_buf(k, &k->out, KTLS_OUT_CAP);

	if (e)
		return e;
	w = writer_init(k->out, KTLS_OUT_CAP);
	int err = rec_seal(&k->tx.rec, type, REC_LEGACY_VERSION, p, len, 0, &w);

	if (err)
		return ktls_fail(k, err, 0);
	err = send_raw(k, HS_KTLS_DATA, k->out, w.len);
	/*
	 * Not one byte of the record left: it is sealed again on the next try
	 * with the same sequence number. That reuses the nonce only for a
	 * ciphertext nobody saw (it never left this buffer).
	 */
	if (err == HS_ERR_WANT_WRITE)
		k->tx.rec.seq--;
	return err;
}

/* Send len bytes as records of type; stop_at_err: give up at a sticky error. */
static int send_records(struct ktls_state *k, uint8_t type, const uint8_t *p, size_t len,
			int stop_at_err)
{
	int err;

	if (stop_at_err && atomic_load(&k->err) != 0)
		return ktls_tx_check(k);
	if (k->tx.path == HS_KTLS_PATH_KERNEL) /* the kernel cuts the records */
		return len == 0 && type == HS_KTLS_DATA ? 0 : send_raw(k, type, p, len);
	do {
		size_t n = len < REC_MAX_PLAIN ? len : REC_MAX_PLAIN;
		if (stop_at_err && atomic_load(&k->err) != 0)
			return ktls_tx_check(k); /* the reader (or we) failed: no more records */
		err = user_send_one(k, type, p, n);
		if (err)
			return err;
		p += n;
		len -= n;
	} while (len > 0);
	return 0;
}

int ktls_send(struct ktls_state *k, uint8_t type, const uint8_t *p, size_t len)
{
	return send_records(k, type, p, len, 1);
}

int ktls_tx_check(struct ktls_state *k)
{
	int err = atomic_load(&k->err), alert;

	if (err == 0)
		return 0;
	alert = atomic_exchange(&k->alert, KTLS_NO_ALERT);
	if (alert != KTLS_NO_ALERT && !k->sent_close) {
		uint8_t a[2] = { 2, (uint8_t)alert };
		k->sent_close = 1;
		k->tx_progress = 0;
		(void)send_records(k, HS_KTLS_ALERT, a, sizeof(a), 0); /* best effort */
	}
	return err;
}

/* ---- receiving ---- */

static int kernel_recv(struct ktls_state *k, uint8_t *type, uint8_t *buf, size_t cap, size_t *n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct msghdr m;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct cmsghdr *cm;
	ssize_t r;

	do {
		memset(&m, 0, sizeof(m));
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = cb.buf;
		m.msg_controllen = sizeof(cb.buf);
		r = k->ops.recvmsg(k->ops.user, k->fd, &m, 0);
	} while (r < 0 && errno == EINTR);
	if (r < 0 && would_block(errno))
		return HS_ERR_WANT_READ; /* not sticky */
	if (r < 0)
		return sys_err(k, errno);
	if (r == 0)
		return ktls_fail(k, HS_ERR_TLS_CLOSED, 0);
	*type = HS_KTLS_DATA;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_TLS && cm->cmsg_type == TLS_GET_RECORD_TYPE)
			*type = *CMSG_DATA(cm);
	*n = (size_t)r;
	return 0;
}

/* Make at least need bytes available in k->in[in_off...]. */
static int fill(struct ktls_state *k, size_t need)
{
	struct msghdr m;
	struct iovec iov;
	ssize_t r;
	int err = ktls_buf(k, &k->in, KTLS_IN_CAP);

	if (err)
		return err;
	while (k->in_len - k->in_off < need) {
		if (k->in_off + need > KTLS_IN_CAP) {
			memmove(k->in, k->in + k->in_off, k->in_len - k->in_off);
			k->in_len -= k->in_off;
			k->in_off = 0;
		}
		memset(&m, 0, sizeof(m));
		iov.iov_base = k->in + k->in_len;
		iov.iov_len = KTLS_IN_CAP - k->in_len;
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		r = k->ops.recvmsg(k->ops.user, k->fd, &m, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && would_block(errno))
			return HS_ERR_WANT_READ; /* what came so far stays in k->in */
		if (r < 0)
			return sys_err(k, errno);
		if (r == 0)
			return ktls_fail(k, HS_ERR_TLS_CLOSED, 0);
		k->in_len += (size_t)r;
	}
	return 0;
}

/*
 * Open the record at k->in + in_off: into out when it holds the whole
 * inner plaintext (record/'s rec_open_to: no copy, and k->in keeps only
 * ciphertext), else in place; *body, *len = the content.
 */
static int user_open(struct ktls_state *k, uint8_t *type, uint8_t *out, size_t cap,
		     uint8_t **body, size_t *len)
{
	uint8_t *hdr;
	size_t clen;
	int err;

	err = fill(k, REC_HDR);
	if (err)
		return err;
	hdr = k->in + k->in_off;
	err = rec_check_header(hdr, 1, &clen);
	/* RFC 8446 5: a CCS after the handshake is unexpected (the engine's
	 * HS_ERR_TLS_BAD_CCS); 5.2: every other record is protected, type 23 */
	if (!err && hdr[0] == REC_CCS)
		err = HS_ERR_TLS_BAD_CCS;
	else if (!err && hdr[0] != REC_APP)
		err = HS_ERR_TLS_UNEXPECTED_RECORD;
	if (err)
		return ktls_fail(k, err, 0);
	err = fill(k, REC_HDR + clen);
	if (err)
		return err;
	hdr = k->in + k->in_off; /* fill may have moved it */
	if (clen >= HS_AEAD_TAG_LEN && cap >= clen - HS_AEAD_TAG_LEN) {
		err = rec_open_to(&k->rx.rec, hdr, clen, out, cap, type, len);
		*body = out;
	} else {
		err = rec_open(&k->rx.rec, hdr, clen, type, len);
		*body = hdr + REC_HDR;
	}
	if (err)
		return ktls_fail(k, err, 0);
	k->in_off += REC_HDR + clen;
	return 0;
}

static int user_recv(struct ktls_state *k, uint8_t *type, uint8_t *buf, size_t cap, size_t *n)
{
	uint8_t *body = NULL;
	size_t len = 0;
	int err;

	do /* skip empty application data records */
		err = user_open(k, type, buf, cap, &body, &len);
	while (!err && len == 0);
	if (err)
		return err;
	if (body == buf) { /* opened straight into the caller's buffer */
		*n = len;
		return 0;
	}
	if (len > cap && *type != HS_KTLS_DATA)
		return ktls_fail(k, HS_ERR_NO_SPACE, 0);
	*n = len < cap ? len : cap;
	memcpy(buf, body, *n);
	if (len > *n)
		err = ktls_push_pt(k, body + *n, len - *n);
	wipe(body, len);
	return err;
}

int ktls_recv(struct ktls_state *k, uint8_t *type, uint8_t *buf, size_t cap, size_t *n)
{
	*n = 0;
	if (k->rx.path == HS_KTLS_PATH_KERNEL)
		return kernel_recv(k, type, buf, cap, n);
	return user_recv(k, type, buf, cap, n);
}
