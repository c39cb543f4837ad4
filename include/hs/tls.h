/*
 * hs TLS 1.3 engine: the public, sans-I/O API.
 *
 * A connection never touches a socket. The caller moves bytes:
 *
 *   hs_conn_feed(c, in, len, &used)   received bytes in; used says how many
 *                                     were taken (the rest must be fed again)
 *   hs_conn_pull(c, out, cap, &n)     bytes to send out
 *   hs_conn_read(c, buf, cap, &n)     decrypted application data
 *   hs_conn_write(c, buf, len, &n)    application data to protect
 *   hs_conn_next_event(c)             handshake done, close_notify, alert
 *
 * Byte accounting is exact: feed never takes bytes past the record that
 * completes the handshake (it returns with the rest unused), and it stops
 * taking bytes while decrypted application data waits to be read.
 * hs_conn_input_wanted() says how many more bytes finish the current record,
 * so a caller reading a socket can read exactly that many (kTLS hand-off).
 *
 * Errors: every function returns 0 or a negative hs_err (base/err.h). The
 * first fatal error is sticky: every later call returns it until free. An
 * error we detect queues the matching fatal alert for hs_conn_pull(); an
 * alert from the peer gives HS_ERR_TLS_PEER_ALERT (hs_conn_alert() tells
 * which).
 *
 * Memory on demand (libhs/README.md "Memory"): hs_conn_new() allocates a
 * small header, the record keys and the handshake-only state; record and
 * message buffers are allocated when bytes must be kept and wiped and freed
 * when empty; the handshake-only state goes when the handshake ends, the
 * keys and buffers at hs_conn_handoff(). So any call that stores bytes may
 * fail with HS_ERR_NOMEM (sticky, like every error). hs_conn_memory() says
 * how much a connection holds. The config (and the buffers it points to)
 * must outlive the connection. Secrets are wiped by hs_conn_free().
 */
#ifndef HS_TLS_H
#define HS_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "hs/cred.h"
#include "hs/err.h"

/* Cipher suites (RFC 8446 B.4). */
#define HS_TLS_AES_128_GCM_SHA256 0x1301
#define HS_TLS_AES_256_GCM_SHA384 0x1302
#define HS_TLS_CHACHA20_POLY1305_SHA256 0x1303

/* Named groups (RFC 8446 4.2.7). */
#define HS_GROUP_SECP256R1 0x0017
#define HS_GROUP_X25519 0x001d

enum hs_role { HS_ROLE_CLIENT = 0, HS_ROLE_SERVER = 1 };

/* server: what to ask of the client's certificate (hs_config.verify_client). */
enum hs_verify_mode { HS_VERIFY_NONE = 0, HS_VERIFY_REQUEST = 1, HS_VERIFY_REQUIRE = 2 };

/* Events, in the order they happen; hs_conn_next_event() pops them. */
enum hs_event {
	HS_EVENT_NONE = 0,
	HS_EVENT_HANDSHAKE_DONE = 1, /* both Finished exchanged (our view) */
	HS_EVENT_CLOSE_NOTIFY = 2,   /* the peer closed its side */
	HS_EVENT_ALERT = 3,          /* a fatal alert was sent or received */
	HS_EVENT_KEY_UPDATE = 4,     /* the peer updated its sending keys */
	HS_EVENT_TICKET = 5,         /* client: a NewSessionTicket arrived */
	HS_EVENT_EARLY_DATA = 6,     /* server: 0-RTT data waits (hs_conn_read_early) */
};

/* 0-RTT (early data, RFC 8446 4.2.10) of a connection: hs_conn_early_data(). */
enum hs_early {
	HS_EARLY_NONE = 0,     /* not offered (client) / the client offered none (server) */
	HS_EARLY_OFFERED = 1,  /* client: offered, the server has not answered yet */
	HS_EARLY_ACCEPTED = 2, /* the server took it */
	HS_EARLY_REJECTED = 3, /* offered, refused: the server skipped it */
};

/* A certificate chain and its private key (see hs_cred_load_pem). */
struct hs_cred;
/* Trust anchors for chain validation (see include/hs/x509.h). */
struct hs_x509_store;
struct hs_conn;

struct hs_config {
	enum hs_role role;
	/* Preference-ordered lists (IANA code points); NULL/0 = defaults. */
	const uint16_t *suites;
	size_t n_suites;
	const uint16_t *groups; /* client: the first gets a key share */
	size_t n_groups;
	const uint16_t *sig_schemes;
	size_t n_sig_schemes;
	/* ALPN protocols, preference-ordered (server: its preference). */
	const char *const *alpn;
	size_t n_alpn;
	/*
	 * server: chain + key to present (required). client: chain + key to
	 * answer a CertificateRequest with (optional; without it, or when
	 * the server lists no scheme the key can sign with, the client sends
	 * an empty Certificate).
	 */
	const struct hs_cred *cred;
	/*
	 * server: several credentials (say RSA-2048 and ECDSA P-256), so that
	 * every client finds one it can verify. The candidates are creds[0],
	 * ..., creds[n_creds - 1], then cred if set; at least one is
	 * required. Per ClientHello the server takes the first candidate
	 * whose key signs with a scheme the client's signature_algorithms
	 * lists; when the client sent SNI and there is more than one
	 * candidate, one whose leaf's subjectAltName matches that name comes
	 * first. None fits: handshake_failure (HS_ERR_TLS_NO_SHARED_SIGALG).
	 */
	const struct hs_cred *const *creds;
	size_t n_creds;
	/*
	 * server: client certificates (RFC 8446 4.3.2). HS_VERIFY_REQUEST
	 * sends a CertificateRequest and accepts an empty answer;
	 * HS_VERIFY_REQUIRE fails with certificate_required without one. A
	 * certificate that is sent is always validated against client_trust
	 * (purpose client auth, at verify_time) and its CertificateVerify
	 * checked; client_trust is required unless HS_VERIFY_NONE.
	 */
	enum hs_verify_mode verify_client;
	const struct hs_x509_store *client_trust;
	/* server: list client_trust's subject names in the CertificateRequest
	 * (certificate_authorities, RFC 8446 4.2.4) so the client can pick */
	int send_ca_names;
	/*
	 * client: SNI to send and the name the leaf's SAN must match. A host
	 * name (RFC 6066 3: LDH labels, A-labels for IDNs, no trailing dot)
	 * or an IP literal, for which no SNI is sent; anything else makes
	 * hs_conn_new() fail with HS_ERR_ARG.
	 */
	const char *server_name;
	/*
	 * client: the pinned trust anchor, a certificate in DER. The server's
	 * leaf must be this exact certificate. NULL: no pin (trust or insecure must be
	 * set, the CertificateVerify signature is still checked).
	 */
	const uint8_t *anchor_der;
	size_t anchor_len;
	int insecure;      /* client: skip the pin and name checks */
	/*
	 * client: trust anchors (include/hs/x509.h) the server's chain must
	 * lead to (RFC 5280 path validation: signatures, validity, CA and
	 * path length, EKU serverAuth, name constraints) with server_name
	 * matched against the leaf's subjectAltName. Checked whenever set
	 * and insecure is not; with anchor_der too, both must pass. The store
	 * must outlive the connection; it may be shared.
	 */
	const struct hs_x509_store *trust;
	/* both: time to validate the peer's chain at (Unix seconds); 0 = now */
	int64_t verify_time;
	int no_compat;     /* client: no middlebox compatibility mode */
	int hrr_cookie;    /* server: always answer the first ClientHello with
			      a HelloRetryRequest carrying a cookie */
	int keep_tickets;  /* client: keep the last NewSessionTicket */
	/*
	 * Records sent under one key before an automatic KeyUpdate; 0 = the
	 * AEAD's limit from RFC 8446 5.5 (2^24 for AES-GCM, 2^60 otherwise).
	 */
	uint64_t key_update_after;
	/*
	 * Application callbacks (NULL: none). arg is passed back as is.
	 *
	 * keylog: each traffic secret as a line of the NSS key log format
	 * (no newline): "<LABEL> <ClientHello.random hex> <secret hex>" with
	 * LABEL CLIENT_EARLY_TRAFFIC_SECRET (0-RTT offered by a client,
	 * accepted by a server), CLIENT_HANDSHAKE_TRAFFIC_SECRET, SERVER_HANDSHAKE_TRAFFIC_SECRET,
	 * CLIENT_TRAFFIC_SECRET_0, SERVER_TRAFFIC_SECRET_0, what Wireshark and
	 * tshark read to decrypt a capture. Whoever holds these lines can read
	 * the connection: for debugging only. The library logs nothing unless
	 * this is set (the programs set it when SSLKEYLOGFILE is).
	 */
	void (*keylog)(void *arg, const char *line);
	void *keylog_arg;
	/*
	 * server: choose the ALPN protocol (instead of the alpn list). offered
	 * holds the client's protocols in its order, NUL-terminated (the
	 * first HS_ALPN_OFFER_MAX; names holding a NUL byte are left out).
	 * Return the index picked, -1 to go on without ALPN, or any other
	 * value to refuse the handshake (no_application_protocol).
	 */
	int (*alpn_select)(void *arg, const char *const *offered, size_t n);
	void *alpn_arg;
	/*
	 * both: custom certificate verification, called once the peer's
	 * Certificate is read, with the chain as sent (certs[0] the leaf, DER)
	 * and result, the built-in validation's verdict: 0 if the configured
	 * checks (trust / client_trust path validation, server_name) passed,
	 * else their error (HS_ERR_X509_NO_ANCHORS when none is configured).
	 * Return 0 to accept or a negative hs_err to refuse (its alert is
	 * sent; any other value refuses with HS_ERR_TLS_CERT_UNTRUSTED). To
	 * add a check, return result when it is not 0; to replace the
	 * built-in validation, ignore it. With it set, a client needs no
	 * trust/anchor/insecure and a server verifying clients no
	 * client_trust. The peer's CertificateVerify is always checked.
	 */
	int (*verify_cert)(void *arg, const uint8_t *const *certs, const size_t *lens, size_t n,
			   int result);
	void *verify_arg;
	/*
	 * server: choose the credential (instead of hs's own choice among
	 * cred / creds by the client's signature_algorithms and SNI). sni is
	 * the client's server name ("" without one); sigalgs its
	 * signature_algorithms in its order (the first HS_SIGALGS_OFFER_MAX).
	 * Return the credential to use, or NULL to refuse the handshake
	 * (handshake_failure). Its key must sign with one of the client's
	 * schemes, else handshake_failure too. With it set, cred / creds may
	 * be left empty.
	 */
	const struct hs_cred *(*select_cred)(void *arg, const char *sni, const uint16_t *sigalgs,
					     size_t n);
	void *select_cred_arg;
	/*
	 * Resumption (RFC 8446 2.2, 4.6.1). server: ticket_keys (shared by
	 * connections, owned by the application) seals stateless tickets;
	 * NULL = no tickets, every handshake full. n_tickets after each
	 * handshake (0 = 2). client: session (from hs_conn_session or
	 * hs_session_load) offers one of its unused tickets, which is then
	 * marked used unless reuse_tickets; psk_ke offers psk_ke alone (no
	 * (EC)DHE on resumption; a full handshake still works); default is
	 * psk_dhe_ke. A rejected ticket gives a full handshake. A server
	 * with verify_client set neither issues nor accepts tickets (they
	 * carry no client identity).
	 */
	struct hs_ticket_keys *ticket_keys;
	unsigned n_tickets;
	struct hs_session *session;
	int psk_ke;
	int reuse_tickets;
	/*
	 * server: the engine sends no ticket itself; the application makes
	 * them with hs_conn_make_ticket() when it likes (after a kernel-TLS
	 * hand-off: hs_ktls_send_tickets()), at most n_tickets (0 = 2), and
	 * ends with hs_conn_end_tickets(). The resumption master secret is
	 * kept only until then (or until the count is reached, or free).
	 */
	int defer_tickets;
	/*
	 * External PSK (RFC 8446 2.2, as NVMe/TCP and openssl -psk use it):
	 * a key and its identity, bound to SHA-256 (usable with the
	 * SHA-256 suites). client: offered (before any session ticket), in
	 * psk_dhe_ke or psk_ke as above; trust settings become optional, and
	 * without them a server that does not take the PSK is refused.
	 * server: accepted for that identity; cred becomes optional (without
	 * one a client without the PSK gets handshake_failure).
	 */
	const uint8_t *psk;
	size_t psk_len;
	const uint8_t *psk_identity;
	size_t psk_identity_len;
	/*
	 * server, optional: find an external PSK by the identity a client
	 * offers, for a server with many (a daemon serving NVMe/TCP looks it
	 * up in a kernel keyring). Asked for each offered identity that is
	 * not psk_identity and not one of our tickets, in order, until one
	 * is found: put the key in key (at most cap bytes, 48), its length
	 * in *key_len, and return 0; -1 if unknown. Bound to SHA-256 like
	 * psk; like psk, it makes cred optional.
	 */
	int (*psk_find)(void *arg, const uint8_t *identity, size_t identity_len, uint8_t *key,
			size_t cap, size_t *key_len);
	void *psk_find_arg;
	/*
	 * Optional message trace, like OpenSSL's msg_callback (NULL: none).
	 * Called with sent = 1 (ours) or 0 (the peer's) for every handshake
	 * message (content_type 22, msg = the whole message with its 4-byte
	 * header), alert (21, the 2 bytes) and ChangeCipherSpec (20, the byte),
	 * as plaintext, and for every record header (content_type
	 * HS_TRACE_RECORD_HEADER, msg = the 5 bytes as on the wire). It may
	 * only read c (getters, hs_conn_state_name); it must not feed, pull or
	 * free it. Nothing secret passes through it.
	 */
	void (*msg_cb)(void *arg, const struct hs_conn *c, int sent, int content_type,
		       const uint8_t *msg, size_t len);
	void *msg_arg;
	/*
	 * 0-RTT (early data, RFC 8446 2.3, 4.2.10). Off by default on both
	 * sides: early data is not protected against replay by TLS itself (an
	 * attacker who recorded a ClientHello and its early data can send
	 * them again, to this server or another one holding the same ticket
	 * keys), nor forward secret under the resumption PSK. Only requests
	 * that are safe to run twice belong in it (RFC 8446 8, E.5).
	 *
	 * server: max_early_data > 0 puts the early_data extension with that
	 * max_early_data_size in our tickets and accepts 0-RTT from them;
	 * antireplay (hs_antireplay_new, shared by connections, owned by the
	 * application) is then required: 0-RTT is accepted only for the
	 * client's first identity, a ticket of ours that allowed it, the
	 * ticket's suite and ALPN, a ticket age within the register's window,
	 * early_data_ok's consent (NULL: consent) and a ClientHello the
	 * register has not seen; anything else (a full register too) rejects
	 * the early data (skipped) and the handshake goes on in 1-RTT. More
	 * early data than the ticket allowed: unexpected_message. Accepted
	 * early data is read with hs_conn_read_early (HS_EVENT_EARLY_DATA),
	 * never by hs_conn_read.
	 *
	 * client: early_data offers 0-RTT when the session's ticket allows it
	 * (hs_conn_write_early); see hs_conn_early_data for the outcome.
	 */
	uint32_t max_early_data;
	struct hs_antireplay *antireplay;
	int (*early_data_ok)(void *arg, const struct hs_conn *c);
	void *early_data_arg;
	int early_data;
};
/* How many of the client's ALPN protocols alpn_select sees. */
#define HS_ALPN_OFFER_MAX 16
#define HS_SIGALGS_OFFER_MAX 64

#define HS_TRACE_RECORD_HEADER 256

struct hs_conn;

/*
 * Allocate a connection. A client builds its ClientHello lazily, on the
 * first hs_conn_pull / hs_conn_output_pending / hs_conn_feed.
 */
HS_API HS_MUST_CHECK int hs_conn_new(struct hs_conn **out, const struct hs_config *cfg);
/*
 * Wipe every secret and every buffer (application data included), then
 * free. NULL is fine. Freeing the same connection twice aborts the
 * process (caught from a magic number in the object; under
 * AddressSanitizer, which sees every free, ASan reports it instead).
 */
HS_API void hs_conn_free(struct hs_conn *c);

/* Feed received bytes; *used gets how many were taken (0..len). */
HS_API HS_MUST_CHECK int hs_conn_feed(struct hs_conn *c, const uint8_t *in, size_t len, size_t *used);
/* Bytes that would complete the record being received (>= 1). */
HS_API size_t hs_conn_input_wanted(const struct hs_conn *c);
/* Bytes queued for sending. */
HS_API size_t hs_conn_output_pending(struct hs_conn *c);
/* Copy up to cap queued bytes to out (removing them); *n gets the count. */
HS_API HS_MUST_CHECK int hs_conn_pull(struct hs_conn *c, uint8_t *out, size_t cap, size_t *n);
/* Copy up to cap bytes of received application data; *n = 0 if none. */
HS_API HS_MUST_CHECK int hs_conn_read(struct hs_conn *c, uint8_t *buf, size_t cap, size_t *n);
/*
 * Protect application data; *n gets how many bytes were taken (fewer than
 * len when the output queue is full: pull, then write the rest).
 */
HS_API HS_MUST_CHECK int hs_conn_write(struct hs_conn *c, const uint8_t *buf, size_t len, size_t *n);
/*
 * Zero-copy records, after the handshake: the caller's buffers, no copy.
 *
 * hs_conn_seal: the application data (len <= 16384 bytes) sits at
 * buf + HS_RECORD_HEADER_LEN; it is sealed in place into one record,
 * buf[0 .. *n) (*n = len + HS_RECORD_OVERHEAD), to be sent as is; cap >=
 * len + HS_RECORD_OVERHEAD. HS_ERR_WANT_WRITE (not sticky, nothing sealed,
 * buf untouched): the engine has records of its own to go first (a KeyUpdate
 * answer, tickets, the automatic KeyUpdate before the AEAD's limit): pull
 * and send them (hs_conn_pull), then call again.
 *
 * hs_conn_open: buf holds len received bytes; the first record is opened
 * in place. *used = its length (send the rest again later); *data, *data_len:
 * its application data inside buf (0 bytes for the other records, which the
 * engine handles as hs_conn_feed does: KeyUpdate, NewSessionTicket, alerts,
 * events; a KeyUpdate answer is queued for hs_conn_pull). HS_ERR_WANT_READ
 * (not sticky, *used = 0): not a whole record yet (hs_conn_input_wanted-like:
 * the header's length says how many bytes it needs). After close_notify
 * *used = 0 and hs_conn_peer_closed() is 1. Not to be mixed with a partial
 * hs_conn_feed: the engine must hold no part of a record and no unread data
 * (HS_ERR_TLS_STATE).
 *
 * Speed: place buf so that buf + HS_RECORD_HEADER_LEN (the record's body)
 * is 64-byte aligned, as the engine does in its own buffers: on CPUs with
 * 512-bit AES-GCM, loads and stores across cache lines cost up to a tenth.
 */
#define HS_RECORD_HEADER_LEN 5
#define HS_RECORD_OVERHEAD (5 + 1 + 16) /* header, content type, tag: hs never pads */
HS_API HS_MUST_CHECK int hs_conn_seal(struct hs_conn *c, uint8_t *buf, size_t cap, size_t len,
				      size_t *n);
HS_API HS_MUST_CHECK int hs_conn_open(struct hs_conn *c, uint8_t *buf, size_t len, size_t *used,
				      uint8_t **data, size_t *data_len);
/*
 * Another layer (ktls/: kernel TLS, or its userspace records) now carries
 * the records: the engine wipes and frees its record keys, its buffers and
 * what remains of the handshake, keeping only the header (at most 4 KiB,
 * plus the peer's certificate chain and a client's kept tickets, when
 * there are any): getters, hs_conn_export, hs_conn_post_handshake and
 * hs_conn_session still work; feed, pull, read, write, seal, open,
 * key_update and hs_conn_secrets give HS_ERR_TLS_STATE. Take the secrets
 * first. The handshake must be done, every queued byte pulled, no part
 * of a record fed and no application data unread (else HS_ERR_TLS_STATE).
 * hs_ktls_attach() calls it. A second call does nothing.
 */
HS_API HS_MUST_CHECK int hs_conn_handoff(struct hs_conn *c);
/*
 * Bytes the connection holds now (its allocations, rounded to 64 bytes;
 * the allocator's own overhead not counted), and in *peak (if not NULL)
 * the most it ever held.
 */
HS_API size_t hs_conn_memory(const struct hs_conn *c, size_t *peak);

/* Send our KeyUpdate; request_peer asks the peer to update too. */
HS_API HS_MUST_CHECK int hs_conn_key_update(struct hs_conn *c, int request_peer);
/* Queue close_notify; afterwards writes fail with HS_ERR_TLS_CLOSED. */
HS_API HS_MUST_CHECK int hs_conn_close(struct hs_conn *c);
/*
 * After the handshake, when another layer holds the records (ktls/: kernel
 * TLS): hand over one decrypted post-handshake message, msg = the whole
 * message with its 4-byte header, type = its HandshakeType (msg[0]).
 * NewSessionTicket (client): parsed, kept under keep_tickets
 * (hs_conn_ticket), HS_EVENT_TICKET. KeyUpdate: checked, HS_EVENT_KEY_UPDATE;
 * the engine's record keys do not move and no answer is queued: the layer
 * holding the keys rekeys and answers update_requested. Anything else is
 * HS_ERR_TLS_UNEXPECTED_MSG. Errors are sticky; no alert is queued.
 */
HS_API HS_MUST_CHECK int hs_conn_post_handshake(struct hs_conn *c, uint8_t type, const uint8_t *msg,
					 size_t len);

HS_API enum hs_event hs_conn_next_event(struct hs_conn *c);
HS_API int hs_conn_handshake_done(const struct hs_conn *c);
HS_API int hs_conn_peer_closed(const struct hs_conn *c);
/* The sticky error (0 if none). */
HS_API int hs_conn_error(const struct hs_conn *c);
/*
 * What failed, in words, for a person: the check and its subject (the
 * certificate and the X.509 error, the alert the peer sent, the
 * protocols that did not match), or hs_strerror() of the error when there
 * is nothing more to say. NULL while there is no error. Valid until the
 * next call on c.
 */
HS_API const char *hs_conn_error_detail(const struct hs_conn *c);
/* Alert description sent (from_peer 0) or received (1); -1 if none. */
HS_API int hs_conn_alert(const struct hs_conn *c, int from_peer);

/* Negotiated parameters (0 / NULL before they are known). */
HS_API uint16_t hs_conn_suite(const struct hs_conn *c);
HS_API uint16_t hs_conn_group(const struct hs_conn *c);
HS_API uint16_t hs_conn_sig_scheme(const struct hs_conn *c);
HS_API const char *hs_conn_alpn(const struct hs_conn *c);
/* server: the SNI the client sent (NULL if none). */
HS_API const char *hs_conn_server_name(const struct hs_conn *c);
/*
 * The handshake state's RFC 8446 A.1/A.2 name ("START", "WAIT_SH",
 * "WAIT_EE", ..., "CONNECTED"), for traces.
 */
HS_API const char *hs_conn_state_name(const struct hs_conn *c);
/* Did the handshake use a HelloRetryRequest? */
HS_API int hs_conn_used_hrr(const struct hs_conn *c);
/*
 * The peer's certificate chain as it sent it (i = 0 is the leaf), DER,
 * once its CertificateVerify has checked out: on a server, the client's
 * chain, validated against client_trust; on a client, the server's. NULL
 * (and *len = 0) for i past the end or before that point, or when the
 * client sent no certificate. Valid until hs_conn_free(). Certificates
 * beyond HS_PEER_CERTS_MAX bytes in all are not kept.
 */
HS_API const uint8_t *hs_conn_peer_cert(const struct hs_conn *c, size_t i, size_t *len);
HS_API size_t hs_conn_peer_cert_count(const struct hs_conn *c);
#define HS_PEER_CERTS_MAX 16384

/* client: the last NewSessionTicket kept (keep_tickets), or NULL. */
HS_API const uint8_t *hs_conn_ticket(const struct hs_conn *c, size_t *len, uint32_t *lifetime);

/*
 * ---- Resumption ----
 * Server: ticket keys. Tickets are AES-256-GCM sealed under the current
 * key (a 16-byte name, a random 32-byte key); every rotate_secs the
 * current key becomes the previous one and the old previous one is wiped.
 * Tickets under the current or previous key are accepted, so a ticket
 * lives at most min(lifetime_secs, 2 * rotate_secs). lifetime_secs <=
 * 604800 (0 = 7200); rotate_secs 0 = lifetime_secs. Locked inside: one
 * object serves connections on any thread. Keys never leave the object.
 */
struct hs_ticket_keys;
HS_API HS_MUST_CHECK int hs_ticket_keys_new(struct hs_ticket_keys **out, uint32_t lifetime_secs,
				     uint32_t rotate_secs);
/* Rotate now (as the schedule does). */
HS_API HS_MUST_CHECK int hs_ticket_keys_rotate(struct hs_ticket_keys *k);
/* Wipe both keys and free. NULL is fine. */
HS_API void hs_ticket_keys_free(struct hs_ticket_keys *k);

/*
 * Client: a session, the tickets one server gave (with their resumption
 * PSKs: secret, so the object and its serialised form are secrets too).
 * hs_conn_session() makes one from a connection with keep_tickets once at
 * least one NewSessionTicket arrived (HS_ERR_TLS_STATE otherwise).
 * hs_session_save() writes only unused, unexpired tickets.
 */
struct hs_session;
HS_API HS_MUST_CHECK int hs_conn_session(const struct hs_conn *c, struct hs_session **out);
HS_API HS_MUST_CHECK int hs_session_save(const struct hs_session *s, uint8_t *buf, size_t cap,
				  size_t *n);
HS_API HS_MUST_CHECK int hs_session_load(struct hs_session **out, const uint8_t *buf, size_t len);
/* Unused tickets left. */
HS_API size_t hs_session_tickets(const struct hs_session *s);
HS_API void hs_session_free(struct hs_session *s);
/*
 * server with defer_tickets: one NewSessionTicket, the whole handshake
 * message (4-byte header included) for the caller to send in a record of
 * type handshake (22) under the current application traffic key (it is not
 * queued in c). *n gets its length (at most HS_TICKET_MSG_MAX). Once the
 * handshake is done and while tickets may be made: HS_ERR_TLS_STATE before,
 * after hs_conn_end_tickets(), once n_tickets were made, without
 * ticket_keys or defer_tickets (or with verify_client: no tickets then), or
 * on a client; HS_ERR_NO_SPACE if cap is too small (nothing made). Making
 * the n_tickets-th ticket wipes the resumption master secret. Tickets are
 * sealed (only the server can read them): nothing secret leaves here.
 */
HS_API HS_MUST_CHECK int hs_conn_make_ticket(struct hs_conn *c, uint8_t *out, size_t cap,
					     size_t *n);
#define HS_TICKET_MSG_MAX 256
/*
 * No more tickets: wipe the resumption master secret now. server: later
 * hs_conn_make_ticket() calls fail; client (keep_tickets): later
 * NewSessionTickets are read but not kept. Safe to call more than once.
 */
HS_API void hs_conn_end_tickets(struct hs_conn *c);
/* Did this handshake resume (a PSK accepted)? 1 = psk_dhe_ke, 2 = psk_ke. */
HS_API int hs_conn_resumed(const struct hs_conn *c);
/* Was the PSK taken the external one (hs_config.psk) rather than a ticket? */
HS_API int hs_conn_external_psk(const struct hs_conn *c);
/*
 * Keying material exporter (RFC 8446 7.5, RFC 5705 labels): out_len
 * bytes (at most 255 * the suite's hash length) for label and context,
 * the same on both sides. Once the handshake is done; HS_ERR_TLS_STATE
 * before. The exporter_master_secret stays in the connection until free.
 */
HS_API HS_MUST_CHECK int hs_conn_export(const struct hs_conn *c, const char *label,
				 const uint8_t *context, size_t context_len, uint8_t *out,
				 size_t out_len);
#define HS_SESSION_MAX 16384 /* bytes of a serialised session, at most */

/*
 * ---- 0-RTT (early data, RFC 8446 2.3, 4.2.10, 8) ----
 * Server: the anti-replay register (8.1, 8.2): the ticket of each
 * accepted 0-RTT ClientHello is remembered for window_secs (0 = 10), at
 * most max_entries at once (rounded up to a multiple of 8; 24 bytes
 * each), so one ticket gives 0-RTT once per window: a replayed
 * ClientHello, or a client offering a ticket again, is refused 0-RTT. A
 * ClientHello whose ticket age puts it more than window_secs / 2 away
 * from now is refused 0-RTT too (so a replay after the window is caught
 * as well). A ticket seen, or no room left: 0-RTT rejected, never
 * accepted.
 * Locked inside: one object serves connections on any thread. The
 * register lives in one process: servers sharing ticket keys across
 * machines share no register, so a ClientHello replayed to another
 * machine is not caught (RFC 8446 8.2, 8.4).
 */
struct hs_antireplay;
HS_API HS_MUST_CHECK int hs_antireplay_new(struct hs_antireplay **out, size_t max_entries,
					   uint32_t window_secs);
HS_API void hs_antireplay_free(struct hs_antireplay *r);
/*
 * client (early_data set, a session whose ticket allows 0-RTT): protect
 * application data under the client_early_traffic_secret, to go out right
 * after the ClientHello. Before the ServerHello is read; *n gets how many
 * bytes were taken: at most what the ticket's max_early_data_size leaves,
 * and what the output queue holds (pull, then write the rest).
 * HS_ERR_TLS_STATE when 0-RTT is not offered on this connection. Whether
 * the server took it: hs_conn_early_data() once the handshake is done;
 * when rejected, the data was skipped by the server and the application
 * sends it again with hs_conn_write if it still wants to.
 */
HS_API HS_MUST_CHECK int hs_conn_write_early(struct hs_conn *c, const uint8_t *buf, size_t len,
					     size_t *n);
/* server: accepted early data (HS_EVENT_EARLY_DATA); *n = 0 if none waits. */
HS_API HS_MUST_CHECK int hs_conn_read_early(struct hs_conn *c, uint8_t *buf, size_t cap,
					    size_t *n);
/* enum hs_early: what happened to 0-RTT on this connection. */
HS_API int hs_conn_early_data(const struct hs_conn *c);
/* Early data bytes: client sent (taken by hs_conn_write_early), server received. */
HS_API uint64_t hs_conn_early_bytes(const struct hs_conn *c);
/*
 * Early exporter (RFC 8446 7.5, early_exporter_master_secret): as
 * hs_conn_export, from the ClientHello's PSK. client: once 0-RTT is offered
 * (gone after a HelloRetryRequest); server: once accepted.
 * HS_ERR_TLS_STATE otherwise. Kept until free.
 */
HS_API HS_MUST_CHECK int hs_conn_export_early(const struct hs_conn *c, const char *label,
					      const uint8_t *context, size_t context_len,
					      uint8_t *out, size_t out_len);

/* Names for printing ("TLS_AES_128_GCM_SHA256", "x25519", ...; "?" if unknown). */
HS_API const char *hs_suite_name(uint16_t suite);
HS_API const char *hs_group_name(uint16_t group);
HS_API const char *hs_sig_scheme_name(uint16_t scheme);
/* Alert description name ("decode_error", ...). */
HS_API const char *hs_alert_name(int alert);
/* The alert an error maps to (the one table in libhs/alert.c). */
HS_API int hs_err_alert(int err);

#endif
