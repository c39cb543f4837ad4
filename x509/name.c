/*
 * Names: the one host name / IP address matcher against a leaf's
 * subjectAltName (RFC 9525, which obsoletes RFC 6125; RFC 5280 4.2.1.6),
 * used by pinned mode and path validation alike, and name constraints
 * (RFC 5280 4.2.1.10).
 *
 * Host names, the rules in one place:
 *   - the reference name (what the caller asked for) may end in one dot, a
 *     fully qualified name; it is dropped here and nowhere else. What is
 *     left must be labels of letters, digits, '-' and '_' (an IDN as its
 *     A-labels, "xn--..."), and its last label not all digits (that is a
 *     malformed IPv4 address, never a host name);
 *   - a presented dNSName is in the preferred name syntax: no empty label,
 *     no trailing dot (ext.c refuses a certificate with one; here such a
 *     name would never match);
 *   - ASCII letters compare case-insensitively, everything else exactly;
 *   - a wildcard only as the whole left-most label ("*.example.com"),
 *     standing for exactly one non-empty label, with at least two labels
 *     after it: "f*.example.com", "*.*.example.com", "*.com" never match;
 *   - the subject's common name is never used;
 *   - an IPv4 or IPv6 literal (inet_pton's forms: dotted quad, full or
 *     compressed IPv6, IPv4-mapped) is matched only against iPAddress
 *     entries of its own length (4 or 16), byte for byte, never against a
 *     dNSName; "::ffff:192.0.2.1" does not match the 4-byte 192.0.2.1.
 *
 * Name constraints handle dNSName (zero or more labels added on the left;
 * a base starting with "." allows only subdomains), iPAddress
 * (address/mask) and directoryName (RDN prefix, compared as DER bytes).
 * A wildcard dNSName is checked against excluded subtrees as every name it
 * could match: "*.example.com" is excluded by "secret.example.com". Other
 * name forms are not understood: a certificate presenting one is rejected
 * when a constraint of that form exists (failing closed).
 *
 * Implementation notes: all inputs are public; views only, no copies.
 */
#define _POSIX_C_SOURCE 200809L

#include "x509/x509.h"

#include <arpa/inet.h>
#include <string.h>

#define DNS_NAME_MAX 253
#define DNS_LABEL_MAX 63

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

int x509_dns_name_ok(const uint8_t *p, size_t n)
{
	size_t label = 0;

	if (n == 0 || n > DNS_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] <= 0x20 || p[i] >= 0x7f)
			return 0;
		if (p[i] != '.')
			label++;
		else if (label == 0)
			return 0;
		else
			label = 0;
		if (label > DNS_LABEL_MAX)
			return 0;
	}
	return label > 0;
}

static int ldh(uint8_t ch)
{
	return (lower(ch) >= 'a' && lower(ch) <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
	       ch == '_';
}

/* The reference name as a reader (one trailing dot dropped); len 0 if it can match nothing. */
static struct reader reference_name(const char *host)
{
	struct reader none = reader_init(NULL, 0), ref = reader_init(host, strlen(host));
	int digits_only = 1;

	if (ref.len > 0 && ref.p[ref.len - 1] == '.')
		ref.len--;
	if (!x509_dns_name_ok(ref.p, ref.len))
		return none;
	for (size_t i = 0; i < ref.len; i++) {
		if (ref.p[i] == '.')
			digits_only = 1;
		else if (!ldh(ref.p[i]))
			return none;
		else if (ref.p[i] < '0' || ref.p[i] > '9')
			digits_only = 0;
	}
	return digits_only ? none : ref;
}

static size_t count_labels(struct reader name)
{
	size_t n = 1;

	for (size_t i = 0; i < name.len; i++)
		n += name.p[i] == '.';
	return n;
}

/* One presented dNSName (pat) against a valid reference name (ref). */
static int dns_match(struct reader pat, struct reader ref)
{
	const uint8_t *dot;

	if (!x509_dns_name_ok(pat.p, pat.len))
		return 0;
	if (pat.len >= 2 && pat.p[0] == '*' && pat.p[1] == '.') {
		/* the wildcard label stands for ref's first label, never empty */
		if (read_skip(&pat, 2) != 0 || count_labels(pat) < 2)
			return 0;
		dot = memchr(ref.p, '.', ref.len);
		if (dot == NULL || read_skip(&ref, (size_t)(dot - ref.p) + 1) != 0)
			return 0;
	}
	if (memchr(pat.p, '*', pat.len) != NULL)
		return 0; /* partial-label, lone or non-left-most wildcard: never */
	return pat.len == ref.len && ci_eq(pat.p, ref.p, pat.len);
}

int x509_match_host(const struct x509_cert *leaf, const char *host)
{
	uint8_t ip[16];
	size_t ip_len = 0;
	struct reader san = leaf->san, v, ref = reader_init(NULL, 0);
	uint8_t tag;

	if (inet_pton(AF_INET, host, ip) == 1)
		ip_len = 4;
	else if (inet_pton(AF_INET6, host, ip) == 1)
		ip_len = 16;
	else
		ref = reference_name(host);
	if (ip_len == 0 && ref.len == 0)
		return HS_ERR_X509_HOSTNAME;
	while (reader_left(&san) > 0) {
		TRY(der_read_any(&san, &tag, &v));
		if (ip_len > 0 && tag == GN_IP && v.len == ip_len && memcmp(v.p, ip, ip_len) == 0)
			return 0;
		if (ip_len == 0 && tag == GN_DNS && dns_match(v, ref))
			return 0;
	}
	return HS_ERR_X509_HOSTNAME;
}

/* ---- name constraints ---- */

static int dns_in(struct reader name, struct reader base)
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

/*
 * Could the wildcard name "*.R" match base itself? Then it matches names
 * inside base's subtree, though as a string it is not in it: base = L.R
 * for one label L ("secret.example.com" for "*.example.com"). Deeper
 * bases hold only names of two or more labels over R, which one wildcard
 * label cannot reach; a base starting with "." is a literal suffix, which
 * dns_in already compares.
 */
static int wildcard_reaches(struct reader name, struct reader base)
{
	const uint8_t *dot;

	if (name.len < 2 || name.p[0] != '*' || name.p[1] != '.' || read_skip(&name, 2) != 0)
		return 0;
	dot = base.len > 0 && base.p[0] != '.' ? memchr(base.p, '.', base.len) : NULL;
	if (dot == NULL || read_skip(&base, (size_t)(dot - base.p) + 1) != 0)
		return 0;
	return base.len == name.len && ci_eq(base.p, name.p, name.len);
}

static int ip_in(struct reader ip, struct reader base)
{
	if (base.len != 2 * ip.len)
		return 0;
	for (size_t i = 0; i < ip.len; i++)
		if ((ip.p[i] ^ base.p[i]) & base.p[ip.len + i])
			return 0;
	return 1;
}

/* name, base: Name TLVs. The base's RDNs must start the name's. */
static int dn_in(struct reader name, struct reader base)
{
	struct reader n, b;

	if (der_read(&name, DER_SEQUENCE, &n) != 0 || der_read(&base, DER_SEQUENCE, &b) != 0)
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
static int in_subtrees(struct reader subtrees, uint8_t tag, struct reader name,
		       int excluded, int *has_type)
{
	struct reader st, base;
	uint8_t btag;
	int in;

	*has_type = 0;
	while (reader_left(&subtrees) > 0) {
		if (der_read(&subtrees, DER_SEQUENCE, &st) != 0 ||
		    der_read_any(&st, &btag, &base) != 0)
			return excluded;
		if (btag != tag)
			continue;
		*has_type = 1;
		if (tag == GN_DNS) /* excluded: a wildcard as all it can match */
			in = dns_in(name, base) || (excluded && wildcard_reaches(name, base));
		else if (tag == GN_IP)
			in = ip_in(name, base);
		else if (tag == GN_DIRECTORY)
			in = dn_in(name, base);
		else
			in = excluded;
		if (in)
			return 1;
	}
	return 0;
}

static int check_one(const struct x509_cert *ca, uint8_t tag, struct reader name)
{
	int has;

	if (reader_left(&ca->nc_permitted) > 0 &&
	    !in_subtrees(ca->nc_permitted, tag, name, 0, &has) && has)
		return HS_ERR_X509_NAME_CONSTRAINT;
	if (reader_left(&ca->nc_excluded) > 0 && in_subtrees(ca->nc_excluded, tag, name, 1, &has))
		return HS_ERR_X509_NAME_CONSTRAINT;
	return 0;
}

int x509_check_nc(const struct x509_cert *ca, const struct x509_cert *c)
{
	struct reader san = c->san, v, subj = c->subject, inner;
	uint8_t tag;

	if (!(ca->has & X509_HAS_NC))
		return 0;
	/* an empty subject is not checked against directoryName constraints */
	if (der_read(&subj, DER_SEQUENCE, &inner) == 0 && reader_left(&inner) > 0)
		TRY(check_one(ca, GN_DIRECTORY, c->subject));
	while (reader_left(&san) > 0) {
		TRY(der_read_any(&san, &tag, &v));
		TRY(check_one(ca, tag, v));
	}
	return 0;
}
