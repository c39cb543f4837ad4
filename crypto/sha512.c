/*
 * SHA-512 and SHA-384 (FIPS 180-4, sections 4.1.3, 4.2.3, 5.1.2, 5.3.4,
 * 5.3.5, 6.4, 6.5). SHA-384 is SHA-512 with another IV, truncated to 48
 * bytes.
 *
 * Implementation notes:
 * - Portable only: an 80-round loop over a full 80-word message schedule,
 *   adds, rotations and boolean operations only, so constant-time by
 *   construction (K is indexed by the public round number).
 * - The byte count is 64 bits; the 128-bit length field is written with
 *   its top 64 bits as count >> 61 (2^64 bytes is far beyond any use).
 * - Only the message length is observable. The schedule, working variables
 *   and the finished context are wiped.
 */
#include <string.h>

#include "base/bytes.h"
#include "base/wipe.h"
#include "crypto/sha2.h"

/* FIPS 180-4, 4.2.3: first 64 bits of the fractional parts of the cube
 * roots of the first 80 primes. */
static const uint64_t K512[80] = {
	0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
	0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
	0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
	0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
	0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
	0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
	0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
	0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
	0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
	0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
	0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
	0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
	0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
	0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
	0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
	0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
	0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
	0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
	0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
	0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};

/* FIPS 180-4, 5.3.5: SHA-512 initial hash value. */
static const uint64_t IV512[8] = {
	0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
	0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
};

/* FIPS 180-4, 5.3.4: SHA-384 initial hash value. */
static const uint64_t IV384[8] = {
	0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
	0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4,
};

static inline uint64_t ror64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

/* FIPS 180-4, 4.1.3 and 6.4.2 step 1: the message schedule W[0..79]. */
static void schedule(uint64_t w[80], const uint8_t *p)
{
	for (int i = 0; i < 16; i++)
		w[i] = load_be64(p + 8 * i);
	for (int i = 16; i < 80; i++) {
		uint64_t s0 = ror64(w[i - 15], 1) ^ ror64(w[i - 15], 8) ^ (w[i - 15] >> 7);
		uint64_t s1 = ror64(w[i - 2], 19) ^ ror64(w[i - 2], 61) ^ (w[i - 2] >> 6);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
}

static inline uint64_t big_sigma0(uint64_t a) { return ror64(a, 28) ^ ror64(a, 34) ^ ror64(a, 39); }
static inline uint64_t big_sigma1(uint64_t e) { return ror64(e, 14) ^ ror64(e, 18) ^ ror64(e, 41); }
static inline uint64_t ch(uint64_t e, uint64_t f, uint64_t g) { return g ^ (e & (f ^ g)); }
static inline uint64_t maj(uint64_t a, uint64_t b, uint64_t c) { return (a & b) | (c & (a | b)); }

/* One round of FIPS 180-4, 6.4.2 step 3. Instead of shifting the eight
 * working variables, the caller rotates the names: d and h are the only
 * ones written (d += T1 becomes the new e, h = T1 + T2 the new a). */
#define ROUND512(a, b, c, d, e, f, g, h, i)                                             \
	do {                                                                             \
		uint64_t t1_ = h + big_sigma1(e) + ch(e, f, g) + K512[i] + w[i];          \
		d += t1_;                                                                \
		h = t1_ + big_sigma0(a) + maj(a, b, c);                                  \
	} while (0)

/* 80 rounds over the working variables s[0..7] = a..h. */
static void rounds(uint64_t s[8], const uint64_t w[80])
{
	uint64_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];

	for (int i = 0; i < 80; i += 8) {
		ROUND512(a, b, c, d, e, f, g, h, i);
		ROUND512(h, a, b, c, d, e, f, g, i + 1);
		ROUND512(g, h, a, b, c, d, e, f, i + 2);
		ROUND512(f, g, h, a, b, c, d, e, i + 3);
		ROUND512(e, f, g, h, a, b, c, d, i + 4);
		ROUND512(d, e, f, g, h, a, b, c, i + 5);
		ROUND512(c, d, e, f, g, h, a, b, i + 6);
		ROUND512(b, c, d, e, f, g, h, a, i + 7);
	}
	s[0] = a, s[1] = b, s[2] = c, s[3] = d, s[4] = e, s[5] = f, s[6] = g, s[7] = h;
}

static void blocks_portable(uint64_t h[8], const uint8_t *p, size_t nblocks)
{
	uint64_t w[80], s[8];

	for (; nblocks > 0; nblocks--, p += 128) {
		schedule(w, p);
		memcpy(s, h, sizeof(s));
		rounds(s, w);
		for (int i = 0; i < 8; i++)
			h[i] += s[i];
	}
	wipe(w, sizeof(w));
	wipe(s, sizeof(s));
}

static void init_iv(struct sha512 *c, const uint64_t iv[8])
{
	memcpy(c->h, iv, sizeof(c->h));
	c->count = 0;
	memset(c->buf, 0, sizeof(c->buf));
}

void sha512_init(struct sha512 *c) { init_iv(c, IV512); }

void sha384_init(struct sha512 *c) { init_iv(c, IV384); }

void sha512_update(struct sha512 *c, const void *p, size_t n)
{
	const uint8_t *in = p;
	size_t used = (size_t)(c->count & 127);

	if (n == 0)
		return; /* p may be NULL */
	c->count += n;
	if (used > 0) {
		size_t take = 128 - used < n ? 128 - used : n;
		memcpy(c->buf + used, in, take);
		in += take;
		n -= take;
		if (used + take < 128)
			return;
		blocks_portable(c->h, c->buf, 1);
	}
	if (n >= 128) {
		blocks_portable(c->h, in, n / 128);
		in += n & ~(size_t)127;
		n &= 127;
	}
	if (n > 0)
		memcpy(c->buf, in, n);
}

void sha384_update(struct sha512 *c, const void *p, size_t n) { sha512_update(c, p, n); }

/* FIPS 180-4, 5.1.2: append 0x80, zeros, and the 128-bit bit length; then
 * write out_len bytes of the state and wipe the context. */
static void finish(struct sha512 *c, uint8_t *out, size_t out_len)
{
	size_t used = (size_t)(c->count & 127);
	uint8_t full[64];

	c->buf[used++] = 0x80;
	if (used > 112) {
		memset(c->buf + used, 0, 128 - used);
		blocks_portable(c->h, c->buf, 1);
		used = 0;
	}
	memset(c->buf + used, 0, 112 - used);
	store_be64(c->buf + 112, c->count >> 61);
	store_be64(c->buf + 120, c->count << 3);
	blocks_portable(c->h, c->buf, 1);
	for (int i = 0; i < 8; i++)
		store_be64(full + 8 * i, c->h[i]);
	memcpy(out, full, out_len);
	wipe(full, sizeof(full));
	wipe(c, sizeof(*c));
}

void sha512_final(struct sha512 *c, uint8_t out[64]) { finish(c, out, 64); }

void sha384_final(struct sha512 *c, uint8_t out[48]) { finish(c, out, 48); }

void sha512(const void *p, size_t n, uint8_t out[64])
{
	struct sha512 c;

	sha512_init(&c);
	sha512_update(&c, p, n);
	sha512_final(&c, out);
}

void sha384(const void *p, size_t n, uint8_t out[48])
{
	struct sha512 c;

	sha384_init(&c);
	sha384_update(&c, p, n);
	sha384_final(&c, out);
}
