/*
 * Setting a connection up: the kernel path (TCP_ULP "tls", TLS_TX, TLS_RX,
 * TLS_RX_EXPECT_NO_PAD) with a fall-back, per direction, to our own record
 * layer, and the replaceable syscalls.
 *
 * Implementation notes:
 * - Check first, then act (DESIGN 7): the suite must have a row, the IV must
 *   be 12 bytes and the key the row's length before any setsockopt.
 * - The ULP is set once for the socket; a direction whose TLS_TX/TLS_RX is
 *   refused stays a plain TCP direction under the ULP (the kernel's base
 *   config passes it through), so it can still run in userspace.
 * - Every crypto_info is built in a stack buffer and wiped right after the
 *   setsockopt, whatever its result.
 * - errno from the kernel is mapped to a reason: ENOENT on TCP_ULP = no tls
 *   module (or CONFIG_TLS off); ENOENT on TLS_TX/RX = the kernel could not
 *   allocate the AEAD (cipher not built); EINVAL = it does not know the
 *   version or cipher type (Linux < 5.1 for TLS 1.3, < 5.11 for ChaCha20).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/tls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "base/wipe.h"
#include "ktls/internal.h"

static int sys_setsockopt(void *user, int fd, int level, int name, const void *val,
			  socklen_t len)
{
	(void)user;
	return setsockopt(fd, level, name, val, len);
}

static ssize_t sys_sendmsg(void *user, int fd, const struct msghdr *m, int flags)
{
	(void)user;
	return sendmsg(fd, m, flags);
}

static ssize_t sys_recvmsg(void *user, int fd, struct msghdr *m, int flags)
{
	(void)user;
	return recvmsg(fd, m, flags);
}

const struct hs_ktls_ops hs_ktls_sys_ops = {
	.setsockopt = sys_setsockopt,
	.sendmsg = sys_sendmsg,
	.recvmsg = sys_recvmsg,
	.user = NULL,
};

const char *hs_ktls_why_str(enum hs_ktls_why why)
{
	switch (why) {
	case HS_KTLS_WHY_NONE: return "";
	case HS_KTLS_WHY_FORCED: return "userspace path requested";
	case HS_KTLS_WHY_NOT_TCP: return "not a connected TCP socket";
	case HS_KTLS_WHY_NO_ULP:
		return "the kernel refused TCP_ULP \"tls\": tls module absent or CONFIG_TLS off";
	case HS_KTLS_WHY_OLD_KERNEL: return "kernel too old for TLS 1.3 in kTLS (needs Linux >= 5.1)";
	case HS_KTLS_WHY_NO_CIPHER:
		return "the kernel lacks this cipher (not built, or Linux < 5.11 for ChaCha20-Poly1305)";
	case HS_KTLS_WHY_SYSCALL: return "setsockopt failed";
	case HS_KTLS_WHY_NO_REKEY:
		return "this kernel cannot rekey kTLS (TLS 1.3 KeyUpdate needs Linux >= 6.14)";
	}
	return "?";
}

enum hs_ktls_why ktls_why_ulp(int e)
{
	switch (e) {
	case ENOENT: return HS_KTLS_WHY_NO_ULP;
	case ENOTCONN:
	case EOPNOTSUPP:
	case ENOPROTOOPT:
	case ENOTSOCK:
	case EBADF: return HS_KTLS_WHY_NOT_TCP;
	default: return HS_KTLS_WHY_SYSCALL;
	}
}

enum hs_ktls_why ktls_why_conf(int e, const struct hs_ktls_cipher *c)
{
	if (e == ENOENT)
		return HS_KTLS_WHY_NO_CIPHER;
	if (e == EINVAL)
		return c->kernel_type == TLS_CIPHER_CHACHA20_POLY1305 ? HS_KTLS_WHY_NO_CIPHER
								      : HS_KTLS_WHY_OLD_KERNEL;
	if (e == ENOPROTOOPT)
		return HS_KTLS_WHY_NO_ULP;
	return HS_KTLS_WHY_SYSCALL;
}

int ktls_set_conf(struct ktls_state *k, int name, const uint8_t *key, const uint8_t *iv,
		  uint64_t seq)
{
	uint8_t info[64];
	int rc, e;

	if (hs_ktls_crypto_info(k->cipher, key, iv, seq, info, sizeof(info)) != 0)
		return EINVAL;
	rc = k->ops.setsockopt(k->ops.user, k->fd, SOL_TLS, name, info,
			       (socklen_t)k->cipher->info_size);
	e = errno;
	wipe(info, sizeof(info));
	return rc == 0 ? 0 : (e ? e : EIO);
}

/* Check first: everything the install relies on, before any syscall. */
static int validate(const struct hs_secrets *s, const struct hs_ktls_cipher **c)
{
	if (!s || !s->tx || !s->rx)
		return HS_ERR_ARG;
	*c = hs_ktls_cipher_for_suite(s->suite);
	if (!*c)
		return HS_ERR_UNSUPPORTED;
	if (s->iv_len != HS_IV_LEN || s->key_len != (*c)->key_len ||
	    s->secret_len != (*c)->secret_len)
		return HS_ERR_ARG;
	if (ktls_cipher_aead(*c) == NULL || ktls_cipher_aead(*c)->ctx_size > HS_AEAD_CTX_MAX)
		return HS_ERR_INTERNAL; /* the context would not fit struct rec_key */
	return 0;
}

/* Try TLS_TX or TLS_RX; on refusal the direction falls back to userspace. */
static void install_dir(struct ktls_state *k, struct ktls_dir *d, int name,
			const struct hs_dir_secrets *s)
{
	int e = ktls_set_conf(k, name, s->key, s->iv, s->seq);

	if (e == 0) {
		d->path = HS_KTLS_PATH_KERNEL;
		d->why = HS_KTLS_WHY_NONE;
		return;
	}
	d->why = ktls_why_conf(e, k->cipher);
	d->why_errno = e;
}

static void install_kernel(struct ktls_state *k, const struct hs_secrets *s, int want_tx,
			   int want_rx)
{
	int rc, e;
	uint32_t one = 1;

	rc = k->ops.setsockopt(k->ops.user, k->fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls"));
	e = errno;
	if (rc != 0) {
		k->tx.why = k->rx.why = ktls_why_ulp(e);
		k->tx.why_errno = k->rx.why_errno = e;
		return;
	}
	if (want_tx)
		install_dir(k, &k->tx, TLS_TX, s->tx);
	if (want_rx)
		install_dir(k, &k->rx, TLS_RX, s->rx);
	/* Linux >= 6.0: promise the kernel that the peer never pads (it retries if it does). */
	if (k->rx.path == HS_KTLS_PATH_KERNEL && (k->flags & HS_KTLS_F_NO_PAD))
		k->no_pad = k->ops.setsockopt(k->ops.user, k->fd, SOL_TLS, TLS_RX_EXPECT_NO_PAD,
					      &one, sizeof(one)) == 0;
}

/*
 * Each direction's record/ key: secret, IV and next sequence number, and on
 * the userspace path the AEAD keyed with the hand-off's key.
 */
static int load_dir(struct ktls_state *k, struct ktls_dir *d, const struct hs_dir_secrets *s)
{
	const struct hs_ktls_cipher *c = k->cipher;
	const struct aead *aead = d->path == HS_KTLS_PATH_USER ? ktls_cipher_aead(c) : NULL;

	if (aead != NULL) {
		/* the AEAD context: only this path has one (aligned_alloc wants a multiple) */
		size_t cap = (aead->ctx_size + 63) & ~(size_t)63;
		void *mem = aligned_alloc(64, cap);

		if (mem == NULL)
			return HS_ERR_NOMEM;
		rec_key_init(&d->rec, mem, cap);
	}
	return rec_key_load(&d->rec, aead, ktls_cipher_hash(c), c->key_len, s->secret, s->key, s->iv,
			       s->seq) ? HS_ERR_INTERNAL : 0;
}

/* A clean state on fd: no error, no alert, nothing owed. */
static struct ktls_state *state_init(struct hs_ktls *pub, int fd)
{
	struct ktls_state *k = ktls_of(pub);

	memset(pub, 0, sizeof(*pub));
	k->fd = fd;
	atomic_init(&k->err, 0);
	atomic_init(&k->sys_errno, 0);
	atomic_init(&k->alert, KTLS_NO_ALERT);
	atomic_init(&k->want_update, 0);
	atomic_init(&k->peer_alert, -1);
	return k;
}

int hs_ktls_init(struct hs_ktls *pub, int fd, const struct hs_secrets *s, unsigned flags,
		 const struct hs_ktls_ops *ops)
{
	struct ktls_state *k;
	const struct hs_ktls_cipher *c;
	int want_tx, want_rx, err;

	if (!pub)
		return HS_ERR_ARG;
	k = state_init(pub, fd);
	err = validate(s, &c);
	if (err)
		return err;
	k->flags = flags;
	k->cipher = c;
	k->ops = ops ? *ops : hs_ktls_sys_ops;
	k->tx.path = k->rx.path = HS_KTLS_PATH_USER;
	want_tx = !(flags & (HS_KTLS_F_USER | HS_KTLS_F_USER_TX));
	want_rx = !(flags & (HS_KTLS_F_USER | HS_KTLS_F_USER_RX));
	k->tx.why = want_tx ? HS_KTLS_WHY_NONE : HS_KTLS_WHY_FORCED;
	k->rx.why = want_rx ? HS_KTLS_WHY_NONE : HS_KTLS_WHY_FORCED;
	if (want_tx || want_rx)
		install_kernel(k, s, want_tx, want_rx);
	if ((flags & HS_KTLS_F_KERNEL_ONLY) &&
	    ((want_tx && k->tx.path != HS_KTLS_PATH_KERNEL) ||
	     (want_rx && k->rx.path != HS_KTLS_PATH_KERNEL))) {
		atomic_store(&k->sys_errno,
			     want_tx && k->tx.why_errno ? k->tx.why_errno : k->rx.why_errno);
		atomic_store(&k->err, HS_ERR_UNSUPPORTED);
		return HS_ERR_UNSUPPORTED;
	}
	err = load_dir(k, &k->tx, s->tx);
	if (!err)
		err = load_dir(k, &k->rx, s->rx);
	if (err)
		atomic_store(&k->err, err);
	return err;
}

int hs_ktls_adopt(struct hs_ktls *pub, int fd, uint16_t suite)
{
	struct ktls_state *k;

	if (pub == NULL || fd < 0 || hs_ktls_cipher_for_suite(suite) == NULL)
		return HS_ERR_ARG;
	k = state_init(pub, fd);
	k->cipher = hs_ktls_cipher_for_suite(suite);
	k->ops = hs_ktls_sys_ops;
	k->tx.path = k->rx.path = HS_KTLS_PATH_KERNEL;
	k->adopted = 1;
	return 0;
}

int ktls_buf(struct ktls_state *k, uint8_t **b, size_t cap)
{
	if (*b != NULL)
		return 0;
	*b = calloc(1, cap);
	return *b != NULL ? 0 : ktls_fail(k, HS_ERR_NOMEM, ENOMEM);
}

static void buf_free(uint8_t **b, size_t cap)
{
	if (*b == NULL)
		return;
	wipe(*b, cap);
	free(*b);
	*b = NULL;
}

void hs_ktls_wipe(struct hs_ktls *pub)
{
	struct ktls_state *k;

	if (!pub)
		return;
	k = ktls_of(pub);
	rec_key_wipe(&k->tx.rec);
	rec_key_wipe(&k->rx.rec);
	free(k->tx.rec.ctx); /* wiped with the key */
	free(k->rx.rec.ctx);
	buf_free(&k->hs, KTLS_HS_CAP);
	buf_free(&k->in, KTLS_IN_CAP);
	buf_free(&k->pt, KTLS_PT_CAP);
	buf_free(&k->out, KTLS_OUT_CAP);
	wipe(pub, sizeof(*pub));
	k->fd = -1;
}

enum hs_ktls_path hs_ktls_tx_path(const struct hs_ktls *k) { return ktls_of_const(k)->tx.path; }
enum hs_ktls_path hs_ktls_rx_path(const struct hs_ktls *k) { return ktls_of_const(k)->rx.path; }

int hs_ktls_is_kernel(const struct hs_ktls *k)
{
	return hs_ktls_tx_path(k) == HS_KTLS_PATH_KERNEL &&
	       hs_ktls_rx_path(k) == HS_KTLS_PATH_KERNEL;
}

const char *hs_ktls_reason(const struct hs_ktls *pub, int rx)
{
	const struct ktls_state *k = ktls_of_const(pub);

	return hs_ktls_why_str(rx ? k->rx.why : k->tx.why);
}

int hs_ktls_errno(const struct hs_ktls *k) { return atomic_load(&ktls_of_const(k)->sys_errno); }
int hs_ktls_error(const struct hs_ktls *k) { return atomic_load(&ktls_of_const(k)->err); }
int hs_ktls_peer_alert(const struct hs_ktls *k)
{
	return atomic_load(&ktls_of_const(k)->peer_alert);
}
int hs_ktls_fd(const struct hs_ktls *k) { return ktls_of_const(k)->fd; }

uint16_t hs_ktls_suite(const struct hs_ktls *pub)
{
	const struct ktls_state *k = ktls_of_const(pub);

	return k->cipher ? k->cipher->suite : 0;
}

void hs_ktls_on_handshake(struct hs_ktls *pub, hs_ktls_handshake_fn fn, void *arg)
{
	struct ktls_state *k = ktls_of(pub);

	k->on_handshake = fn;
	k->on_handshake_arg = arg;
}

int hs_ktls_push_plaintext(struct hs_ktls *k, const uint8_t *p, size_t len)
{
	return ktls_push_pt(ktls_of(k), p, len);
}

int ktls_push_pt(struct ktls_state *k, const uint8_t *p, size_t len)
{
	int err;

	if (len == 0)
		return 0;
	err = ktls_buf(k, &k->pt, KTLS_PT_CAP);
	if (err)
		return err;
	if (len > KTLS_PT_CAP - (k->pt_len - k->pt_off))
		return HS_ERR_NO_SPACE;
	if (k->pt_off > 0) {
		memmove(k->pt, k->pt + k->pt_off, k->pt_len - k->pt_off);
		k->pt_len -= k->pt_off;
		k->pt_off = 0;
	}
	memcpy(k->pt + k->pt_len, p, len);
	k->pt_len += len;
	return 0;
}
