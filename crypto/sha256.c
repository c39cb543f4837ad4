/*
 * SHA-256 (FIPS 180-4, sections 4.1.2, 4.2.2, 5.1.1, 5.3.3, 6.2).
 *
 * Implementation notes:
 * - The compression function is a plain 64-round loop over a full 64-word
 *   message schedule; it uses only adds, rotations and boolean operations,
 *   so it is constant-time by construction (no table is indexed by data;
 *   K is indexed by the public round number).
 * - The streaming code is written once, parameterised by a "blocks"
 *   function (portable here, SHA-NI in asm/sha256_shani.c). The public
 *   sha256_* functions pick the best backend on each call through
 *   sha256_blocks_best(), so cpu_force_portable() takes effect at
 *   once; both backends give the same bits, so switching mid-stream is safe.
 * - Only the message length is observable. The schedule, working variables
 *   and the finished context are wiped.
 */
#include <string.h>

#include "base/bytes.h"
#include "base/wipe.h"
#include "crypto/cpu.h"
#include "crypto/sha2.h"
#include "crypto/sha2_internal.h"

/* FIPS 180-4, 4.2.2: first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

/* FIPS 180-4, 5.3.3: the initial hash value. */
static const uint32_t IV256[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static inline uint32_t ror32(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

/* FIPS 180-4, 4.1.2: the message schedule W[0..63] of one block. */
static void schedule(uint32_t w[64], const uint8_t *p)
{
	for (int i = 0; i < 16; i++)
		w[i] = load_be32(p + 4 * i);
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
}

static inline uint32_t big_sigma0(uint32_t a) { return ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22); }
static inline uint32_t big_sigma1(uint32_t e) { return ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25); }
static inline uint32_t ch(uint32_t e, uint32_t f, uint32_t g) { return g ^ (e & (f ^ g)); }
static inline uint32_t maj(uint32_t a, uint32_t b, uint32_t c) { return (a & b) | (c & (a | b)); }

/* One round of FIPS 180-4, 6.2.2 step 3. Instead of shifting the eight
 * working variables, the caller rotates the names: d and h are the only
 * ones written (d += T1 becomes the new e, h = T1 + T2 the new a). */
#define ROUND256(a, b, c, d, e, f, g, h, i)                                             \
	do {                                                                             \
		uint32_t t1_ = h + big_sigma1(e) + ch(e, f, g) + sha256_k[i] + w[i];   \
		d += t1_;                                                                \
		h = t1_ + big_sigma0(a) + maj(a, b, c);                                  \
	} while (0)

/* 64 rounds over the working variables s[0..7] = a..h. */
static void rounds(uint32_t s[8], const uint32_t w[64])
{
	uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];

	for (int i = 0; i < 64; i += 8) {
		ROUND256(a, b, c, d, e, f, g, h, i);
		ROUND256(h, a, b, c, d, e, f, g, i + 1);
		ROUND256(g, h, a, b, c, d, e, f, i + 2);
		ROUND256(f, g, h, a, b, c, d, e, i + 3);
		ROUND256(e, f, g, h, a, b, c, d, i + 4);
		ROUND256(d, e, f, g, h, a, b, c, i + 5);
		ROUND256(c, d, e, f, g, h, a, b, i + 6);
		ROUND256(b, c, d, e, f, g, h, a, i + 7);
	}
	s[0] = a, s[1] = b, s[2] = c, s[3] = d, s[4] = e, s[5] = f, s[6] = g, s[7] = h;
}

void sha256_blocks_portable(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
	uint32_t w[64], s[8];

	for (; nblocks > 0; nblocks--, p += 64) {
		schedule(w, p);
		memcpy(s, h, sizeof(s));
		rounds(s, w);
		for (int i = 0; i < 8; i++)
			h[i] += s[i];
	}
	wipe(w, sizeof(w));
	wipe(s, sizeof(s));
}

sha256_blocks_fn *sha256_blocks_best(void)
{
#ifdef HS_HAVE_SHA256_SHANI
	if (cpu_has(HS_CPU_SHANI | HS_CPU_SSE41 | HS_CPU_SSSE3))
		return sha256_blocks_shani;
#endif
	return sha256_blocks_portable;
}

void sha256_init(struct sha256 *c)
{
	memcpy(c->h, IV256, sizeof(c->h));
	c->count = 0;
	memset(c->buf, 0, sizeof(c->buf));
}

void sha256_update_with(struct sha256 *c, const void *p, size_t n,
			   sha256_blocks_fn *blocks)
{
	const uint8_t *in = p;
	size_t used = (size_t)(c->count & 63);

	if (n == 0)
		return; /* p may be NULL */
	c->count += n;
	if (used > 0) {
		size_t take = 64 - used < n ? 64 - used : n;
		memcpy(c->buf + used, in, take);
		in += take;
		n -= take;
		if (used + take < 64)
			return;
		blocks(c->h, c->buf, 1);
	}
	if (n >= 64) {
		blocks(c->h, in, n / 64);
		in += n & ~(size_t)63;
		n &= 63;
	}
	if (n > 0)
		memcpy(c->buf, in, n);
}

/* FIPS 180-4, 5.1.1: append 0x80, zeros, and the 64-bit bit length. */
void sha256_final_with(struct sha256 *c, uint8_t out[32], sha256_blocks_fn *blocks)
{
	size_t used = (size_t)(c->count & 63);
	uint64_t bits = c->count << 3;

	c->buf[used++] = 0x80;
	if (used > 56) {
		memset(c->buf + used, 0, 64 - used);
		blocks(c->h, c->buf, 1);
		used = 0;
	}
	memset(c->buf + used, 0, 56 - used);
	store_be32(c->buf + 56, (uint32_t)(bits >> 32));
	store_be32(c->buf + 60, (uint32_t)bits);
	blocks(c->h, c->buf, 1);
	for (int i = 0; i < 8; i++)
		store_be32(out + 4 * i, c->h[i]);
	wipe(c, sizeof(*c));
}

void sha256_update(struct sha256 *c, const void *p, size_t n)
{
	sha256_update_with(c, p, n, sha256_blocks_best());
}

void sha256_final(struct sha256 *c, uint8_t out[32])
{
	sha256_final_with(c, out, sha256_blocks_best());
}

void sha256(const void *p, size_t n, uint8_t out[32])
{
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, p, n);
	sha256_final(&c, out);
}
