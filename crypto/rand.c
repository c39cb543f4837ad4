/*
 * Random bytes: a per-thread fast-key-erasure generator over ChaCha20
 * (D. J. Bernstein, "Fast-key-erasure random-number generators", 2017),
 * keyed from getrandom(2).
 *
 * Implementation notes:
 * - Why not getrandom(2) per call: on our machines the system call was
 *   about a fifth of a P-256 or X25519 key generation. OpenSSL and
 *   BoringSSL also draw from a user-space generator seeded by the kernel.
 * - State per thread: one page from mmap(2) holding a 32-byte key and a
 *   buffer of unused output. A refill runs ChaCha20 under the key (nonce
 *   0, counter 0) over REFILL bytes: the first 32 replace the key at once,
 *   the rest become the buffer. Bytes handed out are wiped from the
 *   buffer, so neither past output nor the key that made it survive in
 *   memory (backtracking resistance).
 * - A new key from getrandom(2) every RESEED_REFILLS refills (about
 *   1 MiB of output), and at the first use in a thread.
 * - fork(2): the page is MADV_WIPEONFORK, so a child starts with a zero
 *   page ("not seeded") and keys itself from the kernel: parent and child
 *   never share output. Where madvise refuses (kernels before 4.14) or
 *   mmap fails, that thread reads getrandom(2) for every request, as
 *   before. MADV_DONTDUMP keeps the page out of core dumps.
 * - Requests above DIRECT_MIN bytes go to getrandom(2) directly: the
 *   buffer is for the many small draws (keys, nonces, randoms).
 * - The page is unmapped (wiped first) when its thread exits.
 * - Not async-signal-safe: a signal handler must not call rand_bytes()
 *   while its thread is inside it.
 */
#define _GNU_SOURCE
#include "crypto/rand.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>

#include "base/wipe.h"
#include "crypto/chacha20.h"
#include "crypto/cpu.h"

/* one AVX-512 batch of 32 ChaCha20 blocks: a new key and 2016 bytes */
#define REFILL 2048
#define KEY_LEN 32
#define BUF_LEN (REFILL - KEY_LEN)
#define RESEED_REFILLS 512
#define DIRECT_MIN 256

struct rand_page {
	uint8_t key[KEY_LEN];
	uint8_t buf[BUF_LEN]; /* unused output: buf[BUF_LEN - avail ..] */
	uint32_t avail;
	uint32_t refills; /* since the last key from the kernel */
	uint32_t seeded; /* 0 in a fresh page and in a child after fork */
};

_Static_assert(sizeof(struct rand_page) <= 4096, "the state fits one page");

/* the page: NULL not made yet, DIRECT when this thread uses getrandom only */
static _Thread_local struct rand_page *thread_page;
#define DIRECT ((struct rand_page *)1)

static pthread_key_t page_key;
static pthread_once_t page_key_once = PTHREAD_ONCE_INIT;
static int page_key_ok;

static int kernel_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;

	/* getrandom with flags 0 blocks until the pool is initialised, may
	 * return fewer bytes than asked and may fail with EINTR: loop */
	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return HS_ERR_RAND;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void page_free(void *p)
{
	if (p == NULL || p == DIRECT)
		return;
	wipe(p, sizeof(struct rand_page));
	munmap(p, 4096);
}

static void page_key_create(void)
{
	page_key_ok = pthread_key_create(&page_key, page_free) == 0;
}

/* this thread's page, or DIRECT when it cannot have one */
static struct rand_page *page_get(void)
{
	void *p;

	if (thread_page != NULL)
		return thread_page;
	thread_page = DIRECT;
	if (pthread_once(&page_key_once, page_key_create) != 0 || !page_key_ok)
		return DIRECT;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return DIRECT;
	if (madvise(p, 4096, MADV_WIPEONFORK) != 0 || pthread_setspecific(page_key, p) != 0) {
		munmap(p, 4096);
		return DIRECT;
	}
	(void)madvise(p, 4096, MADV_DONTDUMP);
	thread_page = p;
	return p;
}

/* ChaCha20's keystream over the zero bytes of out (the best backend) */
static void keystream(const uint32_t st[16], uint8_t *out, size_t len)
{
#if defined(__x86_64__)
	if (cpu_has(HS_CPU_AVX512F | HS_CPU_AVX2)) {
		chacha20_xor_avx512(st, out, len, out, UINT32_MAX);
		return;
	}
	if (cpu_has(HS_CPU_AVX2)) {
		chacha20_xor_avx2(st, out, len, out, UINT32_MAX);
		return;
	}
#endif
	chacha20_xor_portable(st, out, len, out, UINT32_MAX);
}

/* new key and a full buffer from the current key (and the kernel when due) */
static int refill(struct rand_page *pg)
{
	static const uint8_t nonce[HS_CHACHA20_NONCE_LEN];
	uint8_t out[REFILL];
	uint32_t st[16];

	if (!pg->seeded || pg->refills >= RESEED_REFILLS) {
		if (kernel_bytes(pg->key, KEY_LEN) != 0)
			return HS_ERR_RAND;
		pg->seeded = 1;
		pg->refills = 0;
	}
	memset(out, 0, sizeof(out));
	chacha20_init(st, pg->key, nonce, 0);
	keystream(st, out, sizeof(out));
	memcpy(pg->key, out, KEY_LEN);
	memcpy(pg->buf, out + KEY_LEN, BUF_LEN);
	pg->avail = BUF_LEN;
	pg->refills++;
	wipe(out, sizeof(out));
	wipe(st, sizeof(st));
	return 0;
}

int rand_bytes(void *buf, size_t len)
{
	struct rand_page *pg;
	uint8_t *p = buf;

	if (len > DIRECT_MIN)
		return kernel_bytes(buf, len);
	pg = page_get();
	if (pg == DIRECT)
		return kernel_bytes(buf, len);
	if (!pg->seeded)
		pg->avail = 0; /* a child after fork: the wiped page has nothing */
	while (len > 0) {
		size_t n;

		if (pg->avail == 0 && refill(pg) != 0)
			return HS_ERR_RAND;
		n = len < pg->avail ? len : pg->avail;
		memcpy(p, pg->buf + BUF_LEN - pg->avail, n);
		wipe(pg->buf + BUF_LEN - pg->avail, n);
		pg->avail -= (uint32_t)n;
		p += n;
		len -= n;
	}
	return 0;
}
