/*
 * The extensions codec (RFC 8446 4.2): one parser for an extensions block
 * and small readers/writers for each extension hs understands.
 *
 * Implementation notes: ext_parse() takes any number of extensions and
 * keeps those of types below EXT_TRACKED in a table indexed by type; a
 * second occurrence of such a type is HS_ERR_TLS_DUP_EXT (4.2: "There MUST
 * NOT be more than one extension of the same type in a given extension
 * block"). Other types (unknown, GREASE) are only counted, which is how
 * they are ignored; like OpenSSL and BoringSSL we do not look for their
 * duplicates. List readers
 * skip values they do not know (GREASE groups, schemes, versions).
 */
#include "libhs/internal.h"

#include <string.h>

int ext_parse(struct reader *r, struct ext_list *l)
{
	struct reader block;

	l->present = 0;
	l->n = l->n_other = 0;
	TRY(read_vec(r, 2, 0, 0xffff, &block));
	while (reader_left(&block) > 0) {
		uint16_t type;
		struct reader body;

		TRY(read_u16(&block, &type));
		TRY(read_vec(&block, 2, 0, 0xffff, &body));
		l->n++;
		l->last = type;
		if (type >= EXT_TRACKED) {
			l->n_other++;
			continue;
		}
		ENSURE(!(l->present >> type & 1), HS_ERR_TLS_DUP_EXT);
		l->present |= (uint64_t)1 << type;
		l->e[type].type = type;
		l->e[type].body = body;
	}
	return 0;
}

const struct ext *ext_find(const struct ext_list *l, uint16_t type)
{
	if (type >= EXT_TRACKED || !(l->present >> type & 1))
		return NULL;
	return &l->e[type];
}

int ext_u16_view(struct reader body, struct reader *list)
{
	TRY(read_vec(&body, 2, 2, 0xfffe, list));
	TRY(read_end(&body));
	ENSURE(reader_left(list) % 2 == 0, HS_ERR_TLS_DECODE);
	return 0;
}

int u16_view_has(struct reader list, uint16_t v)
{
	uint16_t x;

	while (read_u16(&list, &x) == 0)
		if (x == v)
			return 1;
	return 0;
}

/* supported_groups, signature_algorithms(_cert): u16 list <2..2^16-2>,
 * GREASE left out; more than max others is HS_ERR_NO_SPACE, never a cut
 * (the engine scans lists in place: ext_u16_view) */
int ext_u16_list(struct reader body, uint16_t *out, size_t max, size_t *n)
{
	struct reader list;

	*n = 0;
	TRY(read_vec(&body, 2, 2, 0xfffe, &list));
	TRY(read_end(&body));
	ENSURE(reader_left(&list) % 2 == 0, HS_ERR_TLS_DECODE);
	while (reader_left(&list) > 0) {
		uint16_t v;
		TRY(read_u16(&list, &v));
		if (is_grease(v))
			continue;
		ENSURE(*n < max, HS_ERR_NO_SPACE);
		out[(*n)++] = v;
	}
	return 0;
}

/* ClientHello supported_versions: u16 list <2..254> */
int ext_versions_has13(struct reader body, int *has)
{
	struct reader list;

	*has = 0;
	TRY(read_vec(&body, 1, 2, 254, &list));
	TRY(read_end(&body));
	ENSURE(reader_left(&list) % 2 == 0, HS_ERR_TLS_DECODE);
	while (reader_left(&list) > 0) {
		uint16_t v;
		TRY(read_u16(&list, &v));
		if (v == TLS13_VERSION)
			*has = 1;
	}
	return 0;
}

static int is_ldh(uint8_t ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '-';
}

/*
 * RFC 6066 3: "HostName" contains the fully qualified DNS hostname of the
 * server, "represented as a byte string using ASCII encoding without a
 * trailing dot", and "Literal IPv4 and IPv6 addresses are not permitted in
 * "HostName"". The syntax checked is RFC 1123 2.1 / RFC 5890 2.3.1 (LDH
 * labels; IDNs travel as A-labels, "xn--...", which are LDH): labels of 1
 * to 63 letters, digits and hyphens, neither starting nor ending with a
 * hyphen, separated by single dots, at most HOST_NAME_MAX_LEN bytes in
 * all, and a last label that is not all digits (an IPv4 literal such as
 * 192.0.2.1 or 127.1 is caught here; no top-level domain is numeric,
 * RFC 3696 2). IPv6 literals fail on ':' (and '[').
 * Anything else (NUL, controls, ESC, CR/LF, '_', spaces, UTF-8) is refused.
 */
int sni_check(const uint8_t *p, size_t n)
{
	size_t label = 0;
	int numeric = 1;

	ENSURE(n >= 1 && n <= HOST_NAME_MAX_LEN, HS_ERR_TLS_ILLEGAL_PARAM);
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '.') {
			/* empty label: leading dot, "..", or the trailing dot */
			ENSURE(label > 0 && p[i - 1] != '-', HS_ERR_TLS_ILLEGAL_PARAM);
			label = 0;
			numeric = 1;
			continue;
		}
		ENSURE(is_ldh(p[i]), HS_ERR_TLS_ILLEGAL_PARAM);
		ENSURE(label > 0 || p[i] != '-', HS_ERR_TLS_ILLEGAL_PARAM);
		ENSURE(++label <= 63, HS_ERR_TLS_ILLEGAL_PARAM);
		if (p[i] < '0' || p[i] > '9')
			numeric = 0;
	}
	ENSURE(label > 0 && p[n - 1] != '-', HS_ERR_TLS_ILLEGAL_PARAM);
	ENSURE(!numeric, HS_ERR_TLS_ILLEGAL_PARAM);
	return 0;
}

/* The shape of an IPv6 literal: hex digits, ':' (at least two) and '.'
 * (an embedded IPv4 tail). A host name never holds a ':'. */
static int is_ipv6_shape(const char *s)
{
	int colons = 0;

	for (; *s; s++) {
		if (*s == ':')
			colons++;
		else if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
			   (*s >= 'A' && *s <= 'F') || *s == '.'))
			return 0;
	}
	return colons >= 2;
}

/* IPv4 dotted quad (four decimal parts, 0..255) or an IPv6 literal. */
int sni_is_ip_literal(const char *s)
{
	int parts = 0, digits = 0;
	unsigned v = 0;

	if (strchr(s, ':') != NULL)
		return is_ipv6_shape(s);
	for (;; s++) {
		if (*s >= '0' && *s <= '9' && digits < 3) {
			v = v * 10 + (unsigned)(*s - '0');
			digits++;
		} else if ((*s == '.' || *s == 0) && digits > 0 && v <= 255) {
			parts++;
			if (*s == 0)
				return parts == 4;
			digits = 0;
			v = 0;
		} else {
			return 0;
		}
	}
}

/*
 * client: server_name is either a host name we send as SNI or an IP
 * literal we send no SNI for (RFC 6066 3; client.c skips it). Anything
 * else (a trailing dot, controls, a bad label) is a configuration error:
 * we would send what a conforming server must refuse.
 */
int sni_config_check(const char *name)
{
	if (sni_is_ip_literal(name))
		return 0;
	ENSURE(sni_check((const uint8_t *)name, strlen(name)) == 0, HS_ERR_ARG);
	return 0;
}

/*
 * RFC 6066 3: ServerNameList; we take the (only) host_name entry. A list
 * or name whose lengths do not add up is decode_error (the reader's
 * errors); a well-encoded host_name that is not a host name (see
 * sni_check), or a second host_name, is illegal_parameter. We never
 * send unrecognized_name: a name we hold no credential for is served with
 * the default credential (RFC 6066 3 allows continuing the handshake).
 */
int ext_sni(struct reader body, char *name, size_t cap)
{
	struct reader list, host;
	const uint8_t *p = NULL;
	size_t n = 0;

	name[0] = 0;
	TRY(read_vec(&body, 2, 1, 0xffff, &list));
	TRY(read_end(&body));
	while (reader_left(&list) > 0) {
		uint8_t type;
		TRY(read_u8(&list, &type));
		TRY(read_vec(&list, 2, 1, 0xffff, &host));
		if (type != 0)
			continue;
		/* "The ServerNameList MUST NOT contain more than one name of the
		 * same name_type" */
		ENSURE(p == NULL, HS_ERR_TLS_ILLEGAL_PARAM);
		n = reader_left(&host);
		TRY(read_view(&host, n, &p));
		TRY(sni_check(p, n));
	}
	/* the name is kept only once the whole list checked out */
	if (p != NULL) {
		ENSURE(n < cap, HS_ERR_TLS_ILLEGAL_PARAM);
		memcpy(name, p, n);
		name[n] = 0;
	}
	return 0;
}

/* RFC 7301: server picks its most preferred protocol the client offers */
int ext_alpn_pick(struct reader body, const char *const *ours, size_t n_ours,
		     const char **pick)
{
	struct reader list;

	*pick = NULL;
	TRY(read_vec(&body, 2, 2, 0xffff, &list));
	TRY(read_end(&body));
	for (size_t i = 0; i < n_ours && *pick == NULL; i++) {
		struct reader scan = list;
		size_t len = strlen(ours[i]);
		while (reader_left(&scan) > 0) {
			struct reader proto;
			TRY(read_vec(&scan, 1, 1, 255, &proto));
			if (reader_left(&proto) == len && memcmp(proto.p, ours[i], len) == 0)
				*pick = ours[i];
		}
	}
	/* validate the whole list even when we found a match early */
	while (reader_left(&list) > 0) {
		struct reader proto;
		TRY(read_vec(&list, 1, 1, 255, &proto));
	}
	return 0;
}

/* EncryptedExtensions ALPN: exactly one protocol */
int ext_alpn_one(struct reader body, const uint8_t **p, size_t *n)
{
	struct reader list, proto;

	TRY(read_vec(&body, 2, 2, 0xffff, &list));
	TRY(read_end(&body));
	TRY(read_vec(&list, 1, 1, 255, &proto));
	ENSURE(reader_left(&list) == 0, HS_ERR_TLS_ILLEGAL_PARAM);
	*n = reader_left(&proto);
	return read_view(&proto, *n, p);
}

static int read_share(struct reader *r, struct key_share *ks)
{
	struct reader pub;

	TRY(read_u16(r, &ks->group));
	TRY(read_vec(r, 2, 1, 0xffff, &pub));
	ks->len = reader_left(&pub);
	return read_view(&pub, ks->len, &ks->pub);
}

/* ClientHello key_share: KeyShareEntry client_shares<0..2^16-1>, every
 * entry's framing checked; *list views the entries */
int ext_key_share_view(struct reader body, struct reader *list)
{
	struct reader scan;
	struct key_share s;

	TRY(read_vec(&body, 2, 0, 0xffff, list));
	TRY(read_end(&body));
	for (scan = *list; reader_left(&scan) > 0;)
		TRY(read_share(&scan, &s));
	return 0;
}

int ext_key_share_next(struct reader *list, struct key_share *ks)
{
	return read_share(list, ks);
}

/* ServerHello key_share: one KeyShareEntry */
int ext_key_share_one(struct reader body, struct key_share *ks)
{
	TRY(read_share(&body, ks));
	return read_end(&body);
}

int ext_cookie(struct reader body, const uint8_t **p, size_t *n)
{
	struct reader c;

	TRY(read_vec(&body, 2, 1, 0xffff, &c));
	TRY(read_end(&body));
	*n = reader_left(&c);
	return read_view(&c, *n, p);
}

/* ---- writers ---- */

static int ext_open(struct writer *w, uint16_t type, struct writer_vec *v)
{
	write_u16(w, type);
	return write_vec_open(w, 2, v);
}

int ext_w_u16_list(struct writer *w, uint16_t type, unsigned len_bytes, const uint16_t *v,
		      size_t n)
{
	struct writer_vec e, l;

	ext_open(w, type, &e);
	write_vec_open(w, len_bytes, &l);
	for (size_t i = 0; i < n; i++)
		write_u16(w, v[i]);
	write_vec_close(w, &l);
	return write_vec_close(w, &e);
}

int ext_w_sni(struct writer *w, const char *name)
{
	struct writer_vec e, l, h;

	ext_open(w, EXT_SERVER_NAME, &e);
	write_vec_open(w, 2, &l);
	write_u8(w, 0); /* host_name */
	write_vec_open(w, 2, &h);
	write_bytes(w, name, strlen(name));
	write_vec_close(w, &h);
	write_vec_close(w, &l);
	return write_vec_close(w, &e);
}

int ext_w_alpn(struct writer *w, const char *const *alpn, size_t n)
{
	struct writer_vec e, l, p;

	ext_open(w, EXT_ALPN, &e);
	write_vec_open(w, 2, &l);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(alpn[i]);
		if (len == 0 || len > 255)
			return w->err = HS_ERR_ARG;
		write_vec_open(w, 1, &p);
		write_bytes(w, alpn[i], len);
		write_vec_close(w, &p);
	}
	write_vec_close(w, &l);
	return write_vec_close(w, &e);
}

int ext_w_key_share(struct writer *w, uint16_t group, const uint8_t *pub, size_t len,
		       int client)
{
	struct writer_vec e, l, k;

	ext_open(w, EXT_KEY_SHARE, &e);
	if (client)
		write_vec_open(w, 2, &l);
	write_u16(w, group);
	if (pub != NULL) {
		write_vec_open(w, 2, &k);
		write_bytes(w, pub, len);
		write_vec_close(w, &k);
	}
	if (client)
		write_vec_close(w, &l);
	return write_vec_close(w, &e);
}

int ext_w_opaque(struct writer *w, uint16_t type, unsigned len_bytes, const uint8_t *p,
		    size_t n)
{
	struct writer_vec e, v;

	ext_open(w, type, &e);
	if (len_bytes > 0)
		write_vec_open(w, len_bytes, &v);
	write_bytes(w, p, n);
	if (len_bytes > 0)
		write_vec_close(w, &v);
	return write_vec_close(w, &e);
}
