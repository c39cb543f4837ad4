/*
 * The client state machine (RFC 8446 A.1), as data:
 *
 *   START -ClientHello-> WAIT_SH -ServerHello-> WAIT_EE -EE-> WAIT_CERT_CR
 *   WAIT_SH -HelloRetryRequest-> WAIT_SH (once)
 *   WAIT_CERT_CR -Certificate-> WAIT_CV, -CertificateRequest-> WAIT_CERT
 *   WAIT_CV -CertificateVerify-> WAIT_FINISHED -Finished-> CONNECTED
 *   CONNECTED: NewSessionTicket, KeyUpdate
 *   0-RTT (early.c): early data after the first ClientHello; the
 *   EncryptedExtensions say whether it was taken; EndOfEarlyData before
 *   our second flight if so
 *
 * Implementation notes: middlebox compatibility (D.4) is on unless
 * no_compat: a 32-byte legacy_session_id and one CCS before our second
 * flight. We send one key share (the first configured group). The
 * extension types we sent are remembered so that any extension in a reply
 * we did not offer is unsupported_extension (4.2). The ECDHE private key
 * is wiped as soon as the shared secret is computed. A CertificateRequest
 * is answered with the configured credential when the server listed its
 * signature scheme, else with an empty Certificate.
 */
#include "libhs/internal.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/rand.h"

/* SHA-256("HelloRetryRequest"), RFC 8446 4.1.3 */
static const uint8_t hrr_random[32] = {
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};

static int offered(const struct hs_conn *c, uint16_t type)
{
	return u16_in(c->hs->offered, c->hs->n_offered, type);
}

static void note_offered(struct hs_conn *c, uint16_t type)
{
	if (c->hs->n_offered < MAX_OFFERED && !offered(c, type))
		c->hs->offered[c->hs->n_offered++] = type;
}

static void write_available(struct writer *w, const uint16_t *v, size_t n,
			    const void *(*find)(uint16_t))
{
	for (size_t i = 0; i < n; i++)
		if (find(v[i]) != NULL)
			write_u16(w, v[i]);
}

static const void *find_suite(uint16_t id) { return suite_find(id); }
static const void *find_group(uint16_t id) { return group_find(id); }
static const void *find_sig(uint16_t id) { return sigscheme_find(id); }

static void write_list_ext(struct hs_conn *c, struct writer *w, uint16_t type,
			   const uint16_t *v, size_t n, const void *(*find)(uint16_t))
{
	struct writer_vec e, l;

	write_u16(w, type);
	write_vec_open(w, 2, &e);
	write_vec_open(w, 2, &l);
	write_available(w, v, n, find);
	if (type == EXT_SIG_ALGS && test_hooks(c) != NULL && test_hooks(c)->extra_scheme != 0)
		write_u16(w, test_hooks(c)->extra_scheme);
	write_vec_close(w, &l);
	write_vec_close(w, &e);
	note_offered(c, type);
}

/*
 * 4.2.9 psk_key_exchange_modes (psk_dhe_ke, or psk_ke alone when asked),
 * then 4.2.11 pre_shared_key, which "MUST be the last extension": one
 * identity with its obfuscated_ticket_age ("the age of the ticket in
 * milliseconds" plus ticket_age_add, modulo 2^32), and a binder of zeros
 * that send_client_hello fills in once the rest of the message is known.
 */
static void write_psk_exts(struct hs_conn *c, struct writer *w)
{
	uint8_t mode = c->cfg->psk_ke ? 0 : 1;
	uint8_t zeros[HASH_MAX] = { 0 };
	struct writer_vec e, l, one;

	ext_w_opaque(w, EXT_PSK_MODES, 1, &mode, 1);
	note_offered(c, EXT_PSK_MODES);
	write_u16(w, EXT_PRE_SHARED_KEY);
	write_vec_open(w, 2, &e);
	write_vec_open(w, 2, &l);
	write_vec_open(w, 2, &one);
	write_bytes(w, c->psk_id, c->psk_id_len);
	write_vec_close(w, &one);
	write_u32(w, c->psk_age); /* 4.2.11: 0 for an external PSK */
	write_vec_close(w, &l);
	write_vec_open(w, 2, &l);
	write_vec_open(w, 1, &one);
	write_bytes(w, zeros, c->psk_suite->hash()->digest_len);
	write_vec_close(w, &one);
	write_vec_close(w, &l);
	write_vec_close(w, &e);
	note_offered(c, EXT_PRE_SHARED_KEY);
}

/*
 * 4.2.11.2: the binder is the Finished MAC under binder_key over the
 * transcript (after a HelloRetryRequest: message_hash, the HRR) plus this
 * ClientHello up to, not including, the binders list (2 + 1 + Hash.length
 * bytes at its end). msg: the whole message, binder placeholder last.
 */
static int fill_binder(struct hs_conn *c, uint8_t *msg, size_t len)
{
	const struct hash *h = c->psk_suite->hash();
	size_t tail = 2 + 1 + h->digest_len;
	uint8_t binder[HASH_MAX];
	struct writer w;

	ENSURE(len > tail, HS_ERR_INTERNAL);
	TRY(psk_binder(&c->hs->tr, h, c->psk_key, c->psk_key_len, c->psk_external, msg, len - tail,
		       binder));
	w = writer_init(msg + len - h->digest_len, h->digest_len);
	write_bytes(&w, binder, h->digest_len);
	return writer_error(&w);
}

static void write_ch_exts(struct hs_conn *c, struct writer *w)
{
	const struct hs_config *cfg = c->cfg;
	const uint16_t *v;
	size_t n;
	static const uint16_t versions[] = { TLS13_VERSION };

	if (cfg->server_name != NULL && !sni_is_ip_literal(cfg->server_name)) {
		ext_w_sni(w, cfg->server_name);
		note_offered(c, EXT_SERVER_NAME);
	}
	cfg_groups(cfg, &v, &n);
	write_list_ext(c, w, EXT_SUPPORTED_GROUPS, v, n, find_group);
	cfg_sigs(cfg, &v, &n);
	write_list_ext(c, w, EXT_SIG_ALGS, v, n, find_sig);
	/* 4.2.3: certificates may be signed with rsa_pkcs1_*, which
	 * signature_algorithms cannot list for CertificateVerify */
	ext_w_u16_list(w, EXT_SIG_ALGS_CERT, 2, cert_sigs, n_cert_sigs);
	note_offered(c, EXT_SIG_ALGS_CERT);
	if (cfg->n_alpn > 0) {
		ext_w_alpn(w, cfg->alpn, cfg->n_alpn);
		note_offered(c, EXT_ALPN);
	}
	ext_w_u16_list(w, EXT_SUPPORTED_VERSIONS, 1, versions, 1);
	note_offered(c, EXT_SUPPORTED_VERSIONS);
	ext_w_key_share(w, c->kx_group->id, c->hs->kx_pub, c->kx_group->kx->pub_len, 1);
	note_offered(c, EXT_KEY_SHARE);
	if (c->echo_cookie_len > 0) {
		ext_w_opaque(w, EXT_COOKIE, 2, c->echo_cookie, c->echo_cookie_len);
		note_offered(c, EXT_COOKIE);
	}
	if (c->early == HS_EARLY_OFFERED && !c->hrr_done) { /* 4.2.10: empty here */
		ext_w_opaque(w, EXT_EARLY_DATA, 0, NULL, 0);
		note_offered(c, EXT_EARLY_DATA);
	}
	if (c->psk_offer != NULL)
		write_psk_exts(c, w);
}

static int send_client_hello(struct hs_conn *c, uint16_t record_version)
{
	struct writer w;
	struct writer_vec v, sub;
	const uint16_t *suites;
	size_t n;

	cfg_suites(c->cfg, &suites, &n);
	msg_begin(c, HT_CLIENT_HELLO, &w, &v);
	write_u16(&w, TLS12_VERSION);
	write_bytes(&w, c->random, 32);
	write_vec_open(&w, 1, &sub);
	write_bytes(&w, c->sid, c->sid_len);
	write_vec_close(&w, &sub);
	write_vec_open(&w, 2, &sub);
	write_available(&w, suites, n, find_suite);
	write_vec_close(&w, &sub);
	write_u16(&w, 0x0100); /* legacy_compression_methods = { null } */
	write_vec_open(&w, 2, &sub);
	write_ch_exts(c, &w);
	write_vec_close(&w, &sub);
	if (c->psk_offer == NULL) {
		TRY(msg_end(c, &w, &v));
		return flush_handshake(c, record_version);
	}
	/* the binder covers the message's final length: close it, then fill */
	uint8_t *msg = c->handshake_out + c->handshake_out_len;
	TRY(msg_end_notr(c, &w, &v));
	TRY(fill_binder(c, msg, w.len));
	transcript_update(&c->hs->tr, msg, w.len);
	return flush_handshake(c, record_version);
}

#ifdef HS_TEST_HOOKS
/* test hook: send a given ClientHello verbatim, learning what it offers */
static int send_verbatim_hello(struct hs_conn *c)
{
	struct reader r = reader_init(c->hooks.client_hello, c->hooks.client_hello_len);
	struct reader body, sid, suites, comp;
	struct ext_list exts;
	uint16_t version;

	TRY(msg_body(c->hooks.client_hello, c->hooks.client_hello_len, &body));
	r = body;
	TRY(read_u16(&r, &version));
	TRY(read_bytes(&r, c->random, 32));
	TRY(read_vec(&r, 1, 0, 32, &sid));
	c->sid_len = sid.len;
	memcpy(c->sid, sid.p, sid.len);
	TRY(read_vec(&r, 2, 2, 0xfffe, &suites));
	TRY(read_vec(&r, 1, 1, 255, &comp));
	TRY(ext_parse(&r, &exts));
	for (uint16_t t = 0; t < EXT_TRACKED; t++)
		if (ext_find(&exts, t) != NULL)
			note_offered(c, t);
	ENSURE(c->hooks.client_hello_len <= HANDSHAKE_OUT_MAX, HS_ERR_ARG);
	TRY(conn_out_room(c, c->hooks.client_hello_len));
	memcpy(c->handshake_out, c->hooks.client_hello, c->hooks.client_hello_len);
	c->handshake_out_len = c->hooks.client_hello_len;
	transcript_update(&c->hs->tr, c->handshake_out, c->handshake_out_len);
	return flush_handshake(c, 0x0301);
}
#endif

/*
 * The newest unused, unexpired ticket of the session whose suite we would
 * still offer; marked used (a ticket goes out once, 2.2's privacy advice,
 * C.4) unless reuse_tickets. None: a full handshake.
 */
/* psk_offer of an external PSK: no ticket behind it */
static const struct session_ticket external_offer;

static int pick_ticket(struct hs_conn *c)
{
	struct hs_session *s = c->cfg->session;
	struct session_ticket *t;
	const uint16_t *suites;
	size_t n;

	if (c->cfg->psk != NULL) { /* external: SHA-256, identity as given */
		c->psk_suite = suite_find(HS_TLS_AES_128_GCM_SHA256);
		c->psk_key = c->cfg->psk;
		c->psk_key_len = c->cfg->psk_len;
		c->psk_external = 1;
		c->psk_id = c->cfg->psk_identity;
		c->psk_id_len = c->cfg->psk_identity_len;
		c->psk_offer = &external_offer;
		return 0;
	}
	if (s == NULL)
		return 0;
	cfg_suites(c->cfg, &suites, &n);
	if (!u16_in(suites, n, s->suite) || suite_find(s->suite) == NULL)
		return 0;
	t = session_pick(s, resume_now_ms(c));
	if (t == NULL)
		return 0;
	c->psk_suite = suite_find(s->suite);
	ENSURE(t->psk_len == c->psk_suite->hash()->digest_len, HS_ERR_ARG);
	memcpy(c->psk, t->psk, t->psk_len);
	c->psk_key = c->psk;
	c->psk_key_len = t->psk_len;
	c->psk_offer = t;
	c->psk_id = t->ticket;
	c->psk_id_len = t->len;
	/* 4.2.11.1: the age in ms plus ticket_age_add, modulo 2^32 */
	c->psk_age = (uint32_t)(resume_now_ms(c) - t->recv_ms) + t->age_add;
	if (!c->cfg->reuse_tickets)
		t->used = 1;
	return 0;
}

int client_start(struct hs_conn *c)
{
	const uint16_t *groups;
	size_t n;
	const struct group *g = NULL;

	cfg_groups(c->cfg, &groups, &n);
	for (size_t i = 0; i < n && g == NULL; i++)
		g = group_find(groups[i]);
	ENSURE(g != NULL, HS_ERR_TLS_NO_SHARED_GROUP);
	TRY(conn_keygen(c, g));
	c->state = C_WAIT_SH;
	TRY(pick_ticket(c));
#ifdef HS_TEST_HOOKS
	if (test_hooks(c) != NULL && test_hooks(c)->client_hello != NULL)
		return send_verbatim_hello(c);
#endif
	TRY(hello_random(c, c->random));
	if (!c->cfg->no_compat) {
		c->sid_len = 32;
		TRY(rand_bytes(c->sid, 32));
	}
	if (c->psk_offer != NULL && !c->psk_external && early_wanted(c, c->psk_offer)) {
		c->early = HS_EARLY_OFFERED;
		c->early_max = c->psk_offer->max_early;
	}
	/* RFC 8446 5.1: 0x0301 in the record of the first ClientHello */
	TRY(send_client_hello(c, 0x0301));
	return c->early == HS_EARLY_OFFERED ? early_client_start(c) : 0;
}

/* ---- ServerHello / HelloRetryRequest (4.1.3, 4.1.4) ---- */

struct server_hello {
	uint8_t random[32];
	uint16_t suite;
	struct ext_list exts;
};

static int parse_sh(struct hs_conn *c, const uint8_t *msg, size_t len, struct server_hello *sh)
{
	struct reader body, sid;
	uint16_t version;
	uint8_t comp;

	TRY(msg_body(msg, len, &body));
	TRY(read_u16(&body, &version));
	TRY(read_bytes(&body, sh->random, 32));
	TRY(read_vec(&body, 1, 0, 32, &sid));
	TRY(read_u16(&body, &sh->suite));
	TRY(read_u8(&body, &comp));
	TRY(ext_parse(&body, &sh->exts));
	TRY(read_end(&body));
	ENSURE(version == TLS12_VERSION, HS_ERR_TLS_VERSION);
	ENSURE(sid.len == c->sid_len && memcmp(sid.p, c->sid, sid.len) == 0,
	       HS_ERR_TLS_BAD_SESSION_ID);
	ENSURE(comp == 0, HS_ERR_TLS_ILLEGAL_PARAM);
	return 0;
}

static int check_sh_exts(struct hs_conn *c, const struct server_hello *sh, int hrr)
{
	const struct ext *sv = ext_find(&sh->exts, EXT_SUPPORTED_VERSIONS);
	struct reader r;
	uint16_t v;

	/* without supported_versions the server speaks TLS 1.2 or older */
	ENSURE(sv != NULL, HS_ERR_TLS_VERSION);
	r = sv->body;
	TRY(read_u16(&r, &v));
	TRY(read_end(&r));
	ENSURE(v == TLS13_VERSION, HS_ERR_TLS_ILLEGAL_PARAM);
	/* we offer no type >= EXT_TRACKED */
	ENSURE(sh->exts.n_other == 0, HS_ERR_TLS_UNSOLICITED_EXT);
	for (uint16_t t = 0; t < EXT_TRACKED; t++) {
		if (ext_find(&sh->exts, t) == NULL)
			continue;
		/* 4.2.2: a cookie may come in a HelloRetryRequest unasked */
		ENSURE(offered(c, t) || (hrr && t == EXT_COOKIE), HS_ERR_TLS_UNSOLICITED_EXT);
		ENSURE(t == EXT_KEY_SHARE || t == EXT_SUPPORTED_VERSIONS || (hrr && t == EXT_COOKIE) ||
			       (!hrr && t == EXT_PRE_SHARED_KEY),
		       HS_ERR_TLS_EXT_NOT_ALLOWED);
	}
	return 0;
}

static int pick_suite(struct hs_conn *c, uint16_t id)
{
	const uint16_t *suites;
	size_t n;
	const struct suite *s = suite_find(id);

	cfg_suites(c->cfg, &suites, &n);
	ENSURE(s != NULL && (u16_in(suites, n, id) ||
			   (test_hooks(c) != NULL && test_hooks(c)->client_hello != NULL)),
	       HS_ERR_TLS_BAD_SUITE);
	/* 4.1.4: the ServerHello suite must be the HelloRetryRequest's */
	ENSURE(c->suite == NULL || c->suite == s, HS_ERR_TLS_ILLEGAL_PARAM);
	c->suite = s;
	transcript_choose(&c->hs->tr, s->hash());
	return 0;
}

static int on_hrr(struct hs_conn *c, const uint8_t *msg, size_t len, struct server_hello *sh)
{
	const struct ext *ks = ext_find(&sh->exts, EXT_KEY_SHARE);
	const struct ext *ck = ext_find(&sh->exts, EXT_COOKIE);
	const uint16_t *groups;
	size_t n;
	int err;

	/* 4.1.4: a second HelloRetryRequest -> unexpected_message */
	ENSURE(!c->hrr_done, HS_ERR_TLS_UNEXPECTED_MSG);
	c->hrr_done = 1;
	early_client_hrr(c);
	TRY(check_sh_exts(c, sh, 1));
	TRY(pick_suite(c, sh->suite));
	/* 4.1.4: a PSK whose hash is not the suite's is left out of the
	 * second ClientHello */
	if (c->psk_offer != NULL && c->psk_suite->hash() != c->suite->hash()) {
		c->psk_offer = NULL;
		wipe(c->psk, sizeof(c->psk));
	}
	/* "would not result in any change in the ClientHello" -> illegal_parameter */
	ENSURE(ks != NULL || ck != NULL, HS_ERR_TLS_BAD_HRR);
	if (ks != NULL) {
		struct reader r = ks->body;
		uint16_t gid;
		const struct group *g;
		TRY(read_u16(&r, &gid));
		TRY(read_end(&r));
		cfg_groups(c->cfg, &groups, &n);
		g = group_find(gid);
		ENSURE(g != NULL && u16_in(groups, n, gid) && g != c->kx_group, HS_ERR_TLS_BAD_HRR);
		TRY(conn_keygen(c, g));
	}
	/* 4.2.2: the cookie<1..2^16-1> goes back verbatim: echoed from the
	 * HelloRetryRequest (still in handshake_in) while the new hello is built */
	if (ck != NULL)
		TRY(ext_cookie(ck->body, &c->echo_cookie, &c->echo_cookie_len));
	transcript_hrr_restart(&c->hs->tr);
	transcript_update(&c->hs->tr, msg, len);
	if (c->sid_len > 0)
		TRY(send_ccs(c));
	c->state = C_WAIT_SH;
	err = send_client_hello(c, TLS12_VERSION);
	c->echo_cookie = NULL;
	c->echo_cookie_len = 0;
	return err;
}

static int sh_key_exchange(struct hs_conn *c, const struct server_hello *sh, uint8_t *shared)
{
	const struct ext *e = ext_find(&sh->exts, EXT_KEY_SHARE);
	struct key_share ks;
	int err;

	ENSURE(e != NULL, HS_ERR_TLS_MISSING_EXT);
	TRY(ext_key_share_one(e->body, &ks));
	ENSURE(ks.group == c->kx_group->id, HS_ERR_TLS_BAD_KEY_SHARE);
	/* 4.2.8.2: a share of the wrong size is illegal_parameter (X25519 too) */
	ENSURE(ks.len == c->kx_group->kx->pub_len, HS_ERR_TLS_BAD_KEY_SHARE);
	err = c->kx_group->kx->shared(shared, c->hs->kx_priv, ks.pub, ks.len);
	wipe(c->hs->kx_priv, sizeof(c->hs->kx_priv));
	c->group = c->kx_group;
	return err;
}

/*
 * 4.2.11: the server took our PSK (selected_identity 0, the only one) or
 * did a full handshake. Its suite's hash must be the ticket's; without a
 * key_share it chose psk_ke, which we must have offered.
 */
static int sh_psk(struct hs_conn *c, const struct server_hello *sh)
{
	const struct ext *e = ext_find(&sh->exts, EXT_PRE_SHARED_KEY);
	struct reader r;
	uint16_t selected;

	if (e == NULL) {
		wipe(c->psk, sizeof(c->psk));
		return 0;
	}
	r = e->body;
	TRY(read_u16(&r, &selected));
	TRY(read_end(&r));
	/* "Clients MUST verify that the server's selected_identity is within
	 * the range supplied by the client" and the suite's hash matches */
	ENSURE(selected == 0 && c->psk_offer != NULL, HS_ERR_TLS_ILLEGAL_PARAM);
	ENSURE(c->psk_suite->hash() == c->suite->hash(), HS_ERR_TLS_ILLEGAL_PARAM);
	if (ext_find(&sh->exts, EXT_KEY_SHARE) == NULL) {
		ENSURE(c->cfg->psk_ke, HS_ERR_TLS_MISSING_EXT);
		c->resumed = 2;
	} else {
		ENSURE(!c->cfg->psk_ke, HS_ERR_TLS_ILLEGAL_PARAM);
		c->resumed = 1;
	}
	return 0;
}

static int on_server_hello(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	struct server_hello sh;
	/* psk_ke: the (EC)DHE input is the 0-value, Hash.length zeros (7.1) */
	uint8_t shared[HS_KX_MAX_SHARED > HASH_MAX ? HS_KX_MAX_SHARED : HASH_MAX] = { 0 };
	uint8_t th[HASH_MAX];
	size_t shared_len;
	int err = 0;

	TRY(parse_sh(c, msg, len, &sh));
	if (memcmp(sh.random, hrr_random, 32) == 0)
		return on_hrr(c, msg, len, &sh);
	TRY(check_sh_exts(c, &sh, 0));
	TRY(pick_suite(c, sh.suite));
	TRY(sh_psk(c, &sh));
	shared_len = c->suite->hash()->digest_len;
	if (c->resumed != 2) {
		err = sh_key_exchange(c, &sh, shared);
		if (err == 0)
			shared_len = c->group->kx->shared_len;
	} else {
		wipe(c->hs->kx_priv, sizeof(c->hs->kx_priv));
	}
	if (err == 0) {
		transcript_update(&c->hs->tr, msg, len);
		transcript_hash(&c->hs->tr, th);
		err = c->resumed ? keysched_start_psk(&c->ks, c->suite->hash(), c->psk_key,
						      c->psk_key_len)
				 : keysched_start(&c->ks, c->suite->hash());
	}
	wipe(c->psk, sizeof(c->psk));
	if (err == 0)
		err = keysched_handshake(&c->ks, shared, shared_len, th);
	wipe(shared, sizeof(shared));
	TRY(err);
	keysched_note(c, 0);
	TRY(set_read_key(c, c->ks.s_hs));
	/* 0-RTT offered and a PSK taken: the early key until the
	 * EncryptedExtensions answer (early_client_answer) */
	if (c->early == HS_EARLY_OFFERED && c->resumed)
		return 0;
	if (c->early == HS_EARLY_OFFERED)
		c->early = HS_EARLY_REJECTED;
	return set_write_key(c, c->ks.c_hs);
}

/* ---- EncryptedExtensions (4.3.1) ---- */

static int ee_alpn(struct hs_conn *c, const struct ext *e)
{
	const uint8_t *p;
	size_t n;

	TRY(ext_alpn_one(e->body, &p, &n));
	for (size_t i = 0; i < c->cfg->n_alpn; i++) {
		if (strlen(c->cfg->alpn[i]) == n && memcmp(c->cfg->alpn[i], p, n) == 0) {
			memcpy(c->alpn, p, n);
			c->alpn[n] = 0;
			return 0;
		}
	}
	/* RFC 7301 3.1: the server's choice must be one we offered */
	return HS_ERR_TLS_ILLEGAL_PARAM;
}

static int on_encrypted_extensions(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	struct reader body;
	struct ext_list exts;

	TRY(msg_body(msg, len, &body));
	TRY(ext_parse(&body, &exts));
	TRY(read_end(&body));
	ENSURE(exts.n_other == 0, HS_ERR_TLS_UNSOLICITED_EXT); /* we offer none */
	for (uint16_t t = 0; t < EXT_TRACKED; t++) {
		const struct ext *e = ext_find(&exts, t);
		if (e == NULL)
			continue;
		ENSURE(offered(c, e->type), HS_ERR_TLS_UNSOLICITED_EXT);
		switch (e->type) {
		case EXT_ALPN:
			TRY(ee_alpn(c, e));
			break;
		case EXT_SERVER_NAME: /* RFC 6066 3: "extension_data" SHALL be empty */
			ENSURE(reader_left(&e->body) == 0, HS_ERR_TLS_DECODE);
			break;
		case EXT_EARLY_DATA: /* early_client_answer, below */
		case EXT_SUPPORTED_GROUPS:
		case EXT_MAX_FRAGMENT_LENGTH:
		case EXT_RECORD_SIZE_LIMIT:
			break; /* allowed here; nothing we act on */
		default:
			return HS_ERR_TLS_EXT_NOT_ALLOWED;
		}
	}
	TRY(early_client_answer(c, ext_find(&exts, EXT_EARLY_DATA)));
	transcript_update(&c->hs->tr, msg, len);
	/* 2.2: resumed, the server authenticates with the PSK: Finished next */
	if (c->resumed)
		c->state = C_WAIT_FINISHED;
	return 0;
}

/* ---- the server's authentication ---- */

/*
 * 4.4.2.3: our certificate goes out only if its key signs with a scheme
 * the server listed; otherwise we answer with an empty Certificate and
 * let the server decide (4.4.2.4).
 */
static int pick_client_cred(struct hs_conn *c, const struct ext *sig_algs)
{
	const struct hs_cred *cred = c->cfg->cred;
	struct reader v;

	TRY(ext_u16_view(sig_algs->body, &v));
	c->client_cred = NULL;
	if (cred != NULL && sigscheme_find(cred->scheme) != NULL &&
	    u16_view_has(v, cred->scheme))
		c->client_cred = cred;
	return 0;
}

static int on_certificate_request(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	struct reader body, ctx;
	struct ext_list exts;
	const struct ext *sig_algs;

	TRY(msg_body(msg, len, &body));
	TRY(read_vec(&body, 1, 0, 255, &ctx));
	TRY(ext_parse(&body, &exts));
	TRY(read_end(&body));
	/* 4.3.2: the context "SHALL be zero length unless used for the
	 * post-handshake authentication exchanges" */
	ENSURE(ctx.len == 0, HS_ERR_TLS_ILLEGAL_PARAM);
	/* 4.3.2: "The "signature_algorithms" extension MUST be specified" */
	sig_algs = ext_find(&exts, EXT_SIG_ALGS);
	ENSURE(sig_algs != NULL, HS_ERR_TLS_MISSING_EXT);
	TRY(pick_client_cred(c, sig_algs));
	c->cert_requested = 1;
	c->hs->cr_context_len = ctx.len;
	memcpy(c->hs->cr_context, ctx.p, ctx.len);
	transcript_update(&c->hs->tr, msg, len);
	return 0;
}

static int on_certificate(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	const struct hs_config *cfg = c->cfg;
	size_t n;

	/* an external-PSK client without trust settings takes no certificate */
	ENSURE(cfg->anchor_der != NULL || cfg->trust != NULL || cfg->insecure ||
		       cfg->verify_cert != NULL,
	       HS_ERR_TLS_CERT_UNTRUSTED);
	TRY(parse_certificate(c, msg, len, &n));
	transcript_update(&c->hs->tr, msg, len);
	return 0;
}

static int on_certificate_verify(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	TRY(check_cert_verify(c, msg, len, 1));
	transcript_update(&c->hs->tr, msg, len);
	return 0;
}

static int send_second_flight(struct hs_conn *c)
{
	/* 4.5: EndOfEarlyData, under the early key, ends the accepted 0-RTT */
	if (c->early == HS_EARLY_ACCEPTED)
		TRY(early_client_end(c));
	if (c->sid_len > 0)
		TRY(send_ccs(c));
	/* 4.4.2: our chain and its CertificateVerify, or (no credential, or
	 * none the server accepts) an empty Certificate alone */
	if (c->cert_requested) {
		TRY(build_certificate(c, c->client_cred, c->hs->cr_context, c->hs->cr_context_len));
		if (c->client_cred != NULL)
			TRY(build_cert_verify(c, c->client_cred, 0));
	}
	TRY(build_finished(c, c->ks.c_hs));
	return flush_handshake(c, TLS12_VERSION);
}

static int on_server_finished(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	uint8_t th[HASH_MAX];

	TRY(check_finished(c, c->ks.s_hs, msg, len));
	transcript_update(&c->hs->tr, msg, len);
	transcript_hash(&c->hs->tr, th);
	TRY(keysched_master(&c->ks, th));
	keysched_note(c, 1);
	keysched_forget(c->ks.s_hs); /* its Finished is checked */
	TRY(send_second_flight(c));
	keysched_forget(c->ks.c_hs); /* our Finished is built */
	/* 4.6.1: tickets' PSKs come from resumption_master_secret (CH..client
	 * Finished); kept until free (or hs_conn_end_tickets) only if
	 * tickets are kept */
	if (c->cfg->keep_tickets) {
		transcript_hash(&c->hs->tr, th);
		TRY(keysched_resumption(&c->ks, th));
		c->tickets_open = 1; /* until hs_conn_end_tickets */
	}
	keysched_forget(c->ks.stage);
	TRY(set_write_key(c, c->ks.c_ap));
	TRY(set_read_key(c, c->ks.s_ap));
	/* the record keys hold the application secrets from here on */
	keysched_forget(c->ks.c_ap);
	keysched_forget(c->ks.s_ap);
	c->handshake_done = 1;
	conn_event(c, HS_EVENT_HANDSHAKE_DONE);
	return 0;
}

static const struct transition client_table[] = {
	{ C_WAIT_SH, HT_SERVER_HELLO, on_server_hello, C_WAIT_EE },
	{ C_WAIT_EE, HT_ENCRYPTED_EXTENSIONS, on_encrypted_extensions, C_WAIT_CERT_CR },
	{ C_WAIT_CERT_CR, HT_CERTIFICATE, on_certificate, C_WAIT_CV },
	{ C_WAIT_CERT_CR, HT_CERTIFICATE_REQUEST, on_certificate_request, C_WAIT_CERT },
	{ C_WAIT_CERT, HT_CERTIFICATE, on_certificate, C_WAIT_CV },
	{ C_WAIT_CV, HT_CERTIFICATE_VERIFY, on_certificate_verify, C_WAIT_FINISHED },
	{ C_WAIT_FINISHED, HT_FINISHED, on_server_finished, C_CONNECTED },
	{ C_CONNECTED, HT_NEW_SESSION_TICKET, on_ticket, C_CONNECTED },
	{ C_CONNECTED, HT_KEY_UPDATE, on_key_update, C_CONNECTED },
};

int client_handle(struct hs_conn *c, const uint8_t *msg, size_t len)
{
	return dispatch(c, client_table, sizeof(client_table) / sizeof(client_table[0]), msg,
			   len);
}
