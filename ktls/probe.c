/*
 * What can this kernel's TLS do? Found by doing it, not by version numbers:
 * for each cipher a loopback TCP connection gets TCP_ULP "tls", TLS_TX and
 * TLS_RX with a made-up key; the first one also tries TLS_RX_EXPECT_NO_PAD
 * and a second TLS_TX (a rekey).
 *
 * Implementation notes:
 * - Nothing is sent on the probe sockets; they are closed at once.
 * - The key is all zeros: the kernel does not look at it beyond setting it.
 * - The reason string names the first thing missing, in the words of
 *   hs_ktls_why_str, plus the errno and the kernel release.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/tls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include "base/wipe.h"
#include "ktls/internal.h"

/* A connected loopback TCP pair; 0 or errno. */
static int loopback_pair(int fds[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l, e = 0;

	fds[0] = fds[1] = -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return errno;
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 1) != 0 ||
	    getsockname(l, (struct sockaddr *)&a, &alen) != 0)
		e = errno;
	if (!e && (fds[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		e = errno;
	if (!e && connect(fds[0], (struct sockaddr *)&a, sizeof(a)) != 0)
		e = errno;
	if (!e && (fds[1] = accept(l, NULL, NULL)) < 0)
		e = errno;
	close(l);
	if (e && fds[0] >= 0)
		close(fds[0]);
	return e;
}

static int set_conf(int fd, int name, const struct hs_ktls_cipher *c)
{
	uint8_t key[HS_KEY_MAX] = { 0 }, iv[HS_IV_LEN] = { 0 }, info[64];
	int rc, e;

	if (hs_ktls_crypto_info(c, key, iv, 0, info, sizeof(info)) != 0)
		return EINVAL;
	rc = setsockopt(fd, SOL_TLS, name, info, (socklen_t)c->info_size);
	e = errno;
	wipe(info, sizeof(info));
	return rc == 0 ? 0 : e;
}

static void note(struct hs_ktls_caps *caps, enum hs_ktls_why why, int e, const char *what)
{
	if (caps->why != HS_KTLS_WHY_NONE)
		return;
	caps->why = why;
	caps->sys_errno = e;
	snprintf(caps->reason, sizeof(caps->reason), "%s%s%s (%s) on Linux %s", what,
		 *what ? ": " : "", hs_ktls_why_str(why), strerror(e), caps->release);
}

static void probe_cipher(struct hs_ktls_caps *caps, enum hs_ktls_cipher_id id, int first)
{
	const struct hs_ktls_cipher *c = hs_ktls_cipher_by_id(id);
	uint32_t one = 1;
	int fds[2], e;

	e = loopback_pair(fds);
	if (e) {
		note(caps, HS_KTLS_WHY_NOT_TCP, e, "loopback TCP");
		return;
	}
	if (setsockopt(fds[0], IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls")) != 0) {
		note(caps, ktls_why_ulp(errno), errno, "");
		goto close_fds;
	}
	caps->ulp = 1;
	e = set_conf(fds[0], TLS_TX, c);
	if (e == 0)
		caps->tx |= 1u << id;
	else
		note(caps, ktls_why_conf(e, c), e, c->name);
	e = set_conf(fds[0], TLS_RX, c);
	if (e == 0)
		caps->rx |= 1u << id;
	else
		note(caps, ktls_why_conf(e, c), e, c->name);
	if (first && (caps->rx & (1u << id)))
		caps->no_pad = setsockopt(fds[0], SOL_TLS, TLS_RX_EXPECT_NO_PAD, &one,
					  sizeof(one)) == 0;
	if (first && (caps->tx & (1u << id)))
		caps->rekey = set_conf(fds[0], TLS_TX, c) == 0;
close_fds:
	close(fds[0]);
	close(fds[1]);
}

int hs_ktls_probe(struct hs_ktls_caps *caps)
{
	struct utsname u;

	memset(caps, 0, sizeof(*caps));
	if (uname(&u) == 0)
		snprintf(caps->release, sizeof(caps->release), "%s", u.release);
	for (int id = 0; id < HS_KTLS_N_CIPHERS; id++) {
		probe_cipher(caps, (enum hs_ktls_cipher_id)id, id == 0);
		if (!caps->ulp)
			break;
	}
	return 0;
}
