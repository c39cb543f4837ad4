/*
 * The configuration's keyrings linked into handshaked's session keyring
 * (issue 13), as tlshd does: hsd_keyring_link by description and by
 * serial, refusals (no such keyring, a key that is not a keyring), and the
 * daemon linking what [authenticate] keyrings= names at start (its log);
 * and the key DONE names as the authenticated server's identity
 * (hsd_key_peer_cert: "asymmetric", "TLS x509 NAME", with an expiry; a
 * visible note where the kernel has no asymmetric key type).
 * Runs in a fresh anonymous session keyring (the test's and the daemon's),
 * so nothing is linked into the caller's; skipped (77) where keyctl is not
 * permitted (seccomp in some containers).
 *   test_keyring HANDSHAKED
 */
#define _GNU_SOURCE
#include <errno.h>
#include <keyutils.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <time.h>

#include "handshaked/keys.h"
#include "hs/cred.h"
#include "hs/x509_write.h"
#include "loopback.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-const-variable" /* one certificate of the set is used */
#include "../tls/rsa_certs.h"
#pragma GCC diagnostic pop

/* Is k linked directly in our session keyring? */
static int linked(key_serial_t k)
{
	key_serial_t ids[256];
	long n = keyctl_read(KEY_SPEC_SESSION_KEYRING, (char *)ids, sizeof(ids));

	for (long i = 0; i < n / (long)sizeof(key_serial_t) && i < 256; i++)
		if (ids[i] == k)
			return 1;
	return 0;
}

/* The expiry column of key k in /proc/keys ("perm" if none), into out. */
static void expiry_of(key_serial_t k, char *out, size_t cap)
{
	char line[512], id[16], exp[16];
	FILE *f = fopen("/proc/keys", "r");

	snprintf(out, cap, "?");
	snprintf(id, sizeof(id), "%08x", (unsigned)k);
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, id, 8) == 0 && sscanf(line, "%*s %*s %*s %15s", exp) == 1)
			snprintf(out, cap, "%s", exp);
	if (f != NULL)
		fclose(f);
}

/*
 * DONE's remote identity for a server certificate: a key the kernel parsed
 * (RSA-2048 from tests/tls; P-256 from our writer, which a kernel without
 * ECDSA in its crypto API cannot check: then a visible note).
 */
static void peer_cert_key(void)
{
	uint8_t rsa[2048], p256[HS_X509_WRITE_DER_MAX], priv[32];
	struct hs_cert_spec spec = { .dns_name = "peer.example" };
	size_t rsa_len = 0, p256_len = 0;
	char *desc = NULL, exp[16];
	key_serial_t k;

	for (int i = 0; i < 32; i++)
		priv[i] = (uint8_t)(i + 1);
	spec.not_before = (uint64_t)time(NULL) - 3600;
	spec.not_after = spec.not_before + 7 * 86400;
	if (hs_pem_cert_to_der(RSA2048_CERT, sizeof(RSA2048_CERT) - 1, rsa, sizeof(rsa), &rsa_len) != 0 ||
	    hs_x509_write_selfsigned_p256(p256, sizeof(p256), &p256_len, &spec, priv) != 0) {
		lo_check(0, "certificates to store");
		return;
	}
	k = hsd_key_peer_cert(rsa, rsa_len, "peer.example");
	if (k < 0 && errno == ENODEV) {
		printf("note: no asymmetric key type in this kernel: DONE carries no key for the server\n");
		return;
	}
	if (k <= 0 || keyctl_describe_alloc(k, &desc) < 0)
		desc = strdup(strerror(errno));
	lo_check(k > 0 && strncmp(desc, "asymmetric;", 11) == 0 && strstr(desc, ";TLS x509 peer.example") != NULL,
		 "the server's certificate as a key for DONE: %s", desc);
	expiry_of(k, exp, sizeof(exp));
	lo_check(k > 0 && strcmp(exp, "perm") != 0 && strcmp(exp, "?") != 0,
		 "the key expires (/proc/keys: %s)", exp);
	if (k > 0)
		keyctl_invalidate(k);
	k = hsd_key_peer_cert(p256, p256_len, "peer.example");
	if (k > 0)
		printf("ok - a P-256 server certificate too\n");
	else
		printf("note: this kernel cannot take a P-256 certificate as a key (%s): no ECDSA in "
		       "its crypto API; DONE then carries no key for such a server\n", strerror(errno));
	if (k > 0)
		keyctl_invalidate(k);
	rsa[rsa_len / 2] ^= 1; /* a certificate the kernel cannot parse: no key, no crash */
	lo_check(hsd_key_peer_cert(rsa, rsa_len, "bad.example") == -1,
		 "a certificate the kernel's parser refuses: no key (%s)", strerror(errno));
	free(desc);
}

/* The daemon with conf, until its "ready:" line; its log in err. */
static int daemon_log(const char *exe, const char *conf, const char *sock, const char *err,
		      char *log, size_t cap)
{
	pid_t pid = fork();
	size_t n = 0;
	int status = -1;

	if (pid == 0) {
		if (keyctl_join_session_keyring(NULL) < 0 || freopen(err, "w", stderr) == NULL)
			_exit(127);
		execl(exe, exe, "--config", conf, "--socket", sock, "--no-upcalls", "-v", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200 && strstr(log, "ready:") == NULL; i++) {
		FILE *f = fopen(err, "r");

		usleep(50000);
		n = f != NULL ? fread(log, 1, cap - 1, f) : 0;
		log[n] = '\0';
		if (f != NULL)
			fclose(f);
	}
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1; /* it must stop cleanly (no leak under ASan) */
	return strstr(log, "ready:") != NULL ? 0 : -1;
}

int main(int argc, char **argv)
{
	char name[64], serial[32], why[256], dir[] = "/tmp/hsd-keyring.XXXXXX", conf[128], sock[128],
						err[128], log[8192] = "", want[160];
	key_serial_t r, r2, u;
	FILE *f;

	if (argc != 2 || mkdtemp(dir) == NULL)
		return 2;
	if (keyctl_join_session_keyring(NULL) < 0) {
		printf("SKIP: keyctl not permitted here (join a session keyring: %s)\n", strerror(errno));
		rmdir(dir);
		return 77;
	}
	snprintf(name, sizeof(name), "hsd-test-%d", (int)getpid());
	r = add_key("keyring", name, NULL, 0, KEY_SPEC_PROCESS_KEYRING);
	snprintf(serial, sizeof(serial), "hsd-test2-%d", (int)getpid());
	r2 = add_key("keyring", serial, NULL, 0, KEY_SPEC_PROCESS_KEYRING);
	u = add_key("user", "hsd-test-user", "x", 1, KEY_SPEC_PROCESS_KEYRING);
	if (r < 0 || r2 < 0 || u < 0) {
		printf("SKIP: keyctl not permitted here (add_key: %s)\n", strerror(errno));
		rmdir(dir);
		return 77;
	}
	lo_check(!linked(r), "before: %s is not in the session keyring", name);
	lo_check(hsd_keyring_link(name, why, sizeof(why)) == r && linked(r),
		 "linked by its description (%s)", name);
	snprintf(serial, sizeof(serial), "%d", r2);
	lo_check(hsd_keyring_link(serial, why, sizeof(why)) == r2 && linked(r2),
		 "linked by its serial (%s)", serial);
	why[0] = '\0';
	lo_check(hsd_keyring_link("hsd-no-such-ring", why, sizeof(why)) == -1 &&
			 strstr(why, "hsd-no-such-ring") != NULL,
		 "no such keyring: refused (%s)", why);
	snprintf(serial, sizeof(serial), "%d", u);
	why[0] = '\0';
	lo_check(hsd_keyring_link(serial, why, sizeof(why)) == -1 && strstr(why, "not a keyring") != NULL,
		 "a key that is not a keyring: refused (%s)", why);

	/* the daemon, in a session keyring of its own: it must find r by name and link it
	 * (same user: view, search and link granted to the user) */
	if (keyctl_setperm(r, KEY_POS_ALL | KEY_USR_VIEW | KEY_USR_SEARCH | KEY_USR_LINK) < 0)
		lo_check(0, "keyctl_setperm: %s", strerror(errno));
	snprintf(conf, sizeof(conf), "%s/tlshd.conf", dir);
	snprintf(sock, sizeof(sock), "%s/hsd.sock", dir);
	snprintf(err, sizeof(err), "%s/hsd.err", dir);
	f = fopen(conf, "w");
	if (f == NULL)
		return 1;
	fprintf(f, "[authenticate]\nkeyrings=%s;hsd-no-such-ring;.nfs\n", name);
	fclose(f);
	lo_check(daemon_log(argv[1], conf, sock, err, log, sizeof(log)) == 0, "handshaked started and stopped cleanly");
	snprintf(want, sizeof(want), "keyring %s (%d) linked into the session keyring", name, r);
	lo_check(strstr(log, want) != NULL, "handshaked: %s", want);
	lo_check(strstr(log, "keyring hsd-no-such-ring: ") != NULL,
		 "handshaked says which configured keyring it cannot find");
	lo_check(strstr(log, "keyring .nfs") == NULL,
		 "the kernel's .nfs keyring is linked where it exists, silently (as tlshd does)");
	peer_cert_key();
	keyctl_invalidate(r);
	keyctl_invalidate(r2);
	keyctl_invalidate(u);
	unlink(conf);
	unlink(err);
	unlink(sock);
	rmdir(dir);
	printf("%d failed\n", lo_failures);
	return lo_failures ? 1 : 0;
}
