/*
 * libhs internals shared by the engine's files. Not installed, not public.
 *
 * Layout of a connection (struct hs_conn, conn.c owns it; memory on demand,
 * libhs/README.md "Memory"):
 *   struct hs_conn   the small header: state, negotiated parameters, the
 *                    key schedule's kept secrets, pointers to the rest
 *   keys             the record keys of both directions (struct conn_keys),
 *                    from hs_conn_new() until hs_conn_handoff()
 *   hs               handshake-only state (struct conn_hs: transcript, key
 *                    exchange, the peer's key), freed when the handshake ends
 *   in               one received record (header + body), opened in place;
 *                    decrypted application data stays there until
 *                    hs_conn_read() drains it
 *   handshake_in     handshake bytes being reassembled into whole messages
 *   handshake_out    our handshake messages not yet sealed into records
 *   out              sealed records waiting for hs_conn_pull()
 *   peer_certs       the peer's chain (hs_conn_peer_cert), exact size
 *   tickets          client: tickets kept (keep_tickets), from the first one
 * Each buffer is allocated when a byte must be stored in it, grows as
 * needed up to its limit, and is wiped and freed when it is empty at the end
 * of an API call (conn_idle). conn_mem_alloc / conn_mem_free count every
 * byte (hs_conn_memory).
 */
#ifndef HS_LIBHS_INTERNAL_H
#define HS_LIBHS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/reader.h"
#include "base/writer.h"
#include "crypto/aead.h"
#include "crypto/hash.h"
#include "crypto/kx.h"
#include "crypto/sig.h"
#include "hs/cred.h"
#include "hs/secrets.h"
#include "hs/tls.h"
#include "record/record.h"
#include "x509/x509.h"

/* record sizes: record/record.h (RFC 8446 5.1 / 5.2) */
/*
 * Largest handshake message body we take: the largest ClientHello the
 * length fields allow (2 + 32 + 1+32 + 2+65534 + 1+255 + 2+65535, the
 * limit OpenSSL uses too); a peer's Certificate may use as much (OpenSSL's
 * default max_cert_list is 100 KiB, BoringSSL's is less). Post-handshake
 * messages stay within REC_MSG_MAX, the limit ktls/ applies too.
 */
#define HANDSHAKE_IN_MAX 131396
/* Our pending handshake messages: a second ClientHello echoing the
 * largest cookie (2^16-1) still fits, with room for the rest. */
#define HANDSHAKE_OUT_MAX (65536 + 8192)
/* Our sealed records waiting to be pulled, at most (a handshake flight
 * with a large chain); application data is queued one record at a time. */
#define OUT_CAP (5 * (REC_HDR + REC_MAX_CIPHER))
/* Room for application data: one full record plus a KeyUpdate before it
 * and an alert after it. */
#define OUT_DATA_CAP (REC_MAX_WIRE + 128)
#include "libhs/test_hooks.h"
#define MAX_OFFERED 24
#define HASH_MAX 48
#define SPKI_MAX 1200
#define NAME_MAX_LEN 255
#define HOST_NAME_MAX_LEN 253 /* RFC 1035 2.3.4, written without the final dot */
#define COOKIE_MAX 255 /* the server's own cookie (32 bytes, or a test's) */
#define TICKET_MAX 2048
#define PEER_MAX_CERTS 10 /* = HS_X509_MAX_CHAIN */

enum content_type { CT_CCS = 20, CT_ALERT = 21, CT_HANDSHAKE = 22, CT_APP = 23 };

enum handshake_type {
	HT_CLIENT_HELLO = 1,
	HT_SERVER_HELLO = 2,
	HT_NEW_SESSION_TICKET = 4,
	HT_END_OF_EARLY_DATA = 5,
	HT_ENCRYPTED_EXTENSIONS = 8,
	HT_CERTIFICATE = 11,
	HT_CERTIFICATE_REQUEST = 13,
	HT_CERTIFICATE_VERIFY = 15,
	HT_FINISHED = 20,
	HT_KEY_UPDATE = 24,
	HT_MESSAGE_HASH = 254,
};

enum ext_type {
	EXT_SERVER_NAME = 0,
	EXT_MAX_FRAGMENT_LENGTH = 1,
	EXT_SUPPORTED_GROUPS = 10,
	EXT_SIG_ALGS = 13,
	EXT_ALPN = 16,
	EXT_RECORD_SIZE_LIMIT = 28,
	EXT_PRE_SHARED_KEY = 41,
	EXT_EARLY_DATA = 42,
	EXT_SUPPORTED_VERSIONS = 43,
	EXT_COOKIE = 44,
	EXT_PSK_MODES = 45,
	EXT_CERT_AUTHORITIES = 47,
	EXT_SIG_ALGS_CERT = 50,
	EXT_KEY_SHARE = 51,
};

enum alert_desc {
	AL_CLOSE_NOTIFY = 0,
	AL_UNEXPECTED_MESSAGE = 10,
	AL_BAD_RECORD_MAC = 20,
	AL_RECORD_OVERFLOW = 22,
	AL_HANDSHAKE_FAILURE = 40,
	AL_BAD_CERTIFICATE = 42,
	AL_UNSUPPORTED_CERTIFICATE = 43,
	AL_CERTIFICATE_EXPIRED = 45,
	AL_CERTIFICATE_UNKNOWN = 46,
	AL_ILLEGAL_PARAMETER = 47,
	AL_UNKNOWN_CA = 48,
	AL_DECODE_ERROR = 50,
	AL_DECRYPT_ERROR = 51,
	AL_PROTOCOL_VERSION = 70,
	AL_INSUFFICIENT_SECURITY = 71,
	AL_INTERNAL_ERROR = 80,
	AL_USER_CANCELED = 90,
	AL_MISSING_EXTENSION = 109,
	AL_UNSUPPORTED_EXTENSION = 110,
	AL_UNRECOGNIZED_NAME = 112,
	AL_CERTIFICATE_REQUIRED = 116,
	AL_NO_APPLICATION_PROTOCOL = 120,
};

#define TLS13_VERSION 0x0304
#define TLS12_VERSION 0x0303

/* ---- suites.c: the algorithm tables ---- */

struct suite {
	uint16_t id;
	const char *name;
	const struct aead *(*aead)(void);
	const struct hash *(*hash)(void);
	size_t key_len;
	uint64_t record_limit; /* RFC 8446 5.5: records per key */
};

struct group {
	uint16_t id;
	const char *name;
	const struct kx *kx;
};

struct sigscheme {
	uint16_t id;
	const char *name;
	const struct sig *sig;
	enum key_type key;
};

const struct suite *suite_find(uint16_t id);
const struct group *group_find(uint16_t id);
const struct sigscheme *sigscheme_find(uint16_t id);
extern const uint16_t default_suites[];
extern const size_t n_default_suites;
extern const uint16_t default_groups[];
extern const size_t n_default_groups;
extern const uint16_t default_sigs[];
extern const size_t n_default_sigs;
/* signature_algorithms_cert: what x509/sig.c verifies in certificates */
extern const uint16_t cert_sigs[];
extern const size_t n_cert_sigs;
/* GREASE code points (RFC 8701): 0x?a?a with equal bytes. */
int is_grease(uint16_t v);

/* ---- transcript.c ---- */

struct transcript {
	union hash_ctx c256, c384; /* both run until the suite picks one */
	const struct hash *h;      /* NULL until chosen */
};

void transcript_init(struct transcript *t);
void transcript_update(struct transcript *t, const uint8_t *p, size_t n);
void transcript_choose(struct transcript *t, const struct hash *h);
/* Current hash (digest_len bytes) without disturbing the running state. */
void transcript_hash(const struct transcript *t, uint8_t *out);
/* HRR (RFC 8446 4.4.1): replace ClientHello1 by message_hash(Hash(CH1)). */
void transcript_hrr_restart(struct transcript *t);
void transcript_wipe(struct transcript *t);
/* Hash h of the transcript so far followed by p[0..n) (PSK binders: the
 * partial ClientHello), without touching the running state. */
void transcript_hash_plus(const struct transcript *t, const struct hash *h, const uint8_t *p,
			  size_t n, uint8_t *out);

/* ---- keysched.c (RFC 8446 7.1) ---- */

struct keysched {
	const struct hash *h;
	size_t len;
	uint8_t stage[HASH_MAX]; /* early, then handshake, then master secret */
	uint8_t handshake_secret[HASH_MAX];
	int has_salt;
	uint8_t c_hs[HASH_MAX], s_hs[HASH_MAX];
	/*
	 * salt: Derive-Secret(stage, "derived", ""), the salt of the next
	 * Extract, once has_salt (a constant without PSK, else derived with
	 * the handshake traffic secrets); keysched_master consumes it and
	 * writes c_ap over it (the same bytes: no per-connection cost)
	 */
	union {
		uint8_t salt[HASH_MAX];
		uint8_t c_ap[HASH_MAX];
	};
	uint8_t s_ap[HASH_MAX];
	/* resumption_master_secret: server until its tickets are sealed,
	 * client until free (tickets may come at any time) */
	uint8_t res_master[HASH_MAX];
	/* exporter_master_secret (7.5): kept until free, exporters may be
	 * asked for at any time */
	uint8_t exp_master[HASH_MAX];
	/* 0-RTT (early.c): client_early_traffic_secret until a record key
	 * holds it; early_exporter_master_secret until free */
	uint8_t c_e[HASH_MAX], e_exp[HASH_MAX];
	const struct hash *e_h; /* the PSK's hash (a client's may differ from h) */
};

HS_MUST_CHECK int keysched_start(struct keysched *ks, const struct hash *h);
HS_MUST_CHECK int keysched_handshake(struct keysched *ks, const uint8_t *shared, size_t shared_len,
				  const uint8_t *th);
/* early secret from a PSK (keysched_start: from zeros) */
HS_MUST_CHECK int keysched_start_psk(struct keysched *ks, const struct hash *h,
				     const uint8_t *psk, size_t psk_len);
/* binder_key (7.1, "res binder") from the early secret in stage */
HS_MUST_CHECK int keysched_binder_key(const struct keysched *ks, int external, uint8_t *out);
/* res_master from the master secret in stage; th = CH..client Finished */
HS_MUST_CHECK int keysched_resumption(struct keysched *ks, const uint8_t *th);
/* c_e and e_exp from the early secret in stage; th = Hash(ClientHello) */
HS_MUST_CHECK int keysched_early(struct keysched *ks, const uint8_t *th);
/* 7.5 TLS-Exporter from exp_master (early: from e_exp) */
HS_MUST_CHECK int keysched_export(const struct keysched *ks, int early, const char *label,
				  const uint8_t *ctx, size_t ctx_len, uint8_t *out, size_t out_len);
HS_MUST_CHECK int keysched_master(struct keysched *ks, const uint8_t *th);
HS_MUST_CHECK int keysched_finished(const struct hash *h, const uint8_t *base, const uint8_t *th,
				 uint8_t *out);
void keysched_wipe(struct keysched *ks);
/* Wipe one secret of ks (c_hs, s_hs, c_ap, s_ap, or stage: the master). */
void keysched_forget(uint8_t secret[HASH_MAX]);

/* ---- resume.c: tickets, sessions, binders ---- */

#define SESSION_TICKETS 4 /* tickets a session keeps (the newest) */

/* what a sealed ticket holds (server) */
struct ticket_state {
	uint16_t suite;
	int64_t issued_ms;
	uint32_t lifetime, age_add;
	uint8_t psk[HASH_MAX];
	size_t psk_len;
	uint32_t max_early;           /* 0: no 0-RTT with this ticket */
	char alpn[NAME_MAX_LEN + 1];  /* the connection's ALPN ("" none) */
};

/* one ticket as the client keeps it */
struct session_ticket {
	uint8_t ticket[TICKET_MAX];
	size_t len;
	uint32_t lifetime, age_add;
	int64_t recv_ms;
	uint8_t psk[HASH_MAX]; /* secret */
	size_t psk_len;
	int used;
	uint32_t max_early;          /* the ticket's early_data (0: none) */
	char alpn[NAME_MAX_LEN + 1]; /* the ALPN of the connection that got it */
};

struct hs_session {
	uint16_t suite;
	size_t n;
	struct session_ticket t[SESSION_TICKETS];
};

/* Unix ms (plus the test hook's clock_skew_ms when c has hooks) */
int64_t resume_now_ms(const struct hs_conn *c);
uint32_t ticket_lifetime(const struct hs_ticket_keys *k);
HS_MUST_CHECK int ticket_seal(struct hs_ticket_keys *k, const struct ticket_state *st,
			      uint8_t *out, size_t cap, size_t *n);
HS_MUST_CHECK int ticket_open(struct hs_ticket_keys *k, const uint8_t *t, size_t len,
			      struct ticket_state *st);
HS_MUST_CHECK int ticket_psk(const struct hash *h, const uint8_t *res_master,
			     const uint8_t *nonce, size_t nonce_len, uint8_t *psk);
HS_MUST_CHECK int psk_binder(const struct transcript *tr, const struct hash *h,
			     const uint8_t *psk, size_t psk_len, int external,
			     const uint8_t *partial, size_t n, uint8_t *out);
/* server: n_tickets NewSessionTickets from ks.res_master, flushed */
HS_MUST_CHECK int send_tickets(struct hs_conn *c);
void session_add(struct hs_session *s, const struct session_ticket *t, uint16_t suite);
struct session_ticket *session_pick(struct hs_session *s, int64_t now);

/* ---- ext.c: the extensions codec ---- */

struct ext {
	uint16_t type;
	struct reader body;
};

/*
 * An extensions block: any number of extensions (as many as the 16-bit
 * block length allows). Types below EXT_TRACKED (every type hs reads) are
 * kept by type, duplicates rejected; others are counted and skipped
 * unread (unknown and GREASE), as OpenSSL and BoringSSL do.
 */
#define EXT_TRACKED 64
struct ext_list {
	uint64_t present; /* bit t: type t (< EXT_TRACKED) is in the block */
	struct ext e[EXT_TRACKED];
	size_t n;       /* all extensions in the block */
	size_t n_other; /* of which types >= EXT_TRACKED */
	uint16_t last;  /* the type of the last extension */
};

/* Read an extensions block <0..2^16-1>; duplicates -> HS_ERR_TLS_DUP_EXT. */
HS_MUST_CHECK int ext_parse(struct reader *r, struct ext_list *l);
/* The extension of type (< EXT_TRACKED), or NULL. */
const struct ext *ext_find(const struct ext_list *l, uint16_t type);
HS_MUST_CHECK int ext_u16_list(struct reader body, uint16_t *out, size_t max, size_t *n);
/* A u16 list <2..2^16-2> checked whole; *list views its entries. */
HS_MUST_CHECK int ext_u16_view(struct reader body, struct reader *list);
/* Whether a list from ext_u16_view holds v. */
int u16_view_has(struct reader list, uint16_t v);
HS_MUST_CHECK int ext_versions_has13(struct reader body, int *has);
HS_MUST_CHECK int ext_sni(struct reader body, char *name, size_t cap);
/* RFC 6066 3 host name syntax: 0 or HS_ERR_TLS_ILLEGAL_PARAM */
HS_MUST_CHECK int sni_check(const uint8_t *p, size_t n);
/* client config: a valid host name or an IP literal (no SNI), else HS_ERR_ARG */
HS_MUST_CHECK int sni_config_check(const char *name);
/* RFC 6066 3: an IPv4 dotted quad or an IPv6 literal (sent as no SNI at all). */
int sni_is_ip_literal(const char *s);
HS_MUST_CHECK int ext_alpn_pick(struct reader body, const char *const *ours, size_t n_ours,
				   const char **pick);
HS_MUST_CHECK int ext_alpn_one(struct reader body, const uint8_t **p, size_t *n);
struct key_share {
	uint16_t group;
	const uint8_t *pub;
	size_t len;
};
HS_MUST_CHECK int ext_key_share_view(struct reader body, struct reader *list);
/* The next entry of a list from ext_key_share_view. */
HS_MUST_CHECK int ext_key_share_next(struct reader *list, struct key_share *ks);
HS_MUST_CHECK int ext_key_share_one(struct reader body, struct key_share *ks);
HS_MUST_CHECK int ext_cookie(struct reader body, const uint8_t **p, size_t *n);

/* writers: each writes type, length and body */
int ext_w_u16_list(struct writer *w, uint16_t type, unsigned len_bytes, const uint16_t *v,
		      size_t n);
int ext_w_sni(struct writer *w, const char *name);
int ext_w_alpn(struct writer *w, const char *const *alpn, size_t n);
int ext_w_key_share(struct writer *w, uint16_t group, const uint8_t *pub, size_t len,
		       int client);
int ext_w_opaque(struct writer *w, uint16_t type, unsigned len_bytes, const uint8_t *p,
		    size_t n);

/* ---- alert.c ---- */
int alert_for(int err);

/* ---- the connection ---- */

enum client_state {
	C_START = 0,
	C_WAIT_SH,
	C_WAIT_EE,
	C_WAIT_CERT_CR,
	C_WAIT_CERT,
	C_WAIT_CV,
	C_WAIT_FINISHED,
	C_CONNECTED,
};

enum server_state {
	S_START = 0,
	S_WAIT_EOED, /* 0-RTT accepted: early data until EndOfEarlyData */
	S_WAIT_CERT, /* we sent a CertificateRequest */
	S_WAIT_CV,
	S_WAIT_FINISHED,
	S_CONNECTED,
};

struct hs_conn;
typedef int (*msg_handler)(struct hs_conn *c, const uint8_t *msg, size_t len);

/* One row of a state machine: in state, message type -> handler, next. */
struct transition {
	uint8_t state;
	uint8_t msg_type;
	msg_handler handle;
	uint8_t next; /* the handler may move elsewhere (HelloRetryRequest) */
};

#define EVQ_LEN 16

/*
 * Cheap records a peer may send in a row before it sends application data
 * (each resets the counts): what BoringSSL allows (kMaxEmptyRecords,
 * kMaxWarningAlerts, kMaxKeyUpdates). Beyond: HS_ERR_TLS_TOO_MANY_RECORDS,
 * unexpected_message. A ChangeCipherSpec is taken once per connection.
 */
#define MAX_EMPTY_RECORDS 32
#define MAX_WARNING_ALERTS 4
#define MAX_KEY_UPDATES 32
/*
 * NewSessionTickets a client reads on one connection: the most an hs
 * server sends (n_tickets <= 256). Beyond: HS_ERR_TLS_TOO_MANY_RECORDS,
 * unexpected_message (a peer flooding tickets costs us an HKDF each).
 */
#define MAX_TICKETS_RECV 256
/*
 * 0-RTT we do not accept (RFC 8446 4.2.10): record bytes of early data the
 * server skips (records that fail to open under the handshake key, or,
 * after a HelloRetryRequest, application_data records before the second
 * ClientHello). OpenSSL's default max_early_data is 16 KiB, BoringSSL
 * skips 16 KiB; we allow 64 KiB of record bodies.
 */
#define MAX_EARLY_SKIP 65536

/*
 * Handshake-only state: allocated by hs_conn_new(), wiped and freed as soon
 * as the handshake ends (conn_hs_end), or by hs_conn_free().
 */
struct conn_hs {
	struct transcript tr;
	uint8_t kx_priv[HS_KX_MAX_PRIV];
	uint8_t kx_pub[HS_KX_MAX_PUB];
	uint8_t cookie[COOKIE_MAX]; /* server: the cookie our HelloRetryRequest sent */
	size_t cookie_len;
	uint16_t offered[MAX_OFFERED]; /* client: extension types we sent */
	size_t n_offered;
	uint8_t cr_context[255];
	size_t cr_context_len;
	struct leaf_key peer;
	uint8_t peer_spki[SPKI_MAX];
};

/* The record keys with their AEAD contexts (a 64-byte aligned block). */
struct conn_keys {
	struct rec_key_mem rd, wr;
};

/* client: what keep_tickets keeps (allocated with the first ticket) */
struct conn_tickets {
	uint8_t ticket[TICKET_MAX];
	struct hs_session got; /* tickets received */
};

/* struct hs_conn.magic of a live connection; 0 once freed */
#define CONN_MAGIC 0x68732d636f6e6e31u

struct hs_conn {
	/* record/ keys of each direction: point into keys (NULL once handed off) */
	struct rec_key *rd, *wr;
	struct conn_keys *keys;
	struct conn_hs *hs; /* handshake-only state; NULL once the handshake ended */
	uint64_t magic;           /* CONN_MAGIC while live: hs_conn_free aborts otherwise */
	const struct hs_config *cfg;
	enum hs_role role;
	int state;
	int err;
	int alert_sent, alert_recv;
	uint8_t evq[EVQ_LEN];
	size_t ev_head, ev_n;
	int started, handshake_done, peer_closed, we_closed;
	int hrr_done, ccs_sent, ccs_recv, cert_requested;
	unsigned n_empty, n_warn, n_ku; /* in a row since the peer's last data */
	int skip_early;    /* server: the client offered early_data; skip it */
	size_t early_skipped; /* record bytes skipped so far */
	/* bytes ever queued in out[] / pulled from it; our KeyUpdate answer is
	 * still unsent while out_pulled < ku_answer_end (answers coalesce) */
	uint64_t out_queued, out_pulled, ku_answer_end;
	unsigned rd_gen; /* bumped at every read-key change */
	uint64_t ku_after;

	/* negotiated */
	const struct suite *suite;
	const struct group *group;
	const struct sigscheme *sig;
	char alpn[NAME_MAX_LEN + 1];
	char sni[NAME_MAX_LEN + 1];

	/* handshake state (the larger part lives in hs) */
	struct keysched ks;
	uint8_t random[32];
	uint8_t sid[32];
	size_t sid_len;
	const struct group *kx_group; /* client: group of the share we sent */
	/* client: the HelloRetryRequest's cookie (a view into handshake_in) while
	 * the second ClientHello is built; up to 2^16-1 bytes */
	const uint8_t *echo_cookie;
	size_t echo_cookie_len;
	/* the peer's chain, copied into peer_certs[] (hs_conn_peer_cert) */
	size_t peer_n, peer_certs_len;
	size_t peer_off[PEER_MAX_CERTS], peer_len[PEER_MAX_CERTS];
	int peer_verified;                 /* its CertificateVerify checked out */
	const struct hs_cred *client_cred; /* client: what answers the CertificateRequest */
	const struct hs_cred *server_cred; /* server: the credential picked for this hello */
	struct conn_tickets *tickets; /* client, keep_tickets: NULL until the first */
	size_t ticket_len;
	uint32_t ticket_lifetime;
	/* resumption: psk is the offered (client) or accepted (server)
	 * ticket's PSK, wiped once the early secret exists */
	int resumed; /* 0 full, 1 psk_dhe_ke, 2 psk_ke */
	uint8_t psk[HASH_MAX];
	size_t psk_found_len; /* server: the key psk_find put in psk */
	const struct suite *psk_suite; /* client: the offered ticket's suite */
	const struct session_ticket *psk_offer; /* client: in our ClientHello */
	uint16_t psk_index; /* server: the identity accepted */
	const uint8_t *psk_key; /* c->psk, or hs_config.psk (external) */
	size_t psk_key_len;
	int psk_external;
	const uint8_t *psk_id; /* client: the identity offered, its age */
	size_t psk_id_len;
	uint32_t psk_age;
	/* 0-RTT (early.c): enum hs_early; server: a candidate once the
	 * ticket allows it (the final checks come after the HelloRetryRequest
	 * decision), the ticket's key in the anti-replay register */
	int early, early_candidate, early_exp, app_early;
	uint32_t early_max;  /* the ticket's max_early_data_size */
	uint64_t early_bytes; /* client: taken by hs_conn_write_early; server: received */
	uint8_t early_key[32];
	/* res_master may still make tickets (server: defer_tickets) or keep
	 * them (client: keep_tickets); n_tickets: made (server) or received
	 * (client, at most MAX_TICKETS_RECV) so far */
	int tickets_open;
	unsigned n_tickets;

	/* hooks.c: what failed, in words (hs_conn_error_detail), and the
	 * ClientHello's random for the key log (a server's random[] is its own) */
	char detail[320];
	uint8_t client_random[32];

#ifdef HS_TEST_HOOKS
	struct test_hooks hooks;
	int has_hooks;
#endif

	/* buffers (conn.c): allocated on demand, freed when empty (conn_idle) */
	size_t in_len;            /* bytes of the current record in in, from REC_LEAD */
	size_t app_off, app_len;  /* unread application data inside in */
	size_t handshake_in_len, handshake_out_len;
	size_t out_off, out_len;
	/* capacities, and how far each buffer was written (wiped that far) */
	size_t in_cap, handshake_in_cap, handshake_out_cap, out_cap, peer_certs_cap;
	size_t in_hw, handshake_in_hw, handshake_out_hw, out_hw;
	uint8_t *in, *handshake_in, *handshake_out, *out;
	uint8_t *peer_certs; /* public: written up to peer_certs_len */
	/* bytes allocated for this connection now / at most (hs_conn_memory) */
	size_t mem, mem_peak;
	int handed_off; /* hs_conn_handoff(): records belong to another layer */
};

/*
 * The connection's test hooks, or NULL. Without -Dtest_hooks=true this is a
 * constant NULL: every branch on it compiles away and the release library
 * holds no trace of the hooks.
 */
static inline const struct test_hooks *test_hooks(const struct hs_conn *c)
{
#ifdef HS_TEST_HOOKS
	return c->has_hooks ? &c->hooks : NULL;
#else
	(void)c;
	return NULL;
#endif
}

/* early.c: 0-RTT (RFC 8446 4.2.10) */
/* server: the accepted ticket (first identity) may carry 0-RTT: checks
 * what the ticket decides (max, suite, ALPN, age) and notes the ticket's
 * anti-replay key */
void early_ticket(struct hs_conn *c, const struct ticket_state *st, uint32_t obf_age,
		  struct reader ticket);
/* server, ClientHello done and no HelloRetryRequest: the final decision */
HS_MUST_CHECK int early_decide(struct hs_conn *c, int offered);
/* server: an application_data record before the handshake is done */
HS_MUST_CHECK int early_record(struct hs_conn *c, size_t n);
HS_MUST_CHECK int on_end_of_early_data(struct hs_conn *c, const uint8_t *msg, size_t len);
/* server: the early_data extension of our tickets (nothing when off) */
void early_ticket_ext(const struct hs_conn *c, struct writer *w);
/* client: the ticket offered allows 0-RTT and we want it */
int early_wanted(const struct hs_conn *c, const struct session_ticket *t);
/* client: after the first ClientHello: early keys, CCS, write key */
HS_MUST_CHECK int early_client_start(struct hs_conn *c);
/* client: the EncryptedExtensions' answer (e: its early_data or NULL) */
HS_MUST_CHECK int early_client_answer(struct hs_conn *c, const struct ext *e);
/* client: EndOfEarlyData under the early key, then the handshake key */
HS_MUST_CHECK int early_client_end(struct hs_conn *c);
/* client: a HelloRetryRequest rejects 0-RTT; the second hello is plaintext */
void early_client_hrr(struct hs_conn *c);
/* fd.c: may early data still come (server, before EndOfEarlyData)? */
int early_more(const struct hs_conn *c);
/* a NewSessionTicket's early_data extension: its max_early_data_size */
HS_MUST_CHECK int early_ticket_max(const struct ext_list *exts, uint32_t *max);

/* conn.c: services for the state machines */
void conn_event(struct hs_conn *c, enum hs_event ev);
void conn_trace_sent(const struct hs_conn *c, const uint8_t *msg, size_t len);
HS_MUST_CHECK int conn_keygen(struct hs_conn *c, const struct group *g);
/*
 * conn_keygen, then out = the shared secret with peer (a server's key
 * share): one call to the group's keygen_shared when it has one (and no
 * test hook fixes the key), else keygen then shared. The shared step's
 * errors (a bad share) are returned like keygen's.
 */
HS_MUST_CHECK int conn_keygen_shared(struct hs_conn *c, const struct group *g, uint8_t *out,
				     const uint8_t *peer, size_t peer_len);
/* Start a handshake message of type in handshake_out; end adds it to the transcript. */
void msg_begin(struct hs_conn *c, uint8_t type, struct writer *w, struct writer_vec *v);
HS_MUST_CHECK int msg_end(struct hs_conn *c, struct writer *w, struct writer_vec *v);
/* Same, for post-handshake messages that stay out of the transcript. */
HS_MUST_CHECK int msg_end_notr(struct hs_conn *c, struct writer *w, struct writer_vec *v);
HS_MUST_CHECK int set_read_key(struct hs_conn *c, const uint8_t *secret);
HS_MUST_CHECK int set_write_key(struct hs_conn *c, const uint8_t *secret);
/* client's early write key: the ticket's suite, before one is negotiated */
HS_MUST_CHECK int set_write_key_suite(struct hs_conn *c, const struct suite *s,
				      const uint8_t *secret);
/* one application_data record of n bytes (<= conn_data_room) */
HS_MUST_CHECK int conn_send_data(struct hs_conn *c, const uint8_t *p, size_t n);
/* how many of want bytes of application data fit in one record out now */
size_t conn_data_room(struct hs_conn *c, size_t want);
HS_MUST_CHECK int hello_random(struct hs_conn *c, uint8_t out[32]);
/* hooks.c: the application's callbacks (include/hs/tls.h) and the error detail */
void keylog_note(const struct hs_conn *c, int master);
HS_MUST_CHECK int alpn_select_run(struct hs_conn *c, struct reader body);
HS_MUST_CHECK int verify_hook(struct hs_conn *c, int result, const uint8_t *const *der,
			      const size_t *len, size_t n);
void conn_detail(struct hs_conn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* conn.c: memory on demand (libhs/README.md "Memory") */
/* size bytes (64-byte aligned) counted in c->mem; NULL: HS_ERR_NOMEM */
void *conn_mem_alloc(struct hs_conn *c, size_t size);
/* wipe the first used bytes, free, uncount size */
void conn_mem_free(struct hs_conn *c, void *p, size_t size, size_t used);
/* The end of an API call: buffers that are empty are wiped and freed. */
void conn_idle(struct hs_conn *c);
/* Room for n more bytes of handshake_out (grown up to HANDSHAKE_OUT_MAX). */
HS_MUST_CHECK int conn_out_room(struct hs_conn *c, size_t n);
/* Keep certificate i of the peer's chain (hs_conn_peer_cert); 0 if it does not fit. */
HS_MUST_CHECK int conn_keep_peer_cert(struct hs_conn *c, const uint8_t *p, size_t n);
/* client: the ticket store, allocated with the first ticket kept */
HS_MUST_CHECK int conn_tickets(struct hs_conn *c);
/* fd.c: the queued output in place (nothing removed), then how much was sent */
const uint8_t *conn_out_view(struct hs_conn *c, size_t *n);
void conn_out_ack(struct hs_conn *c, size_t n);
/* Test hook: copy the secrets just derived (master: 0 handshake, 1
 * master, 2 early stage) to hooks.capture, if set; and the key log. */
void keysched_note(struct hs_conn *c, int master);
/* Seal pending handshake bytes into records under the current write key. */
HS_MUST_CHECK int flush_handshake(struct hs_conn *c, uint16_t legacy_version);
HS_MUST_CHECK int send_ccs(struct hs_conn *c);
HS_MUST_CHECK int dispatch(struct hs_conn *c, const struct transition *t, size_t n,
			      const uint8_t *msg, size_t len);

/* msg.c: shared message pieces */
HS_MUST_CHECK int msg_body(const uint8_t *msg, size_t len, struct reader *body);
HS_MUST_CHECK int build_finished(struct hs_conn *c, const uint8_t *base_secret);
HS_MUST_CHECK int check_finished(struct hs_conn *c, const uint8_t *base_secret,
				    const uint8_t *msg, size_t len);
HS_MUST_CHECK int build_certificate(struct hs_conn *c, const struct hs_cred *cred,
				       const uint8_t *ctx, size_t ctx_len);
HS_MUST_CHECK int build_cert_verify(struct hs_conn *c, const struct hs_cred *cred, int server);
HS_MUST_CHECK int check_cert_verify(struct hs_conn *c, const uint8_t *msg, size_t len,
				       int server);
/* A peer's Certificate; *n_certs gets how many it held (0: a client's
 * empty answer, accepted unless verify_client is HS_VERIFY_REQUIRE). */
HS_MUST_CHECK int parse_certificate(struct hs_conn *c, const uint8_t *msg, size_t len,
				       size_t *n_certs);
HS_MUST_CHECK int on_key_update(struct hs_conn *c, const uint8_t *msg, size_t len);
HS_MUST_CHECK int send_key_update(struct hs_conn *c, int request);
/* Whether a KeyUpdate of ours still waits in out[], unpulled. */
int ku_answer_pending(const struct hs_conn *c);
HS_MUST_CHECK int on_ticket(struct hs_conn *c, const uint8_t *msg, size_t len);

/* client.c / server.c */
/* server.c: 4.2.11, the pre_shared_key of a ClientHello */
HS_MUST_CHECK int client_start(struct hs_conn *c);
HS_MUST_CHECK int client_handle(struct hs_conn *c, const uint8_t *msg, size_t len);
HS_MUST_CHECK int server_handle(struct hs_conn *c, const uint8_t *msg, size_t len);

/* lists from the config or the defaults */
void cfg_suites(const struct hs_config *cfg, const uint16_t **v, size_t *n);
void cfg_groups(const struct hs_config *cfg, const uint16_t **v, size_t *n);
void cfg_sigs(const struct hs_config *cfg, const uint16_t **v, size_t *n);
int u16_in(const uint16_t *v, size_t n, uint16_t x);

#endif
