/*
 * hs-ktls-stat: what this kernel's TLS can do, which sockets use it, and the
 * kernel's kTLS counters.
 *
 *   hs-ktls-stat            probe + sockets + /proc/net/tls_stat
 *   hs-ktls-stat -s         sockets only, one per line (for scripts)
 *   hs-ktls-stat --json     one JSON object per line: the kernel, each
 *                           socket, the counters (keys: ktls/README.md)
 *
 * Exit status: 0 the kernel has kTLS, 1 it has not (the reason is printed),
 * 2 usage or a netlink error.
 *
 * Implementation notes: the probe (hs_ktls_probe) tries the kernel on
 * loopback sockets; the socket list is sock_diag (ktls/diag.c, libmnl); the
 * counters are /proc/net/tls_stat read as is. Nothing here needs privileges.
 */
#include <stdio.h>
#include <string.h>

#include "hs/ktls.h"
#include "ktls/diag.h"

#ifndef HS_VERSION_STRING
#error "HS_VERSION_STRING comes from ktls/meson.build (the meson project version)"
#endif

enum mode { MODE_TEXT, MODE_SOCKETS, MODE_JSON };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hs-ktls-stat [-s | --json] [--help] [--version]\n"
		"Kernel TLS (kTLS) on this machine: what the running kernel can do, which TCP\n"
		"sockets use it, and the kernel's kTLS counters.\n\n"
		"  (no option)   three parts: the probe (does the kernel take TCP_ULP \"tls\",\n"
		"                which ciphers install for TX and RX, TLS_RX_EXPECT_NO_PAD,\n"
		"                TLS 1.3 rekey), the sockets, /proc/net/tls_stat\n"
		"  -s            sockets only, one per line: local peer version cipher tx rx\n"
		"                [rx-no-pad] [zc-ro-tx]\n"
		"  --json        one JSON object per line: {\"type\":\"kernel\",...}, then one\n"
		"                {\"type\":\"socket\",...} per socket, then {\"type\":\"tls_stat\",...}\n"
		"  --version     print the version and exit\n"
		"  --help        this text\n\n"
		"The probe tries the kernel on loopback sockets (no privileges needed); a\n"
		"kernel without kTLS (no CONFIG_TLS, tls module absent) is said so plainly, with\n"
		"the reason, instead of printing zeros. Sockets come from sock_diag (like ss -tie,\n"
		"but every cipher is named). tx/rx: sw (kernel software crypto), hw (NIC),\n"
		"hw-record, none (that direction not installed).\n\n"
		"Exit status: 0 the kernel has kTLS, 1 it has not (reason printed), 2 usage or a\n"
		"netlink error.\n");
}

/* a JSON string value; the kernel's and uname's strings are printable ASCII,
 * but escape anyway */
static void json_str(const char *key, const char *v)
{
	printf("\"%s\":\"", key);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p > 0x7e)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static const char *version_name(uint16_t v)
{
	return v == 0x0304 ? "TLS1.3" : v == 0x0303 ? "TLS1.2" : "-";
}

struct walk {
	enum mode mode;
	int count;
};

static int print_sock(void *arg, const struct ktls_sock *s)
{
	struct walk *w = arg;

	w->count++;
	if (w->mode == MODE_JSON) {
		printf("{\"type\":\"socket\",");
		json_str("local", s->local);
		putchar(',');
		json_str("peer", s->peer);
		printf(",\"inode\":%u,", (unsigned)s->inode);
		json_str("version", version_name(s->version));
		putchar(',');
		json_str("cipher", ktls_cipher_name(s->cipher));
		putchar(',');
		json_str("tx", ktls_conf_name(s->txconf));
		putchar(',');
		json_str("rx", ktls_conf_name(s->rxconf));
		printf(",\"rx_no_pad\":%s,\"zc_ro_tx\":%s}\n", s->rx_no_pad ? "true" : "false",
		       s->zc_ro_tx ? "true" : "false");
		return 0;
	}
	printf("%s %s %s %s tx %s rx %s%s%s\n", s->local, s->peer, version_name(s->version),
	       ktls_cipher_name(s->cipher), ktls_conf_name(s->txconf),
	       ktls_conf_name(s->rxconf), s->rx_no_pad ? " rx-no-pad" : "",
	       s->zc_ro_tx ? " zc-ro-tx" : "");
	return 0;
}

static int print_stat(void *arg, const char *name, unsigned long long v)
{
	int *n = arg;

	if (n != NULL) /* --json: "name":value, comma-separated */
		printf("%s\"%s\":%llu", (*n)++ > 0 ? "," : "", name, v);
	else
		printf("  %-28s %llu\n", name, v);
	return 0;
}

static int count_stat(void *arg, const char *name, unsigned long long v)
{
	(void)name;
	(void)v;
	(*(int *)arg)++;
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

/* {"type":"kernel","release":..,"ktls":..,"reason":..,"tx":[..],"rx":[..],...} */
static void json_caps(const struct hs_ktls_caps *c)
{
	printf("{\"type\":\"kernel\",");
	json_str("release", c->release);
	printf(",\"ktls\":%s,", c->ulp ? "true" : "false");
	if (c->why != HS_KTLS_WHY_NONE)
		json_str("reason", c->reason);
	else
		printf("\"reason\":null");
	for (int dir = 0; dir < 2; dir++) {
		unsigned bits = dir ? c->rx : c->tx;
		int n = 0;
		printf(",\"%s\":[", dir ? "rx" : "tx");
		for (int id = 0; id < HS_KTLS_N_CIPHERS; id++)
			if (bits & (1u << id))
				printf("%s\"%s\"", n++ ? "," : "",
				       hs_ktls_cipher_by_id((enum hs_ktls_cipher_id)id)->name);
		putchar(']');
	}
	printf(",\"rx_no_pad\":%s,\"rekey\":%s}\n", c->no_pad ? "true" : "false",
	       c->rekey ? "true" : "false");
}

static int parse_args(int argc, char **argv, enum mode *mode)
{
	*mode = MODE_TEXT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--version") == 0) {
			printf("hs-ktls-stat %s (hs TLS 1.3)\n", HS_VERSION_STRING);
			return 0;
		} else if (strcmp(a, "-s") == 0 && *mode == MODE_TEXT) {
			*mode = MODE_SOCKETS;
		} else if (strcmp(a, "--json") == 0 && *mode == MODE_TEXT) {
			*mode = MODE_JSON;
		} else {
			fprintf(stderr, "hs-ktls-stat: %s '%s' (try --help)\n",
				a[0] == '-' ? "unknown or conflicting option" : "unexpected argument", a);
			return 2;
		}
	}
	return -1; /* go on */
}

int main(int argc, char **argv)
{
	struct hs_ktls_caps caps;
	enum mode mode;
	struct walk w = { 0 };
	int rc = parse_args(argc, argv, &mode), n_stat = 0, err;

	if (rc >= 0)
		return rc;
	if (hs_ktls_probe(&caps) != 0) {
		fprintf(stderr, "hs-ktls-stat: the kernel probe failed\n");
		return 2;
	}
	if (mode == MODE_TEXT) {
		print_caps(&caps);
		printf("sockets (local peer version cipher tx rx):\n");
	} else if (mode == MODE_JSON) {
		json_caps(&caps);
	}
	w.mode = mode;
	err = ktls_list(print_sock, &w);
	if (err) {
		fprintf(stderr, "hs-ktls-stat: sock_diag: %s\n", hs_strerror(err));
		return 2;
	}
	if (mode == MODE_SOCKETS)
		return caps.ulp ? 0 : 1;
	if (mode == MODE_JSON) {
		/* absent file (no tls module): present false and no counters */
		int present = ktls_stat(count_stat, &n_stat) == 0;
		printf("{\"type\":\"tls_stat\",\"present\":%s,\"counters\":{",
		       present ? "true" : "false");
		n_stat = 0;
		if (present)
			(void)!ktls_stat(print_stat, &n_stat);
		printf("}}\n");
		return caps.ulp ? 0 : 1;
	}
	if (w.count == 0)
		printf("  (none)\n");
	printf("/proc/net/tls_stat:\n");
	if (ktls_stat(print_stat, NULL) != 0)
		printf("  (absent: no tls module loaded)\n");
	return caps.ulp ? 0 : 1;
}
