/*
 * Portable constant-time GHASH.
 *
 * Implementation notes
 * - Field elements are held "reflected", as GCM defines them: the 16 bytes
 *   read as a big-endian 128-bit integer, whose top bit is the coefficient
 *   of x^0. Carry-less products of reflected values come out reflected in
 *   255 bits; one left shift gives the 256-bit reflected product, whose
 *   high half is degrees 0..127 and low half degrees 128..255.
 * - 64x64 carry-less multiplication without tables or data-dependent
 *   branches, after the method BearSSL documents for its ghash_ctmul64:
 *   split each operand into four parts keeping every fourth bit (masks
 *   0x1111..., 0x2222..., ...). An integer product of two such parts has
 *   "holes": each result digit sits alone in a 4-bit field. At most 15
 *   terms add up in a field of the low 64 bits (16 only in the top one,
 *   whose carry leaves the word), so no carry reaches the next field: the
 *   low bit of each field is the XOR of its terms, and 16 multiplies give
 *   the low 64 bits of the carry-less product. The high 64 bits are the
 *   low 64 bits of the product of the bit-reversed operands, reversed
 *   again and shifted by one.
 * - 128x128 uses Karatsuba: three 64x64 products, so six calls of 16
 *   multiplies per block. This assumes 64x64 integer multiplication takes
 *   constant time, true of x86-64 and of the usual 64-bit ARM cores.
 * - Reduction modulo P = x^128 + x^7 + x^2 + x + 1 by shifts: the high-
 *   degree half V (times x^128) is congruent to V * (1 + x + x^2 + x^7);
 *   in reflected order, multiplying by x^k is a right shift by k. The bits
 *   pushed out (degrees 128..134) are folded in first, into the top of V.
 * What may leak: only the data length.
 */
#include "base/bytes.h"
#include "crypto/ghash_ct.h"

#include <string.h>

#include "base/wipe.h"

/* Low 64 bits of the carry-less product of x and y (integer multiplies with holes). */
static uint64_t bmul64(uint64_t x, uint64_t y)
{
	const uint64_t m0 = 0x1111111111111111u, m1 = m0 << 1, m2 = m0 << 2, m3 = m0 << 3;
	uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
	uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
	/* z_j collects the parts whose bit positions add up to j mod 4 */
	uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
	uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
	uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
	uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);

	return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

static uint64_t rev64(uint64_t x)
{
	x = ((x >> 1) & 0x5555555555555555u) | ((x & 0x5555555555555555u) << 1);
	x = ((x >> 2) & 0x3333333333333333u) | ((x & 0x3333333333333333u) << 2);
	x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fu) | ((x & 0x0f0f0f0f0f0f0f0fu) << 4);
	x = ((x >> 8) & 0x00ff00ff00ff00ffu) | ((x & 0x00ff00ff00ff00ffu) << 8);
	x = ((x >> 16) & 0x0000ffff0000ffffu) | ((x & 0x0000ffff0000ffffu) << 16);
	return (x >> 32) | (x << 32);
}

void ghash_ct_init(struct ghash_ct_key *k, const uint8_t h[16])
{
	k->h[0] = load_be64(h);
	k->h[1] = load_be64(h + 8);
	k->h[2] = k->h[0] ^ k->h[1];
	for (int i = 0; i < 3; i++)
		k->hr[i] = rev64(k->h[i]);
}

/* y = y * H in GF(2^128), both reflected. */
static void gmul(uint64_t y[2], const struct ghash_ct_key *k)
{
	uint64_t a1 = y[0], a0 = y[1], ax = a0 ^ a1;
	uint64_t r1 = rev64(a1), r0 = rev64(a0), rx = r0 ^ r1;
	/* Karatsuba: a0*h0 (p0), a1*h1 (p1), (a0^a1)*(h0^h1) (px) */
	uint64_t p0l = bmul64(a0, k->h[1]), p1l = bmul64(a1, k->h[0]);
	uint64_t pxl = bmul64(ax, k->h[2]);
	uint64_t p0h = rev64(bmul64(r0, k->hr[1])) >> 1;
	uint64_t p1h = rev64(bmul64(r1, k->hr[0])) >> 1;
	uint64_t pxh = rev64(bmul64(rx, k->hr[2])) >> 1;
	uint64_t z0 = p0l, z1 = p0h ^ pxl ^ p0l ^ p1l, z2 = p1l ^ pxh ^ p0h ^ p1h, z3 = p1h;
	uint64_t v1;

	/* 255-bit reflected product -> 256 bits */
	z3 = (z3 << 1) | (z2 >> 63);
	z2 = (z2 << 1) | (z1 >> 63);
	z1 = (z1 << 1) | (z0 >> 63);
	z0 <<= 1;
	/*
	 * Fold V = (z1:z0), degrees 128..255: first the bits that
	 * V * (x + x^2 + x^7) would push past degree 127 (V << 127, << 126,
	 * << 121 as 128-bit shifts: only z0's low bits reach the top word),
	 * then V ^ V>>1 ^ V>>2 ^ V>>7 onto (z3:z2).
	 */
	v1 = z1 ^ (z0 << 63) ^ (z0 << 62) ^ (z0 << 57);
	y[0] = z3 ^ v1 ^ (v1 >> 1) ^ (v1 >> 2) ^ (v1 >> 7);
	y[1] = z2 ^ z0 ^ (z0 >> 1) ^ (v1 << 63) ^ (z0 >> 2) ^ (v1 << 62) ^ (z0 >> 7) ^ (v1 << 57);
}

void ghash_ct_update(uint64_t y[2], const struct ghash_ct_key *k, const uint8_t *data,
			size_t len)
{
	for (; len >= 16; data += 16, len -= 16) {
		y[0] ^= load_be64(data);
		y[1] ^= load_be64(data + 8);
		gmul(y, k);
	}
	if (len > 0) {
		uint8_t last[16] = { 0 };
		memcpy(last, data, len);
		y[0] ^= load_be64(last);
		y[1] ^= load_be64(last + 8);
		gmul(y, k);
		wipe(last, sizeof(last));
	}
}

void ghash_ct_store(uint8_t out[16], const uint64_t y[2])
{
	store_be64(out, y[0]);
	store_be64(out + 8, y[1]);
}
