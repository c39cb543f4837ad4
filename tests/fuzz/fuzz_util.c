/* Shared pieces of the engine fuzz targets (see fuzz_util.h). */
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtls_certs.h"
#include "rsa_certs.h"
#include "tls_certs.h"

/* ---- deterministic randomness: splitmix64 over a counter ---- */

static uint64_t rand_state;

void fuzz_rand_reset(uint32_t seed)
{
	rand_state = 0x9e3779b97f4a7c15u * (seed + 1u);
}

static uint64_t next64(void)
{
	uint64_t z = (rand_state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

int __wrap_rand_bytes(void *buf, size_t len);
int __wrap_rand_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = next64();
		for (size_t j = 0; j < 8 && i + j < len; j++)
			p[i + j] = (uint8_t)(v >> (8 * j));
	}
	return 0;
}

/* ---- credentials ---- */

static struct hs_cred *load(const char *cert, const char *key)
{
	struct hs_cred *c = NULL;

	if (hs_cred_load_pem(&c, cert, strlen(cert), key, strlen(key)) != 0) {
		fprintf(stderr, "fuzz: test credentials do not load\n");
		abort();
	}
	return c;
}

const struct fuzz_creds *fuzz_creds(void)
{
	static struct fuzz_creds fc;
	static int loaded;

	if (loaded)
		return &fc;
	fuzz_rand_reset(0);
	fc.ec = load(EC_CERT, EC_KEY_PKCS8);
	fc.rsa = load(RSA2048_CERT, RSA2048_KEY_PKCS8);
	fc.ed = load(ED_CERT, ED_KEY_PKCS8);
	fc.client_ec = load(MTLS_EC_CERT, MTLS_EC_KEY);
	fc.all[0] = fc.rsa;
	fc.all[1] = fc.ec;
	fc.all[2] = fc.ed;
	if (hs_x509_store_new(&fc.client_ca) != 0 ||
	    hs_x509_store_add_pem(fc.client_ca, MTLS_CA, strlen(MTLS_CA), NULL) != 0 ||
	    hs_pem_cert_to_der(EC_CERT, strlen(EC_CERT), fc.ec_der, sizeof(fc.ec_der),
			       &fc.ec_der_len) != 0) {
		fprintf(stderr, "fuzz: test trust store does not load\n");
		abort();
	}
	loaded = 1;
	return &fc;
}

/* ---- pumps ---- */

void fuzz_take(struct hs_conn *c, struct fuzz_wire *w)
{
	size_t n;

	while (hs_conn_output_pending(c) > 0 && w->len < FUZZ_WIRE_CAP) {
		if (hs_conn_pull(c, w->buf + w->len, FUZZ_WIRE_CAP - w->len, &n) != 0 || n == 0)
			break;
		w->len += n;
	}
}

void fuzz_drain(struct hs_conn *c)
{
	static uint8_t sink[4096];
	size_t n;

	for (int i = 0; i < 1000 && hs_conn_output_pending(c) > 0; i++)
		if (hs_conn_pull(c, sink, sizeof(sink), &n) != 0 || n == 0)
			break;
}

int fuzz_feed(struct hs_conn *c, struct fuzz_wire *w, size_t chunk)
{
	static uint8_t app[16384];
	size_t off = 0, used, got;
	int err = 0;

	/* bounded: every turn takes bytes or reads application data */
	for (int turns = 0; off < w->len && turns < 200000; turns++) {
		size_t n = w->len - off;
		if (chunk != 0 && n > chunk)
			n = chunk;
		err = hs_conn_feed(c, w->buf + off, n, &used);
		off += used;
		if (err)
			break;
		if (used < n) {
			/* held back by unread application data, or done */
			if (hs_conn_read(c, app, sizeof(app), &got) != 0 || got == 0)
				if (used == 0)
					break;
		}
	}
	while (err == 0 && hs_conn_read(c, app, sizeof(app), &got) == 0 && got > 0)
		;
	memmove(w->buf, w->buf + off, w->len - off);
	w->len -= off;
	return err;
}

int fuzz_feed_bytes(struct hs_conn *c, const uint8_t *p, size_t n, size_t chunk)
{
	static struct fuzz_wire w;

	if (n > FUZZ_WIRE_CAP)
		n = FUZZ_WIRE_CAP;
	memcpy(w.buf, p, n);
	w.len = n;
	return fuzz_feed(c, &w, chunk);
}

void fuzz_poke(struct hs_conn *c, int key_update, int close)
{
	static const uint8_t msg[] = "GET / HTTP/1.0\r\n\r\n";
	size_t n;

	(void)!hs_conn_write(c, msg, sizeof(msg) - 1, &n);
	if (key_update)
		(void)!hs_conn_key_update(c, 1);
	if (close)
		(void)!hs_conn_close(c);
	while (hs_conn_next_event(c) != HS_EVENT_NONE)
		;
}
