/*
 * A strict DER reader on top of hs_reader: definite lengths only, minimal
 * length encoding, lengths up to 2^24 - 1 (no certificate is bigger).
 *
 * Implementation notes: everything read here is public (certificates,
 * key containers' structure); private key bytes pass through as views and
 * are copied out by keys.c, which wipes its copies.
 */
#include "libhs/internal.h"

#include <string.h>

static int read_len(struct hs_reader *r, size_t *len)
{
	uint8_t b, n;
	size_t v = 0;

	TRY(hs_read_u8(r, &b));
	if (b < 0x80) {
		*len = b;
		return 0;
	}
	n = b & 0x7f;
	ENSURE(n >= 1 && n <= 3, HS_ERR_BAD_ENCODING);
	for (uint8_t i = 0; i < n; i++) {
		TRY(hs_read_u8(r, &b));
		ENSURE(i > 0 || b != 0, HS_ERR_BAD_ENCODING); /* no leading zero */
		v = (v << 8) | b;
	}
	ENSURE(v >= 0x80, HS_ERR_BAD_ENCODING); /* short form was possible */
	*len = v;
	return 0;
}

int hs_der_read_raw(struct hs_reader *r, uint8_t tag, struct hs_reader *sub,
		    struct hs_reader *raw)
{
	struct hs_reader save = *r;
	uint8_t t;
	size_t len;
	int err;

	err = hs_read_u8(r, &t);
	if (err == 0 && t != tag)
		err = HS_ERR_BAD_ENCODING;
	if (err == 0)
		err = read_len(r, &len);
	if (err == 0)
		err = hs_read_sub(r, len, sub);
	if (err) {
		*r = save;
		return err;
	}
	if (raw != NULL)
		*raw = hs_reader_init(save.p, save.len - r->len);
	return 0;
}

int hs_der_read(struct hs_reader *r, uint8_t tag, struct hs_reader *sub)
{
	return hs_der_read_raw(r, tag, sub, NULL);
}

uint8_t hs_der_peek(const struct hs_reader *r)
{
	return r->len > 0 ? r->p[0] : 0;
}

int hs_der_skip(struct hs_reader *r)
{
	struct hs_reader sub;

	ENSURE(r->len > 0, HS_ERR_TRUNCATED);
	return hs_der_read(r, r->p[0], &sub);
}

int hs_der_oid_is(const struct hs_reader *oid, const uint8_t *want, size_t n)
{
	return oid->len == n && memcmp(oid->p, want, n) == 0;
}
