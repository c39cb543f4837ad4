/*
 * Names: the host name / IP address check against a leaf's
 * subjectAltName (RFC 6125 6.4, RFC 5280 4.2.1.6) and name constraints
 * (RFC 5280 4.2.1.10).
 *
 * Host names: ASCII, compared case-insensitively; one trailing dot is
 * ignored on both sides. A wildcard is accepted only as the whole
 * left-most label ("*.example.com"), matches exactly one non-empty label,
 * and needs at least two labels after it; "f*.example.com", "*.*.com",
 * "*.com" never match. The subject's common name is never used. An IP
 * literal is matched only against iPAddress entries, byte for byte.
 *
 * Name constraints handle dNSName (zero or more labels added on the left;
 * a base starting with "." allows only subdomains), iPAddress
 * (address/mask) and directoryName (RDN prefix, compared as DER bytes).
 * Other name forms are not understood: a certificate presenting one is
 * rejected when a constraint of that form exists (failing closed).
 *
 * Implementation notes: all inputs are public; views only, no copies.
 */
#define _POSIX_C_SOURCE 200809L

#include "libhs/x509_cert.h"

#include <arpa/inet.h>
#include <string.h>

#include "libhs/internal.h"

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
}

static int ci_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (lower(a[i]) != lower(b[i]))
			return 0;
	return 1;
}

int hs_x509_dns_match(const uint8_t *pat, size_t pn, const char *host)
{
	const uint8_t *h = (const uint8_t *)host, *dot;
	size_t hn = strlen(host), off;

	if (hn > 0 && h[hn - 1] == '.')
		hn--;
	if (pn > 0 && pat[pn - 1] == '.')
		pn--;
	if (pn == 0 || hn == 0 || memchr(h, '*', hn) != NULL)
		return 0;
	if (pn >= 2 && pat[0] == '*' && pat[1] == '.') {
		const uint8_t *rest = pat + 2;
		size_t rn = pn - 2;
		/* RFC 6125 6.4.3: the wildcard stands for the left-most label only */
		if (memchr(rest, '*', rn) != NULL || memchr(rest, '.', rn) == NULL)
			return 0;
		dot = memchr(h, '.', hn);
		if (dot == NULL || dot == h)
			return 0;
		off = (size_t)(dot - h) + 1;
		return hn - off == rn && ci_eq(rest, h + off, rn);
	}
	if (memchr(pat, '*', pn) != NULL)
		return 0; /* partial-label or non-left-most wildcard: never */
	return hn == pn && ci_eq(pat, h, pn);
}

int hs_x509_match_host(const struct x509_cert *leaf, const char *host)
{
	uint8_t ip[16];
	size_t ip_len = 0;
	struct hs_reader san = leaf->san, v;
	uint8_t tag;

	if (inet_pton(AF_INET, host, ip) == 1)
		ip_len = 4;
	else if (inet_pton(AF_INET6, host, ip) == 1)
		ip_len = 16;
	while (hs_reader_left(&san) > 0) {
		TRY(hs_x509_tlv(&san, &tag, &v));
		if (ip_len > 0 && tag == 0x87 && v.len == ip_len && memcmp(v.p, ip, ip_len) == 0)
			return 0;
		if (ip_len == 0 && tag == 0x82 && hs_x509_dns_match(v.p, v.len, host))
			return 0;
	}
	return HS_ERR_X509_HOSTNAME;
}

/* ---- name constraints ---- */

static int dns_in(struct hs_reader name, struct hs_reader base)
{
	size_t nn = name.len, bn = base.len;

	if (bn == 0)
		return 1;
	if (base.p[0] == '.')
		return nn > bn && ci_eq(name.p + nn - bn, base.p, bn);
	if (nn == bn)
		return ci_eq(name.p, base.p, bn);
	return nn > bn && name.p[nn - bn - 1] == '.' && ci_eq(name.p + nn - bn, base.p, bn);
}

static int ip_in(struct hs_reader ip, struct hs_reader base)
{
	if (base.len != 2 * ip.len)
		return 0;
	for (size_t i = 0; i < ip.len; i++)
		if ((ip.p[i] ^ base.p[i]) & base.p[ip.len + i])
			return 0;
	return 1;
}

/* name, base: Name TLVs. The base's RDNs must start the name's. */
static int dn_in(struct hs_reader name, struct hs_reader base)
{
	struct hs_reader n, b;

	if (hs_der_read(&name, DER_SEQUENCE, &n) != 0 || hs_der_read(&base, DER_SEQUENCE, &b) != 0)
		return 0;
	/* both are sequences of whole TLVs, so a byte prefix ends on an RDN */
	return b.len <= n.len && memcmp(n.p, b.p, b.len) == 0;
}

/*
 * Look for name (a GeneralName of type tag) in subtrees: *has_type says
 * whether any subtree has that type, the result whether one contains it.
 * Forms we do not understand count as contained when excluded (so they
 * are refused) and as not contained when permitted (refused too).
 */
static int in_subtrees(struct hs_reader subtrees, uint8_t tag, struct hs_reader name,
		       int excluded, int *has_type)
{
	struct hs_reader st, base;
	uint8_t btag;
	int in;

	*has_type = 0;
	while (hs_reader_left(&subtrees) > 0) {
		if (hs_der_read(&subtrees, DER_SEQUENCE, &st) != 0 ||
		    hs_x509_tlv(&st, &btag, &base) != 0)
			return excluded;
		if (btag != tag)
			continue;
		*has_type = 1;
		if (tag == 0x82)
			in = dns_in(name, base);
		else if (tag == 0x87)
			in = ip_in(name, base);
		else if (tag == 0xa4)
			in = dn_in(name, base);
		else
			in = excluded;
		if (in)
			return 1;
	}
	return 0;
}

static int check_one(const struct x509_cert *ca, uint8_t tag, struct hs_reader name)
{
	int has;

	if (hs_reader_left(&ca->nc_permitted) > 0 &&
	    !in_subtrees(ca->nc_permitted, tag, name, 0, &has) && has)
		return HS_ERR_X509_NAME_CONSTRAINT;
	if (hs_reader_left(&ca->nc_excluded) > 0 && in_subtrees(ca->nc_excluded, tag, name, 1, &has))
		return HS_ERR_X509_NAME_CONSTRAINT;
	return 0;
}

int hs_x509_check_nc(const struct x509_cert *ca, const struct x509_cert *c)
{
	struct hs_reader san = c->san, v, subj = c->subject, inner;
	uint8_t tag;

	if (!(ca->has & X509_HAS_NC))
		return 0;
	/* an empty subject is not checked against directoryName constraints */
	if (hs_der_read(&subj, DER_SEQUENCE, &inner) == 0 && hs_reader_left(&inner) > 0)
		TRY(check_one(ca, 0xa4, c->subject));
	while (hs_reader_left(&san) > 0) {
		TRY(hs_x509_tlv(&san, &tag, &v));
		TRY(check_one(ca, tag, v));
	}
	return 0;
}
