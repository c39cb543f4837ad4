/*
 * Our records on the io_uring path after the handshake, without copies
 * (the engine's zero-copy calls, include/hs/tls.h hs_conn_open /
 * hs_conn_seal; record/ does the crypto):
 *
 * - Receive: each record is opened in place in the provided buffer it
 *   arrived in (a buffer holds a whole record: BUF_SIZE) and its plaintext
 *   handed to on_data from there, then wiped. A record cut by the end of a
 *   receive is carried in uc->part (one record, allocated then and freed
 *   once it is whole) and completed from the next buffer.
 * - Send: the application's bytes are copied once, into the chunk that
 *   will be sent (behind room for the header), and sealed there in place.
 *   Records the engine queues itself (a KeyUpdate answer) go first.
 *
 * Until the engine holds no part of a record (the buffer that completed the
 * handshake may carry more), records go through hs_conn_feed (conn.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "base/wipe.h"
#include "uring/internal.h"

#define PART_CAP (HS_RECORD_HEADER_LEN + 16384 + 256) /* one record (RFC 8446 5.2) */
#define SEAL_MAX 16384

/* A record's length on the wire from its header (5 bytes). */
static size_t wire_len(const uint8_t *h)
{
	return HS_RECORD_HEADER_LEN + (((size_t)h[3] << 8) | h[4]);
}

/* Open one whole record at p (len bytes of it, more after it are left). */
static int open_one(struct hs_uring_conn *uc, uint8_t *p, size_t len, size_t *used)
{
	uint8_t *data;
	size_t n;
	int err = hs_conn_open(uc->tls, p, len, used, &data, &n);

	if (err)
		return err;
	if (n > 0)
		conn_deliver(uc, data, n);
	wipe(p, *used); /* the plaintext, and the rest of the record */
	return conn_events(uc);
}

/* The carried record gets bytes from p; *took of them. 0 or an error. */
static int complete_part(struct hs_uring_conn *uc, uint8_t *p, size_t n, size_t *took)
{
	size_t want, used;
	int err;

	*took = 0;
	if (uc->part_len < HS_RECORD_HEADER_LEN) {
		size_t k = HS_RECORD_HEADER_LEN - uc->part_len;

		k = k < n ? k : n;
		memcpy(uc->part + uc->part_len, p, k);
		uc->part_len += k;
		*took += k;
		if (uc->part_len < HS_RECORD_HEADER_LEN)
			return 0;
	}
	want = wire_len(uc->part);
	if (want > PART_CAP)
		want = PART_CAP; /* too long: hs_conn_open refuses it (record_overflow) */
	if (want > uc->part_len) {
		size_t k = want - uc->part_len < n - *took ? want - uc->part_len : n - *took;

		memcpy(uc->part + uc->part_len, p + *took, k);
		uc->part_len += k;
		*took += k;
	}
	err = open_one(uc, uc->part, uc->part_len, &used);
	if (err == HS_ERR_WANT_READ && uc->part_len < PART_CAP)
		return 0; /* more to come */
	if (err == 0)
		uc->lp->st->records_carried++;
	records_free(uc);
	return err == HS_ERR_WANT_READ ? HS_ERR_TLS_RECORD_OVERFLOW : err;
}

void records_on_recv(struct hs_uring_conn *uc, uint8_t *p, size_t n)
{
	size_t off = 0, used = 0;
	int err = 0;

	if (uc->part != NULL) {
		err = complete_part(uc, p, n, &off);
		if (err == 0 && uc->part != NULL)
			return; /* all of p went into the carried record */
	}
	while (err == 0 && off < n && !uc->finish) {
		err = open_one(uc, p + off, n - off, &used);
		if (err == HS_ERR_TLS_STATE) {
			/* the engine still holds part of a record (the buffer that
			 * completed the handshake carried more): it gets the bytes
			 * that complete it, then records open in place again */
			size_t k = hs_conn_input_wanted(uc->tls);

			k = k < n - off ? k : n - off;
			conn_feed(uc, p + off, k);
			off += k;
			err = 0;
			continue;
		}
		if (err == HS_ERR_WANT_READ) { /* cut by the end of p: carry it */
			uc->part = malloc(PART_CAP);
			if (uc->part == NULL) {
				err = HS_ERR_NOMEM;
				break;
			}
			uc->part_len = n - off;
			memcpy(uc->part, p + off, uc->part_len);
			wipe(p + off, uc->part_len);
			return;
		}
		if (err == 0 && used == 0)
			break; /* after close_notify: nothing more is read */
		if (err == 0)
			uc->lp->st->records_in_place++;
		off += used;
	}
	if (err && !uc->finish) {
		(void)conn_flush(uc); /* the alert the engine queued */
		uc->finish = true;
	}
}

void records_free(struct hs_uring_conn *uc)
{
	if (uc->part == NULL)
		return;
	wipe(uc->part, uc->part_len);
	free(uc->part);
	uc->part = NULL;
	uc->part_len = 0;
}

int records_send(struct hs_uring_conn *uc, const uint8_t *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		size_t k = n - off < SEAL_MAX ? n - off : SEAL_MAX, out;
		struct chunk *c = chunk_new(uc->lp, k + HS_RECORD_OVERHEAD);
		int err;

		if (c == NULL)
			return HS_ERR_NOMEM;
		memcpy(c->data + HS_RECORD_HEADER_LEN, p + off, k);
		err = hs_conn_seal(uc->tls, c->data, k + HS_RECORD_OVERHEAD, k, &out);
		if (err == HS_ERR_WANT_WRITE) { /* the engine's own records go first */
			err = conn_flush(uc);
			if (err == 0)
				err = hs_conn_seal(uc->tls, c->data, k + HS_RECORD_OVERHEAD, k, &out);
		}
		if (err) {
			chunk_free(uc->lp, c);
			return err;
		}
		c->len = out;
		chunk_queue(uc, c);
		off += k;
	}
	return 0;
}
