/* Helpers for the ktls tests (see kt_util.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "crypto/hash.h"
#include "hs/tls.h"
#include "kt_util.h"

int kt_tcp_pair(int fds[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l, rc = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fds[0] = fds[1] = -1;
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		return -1;
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0 &&
	    getsockname(l, (struct sockaddr *)&a, &alen) == 0) {
		fds[0] = socket(AF_INET, SOCK_STREAM, 0);
		if (fds[0] >= 0 && connect(fds[0], (struct sockaddr *)&a, sizeof(a)) == 0)
			fds[1] = accept(l, NULL, NULL);
		rc = fds[1] >= 0 ? 0 : -1;
	}
	close(l);
	return rc;
}

static void fill_dir(struct hs_dir_secrets *d, struct test_rng *rng, uint64_t seq)
{
	test_rng_bytes(rng, d->secret, sizeof(d->secret));
	test_rng_bytes(rng, d->key, sizeof(d->key));
	test_rng_bytes(rng, d->iv, sizeof(d->iv));
	d->seq = seq;
}

void kt_secrets(struct hs_secrets *cli, struct hs_secrets *srv, uint16_t suite,
		struct test_rng *rng, uint64_t seq_c2s, uint64_t seq_s2c)
{
	const struct hs_ktls_cipher *c = hs_ktls_cipher_for_suite(suite);

	memset(cli, 0, sizeof(*cli));
	cli->suite = suite;
	cli->secret_len = c->secret_len;
	cli->key_len = c->key_len;
	cli->iv_len = HS_IV_LEN;
	fill_dir(&cli->client, rng, seq_c2s);
	fill_dir(&cli->server, rng, seq_s2c);
	*srv = *cli;
	cli->tx = &cli->client;
	cli->rx = &cli->server;
	srv->tx = &srv->server;
	srv->rx = &srv->client;
}

/* A cheap keyed stream: splitmix64 of (seed, block index). */
void kt_stream(uint64_t seed, size_t off, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x = seed ^ (((uint64_t)(off + i) >> 3) * 0x9e3779b97f4a7c15ull);
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
		x ^= x >> 31;
		out[i] = (uint8_t)(x >> (8 * ((off + i) & 7)));
	}
}

static void *sender_main(void *arg)
{
	struct kt_sender *s = arg;
	struct test_rng rng = { .s = s->seed * 31 + 7 };
	uint8_t *buf = malloc(s->max_chunk);
	size_t off = 0;

	s->ku_err = 0;
	while (buf && !s->err && off < s->len) {
		size_t n = 1 + test_rng_below(&rng, s->max_chunk);
		if (n > s->len - off)
			n = s->len - off;
		if (off < s->key_update_at && off + n > s->key_update_at)
			n = s->key_update_at - off;
		if (off == s->key_update_at && s->key_update_at != SIZE_MAX && !s->ku_err) {
			s->ku_err = hs_ktls_key_update(s->k, s->request_peer);
			s->key_update_at = SIZE_MAX;
			if (s->ku_err && s->ku_err != HS_ERR_UNSUPPORTED)
				s->err = s->ku_err;
			continue;
		}
		kt_stream(s->seed, off, buf, n);
		s->err = hs_ktls_write(s->k, buf, n);
		off += n;
	}
	if (!buf)
		s->err = HS_ERR_NOMEM;
	if (!s->err && s->close)
		s->err = hs_ktls_close(s->k);
	free(buf);
	return NULL;
}

void kt_sender_start(struct kt_sender *s)
{
	s->err = 0;
	if (s->max_chunk == 0)
		s->max_chunk = 1;
	if (pthread_create(&s->thread, NULL, sender_main, s) != 0)
		abort();
}

void kt_sender_join(struct kt_sender *s)
{
	pthread_join(s->thread, NULL);
}

int kt_receive(struct hs_ktls *k, uint64_t seed, size_t max_read, size_t *got, int *mismatch)
{
	struct test_rng rng = { .s = seed * 17 + 3 };
	const struct hash *h = hash_sha256();
	union hash_ctx hc, he;
	uint8_t *buf = malloc(max_read), *exp = malloc(max_read);
	uint8_t d1[32], d2[32];
	int err = 0;

	*got = 0;
	*mismatch = 0;
	h->init(&hc);
	h->init(&he);
	while (buf && exp) {
		size_t cap = 1 + test_rng_below(&rng, max_read), n;
		err = hs_ktls_read(k, buf, cap, &n);
		if (err || n == 0)
			break;
		kt_stream(seed, *got, exp, n);
		if (memcmp(buf, exp, n) != 0)
			*mismatch = 1;
		h->update(&hc, buf, n);
		h->update(&he, exp, n);
		*got += n;
	}
	h->final(&hc, d1);
	h->final(&he, d2);
	if (memcmp(d1, d2, sizeof(d1)) != 0)
		*mismatch = 1;
	free(buf);
	free(exp);
	return err;
}

const char *kt_suite_name(uint16_t suite)
{
	return hs_suite_name(suite);
}

int kt_expect(int *kernel, int *user)
{
	const char *e = getenv("HS_KTLS_EXPECT");
	struct hs_ktls_caps caps;

	*kernel = e && strcmp(e, "kernel") == 0;
	*user = e && strcmp(e, "user") == 0;
	if (hs_ktls_probe(&caps) != 0)
		return -1;
	if (*user && caps.ulp) {
		printf("# this kernel has kTLS: nothing to check on the fallback here\n");
		*user = 0;
	}
	return 0;
}

int kt_paths_ok(const struct hs_ktls *k, int kernel, int user)
{
	if (kernel && !hs_ktls_is_kernel(k))
		return 0;
	return !user || (hs_ktls_tx_path(k) == HS_KTLS_PATH_USER &&
			 hs_ktls_rx_path(k) == HS_KTLS_PATH_USER);
}
