/*
 * A strict DER reader on top of reader (see der.h for the rules).
 *
 * Implementation notes: lengths stop at 2^24 - 1 (three length octets), far
 * above any certificate or key hs reads. Private keys are parsed through
 * here too (crypto/rsa_key.c, x509/cred.c): the code branches on tags,
 * lengths and the top octets of INTEGERs, never on the rest of their
 * contents, which pass through as views.
 */
#include "base/der.h"

#include <string.h>

static int read_len(struct reader *r, size_t *len)
{
	uint8_t b, n;
	size_t v = 0;

	TRY(read_u8(r, &b));
	if (b < 0x80) {
		*len = b;
		return 0;
	}
	/* 0x80 is the indefinite form (BER only); more than 3 octets: too big */
	n = b & 0x7f;
	ENSURE(n >= 1 && n <= 3, HS_ERR_BAD_ENCODING);
	for (uint8_t i = 0; i < n; i++) {
		TRY(read_u8(r, &b));
		ENSURE(i > 0 || b != 0, HS_ERR_BAD_ENCODING); /* no leading zero */
		v = (v << 8) | b;
	}
	ENSURE(v >= 0x80, HS_ERR_BAD_ENCODING); /* the short form was possible */
	*len = v;
	return 0;
}

static int read_tlv(struct reader *r, int want, uint8_t *tag, struct reader *sub,
		    struct reader *raw)
{
	struct reader save = *r;
	size_t len;
	int err;

	err = read_u8(r, tag);
	/* high-tag-number form (X.690 8.1.2.4) never occurs in what hs reads */
	if (err == 0 && ((want >= 0 && *tag != want) || (*tag & 0x1f) == 0x1f))
		err = HS_ERR_BAD_ENCODING;
	if (err == 0)
		err = read_len(r, &len);
	if (err == 0)
		err = read_sub(r, len, sub);
	if (err) {
		*r = save;
		return err;
	}
	if (raw != NULL)
		*raw = reader_init(save.p, save.len - r->len);
	return 0;
}

int der_read_raw(struct reader *r, uint8_t tag, struct reader *sub,
		    struct reader *raw)
{
	uint8_t t;

	return read_tlv(r, tag, &t, sub, raw);
}

int der_read(struct reader *r, uint8_t tag, struct reader *sub)
{
	uint8_t t;

	return read_tlv(r, tag, &t, sub, NULL);
}

int der_read_any(struct reader *r, uint8_t *tag, struct reader *sub)
{
	return read_tlv(r, -1, tag, sub, NULL);
}

uint8_t der_peek(const struct reader *r)
{
	return r->len > 0 ? r->p[0] : 0;
}

int der_oid_is(const struct reader *oid, const uint8_t *want, size_t n)
{
	return oid->len == n && memcmp(oid->p, want, n) == 0;
}

int der_read_int(struct reader *r, struct reader *v)
{
	struct reader save = *r;

	TRY(der_read(r, DER_INTEGER, v));
	/* X.690 8.3.1: "shall consist of one or more octets"; 8.3.2: the
	 * first nine bits "shall not all be ones" nor "all be zero" */
	if (v->len == 0 || (v->len > 1 && ((v->p[0] == 0x00 && (v->p[1] & 0x80) == 0) ||
					   (v->p[0] == 0xff && (v->p[1] & 0x80) != 0)))) {
		*r = save;
		return HS_ERR_BAD_ENCODING;
	}
	return 0;
}

int der_read_uint(struct reader *r, struct reader *mag)
{
	struct reader save = *r, v;

	TRY(der_read_int(r, &v));
	if (v.p[0] & 0x80) {
		*r = save;
		return HS_ERR_BAD_ENCODING; /* negative */
	}
	if (v.len > 1 && v.p[0] == 0x00) /* minimal: this 0x00 is the sign octet */
		TRY(read_skip(&v, 1));
	*mag = v;
	return 0;
}

int der_read_uint_fixed(struct reader *r, uint8_t *out, size_t n)
{
	struct reader save = *r, mag;

	TRY(der_read_uint(r, &mag));
	if (mag.len > n) {
		*r = save;
		return HS_ERR_BAD_ENCODING;
	}
	memset(out, 0, n - mag.len);
	memcpy(out + n - mag.len, mag.p, mag.len);
	return 0;
}

int der_uint_u32(struct reader mag, uint32_t *v)
{
	uint32_t x = 0;

	/* a magnitude has no leading zero unless it is 0 itself */
	ENSURE(mag.len <= 4, HS_ERR_TOO_LONG);
	for (size_t i = 0; i < mag.len; i++)
		x = (x << 8) | mag.p[i];
	*v = x;
	return 0;
}
