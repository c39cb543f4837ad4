/*
 * PEM (RFC 7468): "-----BEGIN LABEL-----", base64 lines, "-----END LABEL-----".
 * Decodes the next block with a given label; text outside blocks is
 * skipped, whitespace inside is ignored.
 *
 * Implementation notes: private keys pass through here, so the base64
 * decoder uses no secret-indexed table: each character is mapped with
 * range arithmetic (masks), and the 24-bit accumulator is wiped.
 */
#include "x509/x509.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"

/* base64 value of ch, or -1; constant time in ch (range masks, no table) */
static int b64_value(uint8_t ch)
{
	uint32_t c = ch, v = 0, ok = 0, m;

	m = ct_lt_mask_u32(c - 'A', 26) & ~ct_lt_mask_u32(c, 'A');
	v |= m & (c - 'A');
	ok |= m;
	m = ct_lt_mask_u32(c - 'a', 26) & ~ct_lt_mask_u32(c, 'a');
	v |= m & (c - 'a' + 26);
	ok |= m;
	m = ct_lt_mask_u32(c - '0', 10) & ~ct_lt_mask_u32(c, '0');
	v |= m & (c - '0' + 52);
	ok |= m;
	m = ct_eq_mask_u32(c, '+');
	v |= m & 62;
	ok |= m;
	m = ct_eq_mask_u32(c, '/');
	v |= m & 63;
	ok |= m;
	return (int)ct_select_u32(ok, v, (uint32_t)-1);
}

static const char *find(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return hay + i;
	return NULL;
}

static int b64_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
	uint32_t acc = 0;
	size_t bits = 0, len = 0, pad = 0;
	int err = 0;

	for (size_t i = 0; i < n && err == 0; i++) {
		uint8_t ch = (uint8_t)s[i];
		int v;
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
			continue;
		if (ch == '=') {
			pad++;
			continue;
		}
		v = b64_value(ch);
		if (v < 0 || pad > 0) {
			err = HS_ERR_BAD_ENCODING;
			break;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (len >= cap)
				err = HS_ERR_NO_SPACE;
			else
				out[len++] = (uint8_t)(acc >> bits);
		}
	}
	if (err == 0 && (pad > 2 || bits >= 6))
		err = HS_ERR_BAD_ENCODING;
	acc = 0;
	wipe(&acc, sizeof(acc));
	*out_len = len;
	return err;
}

int pem_next(struct reader *text, const char *label, uint8_t *der, size_t cap,
		size_t *der_len)
{
	char begin[80], end[80];
	const char *t = (const char *)text->p, *b, *body, *e;
	size_t n = text->len;

	ENSURE(strlen(label) < 40, HS_ERR_ARG);
	strcpy(begin, "-----BEGIN ");
	strcat(begin, label);
	strcat(begin, "-----");
	strcpy(end, "-----END ");
	strcat(end, label);
	strcat(end, "-----");
	b = find(t, n, begin);
	ENSURE(b != NULL, HS_ERR_TRUNCATED);
	body = b + strlen(begin);
	e = find(body, n - (size_t)(body - t), end);
	ENSURE(e != NULL, HS_ERR_BAD_ENCODING);
	TRY(b64_decode(body, (size_t)(e - body), der, cap, der_len));
	TRY(read_skip(text, (size_t)(e - t) + strlen(end)));
	return 0;
}

int hs_pem_cert_to_der(const char *pem, size_t pem_len, uint8_t *der, size_t cap,
		       size_t *der_len)
{
	struct reader r = reader_init(pem, pem_len);

	return pem_next(&r, "CERTIFICATE", der, cap, der_len);
}
