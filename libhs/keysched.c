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
 * time inside crypto/. Nothing here branches on secret bytes (has_salt
 * says whether a PSK was used, which is public). Labels of one secret
 * derived together share one keyed HMAC (hkdf_expand_labels): c/s hs
 * traffic and the next "derived" salt; c/s ap traffic and exp master.
 */
#include "libhs/internal.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/hkdf.h"
#include "crypto/hmac.h"

/*
 * Without a PSK the early secret HKDF-Extract(0, 0^Hash.length) and the
 * next salt Derive-Secret(early, "derived", "") are the same in every
 * handshake: constants, one row per hash, found by the hash's .empty
 * pointer (shared by every backend of a hash, see crypto/hash.h).
 * tests/tls/test_tls_units.c (test_keysched) recomputes them.
 */
struct zero_early {
	size_t len;
	const struct hash *(*hash)(void);
	uint8_t early[HASH_MAX], derived[HASH_MAX];
};

static const struct zero_early ZERO_EARLY[] = {
	{
		.len = 32,
		.hash = hash_sha256,
		.early = { 0x33, 0xad, 0x0a, 0x1c, 0x60, 0x7e, 0xc0, 0x3b, 0x09, 0xe6, 0xcd, 0x98,
			   0x93, 0x68, 0x0c, 0xe2, 0x10, 0xad, 0xf3, 0x00, 0xaa, 0x1f, 0x26, 0x60,
			   0xe1, 0xb2, 0x2e, 0x10, 0xf1, 0x70, 0xf9, 0x2a },
		.derived = { 0x6f, 0x26, 0x15, 0xa1, 0x08, 0xc7, 0x02, 0xc5, 0x67, 0x8f, 0x54, 0xfc,
			     0x9d, 0xba, 0xb6, 0x97, 0x16, 0xc0, 0x76, 0x18, 0x9c, 0x48, 0x25, 0x0c,
			     0xeb, 0xea, 0xc3, 0x57, 0x6c, 0x36, 0x11, 0xba },
	},
	{
		.len = 48,
		.hash = hash_sha384,
		.early = { 0x7e, 0xe8, 0x20, 0x6f, 0x55, 0x70, 0x02, 0x3e, 0x6d, 0xc7, 0x51, 0x9e,
			   0xb1, 0x07, 0x3b, 0xc4, 0xe7, 0x91, 0xad, 0x37, 0xb5, 0xc3, 0x82, 0xaa,
			   0x10, 0xba, 0x18, 0xe2, 0x35, 0x7e, 0x71, 0x69, 0x71, 0xf9, 0x36, 0x2f,
			   0x2c, 0x2f, 0xe2, 0xa7, 0x6b, 0xfd, 0x78, 0xdf, 0xec, 0x4e, 0xa9, 0xb5 },
		.derived = { 0x15, 0x91, 0xda, 0xc5, 0xcb, 0xbf, 0x03, 0x30, 0xa4, 0xa8, 0x4d, 0xe9,
			     0xc7, 0x53, 0x33, 0x0e, 0x92, 0xd0, 0x1f, 0x0a, 0x88, 0x21, 0x4b, 0x44,
			     0x64, 0x97, 0x2f, 0xd6, 0x68, 0x04, 0x9e, 0x93, 0xe5, 0x2f, 0x2b, 0x16,
			     0xfa, 0xd9, 0x22, 0xfd, 0xc0, 0x58, 0x44, 0x78, 0x42, 0x8f, 0x28, 0x2b },
	},
};

/* ks->salt = Derive-Secret(stage, "derived", "") unless it is known */
static int derived(struct keysched *ks)
{
	int err = 0;

	if (!ks->has_salt)
		err = derive_secret(ks->h, ks->stage, "derived", ks->h->empty, ks->salt);
	ks->has_salt = err == 0;
	return err;
}

int keysched_start(struct keysched *ks, const struct hash *h)
{
	uint8_t zeros[HASH_MAX] = { 0 };

	ks->h = h;
	ks->len = h->digest_len;
	ks->has_salt = 0;
	for (size_t i = 0; i < sizeof(ZERO_EARLY) / sizeof(ZERO_EARLY[0]); i++) {
		const struct zero_early *z = &ZERO_EARLY[i];

		if (z->len == ks->len && z->hash()->empty == h->empty) {
			memcpy(ks->stage, z->early, z->len);
			memcpy(ks->salt, z->derived, z->len);
			ks->has_salt = 1;
			return 0;
		}
	}
	hkdf_extract(h, NULL, 0, zeros, ks->len, ks->stage); /* a hash with no row */
	return 0;
}

int keysched_start_psk(struct keysched *ks, const struct hash *h, const uint8_t *psk,
		       size_t psk_len)
{
	ks->h = h;
	ks->len = h->digest_len;
	ks->has_salt = 0;
	hkdf_extract(h, NULL, 0, psk, psk_len, ks->stage);
	return 0;
}

int keysched_binder_key(const struct keysched *ks, int external, uint8_t *out)
{
	return derive_secret(ks->h, ks->stage, external ? "ext binder" : "res binder",
			     ks->h->empty, out);
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

/* handshake secret, c/s hs traffic, and the salt of the master secret */
int keysched_handshake(struct keysched *ks, const uint8_t *shared, size_t shared_len,
		    const uint8_t *th)
{
	const struct hkdf_label l[] = {
		{ .label = "c hs traffic", .context = th, .context_len = ks->len,
		  .out = ks->c_hs, .out_len = ks->len },
		{ .label = "s hs traffic", .context = th, .context_len = ks->len,
		  .out = ks->s_hs, .out_len = ks->len },
		{ .label = "derived", .context = ks->h->empty, .context_len = ks->len,
		  .out = ks->salt, .out_len = ks->len },
	};
	int err = derived(ks);

	if (err)
		return err;
	hkdf_extract(ks->h, ks->salt, ks->len, shared, shared_len, ks->stage);
	memcpy(ks->handshake_secret, ks->stage, ks->len);
	/* one keyed HMAC for the three; the salt is overwritten after its use */
	err = hkdf_expand_labels(ks->h, ks->stage, l, 3);
	ks->has_salt = err == 0;
	return err;
}

int keysched_master(struct keysched *ks, const uint8_t *th)
{
	uint8_t zeros[HASH_MAX] = { 0 };
	const struct hkdf_label l[] = {
		{ .label = "c ap traffic", .context = th, .context_len = ks->len,
		  .out = ks->c_ap, .out_len = ks->len },
		{ .label = "s ap traffic", .context = th, .context_len = ks->len,
		  .out = ks->s_ap, .out_len = ks->len },
		{ .label = "exp master", .context = th, .context_len = ks->len,
		  .out = ks->exp_master, .out_len = ks->len },
	};
	int err = derived(ks);

	if (err == 0) {
		hkdf_extract(ks->h, ks->salt, ks->len, zeros, ks->len, ks->stage);
		/* c_ap is written over the salt, which the Extract consumed */
		err = hkdf_expand_labels(ks->h, ks->stage, l, 3);
	}
	/* the handshake secret's last use was the salt above; on an error the
	 * salt is still there (hkdf_expand_labels writes nothing then) */
	if (err)
		wipe(ks->salt, sizeof(ks->salt));
	ks->has_salt = 0;
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
	uint8_t hctx[HASH_MAX], secret[HASH_MAX];
	int err;

	hash_digest(h, ctx, ctx_len, hctx);
	err = derive_secret(h, early ? ks->e_exp : ks->exp_master, label, h->empty, secret);
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
