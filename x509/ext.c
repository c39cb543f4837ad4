/*
 * X.509 v3 extensions (RFC 5280 4.2): the ones a path validator needs,
 * one table row per OID. Anything else is ignored unless marked critical:
 * "A certificate-using system MUST reject the certificate if it encounters
 * a critical extension it does not recognize" (4.2).
 *
 * Implementation notes: each parser checks the extension's DER strictly
 * (DEFAULT values omitted, SIZE (1..MAX) lists non-empty, no unused bits
 * set in bit strings) and stores views into the
 * certificate. "A certificate MUST NOT include more than one instance of a
 * particular extension": every OID is compared with the ones before it.
 */
#include "x509/x509.h"

#include <limits.h>
#include <string.h>

#include "x509/oid.h"

#define MAX_EXTS_PER_CERT 32

/* BOOLEAN: DER allows only 0x00 and 0xff. */
static int read_bool(struct reader *r, int *b)
{
	struct reader v;

	TRY(der_read(r, DER_BOOLEAN, &v));
	ENSURE(v.len == 1 && (v.p[0] == 0x00 || v.p[0] == 0xff), HS_ERR_BAD_ENCODING);
	*b = v.p[0] != 0;
	return 0;
}

/*
 * BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE,
 *     pathLenConstraint INTEGER (0..MAX) OPTIONAL }
 * A pathLenConstraint is any non-negative INTEGER; values above INT_MAX
 * (far beyond HS_X509_MAX_CHAIN) are kept as INT_MAX, which means the same.
 */
static int ext_bc(struct x509_cert *c, struct reader v)
{
	struct reader seq, mag;
	uint32_t n;
	int err;

	TRY(der_read(&v, DER_SEQUENCE, &seq));
	TRY(read_end(&v));
	if (der_peek(&seq) == DER_BOOLEAN) {
		TRY(read_bool(&seq, &c->is_ca));
		ENSURE(c->is_ca, HS_ERR_BAD_ENCODING); /* DEFAULT FALSE is omitted */
	}
	if (reader_left(&seq) > 0) {
		/* "CAs MUST NOT include the pathLenConstraint field unless the cA
		 * boolean is asserted" */
		ENSURE(c->is_ca, HS_ERR_BAD_ENCODING);
		TRY(der_read_uint(&seq, &mag));
		err = der_uint_u32(mag, &n);
		c->path_len = err == 0 && n <= INT_MAX ? (int)n : INT_MAX;
	}
	return read_end(&seq);
}

/* KeyUsage ::= BIT STRING (named bits: no trailing zero bits, at least one set) */
static int ext_ku(struct x509_cert *c, struct reader v)
{
	struct reader bits;
	uint8_t unused, last;

	TRY(der_read(&v, DER_BIT_STRING, &bits));
	TRY(read_end(&v));
	TRY(read_u8(&bits, &unused));
	ENSURE(unused < 8 && bits.len >= 1 && bits.len <= 2, HS_ERR_BAD_ENCODING);
	last = bits.p[bits.len - 1];
	/*
	 * Unused bits must be zero. X.690 11.2.2 also forbids trailing zero
	 * bits, but roots in the wild (Trustwave's ECC roots: 03 03 07 06 00)
	 * carry a trailing zero octet, so that much is tolerated.
	 */
	ENSURE((last & ((1u << unused) - 1)) == 0, HS_ERR_BAD_ENCODING);
	c->key_usage = 0;
	for (unsigned i = 0; i < 8 * bits.len; i++)
		if (bits.p[i / 8] & (0x80u >> (i % 8)))
			c->key_usage |= 1u << i;
	/* 4.2.1.3: "at least one of the bits MUST be set to 1" */
	ENSURE(c->key_usage != 0, HS_ERR_BAD_ENCODING);
	return 0;
}

/* ExtKeyUsageSyntax ::= SEQUENCE SIZE (1..MAX) OF KeyPurposeId */
static int ext_eku(struct x509_cert *c, struct reader v)
{
	const size_t kp = sizeof(oid_kp);
	struct reader seq, oid;

	TRY(der_read(&v, DER_SEQUENCE, &seq));
	TRY(read_end(&v));
	ENSURE(reader_left(&seq) > 0, HS_ERR_BAD_ENCODING);
	while (reader_left(&seq) > 0) {
		TRY(der_read(&seq, DER_OID, &oid));
		ENSURE(oid.len > 0, HS_ERR_BAD_ENCODING);
		if (der_oid_is(&oid, oid_any_eku, sizeof(oid_any_eku)))
			c->eku |= X509_EKU_ANY;
		else if (oid.len == kp + 1 && memcmp(oid.p, oid_kp, kp) == 0 &&
			 (oid.p[kp] == 1 || oid.p[kp] == 2))
			c->eku |= oid.p[kp] == 1 ? X509_EKU_SERVER : X509_EKU_CLIENT;
	}
	return 0;
}

/*
 * One GeneralName (4.2.1.6); ip_len is the iPAddress length allowed (4 or
 * 16 in a SAN, 8 or 32 in a name constraint, address + mask).
 */
static int general_name(struct reader *r, size_t ip_len, uint8_t *tag, struct reader *gn)
{
	struct reader v, name;

	TRY(der_read_any(r, tag, &v));
	*gn = v;
	switch (*tag) {
	case 0x81: /* rfc822Name */
	case GN_DNS:
	case 0x86: /* uniformResourceIdentifier: IA5String */
		for (size_t i = 0; i < v.len; i++)
			ENSURE(v.p[i] >= 0x20 && v.p[i] < 0x7f, HS_ERR_BAD_ENCODING);
		return 0;
	case GN_IP:
		ENSURE(v.len == ip_len || v.len == 4 * ip_len, HS_ERR_BAD_ENCODING);
		return 0;
	case GN_DIRECTORY: /* EXPLICIT Name */
		TRY(der_read(&v, DER_SEQUENCE, &name));
		return read_end(&v);
	case 0xa0: /* otherName */
	case 0xa3: /* x400Address */
	case 0xa5: /* ediPartyName */
	case 0x88: /* registeredID */
		return 0;
	default:
		return HS_ERR_BAD_ENCODING;
	}
}

/* GeneralNames ::= SEQUENCE SIZE (1..MAX) OF GeneralName */
static int ext_san(struct x509_cert *c, struct reader v)
{
	struct reader names, gn;
	uint8_t tag;

	TRY(der_read(&v, DER_SEQUENCE, &c->san));
	TRY(read_end(&v));
	ENSURE(reader_left(&c->san) > 0, HS_ERR_BAD_ENCODING);
	names = c->san;
	while (reader_left(&names) > 0) {
		TRY(general_name(&names, 4, &tag, &gn));
		/*
		 * 4.2.1.6: a dNSName "MUST be in the "preferred name syntax"":
		 * no empty label, hence no trailing dot. Refused here, so host
		 * matching and name constraints only ever see names in that form.
		 */
		if (tag == GN_DNS)
			ENSURE(x509_dns_name_ok(gn.p, gn.len), HS_ERR_BAD_ENCODING);
	}
	return 0;
}

/*
 * GeneralSubtrees ::= SEQUENCE SIZE (1..MAX) OF GeneralSubtree
 * GeneralSubtree ::= SEQUENCE { base GeneralName, minimum [0] DEFAULT 0, maximum [1] OPTIONAL }
 * 4.2.1.10: "the minimum MUST be zero" (so, in DER, absent) and "maximum
 * MUST be absent".
 */
static int subtrees(struct reader v)
{
	struct reader st, gn;
	uint8_t tag;

	ENSURE(reader_left(&v) > 0, HS_ERR_BAD_ENCODING);
	while (reader_left(&v) > 0) {
		TRY(der_read(&v, DER_SEQUENCE, &st));
		TRY(general_name(&st, 8, &tag, &gn));
		TRY(read_end(&st));
	}
	return 0;
}

/* NameConstraints ::= SEQUENCE { permittedSubtrees [0], excludedSubtrees [1] } */
static int ext_nc(struct x509_cert *c, struct reader v)
{
	struct reader seq;

	TRY(der_read(&v, DER_SEQUENCE, &seq));
	TRY(read_end(&v));
	/* "Conforming CAs MUST NOT issue certificates where name constraints
	 * is an empty sequence" */
	ENSURE(reader_left(&seq) > 0, HS_ERR_BAD_ENCODING);
	if (der_peek(&seq) == 0xa0) {
		TRY(der_read(&seq, 0xa0, &c->nc_permitted));
		TRY(subtrees(c->nc_permitted));
	}
	if (der_peek(&seq) == 0xa1) {
		TRY(der_read(&seq, 0xa1, &c->nc_excluded));
		TRY(subtrees(c->nc_excluded));
	}
	return read_end(&seq);
}

/* AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0], authorityCertIssuer [1], authorityCertSerialNumber [2] } */
static int ext_aki(struct x509_cert *c, struct reader v)
{
	struct reader seq, x;

	TRY(der_read(&v, DER_SEQUENCE, &seq));
	TRY(read_end(&v));
	if (der_peek(&seq) == 0x80)
		TRY(der_read(&seq, 0x80, &c->aki));
	if (der_peek(&seq) == 0xa1)
		TRY(der_read(&seq, 0xa1, &x));
	if (der_peek(&seq) == 0x82)
		TRY(der_read(&seq, 0x82, &x));
	return read_end(&seq);
}

/* SubjectKeyIdentifier ::= OCTET STRING */
static int ext_ski(struct x509_cert *c, struct reader v)
{
	TRY(der_read(&v, DER_OCTET_STRING, &c->ski));
	return read_end(&v);
}

struct ext_row {
	uint8_t oid_last; /* all are id-ce (2.5.29) members */
	unsigned flag;
	int (*parse)(struct x509_cert *c, struct reader v);
};

static const struct ext_row rows[] = {
	{ .oid_last = OID_CE_BASIC_CONSTRAINTS, .flag = X509_HAS_BC, .parse = ext_bc },
	{ .oid_last = OID_CE_KEY_USAGE, .flag = X509_HAS_KU, .parse = ext_ku },
	{ .oid_last = OID_CE_EKU, .flag = X509_HAS_EKU, .parse = ext_eku },
	{ .oid_last = OID_CE_SAN, .flag = X509_HAS_SAN, .parse = ext_san },
	{ .oid_last = OID_CE_NAME_CONSTRAINTS, .flag = X509_HAS_NC, .parse = ext_nc },
	{ .oid_last = OID_CE_AKI, .flag = X509_HAS_AKI, .parse = ext_aki },
	{ .oid_last = OID_CE_SKI, .flag = X509_HAS_SKI, .parse = ext_ski },
};

static const struct ext_row *find_row(const struct reader *oid)
{
	if (oid->len != sizeof(oid_ce) + 1 || memcmp(oid->p, oid_ce, sizeof(oid_ce)) != 0)
		return NULL;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].oid_last == oid->p[sizeof(oid_ce)])
			return &rows[i];
	return NULL;
}

/* Extension ::= SEQUENCE { extnID OID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING } */
static int one_ext(struct x509_cert *c, struct reader *exts, struct reader *oid)
{
	struct reader ext, value;
	const struct ext_row *row;
	int critical = 0;

	TRY(der_read(exts, DER_SEQUENCE, &ext));
	TRY(der_read(&ext, DER_OID, oid));
	ENSURE(oid->len > 0, HS_ERR_BAD_ENCODING);
	if (der_peek(&ext) == DER_BOOLEAN) {
		TRY(read_bool(&ext, &critical));
		ENSURE(critical, HS_ERR_BAD_ENCODING); /* DEFAULT FALSE is omitted */
	}
	TRY(der_read(&ext, DER_OCTET_STRING, &value));
	TRY(read_end(&ext));
	row = find_row(oid);
	if (row == NULL)
		return critical ? HS_ERR_X509_UNKNOWN_CRITICAL : 0;
	c->has |= row->flag;
	return row->parse(c, value);
}

int x509_exts_parse(struct x509_cert *c, struct reader exts)
{
	struct reader seen[MAX_EXTS_PER_CERT];
	size_t n = 0;
	int unknown_critical = 0, err;

	while (reader_left(&exts) > 0) {
		ENSURE(n < MAX_EXTS_PER_CERT, HS_ERR_BAD_ENCODING);
		err = one_ext(c, &exts, &seen[n]);
		if (err == HS_ERR_X509_UNKNOWN_CRITICAL)
			unknown_critical = 1; /* reported once the rest is known well-formed */
		else if (err != 0)
			return err;
		for (size_t i = 0; i < n; i++)
			ENSURE(!der_oid_is(&seen[i], seen[n].p, seen[n].len), HS_ERR_BAD_ENCODING);
		n++;
	}
	/* 4.2.1.10: name constraints "MUST be used only in a CA certificate" */
	ENSURE(!(c->has & X509_HAS_NC) || c->is_ca, HS_ERR_BAD_ENCODING);
	return unknown_critical ? HS_ERR_X509_UNKNOWN_CRITICAL : 0;
}
