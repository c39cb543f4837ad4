/*
 * The part of X.509 (RFC 5280) the engine needs from a leaf certificate:
 * its SubjectPublicKeyInfo and its subjectAltName dNSNames, plus the
 * RFC 6125 host name match. Path validation is x509_verify.c's.
 *
 *   Certificate  ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signature }
 *   TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber,
 *       signature, issuer, validity, subject, subjectPublicKeyInfo,
 *       [1] issuerUID OPTIONAL, [2] subjectUID OPTIONAL, [3] extensions OPTIONAL }
 *
 * Implementation notes: every read is through hs_reader and the DER helpers;
 * nothing here handles secrets.
 */
#include "libhs/internal.h"

#include <string.h>

#include "crypto/rsa.h"

/* 1.2.840.10045.2.1 id-ecPublicKey, 1.2.840.10045.3.1.7 prime256v1 */
static const uint8_t oid_ec[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };
static const uint8_t oid_p256[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
/* 1.3.132.0.34 secp384r1 (RFC 5480 2.1.1.1) */
static const uint8_t oid_p384[] = { 0x2b, 0x81, 0x04, 0x00, 0x22 };
/* 1.3.101.112 id-Ed25519 (RFC 8410) */
static const uint8_t oid_ed25519[] = { 0x2b, 0x65, 0x70 };
/* 1.2.840.113549.1.1.1 rsaEncryption */
static const uint8_t oid_rsa[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01 };
/* 2.5.29.17 subjectAltName */
static const uint8_t oid_san[] = { 0x55, 0x1d, 0x11 };

int hs_x509_spki(struct hs_reader raw, struct leaf_key *k)
{
	struct hs_reader spki, alg, oid, bits;
	uint8_t unused;

	memset(k, 0, sizeof(*k));
	k->spki = raw.p;
	k->spki_len = raw.len;
	TRY(hs_der_read(&raw, DER_SEQUENCE, &spki));
	TRY(hs_der_read(&spki, DER_SEQUENCE, &alg));
	TRY(hs_der_read(&spki, DER_BIT_STRING, &bits));
	TRY(hs_read_end(&spki));
	TRY(hs_der_read(&alg, DER_OID, &oid));
	TRY(hs_read_u8(&bits, &unused));
	ENSURE(unused == 0, HS_ERR_BAD_ENCODING);
	if (hs_der_oid_is(&oid, oid_ec, sizeof(oid_ec))) {
		struct hs_reader curve;
		TRY(hs_der_read(&alg, DER_OID, &curve));
		if (hs_der_oid_is(&curve, oid_p256, sizeof(oid_p256))) {
			ENSURE(bits.len == 65 && bits.p[0] == 0x04, HS_ERR_BAD_ENCODING);
			k->type = KEY_P256;
		} else if (hs_der_oid_is(&curve, oid_p384, sizeof(oid_p384))) {
			ENSURE(bits.len == 97 && bits.p[0] == 0x04, HS_ERR_BAD_ENCODING);
			k->type = KEY_P384;
		} else {
			return 0; /* another curve: KEY_NONE */
		}
	} else if (hs_der_oid_is(&oid, oid_ed25519, sizeof(oid_ed25519))) {
		ENSURE(alg.len == 0 && bits.len == 32, HS_ERR_BAD_ENCODING);
		k->type = KEY_ED25519;
	} else if (hs_der_oid_is(&oid, oid_rsa, sizeof(oid_rsa))) {
		/* the RSAPublicKey stays in the SPKI: hs_x509_rsa_key finds it */
		k->type = KEY_RSA;
		return 0;
	} else {
		return 0;
	}
	k->pub_len = bits.len;
	return hs_read_bytes(&bits, k->pub, bits.len);
}

int hs_x509_rsa_key(const uint8_t *spki_der, size_t spki_len, const uint8_t **key,
		    size_t *key_len, size_t *bits)
{
	struct hs_reader raw = hs_reader_init(spki_der, spki_len), spki, alg, oid, bs;
	struct hs_rsa_public pub;
	uint8_t unused;

	TRY(hs_der_read(&raw, DER_SEQUENCE, &spki));
	TRY(hs_der_read(&spki, DER_SEQUENCE, &alg));
	TRY(hs_der_read(&spki, DER_BIT_STRING, &bs));
	TRY(hs_der_read(&alg, DER_OID, &oid));
	ENSURE(hs_der_oid_is(&oid, oid_rsa, sizeof(oid_rsa)), HS_ERR_BAD_KEY);
	TRY(hs_read_u8(&bs, &unused));
	ENSURE(unused == 0, HS_ERR_BAD_ENCODING);
	/* n odd, 1024..4096 bits, 3 <= e < n (crypto/rsa.h) */
	TRY(hs_rsa_public_from_der(&pub, bs.p, bs.len));
	*key = bs.p;
	*key_len = bs.len;
	*bits = pub.bits;
	return 0;
}

static int find_san(struct hs_reader exts_field, struct hs_reader *san)
{
	struct hs_reader exts, ext, oid, value;

	TRY(hs_der_read(&exts_field, DER_SEQUENCE, &exts));
	while (hs_reader_left(&exts) > 0) {
		TRY(hs_der_read(&exts, DER_SEQUENCE, &ext));
		TRY(hs_der_read(&ext, DER_OID, &oid));
		if (hs_der_peek(&ext) == 0x01) /* critical BOOLEAN */
			TRY(hs_der_skip(&ext));
		TRY(hs_der_read(&ext, DER_OCTET_STRING, &value));
		if (hs_der_oid_is(&oid, oid_san, sizeof(oid_san)))
			return hs_der_read(&value, DER_SEQUENCE, san);
	}
	return 0;
}

int hs_x509_parse(const uint8_t *der, size_t len, struct leaf_key *k, struct hs_reader *san)
{
	struct hs_reader r = hs_reader_init(der, len), cert, tbs, spki, field;

	*san = hs_reader_init(NULL, 0);
	TRY(hs_der_read(&r, DER_SEQUENCE, &cert));
	TRY(hs_read_end(&r));
	TRY(hs_der_read(&cert, DER_SEQUENCE, &tbs));
	if (hs_der_peek(&tbs) == 0xa0) /* [0] version */
		TRY(hs_der_skip(&tbs));
	for (int i = 0; i < 5; i++) /* serial, signature, issuer, validity, subject */
		TRY(hs_der_skip(&tbs));
	TRY(hs_der_read_raw(&tbs, DER_SEQUENCE, &spki, &field));
	TRY(hs_x509_spki(field, k));
	while (hs_reader_left(&tbs) > 0) {
		if (hs_der_peek(&tbs) == 0xa3) {
			TRY(hs_der_read(&tbs, 0xa3, &field));
			return find_san(field, san);
		}
		TRY(hs_der_skip(&tbs));
	}
	return 0;
}

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
}

static int label_eq(const uint8_t *a, size_t an, const char *b, size_t bn)
{
	if (an != bn)
		return 0;
	for (size_t i = 0; i < an; i++)
		if (lower(a[i]) != lower((unsigned char)b[i]))
			return 0;
	return 1;
}

/* RFC 6125 6.4.3: "*" only as the whole leftmost label, matching one label */
static int name_matches(const uint8_t *pat, size_t pn, const char *name)
{
	size_t nn = strlen(name);
	const char *dot;

	if (pn >= 2 && pat[0] == '*' && pat[1] == '.') {
		dot = strchr(name, '.');
		if (dot == NULL || dot == name)
			return 0;
		return label_eq(pat + 1, pn - 1, dot, strlen(dot));
	}
	return label_eq(pat, pn, name, nn);
}

/* A dotted-quad IPv4 literal ("127.0.0.1", parts 0..255) into ip; 0 if it is one. */
static int parse_ipv4(const char *s, uint8_t ip[4])
{
	for (int i = 0; i < 4; i++) {
		unsigned v = 0, digits = 0;
		while (*s >= '0' && *s <= '9' && digits < 4) {
			v = v * 10 + (unsigned)(*s++ - '0');
			digits++;
		}
		if (digits == 0 || digits > 3 || v > 255)
			return -1;
		ip[i] = (uint8_t)v;
		if (i < 3 && *s++ != '.')
			return -1;
	}
	return *s == '\0' ? 0 : -1;
}

/*
 * RFC 6125 6.2.1 / 6.4: an IP address is matched against iPAddress entries
 * ([7], 4 bytes for IPv4) only, a host name against dNSName entries ([2])
 * only. IPv6 literals are not matched yet (they never match).
 */
int hs_x509_check_name(struct hs_reader san, const char *name)
{
	uint8_t ip[4];
	int is_ip = parse_ipv4(name, ip) == 0;
	uint8_t want = is_ip ? 0x87 : 0x82;

	while (hs_reader_left(&san) > 0) {
		struct hs_reader gn;
		if (hs_der_peek(&san) != want) { /* other GeneralNames are skipped */
			TRY(hs_der_skip(&san));
			continue;
		}
		TRY(hs_der_read(&san, want, &gn));
		if (is_ip && gn.len == 4 && memcmp(gn.p, ip, 4) == 0)
			return 0;
		if (!is_ip && name_matches(gn.p, gn.len, name))
			return 0;
	}
	return HS_ERR_TLS_CERT_NAME;
}
