/*
 * Proves the engine's small pieces on their own: the error -> alert table
 * and messages, the extension block parser (duplicates rejected, unknown and
 * GREASE kept but ignored), the record header limits, PEM/PKCS#8/SEC1 key
 * loading (and refusing a key that does not match its certificate), the
 * SAN name match (exact, case, one-label wildcard), and the blocking fd
 * helpers over a socketpair (server in a child process): handshake, echo,
 * close_notify both ways; and the key schedule (keysched.c: its no-PSK
 * constants and its shared keyed HMACs) against plain HKDF calls, for
 * SHA-256 on every backend, SHA-384, a hash with no constant row, a PSK.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "hs/fd.h"
#include "crypto/cpu.h"
#include "crypto/hkdf.h"
#include "libhs/internal.h"
#include "tls_certs.h"

static void test_alert_table(void **state)
{
	(void)state;
	assert_int_equal(hs_err_alert(HS_ERR_TLS_DECODE), 50);
	assert_int_equal(hs_err_alert(HS_ERR_TRUNCATED), 50);
	assert_int_equal(hs_err_alert(HS_ERR_TLS_BAD_FINISHED), 51);
	assert_int_equal(hs_err_alert(HS_ERR_TLS_MISSING_EXT), 109);
	assert_int_equal(hs_err_alert(HS_ERR_TLS_UNSOLICITED_EXT), 110);
	assert_int_equal(hs_err_alert(HS_ERR_NOMEM), 80);
	assert_string_equal(hs_alert_name(47), "illegal_parameter");
	for (int e = HS_ERR_TLS_FIRST; e >= HS_ERR_TLS_LAST; e--)
		assert_string_not_equal(hs_strerror(e), "unknown error");
	assert_string_equal(hs_suite_name(0x1303), "TLS_CHACHA20_POLY1305_SHA256");
	assert_string_equal(hs_group_name(0x17), "secp256r1");
}

static void test_ext_parse(void **state)
{
	static const uint8_t ok[] = { 0, 13, 0x0a, 0x0a, 0, 0, 0, 43, 0, 1, 7, 0x12, 0x34, 0, 0 };
	static const uint8_t dup[] = { 0, 8, 0, 43, 0, 0, 0, 43, 0, 0 };
	static const uint8_t over[] = { 0, 5, 0, 43, 0, 2, 1 };
	static const uint8_t groups[] = { 0, 6, 0x2a, 0x2a, 0, 0x1d, 0, 0x17 };
	struct ext_list l;
	struct reader r = reader_init(ok, sizeof(ok));
	uint16_t v[4];
	size_t n;
	(void)state;
	assert_int_equal(ext_parse(&r, &l), 0);
	assert_int_equal(l.n, 3);
	assert_non_null(ext_find(&l, 43));
	assert_int_equal(ext_find(&l, 43)->body.len, 1);
	r = reader_init(dup, sizeof(dup));
	assert_int_equal(ext_parse(&r, &l), HS_ERR_TLS_DUP_EXT);
	r = reader_init(over, sizeof(over));
	assert_int_equal(ext_parse(&r, &l), HS_ERR_TRUNCATED);
	assert_int_equal(ext_u16_list(reader_init(groups, sizeof(groups)), v, 4, &n), 0);
	assert_int_equal(n, 2); /* GREASE 0x2a2a skipped */
	assert_int_equal(v[0], 0x1d);
	/* too many for the caller's array: an error, not a silent cut */
	assert_int_equal(ext_u16_list(reader_init(groups, sizeof(groups)), v, 1, &n),
			 HS_ERR_NO_SPACE);
}

static void test_record_header(void **state)
{
	size_t n;
	(void)state;
	assert_int_equal(rec_check_header((const uint8_t *)"\x17\x03\x03\x40\x00", 0, &n), 0);
	assert_int_equal(rec_check_header((const uint8_t *)"\x17\x03\x03\x40\x01", 0, &n),
			 HS_ERR_TLS_RECORD_OVERFLOW);
	assert_int_equal(rec_check_header((const uint8_t *)"\x17\x03\x03\x41\x00", 1, &n), 0);
	assert_int_equal(rec_check_header((const uint8_t *)"\x17\x03\x03\x41\x01", 1, &n),
			 HS_ERR_TLS_RECORD_OVERFLOW);
	assert_int_equal(rec_check_header((const uint8_t *)"\x16\x03\x03\x41\x00", 1, &n),
			 HS_ERR_TLS_RECORD_OVERFLOW);
	assert_int_equal(rec_check_header((const uint8_t *)"\x18\x03\x03\x00\x01", 0, &n),
			 HS_ERR_TLS_UNEXPECTED_RECORD);
}

static void test_keys(void **state)
{
	struct hs_cred *c;
	size_t n;
	(void)state;
	assert_int_equal(hs_cred_load_pem(&c, EC_CERT, strlen(EC_CERT), EC_KEY_SEC1,
					  strlen(EC_KEY_SEC1)), 0);
	assert_int_equal(hs_cred_sig_scheme(c), HS_SIG_ECDSA_SECP256R1_SHA256);
	assert_non_null(hs_cred_leaf(c, &n));
	hs_cred_free(c);
	assert_int_equal(hs_cred_load_pem(&c, ED_CERT, strlen(ED_CERT), ED_KEY_PKCS8,
					  strlen(ED_KEY_PKCS8)), 0);
	assert_int_equal(hs_cred_sig_scheme(c), HS_SIG_ED25519);
	hs_cred_free(c);
	/* key of another certificate */
	assert_int_equal(hs_cred_load_pem(&c, EC_CERT, strlen(EC_CERT), OTHER_KEY,
					  strlen(OTHER_KEY)), HS_ERR_X509_KEY_MISMATCH);
	assert_null(c);
	assert_int_equal(hs_cred_load_pem(&c, EC_CERT, strlen(EC_CERT), ED_KEY_PKCS8,
					  strlen(ED_KEY_PKCS8)), HS_ERR_X509_KEY_MISMATCH);
	assert_int_not_equal(hs_cred_load_pem(&c, "junk", 4, EC_KEY_SEC1, strlen(EC_KEY_SEC1)), 0);
}

static void test_names(void **state)
{
	uint8_t der[2048];
	size_t n;
	struct x509_cert cert;
	struct leaf_key k;
	(void)state;
	assert_int_equal(hs_pem_cert_to_der(EC_CERT, strlen(EC_CERT), der, sizeof(der), &n), 0);
	assert_int_equal(x509_cert_parse(&cert, der, n), 0);
	assert_int_equal(x509_leaf_key(&cert, &k), 0);
	assert_int_equal(k.type, KEY_P256);
	assert_int_equal(x509_match_host(&cert, "localhost"), 0);
	assert_int_equal(x509_match_host(&cert, "LocalHost"), 0);
	assert_int_equal(x509_match_host(&cert, "a.example.com"), 0);
	assert_int_not_equal(x509_match_host(&cert, "a.b.example.com"), 0);
	assert_int_not_equal(x509_match_host(&cert, "example.com"), 0);
	assert_int_not_equal(x509_match_host(&cert, "localhost.evil"), 0);
	/* truncated DER: an error, not a crash */
	for (size_t cut = 0; cut < n; cut += 7)
		assert_int_not_equal(x509_cert_parse(&cert, der, cut), 0);
}

static void serve(int fd)
{
	struct hs_cred *cred;
	struct hs_config cfg = { .role = HS_ROLE_SERVER };
	struct hs_conn *s;
	uint8_t buf[256];
	size_t n;
	int ok = hs_cred_load_pem(&cred, EC_CERT, strlen(EC_CERT), EC_KEY_PKCS8,
				  strlen(EC_KEY_PKCS8)) == 0;
	cfg.cred = cred;
	ok = ok && hs_conn_new(&s, &cfg) == 0 && hs_fd_accept(s, fd) == 0;
	/* echo once, then wait for close_notify */
	ok = ok && hs_fd_read(s, fd, buf, sizeof(buf), &n) == 0 && n > 0;
	ok = ok && hs_fd_write(s, fd, buf, n) == 0;
	ok = ok && hs_fd_read(s, fd, buf, sizeof(buf), &n) == 0 && n == 0; /* close_notify */
	ok = ok && hs_fd_close(s, fd) == 0;
	_exit(ok ? 0 : 1);
}

static void test_fd_helpers(void **state)
{
	int sv[2], status;
	struct hs_config cfg = { .role = HS_ROLE_CLIENT, .insecure = 1 };
	struct hs_conn *c;
	uint8_t buf[64];
	size_t n;
	pid_t pid;
	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		serve(sv[1]);
	}
	close(sv[1]);
	assert_int_equal(hs_conn_new(&c, &cfg), 0);
	assert_int_equal(hs_fd_connect(c, sv[0]), 0);
	assert_int_equal(hs_fd_write(c, sv[0], "ping", 4), 0);
	assert_int_equal(hs_fd_read(c, sv[0], buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "ping", 4);
	assert_int_equal(hs_fd_close(c, sv[0]), 0);
	assert_int_equal(hs_fd_read(c, sv[0], buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 0);
	assert_true(hs_conn_peer_closed(c));
	hs_conn_free(c);
	close(sv[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* got == Derive-Secret(secret, label, th) */
static void assert_derived(const struct hash *h, const uint8_t *secret, const char *label,
			   const uint8_t *th, const uint8_t *got)
{
	uint8_t want[HASH_MAX];

	assert_int_equal(derive_secret(h, secret, label, th, want), 0);
	assert_memory_equal(got, want, h->digest_len);
}

/* what keysched_start/_handshake/_master must give, from plain HKDF calls */
static void check_keysched(const struct hash *h, const uint8_t *psk, size_t psk_len)
{
	static const uint8_t shared[32] = { 7, 1, 2, 3 };
	uint8_t zeros[HASH_MAX] = { 0 }, empty[HASH_MAX], th1[HASH_MAX], th2[HASH_MAX];
	uint8_t early[HASH_MAX], salt[HASH_MAX], hs[HASH_MAX], master[HASH_MAX];
	size_t hl = h->digest_len;
	struct keysched ks;

	memset(&ks, 0x5a, sizeof(ks));
	for (size_t i = 0; i < HASH_MAX; i++) {
		th1[i] = (uint8_t)(i * 3);
		th2[i] = (uint8_t)(i * 5 + 1);
	}
	hash_digest(h, "", 0, empty);
	hkdf_extract(h, NULL, 0, psk != NULL ? psk : zeros, psk != NULL ? psk_len : hl, early);
	assert_int_equal(psk != NULL ? keysched_start_psk(&ks, h, psk, psk_len)
				     : keysched_start(&ks, h), 0);
	assert_memory_equal(ks.stage, early, hl);

	assert_int_equal(derive_secret(h, early, "derived", empty, salt), 0);
	hkdf_extract(h, salt, hl, shared, sizeof(shared), hs);
	assert_int_equal(keysched_handshake(&ks, shared, sizeof(shared), th1), 0);
	assert_memory_equal(ks.handshake_secret, hs, hl);
	assert_memory_equal(ks.stage, hs, hl);
	assert_derived(h, hs, "c hs traffic", th1, ks.c_hs);
	assert_derived(h, hs, "s hs traffic", th1, ks.s_hs);

	assert_int_equal(derive_secret(h, hs, "derived", empty, salt), 0);
	hkdf_extract(h, salt, hl, zeros, hl, master);
	assert_int_equal(keysched_master(&ks, th2), 0);
	assert_memory_equal(ks.stage, master, hl);
	assert_derived(h, master, "c ap traffic", th2, ks.c_ap);
	assert_derived(h, master, "s ap traffic", th2, ks.s_ap);
	assert_derived(h, master, "exp master", th2, ks.exp_master);
	/* the salt and the handshake secret are gone once the master exists (c_ap took the salt's bytes) */
	assert_memory_not_equal(ks.salt, salt, hl);
	for (size_t i = 0; i < HASH_MAX; i++)
		assert_int_equal(ks.handshake_secret[i], 0);
	keysched_wipe(&ks);
}

static void test_keysched(void **state)
{
	static const uint8_t psk[32] = { 0x11, 0x22, 0x33 };
	uint8_t empty[HASH_MAX];
	struct hash other;

	(void)state;
	for (int portable = 1; portable >= 0; portable--) {
		cpu_force_portable(portable);
		check_keysched(hash_sha256(), NULL, 0);
		check_keysched(hash_sha384(), NULL, 0);
		check_keysched(hash_sha256(), psk, sizeof(psk));
		check_keysched(hash_sha384(), psk, sizeof(psk));
	}
	/* a hash with no constant row (its own .empty): computed, not looked up */
	other = *hash_sha384();
	hash_digest(&other, "", 0, empty);
	other.empty = empty;
	check_keysched(&other, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alert_table),
		cmocka_unit_test(test_ext_parse),
		cmocka_unit_test(test_record_header),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_fd_helpers),
		cmocka_unit_test(test_keysched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
