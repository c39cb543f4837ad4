/*
 * Proves the engine reproduces RFC 8448 section 3 ("Simple 1-RTT
 * Handshake") byte for byte, with the RFC's randoms and X25519 keys
 * injected through the test-only hooks:
 *
 * - key schedule: early, handshake and master secrets, all four traffic
 *   secrets and the traffic keys/IVs equal the RFC's;
 * - client side: the RFC's ClientHello goes out verbatim (our client
 *   builds a different extension set, so the hook sends the RFC's bytes),
 *   the RFC's ServerHello and encrypted server flight are accepted
 *   (certificate pinned; the RFC's key is 1024-bit RSA, below the 2048-bit
 *   floor hs enforces, so its RSA-PSS CertificateVerify is checked by an
 *   OpenSSL verifier plugged in through the hook; the server Finished is
 *   checked by the engine), and the client
 *   then emits exactly the RFC's Finished record, parses the RFC's
 *   NewSessionTicket, decrypts the server's application data, and seals its
 *   own application data and close_notify to exactly the RFC's records;
 * - server side: from the RFC's ClientHello the server emits exactly the
 *   RFC's ServerHello record and derives the RFC's handshake secrets. (The
 *   whole server flight, RSA-PSS signature included, is reproduced in
 *   test_tls_rfc8448_server.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "crypto/hash.h"
#include "libhs/test_hooks.h"
#include "libhs/internal.h"
#include "rfc8448.h"
#include "testutil.h"
#include "tls_certs.h"

static uint8_t *hx(const char *s, size_t *n)
{
	uint8_t *p = hex_decode(s, n);
	assert_non_null(p);
	return p;
}

static void assert_hex(const uint8_t *got, size_t n, const char *want)
{
	size_t wn;
	uint8_t *w = hx(want, &wn);
	assert_int_equal(n, wn);
	assert_memory_equal(got, w, n);
	free(w);
}

static int verify_calls;

/* rsa_pss_rsae_sha256 with OpenSSL: the RFC's 1024-bit key is below hs's
 * RSA floor (RFC 8446 4.2.3: salt length = digest length) */
static int trace_pss_verify(uint16_t scheme, const uint8_t *spki, size_t spki_len,
			  const uint8_t *msg, size_t msg_len, const uint8_t *sig, size_t sig_len)
{
	const unsigned char *p = spki;
	EVP_PKEY *key = d2i_PUBKEY(NULL, &p, (long)spki_len);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pctx = NULL;
	int ok = 0;

	verify_calls++;
	if (scheme == 0x0804 && key != NULL && ctx != NULL &&
	    EVP_DigestVerifyInit(ctx, &pctx, EVP_sha256(), NULL, key) == 1 &&
	    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
	    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1)
		ok = EVP_DigestVerify(ctx, sig, sig_len, msg, msg_len) == 1;
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(key);
	return ok ? 0 : -1;
}

static void test_key_schedule(void **state)
{
	struct keysched ks;
	size_t n;
	uint8_t *ecdhe = hx(ECDHE, &n), *th = hx(HS_HASH, &n), *th2 = hx(AP_HASH, &n);
	uint8_t key[16], iv[12];
	(void)state;

	assert_int_equal(keysched_start(&ks, hash_sha256()), 0);
	assert_hex(ks.stage, 32, EARLY);
	assert_int_equal(keysched_handshake(&ks, ecdhe, 32, th), 0);
	assert_hex(ks.handshake_secret, 32, HS);
	assert_hex(ks.c_hs, 32, C_HS);
	assert_hex(ks.s_hs, 32, S_HS);
	assert_int_equal(rec_traffic_key(hash_sha256(), ks.s_hs, 16, key, iv), 0);
	assert_hex(key, 16, S_HS_KEY);
	assert_hex(iv, 12, S_HS_IV);
	assert_int_equal(keysched_master(&ks, th2), 0);
	assert_hex(ks.stage, 32, MASTER);
	assert_hex(ks.c_ap, 32, C_AP);
	assert_hex(ks.s_ap, 32, S_AP);
	assert_int_equal(rec_traffic_key(hash_sha256(), ks.c_ap, 16, key, iv), 0);
	assert_hex(key, 16, C_AP_KEY);
	assert_hex(iv, 12, C_AP_IV);
	keysched_wipe(&ks);
	free(ecdhe);
	free(th);
	free(th2);
}

static void feed_all(struct hs_conn *c, const char *rec_hex)
{
	size_t n, used;
	uint8_t *rec = hx(rec_hex, &n);
	assert_int_equal(hs_conn_feed(c, rec, n, &used), 0);
	assert_int_equal(used, n);
	free(rec);
}

static void pull_expect(struct hs_conn *c, const char *prefix_hex, const char *rec_hex)
{
	uint8_t out[4096];
	size_t n, pn = 0, rn;
	uint8_t *pre = prefix_hex ? hx(prefix_hex, &pn) : NULL;
	uint8_t *rec = hx(rec_hex, &rn);

	assert_int_equal(hs_conn_pull(c, out, sizeof(out), &n), 0);
	assert_int_equal(n, pn + rn);
	if (pre != NULL)
		assert_memory_equal(out, pre, pn);
	assert_memory_equal(out + pn, rec, rn);
	free(pre);
	free(rec);
}

static void test_client(void **state)
{
	struct hs_config cfg = { .role = HS_ROLE_CLIENT };
	struct test_hooks hooks = { 0 };
	struct hs_conn *c;
	struct test_secrets s;
	size_t ch_len, priv_len, n, anchor_len;
	uint8_t *ch = hx(CH, &ch_len), *priv = hx(CLIENT_PRIV, &priv_len);
	uint8_t *anchor = hx(SERVER_CERT, &anchor_len);
	uint8_t payload[50], buf[64];
	(void)state;

	/* pin the RFC's certificate (it has no SAN: no server name to check) */
	cfg.anchor_der = anchor;
	cfg.anchor_len = anchor_len;
	cfg.keep_tickets = 1;
	hooks.client_hello = ch;
	hooks.client_hello_len = ch_len;
	hooks.kx_priv = priv;
	hooks.kx_priv_len = priv_len;
	hooks.kx_group = HS_GROUP_X25519;
	hooks.extra_scheme = 0x0804;
	hooks.verify = trace_pss_verify;
	hooks.capture = &s; /* each secret as it is derived: the connection wipes them */
	assert_int_equal(hs_conn_new(&c, &cfg), 0);
	assert_int_equal(conn_test_hooks(c, &hooks), 0);
	/* ClientHello record: 16 03 01 00 c4 || ClientHello */
	pull_expect(c, "16030100c4", CH);
	feed_all(c, SH_REC);
	assert_hex(s.handshake, 32, HS);
	assert_hex(s.client_hs, 32, C_HS);
	assert_hex(s.server_hs, 32, S_HS);
	feed_all(c, FLIGHT_REC);
	assert_int_equal(verify_calls, 1);
	assert_true(hs_conn_handshake_done(c));
	assert_hex(s.master, 32, MASTER);
	assert_hex(s.client_ap, 32, C_AP);
	assert_hex(s.server_ap, 32, S_AP);
	pull_expect(c, NULL, CFIN_REC);
	/* the RFC's ticket, then the server's application data */
	feed_all(c, NST_REC);
	assert_non_null(hs_conn_ticket(c, &n, &(uint32_t){ 0 }));
	feed_all(c, S_APP_REC);
	for (int i = 0; i < 50; i++)
		payload[i] = (uint8_t)i;
	assert_int_equal(hs_conn_read(c, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 50);
	assert_memory_equal(buf, payload, 50);
	assert_int_equal(hs_conn_write(c, payload, 50, &n), 0);
	pull_expect(c, NULL, C_APP_REC);
	assert_int_equal(hs_conn_close(c), 0);
	pull_expect(c, NULL, C_ALERT_REC);
	feed_all(c, S_ALERT_REC);
	assert_true(hs_conn_peer_closed(c));
	hs_conn_free(c);
	free(anchor);
	free(ch);
	free(priv);
}

/*
 * Re-encrypt the RFC's server flight (we know its key from the RFC) after
 * flipping one byte of the message of type target, at offset from its end:
 * a bad CertificateVerify signature must give decrypt_error, a bad
 * Finished decrypt_error, a damaged record bad_record_mac.
 */
static void flight_with(uint8_t target, size_t from_end, int raw, int want_err, int want_alert)
{
	struct hs_config cfg = { .role = HS_ROLE_CLIENT };
	struct test_hooks hooks = { 0 };
	struct hs_conn *c;
	struct rec_key_mem k_mem; /* AEAD context memory */
	struct rec_key k = *rec_key_mem_init(&k_mem);
	size_t anchor_len;
	uint8_t *anchor = hx(SERVER_CERT, &anchor_len);
	size_t ch_len, priv_len, n, used, plen, off = 0;
	uint8_t *ch = hx(CH, &ch_len), *priv = hx(CLIENT_PRIV, &priv_len);
	uint8_t *secret = hx(S_HS, &n), *flight = hx(FLIGHT_REC, &n);
	uint8_t out[4096], type;
	struct writer w;

	hooks.client_hello = ch;
	hooks.client_hello_len = ch_len;
	hooks.kx_priv = priv;
	hooks.kx_priv_len = priv_len;
	hooks.kx_group = HS_GROUP_X25519;
	hooks.extra_scheme = 0x0804;
	hooks.verify = trace_pss_verify;
	cfg.anchor_der = anchor;
	cfg.anchor_len = anchor_len;
	assert_int_equal(hs_conn_new(&c, &cfg), 0);
	assert_int_equal(conn_test_hooks(c, &hooks), 0);
	assert_int_equal(hs_conn_pull(c, out, sizeof(out), &used), 0);
	feed_all(c, SH_REC);
	if (raw) {
		flight[100] ^= 1;
	} else {
		assert_int_equal(rec_key_set(&k, aead_aes128gcm(), hash_sha256(), 16, secret), 0);
		assert_int_equal(rec_open(&k, flight, n - 5, &type, &plen), 0);
		while (off < plen && flight[5 + off] != target)
			off += 4 + (((size_t)flight[5 + off + 2] << 8) | flight[5 + off + 3]);
		assert_true(off < plen);
		off += 4 + (((size_t)flight[5 + off + 2] << 8) | flight[5 + off + 3]);
		flight[5 + off - from_end] ^= 0x01;
		memcpy(out, flight + 5, plen);
		k.seq = 0;
		w = writer_init(flight, n + 64);
		assert_int_equal(rec_seal(&k, type, 0x0303, out, plen, 0, &w), 0);
		n = w.len;
		rec_key_wipe(&k);
	}
	assert_int_equal(hs_conn_feed(c, flight, n, &used), want_err);
	assert_int_equal(hs_conn_alert(c, 0), want_alert);
	assert_false(hs_conn_handshake_done(c));
	hs_conn_free(c);
	free(anchor);
	free(flight);
	free(secret);
	free(ch);
	free(priv);
}

static void test_client_negative(void **state)
{
	(void)state;
	flight_with(0, 0, 1, HS_ERR_TLS_BAD_RECORD_MAC, 20);
	flight_with(HT_CERTIFICATE_VERIFY, 1, 0, HS_ERR_TLS_BAD_CERT_VERIFY, 51);
	flight_with(HT_FINISHED, 1, 0, HS_ERR_TLS_BAD_FINISHED, 51);
	/* a certificate byte: the pinned anchor no longer matches */
	flight_with(HT_CERTIFICATE, 40, 0, HS_ERR_TLS_CERT_UNTRUSTED, 48);
}

static void test_server(void **state)
{
	struct hs_cred *cred;
	struct hs_config cfg = { .role = HS_ROLE_SERVER };
	struct test_hooks hooks = { 0 };
	struct hs_conn *c;
	struct test_secrets s;
	size_t ch_len, priv_len, rnd_len, used, n;
	uint8_t *ch = hx(CH, &ch_len), *priv = hx(SERVER_PRIV, &priv_len);
	uint8_t *rnd = hx(SERVER_RANDOM, &rnd_len);
	uint8_t rec[512], out[8192];
	size_t sh_len;
	uint8_t *sh = hx(SH_REC, &sh_len);
	(void)state;

	assert_int_equal(hs_cred_load_pem(&cred, EC_CERT, strlen(EC_CERT), EC_KEY_PKCS8,
					  strlen(EC_KEY_PKCS8)),
			 0);
	cfg.cred = cred;
	hooks.random = rnd;
	hooks.kx_priv = priv;
	hooks.kx_priv_len = priv_len;
	hooks.kx_group = HS_GROUP_X25519;
	hooks.capture = &s;
	assert_int_equal(hs_conn_new(&c, &cfg), 0);
	assert_int_equal(conn_test_hooks(c, &hooks), 0);
	memcpy(rec, "\x16\x03\x01\x00\xc4", 5);
	memcpy(rec + 5, ch, ch_len);
	assert_int_equal(hs_conn_feed(c, rec, 5 + ch_len, &used), 0);
	assert_int_equal(used, 5 + ch_len);
	assert_int_equal(hs_conn_pull(c, out, sizeof(out), &n), 0);
	assert_true(n > sh_len);
	assert_memory_equal(out, sh, sh_len); /* the ServerHello record, exactly */
	assert_hex(s.handshake, 32, HS);
	assert_hex(s.client_hs, 32, C_HS);
	assert_hex(s.server_hs, 32, S_HS);
	assert_int_equal(hs_conn_suite(c), HS_TLS_AES_128_GCM_SHA256);
	assert_string_equal(hs_conn_server_name(c), "server");
	hs_conn_free(c);
	hs_cred_free(cred);
	free(ch);
	free(priv);
	free(rnd);
	free(sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_schedule),
		cmocka_unit_test(test_client),
		cmocka_unit_test(test_client_negative),
		cmocka_unit_test(test_server),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
