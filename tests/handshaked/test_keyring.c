/*
 * The configuration's keyrings linked into handshaked's session keyring
 * (issue 13), as tlshd does: hsd_keyring_link by description and by
 * serial, refusals (no such keyring, a key that is not a keyring), and the
 * daemon linking what [authenticate] keyrings= names at start (its log).
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

#include "handshaked/keys.h"
#include "loopback.h"

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

/* The daemon with conf, until its "ready:" line; its log in err. */
static int daemon_log(const char *exe, const char *conf, const char *sock, const char *err,
		      char *log, size_t cap)
{
	pid_t pid = fork();
	size_t n = 0;

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
	waitpid(pid, NULL, 0);
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
	lo_check(daemon_log(argv[1], conf, sock, err, log, sizeof(log)) == 0, "handshaked started");
	snprintf(want, sizeof(want), "keyring %s (%d) linked into the session keyring", name, r);
	lo_check(strstr(log, want) != NULL, "handshaked: %s", want);
	lo_check(strstr(log, "keyring hsd-no-such-ring: ") != NULL,
		 "handshaked says which configured keyring it cannot find");
	lo_check(strstr(log, "keyring .nfs") == NULL,
		 "the kernel's .nfs keyring is linked where it exists, silently (as tlshd does)");
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
