/*
 * Proves the SERVER side of RFC 8448 section 3 ("Simple 1-RTT Handshake")
 * byte for byte, RSA-PSS CertificateVerify included:
 *
 * - the RFC's RSA key (section 2: modulus, exponents, primes, CRT values)
 *   is assembled here into a PKCS #1 RSAPrivateKey and loaded as an
 *   "RSA PRIVATE KEY" PEM with the RFC's certificate (the key is 1024 bits,
 *   so only the internal loader flag CRED_ALLOW_SMALL_RSA accepts it);
 * - RSA-PSS draws a random salt, so the salt the RFC used is recovered from
 *   its CertificateVerify (s^e mod n = EM, unmask DB with MGF1(H), the salt
 *   is DB's last 32 bytes; DB's padding is checked on the way) and injected
 *   through the pss_salt test hook; the EncryptedExtensions the RFC's server
 *   sent (supported_groups, record_size_limit, server_name), which hs does
 *   not send, go in through the ee_exts hook;
 * - from the RFC's ClientHello the server then emits exactly the RFC's
 *   ServerHello record followed by exactly the RFC's encrypted flight
 *   (EncryptedExtensions, Certificate, CertificateVerify, Finished), with
 *   the RFC's handshake and application traffic secrets; it accepts the
 *   RFC's client Finished and decrypts the client's application data;
 * - the salt matters: the recovered salt with the loaded key gives the
 *   RFC's signature outside the engine too, and another salt changes the
 *   flight (so the byte-for-byte match is not vacuous);
 * - crypto/rsa_pss_salt.h on its own refuses the 1024-bit key without
 *   HS_RSA_ALLOW_SMALL and a short output buffer, what it signs passes
 *   rsa_pss_verify with the salt length used (32 and 0) and only that,
 *   and a wrong d gives HS_ERR_BAD_KEY and an all-zero output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/bignum.h"
#include "crypto/hash.h"
#include "crypto/rsa.h"
#include "crypto/rsa_pss_salt.h"
#include "libhs/test_hooks.h"
#include "libhs/internal.h"
#include "rfc8448.h"
#include "testutil.h"

/* RFC 8448 section 2, the server's RSA key (the same numbers in order:
 * modulus, public exponent, private exponent, prime1, prime2, exponent1,
 * exponent2, coefficient) */
static const char *const RSA_PARTS[8] = {
	"b4bb498f8279303d980836399b36c6988c0c68de55e1bdb826d3901a2461eafd"
	"2de49a91d015abbc9a95137ace6c1af19eaa6af98c7ced43120998e187a80ee0"
	"ccb0524b1b018c3e0b63264d449a6d38e22a5fda430846748030530ef0461c8c"
	"a9d9efbfae8ea6d1d03e2bd193eff0ab9a8002c47428a6d35a8d88d79f7f1e3f",
	"010001",
	"04dea705d43a6ea7209dd8072111a83c81e322a59278b33480641eaf7c0a6985"
	"b8e31c44f6de62e1b4c2309f6126e77b7c41e923314bbfa3881305dc1217f16c"
	"819ce538e922f369828d0e57195d8c8488460207b2faa726bcf708bbd7db7f67"
	"9f893492fc2a622e08970aac441ce4e0c3088df25ae679233df8a3bda2ff9941",
	"e435fb7cc83737756dacea96ab7f59a2cc1069db7deb190e17e33a532b273f30"
	"a327aa0aaabc58cd67466af9845fadc675fe094af92c4bd1f2c1bc33dd2e0515",
	"cabd3bc0e0438664c8d4cc9f99977a94d9bbfead8e43870abae3f7eb8b4e0eee"
	"8af1d9b4719ba6196cf2cbbaeeebf8b3490afe9e9ffa74a88aa51fc645629303",
	"3f57345c27fe1b687e6e761627b78b1b826433dd760fa0bea6a6acf39490aa1b"
	"47cda4869d68f584dd5b5029bd32093b8258661fe715025e5d70a45a08d3d319",
	"183da01363bd2f2885cacbdc9964bf4764f1517636f86401286f71893c52ccfe"
	"40a6c23d0d086b47c6fb10d8fd1041e04def7e9a40ce957c417794e10412d139",
	"839ca9a085e4286b2c90e466997a2c681f21339aa3477814e4dec11833050ed5"
	"0dd13cc038048a43c59b2acc416889c037665fe5afa605969f8c01dfa5ca969d",
};

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

/* DER length octets for n (< 65536) */
static size_t der_len(uint8_t *out, size_t n)
{
	if (n < 0x80) {
		out[0] = (uint8_t)n;
		return 1;
	}
	if (n < 0x100) {
		out[0] = 0x81;
		out[1] = (uint8_t)n;
		return 2;
	}
	out[0] = 0x82;
	out[1] = (uint8_t)(n >> 8);
	out[2] = (uint8_t)n;
	return 3;
}

/* A positive INTEGER from big-endian hex (a zero byte first if the top bit is set). */
static size_t der_int(uint8_t *out, const char *hex)
{
	size_t n, off = 0;
	uint8_t *v = hx(hex, &n);
	int pad = (v[0] & 0x80) != 0;

	out[off++] = 0x02;
	off += der_len(out + off, n + (size_t)pad);
	if (pad)
		out[off++] = 0;
	memcpy(out + off, v, n);
	free(v);
	return off + n;
}

/* RSAPrivateKey ::= SEQUENCE { version 0, n, e, d, p, q, dp, dq, qinv } */
static size_t rfc_key_der(uint8_t *out)
{
	uint8_t body[1024];
	size_t n = 0, off = 0;

	body[n++] = 0x02;
	body[n++] = 0x01;
	body[n++] = 0x00;
	for (int i = 0; i < 8; i++)
		n += der_int(body + n, RSA_PARTS[i]);
	out[off++] = 0x30;
	off += der_len(out + off, n);
	memcpy(out + off, body, n);
	return off + n;
}

static void b64(char *out, const uint8_t *in, size_t n)
{
	static const char a[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		out[o++] = a[(v >> 18) & 63];
		out[o++] = a[(v >> 12) & 63];
		out[o++] = i + 1 < n ? a[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? a[v & 63] : '=';
		if ((i / 3) % 16 == 15)
			out[o++] = '\n';
	}
	out[o] = '\0';
}

static char *pem(const char *label, const uint8_t *der, size_t n)
{
	size_t cap = 2 * n + 200;
	char *body = malloc(cap), *out = malloc(cap + 100);

	assert_non_null(body);
	assert_non_null(out);
	b64(body, der, n);
	snprintf(out, cap + 100, "-----BEGIN %s-----\n%s\n-----END %s-----\n", label, body, label);
	free(body);
	return out;
}

/* The RFC's credential: its certificate and the RSAPrivateKey above. */
static struct hs_cred *rfc_cred(void)
{
	uint8_t key[1024];
	size_t key_len = rfc_key_der(key), cert_len;
	uint8_t *cert = hx(SERVER_CERT, &cert_len);
	char *cert_pem = pem("CERTIFICATE", cert, cert_len);
	char *key_pem = pem("RSA PRIVATE KEY", key, key_len);
	struct hs_cred *cred;

	/* 1024 bits: the public loader refuses it */
	assert_int_equal(hs_cred_load_pem(&cred, cert_pem, strlen(cert_pem), key_pem,
					  strlen(key_pem)),
			 HS_ERR_BAD_KEY);
	assert_int_equal(cred_load_pem_flags(&cred, cert_pem, strlen(cert_pem), key_pem,
						strlen(key_pem), CRED_ALLOW_SMALL_RSA),
			 0);
	assert_int_equal(hs_cred_sig_scheme(cred), HS_SIG_RSA_PSS_RSAE_SHA256);
	free(cert);
	free(cert_pem);
	free(key_pem);
	return cred;
}

/* The RFC's server flight, decrypted with its server handshake key. */
static size_t rfc_flight_plain(uint8_t *out)
{
	struct rec_key_mem k_mem; /* AEAD context memory */
	struct rec_key k = *rec_key_mem_init(&k_mem);
	size_t n, plen, sn;
	uint8_t *secret = hx(S_HS, &sn), *rec = hx(FLIGHT_REC, &n), type;

	assert_int_equal(rec_key_set(&k, aead_aes128gcm(), hash_sha256(), 16, secret), 0);
	assert_int_equal(rec_open(&k, rec, n - 5, &type, &plen), 0);
	assert_int_equal(type, CT_HANDSHAKE);
	memcpy(out, rec + 5, plen);
	rec_key_wipe(&k);
	free(secret);
	free(rec);
	return plen;
}

/* Offset of the handshake message of type t in a flight of len bytes. */
static size_t msg_at(const uint8_t *f, size_t len, uint8_t t)
{
	size_t off = 0;

	while (off + 4 <= len && f[off] != t)
		off += 4 + (((size_t)f[off + 1] << 16) | ((size_t)f[off + 2] << 8) | f[off + 3]);
	assert_true(off + 4 <= len);
	return off;
}

/* out[0..len) ^= MGF1-SHA-256(seed) (RFC 8017 B.2.1) */
static void mgf1(uint8_t *out, size_t len, const uint8_t *seed)
{
	const struct hash *h = hash_sha256();
	uint8_t in[36], t[32];

	memcpy(in, seed, 32);
	for (uint32_t i = 0; 32 * (size_t)i < len; i++) {
		in[32] = (uint8_t)(i >> 24);
		in[33] = (uint8_t)(i >> 16);
		in[34] = (uint8_t)(i >> 8);
		in[35] = (uint8_t)i;
		hash_digest(h, in, sizeof(in), t);
		for (size_t j = 0; j < 32 && 32 * i + j < len; j++)
			out[32 * i + j] ^= t[j];
	}
}

/*
 * The salt of the RFC's CertificateVerify: EM = s^e mod n (emLen = 128,
 * emBits = 1023), DB = maskedDB ^ MGF1(H) = PS || 0x01 || salt.
 */
static void rfc_salt(const uint8_t *flight, size_t len, uint8_t salt[32])
{
	size_t cv = msg_at(flight, len, HT_CERTIFICATE_VERIFY), n_len;
	const uint8_t *sig = flight + cv + 8;
	uint8_t *n_bytes = hx(RSA_PARTS[0], &n_len), em[128];
	uint64_t n[16] = { 0 }, s[16], m[16], e[1] = { 65537 };
	struct bn_mont mont;

	/* 08 04 (rsa_pss_rsae_sha256), then a 128-byte signature */
	assert_int_equal(flight[cv + 4], 0x08);
	assert_int_equal(flight[cv + 5], 0x04);
	assert_int_equal(((size_t)flight[cv + 6] << 8) | flight[cv + 7], 128);
	assert_int_equal(bn_from_bytes(n, 16, n_bytes, n_len), 0);
	assert_int_equal(bn_from_bytes(s, 16, sig, 128), 0);
	assert_int_equal(bn_mont_init_vartime(&mont, n, 16), 0);
	bn_mod_exp_vartime(m, s, e, 1, &mont);
	bn_to_bytes(em, sizeof(em), m, 16);
	assert_int_equal(em[127], 0xbc);
	mgf1(em, 95, em + 95); /* dbLen = 128 - 32 - 1 */
	em[0] &= 0x7f;         /* the bit above emBits */
	for (size_t i = 0; i < 95 - 32 - 1; i++)
		assert_int_equal(em[i], 0); /* PS */
	assert_int_equal(em[95 - 32 - 1], 0x01);
	memcpy(salt, em + 95 - 32, 32);
	free(n_bytes);
}

struct rfc_server {
	struct hs_cred *cred;
	struct hs_config cfg;
	struct test_hooks hooks;
	struct hs_conn *c;
	uint8_t flight[2048], salt[32];
	size_t flight_len;
	uint8_t *priv, *rnd;
	struct test_secrets cap; /* each secret as it was derived */
};

static void server_start(struct rfc_server *t, const uint8_t *salt)
{
	size_t n, ee;

	memset(t, 0, sizeof(*t));
	t->cred = rfc_cred();
	t->flight_len = rfc_flight_plain(t->flight);
	rfc_salt(t->flight, t->flight_len, t->salt);
	ee = msg_at(t->flight, t->flight_len, HT_ENCRYPTED_EXTENSIONS);
	t->cfg.role = HS_ROLE_SERVER;
	t->cfg.cred = t->cred;
	t->priv = hx(SERVER_PRIV, &n);
	t->rnd = hx(SERVER_RANDOM, &n);
	t->hooks.random = t->rnd;
	t->hooks.kx_priv = t->priv;
	t->hooks.kx_priv_len = 32;
	t->hooks.kx_group = HS_GROUP_X25519;
	t->hooks.pss_salt = salt != NULL ? salt : t->salt;
	t->hooks.pss_salt_len = 32;
	t->hooks.capture = &t->cap;
	/* EncryptedExtensions: 08 len24 | extensions<2> */
	t->hooks.ee_exts = t->flight + ee + 6;
	t->hooks.ee_exts_len = ((size_t)t->flight[ee + 4] << 8) | t->flight[ee + 5];
	assert_int_equal(hs_conn_new(&t->c, &t->cfg), 0);
	assert_int_equal(conn_test_hooks(t->c, &t->hooks), 0);
}

static void server_free(struct rfc_server *t)
{
	hs_conn_free(t->c);
	hs_cred_free(t->cred);
	free(t->priv);
	free(t->rnd);
}

static void feed_hex(struct hs_conn *c, const char *prefix, const char *rec_hex)
{
	size_t pn = 0, rn, used;
	uint8_t *pre = prefix ? hx(prefix, &pn) : NULL, *rec = hx(rec_hex, &rn);
	uint8_t *all = malloc(pn + rn);

	assert_non_null(all);
	if (pre != NULL)
		memcpy(all, pre, pn);
	memcpy(all + pn, rec, rn);
	assert_int_equal(hs_conn_feed(c, all, pn + rn, &used), 0);
	assert_int_equal(used, pn + rn);
	free(all);
	free(pre);
	free(rec);
}

static void test_salt_and_key(void **state)
{
	struct rfc_server t;
	(void)state;

	/* the recovered salt and the loaded key reproduce the RFC's signature
	 * over its own CertificateVerify input, outside the engine */
	server_start(&t, NULL);
	{
		size_t cv = msg_at(t.flight, t.flight_len, HT_CERTIFICATE_VERIFY), ch_len;
		uint8_t *ch = hx(CH, &ch_len), *sh, content[64 + 34 + 32], sig[512];
		size_t sh_len, sig_len = sizeof(sig);
		union hash_ctx h;
		const struct hash *sha = hash_sha256();
		uint8_t *shrec = hx(SH_REC, &sh_len);

		sh = shrec + 5;
		sha->init(&h);
		sha->update(&h, ch, ch_len);
		sha->update(&h, sh, sh_len - 5);
		sha->update(&h, t.flight, cv);
		memset(content, 0x20, 64);
		memcpy(content + 64, "TLS 1.3, server CertificateVerify", 34);
		sha->final(&h, content + 98);
		assert_int_equal(cred_sign_salt(t.cred, HS_SIG_RSA_PSS_RSAE_SHA256, t.salt, 32,
						   content, sizeof(content), sig, &sig_len),
				 0);
		assert_int_equal(sig_len, 128);
		assert_memory_equal(sig, t.flight + cv + 8, 128);
		/* a different salt, a different signature */
		t.salt[0] ^= 1;
		assert_int_equal(cred_sign_salt(t.cred, HS_SIG_RSA_PSS_RSAE_SHA256, t.salt, 32,
						   content, sizeof(content), sig, &sig_len),
				 0);
		assert_memory_not_equal(sig, t.flight + cv + 8, 128);
		free(ch);
		free(shrec);
	}
	server_free(&t);
}

/* crypto/rsa_pss_salt.h directly: its refusals, and its output verifies */
static void test_sign_salt_api(void **state)
{
	uint8_t der[1024], digest[32] = { 1, 2, 3 }, salt[32] = { 9 }, sig[128];
	size_t der_len = rfc_key_der(der), sig_len;
	struct rsa_private k;
	const struct hash *h = hash_sha256();
	(void)state;

	assert_int_equal(rsa_private_from_der(&k, der, der_len), 0);
	assert_int_equal(k.pub.bits, 1024);
	sig_len = sizeof(sig);
	/* 1024 bits: only with HS_RSA_ALLOW_SMALL */
	assert_int_equal(rsa_pss_sign_salt(&k, h, digest, salt, 32, sig, &sig_len, 0),
			 HS_ERR_BAD_KEY);
	sig_len = 127;
	assert_int_equal(rsa_pss_sign_salt(&k, h, digest, salt, 32, sig, &sig_len,
					      HS_RSA_ALLOW_SMALL),
			 HS_ERR_NO_SPACE);
	sig_len = sizeof(sig);
	assert_int_equal(rsa_pss_sign_salt(&k, h, digest, salt, 32, sig, &sig_len,
					      HS_RSA_ALLOW_SMALL),
			 0);
	assert_int_equal(sig_len, 128);
	assert_int_equal(rsa_pss_verify(&k.pub, h, 32, digest, sig, 128, HS_RSA_ALLOW_SMALL), 0);
	/* any salt length the encoding has room for: 0 bytes too */
	assert_int_equal(rsa_pss_sign_salt(&k, h, digest, salt, 0, sig, &sig_len,
					      HS_RSA_ALLOW_SMALL),
			 0);
	assert_int_equal(rsa_pss_verify(&k.pub, h, 0, digest, sig, 128, HS_RSA_ALLOW_SMALL), 0);
	assert_int_not_equal(rsa_pss_verify(&k.pub, h, 32, digest, sig, 128,
					       HS_RSA_ALLOW_SMALL),
			     0);
	/* a d that does not match e: the check refuses, the output is zeros */
	k.d[0] ^= 2;
	memset(sig, 0xee, sizeof(sig));
	assert_int_equal(rsa_pss_sign_salt(&k, h, digest, salt, 32, sig, &sig_len,
					      HS_RSA_ALLOW_SMALL),
			 HS_ERR_BAD_KEY);
	for (size_t i = 0; i < sizeof(sig); i++)
		assert_int_equal(sig[i], 0);
	rsa_private_wipe(&k);
}

static void test_server_flight(void **state)
{
	struct rfc_server t;
	struct test_secrets s;
	uint8_t out[8192], buf[64], payload[50];
	size_t n, sh_len, fl_len;
	uint8_t *sh = hx(SH_REC, &sh_len), *fl = hx(FLIGHT_REC, &fl_len);
	(void)state;

	server_start(&t, NULL);
	feed_hex(t.c, "16030100c4", CH);
	assert_int_equal(hs_conn_pull(t.c, out, sizeof(out), &n), 0);
	/* ServerHello record, then the one record of the encrypted flight */
	assert_int_equal(n, sh_len + fl_len);
	assert_memory_equal(out, sh, sh_len);
	assert_memory_equal(out + sh_len, fl, fl_len);
	assert_int_equal(hs_conn_sig_scheme(t.c), HS_SIG_RSA_PSS_RSAE_SHA256);
	s = t.cap; /* the connection wipes each as soon as it is unused */
	assert_hex(s.handshake, 32, HS);
	assert_hex(s.client_hs, 32, C_HS);
	assert_hex(s.server_hs, 32, S_HS);
	assert_hex(s.master, 32, MASTER);
	assert_hex(s.client_ap, 32, C_AP);
	assert_hex(s.server_ap, 32, S_AP);
	/* the RFC's client Finished completes the handshake */
	feed_hex(t.c, NULL, CFIN_REC);
	assert_true(hs_conn_handshake_done(t.c));
	/* and the client's application data decrypts to 00 01 .. 31 */
	feed_hex(t.c, NULL, C_APP_REC);
	assert_int_equal(hs_conn_read(t.c, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 50);
	for (int i = 0; i < 50; i++)
		payload[i] = (uint8_t)i;
	assert_memory_equal(buf, payload, 50);
	server_free(&t);
	free(sh);
	free(fl);
}

static void test_wrong_salt(void **state)
{
	struct rfc_server t;
	uint8_t out[8192], salt[32];
	size_t n, sh_len, fl_len;
	uint8_t *sh = hx(SH_REC, &sh_len), *fl = hx(FLIGHT_REC, &fl_len);
	(void)state;

	memset(salt, 0x5a, sizeof(salt));
	server_start(&t, salt);
	feed_hex(t.c, "16030100c4", CH);
	assert_int_equal(hs_conn_pull(t.c, out, sizeof(out), &n), 0);
	assert_int_equal(n, sh_len + fl_len); /* same sizes ... */
	assert_memory_equal(out, sh, sh_len);
	assert_memory_not_equal(out + sh_len, fl, fl_len); /* ... other bytes */
	server_free(&t);
	free(sh);
	free(fl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_salt_and_key),
		cmocka_unit_test(test_sign_salt_api),
		cmocka_unit_test(test_server_flight),
		cmocka_unit_test(test_wrong_salt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
