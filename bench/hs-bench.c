/*
 * Implementation notes: hs-bench's entry point. It parses the options that
 * every subcommand shares into struct bench_opts and calls the subcommand
 * from the table below; adding a subcommand is one more row there and one
 * more file with its function (declared in bench.h).
 *
 * Exit status: 0 all rows measured; 1 a row was refused (its check or an
 * operation failed; the reason is on stderr); 2 usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "crypto/cpu.h"

#ifndef HS_VERSION_STRING
#error "HS_VERSION_STRING comes from bench/meson.build (the meson project version)"
#endif

struct subcommand {
	const char *name;
	const char *summary;
	int (*run)(const struct bench_opts *o);
};

int bench_record_path(const struct bench_opts *o); /* bench/record_path.c */
int bench_tcp(const struct bench_opts *o);         /* bench/tcp_rows.c */
int bench_handoff(const struct bench_opts *o);     /* bench/handoff_rows.c */

static const struct subcommand subcommands[] = {
	{ .name = "crypto",
	  .summary = "hs crypto primitives next to OpenSSL's libcrypto (EVP)",
	  .run = bench_crypto },
	{ .name = "handshake",
	  .summary = "full TLS 1.3 handshakes per second next to OpenSSL's libssl",
	  .run = bench_handshake },
	{ .name = "record",
	  .summary = "16 KiB application records through the engine next to libssl",
	  .run = bench_record },
	{ .name = "memory",
	  .summary = "bytes per connection (handshake, idle, active, kTLS) next to libssl",
	  .run = bench_memory },
	{ .name = "record-path",
	  .summary = "loopback throughput of every record path (kernel TLS, hs, io_uring) and OpenSSL",
	  .run = bench_record_path },
	{ .name = "tcp",
	  .summary = "handshakes/s of one io_uring server thread vs openssl s_server, 32 TCP clients",
	  .run = bench_tcp },
	{ .name = "handoff",
	  .summary = "hand-offs/s through handshaked's Unix socket, 32 clients (tlshd: none to compare)",
	  .run = bench_handoff },
	{ .name = "ktls", .summary = "the same as record-path (its former name)",
	  .run = bench_record_path },
};

#define N_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: hs-bench SUBCOMMAND [options]\n       hs-bench --version\n\nsubcommands:\n");
	for (size_t i = 0; i < N_SUBCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(f, "\noptions:\n"
		   "  --json           one JSON object per row on stdout (header on stderr)\n"
		   "  --time MS        wall-time budget of one repeat of one side (default 200)\n"
		   "  --repeat N       repeats per side; rows show median [min-max] (default 5)\n"
		   "  --filter SUBSTR  only rows whose name contains SUBSTR (any case)\n"
		   "  --portable       force hs onto its portable backends\n"
		   "  --misalign N     crypto: start the data buffers N bytes (0-63) past a\n"
		   "                   64-byte boundary, for hs and OpenSSL alike (default 0)\n"
		   "  --help           this text\n"
		   "\nsee bench/README.md for what each row measures.\n");
}

/* A decimal in [0, max] into *v: 0, or -1 if s is not one. */
static int parse_uint(const char *s, unsigned long max, unsigned *v)
{
	char *end;
	unsigned long n;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || n > max)
		return -1;
	*v = (unsigned)n;
	return 0;
}

/* A decimal in [1, max], or 0 if s is not one. */
static unsigned parse_count(const char *s, unsigned long max)
{
	unsigned v;

	return parse_uint(s, max, &v) == 0 ? v : 0;
}

/* "--name VALUE" or "--name=VALUE": the value, or NULL if arg is not this option. */
static const char *opt_value(const char *arg, const char *name, int argc, char **argv, int *i)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n) != 0)
		return NULL;
	if (arg[n] == '=')
		return arg + n + 1;
	if (arg[n] != '\0')
		return NULL;
	if (*i + 1 >= argc)
		return ""; /* missing value: rejected by the caller */
	return argv[++*i];
}

static int bad_value(const char *opt)
{
	fprintf(stderr, "hs-bench: bad value for %s (a whole number >= 1)\n", opt);
	return -1;
}

/* 0 ok, 1 --help was asked, -1 bad usage (message printed). */
static int parse_opts(int argc, char **argv, struct bench_opts *o)
{
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v;

		if (strcmp(a, "--json") == 0) {
			o->json = 1;
		} else if (strcmp(a, "--portable") == 0) {
			o->portable = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			return 1;
		} else if ((v = opt_value(a, "--time", argc, argv, &i)) != NULL) {
			if ((o->time_ms = parse_count(v, 3600000)) == 0)
				return bad_value(a);
		} else if ((v = opt_value(a, "--repeat", argc, argv, &i)) != NULL) {
			if ((o->repeat = parse_count(v, BENCH_MAX_REPEAT)) == 0)
				return bad_value(a);
		} else if ((v = opt_value(a, "--misalign", argc, argv, &i)) != NULL) {
			if (parse_uint(v, 63, &o->misalign) != 0) {
				fprintf(stderr, "hs-bench: bad value for %s (0 to 63)\n", a);
				return -1;
			}
		} else if ((v = opt_value(a, "--filter", argc, argv, &i)) != NULL) {
			o->filter = v;
		} else {
			fprintf(stderr, "hs-bench: unknown option '%s'\n", a);
			return -1;
		}
	}
	return 0;
}

static int env_portable(void)
{
	const char *v = getenv("HS_CRYPTO_PORTABLE");
	return v != NULL && strcmp(v, "1") == 0;
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .time_ms = 200, .repeat = 5 };
	const struct subcommand *sc = NULL;
	int r;

	/* OpenSSL's allocator is set before OpenSSL allocates anything */
	if (argc >= 2 && strcmp(argv[1], "memory") == 0 && bench_memory_hooks() != 0) {
		fprintf(stderr, "hs-bench: cannot count OpenSSL's allocations\n");
		return 1;
	}
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("hs-bench %s (hs TLS 1.3)\n", HS_VERSION_STRING);
		return 0;
	}
	for (size_t i = 0; argc >= 2 && i < N_SUBCOMMANDS; i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			sc = &subcommands[i];
	if (sc == NULL) {
		if (argc >= 2)
			fprintf(stderr, "hs-bench: unknown subcommand '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	r = parse_opts(argc, argv, &o);
	if (r != 0) {
		usage(r > 0 ? stdout : stderr);
		return r > 0 ? 0 : 2;
	}
	if (o.portable)
		cpu_force_portable(1);
	else if (env_portable())
		o.portable = 1; /* crypto/cpu.c honours the variable: say so in the header */
	bench_header(&o, sc->name);
	r = sc->run(&o);
	bench_footer(&o);
	return r;
}
