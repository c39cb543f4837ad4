/*
 * handshaked's configuration reader: Debian's tlshd.conf layout as it
 * ships (tests/handshaked/tlshd.conf), our [handshaked] section, and each
 * kind of bad line refused with its line number.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "handshaked/conf.h"

static char path[64];

static void write_conf(const char *text)
{
	int fd;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/hsd-conf.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_debian_file(void **state)
{
	struct hsd_conf c;
	char why[256] = "";
	const char *dir = getenv("HSD_TEST_DIR");
	char file[512];

	(void)state;
	assert_non_null(dir);
	snprintf(file, sizeof(file), "%s/tlshd.conf", dir);
	assert_int_equal(hsd_conf_load(file, &c, why, sizeof(why)), 0);
	assert_string_equal(c.client.truststore, "/etc/tlshd/ca.pem");
	assert_string_equal(c.client.certificate, "");
	assert_string_equal(c.server.certificate, "/etc/tlshd/server.pem");
	assert_string_equal(c.server.private_key, "/etc/tlshd/server.key");
	assert_int_equal(c.n_keyrings, 2);
	assert_string_equal(c.keyrings[0], ".nfs");
	assert_string_equal(c.keyrings[1], ".nvme");
	assert_int_equal(c.max_handshakes, 64);
}

static void test_our_section(void **state)
{
	struct hsd_conf c;
	char why[256] = "";

	(void)state;
	write_conf("[debug]\nloglevel = 3\n[handshaked]\nmax_handshakes=8\nsocket=/run/handshaked.sock\n"
		   "socket_group=tls\nfuture_key=1\n[some.future.group]\nx=y\n");
	assert_int_equal(hsd_conf_load(path, &c, why, sizeof(why)), 0);
	assert_int_equal(c.loglevel, 3);
	assert_int_equal(c.max_handshakes, 8);
	assert_string_equal(c.socket_path, "/run/handshaked.sock");
	assert_string_equal(c.socket_group, "tls");
	unlink(path);
}

static void bad(const char *text, const char *expect)
{
	struct hsd_conf c;
	char why[256] = "";

	write_conf(text);
	assert_int_equal(hsd_conf_load(path, &c, why, sizeof(why)), -1);
	if (strstr(why, expect) == NULL)
		fail_msg("'%s' does not say '%s'", why, expect);
	unlink(path);
}

static void test_bad_lines(void **state)
{
	(void)state;
	bad("[debug]\nloglevel=0\njust words\n", ":3: not a key=value line");
	bad("loglevel=0\n", ":1: not a key=value line (before any [group])");
	bad("[debug\n", ":1: bad group line");
	bad("[debug]\nloglevel=lots\n", ":2: bad value for loglevel in [debug]");
	bad("[handshaked]\nmax_handshakes=0\n", ":2: bad value for max_handshakes");
	bad("[authenticate]\nkeyrings=a;b;c;d;e;f;g;h;i\n", ":2: bad value for keyrings");
}

static void test_missing_file(void **state)
{
	struct hsd_conf c;
	char why[256] = "";

	(void)state;
	assert_int_equal(hsd_conf_load("/nonexistent/tlshd.conf", &c, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "/nonexistent/tlshd.conf: No such file or directory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian_file),
		cmocka_unit_test(test_our_section),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
