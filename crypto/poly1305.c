/*
 * Poly1305 (RFC 8439 section 2.5): h = (h + block) * r mod 2^130 - 5 per
 * 16-byte block, tag = (h + s) mod 2^128.
 *
 * Implementation notes:
 * - Radix 2^64: h = h0 + h1 2^64 + h2 2^128 and r = r0 + r1 2^64, with
 *   64x64->128-bit products (unsigned __int128). Clamping leaves r0, r1 <
 *   2^60 and 4 | r1, so 2^128 r1 = 2^130 (r1 / 4) = 5 (r1 / 4) mod p and
 *   s1 = r1 + r1 / 4 folds the top partial products back exactly.
 * - Bounds (per block): after the fold h2 <= 4, so after adding a block
 *   h2 <= 6; every partial-product sum stays below 2^126, and the top word
 *   d2 < 9 2^60, so 5 (d2 >> 2) fits in 64 bits.
 * - h is kept only partially reduced (h < 2p). The final reduction
 *   computes g = h + 5 and takes g - 2^130 instead of h when bit 130 of g
 *   is set, by a masked select: no branch on h.
 * - SIMD backends (crypto/asm/poly1305_*.c, chosen by init_with) absorb
 *   long runs of whole blocks with powers of r in radix 2^26; this file
 *   gives them the powers and the conversions of h between radices 2^64
 *   and 2^26 (the IFMA one converts further to 2^44 itself). The padded
 *   last block always goes through the portable code here.
 * - Only the message length steers loops and the buffer; secrets never
 *   select a branch or an address. The state is wiped by final.
 */
#include "base/bytes.h"
#include "crypto/poly1305.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"

__extension__ typedef unsigned __int128 u128;

/*
 * h = h r mod p, partially reduced, for h = h0 + h1 2^64 + h2 2^128 with
 * h2 <= 6 (see the bounds above); on return h2 <= 4.
 */
static inline void mul_r(uint64_t *h0, uint64_t *h1, uint64_t *h2, uint64_t r0, uint64_t r1,
			 uint64_t s1)
{
	u128 d0, d1;
	uint64_t d2, c;

	/* d = h r, the 2^128 and 2^192 terms folded through s1 */
	d0 = (u128)*h0 * r0 + (u128)*h1 * s1;
	d1 = (u128)*h0 * r1 + (u128)*h1 * r0 + *h2 * s1;
	d2 = *h2 * r0;

	/* carry d0 -> d1 -> d2 */
	d1 += (uint64_t)(d0 >> 64);
	d2 += (uint64_t)(d1 >> 64);

	/* fold bits 130 and up: 2^130 = 5 mod p, and (d2 & ~3) + (d2 >> 2) = 5 (d2 >> 2) */
	c = (d2 & ~(uint64_t)3) + (d2 >> 2);
	d0 = (u128)(uint64_t)d0 + c;
	d1 = (u128)(uint64_t)d1 + (uint64_t)(d0 >> 64);
	*h0 = (uint64_t)d0;
	*h1 = (uint64_t)d1;
	*h2 = (d2 & 3) + (uint64_t)(d1 >> 64);
}

/* Absorb nblocks 16-byte blocks; hibit is 1 for full blocks, 0 for the padded last. */
static void blocks(struct poly1305 *st, const uint8_t *m, size_t nblocks, uint64_t hibit)
{
	const uint64_t r0 = st->r0, r1 = st->r1;
	const uint64_t s1 = r1 + (r1 >> 2); /* 5 r1 / 4, exact since 4 | r1 */
	uint64_t h0 = st->h0, h1 = st->h1, h2 = st->h2;

	for (; nblocks > 0; nblocks--, m += 16) {
		u128 d0, d1;

		/* h += m + hibit 2^128 */
		d0 = (u128)h0 + load_le64(m);
		d1 = (u128)h1 + load_le64(m + 8) + (uint64_t)(d0 >> 64);
		h0 = (uint64_t)d0;
		h1 = (uint64_t)d1;
		h2 += (uint64_t)(d1 >> 64) + hibit;
		mul_r(&h0, &h1, &h2, r0, r1, s1);
	}
	st->h0 = h0;
	st->h1 = h1;
	st->h2 = h2;
}

void poly1305_blocks_portable(struct poly1305 *st, const uint8_t *m, size_t nblocks)
{
	blocks(st, m, nblocks, 1);
}

void poly1305_init_with(struct poly1305 *st, const uint8_t key[32],
			   poly1305_blocks_fn *blocks_fn)
{
	/* clamp (RFC 8439 2.5.1): r &= 0x0ffffffc0ffffffc0ffffffc0fffffff */
	st->r0 = load_le64(key) & 0x0ffffffc0fffffffull;
	st->r1 = load_le64(key + 8) & 0x0ffffffc0ffffffcull;
	st->s0 = load_le64(key + 16);
	st->s1 = load_le64(key + 24);
	st->h0 = st->h1 = st->h2 = 0;
	st->npow = 0;
	st->blocks = blocks_fn;
	st->buf_len = 0;
}

void poly1305_init(struct poly1305 *st, const uint8_t key[32])
{
	poly1305_init_with(st, key, poly1305_blocks_portable);
}

void poly1305_update(struct poly1305 *st, const uint8_t *m, size_t len)
{
	if (len == 0)
		return;
	if (st->buf_len > 0) {
		size_t n = 16 - st->buf_len < len ? 16 - st->buf_len : len;
		memcpy(st->buf + st->buf_len, m, n);
		st->buf_len += n;
		m += n;
		len -= n;
		if (st->buf_len < 16)
			return;
		st->blocks(st, st->buf, 1);
		st->buf_len = 0;
	}
	if (len >= 16) {
		st->blocks(st, m, len / 16);
		m += len & ~(size_t)15;
		len &= 15;
	}
	if (len > 0) {
		memcpy(st->buf, m, len);
		st->buf_len = len;
	}
}

void poly1305_final(struct poly1305 *st, uint8_t tag[16])
{
	u128 d;
	uint64_t g0, g1, g2, mask, h0, h1;

	if (st->buf_len > 0) {
		/* the last block gets its 0x01 byte, then zeros; no 2^128 bit */
		st->buf[st->buf_len] = 1;
		memset(st->buf + st->buf_len + 1, 0, 15 - st->buf_len);
		blocks(st, st->buf, 1, 0);
	}

	/* g = h + 5; h >= p exactly when g >= 2^130, i.e. g2 >= 4 (g2 <= 5) */
	d = (u128)st->h0 + 5;
	g0 = (uint64_t)d;
	d = (u128)st->h1 + (uint64_t)(d >> 64);
	g1 = (uint64_t)d;
	g2 = st->h2 + (uint64_t)(d >> 64);
	/* mask: all-ones when g2 >> 2 is 1; the barrier keeps it a mask, not a branch */
	mask = (uint64_t)0 - ct_barrier_u64(g2 >> 2);
	h0 = ct_select_u64(mask, g0, st->h0);
	h1 = ct_select_u64(mask, g1, st->h1);

	/* tag = (h + s) mod 2^128 */
	d = (u128)h0 + st->s0;
	h0 = (uint64_t)d;
	h1 = h1 + st->s1 + (uint64_t)(d >> 64);
	store_le64(tag, h0);
	store_le64(tag + 8, h1);
	wipe(st, sizeof(*st));
}

/* ---- radix 2^26 helpers for the SIMD backends ---- */

#define M26 ((uint64_t)0x3ffffff)

/* l = h (h2 <= 4) as radix-2^26 limbs, carried: below 2^26, l[1] below 2^26 + 1 */
static void to26_carried(uint64_t h0, uint64_t h1, uint64_t h2, uint32_t l[5])
{
	uint64_t x[5], c;

	x[0] = h0 & M26;
	x[1] = (h0 >> 26) & M26;
	x[2] = ((h0 >> 52) | (h1 << 12)) & M26;
	x[3] = (h1 >> 14) & M26;
	x[4] = (h1 >> 40) | (h2 << 24); /* below 2^27 */
	c = x[4] >> 26;
	x[4] &= M26;
	x[0] += 5 * c;
	x[1] += x[0] >> 26;
	x[0] &= M26;
	for (int i = 0; i < 5; i++)
		l[i] = (uint32_t)x[i];
}

/*
 * r^k = r^(k-1) r in radix 2^64 (the block step with no message: a few
 * 64 x 64-bit products each, against 25 for a radix-2^26 product), then
 * split into carried radix-2^26 limbs.
 */
void poly1305_powers(struct poly1305 *st, unsigned n)
{
	const uint64_t s1 = st->r1 + (st->r1 >> 2);
	uint64_t h0 = st->r0, h1 = st->r1, h2 = 0;

	if (st->npow >= n)
		return;
	if (st->npow == 0)
		to26_carried(h0, h1, h2, st->rpow[0]);
	for (unsigned k = 1; k < n; k++) {
		mul_r(&h0, &h1, &h2, st->r0, st->r1, s1);
		if (k >= st->npow)
			to26_carried(h0, h1, h2, st->rpow[k]);
	}
	st->npow = n;
}

void poly1305_h_to26(const struct poly1305 *st, uint64_t l[5])
{
	l[0] = st->h0 & M26;
	l[1] = (st->h0 >> 26) & M26;
	l[2] = ((st->h0 >> 52) | (st->h1 << 12)) & M26;
	l[3] = (st->h1 >> 14) & M26;
	l[4] = (st->h1 >> 40) | (st->h2 << 24); /* h2 <= 4: below 2^27 */
}

void poly1305_h_from26(struct poly1305 *st, const uint64_t in[5])
{
	uint64_t l[5], c;
	u128 t;

	/* carry to 26-bit limbs, folding 2^130 = 5 back into limb 0 */
	for (int i = 0; i < 5; i++)
		l[i] = in[i];
	for (int i = 0; i < 4; i++) {
		l[i + 1] += l[i] >> 26;
		l[i] &= M26;
	}
	c = l[4] >> 26;
	l[4] &= M26;
	l[0] += 5 * c;
	l[1] += l[0] >> 26;
	l[0] &= M26;
	/* now h < 2^130 + 2^40: reassemble radix 2^64, h2 <= 4 */
	t = (u128)l[0] + ((u128)l[1] << 26) + ((u128)l[2] << 52);
	st->h0 = (uint64_t)t;
	t = (t >> 64) + ((u128)l[3] << 14) + ((u128)l[4] << 40);
	st->h1 = (uint64_t)t;
	st->h2 = (uint64_t)(t >> 64);
}

void poly1305(const uint8_t key[32], const uint8_t *m, size_t len, uint8_t tag[16])
{
	struct poly1305 st;

	poly1305_init(&st, key);
	poly1305_update(&st, m, len);
	poly1305_final(&st, tag);
}
