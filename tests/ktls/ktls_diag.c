/*
 * kTLS diagnostics: ktls_list (sock_diag, INET_DIAG_ULP_INFO via libmnl),
 * ktls_stat (/proc/net/tls_stat) and the hs-ktls-stat tool.
 *
 * Proves, on a kernel with kTLS (inside UML): with one kTLS connection per
 * suite open (made-up secrets, both ends on the kernel, the receiving end
 * with TLS_RX_EXPECT_NO_PAD), the list has each of our sockets, by address,
 * with TLS 1.3, the right cipher, TX and RX "sw" and the no-pad flag where
 * set; the counters count them; and the tool prints the same lines.
 * On a kernel without kTLS (the host): the tool says plainly that kTLS is not
 * available and why, and exits 1; the list is empty.
 *
 * HS_KTLS_STAT: the path of the hs-ktls-stat binary.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/tls.h>

#include "hs/tls.h"
#include "kt_util.h"
#include "ktls/diag.h"
#include "hs/ktls.h"

static const uint16_t suites[] = {
	HS_TLS_AES_128_GCM_SHA256,
	HS_TLS_AES_256_GCM_SHA384,
	HS_TLS_CHACHA20_POLY1305_SHA256,
};
#define N (sizeof(suites) / sizeof(suites[0]))

static struct hs_ktls_caps caps;

struct want {
	char local[64], peer[64];
	uint16_t cipher;
	int no_pad, seen;
};

static void sock_name(int fd, int peer, char *out, size_t cap)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	char ip[INET_ADDRSTRLEN];

	assert_int_equal(peer ? getpeername(fd, (struct sockaddr *)&a, &len)
			      : getsockname(fd, (struct sockaddr *)&a, &len),
			 0);
	inet_ntop(AF_INET, &a.sin_addr, ip, sizeof(ip));
	snprintf(out, cap, "%s:%u", ip, ntohs(a.sin_port));
}

static int on_sock(void *arg, const struct ktls_sock *s)
{
	struct want *w = arg;

	for (size_t i = 0; i < 2 * N; i++) {
		if (strcmp(s->local, w[i].local) != 0 || strcmp(s->peer, w[i].peer) != 0)
			continue;
		printf("# %s -> %s: version %#x cipher %s tx %s rx %s%s\n", s->local, s->peer,
		       s->version, ktls_cipher_name(s->cipher), ktls_conf_name(s->txconf),
		       ktls_conf_name(s->rxconf), s->rx_no_pad ? " rx-no-pad" : "");
		if (s->version == TLS_1_3_VERSION && s->cipher == w[i].cipher &&
		    s->txconf == TLS_CONF_SW && s->rxconf == TLS_CONF_SW &&
		    s->rx_no_pad == w[i].no_pad)
			w[i].seen++;
	}
	return 0;
}

static int sum_curr(void *arg, const char *name, unsigned long long v)
{
	if (strcmp(name, "TlsCurrTxSw") == 0 || strcmp(name, "TlsCurrRxSw") == 0)
		*(unsigned long long *)arg += v;
	return 0;
}

/* Run the tool; returns its exit status and its output in out. */
static int run_tool(const char *args, char *out, size_t cap)
{
	const char *tool = getenv("HS_KTLS_STAT");
	char cmd[512];
	size_t n = 0;
	FILE *p;
	int st;

	assert_non_null(tool);
	snprintf(cmd, sizeof(cmd), "%s %s", tool, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < cap && fgets(out + n, (int)(cap - n), p))
		n += strlen(out + n);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_list(void **state)
{
	static char out[1 << 16];
	struct hs_ktls *k[2 * N];
	struct want w[2 * N];
	int fds[2 * N];
	unsigned long long curr = 0;

	(void)state;
	if (!caps.ulp) {
		assert_int_equal(run_tool("", out, sizeof(out)), 1);
		printf("%s", out);
		assert_non_null(strstr(out, "kTLS: not available: "));
		assert_non_null(strstr(out, "CONFIG_TLS"));
		return;
	}
	memset(w, 0, sizeof(w));
	for (size_t i = 0; i < N; i++) {
		struct hs_secrets a, b;
		struct test_rng rng = { .s = i + 1 };
		int pair[2];

		assert_int_equal(kt_tcp_pair(pair), 0);
		kt_secrets(&a, &b, suites[i], &rng, 0, 0);
		for (int j = 0; j < 2; j++) {
			struct want *x = &w[2 * i + j];
			k[2 * i + j] = calloc(1, sizeof(struct hs_ktls));
			assert_non_null(k[2 * i + j]);
			fds[2 * i + j] = pair[j];
			assert_int_equal(hs_ktls_init(k[2 * i + j], pair[j], j ? &b : &a,
						      HS_KTLS_F_KERNEL_ONLY | (j ? HS_KTLS_F_NO_PAD : 0),
						      NULL),
					 0);
			sock_name(pair[j], 0, x->local, sizeof(x->local));
			sock_name(pair[j], 1, x->peer, sizeof(x->peer));
			x->cipher = hs_ktls_cipher_for_suite(suites[i])->kernel_type;
			x->no_pad = j;
		}
		hs_secrets_wipe(&a);
		hs_secrets_wipe(&b);
	}
	assert_int_equal(ktls_list(on_sock, w), 0);
	for (size_t i = 0; i < 2 * N; i++)
		assert_int_equal(w[i].seen, 1);
	assert_int_equal(ktls_stat(sum_curr, &curr), 0);
	assert_true(curr >= 4 * N); /* TX and RX of each of our 2N sockets */

	/* the tool lists the same sockets */
	assert_int_equal(run_tool("", out, sizeof(out)), 0);
	printf("%s", out);
	assert_non_null(strstr(out, "kTLS: available"));
	assert_non_null(strstr(out, "TlsCurrTxSw"));
	for (size_t i = 0; i < 2 * N; i++) {
		char line[1024];
		snprintf(line, sizeof(line), "%s %s TLS1.3 %s tx sw rx sw%s\n", w[i].local,
			 w[i].peer, ktls_cipher_name(w[i].cipher), w[i].no_pad ? " rx-no-pad" : "");
		assert_non_null(strstr(out, line));
	}
	for (size_t i = 0; i < 2 * N; i++) {
		hs_ktls_wipe(k[i]);
		free(k[i]);
		close(fds[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
	};

	if (hs_ktls_probe(&caps) != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
