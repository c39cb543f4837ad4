/*
 * hs-ktls-stat: what this kernel's TLS can do, which sockets use it, and the
 * kernel's kTLS counters.
 *
 *   hs-ktls-stat            probe + sockets + /proc/net/tls_stat
 *   hs-ktls-stat -s         sockets only, one per line (for scripts)
 *
 * Exit status: 0 the kernel has kTLS, 1 it has not (the reason is printed),
 * 2 usage or a netlink error.
 */
#include <stdio.h>
#include <string.h>

#include "ktls/diag.h"
#include "hs/ktls.h"

static int print_sock(void *arg, const struct ktls_sock *s)
{
	int *count = arg;

	(*count)++;
	printf("%s %s %s %s tx %s rx %s%s%s\n", s->local, s->peer,
	       s->version == 0x0304 ? "TLS1.3" : s->version == 0x0303 ? "TLS1.2" : "-",
	       ktls_cipher_name(s->cipher), ktls_conf_name(s->txconf),
	       ktls_conf_name(s->rxconf), s->rx_no_pad ? " rx-no-pad" : "",
	       s->zc_ro_tx ? " zc-ro-tx" : "");
	return 0;
}

static int print_stat(void *arg, const char *name, unsigned long long v)
{
	(void)arg;
	printf("  %-28s %llu\n", name, v);
	return 0;
}

static void print_caps(const struct hs_ktls_caps *c)
{
	printf("kernel: Linux %s\n", c->release);
	if (!c->ulp) {
		printf("kTLS: not available: %s\n", c->reason);
		return;
	}
	printf("kTLS: available\n");
	for (int id = 0; id < HS_KTLS_N_CIPHERS; id++) {
		const struct hs_ktls_cipher *k = hs_ktls_cipher_by_id((enum hs_ktls_cipher_id)id);
		printf("  %-18s TX %s, RX %s\n", k->name, c->tx & (1u << id) ? "yes" : "no",
		       c->rx & (1u << id) ? "yes" : "no");
	}
	printf("  TLS_RX_EXPECT_NO_PAD: %s\n", c->no_pad ? "yes" : "no (Linux < 6.0)");
	printf("  rekey (TLS 1.3 KeyUpdate): %s\n", c->rekey ? "yes" : "no (Linux < 6.14)");
	if (c->why != HS_KTLS_WHY_NONE)
		printf("  missing: %s\n", c->reason);
}

int main(int argc, char **argv)
{
	struct hs_ktls_caps caps;
	int sockets_only = argc == 2 && strcmp(argv[1], "-s") == 0, count = 0, err;

	if (argc > 2 || (argc == 2 && !sockets_only)) {
		fprintf(stderr, "usage: hs-ktls-stat [-s]\n");
		return 2;
	}
	if (hs_ktls_probe(&caps) != 0)
		return 2;
	if (!sockets_only) {
		print_caps(&caps);
		printf("sockets (local peer version cipher tx rx):\n");
	}
	err = ktls_list(print_sock, &count);
	if (err) {
		fprintf(stderr, "hs-ktls-stat: sock_diag: %s\n", hs_strerror(err));
		return 2;
	}
	if (sockets_only)
		return caps.ulp ? 0 : 1;
	if (count == 0)
		printf("  (none)\n");
	printf("/proc/net/tls_stat:\n");
	if (ktls_stat(print_stat, NULL) != 0)
		printf("  (absent: no tls module loaded)\n");
	return caps.ulp ? 0 : 1;
}
