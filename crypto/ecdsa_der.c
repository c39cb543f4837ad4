/*
 * Implementation notes: DER for ECDSA signatures (SEC 1 C.5, RFC 3279
 * 2.2.3): Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }.
 *
 * - Encoding: each integer loses its leading zero bytes (one byte stays
 *   for 0) and gains a 0x00 when its top bit is set, so it reads as
 *   positive (X.690 8.3). The content is at most 2 * 35 = 70 bytes, so
 *   every length is one byte (short form, X.690 8.1.3.4).
 * - Parsing is strict DER (X.690 section 10): tag 0x30 then 0x02, short
 *   length forms only (a long form would be non-minimal, as no valid
 *   length reaches 128), no empty, negative or zero-padded integers, no
 *   bytes left over inside or after the SEQUENCE. An integer longer than
 *   32 bytes once its one allowed leading zero is dropped is rejected.
 *   Whether r and s are in [1, n-1] is verify's check.
 * Signatures are public: this code branches on them.
 */
#include "crypto/p256.h"

#include <string.h>

#include "base/reader.h"
#include "base/writer.h"

/* One INTEGER from a 32-byte big-endian unsigned value. */
static void put_integer(struct hs_writer *w, const uint8_t v[32])
{
	size_t skip = 0;

	while (skip < 31 && v[skip] == 0)
		skip++;
	int pad = (v[skip] & 0x80) != 0;
	(void)hs_write_u8(w, 0x02);
	(void)hs_write_u8(w, (uint8_t)(32 - skip + (size_t)pad));
	if (pad)
		(void)hs_write_u8(w, 0x00);
	(void)hs_write_bytes(w, v + skip, 32 - skip);
}

int hs_ecdsa_sig_to_der(uint8_t *der, size_t *der_len, const uint8_t raw[64])
{
	struct hs_writer w = hs_writer_init(der, *der_len);
	struct hs_writer_vec seq;

	(void)hs_write_u8(&w, 0x30);
	(void)hs_write_vec_open(&w, 1, &seq);
	put_integer(&w, raw);
	put_integer(&w, raw + 32);
	(void)hs_write_vec_close(&w, &seq);
	if (hs_writer_error(&w))
		return HS_ERR_NO_SPACE;
	*der_len = w.len;
	return 0;
}

/* tag, then a short-form length; sub gets the contents. */
static int get_tlv(struct hs_reader *r, uint8_t tag, struct hs_reader *sub)
{
	uint8_t t, len;

	if (hs_read_u8(r, &t) || t != tag)
		return HS_ERR_BAD_ENCODING;
	if (hs_read_u8(r, &len) || len >= 0x80) /* long forms are never minimal here */
		return HS_ERR_BAD_ENCODING;
	if (hs_read_sub(r, len, sub))
		return HS_ERR_BAD_ENCODING;
	return 0;
}

/* One INTEGER into out (32 bytes, big-endian, left-padded with zeros). */
static int get_integer(struct hs_reader *r, uint8_t out[32])
{
	struct hs_reader v;
	const uint8_t *p;
	size_t n;

	if (get_tlv(r, 0x02, &v))
		return HS_ERR_BAD_ENCODING;
	n = hs_reader_left(&v);
	if (n == 0 || hs_read_view(&v, n, &p))
		return HS_ERR_BAD_ENCODING; /* X.690 8.3.1: at least one octet */
	if (p[0] & 0x80)
		return HS_ERR_BAD_ENCODING; /* negative */
	if (n > 1 && p[0] == 0x00) {
		if (!(p[1] & 0x80))
			return HS_ERR_BAD_ENCODING; /* X.690 8.3.2: not minimal */
		p++; /* the one zero that keeps it positive */
		n--;
	}
	if (n > 32)
		return HS_ERR_BAD_ENCODING;
	memset(out, 0, 32);
	memcpy(out + 32 - n, p, n);
	return 0;
}

int hs_ecdsa_sig_from_der(uint8_t raw[64], const uint8_t *der, size_t der_len)
{
	struct hs_reader r = hs_reader_init(der, der_len), seq;

	if (der == NULL || get_tlv(&r, 0x30, &seq) || hs_read_end(&r))
		return HS_ERR_BAD_ENCODING;
	if (get_integer(&seq, raw) || get_integer(&seq, raw + 32) || hs_read_end(&seq))
		return HS_ERR_BAD_ENCODING;
	return 0;
}
