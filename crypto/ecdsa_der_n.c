/*
 * Implementation notes: DER Ecdsa-Sig-Value (SEC 1 C.5, RFC 3279 2.2.3)
 * for integers of any size up to 66 bytes, the size-parameterised sibling
 * of ecdsa_der.c (which is P-256 only).
 *
 * - Strict DER (X.690 section 10): SEQUENCE then two INTEGERs, definite
 *   minimal lengths (short form below 128, else 0x81 and one byte >= 128;
 *   no content here reaches 256 bytes), no empty, negative or
 *   zero-padded integers, nothing left over inside or after the SEQUENCE.
 * - An integer longer than int_len bytes, once its one allowed leading
 *   zero is dropped, is rejected; 0 < r, s < n is the verifier's check.
 * Signatures are public: this code branches on them.
 */
#include "crypto/p384.h"

#include <string.h>

#include "base/reader.h"

#define INT_MAX_LEN 66

static int get_tlv(struct hs_reader *r, uint8_t tag, struct hs_reader *sub)
{
	uint8_t t, len;

	if (hs_read_u8(r, &t) || t != tag || hs_read_u8(r, &len))
		return HS_ERR_BAD_ENCODING;
	if (len == 0x81) {
		if (hs_read_u8(r, &len) || len < 0x80)
			return HS_ERR_BAD_ENCODING; /* long form only where needed */
	} else if (len >= 0x80) {
		return HS_ERR_BAD_ENCODING;
	}
	return hs_read_sub(r, len, sub) ? HS_ERR_BAD_ENCODING : 0;
}

/* One INTEGER into out (n bytes, big-endian, left-padded with zeros). */
static int get_integer(struct hs_reader *r, uint8_t *out, size_t n)
{
	struct hs_reader v;
	const uint8_t *p;
	size_t len;

	if (get_tlv(r, 0x02, &v))
		return HS_ERR_BAD_ENCODING;
	len = hs_reader_left(&v);
	if (len == 0 || hs_read_view(&v, len, &p))
		return HS_ERR_BAD_ENCODING; /* X.690 8.3.1: at least one octet */
	if (p[0] & 0x80)
		return HS_ERR_BAD_ENCODING; /* negative */
	if (len > 1 && p[0] == 0x00) {
		if (!(p[1] & 0x80))
			return HS_ERR_BAD_ENCODING; /* X.690 8.3.2: not minimal */
		p++;
		len--;
	}
	if (len > n)
		return HS_ERR_BAD_ENCODING;
	memset(out, 0, n);
	memcpy(out + n - len, p, len);
	return 0;
}

int hs_ecdsa_sig_from_der_n(uint8_t *raw, size_t int_len, const uint8_t *der, size_t der_len)
{
	struct hs_reader r = hs_reader_init(der, der_len), seq;

	if (int_len == 0 || int_len > INT_MAX_LEN)
		return HS_ERR_ARG;
	if (der == NULL || get_tlv(&r, 0x30, &seq) || hs_read_end(&r))
		return HS_ERR_BAD_ENCODING;
	if (get_integer(&seq, raw, int_len) || get_integer(&seq, raw + int_len, int_len) ||
	    hs_read_end(&seq))
		return HS_ERR_BAD_ENCODING;
	return 0;
}
