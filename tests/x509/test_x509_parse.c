/*
 * Proves that the X.509 parser (x509/cert.c) accepts every root of
 * the system bundle (skipped, with a message, if the bundle is absent),
 * rejects every truncation and extension of a real certificate, converts
 * RFC 5280 times exactly (known epoch values, leap days, the UTCTime
 * century rule, malformed forms), and that the one host name matcher
 * (RFC 9525) follows its rules case by case (table below): wildcards only as
 * a whole left-most label over two or more labels, IDN A-labels, trailing
 * dots, case, IPv4 and IPv6 literals (full, compressed, IPv4-mapped) against
 * iPAddress entries only.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>

#include "hs/cred.h"
#include "hs/x509.h"
#include "x509/x509.h"

static uint8_t der[65536];

static void test_bundle_roots_parse(void **state)
{
	char *pem;
	size_t pem_len, der_len, n = 0, bad = 0;
	struct reader text;
	struct x509_cert c;

	(void)state;
	if (hs_read_file(HS_X509_DEFAULT_BUNDLE, &pem, &pem_len) != 0) {
		skip(); /* no ca-certificates here: scripts/deps.sh installs it */
		return;
	}
	text = reader_init(pem, pem_len);
	while (pem_next(&text, "CERTIFICATE", der, sizeof(der), &der_len) == 0) {
		int err = x509_cert_parse(&c, der, der_len);
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
	assert_int_equal(x509_cert_parse(&c, der, der_len), 0);
	for (size_t n = 0; n < der_len; n++)
		assert_int_equal(x509_cert_parse(&c, der, n), HS_ERR_X509_MALFORMED);
	der[der_len] = 0;
	assert_int_equal(x509_cert_parse(&c, der, der_len + 1), HS_ERR_X509_MALFORMED);
}

static int64_t t(uint8_t tag, const char *s)
{
	int64_t v = -1;
	struct reader r = reader_init(s, strlen(s));

	if (x509_time(tag, r, &v) != 0)
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

/*
 * One presented name and one reference name. Presented: "D:" a dNSName
 * (bytes as given, so malformed ones too), "I:" an iPAddress from a v4 or
 * v6 literal.
 */
struct match_case {
	const char *presented;
	const char *reference;
	int match;
};

static const struct match_case match_cases[] = {
	/* exact, case-insensitive */
	{ "D:www.example.com", "www.example.com", 1 },
	{ "D:WWW.example.COM", "www.EXAMPLE.com", 1 },
	{ "D:www.example.com", "www.example.co", 0 },
	{ "D:www.example.com", "ww.example.com", 0 },
	{ "D:www.example.com", "wwwXexample.com", 0 },
	/* trailing dots: one on the reference is a fully qualified name */
	{ "D:www.example.com", "www.example.com.", 1 },
	{ "D:www.example.com", "www.example.com..", 0 },
	{ "D:www.example.com", ".www.example.com", 0 },
	{ "D:www.example.com.", "www.example.com", 0 },
	{ "D:www.example.com.", "www.example.com.", 0 },
	{ "D:www..example.com", "www..example.com", 0 },
	{ "D:example.com", ".", 0 },
	{ "D:example.com", "", 0 },
	{ "D:", "example.com", 0 },
	/* wildcards: whole left-most label, one label, two or more after it */
	{ "D:*.example.com", "a.example.com", 1 },
	{ "D:*.example.com", "A-b.Example.com", 1 },
	{ "D:*.example.com", "a.example.com.", 1 },
	{ "D:*.EXAMPLE.com", "a.example.COM", 1 },
	{ "D:*.example.com", "example.com", 0 },
	{ "D:*.example.com", "a.b.example.com", 0 },
	{ "D:*.example.com", ".example.com", 0 },
	{ "D:*.example.com", "*.example.com", 0 },
	{ "D:w*.example.com", "www.example.com", 0 },
	{ "D:*w.example.com", "www.example.com", 0 },
	{ "D:ww*w.example.com", "www.example.com", 0 },
	{ "D:www.*.com", "www.example.com", 0 },
	{ "D:*.*.example.com", "a.b.example.com", 0 },
	{ "D:*.com", "foo.com", 0 },
	{ "D:*.com", "example.com", 0 },
	{ "D:*.com.", "foo.com", 0 },
	{ "D:*", "com", 0 },
	{ "D:*.", "com", 0 },
	{ "D:*.co.uk", "example.co.uk", 1 }, /* no public suffix list: two labels suffice */
	/* IDN: A-labels compare as ASCII; a wildcard covers a whole A-label */
	{ "D:xn--bcher-kva.example", "xn--bcher-kva.example", 1 },
	{ "D:XN--BCHER-KVA.example", "xn--bcher-kva.EXAMPLE", 1 },
	{ "D:xn--bcher-kva.example", "xn--bcher-kvb.example", 0 },
	{ "D:*.example.com", "xn--bcher-kva.example.com", 1 },
	{ "D:xn--*.example.com", "xn--bcher-kva.example.com", 0 },
	{ "D:xn--bcher-kva.example", "b\xc3\xbc" "cher.example", 0 }, /* U-labels are the caller's */
	/* reference names that are no host name */
	{ "D:exa mple.com", "exa mple.com", 0 },
	{ "D:example.com", "example.com/", 0 },
	{ "D:192.0.2.1", "192.0.2.1", 0 }, /* an IP never matches a dNSName */
	{ "D:1.2.3", "1.2.3", 0 },         /* numeric last label: a broken IPv4 */
	{ "D:127.0.0.256", "127.0.0.256", 0 },
	{ "D:2001:db8::1", "2001:db8::1", 0 },
	/* IPv4 */
	{ "I:192.0.2.1", "192.0.2.1", 1 },
	{ "I:192.0.2.1", "192.0.2.2", 0 },
	{ "I:192.0.2.1", "192.0.2.1.", 0 },
	{ "I:192.0.2.1", "192.0.2", 0 },
	{ "I:192.0.2.1", "192.0.2.1.5", 0 },
	{ "I:192.0.2.1", "192.0.2.01", 0 },
	{ "I:192.0.2.1", "0xc0.0.2.1", 0 },
	{ "I:192.0.2.1", "www.example.com", 0 },
	/* IPv6: full, compressed, any case; no brackets or zones */
	{ "I:2001:db8::1", "2001:db8::1", 1 },
	{ "I:2001:db8::1", "2001:0db8:0000:0000:0000:0000:0000:0001", 1 },
	{ "I:2001:db8::1", "2001:DB8:0:0::1", 1 },
	{ "I:2001:db8::1", "2001:db8::2", 0 },
	{ "I:2001:db8::1", "[2001:db8::1]", 0 },
	{ "I:2001:db8::1", "2001:db8::1%eth0", 0 },
	{ "I:::1", "::1", 1 },
	/* IPv4-mapped IPv6: 16 bytes, never the 4-byte address */
	{ "I:::ffff:192.0.2.1", "::ffff:192.0.2.1", 1 },
	{ "I:::ffff:192.0.2.1", "::ffff:c000:201", 1 },
	{ "I:::ffff:192.0.2.1", "192.0.2.1", 0 },
	{ "I:192.0.2.1", "::ffff:192.0.2.1", 0 },
};

static int match_one(const struct match_case *mc)
{
	uint8_t san[300];
	size_t n;
	struct x509_cert c;
	const char *p = mc->presented + 2;

	memset(&c, 0, sizeof(c));
	if (mc->presented[0] == 'D') {
		n = strlen(p);
		san[0] = 0x82;
		san[1] = (uint8_t)n;
		memcpy(san + 2, p, n);
	} else if (inet_pton(AF_INET, p, san + 2) == 1) {
		san[0] = 0x87;
		san[1] = 4;
		n = 4;
	} else {
		assert_int_equal(inet_pton(AF_INET6, p, san + 2), 1);
		san[0] = 0x87;
		san[1] = 16;
		n = 16;
	}
	c.san = reader_init(san, n + 2);
	return x509_match_host(&c, mc->reference);
}

static void test_host_match_table(void **state)
{
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		const struct match_case *mc = &match_cases[i];
		int err = match_one(mc);
		if (err != (mc->match ? 0 : HS_ERR_X509_HOSTNAME)) {
			fprintf(stderr, "host match: %s vs \"%s\": got %d, want %s\n", mc->presented,
				mc->reference, err, mc->match ? "a match" : "none");
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* The preferred name syntax a SAN dNSName must follow (ext.c refuses others). */
static void test_dns_name_syntax(void **state)
{
	static const char *const good[] = { "a", "example.com", "*.example.com", "xn--bcher-kva.de",
					     "a_b.example", "1.example" };
	static const char *const bad[] = { "", ".", "example.com.", ".example.com", "a..b",
					   "exa mple.com", "example.com\x7f" };
	char label[80];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(x509_dns_name_ok((const uint8_t *)good[i], strlen(good[i])));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(x509_dns_name_ok((const uint8_t *)bad[i], strlen(bad[i])));
	/* labels of 63 octets at most */
	memset(label, 'a', sizeof(label));
	assert_true(x509_dns_name_ok((const uint8_t *)label, 63));
	assert_false(x509_dns_name_ok((const uint8_t *)label, 64));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundle_roots_parse),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_host_match_table),
		cmocka_unit_test(test_dns_name_syntax),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
