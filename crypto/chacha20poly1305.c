/*
 * ChaCha20-Poly1305 AEAD (RFC 8439 section 2.8) and its struct aead
 * tables: portable, AVX2, AVX-512, AVX-512 IFMA (chosen with cpu_has).
 *
 * Implementation notes:
 * - Keystream block 0 gives the one-time Poly1305 key (RFC 8439 2.6); the
 *   data is encrypted from block 1. The MAC covers
 *   AD || pad16 || ciphertext || pad16 || le64(ad_len) || le64(len).
 * - open MACs the ciphertext first and compares tags with ct_memneq. The
 *   result becomes a mask that the keystream XOR applies to every output
 *   byte: plaintext is written only under a valid tag, zeros otherwise,
 *   and no branch depends on the comparison (the return code is computed
 *   arithmetically). Only the lengths and the tag verdict are observable.
 * - A backend is a pair (ChaCha20 XOR, Poly1305 block function): portable
 *   C, AVX2 (8 ChaCha20 blocks, 4 Poly1305 blocks at a time), AVX-512
 *   (32, and 2 x 8 in radix 2^26) or AVX-512 with an IFMA Poly1305 (32,
 *   and 4 x 8 in radix 2^44), the one preferred where the CPU has IFMA.
 * - seal encrypts then MACs 18 KiB at a time (a whole TLS record), so
 *   the MAC reads the ciphertext from L1; open must MAC everything before
 *   it decrypts.
 * - Short messages take their keystream and the MAC key from one batch
 *   (a stack buffer, wiped): up to 192 bytes (portable), 448 (AVX2, one
 *   batch of 8 blocks) or 1984 (AVX-512) instead of a scalar block 0 then
 *   the batches. The AVX-512 backends make block 0 in scalar registers
 *   alongside their first batch (chacha20_xor_key_avx512): seal of any
 *   length encrypts its first chunk straight into out that way (no
 *   keystream buffer), open of a short message fills the buffer that way;
 *   open of a long message still makes block 0 alone first, as the MAC
 *   needs it before any decryption.
 * - Length limit: RFC 8439 2.8 P_MAX is 2^32 - 1 blocks of 64 bytes
 *   (274,877,906,880 bytes); past it the 32-bit counter would wrap and
 *   reuse keystream. open refuses longer input with HS_ERR_TOO_LONG; seal
 *   has no error return, so it aborts rather than reuse keystream.
 * - The context is just the key (32 bytes), copied by init, wiped by wipe.
 */
#include <stdlib.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/aead.h"
#include "crypto/chacha20.h"
#include "crypto/cpu.h"
#include "crypto/ct.h"
#include "crypto/poly1305.h"

/* RFC 8439 2.8: P_MAX = 274,877,906,880 bytes (2^32 - 1 blocks from counter 1) */
#define P_MAX ((uint64_t)0xffffffff * 64)

/*
 * seal's unit of work: a multiple of 2048 (one AVX-512 batch of 32 ChaCha20
 * blocks) that holds the largest TLS record (2^14 + 256 bytes), so a record
 * is one XOR call and one MAC call: its input and output (36 KiB) still fit
 * a 48 KiB L1, and every call pays a set-up (4 KiB chunks measured 5% slower
 * at 16 KiB).
 */
#define SEAL_CHUNK 18432

/* Messages up to impl->short_max bytes take block 0 and their keystream
 * from one batch (at most KS_LEN bytes, a stack buffer, wiped) instead of a
 * scalar block 0 then the batches. */
#define KS_LEN 2048

struct impl {
	chacha20_xor_fn *xor_fn;
	/* NULL, or xor_fn that also writes block st[12] - 1 (block 0) alongside */
	void (*key_xor_fn)(const uint32_t st[16], const uint8_t *in, size_t len, uint8_t *out,
			   uint32_t mask, uint8_t block0[64]);
	poly1305_blocks_fn *mac_fn;
	size_t short_max; /* 64 + short_max bytes of keystream cost one batch */
};

struct cp_ctx {
	uint8_t key[32];
};

_Static_assert(sizeof(struct cp_ctx) <= HS_AEAD_CTX_MAX, "context too large");

static int cp_init(void *ctx, const uint8_t *key)
{
	memcpy(((struct cp_ctx *)ctx)->key, key, 32);
	return 0;
}

static void cp_wipe(void *ctx) { wipe(ctx, sizeof(struct cp_ctx)); }

/* Zeros up to a multiple of 16 after len bytes (RFC 8439 2.8 pad16). */
static void mac_pad16(struct poly1305 *mac, size_t len)
{
	static const uint8_t zeros[16];

	if (len % 16 != 0)
		poly1305_update(mac, zeros, 16 - len % 16);
}

/* The MAC keyed with block 0 (its first 32 bytes are r || s), then AD || pad16. */
static void mac_start(const struct impl *impl, struct poly1305 *mac, const uint8_t block0[64],
		      const uint8_t *ad, size_t ad_len)
{
	poly1305_init_with(mac, block0, impl->mac_fn);
	poly1305_update(mac, ad, ad_len);
	mac_pad16(mac, ad_len);
}

/*
 * Set up the ChaCha20 state at counter 1 and the MAC (mac_start) with
 * block 0, written to ks[0..63]. A short message also gets its keystream in
 * ks[64..64+len) from the same batch.
 */
static void start(const struct impl *impl, const void *ctx, const uint8_t *nonce,
		  const uint8_t *ad, size_t ad_len, size_t len, uint32_t st[16],
		  struct poly1305 *mac, uint8_t ks[KS_LEN])
{
	static const uint8_t zeros[KS_LEN];

	chacha20_init(st, ((const struct cp_ctx *)ctx)->key, nonce, 1);
	if (len <= impl->short_max && impl->key_xor_fn != NULL) {
		impl->key_xor_fn(st, zeros, len, ks + 64, 0xffffffff, ks);
	} else {
		st[12] = 0;
		if (len <= impl->short_max)
			impl->xor_fn(st, zeros, 64 + len, ks, 0xffffffff);
		else
			chacha20_block(st, ks);
		st[12] = 1;
	}
	mac_start(impl, mac, ks, ad, ad_len);
}

/* How much of ks start() wrote (and the caller wipes). */
static size_t ks_used(const struct impl *impl, size_t len)
{
	return len <= impl->short_max ? 64 + len : 64;
}

/* out = (in ^ ks) & mask, for the short path */
static void xor_short(const uint8_t *ks, const uint8_t *in, size_t len, uint8_t *out,
		      uint32_t mask)
{
	for (size_t i = 0; i < len; i++)
		out[i] = (uint8_t)((in[i] ^ ks[i]) & mask);
}

/* After AD || pad16 || ciphertext: pad16 || le64(ad_len) || le64(len), then the tag. */
static void mac_finish(struct poly1305 *mac, size_t ad_len, size_t len, uint8_t tag[16])
{
	uint8_t lens[16];

	mac_pad16(mac, len);
	for (int i = 0; i < 8; i++) {
		lens[i] = (uint8_t)((uint64_t)ad_len >> (8 * i));
		lens[8 + i] = (uint8_t)((uint64_t)len >> (8 * i));
	}
	poly1305_update(mac, lens, sizeof(lens));
	poly1305_final(mac, tag);
}

/* Encrypt and MAC chunk by chunk, so the MAC reads the ciphertext from L1. */
static void encrypt_and_mac(const struct impl *impl, uint32_t st[16], struct poly1305 *mac,
			    const uint8_t *in, size_t len, uint8_t *out)
{
	for (size_t off = 0; off < len; off += SEAL_CHUNK) {
		size_t n = len - off < SEAL_CHUNK ? len - off : SEAL_CHUNK;

		impl->xor_fn(st, in + off, n, out + off, 0xffffffff);
		poly1305_update(mac, out + off, n);
		st[12] += SEAL_CHUNK / 64;
	}
}

static void seal_with(const struct impl *impl, const void *ctx, const uint8_t *nonce,
		      const uint8_t *ad, size_t ad_len, const uint8_t *in, size_t len,
		      uint8_t *out)
{
	uint32_t st[16];
	struct poly1305 mac;
	uint8_t ks[KS_LEN];

	if ((uint64_t)len > P_MAX)
		abort(); /* would reuse keystream; seal cannot report an error */
	if (impl->key_xor_fn != NULL) {
		/* block 0 rides along the first batch of the first chunk, which
		 * encrypts straight into out (no keystream buffer, short or long) */
		size_t n = len < SEAL_CHUNK ? len : SEAL_CHUNK;

		chacha20_init(st, ((const struct cp_ctx *)ctx)->key, nonce, 1);
		impl->key_xor_fn(st, in, n, out, 0xffffffff, ks);
		mac_start(impl, &mac, ks, ad, ad_len);
		poly1305_update(&mac, out, n);
		st[12] += SEAL_CHUNK / 64;
		encrypt_and_mac(impl, st, &mac, in + n, len - n, out + n);
	} else {
		start(impl, ctx, nonce, ad, ad_len, len, st, &mac, ks);
		if (len <= impl->short_max) {
			xor_short(ks + 64, in, len, out, 0xffffffff);
			poly1305_update(&mac, out, len);
		} else {
			encrypt_and_mac(impl, st, &mac, in, len, out);
		}
	}
	mac_finish(&mac, ad_len, len, out + len);
	wipe(st, sizeof(st));
	wipe(ks, impl->key_xor_fn != NULL ? 64 : ks_used(impl, len));
}

static int open_with(const struct impl *impl, const void *ctx, const uint8_t *nonce,
		     const uint8_t *ad, size_t ad_len, const uint8_t *in, size_t len,
		     uint8_t *out)
{
	uint32_t st[16], bad, keep;
	struct poly1305 mac;
	uint8_t tag[16], ks[KS_LEN];

	if (len < HS_AEAD_TAG_LEN)
		return HS_ERR_BAD_TAG;
	len -= HS_AEAD_TAG_LEN;
	if ((uint64_t)len > P_MAX)
		return HS_ERR_TOO_LONG;
	start(impl, ctx, nonce, ad, ad_len, len, st, &mac, ks);
	poly1305_update(&mac, in, len);
	mac_finish(&mac, ad_len, len, tag);
	bad = ct_memneq(tag, in + len, HS_AEAD_TAG_LEN); /* 0 or 1 */
	/* keep = all-ones iff the tag is good: the XOR then writes plaintext,
	 * else zeros. The barrier stops the compiler turning it into a branch. */
	keep = ct_barrier_u32(bad) - 1;
	if (len <= impl->short_max)
		xor_short(ks + 64, in, len, out, keep);
	else
		impl->xor_fn(st, in, len, out, keep);
	wipe(st, sizeof(st));
	wipe(tag, sizeof(tag));
	wipe(ks, ks_used(impl, len));
	return (int)bad * HS_ERR_BAD_TAG; /* 0 or HS_ERR_BAD_TAG, without a branch */
}

/* short_max: 64 + short_max bytes are one batch of 4 blocks (portable: the
 * old common value), 8 (AVX2) or 32 (AVX-512) */
static const struct impl impl_portable = { .xor_fn = chacha20_xor_portable,
					   .mac_fn = poly1305_blocks_portable,
					   .short_max = 192 };

static void seal_portable(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
			  size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	seal_with(&impl_portable, ctx, nonce, ad, ad_len, in, len, out);
}

static int open_portable(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
			 size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	return open_with(&impl_portable, ctx, nonce, ad, ad_len, in, len, out);
}

static const struct aead aead_portable = {
	.name = "ChaCha20-Poly1305 (portable)",
	.key_len = 32,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct cp_ctx),
	.init = cp_init,
	.seal = seal_portable,
	.open = open_portable,
	.wipe = cp_wipe,
};

const struct aead *aead_chacha20poly1305_portable(void) { return &aead_portable; }

#if defined(__x86_64__)
static const struct impl impl_avx2 = { .xor_fn = chacha20_xor_avx2,
				       .mac_fn = poly1305_blocks_avx2,
				       .short_max = 448 };
static const struct impl impl_avx512 = { .xor_fn = chacha20_xor_avx512,
					 .key_xor_fn = chacha20_xor_key_avx512,
					 .mac_fn = poly1305_blocks_avx512,
					 .short_max = 1984 };
static const struct impl impl_avx512ifma = { .xor_fn = chacha20_xor_avx512,
					     .key_xor_fn = chacha20_xor_key_avx512,
					     .mac_fn = poly1305_blocks_avx512ifma,
					     .short_max = 1984 };

static void seal_avx2(const void *ctx, const uint8_t *nonce, const uint8_t *ad, size_t ad_len,
		      const uint8_t *in, size_t len, uint8_t *out)
{
	seal_with(&impl_avx2, ctx, nonce, ad, ad_len, in, len, out);
}

static int open_avx2(const void *ctx, const uint8_t *nonce, const uint8_t *ad, size_t ad_len,
		     const uint8_t *in, size_t len, uint8_t *out)
{
	return open_with(&impl_avx2, ctx, nonce, ad, ad_len, in, len, out);
}

static void seal_avx512(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
			size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	seal_with(&impl_avx512, ctx, nonce, ad, ad_len, in, len, out);
}

static int open_avx512(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
		       size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	return open_with(&impl_avx512, ctx, nonce, ad, ad_len, in, len, out);
}

static void seal_avx512ifma(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
			    size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	seal_with(&impl_avx512ifma, ctx, nonce, ad, ad_len, in, len, out);
}

static int open_avx512ifma(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
			   size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	return open_with(&impl_avx512ifma, ctx, nonce, ad, ad_len, in, len, out);
}

static const struct aead aead_avx2 = {
	.name = "ChaCha20-Poly1305 (AVX2)",
	.key_len = 32,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct cp_ctx),
	.init = cp_init,
	.seal = seal_avx2,
	.open = open_avx2,
	.wipe = cp_wipe,
};

static const struct aead aead_avx512 = {
	.name = "ChaCha20-Poly1305 (AVX-512)",
	.key_len = 32,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct cp_ctx),
	.init = cp_init,
	.seal = seal_avx512,
	.open = open_avx512,
	.wipe = cp_wipe,
};

static const struct aead aead_avx512ifma = {
	.name = "ChaCha20-Poly1305 (AVX-512 IFMA)",
	.key_len = 32,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct cp_ctx),
	.init = cp_init,
	.seal = seal_avx512ifma,
	.open = open_avx512ifma,
	.wipe = cp_wipe,
};
#endif

const struct aead *aead_chacha20poly1305_avx2(void)
{
#if defined(__x86_64__)
	if (cpu_has(HS_CPU_AVX2))
		return &aead_avx2;
#endif
	return NULL;
}

const struct aead *aead_chacha20poly1305_avx512(void)
{
#if defined(__x86_64__)
	if (cpu_has(HS_CPU_AVX512F | HS_CPU_AVX2))
		return &aead_avx512;
#endif
	return NULL;
}

const struct aead *aead_chacha20poly1305_avx512ifma(void)
{
#if defined(__x86_64__)
	if (cpu_has(HS_CPU_AVX512F | HS_CPU_AVX512IFMA | HS_CPU_AVX2))
		return &aead_avx512ifma;
#endif
	return NULL;
}

/*
 * The IFMA backend is preferred where the CPU has it: on the AMD Zen 5 it
 * was measured on, its four-chain radix-2^44 Poly1305 makes 16 KiB records
 * about 12% faster than the radix-2^26 one (it ties at 1 KiB; below that it
 * calls the radix-2^26 code). On Zen 4, whose IFMA on 512-bit vectors issues
 * at half rate, it was no faster when both had one chain.
 */
const struct aead *aead_chacha20poly1305(void)
{
	const struct aead *a = aead_chacha20poly1305_avx512ifma();

	if (a == NULL)
		a = aead_chacha20poly1305_avx512();
	if (a == NULL)
		a = aead_chacha20poly1305_avx2();
	return a != NULL ? a : aead_chacha20poly1305_portable();
}
