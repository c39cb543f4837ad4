/*
 * Proves that hs_x509_verify accepts valid chains built by the openssl CLI
 * (P-256, RSA, P-384 and Ed25519 mixes; out of order; with extra
 * certificates) and refuses each defective one with its specific error:
 * expired, not yet valid, wrong name, wildcard misuse, missing
 * intermediate, wrong EKU, CA:false issuer, path length exceeded, name
 * constraint violation, bad signature, unknown critical extension, leaf
 * keyUsage; and the issue 9 regressions: a trailing-dot or wildcard SAN
 * under an excluded subtree, two-octet pathLenConstraints. Also: the trust store loads a file, a directory and the
 * system bundle, and the TLS client validates the server's chain against
 * its trust store in a real handshake, failing with the specific error and
 * sending the matching alert (bad_certificate, certificate_expired,
 * unknown_ca, ...). The chains come from tests/x509/make-chains.sh (argv[1])
 * run into a fresh temporary directory.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hs/cred.h"
#include "hs/tls.h"
#include "hs/x509.h"
#include "pair.h"

static const char *script;
static char dir[] = "/tmp/hs-x509-XXXXXX";
static struct hs_x509_store *store;

/* 2030-01-01T00:00:00Z: inside every "current" certificate's validity */
#define T_2030 1893456000
#define MAXC 6

struct chain {
	uint8_t *der[MAXC];
	size_t len[MAXC];
	size_t n;
};

static void load(struct chain *c, const char *name)
{
	char path[256], *pem;
	size_t pem_len;

	snprintf(path, sizeof(path), "%s/%s.pem", dir, name);
	assert_int_equal(hs_read_file(path, &pem, &pem_len), 0);
	assert_true(c->n < MAXC);
	c->der[c->n] = malloc(8192);
	assert_non_null(c->der[c->n]);
	assert_int_equal(hs_pem_cert_to_der(pem, pem_len, c->der[c->n], 8192, &c->len[c->n]), 0);
	c->n++;
	free(pem);
}

static void chain_free(struct chain *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->der[i]);
	c->n = 0;
}

/* Verify the named chain (leaf first) for host at time t; returns the error. */
static int check(const char *host, enum hs_x509_purpose p, int64_t t, const char *first, ...)
{
	struct chain c = { 0 };
	struct hs_x509_verify_opts o = { .purpose = p, .host = host, .time = t };
	const char *name = first;
	va_list ap;
	int err;

	va_start(ap, first);
	while (name != NULL) {
		load(&c, name);
		name = va_arg(ap, const char *);
	}
	va_end(ap);
	err = hs_x509_verify(store, (const uint8_t *const *)c.der, c.len, c.n, &o);
	chain_free(&c);
	return err;
}

#define SRV HS_X509_SERVER_AUTH
#define CLI HS_X509_CLIENT_AUTH
#define WWW "www.example.com"

static int setup(void **state)
{
	char cmd[512], path[256];
	static const char *const roots[] = { "root", "rsa_root", "p384_root", "ed_root" };

	(void)state;
	if (script == NULL || system("openssl version >/dev/null 2>&1") != 0) {
		fprintf(stderr, "x509: openssl CLI or make-chains.sh missing\n");
		return -1;
	}
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(cmd, sizeof(cmd), "sh '%s' '%s'", script, dir);
	if (system(cmd) != 0)
		return -1;
	if (hs_x509_store_new(&store) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.pem", dir, roots[i]);
		if (hs_x509_store_load_file(store, path) != 0)
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];

	(void)state;
	hs_x509_store_free(store);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_valid(void **state)
{
	(void)state;
	assert_int_equal(hs_x509_store_count(store), 4);
	assert_int_equal(check(WWW, SRV, T_2030, "leaf", "int", NULL), 0);
	assert_int_equal(check(WWW, CLI, T_2030, "leaf", "int", NULL), 0);
	assert_int_equal(check("WWW.Example.COM.", SRV, T_2030, "leaf", "int", NULL), 0);
	assert_int_equal(check("a.wild.example.com", SRV, T_2030, "leaf", "int", NULL), 0);
	assert_int_equal(check("192.0.2.1", SRV, T_2030, "leaf", "int", NULL), 0);
	assert_int_equal(check("2001:db8::1", SRV, T_2030, "leaf", "int", NULL), 0);
	assert_int_equal(check(NULL, SRV, T_2030, "leaf", "int", NULL), 0);
	/* the current time (0) is inside 2020..2049 too */
	assert_int_equal(check(WWW, SRV, 0, "leaf", "int", NULL), 0);
	/* a non-critical unknown extension is ignored */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_noncrit", "int", NULL), 0);
}

static void test_out_of_order_and_extras(void **state)
{
	(void)state;
	/* the root itself, an unrelated root and an unrelated leaf: ignored */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf", "other", "root", "leaf_other", "int",
			       NULL), 0);
	/* an expired copy of an intermediate with another name does not hide the good one */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf", "int_expired", "int", NULL), 0);
}

static void test_algorithm_mixes(void **state)
{
	(void)state;
	/* RSA root -> P-384 intermediate -> P-256 leaf */
	assert_int_equal(check(WWW, SRV, T_2030, "mix1_leaf", "p384_int", NULL), 0);
	/* P-384 root -> RSA intermediate -> RSA leaf */
	assert_int_equal(check(WWW, SRV, T_2030, "mix2_leaf", "rsa_int", NULL), 0);
	/* Ed25519 root -> Ed25519 leaf */
	assert_int_equal(check(WWW, SRV, T_2030, "ed_leaf", NULL), 0);
}

static void test_validity(void **state)
{
	(void)state;
	assert_int_equal(check(WWW, SRV, T_2030, "expired", "int", NULL), HS_ERR_X509_EXPIRED);
	assert_int_equal(check(WWW, SRV, T_2030, "future", "int", NULL),
			 HS_ERR_X509_NOT_YET_VALID);
	/* the same chain is fine at a time the caller sets */
	assert_int_equal(check(WWW, SRV, 1893456000 + 11 * 365 * 86400LL, "future", "int", NULL), 0);
	assert_int_equal(check(WWW, SRV, 1580000000, "expired", "int", NULL), 0);
	/* an expired intermediate */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_under_expired", "int_expired", NULL),
			 HS_ERR_X509_EXPIRED);
	/* before everything */
	assert_int_equal(check(WWW, SRV, 1000000000, "leaf", "int", NULL),
			 HS_ERR_X509_NOT_YET_VALID);
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(check("other.example.org", SRV, T_2030, "leaf", "int", NULL),
			 HS_ERR_X509_HOSTNAME);
	assert_int_equal(check("example.com", SRV, T_2030, "leaf", "int", NULL),
			 HS_ERR_X509_HOSTNAME);
	assert_int_equal(check("192.0.2.2", SRV, T_2030, "leaf", "int", NULL),
			 HS_ERR_X509_HOSTNAME);
	/* wildcard: one label only, never the parent itself */
	assert_int_equal(check("a.b.wild.example.com", SRV, T_2030, "leaf", "int", NULL),
			 HS_ERR_X509_HOSTNAME);
	assert_int_equal(check("wild.example.com", SRV, T_2030, "leaf", "int", NULL),
			 HS_ERR_X509_HOSTNAME);
	/* wildcard misuse in the certificate: partial label, two wildcards, public suffix */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_badwild", "int", NULL), HS_ERR_X509_HOSTNAME);
	assert_int_equal(check("a.b.example.net", SRV, T_2030, "leaf_badwild", "int", NULL),
			 HS_ERR_X509_HOSTNAME);
	assert_int_equal(check("example.com", SRV, T_2030, "leaf_badwild", "int", NULL),
			 HS_ERR_X509_HOSTNAME);
	/* the chain itself is good: only the names are wrong */
	assert_int_equal(check(NULL, SRV, T_2030, "leaf_badwild", "int", NULL), 0);
}

static void test_issuers(void **state)
{
	(void)state;
	/* missing intermediate */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf", NULL), HS_ERR_X509_UNKNOWN_ISSUER);
	assert_int_equal(check(WWW, SRV, T_2030, "leaf", "root", NULL), HS_ERR_X509_UNKNOWN_ISSUER);
	/* a root not in the store */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_other", "other", NULL),
			 HS_ERR_X509_UNKNOWN_ISSUER);
	/* CA:false issuer */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_notca", "int_notca", NULL),
			 HS_ERR_X509_NOT_CA);
	/* pathlen:0 CA above another CA */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_pl", "int_sub", "int_pl0", NULL),
			 HS_ERR_X509_PATH_LEN);
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_pl_ok", "int_pl0", NULL), 0);
}

static void test_usage(void **state)
{
	(void)state;
	/* leaf EKU clientAuth only */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_client", "int", NULL), HS_ERR_X509_EKU);
	assert_int_equal(check(WWW, CLI, T_2030, "leaf_client", "int", NULL), 0);
	/* intermediate EKU clientAuth limits a serverAuth leaf */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_ekuc", "int_ekuc", NULL), HS_ERR_X509_EKU);
	assert_int_equal(check(WWW, CLI, T_2030, "leaf_ekuc", "int_ekuc", NULL), 0);
	/* leaf keyUsage without digitalSignature */
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_ku", "int", NULL), HS_ERR_X509_KEY_USAGE);
}

static void test_name_constraints(void **state)
{
	(void)state;
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_nc_ok", "int_nc", NULL), 0);
	assert_int_equal(check("www.example.org", SRV, T_2030, "leaf_nc_bad", "int_nc", NULL),
			 HS_ERR_X509_NAME_CONSTRAINT);
	assert_int_equal(check("x.bad.example.com", SRV, T_2030, "leaf_nc_excl", "int_nc", NULL),
			 HS_ERR_X509_NAME_CONSTRAINT);
}

/*
 * Issue 9: under excludedSubtrees secret.example.com, a SAN
 * "secret.example.com." used to pass the constraint (compared as another
 * name) and then match secret.example.com (its dot dropped), and a SAN
 * "*.example.com" matched secret.example.com. Now the first certificate
 * is malformed (a dNSName is never written with a trailing dot) and the
 * wildcard is excluded as the names it can stand for.
 */
static void test_nc_trailing_dot_and_wildcard(void **state)
{
	(void)state;
	assert_int_equal(check("secret.example.com", SRV, T_2030, "ncs_leaf_dot", "int_ncs", NULL),
			 HS_ERR_X509_MALFORMED);
	assert_int_equal(check(NULL, SRV, T_2030, "ncs_leaf_dot", "int_ncs", NULL),
			 HS_ERR_X509_MALFORMED);
	assert_int_equal(check("secret.example.com", SRV, T_2030, "ncs_leaf_wild", "int_ncs", NULL),
			 HS_ERR_X509_NAME_CONSTRAINT);
	assert_int_equal(check("other.example.com", SRV, T_2030, "ncs_leaf_wild", "int_ncs", NULL),
			 HS_ERR_X509_NAME_CONSTRAINT);
	/* the CA itself is fine: a name outside the exclusion passes */
	assert_int_equal(check(WWW, SRV, T_2030, "ncs_leaf_www", "int_ncs", NULL), 0);
}

/*
 * Issue 9: pathLenConstraint 200 used to make the CA malformed and 256 was
 * read as 0 (its low octet); both allow the one CA below them.
 */
static void test_path_len_two_octets(void **state)
{
	(void)state;
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_pl200", "int_pl200_sub", "int_pl200", NULL),
			 0);
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_pl256", "int_pl256_sub", "int_pl256", NULL),
			 0);
}

static void test_unknown_critical(void **state)
{
	(void)state;
	assert_int_equal(check(WWW, SRV, T_2030, "leaf_crit", "int", NULL),
			 HS_ERR_X509_UNKNOWN_CRITICAL);
}

/* Flip one bit of the leaf's signature, then of its TBS. */
static void test_bad_signature(void **state)
{
	struct chain c = { 0 };
	struct hs_x509_verify_opts o = { .purpose = SRV, .host = WWW, .time = T_2030 };

	(void)state;
	load(&c, "leaf");
	load(&c, "int");
	assert_int_equal(hs_x509_verify(store, (const uint8_t *const *)c.der, c.len, 2, &o), 0);
	c.der[0][c.len[0] - 1] ^= 0x01; /* last byte of the signature's s */
	assert_int_equal(hs_x509_verify(store, (const uint8_t *const *)c.der, c.len, 2, &o),
			 HS_ERR_X509_BAD_SIGNATURE);
	c.der[0][c.len[0] - 1] ^= 0x01;
	c.der[0][c.len[0] / 2] ^= 0x01; /* a byte inside the TBS */
	assert_int_equal(hs_x509_verify(store, (const uint8_t *const *)c.der, c.len, 2, &o) != 0, 1);
	c.der[0][c.len[0] / 2] ^= 0x01;
	/* the intermediate's signature (by the root) */
	c.der[1][c.len[1] - 2] ^= 0x10;
	assert_int_equal(hs_x509_verify(store, (const uint8_t *const *)c.der, c.len, 2, &o),
			 HS_ERR_X509_BAD_SIGNATURE);
	chain_free(&c);
}

static void test_chain_too_long(void **state)
{
	const uint8_t *der[HS_X509_MAX_CHAIN + 1];
	size_t len[HS_X509_MAX_CHAIN + 1];
	struct hs_x509_verify_opts o = { .purpose = SRV };
	static const uint8_t junk[1] = { 0 };

	(void)state;
	for (size_t i = 0; i <= HS_X509_MAX_CHAIN; i++) {
		der[i] = junk;
		len[i] = 1;
	}
	assert_int_equal(hs_x509_verify(store, der, len, HS_X509_MAX_CHAIN + 1, &o),
			 HS_ERR_X509_CHAIN_TOO_LONG);
	assert_int_equal(hs_x509_verify(store, der, len, 1, &o), HS_ERR_X509_MALFORMED);
}

static void test_store_dir_and_default(void **state)
{
	struct hs_x509_store *s;
	char sub[64], cmd[1024];

	(void)state;
	snprintf(sub, sizeof(sub), "%s/cadir", dir);
	/* two copies of one root (as a bundle dir's hash links), another, and junk */
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s/root.pem' '%s/' && cp '%s/root.pem' "
		 "'%s/1234abcd.0' && cp '%s/rsa_root.pem' '%s/' && echo junk > '%s/README'",
		 sub, dir, sub, dir, sub, dir, sub, sub);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(hs_x509_store_new(&s), 0);
	assert_int_equal(hs_x509_store_load_dir(s, sub), 0);
	assert_int_equal(hs_x509_store_count(s), 2);
	hs_x509_store_free(s);

	assert_int_equal(hs_x509_store_new(&s), 0);
	assert_int_equal(hs_x509_store_load_file(s, "/nonexistent/ca.pem"), HS_ERR_X509_NO_ANCHORS);
	if (access(HS_X509_DEFAULT_BUNDLE, R_OK) == 0) {
		assert_int_equal(hs_x509_store_load_default(s), 0);
		assert_true(hs_x509_store_count(s) > 50);
	} else {
		fprintf(stderr, "x509: %s absent, default store not checked\n",
			HS_X509_DEFAULT_BUNDLE);
	}
	hs_x509_store_free(s);
}

static char *read_pem(const char *name)
{
	char path[256], *pem;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(hs_read_file(path, &pem, &len), 0);
	pem = realloc(pem, len + 1);
	assert_non_null(pem);
	pem[len] = 0;
	return pem;
}

/*
 * Handshake: the server presents leaf + chain (names concatenated in
 * that order); the client trusts the store and wants host. Returns the
 * client's error; *alert gets the alert it sent (-1 none).
 */
static int handshake(const char *leaf, const char *chain, const char *host, int *alert)
{
	char *cert = read_pem(leaf), *key, *more, kname[64];
	struct pair p;
	int err;

	snprintf(kname, sizeof(kname), "%.40s", leaf);
	memcpy(strstr(kname, ".pem"), ".key", 4);
	key = read_pem(kname);
	if (chain != NULL) {
		more = read_pem(chain);
		cert = realloc(cert, strlen(cert) + strlen(more) + 1);
		assert_non_null(cert);
		strcat(cert, more);
		free(more);
	}
	pair_init(&p, cert, key);
	p.ccfg.anchor_der = NULL;
	p.ccfg.anchor_len = 0;
	p.ccfg.trust = store;
	p.ccfg.server_name = host;
	pair_start(&p);
	err = pair_handshake(&p, 0);
	*alert = hs_conn_alert(p.c, 0);
	if (err == 0)
		assert_int_equal(p.cerr, 0);
	err = p.cerr;
	pair_free(&p);
	free(cert);
	free(key);
	return err;
}

static void test_tls_client_verifies(void **state)
{
	int alert;

	(void)state;
	assert_int_equal(handshake("leaf.pem", "int.pem", WWW, &alert), 0);
	assert_int_equal(alert, -1);
	/* RSA root -> P-384 intermediate -> P-256 leaf */
	assert_int_equal(handshake("mix1_leaf.pem", "p384_int.pem", WWW, &alert), 0);
	assert_int_equal(handshake("leaf.pem", "int.pem", "evil.example.org", &alert),
			 HS_ERR_X509_HOSTNAME);
	assert_string_equal(hs_alert_name(alert), "bad_certificate");
	assert_int_equal(handshake("expired.pem", "int.pem", WWW, &alert), HS_ERR_X509_EXPIRED);
	assert_string_equal(hs_alert_name(alert), "certificate_expired");
	assert_int_equal(handshake("leaf.pem", NULL, WWW, &alert), HS_ERR_X509_UNKNOWN_ISSUER);
	assert_string_equal(hs_alert_name(alert), "unknown_ca");
	assert_int_equal(handshake("leaf_client.pem", "int.pem", WWW, &alert), HS_ERR_X509_EKU);
	assert_string_equal(hs_alert_name(alert), "unsupported_certificate");
	assert_int_equal(handshake("leaf_notca.pem", "int_notca.pem", WWW, &alert),
			 HS_ERR_X509_NOT_CA);
	assert_string_equal(hs_alert_name(alert), "unknown_ca");
	assert_int_equal(handshake("leaf_other.pem", "other.pem", WWW, &alert),
			 HS_ERR_X509_UNKNOWN_ISSUER);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_out_of_order_and_extras),
		cmocka_unit_test(test_algorithm_mixes),
		cmocka_unit_test(test_validity),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_issuers),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_name_constraints),
		cmocka_unit_test(test_nc_trailing_dot_and_wildcard),
		cmocka_unit_test(test_path_len_two_octets),
		cmocka_unit_test(test_unknown_critical),
		cmocka_unit_test(test_bad_signature),
		cmocka_unit_test(test_chain_too_long),
		cmocka_unit_test(test_store_dir_and_default),
		cmocka_unit_test(test_tls_client_verifies),
	};

	script = argc > 1 ? argv[1] : NULL;
	return cmocka_run_group_tests(tests, setup, teardown);
}
