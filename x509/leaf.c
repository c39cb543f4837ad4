/*
 * A leaf's public key as the TLS engine keeps it (struct leaf_key): taken
 * from a certificate parsed by cert.c, never from a parse of its own.
 *
 * Implementation notes: the engine copies the SubjectPublicKeyInfo into
 * its connection (the message buffer is reused), so an RSA key is found
 * again in that copy by x509_rsa_key, through the same SPKI parser as
 * the certificate's. Everything here is public.
 */
#include "x509/x509.h"

#include <string.h>

#include "crypto/rsa.h"

int x509_leaf_key(const struct x509_cert *c, struct leaf_key *k)
{
	size_t want = 0;

	memset(k, 0, sizeof(*k));
	k->type = c->key_type;
	k->spki = c->spki.p;
	k->spki_len = c->spki.len;
	switch (c->key_type) {
	case KEY_P256:
		want = 65; /* an uncompressed point: 04 || x || y */
		break;
	case KEY_P384:
		want = 97;
		break;
	case KEY_ED25519:
		want = 32;
		break;
	default: /* RSA stays in the SPKI; other keys are unusable */
		return 0;
	}
	ENSURE(c->key.len == want && (c->key_type == KEY_ED25519 || c->key.p[0] == 0x04),
	       HS_ERR_BAD_ENCODING);
	memcpy(k->pub, c->key.p, want);
	k->pub_len = want;
	return 0;
}

int x509_rsa_key(const uint8_t *spki, size_t spki_len, const uint8_t **key,
		    size_t *key_len, size_t *bits)
{
	struct reader r = reader_init(spki, spki_len), k;
	struct rsa_public pub;
	enum key_type type;

	TRY(x509_spki_parse(&r, &type, &k));
	TRY(read_end(&r));
	ENSURE(type == KEY_RSA, HS_ERR_BAD_KEY);
	/* n odd, 1024..4096 bits, 3 <= e < n (crypto/rsa.h) */
	TRY(rsa_public_from_der(&pub, k.p, k.len));
	*key = k.p;
	*key_len = k.len;
	*bits = pub.bits;
	return 0;
}
