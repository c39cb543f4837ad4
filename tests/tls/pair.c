/* In-memory client/server pumping for the TLS engine tests (see pair.h). */
#include "pair.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

void pair_init(struct pair *p, const char *cert_pem, const char *key_pem)
{
	memset(p, 0, sizeof(*p));
	assert_int_equal(hs_cred_load_pem(&p->cred, cert_pem, strlen(cert_pem), key_pem,
					  strlen(key_pem)),
			 0);
	assert_int_equal(hs_pem_cert_to_der(cert_pem, strlen(cert_pem), p->anchor,
					    sizeof(p->anchor), &p->anchor_len),
			 0);
	p->ccfg.role = HS_ROLE_CLIENT;
	p->ccfg.server_name = "localhost";
	p->ccfg.anchor_der = p->anchor;
	p->ccfg.anchor_len = p->anchor_len;
	p->scfg.role = HS_ROLE_SERVER;
	p->scfg.cred = p->cred;
	p->c2s.buf = malloc(WIRE_CAP);
	p->s2c.buf = malloc(WIRE_CAP);
	assert_non_null(p->c2s.buf);
	assert_non_null(p->s2c.buf);
}

void pair_start(struct pair *p)
{
	assert_int_equal(hs_conn_new(&p->c, &p->ccfg), 0);
	assert_int_equal(hs_conn_new(&p->s, &p->scfg), 0);
}

void pair_free(struct pair *p)
{
	hs_conn_free(p->c);
	hs_conn_free(p->s);
	hs_cred_free(p->cred);
	free(p->c2s.buf);
	free(p->s2c.buf);
}

void wire_take(struct hs_conn *from, struct wire *w)
{
	size_t n;

	while (hs_conn_output_pending(from) > 0) {
		assert_true(w->len < WIRE_CAP);
		int err = hs_conn_pull(from, w->buf + w->len, WIRE_CAP - w->len, &n);
		if (n == 0 || err)
			break;
		w->len += n;
	}
}

int wire_feed(struct wire *w, struct hs_conn *to, size_t chunk)
{
	size_t off = 0, used;
	int err = 0;

	while (off < w->len) {
		size_t n = w->len - off;
		if (chunk != 0 && n > chunk)
			n = chunk;
		err = hs_conn_feed(to, w->buf + off, n, &used);
		off += used;
		if (err || used < n)
			break; /* error, or the engine wants us to come back */
	}
	memmove(w->buf, w->buf + off, w->len - off);
	w->len -= off;
	return err;
}

static int note(int *slot, int err)
{
	if (err && *slot == 0)
		*slot = err;
	return err;
}

int pair_handshake(struct pair *p, size_t chunk)
{
	for (int round = 0; round < 64; round++) {
		size_t before = p->c2s.len + p->s2c.len;
		wire_take(p->c, &p->c2s);
		note(&p->serr, wire_feed(&p->c2s, p->s, chunk));
		wire_take(p->s, &p->s2c);
		note(&p->cerr, wire_feed(&p->s2c, p->c, chunk));
		wire_take(p->c, &p->c2s);
		if (p->cerr || p->serr) {
			/* deliver the alert the failing side queued */
			wire_take(p->c, &p->c2s);
			wire_take(p->s, &p->s2c);
			note(&p->serr, wire_feed(&p->c2s, p->s, 0));
			note(&p->cerr, wire_feed(&p->s2c, p->c, 0));
			return p->cerr ? p->cerr : p->serr;
		}
		if (hs_conn_handshake_done(p->c) && hs_conn_handshake_done(p->s) &&
		    p->c2s.len == 0 && p->s2c.len == 0)
			return 0;
		(void)before;
	}
	return -9999;
}

int pair_transfer(struct pair *p, int from_client, const uint8_t *data, size_t len, size_t chunk)
{
	struct hs_conn *a = from_client ? p->c : p->s, *b = from_client ? p->s : p->c;
	struct wire *w = from_client ? &p->c2s : &p->s2c;
	uint8_t *got = malloc(len + 1);
	size_t sent = 0, recvd = 0, n;
	int err = 0;

	assert_non_null(got);
	while (err == 0 && recvd < len) {
		if (sent < len) {
			err = hs_conn_write(a, data + sent, len - sent, &n);
			sent += n;
		}
		wire_take(a, w);
		for (int k = 0; err == 0 && k < 100000 && (w->len > 0 || recvd < sent); k++) {
			err = wire_feed(w, b, chunk);
			if (err == 0)
				err = hs_conn_read(b, got + recvd, len - recvd, &n);
			recvd += n;
			if (n == 0 && w->len == 0)
				break;
		}
		/* answers (KeyUpdate) go back the other way */
		wire_take(b, from_client ? &p->s2c : &p->c2s);
	}
	if (err == 0)
		err = memcmp(got, data, len) == 0 ? 0 : -1;
	free(got);
	return err;
}

size_t wire_record_len(const struct wire *w, size_t off)
{
	size_t n;

	if (w->len - off < 5)
		return 0;
	n = 5 + (((size_t)w->buf[off + 3] << 8) | w->buf[off + 4]);
	return w->len - off >= n ? n : 0;
}
