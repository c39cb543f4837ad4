/*
 * Proves that the X.509 parser (libhs/x509_cert.c) accepts every root of
 * the system bundle (skipped, with a message, if the bundle is absent),
 * rejects every truncation and extension of a real certificate, converts
 * RFC 5280 times exactly (known epoch values, leap days, the UTCTime
 * century rule, malformed forms), and that the RFC 6125 host name matcher
 * takes a wildcard only as the whole left-most label.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hs/cred.h"
#include "hs/x509.h"
#include "libhs/internal.h"
#include "libhs/x509_cert.h"

static uint8_t der[65536];

static void test_bundle_roots_parse(void **state)
{
	char *pem;
	size_t pem_len, der_len, n = 0, bad = 0;
	struct hs_reader text;
	struct x509_cert c;

	(void)state;
	if (hs_read_file(HS_X509_DEFAULT_BUNDLE, &pem, &pem_len) != 0) {
		skip(); /* no ca-certificates here: scripts/deps.sh installs it */
		return;
	}
	text = hs_reader_init(pem, pem_len);
	while (hs_pem_next(&text, "CERTIFICATE", der, sizeof(der), &der_len) == 0) {
		int err = hs_x509_cert_parse(&c, der, der_len);
		n++;
		if (err != 0) {
			bad++;
			fprintf(stderr, "bundle certificate %zu: %s\n", n, hs_strerror(err));
			continue;
		}
		/* roots are self-issued CAs with a key */
		assert_true(c.issuer.len > 0 && c.subject.len > 0);
		assert_true(c.not_before < c.not_after);
	}
	free(pem);
	fprintf(stderr, "x509: %zu bundle roots, %zu failed to parse\n", n, bad);
	assert_true(n > 0);
	assert_int_equal(bad, 0);
}

/* Every prefix and every one-byte extension of a good certificate fails. */
static void test_truncation(void **state)
{
	char *pem;
	size_t pem_len, der_len;
	struct x509_cert c;

	(void)state;
	if (hs_read_file(HS_X509_DEFAULT_BUNDLE, &pem, &pem_len) != 0) {
		skip();
		return;
	}
	assert_int_equal(hs_pem_cert_to_der(pem, pem_len, der, sizeof(der) - 1, &der_len), 0);
	free(pem);
	assert_int_equal(hs_x509_cert_parse(&c, der, der_len), 0);
	for (size_t n = 0; n < der_len; n++)
		assert_int_equal(hs_x509_cert_parse(&c, der, n), HS_ERR_X509_MALFORMED);
	der[der_len] = 0;
	assert_int_equal(hs_x509_cert_parse(&c, der, der_len + 1), HS_ERR_X509_MALFORMED);
}

static int64_t t(uint8_t tag, const char *s)
{
	int64_t v = -1;
	struct hs_reader r = hs_reader_init(s, strlen(s));

	if (hs_x509_time(tag, r, &v) != 0)
		return -1;
	return v;
}

static void test_time(void **state)
{
	(void)state;
	/* values from `date -u -d ... +%s` */
	assert_int_equal(t(0x17, "700101000000Z"), 0);
	assert_int_equal(t(0x17, "000229120000Z"), 951825600);      /* 2000 is leap */
	assert_int_equal(t(0x17, "491231235959Z"), 2524607999LL);   /* 2049 */
	assert_int_equal(t(0x17, "500101000000Z"), -631152000LL);   /* 1950 */
	assert_int_equal(t(0x18, "20500101000000Z"), 2524608000LL);
	assert_int_equal(t(0x18, "21000228235959Z"), 4107542399LL);
	assert_int_equal(t(0x18, "20240229000000Z"), 1709164800LL); /* tolerated pre-2050 */
	/* malformed */
	assert_int_equal(t(0x18, "21000229000000Z"), -1); /* 2100 is not leap */
	assert_int_equal(t(0x17, "230230000000Z"), -1);
	assert_int_equal(t(0x17, "231301000000Z"), -1);
	assert_int_equal(t(0x17, "231200000000Z"), -1);
	assert_int_equal(t(0x17, "231231240000Z"), -1);
	assert_int_equal(t(0x17, "231231236000Z"), -1);
	assert_int_equal(t(0x17, "231231235960Z"), -1);
	assert_int_equal(t(0x17, "2312312359Z"), -1);      /* no seconds */
	assert_int_equal(t(0x17, "231231235959+0100"), -1);
	assert_int_equal(t(0x17, "2312312359590"), -1);
	assert_int_equal(t(0x17, "23123123595 Z"), -1);
	assert_int_equal(t(0x18, "20231231235959.5Z"), -1);
	assert_int_equal(t(0x18, "202312312359Z"), -1);
	assert_int_equal(t(0x04, "231231235959Z"), -1);
}

static int m(const char *pat, const char *host)
{
	return hs_x509_dns_match((const uint8_t *)pat, strlen(pat), host);
}

static void test_dns_match(void **state)
{
	(void)state;
	assert_true(m("www.example.com", "www.example.com"));
	assert_true(m("WWW.example.COM", "www.EXAMPLE.com"));
	assert_true(m("www.example.com", "www.example.com."));
	assert_true(m("*.example.com", "a.example.com"));
	assert_true(m("*.example.com", "A-b.Example.com"));
	assert_false(m("*.example.com", "example.com"));
	assert_false(m("*.example.com", "a.b.example.com"));
	assert_false(m("*.example.com", ".example.com"));
	assert_false(m("w*.example.com", "www.example.com"));
	assert_false(m("*w.example.com", "www.example.com"));
	assert_false(m("ww*w.example.com", "www.example.com"));
	assert_false(m("www.*.com", "www.example.com"));
	assert_false(m("*.*.example.com", "a.b.example.com"));
	assert_false(m("*.com", "example.com"));
	assert_false(m("*", "com"));
	assert_false(m("*.example.com", "*.example.com"));
	assert_false(m("www.example.com", "www.example.co"));
	assert_false(m("www.example.com", "ww.example.com"));
	assert_false(m("", "example.com"));
	assert_false(m("example.com", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundle_roots_parse),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_dns_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
