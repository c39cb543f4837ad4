/*
 * X.509 certificate parser (RFC 5280 4.1), strict DER.
 *
 *   Certificate  ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }
 *   TBSCertificate ::= SEQUENCE { [0] EXPLICIT version DEFAULT v1, serialNumber,
 *       signature, issuer, validity, subject, subjectPublicKeyInfo,
 *       [1] IMPLICIT issuerUniqueID OPTIONAL, [2] IMPLICIT subjectUniqueID OPTIONAL,
 *       [3] EXPLICIT extensions OPTIONAL }
 *
 * Implementation notes: the result is a set of views into the caller's
 * DER (struct x509_cert); nothing is copied or allocated. Every read goes
 * through reader and base/der.c, which enforce definite, minimal lengths
 * and minimal INTEGERs;
 * here we add what DER and RFC 5280 forbid besides: a version field
 * present with its default value, non-minimal or over-long serials, a
 * signature algorithm differing between the TBS and the outer structure,
 * times in the wrong form (see x509_time for one tolerance), bit strings with unused bits, unique
 * IDs or extensions in a certificate whose version does not allow them.
 * Unknown key types and signature algorithms parse (sigalg NULL,
 * key_type KEY_NONE): only the verifier refuses them, so every
 * trust anchor of a bundle can be loaded. Nothing here is secret.
 */
#include "x509/x509.h"

#include <string.h>

#include "x509/oid.h"

/* A small non-negative INTEGER (the version), at most max. */
static int read_small_uint(struct reader *r, uint32_t max, uint32_t *out)
{
	struct reader mag;

	TRY(der_read_uint(r, &mag));
	ENSURE(der_uint_u32(mag, out) == 0 && *out <= max, HS_ERR_BAD_ENCODING);
	return 0;
}

/* BIT STRING with no unused bits: *v gets the octets after the count byte. */
static int read_octet_bits(struct reader *r, struct reader *v)
{
	uint8_t unused;

	TRY(der_read(r, DER_BIT_STRING, v));
	TRY(read_u8(v, &unused));
	ENSURE(unused == 0, HS_ERR_BAD_ENCODING);
	return 0;
}

/*
 * Name ::= SEQUENCE OF RelativeDistinguishedName; RDN ::= SET SIZE (1..MAX)
 * OF AttributeTypeAndValue; ATV ::= SEQUENCE { type OID, value ANY }.
 * *raw gets the whole Name TLV (names are compared byte for byte).
 */
static int read_name(struct reader *r, struct reader *raw, size_t *n_rdn)
{
	struct reader name, rdn, atv, oid, val;
	uint8_t tag;

	*n_rdn = 0;
	TRY(der_read_raw(r, DER_SEQUENCE, &name, raw));
	while (reader_left(&name) > 0) {
		TRY(der_read(&name, DER_SET, &rdn));
		ENSURE(reader_left(&rdn) > 0, HS_ERR_BAD_ENCODING);
		while (reader_left(&rdn) > 0) {
			TRY(der_read(&rdn, DER_SEQUENCE, &atv));
			TRY(der_read(&atv, DER_OID, &oid));
			ENSURE(oid.len > 0, HS_ERR_BAD_ENCODING);
			TRY(der_read_any(&atv, &tag, &val));
			TRY(read_end(&atv));
		}
		(*n_rdn)++;
	}
	return 0;
}

/* ---- time (RFC 5280 4.1.2.5) ---- */

static int digits(struct reader *v, size_t n, unsigned *out)
{
	uint8_t ch;

	*out = 0;
	for (size_t i = 0; i < n; i++) {
		TRY(read_u8(v, &ch));
		ENSURE(ch >= '0' && ch <= '9', HS_ERR_BAD_ENCODING);
		*out = *out * 10 + (unsigned)(ch - '0');
	}
	return 0;
}

static int is_leap(unsigned y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian, y >= 1). */
static int64_t days_since_epoch(unsigned y, unsigned m, unsigned d)
{
	/* count from March so the leap day falls at the end of the year */
	int64_t yy = (int64_t)y - (m <= 2);
	int64_t era = yy / 400, yoe = yy - era * 400;
	int64_t doy = (153 * (int64_t)(m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468; /* 719468: days from 0000-03-01 */
}

int x509_time(uint8_t tag, struct reader v, int64_t *t)
{
	static const uint8_t mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned y, mo, d, h, mi, s;
	uint8_t z;

	if (tag == 0x17) { /* UTCTime YYMMDDHHMMSSZ; YY >= 50 is 19YY */
		ENSURE(v.len == 13, HS_ERR_BAD_ENCODING);
		TRY(digits(&v, 2, &y));
		y += y >= 50 ? 1900 : 2000;
	} else if (tag == 0x18) { /* GeneralizedTime YYYYMMDDHHMMSSZ */
		ENSURE(v.len == 15, HS_ERR_BAD_ENCODING);
		TRY(digits(&v, 4, &y));
		/*
		 * 4.1.2.5: CAs "MUST encode" dates before 2050 as UTCTime, but a
		 * root in the system bundle (Certum Trusted Network CA 2) uses
		 * GeneralizedTime for 2011 and 2046: accepted, as other
		 * verifiers do. The form stays strict (seconds, "Z").
		 */
		ENSURE(y >= 1950, HS_ERR_BAD_ENCODING);
	} else {
		return HS_ERR_BAD_ENCODING;
	}
	TRY(digits(&v, 2, &mo));
	TRY(digits(&v, 2, &d));
	TRY(digits(&v, 2, &h));
	TRY(digits(&v, 2, &mi));
	TRY(digits(&v, 2, &s));
	TRY(read_u8(&v, &z));
	ENSURE(z == 'Z', HS_ERR_BAD_ENCODING);
	ENSURE(mo >= 1 && mo <= 12 && d >= 1 && h < 24 && mi < 60 && s < 60, HS_ERR_BAD_ENCODING);
	ENSURE(d <= mdays[mo - 1] + (unsigned)(mo == 2 && is_leap(y)), HS_ERR_BAD_ENCODING);
	*t = days_since_epoch(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
	return 0;
}

static int read_validity(struct reader *r, struct x509_cert *c)
{
	struct reader val, v;
	uint8_t tag;

	TRY(der_read(r, DER_SEQUENCE, &val));
	TRY(der_read_any(&val, &tag, &v));
	TRY(x509_time(tag, v, &c->not_before));
	TRY(der_read_any(&val, &tag, &v));
	TRY(x509_time(tag, v, &c->not_after));
	return read_end(&val);
}

/* ---- SubjectPublicKeyInfo ---- */

int x509_spki_parse(struct reader *r, enum key_type *type, struct reader *key)
{
	struct reader spki, alg, oid, curve, null;
	uint8_t unused;

	*type = KEY_NONE;
	TRY(der_read(r, DER_SEQUENCE, &spki));
	TRY(der_read(&spki, DER_SEQUENCE, &alg));
	TRY(der_read(&alg, DER_OID, &oid));
	TRY(der_read(&spki, DER_BIT_STRING, key));
	TRY(read_end(&spki));
	if (der_oid_is(&oid, oid_ec_public_key, sizeof(oid_ec_public_key))) {
		/* RFC 5480: parameters are a namedCurve OID */
		TRY(der_read(&alg, DER_OID, &curve));
		TRY(read_end(&alg));
		if (der_oid_is(&curve, oid_p256, sizeof(oid_p256)))
			*type = KEY_P256;
		else if (der_oid_is(&curve, oid_p384, sizeof(oid_p384)))
			*type = KEY_P384;
	} else if (der_oid_is(&oid, oid_ed25519, sizeof(oid_ed25519))) {
		/* RFC 8410 3: "the parameters MUST be absent" */
		TRY(read_end(&alg));
		*type = KEY_ED25519;
	} else if (der_oid_is(&oid, oid_rsa, sizeof(oid_rsa))) {
		/* RFC 3279 2.3.1: "the parameters field MUST have ASN.1 type NULL" */
		TRY(der_read(&alg, DER_NULL, &null));
		ENSURE(null.len == 0, HS_ERR_BAD_ENCODING);
		TRY(read_end(&alg));
		*type = KEY_RSA;
	}
	if (*type != KEY_NONE) {
		TRY(read_u8(key, &unused));
		ENSURE(unused == 0, HS_ERR_BAD_ENCODING);
	}
	return 0;
}

/* ---- TBSCertificate ---- */

static int read_version(struct reader *tbs, struct x509_cert *c)
{
	struct reader v;
	uint32_t ver;

	c->version = 1;
	if (der_peek(tbs) != 0xa0)
		return 0;
	TRY(der_read(tbs, 0xa0, &v));
	TRY(read_small_uint(&v, 2, &ver));
	TRY(read_end(&v));
	/* DER: a DEFAULT value (v1 = 0) must be omitted */
	ENSURE(ver >= 1, HS_ERR_BAD_ENCODING);
	c->version = (int)ver + 1;
	return 0;
}

static int read_sigalg(struct reader *tbs, struct x509_cert *c, struct reader outer)
{
	struct reader alg, raw, oid;

	TRY(der_read_raw(tbs, DER_SEQUENCE, &alg, &raw));
	/* 4.1.1.2: "MUST contain the same algorithm identifier as the
	 * signature field in the sequence tbsCertificate" */
	ENSURE(raw.len == outer.len && memcmp(raw.p, outer.p, raw.len) == 0,
	       HS_ERR_BAD_ENCODING);
	TRY(der_read(&alg, DER_OID, &oid));
	c->sigalg = x509_sigalg_find(oid, alg);
	return 0;
}

static int read_tail(struct reader *tbs, struct x509_cert *c)
{
	struct reader v, exts;

	/* unique identifiers: only in v2 and v3 (4.1.2.8) */
	if (der_peek(tbs) == 0x81) {
		ENSURE(c->version >= 2, HS_ERR_BAD_ENCODING);
		TRY(der_read(tbs, 0x81, &v));
	}
	if (der_peek(tbs) == 0x82) {
		ENSURE(c->version >= 2, HS_ERR_BAD_ENCODING);
		TRY(der_read(tbs, 0x82, &v));
	}
	if (der_peek(tbs) == 0xa3) {
		/* extensions: v3 only (4.1.2.9); SIZE (1..MAX) */
		ENSURE(c->version == 3, HS_ERR_BAD_ENCODING);
		TRY(der_read(tbs, 0xa3, &v));
		TRY(der_read(&v, DER_SEQUENCE, &exts));
		TRY(read_end(&v));
		ENSURE(reader_left(&exts) > 0, HS_ERR_BAD_ENCODING);
		TRY(x509_exts_parse(c, exts));
	}
	return read_end(tbs);
}

static int read_tbs(struct reader tbs, struct x509_cert *c, struct reader outer_alg)
{
	struct reader serial, spki;
	size_t n_issuer, n_subject;

	TRY(read_version(&tbs, c));
	TRY(der_read_int(&tbs, &serial));
	/* 4.1.2.2: at most 20 octets (plus a sign octet some encoders add) */
	ENSURE(serial.len <= 21, HS_ERR_BAD_ENCODING);
	TRY(read_sigalg(&tbs, c, outer_alg));
	TRY(read_name(&tbs, &c->issuer, &n_issuer));
	/* 4.1.2.4: "The issuer field MUST contain a non-empty distinguished name" */
	ENSURE(n_issuer > 0, HS_ERR_BAD_ENCODING);
	TRY(read_validity(&tbs, c));
	TRY(read_name(&tbs, &c->subject, &n_subject));
	TRY(der_read_raw(&tbs, DER_SEQUENCE, &spki, &c->spki));
	spki = c->spki;
	TRY(x509_spki_parse(&spki, &c->key_type, &c->key));
	TRY(read_tail(&tbs, c));
	/* 4.1.2.6: an empty subject needs a subjectAltName (marked critical) */
	ENSURE(n_subject > 0 || (c->has & X509_HAS_SAN), HS_ERR_BAD_ENCODING);
	return 0;
}

static int parse(struct x509_cert *c, const uint8_t *der, size_t len)
{
	struct reader r = reader_init(der, len), cert, tbs, alg, alg_raw;

	memset(c, 0, sizeof(*c));
	c->path_len = -1;
	TRY(der_read_raw(&r, DER_SEQUENCE, &cert, &c->der));
	TRY(read_end(&r));
	TRY(der_read_raw(&cert, DER_SEQUENCE, &tbs, &c->tbs));
	TRY(der_read_raw(&cert, DER_SEQUENCE, &alg, &alg_raw));
	TRY(read_octet_bits(&cert, &c->sig));
	TRY(read_end(&cert));
	return read_tbs(tbs, c, alg_raw);
}

int x509_cert_parse(struct x509_cert *c, const uint8_t *der, size_t len)
{
	int err = parse(c, der, len);

	/* reader and DER errors all mean the same thing to a caller */
	if (err == HS_ERR_TRUNCATED || err == HS_ERR_BAD_ENCODING || err == HS_ERR_TRAILING)
		err = HS_ERR_X509_MALFORMED;
	return err;
}

int hs_x509_check_der(const uint8_t *der, size_t len)
{
	struct x509_cert c;

	return x509_cert_parse(&c, der, len);
}
