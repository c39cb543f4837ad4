/*
 * AES-GCM (NIST SP 800-38D) with 96-bit nonces: the portable constant-time
 * implementation, the aead tables of every backend, and the getters.
 *
 * Implementation notes
 * - Portable path: bitsliced AES (aes_ct.c) four blocks at a time in CTR
 *   mode, and table-free GHASH (ghash_ct.c). J0 = nonce || 0^31 || 1;
 *   the first AES batch yields E_K(J0) (the tag mask) and the keystream
 *   for counters 2, 3 and 4; then four blocks per batch. The counter is
 *   inc32: it wraps mod 2^32, as the spec defines it. SP 800-38D caps the
 *   plaintext at 2^36 - 32 bytes; callers must stay below that (TLS
 *   records are at most 2^14 + 256 bytes). Nothing checks it: seal cannot
 *   fail.
 * - Ciphertext is hashed in 64-byte chunks right after it is written
 *   (seal) or right before it is overwritten (open), so in-place works and
 *   each chunk is touched while in cache.
 * - open computes the tag, compares it with ct_memneq, and clears the
 *   output under a mask: there is no branch on the result inside, so only
 *   the lengths are observable (and the return value, by design).
 * - Backend choice: aead_aes{128,256}gcm() return the fastest backend
 *   the CPU has (VAES, then AES-NI), else the portable one;
 *   cpu_force_portable() makes every accelerated getter return NULL.
 */
#include "base/bytes.h"
#include "crypto/aead.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/aes_ct.h"
#include "crypto/asm/aes_gcm_asm.h"
#include "crypto/cpu.h"
#include "crypto/ct.h"
#include "crypto/ghash_ct.h"

struct gcm_ct_ctx {
	struct aes_ct_key aes;
	struct ghash_ct_key gh;
};

_Static_assert(sizeof(struct gcm_ct_ctx) <= HS_AEAD_CTX_MAX, "portable GCM context too large");
_Static_assert(sizeof(struct aes_gcm_aesni_ctx) <= HS_AEAD_CTX_MAX, "AES-NI context too large");
_Static_assert(sizeof(struct aes_gcm_vaes512_ctx) <= HS_AEAD_CTX_MAX, "VAES context too large");

static int gcm_ct_init(void *ctx, const uint8_t *key, size_t key_len)
{
	struct gcm_ct_ctx *c = ctx;
	uint8_t blk[64] = { 0 };
	int err = aes_ct_init(&c->aes, key, key_len);

	if (err)
		return err;
	aes_ct_encrypt4(&c->aes, blk, blk); /* H = E_K(0^128) */
	ghash_ct_init(&c->gh, blk);
	wipe(blk, sizeof(blk));
	return 0;
}

/* Keystream for counter blocks nonce || ctr, ..., nonce || ctr + 3. */
static void ctr_batch(const struct gcm_ct_ctx *c, const uint8_t nonce[12], uint32_t ctr,
		      uint8_t ks[64])
{
	for (uint32_t i = 0; i < 4; i++) {
		memcpy(ks + 16 * i, nonce, 12);
		store_be32(ks + 16 * i + 12, ctr + i);
	}
	aes_ct_encrypt4(&c->aes, ks, ks);
}

/*
 * CTR from counter 2 over len bytes, hashing the ciphertext into y (the
 * input when decrypting, the output when encrypting). Writes E_K(J0).
 */
static void gcm_ct_crypt(const struct gcm_ct_ctx *c, const uint8_t nonce[12], const uint8_t *in,
			 size_t len, uint8_t *out, int decrypt, uint64_t y[2],
			 uint8_t tag_mask[16])
{
	uint8_t ks[64];
	size_t off = 16;
	uint32_t ctr = 5;

	ctr_batch(c, nonce, 1, ks);
	memcpy(tag_mask, ks, 16);
	while (len > 0) {
		size_t n;
		if (off == 64) {
			ctr_batch(c, nonce, ctr, ks);
			ctr += 4;
			off = 0;
		}
		/* off is a multiple of 16, so n is too unless this is the end */
		n = len < 64 - off ? len : 64 - off;
		if (decrypt)
			ghash_ct_update(y, &c->gh, in, n);
		for (size_t i = 0; i < n; i++)
			out[i] = in[i] ^ ks[off + i];
		if (!decrypt)
			ghash_ct_update(y, &c->gh, out, n);
		off += n;
		in += n;
		out += n;
		len -= n;
	}
	wipe(ks, sizeof(ks));
}

/* tag = GHASH(..., [len(A)]_64 || [len(C)]_64) ^ E_K(J0); y is wiped. */
static void gcm_ct_tag(const struct gcm_ct_ctx *c, uint64_t y[2], size_t ad_len, size_t len,
		       const uint8_t tag_mask[16], uint8_t tag[16])
{
	uint8_t lens[16];

	store_be64(lens, (uint64_t)ad_len * 8);
	store_be64(lens + 8, (uint64_t)len * 8);
	ghash_ct_update(y, &c->gh, lens, 16);
	ghash_ct_store(tag, y);
	for (int i = 0; i < 16; i++)
		tag[i] ^= tag_mask[i];
	wipe(y, 2 * sizeof(y[0]));
}

static void gcm_ct_seal(const void *ctx, const uint8_t *nonce, const uint8_t *ad, size_t ad_len,
			const uint8_t *in, size_t len, uint8_t *out)
{
	const struct gcm_ct_ctx *c = ctx;
	uint64_t y[2] = { 0, 0 };
	uint8_t mask[16];

	ghash_ct_update(y, &c->gh, ad, ad_len);
	gcm_ct_crypt(c, nonce, in, len, out, 0, y, mask);
	gcm_ct_tag(c, y, ad_len, len, mask, out + len);
	wipe(mask, sizeof(mask));
}

/*
 * Compare tags in constant time and clear out[0..len) unless they match,
 * without branching on the outcome. Returns 0 or HS_ERR_BAD_TAG.
 */
static int check_tag(const uint8_t tag[16], const uint8_t *want, uint8_t *out, size_t len)
{
	uint32_t bad = ct_memneq(tag, want, 16);
	/* keep = all-ones when bad == 0, else 0 */
	uint64_t keep = ct_barrier_u64((uint64_t)bad - 1);
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, out + i, 8);
		w &= keep;
		memcpy(out + i, &w, 8);
	}
	for (; i < len; i++)
		out[i] &= (uint8_t)keep;
	return (int)bad * HS_ERR_BAD_TAG;
}

static int gcm_ct_open(const void *ctx, const uint8_t *nonce, const uint8_t *ad, size_t ad_len,
		       const uint8_t *in, size_t len, uint8_t *out)
{
	const struct gcm_ct_ctx *c = ctx;
	uint64_t y[2] = { 0, 0 };
	uint8_t mask[16], tag[16];
	int ret;

	if (len < HS_AEAD_TAG_LEN)
		return HS_ERR_BAD_TAG;
	len -= HS_AEAD_TAG_LEN;
	ghash_ct_update(y, &c->gh, ad, ad_len);
	gcm_ct_crypt(c, nonce, in, len, out, 1, y, mask);
	gcm_ct_tag(c, y, ad_len, len, mask, tag);
	ret = check_tag(tag, in + len, out, len);
	wipe(mask, sizeof(mask));
	wipe(tag, sizeof(tag));
	return ret;
}

static void gcm_ct_wipe(void *ctx) { wipe(ctx, sizeof(struct gcm_ct_ctx)); }
static int gcm128_ct_init(void *ctx, const uint8_t *key) { return gcm_ct_init(ctx, key, 16); }
static int gcm256_ct_init(void *ctx, const uint8_t *key) { return gcm_ct_init(ctx, key, 32); }

static const struct aead aes128gcm_portable = {
	.name = "AES-128-GCM (portable)",
	.key_len = 16,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct gcm_ct_ctx),
	.init = gcm128_ct_init,
	.seal = gcm_ct_seal,
	.open = gcm_ct_open,
	.wipe = gcm_ct_wipe,
};

static const struct aead aes256gcm_portable = {
	.name = "AES-256-GCM (portable)",
	.key_len = 32,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct gcm_ct_ctx),
	.init = gcm256_ct_init,
	.seal = gcm_ct_seal,
	.open = gcm_ct_open,
	.wipe = gcm_ct_wipe,
};

const struct aead *aead_aes128gcm_portable(void) { return &aes128gcm_portable; }
const struct aead *aead_aes256gcm_portable(void) { return &aes256gcm_portable; }

#if defined(__x86_64__)
static void gcm_aesni_wipe(void *ctx) { wipe(ctx, sizeof(struct aes_gcm_aesni_ctx)); }
static int gcm128_aesni_init(void *ctx, const uint8_t *key)
{
	return aes_gcm_aesni_init(ctx, key, 16);
}

static int gcm256_aesni_init(void *ctx, const uint8_t *key)
{
	return aes_gcm_aesni_init(ctx, key, 32);
}

static const struct aead aes128gcm_aesni = {
	.name = "AES-128-GCM (AES-NI)",
	.key_len = 16,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct aes_gcm_aesni_ctx),
	.init = gcm128_aesni_init,
	.seal = aes_gcm_aesni_seal,
	.open = aes_gcm_aesni_open,
	.wipe = gcm_aesni_wipe,
};

static const struct aead aes256gcm_aesni = {
	.name = "AES-256-GCM (AES-NI)",
	.key_len = 32,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct aes_gcm_aesni_ctx),
	.init = gcm256_aesni_init,
	.seal = aes_gcm_aesni_seal,
	.open = aes_gcm_aesni_open,
	.wipe = gcm_aesni_wipe,
};

#define HS_AESNI_FEATURES (HS_CPU_AESNI | HS_CPU_PCLMUL | HS_CPU_SSSE3 | HS_CPU_SSE41)

const struct aead *aead_aes128gcm_aesni(void)
{
	return cpu_has(HS_AESNI_FEATURES) ? &aes128gcm_aesni : NULL;
}

const struct aead *aead_aes256gcm_aesni(void)
{
	return cpu_has(HS_AESNI_FEATURES) ? &aes256gcm_aesni : NULL;
}

static void gcm_vaes512_wipe(void *ctx) { wipe(ctx, sizeof(struct aes_gcm_vaes512_ctx)); }
static int gcm128_vaes512_init(void *ctx, const uint8_t *key)
{
	return aes_gcm_vaes512_init(ctx, key, 16);
}

static int gcm256_vaes512_init(void *ctx, const uint8_t *key)
{
	return aes_gcm_vaes512_init(ctx, key, 32);
}

static const struct aead aes128gcm_vaes512 = {
	.name = "AES-128-GCM (VAES-512)",
	.key_len = 16,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct aes_gcm_vaes512_ctx),
	.init = gcm128_vaes512_init,
	.seal = aes_gcm_vaes512_seal,
	.open = aes_gcm_vaes512_open,
	.wipe = gcm_vaes512_wipe,
};

static const struct aead aes256gcm_vaes512 = {
	.name = "AES-256-GCM (VAES-512)",
	.key_len = 32,
	.nonce_len = HS_AEAD_NONCE_LEN,
	.tag_len = HS_AEAD_TAG_LEN,
	.ctx_size = sizeof(struct aes_gcm_vaes512_ctx),
	.init = gcm256_vaes512_init,
	.seal = aes_gcm_vaes512_seal,
	.open = aes_gcm_vaes512_open,
	.wipe = gcm_vaes512_wipe,
};

#define HS_VAES_FEATURES (HS_AESNI_FEATURES | HS_CPU_AVX2 | HS_CPU_AVX512F | HS_CPU_AVX512BW | \
			  HS_CPU_AVX512VL | HS_CPU_VAES | HS_CPU_VPCLMUL)

const struct aead *aead_aes128gcm_vaes512(void)
{
	return cpu_has(HS_VAES_FEATURES) ? &aes128gcm_vaes512 : NULL;
}

const struct aead *aead_aes256gcm_vaes512(void)
{
	return cpu_has(HS_VAES_FEATURES) ? &aes256gcm_vaes512 : NULL;
}
#else
const struct aead *aead_aes128gcm_aesni(void) { return NULL; }
const struct aead *aead_aes256gcm_aesni(void) { return NULL; }
const struct aead *aead_aes128gcm_vaes512(void) { return NULL; }
const struct aead *aead_aes256gcm_vaes512(void) { return NULL; }
#endif

const struct aead *aead_aes128gcm(void)
{
	const struct aead *a = aead_aes128gcm_vaes512();

	if (a == NULL)
		a = aead_aes128gcm_aesni();
	return a ? a : aead_aes128gcm_portable();
}

const struct aead *aead_aes256gcm(void)
{
	const struct aead *a = aead_aes256gcm_vaes512();

	if (a == NULL)
		a = aead_aes256gcm_aesni();
	return a ? a : aead_aes256gcm_portable();
}
