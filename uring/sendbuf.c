/*
 * The loop's send buffers: chunks of output (struct chunk) come from
 * SEND_SLOTS slots of one region registered with the ring (fixed buffers),
 * or from the heap when the slots are taken or the chunk is larger than a
 * slot. A slot holds one record: its header sits just before a 64-byte
 * boundary, so the record's body, sealed in place, starts on one (the
 * AEADs' wide loads and stores then never straddle two cache lines).
 *
 * Zero-copy sends (IORING_OP_SEND_ZC) use the registered region when the
 * chunk is in it. The kernel posts a second completion (IORING_CQE_F_NOTIF)
 * when it no longer needs the bytes; a chunk is freed after both. Asked to
 * report it (IORING_SEND_ZC_REPORT_USAGE, Linux >= 6.2), the kernel says in
 * that notification when it copied the bytes after all (loopback always
 * does); in the automatic mode the connection then goes back to plain
 * sends, which cost less than a zero-copy send that copies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/wipe.h"
#include "uring/internal.h"

/* Each slot: the chunk's header, then the record with its body 64-byte aligned. */
#define SLOT_HEAD 128
#define SLOT_SIZE (SLOT_HEAD + SLOT_DATA)
_Static_assert(sizeof(struct chunk) + HS_RECORD_HEADER_LEN <= SLOT_HEAD, "slot header");
_Static_assert(SLOT_SIZE % 64 == 0, "slots keep the region's alignment");

void sendbuf_setup(struct loop *lp)
{
	struct io_uring_probe *pr = io_uring_get_probe_ring(&lp->ring);
	struct iovec iov;

	lp->zc_ok = pr != NULL && io_uring_opcode_supported(pr, IORING_OP_SEND_ZC);
	if (pr != NULL)
		io_uring_free_probe(pr);
	lp->slots = aligned_alloc(4096, (size_t)SEND_SLOTS * SLOT_SIZE);
	if (lp->slots == NULL)
		return; /* every chunk from the heap */
	for (unsigned i = 0; i < SEND_SLOTS; i++)
		lp->free_slot[i] = (uint16_t)(SEND_SLOTS - 1 - i);
	lp->n_free = SEND_SLOTS;
	/* counted against RLIMIT_MEMLOCK: refused, the slots still serve, without FIXED */
	iov.iov_base = lp->slots;
	iov.iov_len = (size_t)SEND_SLOTS * SLOT_SIZE;
	lp->slots_fixed = io_uring_register_buffers(&lp->ring, &iov, 1) == 0;
}

void sendbuf_teardown(struct loop *lp)
{
	if (lp->slots == NULL)
		return;
	if (lp->slots_fixed)
		(void)io_uring_unregister_buffers(&lp->ring);
	free(lp->slots); /* each chunk was wiped when freed */
	lp->slots = NULL;
}

struct chunk *chunk_new(struct loop *lp, size_t n)
{
	struct chunk *c;

	if (n <= SLOT_DATA && lp->n_free > 0) {
		unsigned s = lp->free_slot[--lp->n_free];
		uint8_t *base = lp->slots + (size_t)s * SLOT_SIZE;

		c = (struct chunk *)(void *)base;
		c->slot = (int)s;
		c->data = base + SLOT_HEAD - HS_RECORD_HEADER_LEN;
	} else {
		c = malloc(sizeof(*c) + n);
		if (c == NULL)
			return NULL;
		c->slot = -1;
		c->data = (uint8_t *)(c + 1);
	}
	c->next = NULL;
	c->uc = NULL;
	c->len = n;
	c->cap = n;
	c->off = 0;
	c->zc_refs = 0;
	c->sent = false;
	return c;
}

void chunk_free(struct loop *lp, struct chunk *c)
{
	wipe(c->data, c->cap); /* plaintext on the kernel path */
	if (c->slot >= 0)
		lp->free_slot[lp->n_free++] = (uint16_t)c->slot;
	else
		free(c);
}

/* The head chunk goes out with one zero-copy send (the caller chose it). */
void sendbuf_prep_zc(struct hs_uring_conn *uc, struct chunk *c, struct io_uring_sqe *sqe)
{
	struct loop *lp = uc->lp;
	size_t len = c->len - c->off;

	if (c->slot >= 0 && lp->slots_fixed)
		io_uring_prep_send_zc_fixed(sqe, uc->fd, c->data + c->off, len, MSG_NOSIGNAL,
					    IORING_SEND_ZC_REPORT_USAGE, 0);
	else
		io_uring_prep_send_zc(sqe, uc->fd, c->data + c->off, len, MSG_NOSIGNAL,
				      IORING_SEND_ZC_REPORT_USAGE);
	io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)c | OP_SEND_ZC);
	c->uc = uc;
	c->zc_refs++;
	lp->st->sends_zc++;
}

/* A completion of a zero-copy send of c: its result, or the notification. */
struct hs_uring_conn *sendbuf_on_zc(struct chunk *c, int res, unsigned flags)
{
	struct hs_uring_conn *uc = c->uc;
	struct loop *lp = uc->lp;

	if (flags & IORING_CQE_F_NOTIF) {
		uc->in_flight--;
		if ((unsigned)res & IORING_NOTIF_USAGE_ZC_COPIED) {
			lp->st->sends_zc_copied++;
			if (lp->cfg->send_zc == HS_URING_ZC_AUTO)
				uc->zc_off = true; /* it does not pay on this route */
		}
		if (--c->zc_refs == 0 && c->sent)
			chunk_free(lp, c);
		return uc;
	}
	if (!(flags & IORING_CQE_F_MORE)) { /* no notification will come */
		uc->in_flight--;
		c->zc_refs--;
	}
	if (res == -EINVAL || res == -EOPNOTSUPP) {
		/* a kernel without usage reports (< 6.2) or a socket without
		 * zero-copy: nothing was sent; plain sends from now on */
		lp->zc_ok = false;
		lp->st->sends_zc--;
		res = 0;
	}
	conn_on_send(uc, res);
	return uc;
}

bool sendbuf_want_zc(const struct hs_uring_conn *uc, const struct chunk *c)
{
	const struct loop *lp = uc->lp;

	if (!lp->zc_ok || uc->zc_off || uc->ktls != NULL || lp->cfg->send_zc == HS_URING_ZC_OFF)
		return false;
	return lp->cfg->send_zc == HS_URING_ZC_ALWAYS || c->len - c->off >= ZC_MIN;
}
