/*
 * Implementation notes: timing and reporting for hs-bench (see bench.h for
 * the method).
 *
 * - Clocks are read once per batch, never per operation: reading
 *   CLOCK_PROCESS_CPUTIME_ID is a system call, and a batch lasts at least
 *   ~1 ms, so the clock cost stays far below 0.1 % of a batch.
 * - The rates use CPU time so that a machine shared with other jobs still
 *   gives comparable numbers; the wall-time budget only bounds how long a
 *   repeat lasts. The CPU share (CPU time / wall time) over the whole run
 *   is checked at the end: a low share means the caches and the frequency
 *   were disturbed too, and the numbers deserve less trust.
 */
#define _GNU_SOURCE
#include "bench/bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "crypto/cpu.h"

#define BATCH_MIN_NS 1e6    /* a calibrated batch lasts at least this long */
#define BATCH_MAX (1u << 30) /* ... or has this many operations */

#define STR_(x) #x
#define STR(x) STR_(x)

static double total_cpu_ns, total_wall_ns;
static int table_started;

static double now_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int bench_match(const struct bench_opts *o, const char *name)
{
	return o->filter == NULL || strcasestr(name, o->filter) != NULL;
}

static int run_batch(const struct bench_side *s, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (s->op(s->arg) != 0)
			return -1;
	return 0;
}

/* Double the batch until one batch takes BATCH_MIN_NS (or a tenth of the budget). */
static int calibrate(const struct bench_side *s, double budget_ns, uint64_t *batch)
{
	double target = budget_ns / 10 < BATCH_MIN_NS ? budget_ns / 10 : BATCH_MIN_NS;
	uint64_t n = 1;

	for (;;) {
		double t0 = now_ns(CLOCK_MONOTONIC);
		if (run_batch(s, n) != 0)
			return -1;
		if (now_ns(CLOCK_MONOTONIC) - t0 >= target || n >= BATCH_MAX)
			break;
		n *= 2;
	}
	*batch = n;
	return 0;
}

/* One repeat: whole batches until the budget is spent; *rate in ops per CPU second. */
static int one_repeat(const struct bench_side *s, uint64_t batch, double budget_ns,
		      double *rate, struct bench_stats *st)
{
	double w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	double own0 = s->own_ns != NULL ? *s->own_ns : 0;
	double w, c, t;
	uint64_t ops = 0;

	do {
		if (run_batch(s, batch) != 0)
			return -1;
		ops += batch;
		w = now_ns(CLOCK_MONOTONIC) - w0;
	} while (w < budget_ns);
	c = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (c <= 0)
		c = w; /* no usable CPU clock: fall back to wall time */
	t = s->own_ns != NULL ? *s->own_ns - own0 : c;
	if (t <= 0)
		return -1;
	*rate = (double)ops * 1e9 / t;
	st->cpu_ns += c;
	st->wall_ns += w;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void summarize(double *rates, unsigned n, struct bench_stats *st)
{
	qsort(rates, n, sizeof(rates[0]), cmp_double);
	st->min = rates[0];
	st->max = rates[n - 1];
	st->median = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
	total_cpu_ns += st->cpu_ns;
	total_wall_ns += st->wall_ns;
}

int bench_pair(const struct bench_opts *o, const struct bench_side *hs,
	       const struct bench_side *ref, struct bench_stats *hs_st,
	       struct bench_stats *ref_st)
{
	static double rates[2][BENCH_MAX_REPEAT];
	const struct bench_side *side[2] = { hs, ref };
	struct bench_stats *st[2] = { hs_st, ref_st };
	double budget = (double)o->time_ms * 1e6;
	unsigned n = o->repeat < BENCH_MAX_REPEAT ? o->repeat : BENCH_MAX_REPEAT;
	uint64_t batch[2];

	memset(hs_st, 0, sizeof(*hs_st));
	memset(ref_st, 0, sizeof(*ref_st));
	if (n == 0 || calibrate(hs, budget, &batch[0]) != 0 ||
	    calibrate(ref, budget, &batch[1]) != 0)
		return -1;
	for (unsigned r = 0; r < n; r++) {
		/* hs first on even repeats, OpenSSL first on odd ones: drift hits both alike */
		for (unsigned k = 0; k < 2; k++) {
			unsigned s = (r + k) % 2;
			if (one_repeat(side[s], batch[s], budget, &rates[s][r], st[s]) != 0)
				return -1;
		}
	}
	summarize(rates[0], n, hs_st);
	summarize(rates[1], n, ref_st);
	return 0;
}

int bench_one(const struct bench_opts *o, const struct bench_side *s, struct bench_stats *st)
{
	static double rates[BENCH_MAX_REPEAT];
	double budget = (double)o->time_ms * 1e6;
	unsigned n = o->repeat < BENCH_MAX_REPEAT ? o->repeat : BENCH_MAX_REPEAT;
	uint64_t batch;

	memset(st, 0, sizeof(*st));
	if (n == 0 || calibrate(s, budget, &batch) != 0)
		return -1;
	for (unsigned r = 0; r < n; r++)
		if (one_repeat(s, batch, budget, &rates[r], st) != 0)
			return -1;
	summarize(rates, n, st);
	return 0;
}

/* ---- machine header */

static void cpu_model(char *out, size_t cap)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(out, cap, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) != 0 || colon == NULL)
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, cap, "%s", colon);
		break;
	}
	fclose(f);
}

static void machine_features(char *out, size_t cap)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ HS_CPU_AESNI, "aesni" },     { HS_CPU_PCLMUL, "pclmul" },
		{ HS_CPU_SSSE3, "ssse3" },     { HS_CPU_SSE41, "sse4.1" },
		{ HS_CPU_AVX, "avx" },         { HS_CPU_AVX2, "avx2" },
		{ HS_CPU_BMI2, "bmi2" },       { HS_CPU_ADX, "adx" },
		{ HS_CPU_SHANI, "sha-ni" },    { HS_CPU_AVX512F, "avx512f" },
		{ HS_CPU_AVX512BW, "avx512bw" }, { HS_CPU_AVX512VL, "avx512vl" },
		{ HS_CPU_VAES, "vaes" },       { HS_CPU_VPCLMUL, "vpclmulqdq" },
		{ HS_CPU_AVX512IFMA, "avx512ifma" },
		{ HS_CPU_INTEL, "intel-tuned" }, /* the vendor: crypto/asm's Intel forms */
	};
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!cpu_has(names[i].bit))
			continue;
		int n = snprintf(out + len, cap - len, "%s%s", len ? " " : "", names[i].name);
		if (n < 0 || (size_t)n >= cap - len)
			break;
		len += (size_t)n;
	}
	if (len == 0)
		snprintf(out, cap, "(none)");
}

static const char *compiler(void)
{
#if defined(__clang__)
	return "clang " STR(__clang_major__) "." STR(__clang_minor__) "."
		STR(__clang_patchlevel__);
#elif defined(__GNUC__)
	return "gcc " __VERSION__;
#else
	return "unknown";
#endif
}

/* How hs-bench itself was built (hs is built with the same flags). */
static const char *build_kind(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return "sanitizers on: numbers are NOT representative";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return "sanitizers on: numbers are NOT representative";
#endif
#endif
#if defined(__OPTIMIZE__)
	return "optimized";
#else
	return "not optimized (-O0): numbers are NOT representative";
#endif
}

void bench_header(const struct bench_opts *o, const char *subcommand)
{
	FILE *f = o->json ? stderr : stdout;
	char model[256], feats[256];
	struct utsname u;
	const char *cap = getenv("OPENSSL_ia32cap");

	cpu_model(model, sizeof(model));
	machine_features(feats, sizeof(feats));
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	fprintf(f, "hs-bench %s\n", subcommand);
	fprintf(f, "  cpu:      %s (%ld online)\n", model, sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(f, "  hs cpu:   %s%s\n", feats, o->portable ? " (forced portable)" : "");
	fprintf(f, "  kernel:   %s %s %s\n", u.sysname, u.release, u.machine);
	fprintf(f, "  compiler: %s; %s\n", compiler(), build_kind());
	fprintf(f, "  openssl:  %s%s%s\n", OpenSSL_version(OPENSSL_VERSION),
		cap ? "; OPENSSL_ia32cap=" : "", cap ? cap : "");
	if (strcmp(subcommand, "crypto") == 0)
		fprintf(f, "  buffers:  data %u byte(s) past a 64-byte boundary (--misalign)\n",
			o->misalign);
	fprintf(f, "  timing:   %u repeat(s) x %u ms per side; rate = ops per CPU second "
		   "(CLOCK_PROCESS_CPUTIME_ID); median [min-max]\n\n",
		o->repeat, o->time_ms);
}

/* ---- rows */

static double in_unit(const struct bench_row *r, double ops_per_s)
{
	if (strcmp(r->unit, "MB/s") == 0)
		return ops_per_s * (double)r->bytes / 1e6;
	return ops_per_s;
}

/* hs's rate over its raw AEAD's (0: no AEAD reference) */
static double vs_aead(const struct bench_row *r)
{
	return r->aead > 0 ? r->hs.median / r->aead : 0;
}

static void fmt_rate(char *out, size_t cap, const struct bench_row *r, double ops_per_s)
{
	snprintf(out, cap, strcmp(r->unit, "MB/s") == 0 ? "%.1f" : "%.0f", in_unit(r, ops_per_s));
}

static void fmt_stats(char *med, char *range, size_t cap, const struct bench_row *r,
		      const struct bench_stats *s)
{
	char lo[32], hi[32];

	fmt_rate(med, cap, r, s->median);
	fmt_rate(lo, sizeof(lo), r, s->min);
	fmt_rate(hi, sizeof(hi), r, s->max);
	snprintf(range, cap, "[%s-%s]", lo, hi);
}

static void emit_table(const struct bench_row *r)
{
	char hm[32], hr[80], om[32], orng[80];

	if (!table_started) {
		printf("%-47s %-5s %11s %-25s %11s %-25s %7s  %s\n", "row", "unit", "hs",
		       "[min-max]", "OpenSSL", "[min-max]", "hs/ossl", "hs backend");
		table_started = 1;
	}
	fmt_stats(hm, hr, sizeof(hr), r, &r->hs);
	if (r->no_ref != NULL) {
		printf("%-47s %-5s %11s %-25s %11s %-25s %7s  %s; reference: %s", r->name, r->unit, hm,
		       hr, "-", "", "-", r->backend, r->no_ref);
		printf("\n");
		fflush(stdout);
		return;
	}
	fmt_stats(om, orng, sizeof(orng), r, &r->ref);
	printf("%-47s %-5s %11s %-25s %11s %-25s %7.2f  %s", r->name, r->unit, hm, hr, om,
	       orng, r->hs.median / r->ref.median, r->backend);
	if (r->aead > 0)
		printf("; %.2fx raw AEAD (%.1f MB/s)", vs_aead(r), in_unit(r, r->aead));
	printf("\n");
	fflush(stdout);
}

/* A JSON string: quote, backslash and control characters escaped. */
void bench_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void emit_json(const struct bench_row *r)
{
	printf("{\"row\": ");
	bench_json_str(r->name);
	printf(", \"unit\": ");
	bench_json_str(r->unit);
	if (r->no_ref != NULL) {
		printf(", \"hs\": %.3f, \"openssl\": null, \"ratio\": null, \"hs_min\": %.3f, "
		       "\"hs_max\": %.3f, \"bytes\": %zu, \"backend\": ",
		       in_unit(r, r->hs.median), in_unit(r, r->hs.min), in_unit(r, r->hs.max), r->bytes);
		bench_json_str(r->backend);
		printf(", \"no_reference\": ");
		bench_json_str(r->no_ref);
		printf("}\n");
		fflush(stdout);
		return;
	}
	printf(", \"hs\": %.3f, \"openssl\": %.3f, \"ratio\": %.4f", in_unit(r, r->hs.median),
	       in_unit(r, r->ref.median), r->hs.median / r->ref.median);
	printf(", \"hs_min\": %.3f, \"hs_max\": %.3f, \"openssl_min\": %.3f, "
	       "\"openssl_max\": %.3f, \"bytes\": %zu, \"backend\": ",
	       in_unit(r, r->hs.min), in_unit(r, r->hs.max), in_unit(r, r->ref.min),
	       in_unit(r, r->ref.max), r->bytes);
	bench_json_str(r->backend);
	if (r->aead > 0)
		printf(", \"aead\": %.3f, \"vs_aead\": %.4f", in_unit(r, r->aead), vs_aead(r));
	printf("}\n");
	fflush(stdout);
}

void bench_emit(const struct bench_opts *o, const struct bench_row *r)
{
	if (o->json)
		emit_json(r);
	else
		emit_table(r);
}

void bench_footer(const struct bench_opts *o)
{
	(void)o;
	if (total_wall_ns > 0 && total_cpu_ns < 0.9 * total_wall_ns)
		fprintf(stderr,
			"hs-bench: warning: the benchmark got only %.0f%% of a CPU while timing; "
			"other load may have skewed the numbers\n",
			100.0 * total_cpu_ns / total_wall_ns);
}

int bench_listen_loopback(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(fd, SOMAXCONN) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}
