/*
 * The handshake transcript (RFC 8446 4.4.1). Until the cipher suite is
 * known (a client sends ClientHello first) both SHA-256 and SHA-384 run;
 * choosing the suite keeps one. The current hash is read from a copy of the
 * running context, so the transcript is hashed exactly once per message.
 *
 * Implementation notes: the transcript is not secret (it is the public
 * handshake), but its copies are wiped anyway to keep the rule simple.
 */
#include "libhs/internal.h"

#include <string.h>

#include "base/wipe.h"

void transcript_init(struct transcript *t)
{
	hash_sha256()->init(&t->c256);
	hash_sha384()->init(&t->c384);
	t->h = NULL;
}

void transcript_update(struct transcript *t, const uint8_t *p, size_t n)
{
	if (t->h == NULL || t->h->digest_len == 32)
		hash_sha256()->update(&t->c256, p, n);
	if (t->h == NULL || t->h->digest_len == 48)
		hash_sha384()->update(&t->c384, p, n);
}

void transcript_choose(struct transcript *t, const struct hash *h)
{
	t->h = h;
}

static const union hash_ctx *running(const struct transcript *t)
{
	return t->h->digest_len == 48 ? &t->c384 : &t->c256;
}

void transcript_hash(const struct transcript *t, uint8_t *out)
{
	union hash_ctx copy = *running(t);
	t->h->final(&copy, out);
	wipe(&copy, sizeof(copy));
}

void transcript_hash_plus(const struct transcript *t, const struct hash *h, const uint8_t *p,
			  size_t n, uint8_t *out)
{
	union hash_ctx copy = h->digest_len == 48 ? t->c384 : t->c256;

	h->update(&copy, p, n);
	h->final(&copy, out);
	wipe(&copy, sizeof(copy));
}

void transcript_hrr_restart(struct transcript *t)
{
	/* message_hash || 00 00 Hash.length || Hash(ClientHello1) */
	uint8_t hdr[4] = { HT_MESSAGE_HASH, 0, 0, (uint8_t)t->h->digest_len };
	uint8_t h1[HASH_MAX];

	transcript_hash(t, h1);
	t->h->init(t->h->digest_len == 48 ? &t->c384 : &t->c256);
	transcript_update(t, hdr, sizeof(hdr));
	transcript_update(t, h1, t->h->digest_len);
}

void transcript_wipe(struct transcript *t)
{
	wipe(t, sizeof(*t));
}
