/*
 * libFuzzer target: the engine, as server or as client, fed arbitrary
 * bytes as its peer's byte stream (records, handshake messages, alerts,
 * CCS, in any order and split anywhere).
 *
 * Input: byte 0 chooses the configuration, the rest is what the peer
 * sends. Byte 0: bit 0 role (0 server, 1 client); bits 1-2 how the bytes
 * are fed (at once, 1, 5 or 300 bytes at a time); bit 3 server:
 * hrr_cookie, client: no_compat; bit 4 server: require a client
 * certificate, client: keep tickets; bits 5-6 server credential (P-256,
 * RSA-2048, Ed25519, all three), client server_name (localhost, none,
 * 127.0.0.1, other.test); bit 7 ALPN configured. A client sends its
 * ClientHello first (deterministic: see fuzz_util.h), so a captured
 * ServerHello replays. What cannot come from arbitrary bytes (records
 * under keys the fuzzer does not know) is fuzz_pair.c's job.
 *
 * Crashes, sanitizer reports and leaks fail; any error the engine
 * returns is a fine outcome (HS_FUZZ_VERBOSE=1 prints it). Seeds: tests/fuzz/corpus/tls/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t chunks[4] = { 0, 1, 5, 300 };

static void configure(struct hs_config *cfg, uint8_t b, const struct fuzz_creds *fc)
{
	static const char *const alpn[] = { "h2", "http/1.1" };
	static const char *const names[] = { "localhost", NULL, "127.0.0.1", "other.test" };
	unsigned sel = (b >> 5) & 3;

	cfg->role = (b & 1) ? HS_ROLE_CLIENT : HS_ROLE_SERVER;
	if (b & 0x80) {
		cfg->alpn = alpn;
		cfg->n_alpn = 2;
	}
	if (cfg->role == HS_ROLE_SERVER) {
		cfg->hrr_cookie = (b >> 3) & 1;
		if (b & 0x10) {
			cfg->verify_client = HS_VERIFY_REQUIRE;
			cfg->client_trust = fc->client_ca;
			cfg->send_ca_names = 1;
		}
		if (sel == 3) {
			cfg->creds = fc->all;
			cfg->n_creds = 3;
		} else {
			cfg->cred = sel == 0 ? fc->ec : sel == 1 ? fc->rsa : fc->ed;
		}
		return;
	}
	cfg->no_compat = (b >> 3) & 1;
	cfg->keep_tickets = (b >> 4) & 1;
	cfg->server_name = names[sel];
	cfg->anchor_der = fc->ec_der;
	cfg->anchor_len = fc->ec_der_len;
	cfg->cred = fc->client_ec;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fuzz_creds *fc = fuzz_creds();
	struct hs_config cfg = { 0 };
	struct hs_conn *c;
	size_t chunk;

	if (size < 1)
		return 0;
	fuzz_rand_reset(0);
	configure(&cfg, data[0], fc);
	chunk = chunks[(data[0] >> 1) & 3];
	if (hs_conn_new(&c, &cfg) != 0)
		return 0;
	fuzz_drain(c); /* a client's ClientHello */
	(void)!fuzz_feed_bytes(c, data + 1, size - 1, chunk);
	fuzz_drain(c);
	if (hs_conn_handshake_done(c))
		fuzz_poke(c, 1, 1);
	if (getenv("HS_FUZZ_VERBOSE") != NULL)
		fprintf(stderr, "tls: role %d done %d error %d alert sent %d\n", (int)cfg.role,
			hs_conn_handshake_done(c), hs_conn_error(c), hs_conn_alert(c, 0));
	hs_conn_free(c);
	return 0;
}
