/*
 * Secrets out for kTLS (RFC 8446 7.2/7.3): the current application traffic
 * secret of each direction, the key and IV derived from it, and the next
 * sequence number. The caller owns the copy and wipes it.
 *
 * Implementation notes: keys are re-derived from the stored secrets (the
 * AEAD contexts hold expanded keys, not raw ones); nothing is kept beyond
 * the caller's struct.
 */
#include "libhs/internal.h"

#include <string.h>

#include "base/wipe.h"

static int fill(const struct rec_key *k, const struct suite *s, struct hs_dir_secrets *d)
{
	const struct hash *h = s->hash();

	memcpy(d->secret, k->secret, h->digest_len);
	d->seq = k->seq;
	return rec_traffic_key(h, k->secret, s->key_len, d->key, d->iv);
}

int hs_conn_secrets(const struct hs_conn *c, struct hs_secrets *s)
{
	const struct rec_key *tx = c->wr, *rx = c->rd;
	int err;

	memset(s, 0, sizeof(*s));
	/* after hs_conn_handoff the keys are gone */
	ENSURE(c->handshake_done && c->err == 0 && !c->handed_off, HS_ERR_TLS_STATE);
	s->suite = c->suite->id;
	s->secret_len = c->suite->hash()->digest_len;
	s->key_len = c->suite->key_len;
	s->iv_len = HS_AEAD_NONCE_LEN;
	if (c->role == HS_ROLE_CLIENT) {
		s->tx = &s->client;
		s->rx = &s->server;
	} else {
		s->tx = &s->server;
		s->rx = &s->client;
	}
	err = fill(tx, c->suite, s->tx);
	if (err == 0)
		err = fill(rx, c->suite, s->rx);
	if (err)
		hs_secrets_wipe(s);
	return err;
}

void hs_secrets_wipe(struct hs_secrets *s)
{
	wipe(s, sizeof(*s));
}
