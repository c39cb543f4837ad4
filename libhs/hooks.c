/*
 * The application's view into a connection: its callbacks (key log, ALPN
 * choice, certificate verification, include/hs/tls.h) and the error
 * detail string (hs_conn_error_detail).
 *
 * Implementation notes: the callbacks are called from inside the state
 * machines (client.c, server.c, msg.c), each at one place, and never
 * allocate. A key log line holds a traffic secret: it lives on the stack
 * and is wiped after the callback returns. The detail is a fixed buffer in
 * the connection, written once per failure (the first writer wins, like
 * the sticky error).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/wipe.h"
#include "libhs/internal.h"

/* ---- key log (NSS key log format) ---- */

static void keylog_line(const struct hs_conn *c, const char *label, const uint8_t *random,
			const uint8_t *secret)
{
	static const char hex[] = "0123456789abcdef";
	/* longest label (31) + space + 64 + space + 2 * 48 + NUL */
	char line[32 + 1 + 64 + 1 + 2 * HASH_MAX + 1];
	size_t n = strlen(label);

	memcpy(line, label, n);
	line[n++] = ' ';
	for (size_t i = 0; i < 32; i++) {
		line[n++] = hex[random[i] >> 4];
		line[n++] = hex[random[i] & 15];
	}
	line[n++] = ' ';
	for (size_t i = 0; i < c->ks.len; i++) {
		line[n++] = hex[secret[i] >> 4];
		line[n++] = hex[secret[i] & 15];
	}
	line[n] = 0;
	c->cfg->keylog(c->cfg->keylog_arg, line);
	wipe(line, sizeof(line));
}

void keylog_note(const struct hs_conn *c, int master)
{
	const uint8_t *cr = c->role == HS_ROLE_CLIENT ? c->random : c->client_random;

	if (c->cfg->keylog == NULL)
		return;
	if (master == 2) {
		keylog_line(c, "CLIENT_EARLY_TRAFFIC_SECRET", cr, c->ks.c_e);
		return;
	}
	if (!master) {
		keylog_line(c, "CLIENT_HANDSHAKE_TRAFFIC_SECRET", cr, c->ks.c_hs);
		keylog_line(c, "SERVER_HANDSHAKE_TRAFFIC_SECRET", cr, c->ks.s_hs);
		return;
	}
	keylog_line(c, "CLIENT_TRAFFIC_SECRET_0", cr, c->ks.c_ap);
	keylog_line(c, "SERVER_TRAFFIC_SECRET_0", cr, c->ks.s_ap);
}

/* ---- server: ALPN chosen by the application ---- */

int alpn_select_run(struct hs_conn *c, struct reader body)
{
	char names[HS_ALPN_OFFER_MAX][256];
	const char *offered[HS_ALPN_OFFER_MAX];
	struct reader list, name;
	size_t n = 0;
	int pick;

	/* RFC 7301 3.1: ProtocolName protocol_name_list<2..2^16-1>, each <1..2^8-1> */
	TRY(read_vec(&body, 2, 2, 0xffff, &list));
	TRY(read_end(&body));
	while (reader_left(&list) > 0) {
		TRY(read_vec(&list, 1, 1, 255, &name));
		if (n == HS_ALPN_OFFER_MAX || memchr(name.p, 0, name.len) != NULL)
			continue;
		memcpy(names[n], name.p, name.len);
		names[n][name.len] = 0;
		offered[n] = names[n];
		n++;
	}
	pick = c->cfg->alpn_select(c->cfg->alpn_arg, offered, n);
	if (pick == -1)
		return 0;
	if (pick < 0 || (size_t)pick >= n) {
		conn_detail(c, "the application's alpn_select callback refused all %zu protocol(s)"
			    " the client offered", n);
		return HS_ERR_TLS_NO_ALPN;
	}
	memcpy(c->alpn, names[pick], strlen(names[pick]) + 1);
	return 0;
}

/* ---- certificate verification by the application ---- */

int verify_hook(struct hs_conn *c, int result, const uint8_t *const *der, const size_t *len,
		size_t n)
{
	const char *who = c->role == HS_ROLE_CLIENT ? "server" : "client";
	int r;

	if (c->cfg->verify_cert == NULL) {
		if (result != 0)
			conn_detail(c, "the %s's certificate chain (%zu certificate(s)) failed"
				    " validation: %s", who, n, hs_strerror(result));
		return result;
	}
	r = c->cfg->verify_cert(c->cfg->verify_arg, der, len, n, result);
	if (r == 0)
		return 0;
	if (r > 0 || strcmp(hs_strerror(r), "unknown error") == 0) /* not an hs_err */
		r = HS_ERR_TLS_CERT_UNTRUSTED;
	conn_detail(c, "the application's verify_cert callback refused the %s's certificate"
		    " chain: %s (built-in validation: %s)", who, hs_strerror(r),
		    hs_strerror(result));
	return r;
}

/* ---- error detail ---- */

void conn_detail(struct hs_conn *c, const char *fmt, ...)
{
	va_list ap;

	if (c->detail[0] != 0)
		return; /* the first failure explains the rest */
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

const char *hs_conn_error_detail(const struct hs_conn *c)
{
	if (c->err == 0)
		return NULL;
	return c->detail[0] != 0 ? c->detail : hs_strerror(c->err);
}
