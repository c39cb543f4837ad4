/*
 * A small X.509 writer: a self-signed ECDSA P-256 certificate, its SEC1
 * private key, and PEM armour (see include/hs/x509_write.h).
 *
 *   Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }
 *   TBSCertificate ::= SEQUENCE { [0] EXPLICIT version (v3 = 2), serialNumber,
 *       signature, issuer, validity, subject, subjectPublicKeyInfo, [3] EXPLICIT extensions }
 *   (RFC 5280 4.1; ecdsa-with-SHA256 has no parameters, RFC 5758 3.2)
 *
 * Implementation notes: DER lengths are variable-sized, so a constructed
 * element is opened with a one-byte length placeholder and, when closed,
 * its body is moved up by the extra length bytes it turns out to need
 * (der_close; the only place that touches the writer's buffer directly).
 * Times: UTCTime for 1950..2049, GeneralizedTime from 2050 (RFC 5280
 * 4.1.2.5). The serial is the first 16 bytes of SHA-256(public key) with
 * the top bit cleared (positive, RFC 5280 4.1.2.2). The private key passes
 * through hs_p256_key_to_der and hs_pem_write only; the base64 encoder maps
 * each 6-bit value with masks (no table, no branch), and every local copy
 * of the key is wiped.
 */
#include "hs/x509_write.h"

#include <string.h>

#include "base/wipe.h"
#include "base/writer.h"
#include "crypto/ct.h"
#include "crypto/p256.h"
#include "crypto/sha2.h"
#include "hs/cred.h"
#include "x509/oid.h"

#define NAME_MAX_CHARS 64 /* ub-common-name (RFC 5280 appendix A) */

/* Tag and a one-byte length placeholder; *at remembers the placeholder. */
static void der_open(struct writer *w, uint8_t tag, size_t *at)
{
	(void)write_u8(w, tag);
	*at = w->len;
	(void)write_u8(w, 0);
}

/* Fill in the length opened at `at`, moving the body up if it needs long form. */
static int der_close(struct writer *w, size_t at)
{
	size_t body, extra;

	if (w->err)
		return w->err;
	body = w->len - at - 1;
	extra = body < 0x80 ? 0 : body < 0x100 ? 1 : 2;
	if (body >= 0x10000)
		return w->err = HS_ERR_TOO_LONG;
	if (extra > 0 && write_reserve(w, extra) == NULL)
		return w->err;
	memmove(w->buf + at + 1 + extra, w->buf + at + 1, body);
	w->buf[at] = (uint8_t)(extra == 0 ? body : 0x80 | extra);
	for (size_t i = 0; i < extra; i++)
		w->buf[at + 1 + i] = (uint8_t)(body >> (8 * (extra - 1 - i)));
	return 0;
}

/* A primitive element whose contents are known (all shorter than 128 bytes). */
static void der_prim(struct writer *w, uint8_t tag, const void *p, size_t n)
{
	size_t at;

	der_open(w, tag, &at);
	(void)write_bytes(w, p, n);
	(void)der_close(w, at);
}

static void write_alg_ecdsa_sha256(struct writer *w)
{
	size_t at;

	der_open(w, 0x30, &at);
	der_prim(w, 0x06, oid_ecdsa_with[SHA2_256], sizeof(oid_ecdsa_with[SHA2_256]));
	(void)der_close(w, at);
}

/* Name ::= SEQUENCE OF SET OF { commonName UTF8String } */
static void write_name(struct writer *w, const char *cn)
{
	size_t seq, set, atv;

	der_open(w, 0x30, &seq);
	der_open(w, 0x31, &set);
	der_open(w, 0x30, &atv);
	der_prim(w, 0x06, oid_common_name, sizeof(oid_common_name));
	der_prim(w, 0x0c, cn, strlen(cn));
	(void)der_close(w, atv);
	(void)der_close(w, set);
	(void)der_close(w, seq);
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian, 400-year eras). */
static void civil_from_days(uint64_t z, unsigned *y, unsigned *m, unsigned *d)
{
	uint64_t era, doe, yoe, doy, mp;

	z += 719468; /* days from 0000-03-01 to 1970-01-01 */
	era = z / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153; /* months counted from March */
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = (unsigned)(yoe + era * 400 + (*m <= 2));
}

static void put_digits(char *out, unsigned v, unsigned n)
{
	for (unsigned i = n; i > 0; i--) {
		out[i - 1] = (char)('0' + v % 10);
		v /= 10;
	}
}

static int write_time(struct writer *w, uint64_t t)
{
	unsigned y, mo, d, secs = (unsigned)(t % 86400);
	char s[16];
	size_t n = 0;

	civil_from_days(t / 86400, &y, &mo, &d);
	if (y > 9999)
		return HS_ERR_ARG;
	if (y < 2050) {
		put_digits(s, y % 100, 2);
		n = 2;
	} else {
		put_digits(s, y, 4);
		n = 4;
	}
	put_digits(s + n, mo, 2);
	put_digits(s + n + 2, d, 2);
	put_digits(s + n + 4, secs / 3600, 2);
	put_digits(s + n + 6, secs / 60 % 60, 2);
	put_digits(s + n + 8, secs % 60, 2);
	s[n + 10] = 'Z';
	der_prim(w, y < 2050 ? 0x17 : 0x18, s, n + 11);
	return 0;
}

static int write_validity(struct writer *w, const struct hs_cert_spec *spec)
{
	size_t at;

	der_open(w, 0x30, &at);
	if (write_time(w, spec->not_before) || write_time(w, spec->not_after))
		return HS_ERR_ARG;
	return der_close(w, at);
}

static void write_spki(struct writer *w, const uint8_t pub[65])
{
	size_t spki, alg, bits;

	der_open(w, 0x30, &spki);
	der_open(w, 0x30, &alg);
	der_prim(w, 0x06, oid_ec_public_key, sizeof(oid_ec_public_key));
	der_prim(w, 0x06, oid_p256, sizeof(oid_p256));
	(void)der_close(w, alg);
	der_open(w, 0x03, &bits);
	(void)write_u8(w, 0); /* no unused bits */
	(void)write_bytes(w, pub, 65);
	(void)der_close(w, bits);
	(void)der_close(w, spki);
}

/* [3] { SEQUENCE { Extension { subjectAltName, OCTET STRING { GeneralNames } } } } */
static void write_extensions(struct writer *w, const struct hs_cert_spec *spec)
{
	size_t ctx3, exts, ext, value, names;

	der_open(w, 0xa3, &ctx3);
	der_open(w, 0x30, &exts);
	der_open(w, 0x30, &ext);
	der_prim(w, 0x06, oid_san, sizeof(oid_san));
	der_open(w, 0x04, &value);
	der_open(w, 0x30, &names);
	der_prim(w, 0x82, spec->dns_name, strlen(spec->dns_name)); /* [2] dNSName */
	if (spec->ipv4 != NULL)
		der_prim(w, 0x87, spec->ipv4, 4); /* [7] iPAddress */
	if (spec->ipv6 != NULL)
		der_prim(w, 0x87, spec->ipv6, 16);
	(void)der_close(w, names);
	(void)der_close(w, value);
	(void)der_close(w, ext);
	(void)der_close(w, exts);
	(void)der_close(w, ctx3);
}

static int write_tbs(struct writer *w, const struct hs_cert_spec *spec, const uint8_t pub[65])
{
	static const uint8_t v3[] = { 0x02, 0x01, 0x02 };
	uint8_t serial[HS_SHA256_LEN];
	size_t tbs;
	int err;

	sha256(pub, 65, serial);
	serial[0] &= 0x7f; /* positive */
	serial[0] |= 0x40; /* and minimal: the first byte is never 0 */
	der_open(w, 0x30, &tbs);
	der_prim(w, 0xa0, v3, sizeof(v3));
	der_prim(w, 0x02, serial, 16);
	write_alg_ecdsa_sha256(w);
	write_name(w, spec->dns_name);
	err = write_validity(w, spec);
	if (err)
		return err;
	write_name(w, spec->dns_name);
	write_spki(w, pub);
	write_extensions(w, spec);
	return der_close(w, tbs);
}

static int check_spec(const struct hs_cert_spec *spec)
{
	size_t n = spec->dns_name != NULL ? strlen(spec->dns_name) : 0;

	if (n == 0 || n > NAME_MAX_CHARS || spec->not_after < spec->not_before)
		return HS_ERR_ARG;
	return 0;
}

/* signatureAlgorithm and signatureValue after the TBS at der[0..tbs_len) */
static int sign_tbs(struct writer *w, size_t tbs_at, const uint8_t priv[32])
{
	uint8_t hash[HS_SHA256_LEN], raw[64], sig[HS_P256_SIG_DER_MAX];
	size_t sig_len = sizeof(sig), bits;
	int err;

	sha256(w->buf + tbs_at, w->len - tbs_at, hash);
	err = ecdsa_p256_sign(raw, priv, hash, sizeof(hash), 0);
	if (err == 0)
		err = ecdsa_sig_to_der(sig, &sig_len, raw);
	if (err)
		return err;
	write_alg_ecdsa_sha256(w);
	der_open(w, 0x03, &bits);
	(void)write_u8(w, 0);
	(void)write_bytes(w, sig, sig_len);
	return der_close(w, bits);
}

int hs_x509_write_selfsigned_p256(uint8_t *der, size_t cap, size_t *len,
				  const struct hs_cert_spec *spec, const uint8_t priv[32])
{
	struct writer w = writer_init(der, cap);
	uint8_t pub[HS_P256_PUB_LEN];
	size_t cert;
	int err;

	*len = 0;
	if (check_spec(spec))
		return HS_ERR_ARG;
	err = p256_public(pub, priv);
	if (err)
		return err;
	der_open(&w, 0x30, &cert);
	err = write_tbs(&w, spec, pub);
	if (err == 0)
		err = sign_tbs(&w, cert + 1, priv);
	if (err == 0)
		err = der_close(&w, cert);
	if (err)
		return err;
	*len = w.len;
	return 0;
}

int hs_p256_key_to_der(uint8_t *der, size_t cap, size_t *len, const uint8_t priv[32])
{
	static const uint8_t version1[] = { 0x01 };
	struct writer w = writer_init(der, cap);
	uint8_t pub[HS_P256_PUB_LEN];
	size_t seq, params, pubkey, bits;
	int err = p256_public(pub, priv);

	*len = 0;
	if (err)
		return err;
	/* ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING,
	 *     [0] parameters (namedCurve), [1] publicKey BIT STRING } (RFC 5915 3) */
	der_open(&w, 0x30, &seq);
	der_prim(&w, 0x02, version1, sizeof(version1));
	der_prim(&w, 0x04, priv, 32);
	der_open(&w, 0xa0, &params);
	der_prim(&w, 0x06, oid_p256, sizeof(oid_p256));
	(void)der_close(&w, params);
	der_open(&w, 0xa1, &pubkey);
	der_open(&w, 0x03, &bits);
	(void)write_u8(&w, 0);
	(void)write_bytes(&w, pub, sizeof(pub));
	(void)der_close(&w, bits);
	(void)der_close(&w, pubkey);
	err = der_close(&w, seq);
	if (err) {
		wipe(der, cap);
		return err;
	}
	*len = w.len;
	return 0;
}

/*
 * The base64 character for v in [0, 64): 'A'..'Z', 'a'..'z', '0'..'9', '+',
 * '/'. Constant time: start from 'A' + v and add each range's offset under
 * a mask (v >= 26, v >= 52, v == 62.., v == 63), so no table is indexed by v.
 */
static char b64_char(uint32_t v)
{
	uint32_t c = v + 'A';

	c += ~ct_lt_mask_u32(v, 26) & 6;           /* 'a' - 26 - 'A' */
	c -= ~ct_lt_mask_u32(v, 52) & 75;          /* back down to '0' */
	c -= ~ct_lt_mask_u32(v, 62) & 15;          /* '+' */
	c += ~ct_lt_mask_u32(v, 63) & 3;           /* '/' */
	return (char)c;
}

/* One group of up to 3 bytes as 4 characters ('=' pads; n is public). */
static void b64_group(struct writer *w, const uint8_t *p, size_t n)
{
	uint32_t acc = (uint32_t)p[0] << 16;
	char out[4];

	if (n > 1)
		acc |= (uint32_t)p[1] << 8;
	if (n > 2)
		acc |= p[2];
	for (int i = 0; i < 4; i++)
		out[i] = b64_char((acc >> (18 - 6 * i)) & 63);
	if (n < 3)
		out[3] = '=';
	if (n < 2)
		out[2] = '=';
	(void)write_bytes(w, out, 4);
	wipe(&acc, sizeof(acc));
	wipe(out, sizeof(out));
}

static void pem_line(struct writer *w, const char *a, const char *label)
{
	(void)write_bytes(w, a, strlen(a));
	(void)write_bytes(w, label, strlen(label));
	(void)write_bytes(w, "-----\n", 6);
}

int hs_pem_write(char *out, size_t cap, size_t *len, const char *label, const uint8_t *der,
		 size_t der_len)
{
	struct writer w = writer_init(out, cap);

	*len = 0;
	pem_line(&w, "-----BEGIN ", label);
	for (size_t off = 0; off < der_len; off += 3) {
		size_t n = der_len - off < 3 ? der_len - off : 3;
		b64_group(&w, der + off, n);
		if ((off / 3 + 1) % 16 == 0 || off + n == der_len) /* 64 characters a line */
			(void)write_u8(&w, '\n');
	}
	pem_line(&w, "-----END ", label);
	(void)write_u8(&w, 0);
	if (writer_error(&w)) {
		wipe(out, cap);
		return HS_ERR_NO_SPACE;
	}
	*len = w.len - 1;
	return 0;
}

/* The key's DER and PEM: both secret, both wiped by the caller. */
struct keybufs {
	uint8_t priv[32];
	uint8_t der[160];
	char pem[400];
};

int hs_cred_generate_p256(struct hs_cred **out, const struct hs_cert_spec *spec, char *cert_pem,
			  size_t cap, size_t *pem_len)
{
	struct keybufs k;
	uint8_t pub[HS_P256_PUB_LEN], cert[HS_X509_WRITE_DER_MAX];
	size_t cert_len = 0, der_len = 0, key_len = 0;
	int err;

	*out = NULL;
	*pem_len = 0;
	err = p256_keygen(k.priv, pub);
	if (err == 0)
		err = hs_x509_write_selfsigned_p256(cert, sizeof(cert), &cert_len, spec, k.priv);
	if (err == 0)
		err = hs_pem_write(cert_pem, cap, pem_len, "CERTIFICATE", cert, cert_len);
	if (err == 0)
		err = hs_p256_key_to_der(k.der, sizeof(k.der), &der_len, k.priv);
	if (err == 0)
		err = hs_pem_write(k.pem, sizeof(k.pem), &key_len, "EC PRIVATE KEY", k.der, der_len);
	if (err == 0)
		err = hs_cred_load_pem(out, cert_pem, *pem_len, k.pem, key_len);
	wipe(&k, sizeof(k));
	if (err)
		*pem_len = 0;
	return err;
}
