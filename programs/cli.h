/*
 * What hs-client and hs-server share: exit codes, the option table and its
 * parser, algorithm-list parsing, sockets, and the one I/O loop (relay)
 * that moves application data after the handshake.
 */
#ifndef HS_PROGRAMS_CLI_H
#define HS_PROGRAMS_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "hs/tls.h"

struct algs;

/* Exit codes (documented in both programs' --help). */
enum {
	EXIT_OK = 0,
	EXIT_TLS = 1,    /* handshake, protocol or transfer failure */
	EXIT_USAGE = 2,  /* bad command line, unreadable file */
	EXIT_VERIFY = 3, /* certificate verification failed */
	EXIT_NET = 4,    /* name resolution, connect, bind, socket error */
	EXIT_KTLS = 5,   /* --ktls=require and the kernel cannot take the connection */
};

extern const char *prog_name;
extern int prog_verbosity; /* 0 quiet, 1 brief, 2 normal, 3 -v (message trace) */

/* "hs-client 0.1.0 (hs TLS 1.3)" on stdout: the meson project version. */
void print_version(void);
/* The last reason fail() printed ("" if none), for --json. */
const char *last_error(void);

/* Print "prog: reason" on stderr (always) and return code. */
int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print a status line on stderr when verbosity >= level. */
void note(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Every string that came from a peer (SNI, ALPN, names from certificates,
 * anything of a message) goes through escape_peer() before it is printed: bytes
 * 0x20..0x7e except '\\' stay, every other byte becomes \xHH, so nothing
 * a peer sends can move a terminal's cursor, start an escape sequence or
 * forge a log line. NULL prints "-"; a string longer than cap is cut with
 * "...". Returns out (always NUL-terminated).
 */
#define ESC_MAX (4 * 255 + 4)
const char *escape_peer(const char *s, char *out, size_t cap);
/* Exit code for an hs error (and print why, naming the alert if any). */
int tls_fail(struct hs_conn *c, int err, const char *during);

/*
 * Reading files: a file that cannot be opened names itself and the errno
 * ("cannot read --ca file 'x': No such file or directory (ENOENT)"): EXIT_USAGE.
 */
int check_readable(const char *what, const char *path, int dir);
/*
 * Why a --cert/--key pair did not load, naming the one bad file: a key
 * that is encrypted or does not match the certificate, a file holding no
 * PEM block of the right kind, a certificate that does not parse.
 */
int cred_fail(const char *cert, const char *key, int err);
/* --capath DIR: name (on stderr) each file that holds a CERTIFICATE block
 * that does not decode or parse, which the store skips; returns how many. */
int capath_check(const char *dir);
/* hs_x509_store_load_file failed on path: which file and why. */
int ca_fail(const char *what, const char *path, int err);

/*
 * -v: trace every message and record header (direction, type names,
 * lengths) and each state transition on stderr, like `openssl s_client
 * -msg -state` (hs_config.msg_cb).
 */
void trace_attach(struct hs_config *cfg);

/* ---- --json: one object per connection ---- */
struct conn_report {
	const char *peer;        /* "HOST:PORT" or the client's address */
	const char *server_name; /* client: the name verified (server: the SNI received) */
	int exit_code;           /* 0 ok; the reason is last_error() */
	double handshake_ms;
	const char *verify;      /* client: "chain+name", "pin+name", ... */
	const char *client_cert; /* "verified", "offered", "none" */
	uint64_t bytes_sent, bytes_received;
	const char *ktls_tx, *ktls_rx; /* "off", "kernel", "userspace" */
};
/* One line of JSON: the report and the connection's parameters. */
void report_json(FILE *f, const struct hs_conn *c, const struct conn_report *r);
double now_ms(void);
/* --ktls=require: refuse before connecting when the kernel cannot do kTLS,
 * and offer only the suites it takes both ways. EXIT_KTLS or 0. */
int ktls_require_check(struct algs *a);

/* ---- options: one table per program ---- */
struct opt {
	const char *names; /* space-separated spellings: "--ca -CAfile" */
	/*
	 * argument name for --help, NULL for a flag; "[=VALUE]": an optional
	 * value, given only as --opt=VALUE (set() gets NULL without it)
	 */
	const char *arg;
	int (*set)(void *ctx, const char *arg); /* 0 or EXIT_USAGE */
	const char *help;
};
/* Parse argv; positional arguments go to positional() (NULL: refused). */
int opts_parse(const struct opt *t, size_t n, int argc, char **argv, void *ctx,
	       int (*positional)(void *ctx, const char *arg));
void opts_help(const struct opt *t, size_t n);

/* ---- algorithm lists ---- */
#define LIST_MAX 8
#define ALPN_MAX 8
struct algs {
	uint16_t suites[LIST_MAX], groups[LIST_MAX], sigs[LIST_MAX];
	size_t n_suites, n_groups, n_sigs;
	char alpn_buf[512];
	const char *alpn[ALPN_MAX];
	size_t n_alpn;
};
int parse_suites(struct algs *a, const char *list);
int parse_groups(struct algs *a, const char *list);
int parse_sigs(struct algs *a, const char *list);
int parse_alpn(struct algs *a, const char *list);
void algs_apply(const struct algs *a, struct hs_config *cfg);
/* "TLSv1.3 TLS_AES_128_GCM_SHA256 x25519 ecdsa_secp256r1_sha256 alpn=h2 hrr=no" */
void describe(const struct hs_conn *c, char *out, size_t cap);

/* ---- sockets ---- */
/*
 * Split "host:port", "[v6]:port" (or just "port" when listening: allow_bare).
 * The port must be a decimal number 1..65535 (0 too when listening: any
 * free port); anything else is a usage error, never a port taken modulo.
 */
int split_hostport(const char *s, char *host, size_t cap, char *port, size_t pcap,
		   int allow_bare);
/* Connect within timeout_ms (0: no limit): EXIT_NET on timeout. */
int net_connect(const char *host, const char *port, unsigned timeout_ms, int *fd);
/* Listen on host:port (port 0: any free port); *bound gets the port. */
int net_listen(const char *host, const char *port, int *fd, unsigned *bound);

/* ---- the I/O loop ---- */
enum relay_mode {
	RELAY_STDIO, /* in_fd -> peer, peer -> out_fd; in_fd EOF sends close_notify */
	RELAY_ECHO,  /* peer -> peer */
	RELAY_WWW,   /* read a request, answer with page(), close */
};
enum relay_ktls {
	RELAY_KTLS_OFF,     /* the engine's records, poll-driven */
	RELAY_KTLS_ON,      /* --ktls: kernel TLS, else our records on plain send/recv */
	RELAY_KTLS_REQUIRE, /* --ktls=require: kernel TLS both ways or EXIT_KTLS */
};
/* Parse the value of --ktls (NULL or "require"). */
int parse_ktls(enum relay_ktls *k, const char *arg);
/* --psk HEX: an external PSK (1..cap bytes of even-length hex); exit code or 0 */
/* A whole decimal number in [min, max] for option opt, else a usage error. */
int parse_count(const char *opt, const char *a, long min, long max, long *out);
int parse_psk_hex(const char *arg, uint8_t *out, size_t cap, size_t *n);
/* "session: ..." / "psk: ..." line after the handshake, if it used a PSK or wanted one */
const char *psk_desc(const struct hs_conn *c, int external);
struct relay {
	enum relay_mode mode;
	enum relay_ktls ktls;
	int in_fd, out_fd;
	/* RELAY_WWW: build the answer once the request's header is in */
	size_t (*page)(struct hs_conn *c, char *out, size_t cap);
	uint64_t bytes_in, bytes_out;
	const char *ktls_tx, *ktls_rx; /* set by relay_run: "off", "kernel", "userspace" */
	int send_tickets; /* server, --ktls: the engine deferred its tickets; send them after the hand-off */
};
/*
 * Move application data on the connected socket until both sides have
 * sent close_notify (or an error). Returns an exit code (reason printed).
 */
int relay_run(struct relay *r, struct hs_conn *c, int sock);
/* A socket handshaked put on kernel TLS (hs-client --via): stdin/stdout over it. */
int relay_adopted(struct relay *r, int sock, uint16_t suite);

#endif
