/*
 * The server state machine (RFC 8446 A.2), as data:
 *
 *   START -ClientHello-> (send SH..Finished) WAIT_FINISHED -Finished-> CONNECTED
 *   START -ClientHello with 0-RTT accepted-> (send SH..Finished) WAIT_EOED
 *   WAIT_EOED -EndOfEarlyData-> WAIT_FINISHED (early data read in between)
 *   START -ClientHello-> (send SH, EE, CertificateRequest..Finished) WAIT_CERT
 *   WAIT_CERT -Certificate-> WAIT_CV -CertificateVerify-> WAIT_FINISHED
 *   WAIT_CERT -empty Certificate-> WAIT_FINISHED (request mode only)
 *   START -ClientHello-> (send HelloRetryRequest) START, once
 *   CONNECTED: KeyUpdate
 *
 * Negotiation follows the server's preference order for suites and
 * groups. The credential (hs_config.creds, then cred) is the first whose
 * key can sign with a scheme of the client's signature_algorithms, one
 * whose leaf matches the client's SNI first when there is a choice. A
 * HelloRetryRequest goes out when the client's key shares miss every
 * group we accept but its supported_groups has one (group mismatch), or
 * always on the first ClientHello with hrr_cookie (cookie round trip).
 *
 * Implementation notes: NewSessionTickets follow the client's Finished
 * (resume.c), or wait for hs_conn_make_ticket with defer_tickets; 0-RTT:
 * early.c. A CertificateRequest (verify_client) carries an empty context and our
 * signature_algorithms; the client's chain is validated against
 * client_trust for clientAuth (msg.c). The ECDHE private key and shared secret are
 * wiped right after the handshake secret is derived. The cookie is random
 * and kept in the connection; the second ClientHello must echo it.
 */
#include "libhs/internal.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/rand.h"
#include "hs/x509.h"

static const uint8_t hrr_random[32] = {
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};

/*
 * Lists in the ClientHello (suites, groups, schemes, key shares) are kept
 * as views into the message and scanned, never copied: any length the
 * 16-bit fields allow is taken, nothing is cut.
 */
struct client_hello {
	uint8_t random[32];
	struct reader sid, suites;
	struct ext_list exts;
	struct reader groups; /* u16 entries, checked whole */
	struct reader shares; /* KeyShareEntry list, checked whole */
};

static int parse_ch(const uint8_t *msg, size_t len, struct client_hello *ch)
{
	struct reader body, comp;
	uint16_t version;
	uint8_t method;

	TRY(msg_body(msg, len, &body));
	TRY(read_u16(&body, &version));
	TRY(read_bytes(&body, ch->random, 32));
	TRY(read_vec(&body, 1, 0, 32, &ch->sid));
	TRY(read_vec(&body, 2, 2, 0xfffe, &ch->suites));
	TRY(read_vec(&body, 1, 1, 255, &comp));
	/* a ClientHello without extensions is TLS 1.2 or older */
	ENSURE(reader_left(&body) > 0, HS_ERR_TLS_VERSION);
	TRY(ext_parse(&body, &ch->exts));
	TRY(read_end(&body));
	ENSURE(reader_left(&ch->suites) % 2 == 0, HS_ERR_TLS_DECODE);
	/* 4.1.2: legacy_compression_methods MUST be exactly { 0 } */
	TRY(read_u8(&comp, &method));
	ENSURE(method == 0 && reader_left(&comp) == 0, HS_ERR_TLS_ILLEGAL_PARAM);
	ENSURE(version >= 0x0301 && version <= TLS12_VERSION, HS_ERR_TLS_VERSION);
	return 0;
}

static int ch_versions(const struct client_hello *ch)
{
	const struct ext *e = ext_find(&ch->exts, EXT_SUPPORTED_VERSIONS);
	int has13;

	ENSURE(e != NULL, HS_ERR_TLS_VERSION);
	TRY(ext_versions_has13(e->body, &has13));
	ENSURE(has13, HS_ERR_TLS_VERSION);
	return 0;
}

static int pick_suite(struct hs_conn *c, const struct client_hello *ch)
{
	const uint16_t *ours;
	size_t n;

	cfg_suites(c->cfg, &ours, &n);
	for (size_t i = 0; i < n; i++) {
		struct reader r = ch->suites;
		const struct suite *s = suite_find(ours[i]);
		while (s != NULL && reader_left(&r) > 0) {
			uint16_t id;
			TRY(read_u16(&r, &id));
			if (id != ours[i])
				continue;
			/* 4.1.4: after HRR the suite must not change */
			ENSURE(c->suite == NULL || c->suite == s, HS_ERR_TLS_ILLEGAL_PARAM);
			c->suite = s;
			return 0;
		}
	}
	return HS_ERR_TLS_NO_SHARED_SUITE;
}

/*
 * 4.4.3: the CertificateVerify scheme is one the client listed. Ours, in
 * our preference order, that fit the key's type come first (an RSA key
 * signs with any rsa_pss_rsae_*, rsa_pss_rsae_sha256 preferred); then the
 * credential's own scheme. rsa_pkcs1_* has no row: never in TLS 1.3's
 * CertificateVerify (4.2.3). NULL: this key cannot sign for this client.
 * theirs: the client's list, scanned where it lies (no cap on its length).
 */
static const struct sigscheme *scheme_for(const struct hs_config *cfg, const struct hs_cred *cred,
					  struct reader theirs)
{
	const uint16_t *ours;
	size_t n;

	cfg_sigs(cfg, &ours, &n);
	for (size_t i = 0; i < n; i++) {
		const struct sigscheme *s = sigscheme_find(ours[i]);
		if (s != NULL && s->key == cred->type && u16_view_has(theirs, ours[i]))
			return s;
	}
	if (!u16_view_has(theirs, cred->scheme))
		return NULL;
	return sigscheme_find(cred->scheme);
}

/* The candidates of hs_config: creds[0..n_creds), then cred. */
static size_t n_candidates(const struct hs_config *cfg)
{
	return cfg->n_creds + (cfg->cred != NULL);
}

static const struct hs_cred *candidate(const struct hs_config *cfg, size_t i)
{
	return i < cfg->n_creds ? cfg->creds[i] : cfg->cred;
}

/* Does the leaf's subjectAltName cover the SNI the client sent? */
static int leaf_has_name(const struct hs_cred *cred, const char *sni)
{
	struct x509_cert leaf;

	if (cred->n_certs == 0 || x509_cert_parse(&leaf, cred->cert[0], cred->cert_len[0]) != 0)
		return 0;
	return x509_match_host(&leaf, sni) == 0;
}

/*
 * Pick the credential and its scheme (tls.h, hs_config.creds): first
 * pass, when there is a choice and an SNI, only leaves valid for that
 * name; second pass, any candidate whose key can sign for this client.
 */
/* The application's choice (hs_config.select_cred): its credential must fit. */
static int app_credential(struct hs_conn *c, struct reader theirs)
{
	const struct hs_config *cfg = c->cfg;
	uint16_t sigalgs[HS_SIGALGS_OFFER_MAX];
	const struct hs_cred *cred;
	const struct sigscheme *s;
	size_t n = 0;
	struct reader r = theirs;

	while (n < HS_SIGALGS_OFFER_MAX && read_u16(&r, &sigalgs[n]) == 0)
		n++;
	cred = cfg->select_cred(cfg->select_cred_arg, c->sni, sigalgs, n);
	if (cred == NULL) {
		conn_detail(c, "the application's select_cred callback chose no credential");
		return HS_ERR_TLS_NO_SHARED_SIGALG;
	}
	s = scheme_for(cfg, cred, theirs);
	if (s == NULL) {
		conn_detail(c, "the credential select_cred chose cannot sign with the client's schemes");
		return HS_ERR_TLS_NO_SHARED_SIGALG;
	}
	c->server_cred = cred;
	c->sig = s;
	return 0;
}

static int pick_credential(struct hs_conn *c, struct reader theirs)
{
	const struct hs_config *cfg = c->cfg;
	size_t n = n_candidates(cfg);

	if (cfg->select_cred != NULL)
		return app_credential(c, theirs);

	for (int by_name = c->sni[0] != 0 && n > 1; by_name >= 0; by_name--) {
		for (size_t i = 0; i < n; i++) {
			const struct hs_cred *cred = candidate(cfg, i);
			const struct sigscheme *s = scheme_for(cfg, cred, theirs);
			if (s == NULL || (by_name && !leaf_has_name(cred, c->sni)))
				continue;
			c->server_cred = cred;
			c->sig = s;
			return 0;
		}
	}
	return HS_ERR_TLS_NO_SHARED_SIGALG;
}

static int check_sigalgs(struct hs_conn *c, const struct client_hello *ch)
{
	const struct ext *e = ext_find(&ch->exts, EXT_SIG_ALGS);
	struct reader v;

	/* 9.2: a ClientHello for certificate auth MUST carry signature_algorithms */
	ENSURE(e != NULL, HS_ERR_TLS_MISSING_EXT);
	TRY(ext_u16_view(e->body, &v));
	return pick_credential(c, v);
}

/*
 * 4.2.8: "Clients MUST NOT offer multiple KeyShareEntry values for the
 * same group" and each "MUST correspond to a group offered in the
 * supported_groups extension"; "Servers MAY check for violations". We
 * check the shares of groups we implement (the only ones we may use): a
 * few scans of supported_groups however long the lists are. Shares of
 * other groups are only checked for framing.
 */
static int read_groups(struct client_hello *ch)
{
	const struct ext *g = ext_find(&ch->exts, EXT_SUPPORTED_GROUPS);
	const struct ext *k = ext_find(&ch->exts, EXT_KEY_SHARE);
	uint16_t seen[8]; /* more than the groups hs implements */
	size_t n_seen = 0;

	/* 9.2: supported_groups and key_share go together */
	ENSURE(g != NULL && k != NULL, HS_ERR_TLS_MISSING_EXT);
	TRY(ext_u16_view(g->body, &ch->groups));
	TRY(ext_key_share_view(k->body, &ch->shares));
	for (struct reader r = ch->shares; reader_left(&r) > 0;) {
		struct key_share s;
		TRY(ext_key_share_next(&r, &s));
		if (group_find(s.group) == NULL)
			continue;
		ENSURE(!u16_in(seen, n_seen, s.group), HS_ERR_TLS_ILLEGAL_PARAM);
		ENSURE(u16_view_has(ch->groups, s.group), HS_ERR_TLS_ILLEGAL_PARAM);
		if (n_seen < sizeof(seen) / sizeof(seen[0]))
			seen[n_seen++] = s.group;
	}
	return 0;
}

/* The client's share for group, if it sent one. */
static int find_share(const struct client_hello *ch, uint16_t group, struct key_share *out)
{
	for (struct reader r = ch->shares; reader_left(&r) > 0;)
		if (ext_key_share_next(&r, out) == 0 && out->group == group)
			return 1;
	return 0;
}

/* A share we can use (*share filled, *have_share = 1), or a group to ask
 * for (*have_share = 0). */
static int pick_group(struct hs_conn *c, const struct client_hello *ch,
		      struct key_share *share, int *have_share)
{
	const uint16_t *ours;
	size_t n;

	*have_share = 0;
	cfg_groups(c->cfg, &ours, &n);
	for (size_t i = 0; i < n; i++) {
		const struct group *g = group_find(ours[i]);
		if (g != NULL && find_share(ch, g->id, share)) {
			c->group = g;
			*have_share = 1;
			return 0;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct group *g = group_find(ours[i]);
		if (g != NULL && u16_view_has(ch->groups, g->id)) {
			c->group = g;
			return 0;
		}
	}
	return HS_ERR_TLS_NO_SHARED_GROUP;
}

static int read_sni(struct hs_conn *c, const struct client_hello *ch)
{
	const struct ext *e = ext_find(&ch->exts, EXT_SERVER_NAME);

	c->sni[0] = 0; /* the second ClientHello (after HRR) speaks for itself */
	return e != NULL ? ext_sni(e->body, c->sni, sizeof(c->sni)) : 0;
}

static int read_alpn(struct hs_conn *c, const struct client_hello *ch)
{
	const struct ext *e = ext_find(&ch->exts, EXT_ALPN);
	const char *pick;

	if (e != NULL && c->cfg->alpn_select != NULL)
		return alpn_select_run(c, e->body);
	if (e == NULL || c->cfg->n_alpn == 0)
		return 0;
	TRY(ext_alpn_pick(e->body, c->cfg->alpn, c->cfg->n_alpn, &pick));
	/* RFC 7301 3.2: no overlap -> no_application_protocol */
	if (pick == NULL)
		conn_detail(c, "no ALPN protocol in common: the client offered none of ours");
	ENSURE(pick != NULL, HS_ERR_TLS_NO_ALPN);
	memcpy(c->alpn, pick, strlen(pick) + 1);
	return 0;
}

static int check_retry(struct hs_conn *c, const struct client_hello *ch)
{
	const struct ext *e = ext_find(&ch->exts, EXT_COOKIE);
	const uint8_t *p;
	size_t n;

	/* 4.1.2: the second ClientHello keeps random and session id */
	ENSURE(memcmp(ch->random, c->random, 32) == 0, HS_ERR_TLS_ILLEGAL_PARAM);
	ENSURE(ch->sid.len == c->sid_len && memcmp(ch->sid.p, c->sid, c->sid_len) == 0,
	       HS_ERR_TLS_ILLEGAL_PARAM);
	if (c->hs->cookie_len == 0)
		return 0;
	ENSURE(e != NULL, HS_ERR_TLS_BAD_COOKIE);
	TRY(ext_cookie(e->body, &p, &n));
	ENSURE(n == c->hs->cookie_len && memcmp(p, c->hs->cookie, n) == 0, HS_ERR_TLS_BAD_COOKIE);
	return 0;
}

/* ---- 4.2.11: the client's pre_shared_key ---- */

struct psk_offer {
	struct reader ids, binders;
	size_t partial_len; /* the ClientHello up to the binders list */
	int dhe, ke;        /* modes the client allows */
};

static int read_psk_offer(const struct client_hello *ch, size_t msg_len, struct psk_offer *o)
{
	const struct ext *e = ext_find(&ch->exts, EXT_PRE_SHARED_KEY);
	const struct ext *m = ext_find(&ch->exts, EXT_PSK_MODES);
	struct reader body = e->body, mbody, modes;

	/* "The "pre_shared_key" extension MUST be the last extension in the
	 * ClientHello ... Servers MUST check that it is the last extension and
	 * otherwise fail the handshake with an "illegal_parameter" alert." */
	ENSURE(ch->exts.last == EXT_PRE_SHARED_KEY, HS_ERR_TLS_ILLEGAL_PARAM);
	/* 4.2.9: "If clients offer "pre_shared_key" without a
	 * "psk_key_exchange_modes" extension, servers MUST abort" */
	ENSURE(m != NULL, HS_ERR_TLS_MISSING_EXT);
	mbody = m->body;
	TRY(read_vec(&mbody, 1, 1, 255, &modes));
	TRY(read_end(&mbody));
	o->dhe = o->ke = 0;
	while (reader_left(&modes) > 0) {
		uint8_t v;
		TRY(read_u8(&modes, &v));
		o->dhe |= v == 1;
		o->ke |= v == 0;
	}
	TRY(read_vec(&body, 2, 7, 0xffff, &o->ids));
	o->partial_len = msg_len - reader_left(&body);
	TRY(read_vec(&body, 2, 33, 0xffff, &o->binders));
	return read_end(&body);
}

/* The index of the first identity that opens as one of our live tickets
 * for this suite, or -1. A ticket that does not open is no error: a full
 * handshake. Other negative values: a malformed list. */
static int tickets_on(const struct hs_conn *c);

/*
 * An external PSK for this identity, usable with this suite (SHA-256)?
 * 1: hs_config.psk; 2: psk_find gave one, now in c->psk (c->psk_len_found);
 * 0: none.
 */
static int is_external(struct hs_conn *c, struct reader id)
{
	const struct hs_config *cfg = c->cfg;
	size_t n = 0;

	if (c->suite->hash() != hash_sha256())
		return 0;
	if (cfg->psk != NULL && id.len == cfg->psk_identity_len &&
	    memcmp(id.p, cfg->psk_identity, id.len) == 0)
		return 1;
	if (cfg->psk_find == NULL)
		return 0;
	if (cfg->psk_find(cfg->psk_find_arg, id.p, id.len, c->psk, sizeof(c->psk), &n) != 0 ||
	    n == 0 || n > sizeof(c->psk)) {
		wipe(c->psk, sizeof(c->psk));
		return 0;
	}
	c->psk_found_len = n;
	return 2;
}

static int find_ticket(struct hs_conn *c, struct psk_offer *o, struct ticket_state *st,
		       size_t *n_ids, int *external, uint32_t *obf_age, struct reader *ident)
{
	int found = -1;
	int64_t now = resume_now_ms(c);

	*n_ids = 0;
	*external = 0;
	for (struct reader r = o->ids; reader_left(&r) > 0; (*n_ids)++) {
		struct reader id;
		uint32_t age;
		TRY(read_vec(&r, 2, 1, 0xffff, &id));
		TRY(read_u32(&r, &age));
		if (found < 0 && (*external = is_external(c, id)) != 0) {
			found = (int)*n_ids;
			continue;
		}
		if (found >= 0 || !tickets_on(c) ||
		    ticket_open(c->cfg->ticket_keys, id.p, id.len, st) != 0)
			continue;
		/* 4.2.11: the PSK's hash must be the suite's; the ticket unexpired */
		if (suite_find(st->suite) == NULL ||
		    suite_find(st->suite)->hash() != c->suite->hash() ||
		    st->psk_len != c->suite->hash()->digest_len || now < st->issued_ms ||
		    now - st->issued_ms >= (int64_t)st->lifetime * 1000) {
			wipe(st->psk, sizeof(st->psk));
			continue;
		}
		found = (int)*n_ids;
		*obf_age = age;
		*ident = id;
	}
	return found;
}

/* 4.2.11.2: "If this value does not validate, the server MUST abort the
 * handshake" (6.2: decrypt_error covers "a PSK binder"). */
static int check_binder(struct hs_conn *c, const struct psk_offer *o, size_t index,
			const uint8_t *msg, const uint8_t *psk, size_t psk_len, int external)
{
	const struct hash *h = c->suite->hash();
	struct reader r = o->binders, b;
	uint8_t want[HASH_MAX];
	uint32_t diff;

	for (size_t i = 0; i <= index; i++)
		TRY(read_vec(&r, 1, 32, 255, &b));
	ENSURE(b.len == h->digest_len, HS_ERR_TLS_BAD_BINDER);
	TRY(psk_binder(&c->hs->tr, h, psk, psk_len, external, msg, o->partial_len, want));
	diff = ct_memneq(want, b.p, h->digest_len);
	wipe(want, sizeof(want));
	return diff ? HS_ERR_TLS_BAD_BINDER : 0;
}

static size_t count_binders(struct reader r)
{
	size_t n = 0;
	struct reader b;

	while (reader_left(&r) > 0 && read_vec(&r, 1, 32, 255, &b) == 0)
		n++;
	return reader_left(&r) == 0 ? n : 0;
}

/*
 * Tickets carry no client identity: with client certificates asked for, a
 * resumed connection could not say who the client is (hs_conn_peer_cert),
 * so such a server neither issues nor accepts tickets.
 */
static int tickets_on(const struct hs_conn *c)
{
	return c->cfg->ticket_keys != NULL && c->cfg->verify_client == HS_VERIFY_NONE;
}

/*
 * Resumption: take the first identity that is a live ticket of ours, in
 * psk_dhe_ke when the client allows it (psk_ke otherwise), once its binder
 * checks out. c->resumed, c->psk, c->psk_index set; nothing taken: 0 and
 * a full handshake.
 */
static int accept_psk(struct hs_conn *c, const struct client_hello *ch, const uint8_t *msg,
		      size_t len)
{
	struct psk_offer o;
	struct ticket_state st;
	struct reader ident;
	size_t n_ids;
	uint32_t obf_age = 0;
	int i, err, external;

	c->resumed = 0;
	if (ext_find(&ch->exts, EXT_PRE_SHARED_KEY) == NULL)
		return 0;
	TRY(read_psk_offer(ch, len, &o));
	if ((!tickets_on(c) && c->cfg->psk == NULL && c->cfg->psk_find == NULL) || (!o.dhe && !o.ke))
		return 0;
	i = find_ticket(c, &o, &st, &n_ids, &external, &obf_age, &ident);
	if (i < 0)
		return i == -1 ? 0 : i;
	/* 4.2.11: as many binders as identities */
	err = count_binders(o.binders) == n_ids ? 0 : HS_ERR_TLS_ILLEGAL_PARAM;
	if (err == 0 && external == 1)
		err = check_binder(c, &o, (size_t)i, msg, c->cfg->psk, c->cfg->psk_len, 1);
	else if (err == 0 && external == 2)
		err = check_binder(c, &o, (size_t)i, msg, c->psk, c->psk_found_len, 1);
	else if (err == 0)
		err = check_binder(c, &o, (size_t)i, msg, st.psk, st.psk_len, 0);
	if (err == 0 && external) {
		c->psk_key = external == 1 ? c->cfg->psk : c->psk;
		c->psk_key_len = external == 1 ? c->cfg->psk_len : c->psk_found_len;
		c->psk_external = 1;
	} else if (err == 0) {
		memcpy(c->psk, st.psk, st.psk_len);
		c->psk_key = c->psk;
		c->psk_key_len = st.psk_len;
	}
	if (err == 0) {
		c->psk_index = (uint16_t)i;
		c->resumed = o.dhe ? 1 : 2;
		/* 4.2.10: 0-RTT only with the first identity, a ticket's */
		if (i == 0 && !external)
			early_ticket(c, &st, obf_age, ident);
	}
	if (err != 0)
		wipe(c->psk, sizeof(c->psk)); /* a found key whose binder failed */
	wipe(&st, sizeof(st));
	return err;
}

static void write_sh_start(struct hs_conn *c, struct writer *w, struct writer_vec *v,
			   const uint8_t *random)
{
	struct writer_vec sid;

	msg_begin(c, HT_SERVER_HELLO, w, v);
	write_u16(w, TLS12_VERSION);
	write_bytes(w, random, 32);
	write_vec_open(w, 1, &sid);
	write_bytes(w, c->sid, c->sid_len);
	write_vec_close(w, &sid);
	write_u16(w, c->suite->id);
	write_u8(w, 0);
}

static int send_hrr(struct hs_conn *c, int ask_group)
{
	static const uint8_t v13[2] = { 0x03, 0x04 };
	struct writer w;
	struct writer_vec v, exts;

	if (c->cfg->hrr_cookie) {
		c->hs->cookie_len = 32;
		const struct test_hooks *th = test_hooks(c);

		if (th != NULL && th->cookie != NULL && th->cookie_len <= COOKIE_MAX) {
			c->hs->cookie_len = th->cookie_len;
			memcpy(c->hs->cookie, th->cookie, c->hs->cookie_len);
		} else {
			TRY(rand_bytes(c->hs->cookie, 32));
		}
	}
	transcript_hrr_restart(&c->hs->tr);
	write_sh_start(c, &w, &v, hrr_random);
	write_vec_open(&w, 2, &exts);
	ext_w_opaque(&w, EXT_SUPPORTED_VERSIONS, 0, v13, 2);
	if (ask_group) {
		ext_w_key_share(&w, c->group->id, NULL, 0, 0);
		c->kx_group = c->group; /* the group the second hello must use */
	}
	if (c->hs->cookie_len > 0)
		ext_w_opaque(&w, EXT_COOKIE, 2, c->hs->cookie, c->hs->cookie_len);
	write_vec_close(&w, &exts);
	TRY(msg_end(c, &w, &v));
	TRY(flush_handshake(c, TLS12_VERSION));
	c->hrr_done = 1;
	c->state = S_START;
	/* D.4: the CCS goes right after our first handshake message */
	return c->sid_len > 0 ? send_ccs(c) : 0;
}

static int send_server_hello(struct hs_conn *c)
{
	static const uint8_t v13[2] = { 0x03, 0x04 };
	struct writer w;
	struct writer_vec v, exts;

	TRY(hello_random(c, c->random));
	write_sh_start(c, &w, &v, c->random);
	write_vec_open(&w, 2, &exts);
	if (c->resumed != 2)
		ext_w_key_share(&w, c->group->id, c->hs->kx_pub, c->group->kx->pub_len, 0);
	ext_w_opaque(&w, EXT_SUPPORTED_VERSIONS, 0, v13, 2);
	if (c->resumed) { /* 4.2.11: selected_identity */
		uint8_t sel[2] = { (uint8_t)(c->psk_index >> 8), (uint8_t)c->psk_index };
		ext_w_opaque(&w, EXT_PRE_SHARED_KEY, 0, sel, 2);
	}
	write_vec_close(&w, &exts);
	TRY(msg_end(c, &w, &v));
	TRY(flush_handshake(c, TLS12_VERSION));
	return c->sid_len > 0 ? send_ccs(c) : 0;
}

static int key_exchange(struct hs_conn *c, const struct key_share *share)
{
	/* psk_ke: the (EC)DHE input is the 0-value, Hash.length zeros (7.1) */
	uint8_t shared[HS_KX_MAX_SHARED > HASH_MAX ? HS_KX_MAX_SHARED : HASH_MAX] = { 0 };
	uint8_t th[HASH_MAX], th_ch[HASH_MAX];
	size_t hlen = c->suite->hash()->digest_len, shared_len = hlen;
	int err = 0;

	if (c->early == HS_EARLY_ACCEPTED) /* its secrets hash the ClientHello */
		transcript_hash(&c->hs->tr, th_ch);

	if (c->resumed != 2) {
		/* 4.2.8.2: a share of the wrong size is illegal_parameter (X25519 too) */
		ENSURE(share->len == c->group->kx->pub_len, HS_ERR_TLS_BAD_KEY_SHARE);
		err = conn_keygen_shared(c, c->group, shared, share->pub, share->len);
		wipe(c->hs->kx_priv, sizeof(c->hs->kx_priv));
		shared_len = c->group->kx->shared_len;
	}
	if (err == 0)
		err = send_server_hello(c);
	if (err == 0) {
		transcript_hash(&c->hs->tr, th);
		err = c->resumed ? keysched_start_psk(&c->ks, c->suite->hash(), c->psk_key,
						      c->psk_key_len)
				 : keysched_start(&c->ks, c->suite->hash());
	}
	wipe(c->psk, sizeof(c->psk)); /* the early secret holds it */
	if (err == 0 && c->early == HS_EARLY_ACCEPTED) {
		err = keysched_early(&c->ks, th_ch);
		c->early_exp = err == 0;
		if (err == 0)
			keysched_note(c, 2);
	}
	if (err == 0)
		err = keysched_handshake(&c->ks, shared, shared_len, th);
	wipe(shared, sizeof(shared));
	if (err == 0)
		keysched_note(c, 0);
	return err;
}

static int send_encrypted_extensions(struct hs_conn *c)
{
	struct writer w;
	struct writer_vec v, exts;
	const char *alpn[1] = { c->alpn };

	msg_begin(c, HT_ENCRYPTED_EXTENSIONS, &w, &v);
	write_vec_open(&w, 2, &exts);
	if (test_hooks(c) != NULL && test_hooks(c)->ee_exts != NULL) { /* test hook: a trace's bytes */
		write_bytes(&w, test_hooks(c)->ee_exts, test_hooks(c)->ee_exts_len);
		write_vec_close(&w, &exts);
		return msg_end(c, &w, &v);
	}
	if (c->sni[0]) /* RFC 6066 3: acknowledge with an empty server_name */
		ext_w_opaque(&w, EXT_SERVER_NAME, 0, NULL, 0);
	if (c->alpn[0])
		ext_w_alpn(&w, alpn, 1);
	if (c->early == HS_EARLY_ACCEPTED) /* 4.2.10: empty in EncryptedExtensions */
		ext_w_opaque(&w, EXT_EARLY_DATA, 0, NULL, 0);
	write_vec_close(&w, &exts);
	return msg_end(c, &w, &v);
}

/* 4.2.4: DistinguishedName authorities<3..2^16-1>, each a DER Name */
static void write_ca_names(struct writer *w, const struct hs_x509_store *s)
{
	struct writer_vec e, l, one;
	const struct x509_cert *a;

	write_u16(w, EXT_CERT_AUTHORITIES);
	write_vec_open(w, 2, &e);
	write_vec_open(w, 2, &l);
	for (size_t i = 0; (a = x509_store_at(s, i)) != NULL; i++) {
		write_vec_open(w, 2, &one);
		write_bytes(w, a->subject.p, a->subject.len);
		write_vec_close(w, &one);
	}
	write_vec_close(w, &l);
	write_vec_close(w, &e);
}

/* 4.3.2: an empty context (in the handshake), signature_algorithms and,
 * if asked, certificate_authorities */
static int send_certificate_request(struct hs_conn *c)
{
	struct writer w;
	struct writer_vec v, ctx, exts, e, l;
	const uint16_t *sigs;
	size_t n;

	cfg_sigs(c->cfg, &sigs, &n);
	msg_begin(c, HT_CERTIFICATE_REQUEST, &w, &v);
	write_vec_open(&w, 1, &ctx);
	write_vec_close(&w, &ctx);
	write_vec_open(&w, 2, &exts);
	write_u16(&w, EXT_SIG_ALGS);
	write_vec_open(&w, 2, &e);
	write_vec_open(&w, 2, &l);
	for (size_t i = 0; i < n; i++)
		if (sigscheme_find(sigs[i]) != NULL)
			write_u16(&w, sigs[i]);
	if (test_hooks(c) != NULL && test_hooks(c)->extra_scheme != 0)
		write_u16(&w, test_hooks(c)->extra_scheme);
	write_vec_close(&w, &l);
	write_vec_close(&w, &e);
	if (c->cfg->send_ca_names && hs_x509_store_count(c->cfg->client_trust) > 0)
		write_ca_names(&w, c->cfg->client_trust);
	write_vec_close(&w, &exts);
	c->cert_requested = 1;
	return msg_end(c, &w, &v);
}

static int send_flight(struct hs_conn *c, const struct key_share *share)
{
	uint8_t th[HASH_MAX];

	TRY(key_exchange(c, share));
	TRY(set_write_key(c, c->ks.s_hs));
	/* 0-RTT accepted: the client's early data, then EndOfEarlyData, come
	 * under client_early_traffic_secret (on_end_of_early_data: c_hs) */
	if (c->early == HS_EARLY_ACCEPTED) {
		TRY(set_read_key(c, c->ks.c_e));
		keysched_forget(c->ks.c_e); /* the read key holds it */
	} else {
		TRY(set_read_key(c, c->ks.c_hs));
	}
	TRY(send_encrypted_extensions(c));
	/* 2.2: resumed, the PSK authenticates us; 4.3.2: "Servers which are
	 * authenticating with a PSK MUST NOT send the CertificateRequest" */
	if (c->cfg->verify_client != HS_VERIFY_NONE && !c->resumed)
		TRY(send_certificate_request(c));
	if (!c->resumed) {
		TRY(build_certificate(c, c->server_cred, NULL, 0));
		TRY(build_cert_verify(c, c->server_cred, 1));
	}
	TRY(build_finished(c, c->ks.s_hs));
	TRY(flush_handshake(c, TLS12_VERSION));
	transcript_hash(&c->hs->tr, th);
	TRY(keysched_master(&c->ks, th));
	keysched_note(c, 1);
	keysched_forget(c->ks.s_hs); /* our Finished is built */
	if (c->cert_requested)
		c->state = S_WAIT_CERT;
	if (c->early == HS_EARLY_ACCEPTED)
		c->state = S_WAIT_EOED;
	/* kept: c_hs (the client's Finished), c_ap (its read key after
	 * that), the master (resumption_master_secret needs the transcript
	 * through the client's Finished) */
	TRY(set_write_key(c, c->ks.s_ap));
	keysched_forget(c->ks.s_ap); /* the write key holds it */
	return 0;
}

static int on_client_hello(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	struct client_hello ch;
	struct key_share share;
	int have_share;

	TRY(parse_ch(msg, len, &ch));
	TRY(ch_versions(&ch));
	if (c->hrr_done)
		TRY(check_retry(c, &ch));
	/* 4.2.10: we accept no 0-RTT (no PSK); early data the client sends
	 * after this hello is skipped (conn.c). "A client MUST NOT include
	 * the "early_data" extension in its followup ClientHello." */
	if (c->hrr_done)
		ENSURE(ext_find(&ch.exts, EXT_EARLY_DATA) == NULL, HS_ERR_TLS_ILLEGAL_PARAM);
	c->skip_early = !c->hrr_done && ext_find(&ch.exts, EXT_EARLY_DATA) != NULL;
	TRY(pick_suite(c, &ch));
	TRY(read_sni(c, &ch)); /* before the credential: it may pick by name */
	TRY(read_alpn(c, &ch)); /* before the PSK: 0-RTT needs the ticket's ALPN */
	TRY(accept_psk(c, &ch, msg, len));
	if (!c->resumed)
		TRY(check_sigalgs(c, &ch));
	have_share = 0;
	if (c->resumed != 2) {
		TRY(read_groups(&ch));
		TRY(pick_group(c, &ch, &share, &have_share));
	}
	TRY(read_alpn(c, &ch));
	transcript_choose(&c->hs->tr, c->suite->hash());
	transcript_update(&c->hs->tr, msg, len);
	if (!c->hrr_done) {
		memcpy(c->random, ch.random, 32);
		memcpy(c->client_random, ch.random, 32); /* the key log's */
		c->sid_len = ch.sid.len;
		memcpy(c->sid, ch.sid.p, ch.sid.len);
		if ((!have_share && c->resumed != 2) || c->cfg->hrr_cookie) {
			/* 4.2.10: a HelloRetryRequest rejects 0-RTT */
			if (c->skip_early)
				c->early = HS_EARLY_REJECTED;
			return send_hrr(c, !have_share && c->resumed != 2);
		}
		TRY(early_decide(c, c->skip_early));
	}
	/* after our HelloRetryRequest the share must be for the group we named */
	ENSURE(have_share || c->resumed == 2, HS_ERR_TLS_BAD_KEY_SHARE);
	ENSURE(c->resumed == 2 || c->kx_group == NULL || share.group == c->kx_group->id,
	       HS_ERR_TLS_BAD_KEY_SHARE);
	return send_flight(c, &share); /* c->server_cred, c->sig: from pick_credential */
}

static int on_client_certificate(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	size_t n;

	TRY(parse_certificate(c, msg, len, &n));
	transcript_update(&c->hs->tr, msg, len);
	/* 4.4.3: no CertificateVerify follows an empty Certificate */
	if (n == 0)
		c->state = S_WAIT_FINISHED;
	return 0;
}

static int on_client_cert_verify(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	TRY(check_cert_verify(c, msg, len, 0));
	transcript_update(&c->hs->tr, msg, len);
	return 0;
}

static int on_client_finished(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	uint8_t th[HASH_MAX];
	int err = 0;

	TRY(check_finished(c, c->ks.c_hs, msg, len));
	transcript_update(&c->hs->tr, msg, len);
	/* 4.6.1: resumption_master_secret (CH..client Finished) before the
	 * master goes; it lives only until our tickets are sealed (with
	 * defer_tickets: until hs_conn_end_tickets or the last ticket) */
	if (tickets_on(c)) {
		transcript_hash(&c->hs->tr, th);
		err = keysched_resumption(&c->ks, th);
	}
	keysched_forget(c->ks.stage);
	keysched_forget(c->ks.c_hs);
	TRY(err);
	TRY(set_read_key(c, c->ks.c_ap));
	keysched_forget(c->ks.c_ap); /* the read key holds it */
	c->handshake_done = 1;
	conn_event(c, HS_EVENT_HANDSHAKE_DONE);
	/* defer_tickets: res_master waits for hs_conn_make_ticket (resume.c) */
	if (tickets_on(c) && c->cfg->defer_tickets) {
		c->tickets_open = 1;
	} else if (tickets_on(c)) {
		err = send_tickets(c);
		keysched_forget(c->ks.res_master);
	}
	return err;
}

static const struct transition server_table[] = {
	{ S_START, HT_CLIENT_HELLO, on_client_hello, S_WAIT_FINISHED },
	{ S_WAIT_EOED, HT_END_OF_EARLY_DATA, on_end_of_early_data, S_WAIT_FINISHED },
	{ S_WAIT_CERT, HT_CERTIFICATE, on_client_certificate, S_WAIT_CV },
	{ S_WAIT_CV, HT_CERTIFICATE_VERIFY, on_client_cert_verify, S_WAIT_FINISHED },
	{ S_WAIT_FINISHED, HT_FINISHED, on_client_finished, S_CONNECTED },
	{ S_CONNECTED, HT_KEY_UPDATE, on_key_update, S_CONNECTED },
};

int server_handle(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	return dispatch(c, server_table, sizeof(server_table) / sizeof(server_table[0]), msg,
			   len);
}
