/*
 * DER (X.690 section 10) on top of reader: the one place where tags,
 * lengths and INTEGERs are decoded, for certificates, keys and signatures.
 *
 * Rules every read enforces: low-tag-number form only (no tag in X.509,
 * PKCS or ECDSA needs more), definite lengths only, minimal length
 * encoding (short form below 128, no leading zero octet in the long form),
 * lengths up to 2^24 - 1. A failed read leaves the reader where it was.
 * Errors: HS_ERR_TRUNCATED when the input ends early, else
 * HS_ERR_BAD_ENCODING.
 */
#ifndef HS_BASE_DER_H
#define HS_BASE_DER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/reader.h"

#define DER_BOOLEAN 0x01
#define DER_INTEGER 0x02
#define DER_BIT_STRING 0x03
#define DER_OCTET_STRING 0x04
#define DER_NULL 0x05
#define DER_OID 0x06
#define DER_SEQUENCE 0x30
#define DER_SET 0x31

/* One TLV with the given tag; sub gets its contents. */
HS_MUST_CHECK int der_read(struct reader *r, uint8_t tag, struct reader *sub);
/* Like der_read, but *raw (may be NULL) also spans the tag and length bytes. */
HS_MUST_CHECK int der_read_raw(struct reader *r, uint8_t tag, struct reader *sub,
				  struct reader *raw);
/* One TLV whatever its tag; *tag gets it. */
HS_MUST_CHECK int der_read_any(struct reader *r, uint8_t *tag, struct reader *sub);
/* Next tag without consuming (0 at the end). */
uint8_t der_peek(const struct reader *r);
/* Are the contents of an OID (oid) the n bytes of want? */
int der_oid_is(const struct reader *oid, const uint8_t *want, size_t n);

/*
 * INTEGER (X.690 8.3): at least one content octet, and minimal: the first
 * nine bits are neither all zero nor all one. *v gets the two's complement
 * contents, either sign.
 */
HS_MUST_CHECK int der_read_int(struct reader *r, struct reader *v);
/*
 * A non-negative INTEGER: *mag gets its magnitude, without the one 0x00
 * octet that keeps a value with its top bit set positive, so mag's length
 * is the value's byte length (zero is the single octet 0x00). A negative
 * value is HS_ERR_BAD_ENCODING.
 */
HS_MUST_CHECK int der_read_uint(struct reader *r, struct reader *mag);
/* A non-negative INTEGER into n bytes, big-endian, zero-padded on the left;
 * HS_ERR_BAD_ENCODING if it needs more than n bytes. */
HS_MUST_CHECK int der_read_uint_fixed(struct reader *r, uint8_t *out, size_t n);
/* A magnitude from der_read_uint as a number; HS_ERR_TOO_LONG above 2^32 - 1. */
HS_MUST_CHECK int der_uint_u32(struct reader mag, uint32_t *v);

#endif
