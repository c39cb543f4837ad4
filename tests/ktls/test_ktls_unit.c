/*
 * ktls without a kernel: the syscalls are replaced (struct hs_ktls_ops) so
 * the exact bytes given to the kernel can be checked.
 *
 * Proves:
 * - the crypto_info of each suite has linux/tls.h's layout, written out by
 *   hand here (version 0x0304, cipher type, iv = IV[4..12) or all 12 bytes for
 *   ChaCha20, key, salt = IV[0..4), rec_seq big-endian);
 * - the install order (TCP_ULP "tls", TLS_TX, TLS_RX, TLS_RX_EXPECT_NO_PAD)
 *   and the bytes of each;
 * - each kernel refusal gives the right reason and falls back per direction,
 *   or fails with HS_ERR_UNSUPPORTED under HS_KTLS_F_KERNEL_ONLY;
 * - records of other types carry the TLS_SET_RECORD_TYPE cmsg; a received
 *   KeyUpdate(update_requested) installs the next RX key (RFC 8446 7.2);
 *   the next write first sends our KeyUpdate and installs the next TX key;
 *   a kernel that answers EBUSY gives HS_ERR_UNSUPPORTED with nothing sent;
 * - EBADMSG from the kernel is HS_ERR_TLS_BAD_RECORD_MAC;
 * - hs_ktls_attach refuses an engine before its handshake or holding part
 *   of a record, and returns first the data the engine already decrypted;
 * - post-handshake messages split across records (a NewSessionTicket in
 *   three pieces, a KeyUpdate in two) are reassembled: the callback gets the
 *   whole ticket, the KeyUpdate rekeys RX; a record of another type inside a
 *   split message, or a message body over REC_MSG_MAX (the engine's
 *   limit), fails;
 * - hs_conn_post_handshake: the engine keeps a ticket given to it (also
 *   through ktls's reassembly), raises its events, queues no answer to
 *   KeyUpdate(update_requested), refuses a bad KeyUpdate (sticky) and a
 *   ticket sent to a server;
 * - hs_ktls_send_tickets (defer_tickets): the server engine's tickets go out
 *   as one record with TLS_SET_RECORD_TYPE 22, each message whole, and a
 *   client engine keeps them; a flood of tickets to a client on kTLS stops
 *   at the engine's cap, and the writer sends unexpected_message;
 * - on a non-blocking socket EAGAIN is HS_ERR_WANT_READ / HS_ERR_WANT_WRITE,
 *   not sticky: a write with nothing sent is made again and its record opens
 *   with the next sequence number; a write cut after some bytes waits and
 *   finishes; a record cut by EAGAIN on the userspace path is completed by
 *   the next read; a close_notify that could not go out can be sent again.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>
#include <linux/tls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "../tls/pair.h"
#include "../tls/tls_certs.h"
#include "crypto/hash.h"
#include "crypto/hkdf.h"
#include "hs/tls.h"
#include "kt_util.h"
#include "hs/ktls.h"
#include "ktls/internal.h" /* white-box: the why of each direction, no_pad, conn */
#include "testutil.h"

#ifndef SOL_TLS
#define SOL_TLS 282
#endif

struct call {
	char what; /* 's' setsockopt, 'm' sendmsg */
	int level, name;
	size_t len;
	uint8_t bytes[128];
	int cmsg_type; /* sendmsg: record type from the cmsg, -1 none */
};

struct fake {
	struct call calls[32];
	int n;
	int fail_level, fail_name, fail_errno; /* setsockopt to refuse */
	int rekey_errno;                        /* answer to a second TLS_TX / TLS_RX */
	int tx_set, rx_set;
	/* recvmsg script: records to hand out */
	const uint8_t *rec[8];
	size_t rec_len[8];
	int rec_type[8];
	int rec_errno[8];
	int n_rec, next_rec;
	/* sendmsg script: call i (from 0) fails with EAGAIN if bit i is set; at most send_max bytes */
	unsigned send_eagain, n_send;
	size_t send_max;
	uint8_t wire[512]; /* every byte sent, in order */
	size_t wire_len;
};

static int fake_setsockopt(void *user, int fd, int level, int name, const void *val,
			   socklen_t len)
{
	struct fake *f = user;
	struct call *c = &f->calls[f->n++];
	int again;

	(void)fd;
	c->what = 's';
	c->level = level;
	c->name = name;
	c->len = len;
	memcpy(c->bytes, val, len < sizeof(c->bytes) ? len : sizeof(c->bytes));
	if (level == f->fail_level && name == f->fail_name) {
		errno = f->fail_errno;
		return -1;
	}
	again = level == SOL_TLS && ((name == TLS_TX && f->tx_set) || (name == TLS_RX && f->rx_set));
	if (again && f->rekey_errno) {
		errno = f->rekey_errno;
		return -1;
	}
	if (again && ((const struct tls_crypto_info *)val)->cipher_type == 0) {
		errno = EINVAL; /* a kernel that can rekey refuses a cipher change */
		return -1;
	}
	if (level == SOL_TLS && name == TLS_TX)
		f->tx_set = 1;
	if (level == SOL_TLS && name == TLS_RX)
		f->rx_set = 1;
	return 0;
}

static ssize_t fake_sendmsg(void *user, int fd, const struct msghdr *m, int flags)
{
	struct fake *f = user;
	struct call *c = &f->calls[f->n++];
	struct cmsghdr *cm;
	size_t len = m->msg_iov[0].iov_len;
	unsigned i = f->n_send++;

	(void)fd;
	(void)flags;
	if (i < 32 && (f->send_eagain >> i) & 1) {
		f->n--;
		errno = EAGAIN;
		return -1;
	}
	if (f->send_max && len > f->send_max)
		len = f->send_max;
	if (f->wire_len + len <= sizeof(f->wire)) {
		memcpy(f->wire + f->wire_len, m->msg_iov[0].iov_base, len);
		f->wire_len += len;
	}
	c->what = 'm';
	c->len = len;
	memcpy(c->bytes, m->msg_iov[0].iov_base, len < sizeof(c->bytes) ? len : sizeof(c->bytes));
	c->cmsg_type = -1;
	for (cm = CMSG_FIRSTHDR((struct msghdr *)m); cm; cm = CMSG_NXTHDR((struct msghdr *)m, cm))
		if (cm->cmsg_level == SOL_TLS && cm->cmsg_type == TLS_SET_RECORD_TYPE)
			c->cmsg_type = *CMSG_DATA(cm);
	return (ssize_t)len;
}

static ssize_t fake_recvmsg(void *user, int fd, struct msghdr *m, int flags)
{
	struct fake *f = user;
	int i = f->next_rec++;
	struct cmsghdr *cm;

	(void)fd;
	(void)flags;
	if (i >= f->n_rec)
		return 0;
	if (f->rec_errno[i]) {
		errno = f->rec_errno[i];
		return -1;
	}
	assert_true(m->msg_iov[0].iov_len >= f->rec_len[i]);
	memcpy(m->msg_iov[0].iov_base, f->rec[i], f->rec_len[i]);
	if (m->msg_controllen == 0) /* the userspace path reads raw bytes */
		return (ssize_t)f->rec_len[i];
	assert_true(m->msg_controllen >= CMSG_SPACE(1));
	cm = CMSG_FIRSTHDR(m);
	cm->cmsg_level = SOL_TLS;
	cm->cmsg_type = TLS_GET_RECORD_TYPE;
	cm->cmsg_len = CMSG_LEN(1);
	*CMSG_DATA(cm) = (uint8_t)f->rec_type[i];
	m->msg_controllen = CMSG_SPACE(1);
	return (ssize_t)f->rec_len[i];
}

static struct hs_ktls_ops fake_ops(struct fake *f)
{
	struct hs_ktls_ops o = { fake_setsockopt, fake_sendmsg, fake_recvmsg, f };
	return o;
}

static void secrets(struct hs_secrets *a, struct hs_secrets *b, uint16_t suite)
{
	struct test_rng rng = { .s = suite };

	kt_secrets(a, b, suite, &rng, 0x0102030405060708ull, 5);
}

static void test_crypto_info_layout(void **state)
{
	uint8_t key[32], iv[12], buf[64];
	/* linux/tls.h: { u16 version; u16 cipher_type; } iv key salt rec_seq */
	static const char *const want[3] = {
		/* AES-128-GCM: 0x0304, 51; iv = IV[4..12); key; salt = IV[0..4); seq */
		"0403" "3300" "a4a5a6a7a8a9aaab" "000102030405060708090a0b0c0d0e0f"
		"a0a1a2a3" "0102030405060708",
		"0403" "3400" "a4a5a6a7a8a9aaab"
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
		"a0a1a2a3" "0102030405060708",
		/* ChaCha20-Poly1305: 54, iv = all 12 bytes, no salt */
		"0403" "3600" "a0a1a2a3a4a5a6a7a8a9aaab"
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
		"0102030405060708",
	};

	(void)state;
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 12; i++)
		iv[i] = (uint8_t)(0xa0 + i);
	for (int id = 0; id < HS_KTLS_N_CIPHERS; id++) {
		const struct hs_ktls_cipher *c = hs_ktls_cipher_by_id((enum hs_ktls_cipher_id)id);
		size_t len;
		uint8_t *exp = hex_decode(want[id], &len);

		assert_int_equal(len, c->info_size);
		assert_int_equal(hs_ktls_crypto_info(c, key, iv, 0x0102030405060708ull, buf,
						     sizeof(buf)),
				 0);
		assert_memory_equal(buf, exp, len);
		assert_int_equal(hs_ktls_crypto_info(c, key, iv, 0, buf, len - 1), HS_ERR_NO_SPACE);
		free(exp);
	}
	assert_null(hs_ktls_cipher_for_suite(0x1304)); /* AES-128-CCM: not offered */
}

static void test_install_order(void **state)
{
	struct fake f = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a, b;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	uint8_t info[64];

	(void)state;
	secrets(&a, &b, HS_TLS_AES_256_GCM_SHA384);
	assert_int_equal(hs_ktls_init(k, 7, &a, HS_KTLS_F_NO_PAD, &ops), 0);
	assert_int_equal(f.n, 4);
	assert_int_equal(f.calls[0].level, IPPROTO_TCP);
	assert_int_equal(f.calls[0].name, TCP_ULP);
	assert_int_equal(f.calls[0].len, 4);
	assert_memory_equal(f.calls[0].bytes, "tls", 4);
	assert_int_equal(f.calls[1].name, TLS_TX);
	assert_int_equal(hs_ktls_crypto_info(hs_ktls_cipher_for_suite(a.suite), a.tx->key,
					     a.tx->iv, a.tx->seq, info, sizeof(info)),
			 0);
	assert_int_equal(f.calls[1].len, 56);
	assert_memory_equal(f.calls[1].bytes, info, 56);
	assert_int_equal(f.calls[2].name, TLS_RX);
	assert_int_equal(hs_ktls_crypto_info(hs_ktls_cipher_for_suite(a.suite), a.rx->key,
					     a.rx->iv, a.rx->seq, info, sizeof(info)),
			 0);
	assert_memory_equal(f.calls[2].bytes, info, 56);
	assert_int_equal(f.calls[3].level, SOL_TLS);
	assert_int_equal(f.calls[3].name, TLS_RX_EXPECT_NO_PAD);
	assert_true(hs_ktls_is_kernel(k));
	assert_string_equal(hs_ktls_reason(k, 0), "");
	/* the kernel has the keys: no AEAD context is allocated for either direction */
	assert_null(ktls_of(k)->tx.rec.ctx);
	assert_null(ktls_of(k)->rx.rec.ctx);
	hs_ktls_wipe(k);
	free(k);
}

static void refusal(int level, int name, int e, uint16_t suite, enum hs_ktls_why tx_why,
		    enum hs_ktls_why rx_why)
{
	struct fake f = { .fail_level = level, .fail_name = name, .fail_errno = e };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a, b;
	struct hs_ktls *k = calloc(1, sizeof(*k));

	secrets(&a, &b, suite);
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	assert_int_equal(ktls_of(k)->tx.why, tx_why);
	assert_int_equal(ktls_of(k)->rx.why, rx_why);
	assert_int_equal(hs_ktls_tx_path(k),
			 tx_why == HS_KTLS_WHY_NONE ? HS_KTLS_PATH_KERNEL : HS_KTLS_PATH_USER);
	assert_int_equal(hs_ktls_rx_path(k),
			 rx_why == HS_KTLS_WHY_NONE ? HS_KTLS_PATH_KERNEL : HS_KTLS_PATH_USER);
	/* an AEAD context exactly where our records run */
	assert_true((ktls_of(k)->tx.rec.ctx != NULL) == (tx_why != HS_KTLS_WHY_NONE));
	assert_true((ktls_of(k)->rx.rec.ctx != NULL) == (rx_why != HS_KTLS_WHY_NONE));
	assert_true(ktls_of(k)->tx.rec.on == (tx_why != HS_KTLS_WHY_NONE));
	hs_ktls_wipe(k);
	/* the same under KERNEL_ONLY: a clear failure */
	memset(&f, 0, sizeof(f));
	f.fail_level = level;
	f.fail_name = name;
	f.fail_errno = e;
	assert_int_equal(hs_ktls_init(k, 7, &a, HS_KTLS_F_KERNEL_ONLY, &ops), HS_ERR_UNSUPPORTED);
	assert_int_equal(hs_ktls_errno(k), e);
	hs_ktls_wipe(k);
	free(k);
}

static void test_refusals(void **state)
{
	struct fake f = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a, b;
	struct hs_ktls *k = calloc(1, sizeof(*k));

	(void)state;
	refusal(IPPROTO_TCP, TCP_ULP, ENOENT, HS_TLS_AES_128_GCM_SHA256, HS_KTLS_WHY_NO_ULP,
		HS_KTLS_WHY_NO_ULP);
	refusal(IPPROTO_TCP, TCP_ULP, ENOTCONN, HS_TLS_AES_128_GCM_SHA256, HS_KTLS_WHY_NOT_TCP,
		HS_KTLS_WHY_NOT_TCP);
	refusal(SOL_TLS, TLS_TX, ENOENT, HS_TLS_CHACHA20_POLY1305_SHA256, HS_KTLS_WHY_NO_CIPHER,
		HS_KTLS_WHY_NONE);
	refusal(SOL_TLS, TLS_RX, EINVAL, HS_TLS_AES_128_GCM_SHA256, HS_KTLS_WHY_NONE,
		HS_KTLS_WHY_OLD_KERNEL);
	refusal(SOL_TLS, TLS_RX, EINVAL, HS_TLS_CHACHA20_POLY1305_SHA256, HS_KTLS_WHY_NONE,
		HS_KTLS_WHY_NO_CIPHER);
	assert_non_null(strstr(hs_ktls_why_str(HS_KTLS_WHY_NO_ULP), "CONFIG_TLS"));

	/* no TLS_RX_EXPECT_NO_PAD (Linux < 6.0): RX stays on the kernel */
	f.fail_level = SOL_TLS;
	f.fail_name = TLS_RX_EXPECT_NO_PAD;
	f.fail_errno = ENOPROTOOPT;
	secrets(&a, &b, HS_TLS_AES_128_GCM_SHA256);
	assert_int_equal(hs_ktls_init(k, 7, &a, HS_KTLS_F_NO_PAD, &ops), 0);
	assert_true(hs_ktls_is_kernel(k));
	assert_false(ktls_of(k)->no_pad);
	/* a suite with no row, and a wrong key length: refused before any syscall */
	f.n = 0;
	a.suite = 0x1304;
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), HS_ERR_UNSUPPORTED);
	a.suite = HS_TLS_AES_128_GCM_SHA256;
	a.key_len = 32;
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), HS_ERR_ARG);
	assert_int_equal(f.n, 0);
	hs_ktls_wipe(k);
	free(k);
}

static void test_control_records(void **state)
{
	struct fake f = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a, b;
	struct hs_ktls *k = calloc(1, sizeof(*k));

	(void)state;
	secrets(&a, &b, HS_TLS_AES_128_GCM_SHA256);
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	f.n = 0;
	assert_int_equal(hs_ktls_write(k, "data", 4), 0);
	assert_int_equal(hs_ktls_send_alert(k, 1, 0), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.calls[0].cmsg_type, -1); /* application data: no cmsg */
	assert_int_equal(f.calls[0].len, 4);
	assert_int_equal(f.calls[1].cmsg_type, HS_KTLS_ALERT);
	assert_int_equal(f.calls[1].len, 2);
	assert_memory_equal(f.calls[1].bytes, "\x01\x00", 2);
	assert_int_equal(hs_ktls_write(k, "x", 1), HS_ERR_TLS_CLOSED);
	assert_int_equal(hs_ktls_send_record(k, HS_KTLS_HANDSHAKE, "", 0), HS_ERR_ARG);
	hs_ktls_wipe(k);
	free(k);
}

/* The next key/IV per RFC 8446 7.2, computed here on its own. */
static void next_keys(const struct hs_dir_secrets *d, size_t hlen, size_t klen, uint8_t *key,
		      uint8_t *iv)
{
	const struct hash *h = hlen == 48 ? hash_sha384() : hash_sha256();
	uint8_t s[48];

	assert_int_equal(hkdf_expand_label(h, d->secret, "traffic upd", NULL, 0, s, hlen), 0);
	assert_int_equal(hkdf_expand_label(h, s, "key", NULL, 0, key, klen), 0);
	assert_int_equal(hkdf_expand_label(h, s, "iv", NULL, 0, iv, 12), 0);
}

static void test_key_update_received(void **state)
{
	static const uint8_t ku[] = { 24, 0, 0, 1, 1 }; /* KeyUpdate(update_requested) */
	struct fake f = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a, b;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	const struct hs_ktls_cipher *c = hs_ktls_cipher_for_suite(HS_TLS_AES_256_GCM_SHA384);
	uint8_t key[32], iv[12], info[64], buf[16];
	size_t n;

	(void)state;
	secrets(&a, &b, c->suite);
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	f.n = 0;
	f.rec[0] = ku;
	f.rec_len[0] = sizeof(ku);
	f.rec_type[0] = HS_KTLS_HANDSHAKE;
	f.rec[1] = (const uint8_t *)"abc";
	f.rec_len[1] = 3;
	f.rec_type[1] = HS_KTLS_DATA;
	f.n_rec = 2;
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 3);
	assert_memory_equal(buf, "abc", 3);
	/* 1: TLS_RX with the peer's next key, seq 0; reading sends nothing */
	assert_int_equal(f.n, 1);
	/* the next write answers first: probe, KeyUpdate, TLS_TX, then the data */
	assert_int_equal(hs_ktls_write(k, "d", 1), 0);
	assert_int_equal(f.n, 5);
	assert_int_equal(f.calls[4].what, 'm');
	assert_int_equal(f.calls[4].cmsg_type, -1);
	next_keys(a.rx, 48, 32, key, iv);
	assert_int_equal(hs_ktls_crypto_info(c, key, iv, 0, info, sizeof(info)), 0);
	assert_int_equal(f.calls[0].name, TLS_RX);
	assert_memory_equal(f.calls[0].bytes, info, c->info_size);
	/* 2: the rekey probe, 3: our KeyUpdate(update_not_requested), 4: TLS_TX */
	assert_int_equal(f.calls[1].name, TLS_TX);
	assert_int_equal(f.calls[1].len, sizeof(struct tls_crypto_info));
	assert_int_equal(f.calls[2].what, 'm');
	assert_int_equal(f.calls[2].cmsg_type, HS_KTLS_HANDSHAKE);
	assert_memory_equal(f.calls[2].bytes, "\x18\x00\x00\x01\x00", 5);
	next_keys(a.tx, 48, 32, key, iv);
	assert_int_equal(hs_ktls_crypto_info(c, key, iv, 0, info, sizeof(info)), 0);
	assert_int_equal(f.calls[3].name, TLS_TX);
	assert_memory_equal(f.calls[3].bytes, info, c->info_size);

	/* a kernel that cannot rekey: our KeyUpdate fails first, nothing sent */
	f.rekey_errno = EBUSY;
	f.n = 0;
	assert_int_equal(hs_ktls_key_update(k, 0), HS_ERR_UNSUPPORTED);
	assert_int_equal(f.n, 1);
	assert_non_null(strstr(hs_ktls_reason(k, 0), "6.14"));
	assert_int_equal(hs_ktls_error(k), 0); /* the connection goes on */
	/* ... and the peer's KeyUpdate fails the connection clearly */
	f.rec[2] = ku;
	f.rec_len[2] = sizeof(ku);
	f.rec_type[2] = HS_KTLS_HANDSHAKE;
	f.n_rec = 3;
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), HS_ERR_UNSUPPORTED);
	assert_non_null(strstr(hs_ktls_reason(k, 1), "6.14"));
	hs_ktls_wipe(k);
	free(k);
}

static void test_kernel_errors(void **state)
{
	struct fake f = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a, b;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	static const uint8_t ku_mid[] = { 24, 0, 0, 1, 0, 4, 0, 0, 0 };
	uint8_t buf[16];
	size_t n;

	(void)state;
	secrets(&a, &b, HS_TLS_CHACHA20_POLY1305_SHA256);
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	f.rec_errno[0] = EBADMSG;
	f.n_rec = 1;
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(hs_ktls_errno(k), EBADMSG);
	/* reading never sends: the writer side (here close) sends bad_record_mac, once */
	assert_int_equal(f.n, 3); /* ULP, TLS_TX, TLS_RX */
	assert_int_equal(hs_ktls_close(k), HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(f.n, 4);
	assert_int_equal(f.calls[f.n - 1].cmsg_type, HS_KTLS_ALERT);
	assert_memory_equal(f.calls[f.n - 1].bytes, "\x02\x14", 2);
	assert_int_equal(hs_ktls_write(k, "x", 1), HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(hs_ktls_close(k), HS_ERR_TLS_BAD_RECORD_MAC);
	assert_int_equal(f.n, 4);

	/* a KeyUpdate that is not the last message of its record */
	hs_ktls_wipe(k); /* its buffers go before the next init */
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	memset(&f, 0, sizeof(f));
	f.tx_set = f.rx_set = 1;
	f.rec[0] = ku_mid;
	f.rec_len[0] = sizeof(ku_mid);
	f.rec_type[0] = HS_KTLS_HANDSHAKE;
	f.n_rec = 1;
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), HS_ERR_TLS_KEY_CHANGE_MID_RECORD);
	/* EOF without close_notify: truncation */
	hs_ktls_wipe(k); /* its buffers go before the next init */
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	memset(&f, 0, sizeof(f));
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), HS_ERR_TLS_CLOSED);
	hs_ktls_wipe(k);
	free(k);
}

/* The seam with the engine: what hs_ktls_attach takes over, and what it refuses. */
static void test_attach(void **state)
{
	struct pair p;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	static const uint8_t part[2] = { 23, 3 };
	uint8_t buf[16];
	size_t used, n;

	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_SEC1);
	pair_start(&p);
	assert_int_equal(hs_ktls_attach(k, p.c, -1, HS_KTLS_F_USER), HS_ERR_TLS_STATE);
	assert_int_equal(pair_handshake(&p, 0), 0);
	/* the server's engine already decrypted "seam": k returns it first */
	assert_int_equal(hs_conn_write(p.c, (const uint8_t *)"seam", 4, &n), 0);
	wire_take(p.c, &p.c2s);
	assert_int_equal(wire_feed(&p.c2s, p.s, 0), 0);
	assert_int_equal(hs_ktls_attach(k, p.s, -1, HS_KTLS_F_USER), 0);
	/* the engine handed off: keys and buffers gone, its header left */
	assert_true(hs_conn_memory(p.s, NULL) <= 4096);
	assert_int_equal(hs_conn_write(p.s, (const uint8_t *)"x", 1, &n), HS_ERR_TLS_STATE);
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "seam", 4);
	/* the client's engine holds two bytes of a record: the seam would lose them */
	assert_int_equal(hs_conn_feed(p.c, part, sizeof(part), &used), 0);
	assert_int_equal(used, 2);
	assert_int_equal(hs_ktls_attach(k, p.c, -1, HS_KTLS_F_USER), HS_ERR_TLS_STATE);
	hs_ktls_wipe(k);
	free(k);
	pair_free(&p);
}

/* A NewSessionTicket (RFC 8446 4.6.1): lifetime 7200, age_add, nonce "n", ticket, no extensions. */
static const uint8_t nst[] = { 4, 0, 0, 24, 0, 0, 0x1c, 0x20, 1, 2, 3, 4, 1, 'n', 0, 10,
			       't', 'i', 'c', 'k', 'e', 't', '-', '1', '2', '3', 0, 0 };

struct seen {
	uint8_t msg[64];
	size_t len;
	int calls;
};

static int record_msg(void *arg, const uint8_t *msg, size_t len)
{
	struct seen *sn = arg;

	sn->calls++;
	sn->len = len < sizeof(sn->msg) ? len : sizeof(sn->msg);
	memcpy(sn->msg, msg, sn->len);
	return 0;
}

/* rec[i] = bytes [off, off + len) of m, as a handshake record */
static void script(struct fake *f, int i, const uint8_t *m, size_t len, int type)
{
	f->rec[i] = m;
	f->rec_len[i] = len;
	f->rec_type[i] = type;
	f->n_rec = i + 1;
}

static void test_fragmented_handshake(void **state)
{
	static uint8_t tail[sizeof(nst)]; /* the ticket's end + the start of a KeyUpdate */
	static const uint8_t ku[] = { 24, 0, 0, 1, 0 };
	static const uint8_t too_long[] = { 4, 0x01, 0x00, 0x00, 0 };
	struct fake f = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a, b;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	struct seen sn = { 0 };
	uint8_t buf[16];
	size_t n, t = sizeof(nst) - 20;

	(void)state;
	secrets(&a, &b, HS_TLS_AES_128_GCM_SHA256);
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	hs_ktls_on_handshake(k, record_msg, &sn);
	memcpy(tail, nst + 20, t);
	memcpy(tail + t, ku, 3);
	f.n = 0;
	script(&f, 0, nst, 2, HS_KTLS_HANDSHAKE);       /* half a header */
	script(&f, 1, nst + 2, 18, HS_KTLS_HANDSHAKE);  /* the header's end, part of the body */
	script(&f, 2, tail, t + 3, HS_KTLS_HANDSHAKE);  /* the ticket's end, 3 bytes of KeyUpdate */
	script(&f, 3, ku + 3, 2, HS_KTLS_HANDSHAKE);    /* the KeyUpdate's end */
	script(&f, 4, (const uint8_t *)"ok", 2, HS_KTLS_DATA);
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(buf, "ok", 2);
	assert_int_equal(sn.calls, 1);
	assert_int_equal(sn.len, sizeof(nst));
	assert_memory_equal(sn.msg, nst, sizeof(nst));
	assert_int_equal(f.n, 1); /* the reassembled KeyUpdate rekeyed RX */
	assert_int_equal(f.calls[0].name, TLS_RX);

	/* application data between two parts of a message */
	hs_ktls_wipe(k); /* its buffers go before the next init */
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	memset(&f, 0, sizeof(f));
	f.tx_set = f.rx_set = 1;
	script(&f, 0, nst, 5, HS_KTLS_HANDSHAKE);
	script(&f, 1, (const uint8_t *)"ok", 2, HS_KTLS_DATA);
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), HS_ERR_TLS_UNEXPECTED_MSG);
	/* a message longer than the engine's limit (REC_MSG_MAX) */
	hs_ktls_wipe(k); /* its buffers go before the next init */
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	memset(&f, 0, sizeof(f));
	f.tx_set = f.rx_set = 1;
	script(&f, 0, too_long, sizeof(too_long), HS_KTLS_HANDSHAKE);
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), HS_ERR_TLS_MSG_TOO_LARGE);
	hs_ktls_wipe(k);
	free(k);
}

static void test_engine_post_handshake(void **state)
{
	static const uint8_t ku_req[] = { 24, 0, 0, 1, 1 }, ku_bad[] = { 24, 0, 0, 1, 2 };
	struct fake f = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a, b;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	struct pair p;
	const uint8_t *tk;
	uint8_t buf[16];
	size_t n, tlen, pending;
	uint32_t life;

	(void)state;
	pair_init(&p, EC_CERT, EC_KEY_SEC1);
	p.ccfg.keep_tickets = 1;
	pair_start(&p);
	assert_int_equal(hs_conn_post_handshake(p.c, 4, nst, sizeof(nst)), HS_ERR_TLS_STATE);
	assert_int_equal(pair_handshake(&p, 0), 0);
	while (hs_conn_next_event(p.c) != HS_EVENT_NONE)
		;
	/* directly */
	assert_int_equal(hs_conn_post_handshake(p.c, 4, nst, sizeof(nst) - 1), HS_ERR_TLS_DECODE);
	assert_int_equal(hs_conn_error(p.c), HS_ERR_TLS_DECODE); /* sticky */
	pair_free(&p);
	pair_init(&p, EC_CERT, EC_KEY_SEC1);
	p.ccfg.keep_tickets = 1;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	while (hs_conn_next_event(p.c) != HS_EVENT_NONE)
		;
	pending = hs_conn_output_pending(p.c);
	assert_int_equal(hs_conn_post_handshake(p.c, 24, ku_req, sizeof(ku_req)), 0);
	assert_int_equal(hs_conn_next_event(p.c), HS_EVENT_KEY_UPDATE);
	assert_int_equal(hs_conn_output_pending(p.c), pending); /* no answer queued */
	assert_int_equal(hs_conn_post_handshake(p.s, 4, nst, sizeof(nst)),
			 HS_ERR_TLS_UNEXPECTED_MSG); /* a client sends no tickets */

	/* through ktls: a ticket in two records reaches the engine whole */
	secrets(&a, &b, HS_TLS_AES_128_GCM_SHA256);
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	ktls_of(k)->conn = p.c; /* what hs_ktls_attach sets (white-box: no socket here) */
	script(&f, 0, nst, 9, HS_KTLS_HANDSHAKE);
	script(&f, 1, nst + 9, sizeof(nst) - 9, HS_KTLS_HANDSHAKE);
	script(&f, 2, (const uint8_t *)"ok", 2, HS_KTLS_DATA);
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(hs_conn_next_event(p.c), HS_EVENT_TICKET);
	tk = hs_conn_ticket(p.c, &tlen, &life);
	assert_non_null(tk);
	assert_int_equal(tlen, 10);
	assert_memory_equal(tk, "ticket-123", 10);
	assert_int_equal(life, 7200);
	/* a bad KeyUpdate fails both ktls and the engine */
	script(&f, 3, ku_bad, sizeof(ku_bad), HS_KTLS_HANDSHAKE);
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), HS_ERR_TLS_BAD_KEY_UPDATE);
	hs_ktls_detach_engine(k);
	assert_int_equal(hs_conn_post_handshake(p.c, 24, ku_bad, sizeof(ku_bad)),
			 HS_ERR_TLS_BAD_KEY_UPDATE);
	assert_int_equal(hs_conn_error(p.c), HS_ERR_TLS_BAD_KEY_UPDATE);
	hs_ktls_wipe(k);
	free(k);
	pair_free(&p);
}

/* defer_tickets: the server's tickets leave through the kernel as handshake records */
static void test_send_tickets(void **state)
{
	struct fake f = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	struct hs_ticket_keys *tk;
	struct hs_session *sess = NULL;
	struct pair p;
	size_t off = 0;
	int msgs = 0;

	(void)state;
	assert_int_equal(hs_ticket_keys_new(&tk, 0, 0), 0);
	pair_init(&p, EC_CERT, EC_KEY_SEC1);
	p.ccfg.keep_tickets = 1;
	p.scfg.ticket_keys = tk;
	p.scfg.n_tickets = 3;
	p.scfg.defer_tickets = 1;
	pair_start(&p);
	assert_int_equal(hs_ktls_send_tickets(NULL, p.s, 0), HS_ERR_ARG);
	assert_int_equal(pair_handshake(&p, 0), 0);
	assert_int_equal(hs_conn_output_pending(p.s), 0); /* the engine sent none */
	assert_int_equal(hs_conn_secrets(p.s, &a), 0);
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	hs_secrets_wipe(&a);
	assert_int_equal(hs_ktls_tx_path(k), HS_KTLS_PATH_KERNEL);
	f.n = 0;
	assert_int_equal(hs_ktls_send_tickets(k, p.s, 0), 0);
	/* one record, type 22 in the cmsg, three whole NewSessionTickets */
	assert_int_equal(f.n, 1);
	assert_int_equal(f.calls[0].what, 'm');
	assert_int_equal(f.calls[0].cmsg_type, HS_KTLS_HANDSHAKE);
	assert_int_equal(f.calls[0].len, f.wire_len);
	while (off + 4 <= f.wire_len) {
		size_t len = 4 + ((size_t)f.wire[off + 1] << 16 | (size_t)f.wire[off + 2] << 8 |
				  f.wire[off + 3]);
		assert_int_equal(f.wire[off], 4);
		assert_true(off + len <= f.wire_len);
		assert_int_equal(hs_conn_post_handshake(p.c, 4, f.wire + off, len), 0);
		off += len;
		msgs++;
	}
	assert_int_equal(off, f.wire_len);
	assert_int_equal(msgs, 3);
	assert_int_equal(hs_conn_session(p.c, &sess), 0);
	assert_int_equal(hs_session_tickets(sess), 3);
	/* all sent: nothing more to make; asking for one is an error */
	f.n = 0;
	assert_int_equal(hs_ktls_send_tickets(k, p.s, 0), 0);
	assert_int_equal(hs_ktls_send_tickets(k, p.s, 1), HS_ERR_TLS_STATE);
	assert_int_equal(f.n, 0);
	hs_session_free(sess);
	hs_ktls_wipe(k);
	free(k);
	pair_free(&p);
	hs_ticket_keys_free(tk);
}

/* A server flooding NewSessionTickets to a client on kTLS: the engine's
 * cap (MAX_TICKETS_RECV) fails the read, and the writer sends unexpected_message. */
static void test_ticket_flood(void **state)
{
	enum { N = 257 }; /* MAX_TICKETS_RECV + 1, all in one record */
	static uint8_t flood[N * sizeof(nst)];
	struct fake f = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f);
	struct hs_secrets a, b;
	struct hs_ktls *k = calloc(1, sizeof(*k));
	struct pair p;
	uint8_t buf[16];
	size_t n;

	(void)state;
	assert_true(sizeof(flood) <= 16384);
	for (size_t i = 0; i < N; i++)
		memcpy(flood + i * sizeof(nst), nst, sizeof(nst));
	pair_init(&p, EC_CERT, EC_KEY_SEC1);
	p.ccfg.keep_tickets = 1;
	pair_start(&p);
	assert_int_equal(pair_handshake(&p, 0), 0);
	secrets(&a, &b, HS_TLS_AES_128_GCM_SHA256);
	assert_int_equal(hs_ktls_init(k, 7, &a, 0, &ops), 0);
	ktls_of(k)->conn = p.c; /* what hs_ktls_attach sets */
	script(&f, 0, flood, sizeof(flood), HS_KTLS_HANDSHAKE);
	assert_int_equal(hs_ktls_read(k, buf, sizeof(buf), &n), HS_ERR_TLS_TOO_MANY_RECORDS);
	assert_int_equal(hs_conn_error(p.c), HS_ERR_TLS_TOO_MANY_RECORDS);
	f.n = 0;
	assert_int_equal(hs_ktls_close(k), HS_ERR_TLS_TOO_MANY_RECORDS);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.calls[0].cmsg_type, HS_KTLS_ALERT);
	assert_memory_equal(f.calls[0].bytes, "\x02\x0a", 2); /* fatal unexpected_message */
	hs_ktls_wipe(k);
	free(k);
	pair_free(&p);
}

/* Non-blocking sockets: EAGAIN gives HS_ERR_WANT_READ / _WRITE, not sticky, and the call works again. */
static void test_would_block(void **state)
{
	struct fake f = { 0 }, g = { 0 };
	struct hs_ktls_ops ops = fake_ops(&f), gops = fake_ops(&g);
	struct hs_secrets a, b;
	struct hs_ktls *tx = calloc(1, sizeof(*tx)), *rx = calloc(1, sizeof(*rx));
	uint8_t buf[16], wire[512];
	size_t n, rec1;
	int pfd[2];

	(void)state;
	assert_int_equal(pipe(pfd), 0); /* a writable fd for poll() while a write waits */
	secrets(&a, &b, HS_TLS_AES_128_GCM_SHA256);
	/* userspace TX: nothing sent, then the same call again */
	assert_int_equal(hs_ktls_init(tx, pfd[1], &a, HS_KTLS_F_USER, &ops), 0);
	f.send_eagain = 1u;
	assert_int_equal(hs_ktls_write(tx, "hello", 5), HS_ERR_WANT_WRITE);
	assert_int_equal(f.wire_len, 0);
	assert_int_equal(hs_ktls_error(tx), 0);
	assert_int_equal(hs_ktls_write(tx, "hello", 5), 0);
	rec1 = f.wire_len;
	assert_int_equal(rec1, 5 + 5 + 1 + 16);
	/* 10 bytes out, then EAGAIN: the call waits for room and finishes the record */
	f.send_max = 10;
	f.send_eagain = 1u << (f.n_send + 1);
	assert_int_equal(hs_ktls_write(tx, "world", 5), 0);
	assert_int_equal(f.wire_len, 2 * rec1);
	memcpy(wire, f.wire, f.wire_len);

	/* userspace RX: a record cut by EAGAIN; both records open (the seq was not skipped) */
	assert_int_equal(hs_ktls_init(rx, 7, &b, HS_KTLS_F_USER, &gops), 0);
	g.rec[0] = wire;
	g.rec_len[0] = 10;
	g.rec_errno[1] = EAGAIN;
	g.rec[2] = wire + 10;
	g.rec_len[2] = 2 * rec1 - 10;
	g.n_rec = 3;
	assert_int_equal(hs_ktls_read(rx, buf, sizeof(buf), &n), HS_ERR_WANT_READ);
	assert_int_equal(hs_ktls_error(rx), 0);
	assert_int_equal(hs_ktls_read(rx, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 5);
	assert_memory_equal(buf, "hello", 5);
	assert_int_equal(hs_ktls_read(rx, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 5);
	assert_memory_equal(buf, "world", 5);

	/* kernel RX and TX: the same codes */
	hs_ktls_wipe(rx); /* its buffers go before the next init */
	assert_int_equal(hs_ktls_init(rx, pfd[1], &b, 0, &gops), 0);
	memset(&g, 0, sizeof(g));
	g.tx_set = g.rx_set = 1;
	g.rec_errno[0] = EWOULDBLOCK;
	g.rec[1] = (const uint8_t *)"x";
	g.rec_len[1] = 1;
	g.rec_type[1] = HS_KTLS_DATA;
	g.n_rec = 2;
	assert_int_equal(hs_ktls_read(rx, buf, sizeof(buf), &n), HS_ERR_WANT_READ);
	assert_int_equal(hs_ktls_read(rx, buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 1);
	g.send_eagain = 1u << g.n_send;
	assert_int_equal(hs_ktls_close(rx), HS_ERR_WANT_WRITE);
	assert_int_equal(hs_ktls_close(rx), 0); /* not marked closed by the failed try */
	assert_int_equal(g.wire_len, 2);
	close(pfd[0]);
	close(pfd[1]);
	hs_ktls_wipe(tx);
	hs_ktls_wipe(rx);
	free(tx);
	free(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crypto_info_layout),
		cmocka_unit_test(test_install_order),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_control_records),
		cmocka_unit_test(test_key_update_received),
		cmocka_unit_test(test_kernel_errors),
		cmocka_unit_test(test_attach),
		cmocka_unit_test(test_fragmented_handshake),
		cmocka_unit_test(test_engine_post_handshake),
		cmocka_unit_test(test_would_block),
		cmocka_unit_test(test_send_tickets),
		cmocka_unit_test(test_ticket_flood),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
