/*
 * Shared command-line plumbing for hs-client and hs-server: messages and
 * exit codes, the table-driven option parser, algorithm lists.
 *
 * Implementation notes: an option table row names every spelling of one
 * option ("--groups -groups -curves"), so OpenSSL's single-dash names and
 * ours are the same row; "--opt=value" is accepted for long options.
 */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "hs/cred.h"
#include "hs/ktls.h"
#include "hs/x509.h"

#ifndef HS_VERSION_STRING
#error "HS_VERSION_STRING comes from programs/meson.build (the meson project version)"
#endif

const char *prog_name = "hs";
int prog_verbosity = 2;
static char last_reason[512];

void print_version(void)
{
	printf("%s %s (hs TLS 1.3)\n", prog_name, HS_VERSION_STRING);
}

const char *last_error(void) { return last_reason; }

int fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_reason, sizeof(last_reason), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", prog_name, last_reason);
	return code;
}

void note(int level, const char *fmt, ...)
{
	va_list ap;

	if (prog_verbosity < level)
		return;
	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

const char *escape_peer(const char *s, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (cap == 0)
		return "";
	if (s == NULL)
		s = "-";
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;
		int plain = ch >= 0x20 && ch < 0x7f && ch != '\\';
		size_t need = plain ? 1 : 4;
		if (o + need + 4 > cap) { /* room for this, "..." and the NUL */
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (plain) {
			out[o++] = (char)ch;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	out[o] = '\0';
	return out;
}

/* Alerts that mean "the peer did not accept a certificate" (RFC 8446 6.2),
 * or wanted one we did not send (certificate_required, 116). */
static int cert_alert(int alert)
{
	return alert == 42 || alert == 43 || alert == 44 || alert == 45 || alert == 46 ||
	       alert == 48 || alert == 116;
}

/* Our own verdict on the peer's certificate (engine or path validation). */
static int cert_error(int err)
{
	switch (err) {
	case HS_ERR_TLS_CERT_NAME:
	case HS_ERR_TLS_CERT_UNTRUSTED:
	case HS_ERR_TLS_BAD_CERT:
	case HS_ERR_TLS_UNSUPPORTED_CERT:
	case HS_ERR_TLS_BAD_CERT_VERIFY:
	case HS_ERR_TLS_CERT_REQUIRED:
		return 1;
	default:
		return err <= HS_ERR_X509_FIRST && err >= HS_ERR_X509_LAST;
	}
}

int tls_fail(struct hs_conn *c, int err, const char *during)
{
	int sent = c != NULL ? hs_conn_alert(c, 0) : -1;
	int got = c != NULL ? hs_conn_alert(c, 1) : -1;

	if (err == HS_ERR_TLS_PEER_ALERT && got >= 0)
		return fail(cert_alert(got) ? EXIT_VERIFY : EXIT_TLS, "%s: peer sent alert %s (%d)",
			    during, hs_alert_name(got), got);
	if (cert_error(err))
		return fail(EXIT_VERIFY, "%s: certificate verification failed: %s (sent alert %s)",
			    during, hs_strerror(err), hs_alert_name(sent));
	if (sent >= 0)
		return fail(EXIT_TLS, "%s: %s (sent alert %s)", during, hs_strerror(err),
			    hs_alert_name(sent));
	return fail(EXIT_TLS, "%s: %s", during, hs_strerror(err));
}

/* ---- files ---- */

/* The symbolic name of the errnos opening a file gives ("ENOENT"). */
static const char *errno_name(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EISDIR: return "EISDIR";
	case ENOTDIR: return "ENOTDIR";
	case ELOOP: return "ELOOP";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EMFILE: return "EMFILE";
	default: return "errno";
	}
}

int check_readable(const char *what, const char *path, int dir)
{
	int e = 0;

	if (dir) {
		DIR *d = opendir(path);
		if (d == NULL)
			e = errno;
		else
			closedir(d);
	} else {
		FILE *f = fopen(path, "r");
		if (f == NULL)
			e = errno;
		else if (fgetc(f) == EOF && ferror(f)) /* a directory opens, then reads EISDIR */
			e = errno;
		if (f != NULL)
			fclose(f);
	}
	if (e == 0)
		return 0;
	return fail(EXIT_USAGE, "cannot read %s %s '%s': %s (%s)", what, dir ? "directory" : "file",
		    path, strerror(e), errno_name(e));
}

/* Does the file's text contain needle? (0 if it cannot be read) */
static int file_has(const char *path, const char *needle)
{
	char *text = NULL;
	size_t len = 0;
	int has = 0;

	if (hs_read_file(path, &text, &len) != 0)
		return 0;
	/* hs_read_file's buffer is the file only: look for needle by hand */
	for (size_t i = 0, n = strlen(needle); !has && i + n <= len; i++)
		has = memcmp(text + i, needle, n) == 0;
	free(text);
	return has;
}

/*
 * 0 if path's first CERTIFICATE block decodes and parses; else the error,
 * *pem = 1 when no CERTIFICATE block decodes (bad PEM) and 0 when the
 * certificate in it does not parse
 */
static int cert_file_error(const char *path, int *pem_bad)
{
	static uint8_t der[65536];
	char *pem = NULL;
	size_t len = 0, der_len = 0;
	int err = hs_read_file(path, &pem, &len);

	*pem_bad = 0;
	if (err)
		return err;
	err = hs_pem_cert_to_der(pem, len, der, sizeof(der), &der_len);
	free(pem);
	if (err) {
		*pem_bad = 1;
		return err;
	}
	return hs_x509_check_der(der, der_len);
}

int cred_fail(const char *cert, const char *key, int err)
{
	int cert_err, pem_bad;

	if (err == HS_ERR_X509_KEY_MISMATCH)
		return fail(EXIT_USAGE, "the private key in '%s' does not match the certificate in '%s'",
			    key, cert);
	if (err == HS_ERR_X509_KEY_ENCRYPTED || file_has(key, "Proc-Type: 4,ENCRYPTED"))
		return fail(EXIT_USAGE, "the private key in '%s' is encrypted: hs reads unencrypted "
					"keys only (openssl pkey -in '%s' -out plain.pem decrypts it)",
			    key, key);
	cert_err = cert_file_error(cert, &pem_bad);
	if (pem_bad)
		return fail(EXIT_USAGE, "bad PEM in certificate file '%s': no CERTIFICATE block that "
					"decodes", cert);
	if (cert_err != 0)
		return fail(EXIT_USAGE, "the certificate in '%s' does not parse: %s", cert,
			    hs_strerror(cert_err));
	if (err == HS_ERR_BAD_ENCODING)
		return fail(EXIT_USAGE, "bad PEM in key file '%s': no PRIVATE KEY, EC PRIVATE KEY or "
					"RSA PRIVATE KEY block that decodes", key);
	return fail(EXIT_USAGE, "cannot use the key in '%s' with '%s': %s", key, cert,
		    hs_strerror(err));
}

int ca_fail(const char *what, const char *path, int err)
{
	int pem_bad, cert_err = cert_file_error(path, &pem_bad);

	if (pem_bad)
		return fail(EXIT_USAGE, "bad PEM in %s file '%s': no CERTIFICATE block that decodes",
			    what, path);
	if (cert_err != 0)
		return fail(EXIT_USAGE, "%s file '%s': the certificate does not parse: %s", what,
			    path, hs_strerror(cert_err));
	return fail(EXIT_USAGE, "cannot load %s file '%s': %s", what, path, hs_strerror(err));
}

int capath_check(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	int n_bad = 0, pem_bad, err;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		/* files without any certificate are not meant as one: not named */
		if (!file_has(path, "-----BEGIN CERTIFICATE-----"))
			continue;
		if ((err = cert_file_error(path, &pem_bad)) == 0)
			continue;
		n_bad++;
		fprintf(stderr, "%s: --capath: skipped '%s': %s%s\n", prog_name, path,
			pem_bad ? "bad PEM: " : "the certificate does not parse: ", hs_strerror(err));
	}
	closedir(d);
	return n_bad;
}

/* ---- -v: the message trace ---- */

static const char *content_name(int type)
{
	switch (type) {
	case 20: return "change_cipher_spec";
	case 21: return "alert";
	case 22: return "handshake";
	case 23: return "application_data";
	default: return "unknown";
	}
}

static const char *handshake_name(const uint8_t *m, size_t len)
{
	/* RFC 8446 4.1.3: a ServerHello whose random is this is a HelloRetryRequest */
	static const uint8_t hrr[8] = { 0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11 };

	switch (m[0]) {
	case 1: return "ClientHello";
	case 2: return len >= 14 && memcmp(m + 6, hrr, 8) == 0 ? "ServerHello (HelloRetryRequest)"
							      : "ServerHello";
	case 4: return "NewSessionTicket";
	case 5: return "EndOfEarlyData";
	case 8: return "EncryptedExtensions";
	case 11: return "Certificate";
	case 13: return "CertificateRequest";
	case 15: return "CertificateVerify";
	case 20: return "Finished";
	case 24: return "KeyUpdate";
	default: return "unknown";
	}
}

static void trace_msg(void *arg, const struct hs_conn *c, int sent, int type, const uint8_t *m,
		      size_t len)
{
	static const char *last_state;
	static const struct hs_conn *last_conn;
	const char *dir = sent ? ">>>" : "<<<", *state = hs_conn_state_name(c);

	(void)arg;
	if (c != last_conn) /* a new connection (hs-server): no transition from the last one */
		last_state = NULL;
	last_conn = c;
	if (last_state != NULL && strcmp(last_state, state) != 0)
		note(3, "state %s -> %s", last_state, state);
	last_state = state;
	if (type == HS_TRACE_RECORD_HEADER && len == 5)
		note(3, "%s record %s (%d), version %02x%02x, length %u", dir, content_name(m[0]),
		     m[0], m[1], m[2], (unsigned)m[3] << 8 | m[4]);
	else if (type == 22 && len >= 4)
		note(3, "%s   handshake %s (%d), length %zu", dir, handshake_name(m, len), m[0],
		     len - 4);
	else if (type == 21 && len == 2)
		note(3, "%s   alert %s %s (%d)", dir, m[0] == 1 ? "warning" : "fatal",
		     hs_alert_name(m[1]), m[1]);
	else if (type == 20)
		note(3, "%s   change_cipher_spec, length %zu", dir, len);
}

void trace_attach(struct hs_config *cfg)
{
	if (prog_verbosity >= 3)
		cfg->msg_cb = trace_msg;
}

/* ---- --json ---- */

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* "key":"value" with JSON escapes (RFC 8259 7: \" \\ and \u00XX for the
 * rest outside 0x20..0x7e); NULL is null */
static void json_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	if (v == NULL) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p > 0x7e)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static const char *name_or_null(uint16_t id, const char *name) { return id != 0 ? name : NULL; }

/* hs_conn_early_data(): enum hs_early */
static const char *const early_names[4] = { NULL, "offered", "accepted", "rejected" };

void report_json(FILE *f, const struct hs_conn *c, const struct conn_report *r)
{
	int sent = c != NULL ? hs_conn_alert(c, 0) : -1, got = c != NULL ? hs_conn_alert(c, 1) : -1;
	int done = c != NULL && hs_conn_handshake_done(c);

	fprintf(f, "{\"program\":\"%s\"", prog_name);
	json_str(f, "peer", r->peer);
	fprintf(f, ",\"ok\":%s,\"exit\":%d", r->exit_code == 0 ? "true" : "false", r->exit_code);
	json_str(f, "error", r->exit_code != 0 ? last_error() : NULL);
	json_str(f, "state", c != NULL ? hs_conn_state_name(c) : NULL);
	json_str(f, "version", done ? "TLSv1.3" : NULL);
	if (c != NULL) {
		json_str(f, "cipher_suite", name_or_null(hs_conn_suite(c), hs_suite_name(hs_conn_suite(c))));
		json_str(f, "group", name_or_null(hs_conn_group(c), hs_group_name(hs_conn_group(c))));
		json_str(f, "signature_scheme", name_or_null(hs_conn_sig_scheme(c),
				  hs_sig_scheme_name(hs_conn_sig_scheme(c))));
		json_str(f, "alpn", hs_conn_alpn(c));
		json_str(f, "server_name", r->server_name != NULL ? r->server_name
								   : hs_conn_server_name(c));
		fprintf(f, ",\"hrr\":%s", hs_conn_used_hrr(c) ? "true" : "false");
		json_str(f, "early_data", early_names[hs_conn_early_data(c) & 3]);
	}
	json_str(f, "verify", r->verify);
	json_str(f, "client_cert", r->client_cert);
	json_str(f, "alert_sent", sent >= 0 ? hs_alert_name(sent) : NULL);
	json_str(f, "alert_received", got >= 0 ? hs_alert_name(got) : NULL);
	json_str(f, "ktls_tx", r->ktls_tx);
	json_str(f, "ktls_rx", r->ktls_rx);
	fprintf(f, ",\"handshake_ms\":%.3f,\"bytes_sent\":%llu,\"bytes_received\":%llu}\n",
		r->handshake_ms, (unsigned long long)r->bytes_sent,
		(unsigned long long)r->bytes_received);
	fflush(f);
}

/* ---- --ktls=require ---- */

int ktls_require_check(struct algs *a)
{
	static const uint16_t all[] = { HS_TLS_AES_128_GCM_SHA256, HS_TLS_AES_256_GCM_SHA384,
					HS_TLS_CHACHA20_POLY1305_SHA256 };
	struct hs_ktls_caps caps;
	uint16_t keep[LIST_MAX];
	size_t n = 0, n_in = a->n_suites > 0 ? a->n_suites : sizeof(all) / sizeof(all[0]);
	const uint16_t *in = a->n_suites > 0 ? a->suites : all;

	if (hs_ktls_probe(&caps) != 0)
		return fail(EXIT_KTLS, "kTLS unavailable: the kernel probe failed");
	if (!caps.ulp)
		return fail(EXIT_KTLS, "kTLS unavailable: %s", caps.reason);
	for (size_t i = 0; i < n_in; i++) {
		const struct hs_ktls_cipher *k = hs_ktls_cipher_for_suite(in[i]);
		unsigned bit = 0;
		for (int id = 0; k != NULL && id < HS_KTLS_N_CIPHERS; id++)
			if (hs_ktls_cipher_by_id((enum hs_ktls_cipher_id)id) == k)
				bit = 1u << id;
		if (bit != 0 && (caps.tx & bit) && (caps.rx & bit))
			keep[n++] = in[i];
	}
	if (n == 0)
		return fail(EXIT_KTLS, "kTLS unavailable: the kernel takes none of the cipher "
				       "suites offered both ways (%s)", caps.reason);
	memcpy(a->suites, keep, n * sizeof(keep[0]));
	a->n_suites = n;
	return 0;
}

/* ---- options ---- */

/* Does spelling `name` (len bytes) appear in the space-separated list? */
static int names_have(const char *names, const char *name, size_t len)
{
	const char *p = names;

	while (*p) {
		size_t n = strcspn(p, " ");
		if (n == len && strncmp(p, name, len) == 0)
			return 1;
		p += n;
		p += strspn(p, " ");
	}
	return 0;
}

static const struct opt *find_opt(const struct opt *t, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (names_have(t[i].names, name, len))
			return &t[i];
	return NULL;
}

int opts_parse(const struct opt *t, size_t n, int argc, char **argv, void *ctx,
	       int (*positional)(void *ctx, const char *arg))
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t len = (a[0] == '-' && a[1] == '-' && eq != NULL) ? (size_t)(eq - a)
								       : strlen(a);
		const struct opt *o;
		const char *val = NULL;

		if (a[0] != '-' || a[1] == '\0') {
			if (positional == NULL || positional(ctx, a) != 0)
				return fail(EXIT_USAGE, "unexpected argument '%s' (try --help)", a);
			continue;
		}
		o = find_opt(t, n, a, len);
		if (o == NULL)
			return fail(EXIT_USAGE, "unknown option '%s' (try --help)", a);
		if (o->arg != NULL && o->arg[0] == '[') {
			val = a[len] == '=' ? a + len + 1 : NULL; /* optional: only as --opt=VALUE */
		} else if (o->arg != NULL) {
			if (a[len] == '=')
				val = a + len + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return fail(EXIT_USAGE, "option '%s' needs %s", a, o->arg);
		} else if (a[len] == '=') {
			return fail(EXIT_USAGE, "option '%.*s' takes no value", (int)len, a);
		}
		if (o->set(ctx, val) != 0)
			return EXIT_USAGE;
	}
	return 0;
}

void opts_help(const struct opt *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char left[64];
		snprintf(left, sizeof(left), "%s%s%s", t[i].names,
			 t[i].arg && t[i].arg[0] != '[' ? " " : "",
			 t[i].arg ? t[i].arg : "");
		printf("  %-34s %s\n", left, t[i].help);
	}
}

/* ---- algorithm lists ---- */

struct name_id {
	const char *name;
	uint16_t id;
};

static const struct name_id suite_names[] = {
	{ "TLS_AES_128_GCM_SHA256", HS_TLS_AES_128_GCM_SHA256 },
	{ "TLS_AES_256_GCM_SHA384", HS_TLS_AES_256_GCM_SHA384 },
	{ "TLS_CHACHA20_POLY1305_SHA256", HS_TLS_CHACHA20_POLY1305_SHA256 },
};
static const struct name_id group_names[] = {
	{ "x25519", HS_GROUP_X25519 },
	{ "secp256r1", HS_GROUP_SECP256R1 },
	{ "P-256", HS_GROUP_SECP256R1 },
	{ "prime256v1", HS_GROUP_SECP256R1 },
};
static const struct name_id sig_names[] = {
	{ "ecdsa_secp256r1_sha256", HS_SIG_ECDSA_SECP256R1_SHA256 },
	{ "ECDSA+SHA256", HS_SIG_ECDSA_SECP256R1_SHA256 },
	{ "ed25519", HS_SIG_ED25519 },
	{ "ecdsa_secp384r1_sha384", HS_SIG_ECDSA_SECP384R1_SHA384 },
	{ "ECDSA+SHA384", HS_SIG_ECDSA_SECP384R1_SHA384 },
	{ "rsa_pss_rsae_sha256", HS_SIG_RSA_PSS_RSAE_SHA256 },
	{ "rsa_pss_rsae_sha384", HS_SIG_RSA_PSS_RSAE_SHA384 },
	{ "rsa_pss_rsae_sha512", HS_SIG_RSA_PSS_RSAE_SHA512 },
};

/* Split list on any of seps into ids looked up (case-insensitively) in tab. */
static int parse_list(const char *what, const char *list, const char *seps,
		      const struct name_id *tab, size_t n_tab, uint16_t *out, size_t *n_out)
{
	const char *p = list;

	*n_out = 0;
	while (*p) {
		size_t len = strcspn(p, seps), k;
		for (k = 0; k < n_tab; k++)
			if (strlen(tab[k].name) == len && strncasecmp(tab[k].name, p, len) == 0)
				break;
		if (len > 0 && k == n_tab)
			return fail(EXIT_USAGE, "unknown %s '%.*s'", what, (int)len, p);
		if (len > 0 && *n_out == LIST_MAX)
			return fail(EXIT_USAGE, "too many %ss", what);
		if (len > 0)
			out[(*n_out)++] = tab[k].id;
		p += len;
		p += strspn(p, seps);
	}
	if (*n_out == 0)
		return fail(EXIT_USAGE, "empty %s list", what);
	return 0;
}

int parse_suites(struct algs *a, const char *list)
{
	return parse_list("cipher suite", list, ":,", suite_names,
			  sizeof(suite_names) / sizeof(suite_names[0]), a->suites, &a->n_suites);
}

int parse_groups(struct algs *a, const char *list)
{
	return parse_list("group", list, ":,", group_names,
			  sizeof(group_names) / sizeof(group_names[0]), a->groups, &a->n_groups);
}

int parse_sigs(struct algs *a, const char *list)
{
	return parse_list("signature scheme", list, ":,", sig_names,
			  sizeof(sig_names) / sizeof(sig_names[0]), a->sigs, &a->n_sigs);
}

/* "h2,http/1.1": each protocol 1..255 bytes (RFC 7301 3.1) */
int parse_alpn(struct algs *a, const char *list)
{
	char *p = a->alpn_buf;

	if (strlen(list) >= sizeof(a->alpn_buf))
		return fail(EXIT_USAGE, "ALPN list too long");
	strcpy(a->alpn_buf, list);
	a->n_alpn = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		if (len == 0 || len > 255 || a->n_alpn == ALPN_MAX)
			return fail(EXIT_USAGE, "bad ALPN list '%s'", list);
		a->alpn[a->n_alpn++] = p;
		p += len;
		if (*p == ',')
			*p++ = '\0';
	}
	if (a->n_alpn == 0)
		return fail(EXIT_USAGE, "empty ALPN list");
	return 0;
}

/*
 * SSLKEYLOGFILE: every connection's traffic secrets appended to that file
 * (NSS key log format, created 0600) for Wireshark and tshark. Whoever
 * reads the file can decrypt the traffic, so it is said loudly once.
 */
static void keylog_write(void *arg, const char *line)
{
	FILE *f = arg;

	fprintf(f, "%s\n", line);
	fflush(f);
}

static void keylog_from_env(struct hs_config *cfg)
{
	static FILE *f;
	const char *path = getenv("SSLKEYLOGFILE");

	if (path == NULL || path[0] == 0)
		return;
	if (f == NULL) {
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (fd < 0 || (f = fdopen(fd, "a")) == NULL) {
			fprintf(stderr, "warning: SSLKEYLOGFILE %s: %s: no key log\n", path,
				strerror(errno));
			if (fd >= 0)
				close(fd);
			return;
		}
		fprintf(stderr, "WARNING: SSLKEYLOGFILE is set: the TLS secrets of every connection"
			" go to %s; whoever reads it can decrypt the traffic\n", path);
	}
	cfg->keylog = keylog_write;
	cfg->keylog_arg = f;
}

void algs_apply(const struct algs *a, struct hs_config *cfg)
{
	if (a->n_suites > 0) {
		cfg->suites = a->suites;
		cfg->n_suites = a->n_suites;
	}
	if (a->n_groups > 0) {
		cfg->groups = a->groups;
		cfg->n_groups = a->n_groups;
	}
	if (a->n_sigs > 0) {
		cfg->sig_schemes = a->sigs;
		cfg->n_sig_schemes = a->n_sigs;
	}
	if (a->n_alpn > 0) {
		cfg->alpn = a->alpn;
		cfg->n_alpn = a->n_alpn;
	}
	keylog_from_env(cfg);
}

void describe(const struct hs_conn *c, char *out, size_t cap)
{
	char alpn[ESC_MAX];

	/* the ALPN protocol came from the peer's list (ours on a client, but
	 * the server's echo is checked against it): printed escaped anyway */
	snprintf(out, cap, "TLSv1.3 %s %s %s alpn=%s hrr=%s", hs_suite_name(hs_conn_suite(c)),
		 hs_group_name(hs_conn_group(c)), hs_sig_scheme_name(hs_conn_sig_scheme(c)),
		 escape_peer(hs_conn_alpn(c), alpn, sizeof(alpn)), hs_conn_used_hrr(c) ? "yes" : "no");
}

static int hex_nibble(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int parse_count(const char *opt, const char *a, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(a, &end, 10);
	if (*a < '0' || *a > '9' || *end != '\0' || errno != 0 || v < min || v > max)
		return fail(EXIT_USAGE, "%s wants a number from %ld to %ld, not '%s'", opt, min, max,
			    a);
	*out = v;
	return 0;
}

int parse_psk_hex(const char *arg, uint8_t *out, size_t cap, size_t *n)
{
	size_t len = strlen(arg);

	*n = 0;
	if (len == 0 || len % 2 != 0 || len / 2 > cap)
		return fail(EXIT_USAGE, "--psk: want 1 to %zu bytes as an even number of hex digits",
			    cap);
	for (size_t i = 0; i < len; i += 2) {
		int hi = hex_nibble(arg[i]), lo = hex_nibble(arg[i + 1]);
		if (hi < 0 || lo < 0)
			return fail(EXIT_USAGE, "--psk: not hex");
		out[(*n)++] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

const char *psk_desc(const struct hs_conn *c, int external)
{
	int r = hs_conn_resumed(c);

	if (external)
		return r == 2 ? "external PSK (psk_ke)" : r == 1 ? "external PSK (psk_dhe_ke)"
								 : "no PSK (certificate)";
	return r == 2 ? "resumed (psk_ke)" : r == 1 ? "resumed (psk_dhe_ke)" : "new (full handshake)";
}
