/*
 * Implementation notes: DER for ECDSA signatures (SEC 1 C.5, RFC 3279
 * 2.2.3): Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }.
 *
 * - Encoding (P-256): each integer loses its leading zero bytes (one byte
 *   stays for 0) and gains a 0x00 when its top bit is set, so it reads as
 *   positive (X.690 8.3). The content is at most 2 * 35 = 70 bytes, so
 *   every length is one byte (short form, X.690 8.1.3.4).
 * - Parsing, for integers of 1 to 66 bytes (P-256, P-384, P-521), is
 *   strict DER through base/der.h: minimal definite lengths, no empty,
 *   negative or zero-padded integers, nothing left over inside or after
 *   the SEQUENCE. An integer wider than the curve's size once its sign
 *   octet is dropped is rejected; whether r and s are in [1, n-1] is
 *   verify's check.
 * Signatures are public: this code branches on them.
 */
#include "crypto/p256.h"

#include "base/der.h"
#include "base/writer.h"
#include "crypto/p384.h"

#define INT_MAX_LEN 66 /* P-521 */

/* One INTEGER from a 32-byte big-endian unsigned value. */
static void put_integer(struct writer *w, const uint8_t v[32])
{
	size_t skip = 0;

	while (skip < 31 && v[skip] == 0)
		skip++;
	int pad = (v[skip] & 0x80) != 0;
	(void)write_u8(w, 0x02);
	(void)write_u8(w, (uint8_t)(32 - skip + (size_t)pad));
	if (pad)
		(void)write_u8(w, 0x00);
	(void)write_bytes(w, v + skip, 32 - skip);
}

int ecdsa_sig_to_der(uint8_t *der, size_t *der_len, const uint8_t raw[64])
{
	struct writer w = writer_init(der, *der_len);
	struct writer_vec seq;

	(void)write_u8(&w, 0x30);
	(void)write_vec_open(&w, 1, &seq);
	put_integer(&w, raw);
	put_integer(&w, raw + 32);
	(void)write_vec_close(&w, &seq);
	if (writer_error(&w))
		return HS_ERR_NO_SPACE;
	*der_len = w.len;
	return 0;
}

int ecdsa_sig_from_der_n(uint8_t *raw, size_t int_len, const uint8_t *der, size_t der_len)
{
	struct reader r = reader_init(der, der_len), seq;

	if (int_len == 0 || int_len > INT_MAX_LEN)
		return HS_ERR_ARG;
	if (der == NULL || der_read(&r, DER_SEQUENCE, &seq) != 0 || read_end(&r) != 0 ||
	    der_read_uint_fixed(&seq, raw, int_len) != 0 ||
	    der_read_uint_fixed(&seq, raw + int_len, int_len) != 0 || read_end(&seq) != 0)
		return HS_ERR_BAD_ENCODING;
	return 0;
}

int ecdsa_sig_from_der(uint8_t raw[64], const uint8_t *der, size_t der_len)
{
	return ecdsa_sig_from_der_n(raw, 32, der, der_len);
}
