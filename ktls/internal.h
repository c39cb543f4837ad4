/*
 * ktls/ private: the connection state behind the opaque struct hs_ktls, and
 * the helpers its files share.
 *
 * Threads (include/hs/ktls.h): the reader owns the "reader" fields below and
 * the writer the "writer" ones; the only fields both touch are the atomics.
 * The reader never sends: an error it finds records the alert to send in
 * `alert`, and the writer side sends it (ktls_tx_check).
 */
#ifndef HS_KTLS_INTERNAL_H
#define HS_KTLS_INTERNAL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "crypto/aead.h"
#include "crypto/hash.h"
#include "hs/ktls.h"
#include "record/record.h"

#ifndef SOL_TLS
#define SOL_TLS 282
#endif
#ifndef TCP_ULP
#define TCP_ULP 31
#endif

/*
 * The buffers, allocated the first time a path needs them (ktls_buf) and
 * wiped and freed by hs_ktls_wipe: a connection on the kernel path both
 * ways holds none of them.
 */
#define KTLS_HS_CAP (4 + REC_MSG_MAX)
#define KTLS_IN_CAP (2 * REC_MAX_WIRE)
#define KTLS_PT_CAP (REC_MAX_PLAIN + 1)
#define KTLS_OUT_CAP REC_MAX_WIRE

/* No alert waiting for the writer. */
#define KTLS_NO_ALERT (-1)

struct ktls_dir {
	/*
	 * secret, IV and sequence number; the keyed AEAD on the userspace path
	 * (on the kernel path rec.on is 0: the kernel has the key)
	 */
	struct rec_key rec;
	enum hs_ktls_path path;
	enum hs_ktls_why why;
	int why_errno;
};

struct ktls_state {
	int fd;
	unsigned flags;
	const struct hs_ktls_cipher *cipher;
	struct hs_ktls_ops ops;
	struct ktls_dir tx, rx; /* tx: the writer's; rx: the reader's */
	int no_pad;             /* kernel RX has TLS_RX_EXPECT_NO_PAD */
	int adopted;            /* hs_ktls_adopt: the kernel has the keys, we have no secrets */

	/* shared by reader and writer */
	atomic_int err;         /* sticky: the first error wins (compare-exchange from 0) */
	atomic_int sys_errno;   /* errno behind err, if any (stored by the winner) */
	atomic_int alert;       /* fatal alert the writer still has to send, or KTLS_NO_ALERT */
	atomic_int want_update; /* peer asked for our KeyUpdate: the next write sends it */
	atomic_int peer_alert;  /* alert description received, -1 if none */

	/* reader only */
	int peer_closed;
	unsigned key_updates_rx;
	hs_ktls_handshake_fn on_handshake;
	void *on_handshake_arg;
	struct hs_conn *conn; /* hs_ktls_attach's engine: post-handshake messages go to it */
	/* a post-handshake message split across records, [0, len) so far */
	size_t len;
	uint8_t *hs; /* KTLS_HS_CAP, allocated when a message is split (ktls_buf) */
	/* userspace RX: raw bytes received, [in_off, in_len) not yet used */
	size_t in_off, in_len;
	uint8_t *in; /* KTLS_IN_CAP, allocated on the userspace RX path */
	/* plaintext waiting for hs_ktls_read: [pt_off, pt_len) */
	size_t pt_off, pt_len;
	uint8_t *pt; /* KTLS_PT_CAP, allocated when a record's plaintext must wait */

	/* writer only */
	int sent_close;  /* close_notify or a fatal alert is out: nothing more is sent */
	int tx_progress; /* the current call has sent bytes (EAGAIN then waits) */
	unsigned key_updates_tx;
	uint8_t *out; /* KTLS_OUT_CAP, userspace TX: one sealed record (allocated on that path) */
};

_Static_assert(sizeof(struct ktls_state) <= sizeof(struct hs_ktls),
	      "struct ktls_state outgrew HS_KTLS_SIZE");
_Static_assert(alignof(struct ktls_state) <= alignof(struct hs_ktls),
	      "struct ktls_state needs more alignment than struct hs_ktls gives");

/* *b (cap bytes) allocated if it is not yet: 0, or the sticky HS_ERR_NOMEM. */
int ktls_buf(struct ktls_state *k, uint8_t **b, size_t cap);

/* The state inside the caller's opaque object. */
static inline struct ktls_state *ktls_of(struct hs_ktls *k)
{
	return (struct ktls_state *)(void *)k->opaque;
}

static inline const struct ktls_state *ktls_of_const(const struct hs_ktls *k)
{
	return (const struct ktls_state *)(const void *)k->opaque;
}

/* setsockopt TLS_TX/TLS_RX with this key, IV and next sequence number; 0 or errno. */
/* desc.c: the crypto/ tables of a descriptor row */
const struct aead *ktls_cipher_aead(const struct hs_ktls_cipher *c);
const struct hash *ktls_cipher_hash(const struct hs_ktls_cipher *c);

int ktls_set_conf(struct ktls_state *k, int name, const uint8_t *key, const uint8_t *iv,
		  uint64_t seq);
enum hs_ktls_why ktls_why_ulp(int e);
enum hs_ktls_why ktls_why_conf(int e, const struct hs_ktls_cipher *c);

/* Record-level I/O of one direction (record.c). ktls_send stops at a sticky error. */
HS_MUST_CHECK int ktls_send(struct ktls_state *k, uint8_t type, const uint8_t *p, size_t len);
HS_MUST_CHECK int ktls_recv(struct ktls_state *k, uint8_t *type, uint8_t *buf, size_t cap,
			    size_t *n);
/*
 * Record the first fatal error (and, for an error in the peer's records,
 * the alert the writer sends); returns the sticky error. Either side may
 * call it; it never sends.
 */
int ktls_fail(struct ktls_state *k, int err, int sys_errno);
/*
 * Writer side, at the start of each call that sends: 0, or the sticky
 * error, after sending the alert it left (once).
 */
int ktls_tx_check(struct ktls_state *k);
/* Plaintext into k->pt (hs_ktls_push_plaintext's body). */
HS_MUST_CHECK int ktls_push_pt(struct ktls_state *k, const uint8_t *p, size_t len);

#endif
