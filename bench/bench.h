/*
 * hs-bench: the shared measuring and reporting code, and the subcommands.
 *
 * A subcommand is a function taking the parsed options (struct bench_opts)
 * and returning the process exit status; hs-bench.c lists them in one table.
 * A subcommand measures "rows": each row times one hs operation next to the
 * same operation done by a reference (OpenSSL), with bench_pair(), then
 * prints it with bench_emit().
 *
 * How a row is measured (bench_pair):
 *   - each side first runs a calibration: its batch size doubles until one
 *     batch takes at least ~1 ms of wall time (this also warms the caches);
 *   - then, opts->repeat times, each side runs whole batches until
 *     opts->time_ms of wall time (CLOCK_MONOTONIC) has passed; the rate of
 *     that repeat is ops / CPU seconds (CLOCK_PROCESS_CPUTIME_ID), so time
 *     the scheduler gave to other processes does not count;
 *   - the sides alternate repeat by repeat (hs first, then reference first)
 *     so a slow drift of the machine hits both alike;
 *   - a row reports the median rate over the repeats and [min-max].
 */
#ifndef HS_BENCH_BENCH_H
#define HS_BENCH_BENCH_H

#include <stddef.h>
#include <sys/types.h>

#define BENCH_MAX_REPEAT 1000

struct bench_opts {
	int json;           /* one JSON object per row on stdout */
	unsigned time_ms;   /* wall-time budget of one repeat of one side */
	unsigned repeat;    /* repeats per side, 1..BENCH_MAX_REPEAT */
	const char *filter; /* only rows whose name contains this (any case); NULL: all */
	int portable;       /* hs was forced onto its portable backends */
	unsigned misalign;  /* crypto's data buffers start this far past 64-byte boundaries (0..63) */
};

/* One operation to time: returns 0, or nonzero if it failed. */
typedef int (*bench_op)(void *arg);

struct bench_side {
	bench_op op;
	void *arg;
	/*
	 * NULL: a repeat's rate is ops / process CPU time. Otherwise the op adds
	 * to *own_ns the CPU nanoseconds of the part being measured (e.g. one
	 * peer's share of a handshake), and the rate is ops / those ns.
	 */
	const double *own_ns;
};

/* Rates in operations per CPU second. */
struct bench_stats {
	double median, min, max;
	double cpu_ns, wall_ns; /* summed over the timed repeats */
};

struct bench_row {
	const char *name;
	const char *unit;    /* "ops/s" or "MB/s" */
	size_t bytes;        /* bytes per operation for "MB/s" rows (MB = 10^6 bytes) */
	const char *backend; /* the hs implementation that ran, e.g. "AES-128-GCM (AES-NI)" */
	struct bench_stats hs, ref;
	/* "MB/s" rows of records: hs's raw AEAD rate (ops/s of the same
	 * payload) measured in the same run, 0 = none; printed with hs/aead */
	double aead;
	/* no reference could run: why (printed in its column; JSON: null) */
	const char *no_ref;
};

/* 1 if the row name passes opts->filter. */
int bench_match(const struct bench_opts *o, const char *name);

/*
 * Time both sides as described above. Returns 0, or -1 if an operation
 * failed (an error went to stderr; the row must not be printed).
 */
int bench_pair(const struct bench_opts *o, const struct bench_side *hs,
	       const struct bench_side *ref, struct bench_stats *hs_st,
	       struct bench_stats *ref_st);

/* Time one side alone, as bench_pair does (a reference measured for a ratio). */
int bench_one(const struct bench_opts *o, const struct bench_side *s, struct bench_stats *st);

/*
 * The machine header: CPU model, hs CPU features, kernel, compiler,
 * OpenSSL version, timing settings. On stdout for tables; on stderr with
 * --json so that stdout holds only rows.
 */
void bench_header(const struct bench_opts *o, const char *subcommand);

/* Print one row (the table header comes before the first one). */
void bench_emit(const struct bench_opts *o, const struct bench_row *r);

/* Warn on stderr if other processes took much of the CPU during the run. */
void bench_footer(const struct bench_opts *o);

/* A TCP socket listening on 127.0.0.1 at a free port (*port), or -1. */
int bench_listen_loopback(unsigned *port);

/* bench/tcp_rows.c, shared with bench/handoff_rows.c: seconds on the monotonic clock; */
double bench_wall_s(void);
/* CPU seconds (user + system) process pid used so far, -1 if unreadable. */
double bench_cpu_of(pid_t pid);

/* Print s as a JSON string on stdout (quotes, backslash, control characters escaped). */
void bench_json_str(const char *s);

/* Subcommands (one file each). */
int bench_crypto(const struct bench_opts *o);
int bench_handshake(const struct bench_opts *o);
int bench_record(const struct bench_opts *o);
int bench_memory(const struct bench_opts *o);
/* Count OpenSSL's allocations (CRYPTO_set_mem_functions): before any of its calls. */
int bench_memory_hooks(void);

#endif
