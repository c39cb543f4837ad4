/*
 * libFuzzer target for the X.509 certificate parser (x509/cert.c,
 * ext.c) and what runs on a parsed certificate: the host name and
 * name-constraint matchers (name.c) and the signature check with the
 * certificate's own key (sig.c, so fuzzed keys and signatures reach
 * the verifiers). The parser's sources are compiled into this program with
 * the fuzzer's instrumentation (see tests/meson.build); crashes, sanitizer
 * reports and leaks fail the run. Seed corpus: the system bundle's roots
 * (tests/fuzz/run-x509-fuzz.sh).
 */
#include <stddef.h>
#include <stdint.h>

#include "x509/x509.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct x509_cert c;

	if (x509_cert_parse(&c, data, size) != 0)
		return 0;
	/* results do not matter, only that nothing reads out of bounds */
	(void)!x509_match_host(&c, "www.example.com");
	(void)!x509_match_host(&c, "192.0.2.1");
	(void)!x509_match_host(&c, "2001:db8::1");
	(void)!x509_check_nc(&c, &c);
	(void)!x509_check_sig(&c, &c);
	return 0;
}
