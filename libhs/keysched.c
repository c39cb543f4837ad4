/*
 * The TLS 1.3 key schedule (RFC 8446 7.1):
 *
 *   early     = HKDF-Extract(0, PSK or 0)
 *     binder key = Derive-Secret(early, "res binder" / "ext binder", "")
 *     c e traffic = Derive-Secret(early, "c e traffic", ClientHello)   (0-RTT)
 *     e exp master = Derive-Secret(early, "e exp master", ClientHello)
 *   handshake = HKDF-Extract(Derive-Secret(early, "derived", ""), ECDHE)
 *     c/s hs traffic = Derive-Secret(handshake, "c hs traffic"/"s hs traffic", CH..SH)
 *   master    = HKDF-Extract(Derive-Secret(handshake, "derived", ""), 0)
 *     c/s ap traffic = Derive-Secret(master, "c ap traffic"/"s ap traffic", CH..server Fin)
 *     exp master = Derive-Secret(master, "exp master", CH..server Fin)
 *     res master = Derive-Secret(master, "res master", CH..client Fin)
 *
 * With psk_ke the (EC)DHE input of the handshake secret is Hash.length
 * zero bytes (7.1: "the 0-value").
 *
 * plus Finished keys (4.4.4). Traffic keys (7.3) and the KeyUpdate step
 * (7.2) are record/'s (rec_traffic_key, rec_next_secret). Every
 * intermediate lives in struct keysched, wiped by its owner as soon as
 * nothing needs it (client.c, server.c): the handshake secret here once
 * the master exists; the master once the application secrets exist and
 * our Finished is built (the resumption_master_secret is derived from it
 * before that wipe: keysched_resumption); the handshake traffic
 * secrets after both Finished; the first application traffic secrets once
 * the record keys (struct rec_key) hold them, where KeyUpdate replaces
 * each by the next (7.2: the old one is deleted).
 *
 * Implementation notes: the HKDF calls touch secrets; they run in constant
 * time inside crypto/. Nothing here branches on secret bytes.
 */
#include "libhs/internal.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/hkdf.h"
#include "crypto/hmac.h"

static int derived(const struct keysched *ks, uint8_t *out)
{
	uint8_t empty[HASH_MAX];

	hash_digest(ks->h, "", 0, empty);
	return derive_secret(ks->h, ks->stage, "derived", empty, out);
}

int keysched_start(struct keysched *ks, const struct hash *h)
{
	uint8_t zeros[HASH_MAX] = { 0 };

	ks->h = h;
	ks->len = h->digest_len;
	hkdf_extract(h, NULL, 0, zeros, ks->len, ks->stage);
	return 0;
}

int keysched_start_psk(struct keysched *ks, const struct hash *h, const uint8_t *psk,
		       size_t psk_len)
{
	ks->h = h;
	ks->len = h->digest_len;
	hkdf_extract(h, NULL, 0, psk, psk_len, ks->stage);
	return 0;
}

int keysched_binder_key(const struct keysched *ks, int external, uint8_t *out)
{
	uint8_t empty[HASH_MAX];

	hash_digest(ks->h, "", 0, empty);
	return derive_secret(ks->h, ks->stage, external ? "ext binder" : "res binder", empty,
			     out);
}

int keysched_early(struct keysched *ks, const uint8_t *th)
{
	int err = derive_secret(ks->h, ks->stage, "c e traffic", th, ks->c_e);

	ks->e_h = ks->h;
	if (err == 0)
		err = derive_secret(ks->h, ks->stage, "e exp master", th, ks->e_exp);
	return err;
}

int keysched_resumption(struct keysched *ks, const uint8_t *th)
{
	return derive_secret(ks->h, ks->stage, "res master", th, ks->res_master);
}

int keysched_handshake(struct keysched *ks, const uint8_t *shared, size_t shared_len,
		    const uint8_t *th)
{
	uint8_t salt[HASH_MAX];
	int err = derived(ks, salt);

	if (err == 0) {
		hkdf_extract(ks->h, salt, ks->len, shared, shared_len, ks->stage);
		memcpy(ks->handshake_secret, ks->stage, ks->len);
		err = derive_secret(ks->h, ks->stage, "c hs traffic", th, ks->c_hs);
	}
	if (err == 0)
		err = derive_secret(ks->h, ks->stage, "s hs traffic", th, ks->s_hs);
	wipe(salt, sizeof(salt));
	return err;
}

int keysched_master(struct keysched *ks, const uint8_t *th)
{
	uint8_t salt[HASH_MAX], zeros[HASH_MAX] = { 0 };
	int err = derived(ks, salt);

	if (err == 0) {
		hkdf_extract(ks->h, salt, ks->len, zeros, ks->len, ks->stage);
		err = derive_secret(ks->h, ks->stage, "c ap traffic", th, ks->c_ap);
	}
	if (err == 0)
		err = derive_secret(ks->h, ks->stage, "s ap traffic", th, ks->s_ap);
	if (err == 0)
		err = derive_secret(ks->h, ks->stage, "exp master", th, ks->exp_master);
	wipe(salt, sizeof(salt));
	/* the handshake secret's last use was the salt above */
	wipe(ks->handshake_secret, sizeof(ks->handshake_secret));
	return err;
}

int keysched_finished(const struct hash *h, const uint8_t *base, const uint8_t *th,
		   uint8_t *out)
{
	uint8_t key[HASH_MAX];
	int err = hkdf_expand_label(h, base, "finished", NULL, 0, key, h->digest_len);

	if (err == 0)
		hmac(h, key, h->digest_len, th, h->digest_len, out);
	wipe(key, sizeof(key));
	return err;
}

/*
 * 7.5: TLS-Exporter(label, context, length) = HKDF-Expand-Label(
 * Derive-Secret(exporter_master_secret, label, ""), "exporter",
 * Hash(context), length).
 */
int keysched_export(const struct keysched *ks, int early, const char *label, const uint8_t *ctx,
		    size_t ctx_len, uint8_t *out, size_t out_len)
{
	const struct hash *h = early ? ks->e_h : ks->h;
	uint8_t empty[HASH_MAX], hctx[HASH_MAX], secret[HASH_MAX];
	int err;

	hash_digest(h, "", 0, empty);
	hash_digest(h, ctx, ctx_len, hctx);
	err = derive_secret(h, early ? ks->e_exp : ks->exp_master, label, empty, secret);
	if (err == 0)
		err = hkdf_expand_label(h, secret, "exporter", hctx, h->digest_len, out, out_len);
	wipe(secret, sizeof(secret));
	return err;
}

void keysched_forget(uint8_t secret[HASH_MAX])
{
	wipe(secret, HASH_MAX);
}

void keysched_wipe(struct keysched *ks)
{
	wipe(ks, sizeof(*ks));
}
