/*
 * Record I/O of one connection, on either path: the kernel's (sendmsg /
 * recvmsg with the TLS_SET_RECORD_TYPE / TLS_GET_RECORD_TYPE cmsg) or ours
 * (RFC 8446 5.2 records sealed with crypto/aead.h over plain send/recv).
 *
 * Implementation notes:
 * - Userspace records: nonce = IV XOR the 64-bit sequence number, padded on
 *   the left (RFC 8446 5.3); additional data = the 5-byte record header
 *   (5.2); the inner plaintext is content || type, never padded by us. On
 *   receipt the zero padding is stripped from the end: its length is not
 *   secret (it is the peer's choice of record size).
 * - Records are sealed and opened in place in k->out / k->in; nothing
 *   allocates. A received record's plaintext that does not fit the caller's
 *   buffer waits in k->pt.
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
#include "ktls/ktls.h"

int ktls_fail(struct hs_ktls *k, int err, int sys_errno)
{
	if (k->err)
		return k->err;
	k->err = err;
	k->sys_errno = sys_errno;
	/* An error we found in the peer's records: tell it (best effort). */
	if (err <= HS_ERR_TLS_FIRST && err >= HS_ERR_TLS_LAST && err != HS_ERR_TLS_PEER_ALERT &&
	    err != HS_ERR_TLS_CLOSED && !k->sent_close) {
		uint8_t alert[2] = { 2, (uint8_t)hs_err_alert(err) };
		k->sent_close = 1;
		if (ktls_send(k, HS_KTLS_ALERT, alert, sizeof(alert)) != 0)
			k->sys_errno = sys_errno; /* keep the first errno, not the alert's */
	}
	return err;
}

static int sys_err(struct hs_ktls *k, int e)
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
static int wait_writable(struct hs_ktls *k)
{
	struct pollfd pf = { .fd = k->fd, .events = POLLOUT };

	while (poll(&pf, 1, -1) < 0)
		if (errno != EINTR)
			return sys_err(k, errno);
	return 0;
}

/* ---- sending ---- */

static int send_raw(struct hs_ktls *k, uint8_t type, const uint8_t *p, size_t len)
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

static void make_nonce(const struct hs_ktls_dir *d, uint8_t nonce[HS_IV_LEN])
{
	memcpy(nonce, d->iv, HS_IV_LEN);
	for (int i = 0; i < 8; i++)
		nonce[HS_IV_LEN - 1 - i] ^= (uint8_t)(d->seq >> (8 * i));
}

/* Seal one record of at most HS_KTLS_PT_MAX bytes into k->out and send it. */
static int user_send_one(struct hs_ktls *k, uint8_t type, const uint8_t *p, size_t len)
{
	uint8_t nonce[HS_IV_LEN];
	size_t clen = len + 1 + HS_AEAD_TAG_LEN;
	uint8_t *hdr = k->out;
	int err;

	if (k->tx.seq == UINT64_MAX)
		return ktls_fail(k, HS_ERR_TLS_SEQ_EXHAUSTED, 0);
	hdr[0] = HS_KTLS_DATA;
	hdr[1] = 3;
	hdr[2] = 3;
	hdr[3] = (uint8_t)(clen >> 8);
	hdr[4] = (uint8_t)clen;
	memcpy(hdr + HS_KTLS_HDR, p, len);
	hdr[HS_KTLS_HDR + len] = type;
	make_nonce(&k->tx, nonce);
	k->aead->seal(ktls_aead_ctx(&k->tx), nonce, hdr, HS_KTLS_HDR, hdr + HS_KTLS_HDR, len + 1,
		      hdr + HS_KTLS_HDR);
	k->tx.seq++;
	err = send_raw(k, HS_KTLS_DATA, hdr, HS_KTLS_HDR + clen);
	/*
	 * Not one byte of the record left: it is sealed again on the next try
	 * with the same sequence number. That reuses the nonce only for a
	 * ciphertext nobody saw (it never left this buffer).
	 */
	if (err == HS_ERR_WANT_WRITE)
		k->tx.seq--;
	return err;
}

int ktls_send(struct hs_ktls *k, uint8_t type, const uint8_t *p, size_t len)
{
	int err;

	if (k->tx.path == HS_KTLS_PATH_KERNEL)
		return len == 0 && type == HS_KTLS_DATA ? 0 : send_raw(k, type, p, len);
	do {
		size_t n = len < HS_KTLS_PT_MAX ? len : HS_KTLS_PT_MAX;
		err = user_send_one(k, type, p, n);
		if (err)
			return err;
		p += n;
		len -= n;
	} while (len > 0);
	return 0;
}

/* ---- receiving ---- */

static int kernel_recv(struct hs_ktls *k, uint8_t *type, uint8_t *buf, size_t cap, size_t *n)
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
static int fill(struct hs_ktls *k, size_t need)
{
	struct msghdr m;
	struct iovec iov;
	ssize_t r;

	while (k->in_len - k->in_off < need) {
		if (k->in_off + need > sizeof(k->in)) {
			memmove(k->in, k->in + k->in_off, k->in_len - k->in_off);
			k->in_len -= k->in_off;
			k->in_off = 0;
		}
		memset(&m, 0, sizeof(m));
		iov.iov_base = k->in + k->in_len;
		iov.iov_len = sizeof(k->in) - k->in_len;
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

/* Open the record at k->in + in_off in place; *body, *len = inner content. */
static int user_open(struct hs_ktls *k, uint8_t *type, uint8_t **body, size_t *len)
{
	uint8_t nonce[HS_IV_LEN];
	uint8_t *hdr;
	size_t clen, plen;
	int err;

	err = fill(k, HS_KTLS_HDR);
	if (err)
		return err;
	hdr = k->in + k->in_off;
	/* RFC 8446 5.2: protected records are application_data, version 0x0303 */
	if (hdr[0] != HS_KTLS_DATA)
		return ktls_fail(k, HS_ERR_TLS_UNEXPECTED_RECORD, 0);
	if (hdr[1] != 3 || hdr[2] != 3)
		return ktls_fail(k, HS_ERR_TLS_RECORD_HEADER, 0);
	clen = ((size_t)hdr[3] << 8) | hdr[4];
	if (clen > HS_KTLS_CT_MAX)
		return ktls_fail(k, HS_ERR_TLS_RECORD_OVERFLOW, 0);
	if (clen <= HS_AEAD_TAG_LEN)
		return ktls_fail(k, HS_ERR_TLS_BAD_RECORD_MAC, 0);
	err = fill(k, HS_KTLS_HDR + clen);
	if (err)
		return err;
	hdr = k->in + k->in_off; /* fill may have moved it */
	make_nonce(&k->rx, nonce);
	if (k->aead->open(ktls_aead_ctx(&k->rx), nonce, hdr, HS_KTLS_HDR, hdr + HS_KTLS_HDR, clen,
			  hdr + HS_KTLS_HDR) != 0)
		return ktls_fail(k, HS_ERR_TLS_BAD_RECORD_MAC, 0);
	k->rx.seq++;
	k->in_off += HS_KTLS_HDR + clen;
	plen = clen - HS_AEAD_TAG_LEN;
	while (plen > 0 && hdr[HS_KTLS_HDR + plen - 1] == 0)
		plen--;
	if (plen == 0)
		return ktls_fail(k, HS_ERR_TLS_UNEXPECTED_MSG, 0);
	*type = hdr[HS_KTLS_HDR + plen - 1];
	*len = plen - 1;
	if (*len > HS_KTLS_PT_MAX)
		return ktls_fail(k, HS_ERR_TLS_RECORD_OVERFLOW, 0);
	/* RFC 8446 5.4: zero-length fragments are allowed only for application data */
	if (*len == 0 && *type != HS_KTLS_DATA)
		return ktls_fail(k, HS_ERR_TLS_EMPTY_RECORD, 0);
	*body = hdr + HS_KTLS_HDR;
	return 0;
}

static int user_recv(struct hs_ktls *k, uint8_t *type, uint8_t *buf, size_t cap, size_t *n)
{
	uint8_t *body = NULL;
	size_t len = 0;
	int err;

	do /* skip empty application data records */
		err = user_open(k, type, &body, &len);
	while (!err && len == 0);
	if (err)
		return err;
	if (len > cap && *type != HS_KTLS_DATA)
		return ktls_fail(k, HS_ERR_NO_SPACE, 0);
	*n = len < cap ? len : cap;
	memcpy(buf, body, *n);
	if (len > *n)
		err = hs_ktls_push_plaintext(k, body + *n, len - *n);
	hs_wipe(body, len);
	return err;
}

int ktls_recv(struct hs_ktls *k, uint8_t *type, uint8_t *buf, size_t cap, size_t *n)
{
	*n = 0;
	if (k->rx.path == HS_KTLS_PATH_KERNEL)
		return kernel_recv(k, type, buf, cap, n);
	return user_recv(k, type, buf, cap, n);
}
