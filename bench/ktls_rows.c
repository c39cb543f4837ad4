/*
 * Implementation notes: the rows of "hs-bench ktls".
 *
 * One-direction throughput over loopback TCP, 16 KiB writes, for each TLS
 * 1.3 suite, on two record paths of ktls/ (made-up keys, no handshake):
 *
 *   ktls SUITE kernel 16 KiB      both ends on kernel TLS (TLS_TX / TLS_RX)
 *   ktls SUITE userspace 16 KiB   both ends on hs's own record layer over
 *                                 plain send/recv (the fallback path)
 *
 * The sender is this thread, the receiver another thread of this process,
 * so the CPU time counted (CLOCK_PROCESS_CPUTIME_ID, user + system) is that
 * of encrypting, sending, receiving and decrypting. Each repeat sends for
 * --time ms; a row reports the median MB/s of wall time over the repeats
 * [min-max], and the CPU seconds spent per GB moved (median). There is no
 * OpenSSL column here: the comparison is kernel against userspace.
 *
 * Inside User-Mode Linux the kernel has no AES-NI or AVX crypto drivers
 * (generic C only) while the userspace path keeps them, so kernel rows there
 * are for function, not speed: the table says so.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "hs/tls.h"
#include "hs/ktls.h"

#define WRITE_LEN 16384

/* Declared here and in hs-bench.c's table (bench.h belongs to the bench work). */
int bench_ktls(const struct bench_opts *o);

struct rx_ctx {
	struct hs_ktls *k;
	unsigned long long bytes;
	int err;
};

static double now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int tcp_pair(int fds[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), rc = -1;

	fds[0] = fds[1] = -1;
	if (l < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0 &&
	    getsockname(l, (struct sockaddr *)&a, &alen) == 0 &&
	    (fds[0] = socket(AF_INET, SOCK_STREAM, 0)) >= 0 &&
	    connect(fds[0], (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    (fds[1] = accept(l, NULL, NULL)) >= 0)
		rc = 0;
	close(l);
	return rc;
}

static void made_up_secrets(struct hs_secrets *tx_side, struct hs_secrets *rx_side,
			    const struct hs_ktls_cipher *c)
{
	memset(tx_side, 0, sizeof(*tx_side));
	tx_side->suite = c->suite;
	tx_side->secret_len = c->secret_len;
	tx_side->key_len = c->key_len;
	tx_side->iv_len = HS_IV_LEN;
	for (size_t i = 0; i < sizeof(tx_side->client.key); i++) {
		tx_side->client.key[i] = (uint8_t)(i * 7 + 1);
		tx_side->server.key[i] = (uint8_t)(i * 5 + 2);
	}
	memset(tx_side->client.iv, 0x11, HS_IV_LEN);
	memset(tx_side->server.iv, 0x22, HS_IV_LEN);
	*rx_side = *tx_side;
	tx_side->tx = &tx_side->client;
	tx_side->rx = &tx_side->server;
	rx_side->tx = &rx_side->server;
	rx_side->rx = &rx_side->client;
}

static void *rx_main(void *arg)
{
	struct rx_ctx *r = arg;
	static uint8_t buf[65536];
	size_t n;

	do {
		r->err = hs_ktls_read(r->k, buf, sizeof(buf), &n);
		r->bytes += n;
	} while (!r->err && n > 0);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct result {
	double mbps[BENCH_MAX_REPEAT], cpu_per_gb[BENCH_MAX_REPEAT];
	unsigned n;
};

/* Send for time_ms per repeat on one connection; 0 or an hs error. */
static int run_path(const struct bench_opts *o, const struct hs_ktls_cipher *c, int kernel,
		    struct result *res, char *why, size_t why_cap)
{
	static uint8_t block[WRITE_LEN];
	struct hs_secrets a, b;
	struct hs_ktls *tx = calloc(1, sizeof(*tx)), *rxk = calloc(1, sizeof(*rxk));
	unsigned flags = kernel ? HS_KTLS_F_KERNEL_ONLY : HS_KTLS_F_USER;
	struct rx_ctx r = { .k = rxk };
	pthread_t th;
	int fds[2], err = HS_ERR_NOMEM;

	memset(block, 0x5a, sizeof(block));
	res->n = 0;
	if (!tx || !rxk || tcp_pair(fds) != 0)
		goto free_mem;
	made_up_secrets(&a, &b, c);
	err = hs_ktls_init(tx, fds[0], &a, flags, NULL);
	if (!err)
		err = hs_ktls_init(rxk, fds[1], &b, flags, NULL);
	hs_secrets_wipe(&a);
	hs_secrets_wipe(&b);
	if (err) {
		snprintf(why, why_cap, "%s", hs_ktls_reason(tx, 0)[0] ? hs_ktls_reason(tx, 0)
								     : hs_ktls_reason(rxk, 1));
		goto close_fds;
	}
	if (pthread_create(&th, NULL, rx_main, &r) != 0)
		goto close_fds;
	for (unsigned rep = 0; !err && rep < o->repeat; rep++) {
		double w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), w1;
		unsigned long long sent = 0;
		do {
			err = hs_ktls_write(tx, block, sizeof(block));
			sent += sizeof(block);
			w1 = now_ns(CLOCK_MONOTONIC);
		} while (!err && w1 - w0 < o->time_ms * 1e6);
		double cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
		res->mbps[res->n] = (double)sent / ((w1 - w0) / 1e9) / 1e6;
		res->cpu_per_gb[res->n] = cpu / 1e9 / ((double)sent / 1e9);
		res->n++;
	}
	if (!err)
		err = hs_ktls_close(tx);
	if (err)
		shutdown(fds[0], SHUT_RDWR);
	pthread_join(th, NULL);
	if (!err && r.err)
		err = r.err;
close_fds:
	close(fds[0]);
	close(fds[1]);
free_mem:
	if (tx)
		hs_ktls_wipe(tx);
	if (rxk)
		hs_ktls_wipe(rxk);
	free(tx);
	free(rxk);
	return err;
}

static int in_uml(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	int uml = 0;

	while (f && !uml && fgets(line, sizeof(line), f))
		uml = strstr(line, "User Mode Linux") != NULL;
	if (f)
		fclose(f);
	return uml;
}

static void emit(const struct bench_opts *o, const char *row, struct result *r, const char *note)
{
	double mb[BENCH_MAX_REPEAT], cpu[BENCH_MAX_REPEAT];

	memcpy(mb, r->mbps, r->n * sizeof(double));
	memcpy(cpu, r->cpu_per_gb, r->n * sizeof(double));
	qsort(mb, r->n, sizeof(double), cmp_double);
	qsort(cpu, r->n, sizeof(double), cmp_double);
	if (o->json)
		printf("{\"row\": \"%s\", \"unit\": \"MB/s\", \"hs\": %.1f, \"openssl\": null, "
		       "\"ratio\": null, \"hs_min\": %.1f, \"hs_max\": %.1f, \"bytes\": %d, "
		       "\"cpu_s_per_gb\": %.3f, \"note\": \"%s\"}\n",
		       row, mb[r->n / 2], mb[0], mb[r->n - 1], WRITE_LEN, cpu[r->n / 2], note);
	else
		printf("%-50s %9.1f [%.1f-%.1f] %12.3f  %s\n", row, mb[r->n / 2], mb[0],
		       mb[r->n - 1], cpu[r->n / 2], note);
}

int bench_ktls(const struct bench_opts *o)
{
	static struct result res;
	struct hs_ktls_caps caps;
	int uml = in_uml(), status = 0, matched = 0;
	char row[128], why[200];

	bench_header(o, "ktls");
	if (hs_ktls_probe(&caps) == 0 && !caps.ulp)
		fprintf(o->json ? stderr : stdout, "  ktls:     kernel TLS not available: %s\n",
			caps.reason);
	if (uml)
		fprintf(o->json ? stderr : stdout,
			"  ktls:     inside User-Mode Linux: the kernel has no AES-NI/AVX crypto, "
			"kernel rows are for function, not speed\n");
	if (!o->json)
		printf("\n%-50s %9s %-15s %12s\n", "row", "MB/s", "[min-max]", "CPU s/GB");
	for (int id = 0; id < HS_KTLS_N_CIPHERS; id++) {
		const struct hs_ktls_cipher *c = hs_ktls_cipher_by_id((enum hs_ktls_cipher_id)id);
		for (int kernel = 1; kernel >= 0; kernel--) {
			snprintf(row, sizeof(row), "ktls %s %s 16 KiB", hs_suite_name(c->suite),
				 kernel ? "kernel" : "userspace");
			if (!bench_match(o, row))
				continue;
			matched++;
			why[0] = 0;
			int err = run_path(o, c, kernel, &res, why, sizeof(why));
			if (err && kernel && !caps.ulp) {
				fprintf(stderr, "%s: skipped: %s\n", row, why);
				continue;
			}
			if (err || res.n == 0) {
				fprintf(stderr, "%s: failed: %s %s\n", row, hs_strerror(err), why);
				status = 1;
				continue;
			}
			emit(o, row, &res,
			     kernel ? (uml ? "function, not speed (UML: generic C crypto)" : "kernel TLS")
				    : "hs userspace record path");
		}
	}
	bench_footer(o);
	return matched ? status : 1;
}
