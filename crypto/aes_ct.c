/*
 * Portable constant-time AES encryption, bitsliced, four blocks at a time.
 *
 * Implementation notes
 * - State: eight 64-bit words q[0..7]; q[b] holds bit b of all 64 bytes of
 *   four blocks. The byte in row r, column c of block k (byte 4c + r of
 *   that block) sits at bit position 16r + 4c + k. So each row is a 16-bit
 *   field of every word, which makes both row operations cheap:
 *   ShiftRows rotates each 16-bit field by 4r bits, and MixColumns reaches
 *   row r + i by rotating the whole word by 16i bits.
 * - Conversion to that layout gathers bytes at fixed (public) offsets into
 *   eight words, then transposes the 8x8 bit matrix of each byte lane with
 *   three rounds of swap-moves; the transpose is its own inverse.
 * - The S-box is the depth-16, 113-gate circuit of Boyar and Peralta ("A
 *   depth-16 circuit for the AES S-box", 2011), evaluated on whole words:
 *   64 S-boxes per pass, no table, no branch.
 * - The key schedule (FIPS-197 section 5.2) runs on bytes, with SubWord
 *   done by the same circuit; each round key is then bitsliced, repeated
 *   in the four block slots.
 * - Only encryption: GCM never needs the inverse cipher.
 * What may leak: nothing beyond the lengths; every branch and index here
 * depends only on the key length and loop counters.
 */
#include "base/bytes.h"
#include "crypto/aes_ct.h"

#include <string.h>

#include "base/wipe.h"

/* Swap the bits of a selected by (m << n) with the bits of b selected by m. */
static inline void swapmove(uint64_t *a, uint64_t *b, uint64_t m, unsigned n)
{
	uint64_t t = ((*a >> n) ^ *b) & m;

	*b ^= t;
	*a ^= t << n;
}

/*
 * Transpose, in every byte lane, the 8x8 bit matrix whose row i is that
 * lane of q[i]: afterwards bit i of lane l of q[b] is what bit b of lane l
 * of q[i] was. Block-recursive: 1x1, then 2x2, then 4x4 sub-blocks swap.
 */
static void transpose8(uint64_t q[8])
{
	for (int i = 0; i < 8; i += 2)
		swapmove(&q[i], &q[i + 1], 0x5555555555555555u, 1);
	for (int i = 0; i < 8; i += 4) {
		swapmove(&q[i], &q[i + 2], 0x3333333333333333u, 2);
		swapmove(&q[i + 1], &q[i + 3], 0x3333333333333333u, 2);
	}
	for (int i = 0; i < 4; i++)
		swapmove(&q[i], &q[i + 4], 0x0f0f0f0f0f0f0f0fu, 4);
}

/*
 * Offset in the 64-byte input of the byte that lane l of word i takes, so
 * that after transpose8 it lands on bit 8l + i = 16r + 4c + k.
 */
static inline unsigned lane_offset(unsigned i, unsigned l)
{
	unsigned k = i & 3, c = 2 * (l & 1) + (i >> 2), r = l >> 1;

	return 16 * k + 4 * c + r;
}

static void load4(uint64_t q[8], const uint8_t in[64])
{
	for (unsigned i = 0; i < 8; i++) {
		uint64_t w = 0;
		for (unsigned l = 0; l < 8; l++)
			w |= (uint64_t)in[lane_offset(i, l)] << (8 * l);
		q[i] = w;
	}
	transpose8(q);
}

/* Inverse of load4; q is clobbered. */
static void store4(uint8_t out[64], uint64_t q[8])
{
	transpose8(q);
	for (unsigned i = 0; i < 8; i++)
		for (unsigned l = 0; l < 8; l++)
			out[lane_offset(i, l)] = (uint8_t)(q[i] >> (8 * l));
}

/*
 * The AES S-box on 64 bytes at once (Boyar-Peralta). The circuit numbers
 * bits from the most significant: U0 is bit 7 (q[7]) and S0 goes to q[7].
 * "x" gates are AND, the rest XOR; the four XNOR outputs use ~.
 */
static void sbox(uint64_t q[8])
{
	uint64_t u0 = q[7], u1 = q[6], u2 = q[5], u3 = q[4];
	uint64_t u4 = q[3], u5 = q[2], u6 = q[1], u7 = q[0];
	uint64_t t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14;
	uint64_t t15, t16, t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27;
	uint64_t m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14;
	uint64_t m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26;
	uint64_t m27, m28, m29, m30, m31, m32, m33, m34, m35, m36, m37, m38;
	uint64_t m39, m40, m41, m42, m43, m44, m45, m46, m47, m48, m49, m50;
	uint64_t m51, m52, m53, m54, m55, m56, m57, m58, m59, m60, m61, m62, m63;
	uint64_t l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14;
	uint64_t l15, l16, l17, l18, l19, l20, l21, l22, l23, l24, l25, l26;
	uint64_t l27, l28, l29;

	/* top linear layer */
	t1 = u0 ^ u3;
	t2 = u0 ^ u5;
	t3 = u0 ^ u6;
	t4 = u3 ^ u5;
	t5 = u4 ^ u6;
	t6 = t1 ^ t5;
	t7 = u1 ^ u2;
	t8 = u7 ^ t6;
	t9 = u7 ^ t7;
	t10 = t6 ^ t7;
	t11 = u1 ^ u5;
	t12 = u2 ^ u5;
	t13 = t3 ^ t4;
	t14 = t6 ^ t11;
	t15 = t5 ^ t11;
	t16 = t5 ^ t12;
	t17 = t9 ^ t16;
	t18 = u3 ^ u7;
	t19 = t7 ^ t18;
	t20 = t1 ^ t19;
	t21 = u6 ^ u7;
	t22 = t7 ^ t21;
	t23 = t2 ^ t22;
	t24 = t2 ^ t10;
	t25 = t20 ^ t17;
	t26 = t3 ^ t16;
	t27 = t1 ^ t12;

	/* middle, non-linear layer (inversion in GF(2^4)^2) */
	m1 = t13 & t6;
	m2 = t23 & t8;
	m3 = t14 ^ m1;
	m4 = t19 & u7;
	m5 = m4 ^ m1;
	m6 = t3 & t16;
	m7 = t22 & t9;
	m8 = t26 ^ m6;
	m9 = t20 & t17;
	m10 = m9 ^ m6;
	m11 = t1 & t15;
	m12 = t4 & t27;
	m13 = m12 ^ m11;
	m14 = t2 & t10;
	m15 = m14 ^ m11;
	m16 = m3 ^ m2;
	m17 = m5 ^ t24;
	m18 = m8 ^ m7;
	m19 = m10 ^ m15;
	m20 = m16 ^ m13;
	m21 = m17 ^ m15;
	m22 = m18 ^ m13;
	m23 = m19 ^ t25;
	m24 = m22 ^ m23;
	m25 = m22 & m20;
	m26 = m21 ^ m25;
	m27 = m20 ^ m21;
	m28 = m23 ^ m25;
	m29 = m28 & m27;
	m30 = m26 & m24;
	m31 = m20 & m23;
	m32 = m27 & m31;
	m33 = m27 ^ m25;
	m34 = m21 & m22;
	m35 = m24 & m34;
	m36 = m24 ^ m25;
	m37 = m21 ^ m29;
	m38 = m32 ^ m33;
	m39 = m23 ^ m30;
	m40 = m35 ^ m36;
	m41 = m38 ^ m40;
	m42 = m37 ^ m39;
	m43 = m37 ^ m38;
	m44 = m39 ^ m40;
	m45 = m42 ^ m41;
	m46 = m44 & t6;
	m47 = m40 & t8;
	m48 = m39 & u7;
	m49 = m43 & t16;
	m50 = m38 & t9;
	m51 = m37 & t17;
	m52 = m42 & t15;
	m53 = m45 & t27;
	m54 = m41 & t10;
	m55 = m44 & t13;
	m56 = m40 & t23;
	m57 = m39 & t19;
	m58 = m43 & t3;
	m59 = m38 & t22;
	m60 = m37 & t20;
	m61 = m42 & t1;
	m62 = m45 & t4;
	m63 = m41 & t2;

	/* bottom linear layer, with the affine constant 0x63 as XNORs */
	l0 = m61 ^ m62;
	l1 = m50 ^ m56;
	l2 = m46 ^ m48;
	l3 = m47 ^ m55;
	l4 = m54 ^ m58;
	l5 = m49 ^ m61;
	l6 = m62 ^ l5;
	l7 = m46 ^ l3;
	l8 = m51 ^ m59;
	l9 = m52 ^ m53;
	l10 = m53 ^ l4;
	l11 = m60 ^ l2;
	l12 = m48 ^ m51;
	l13 = m50 ^ l0;
	l14 = m52 ^ m61;
	l15 = m55 ^ l1;
	l16 = m56 ^ l0;
	l17 = m57 ^ l1;
	l18 = m58 ^ l8;
	l19 = m63 ^ l4;
	l20 = l0 ^ l1;
	l21 = l1 ^ l7;
	l22 = l3 ^ l12;
	l23 = l18 ^ l2;
	l24 = l15 ^ l9;
	l25 = l6 ^ l10;
	l26 = l7 ^ l9;
	l27 = l8 ^ l10;
	l28 = l11 ^ l14;
	l29 = l11 ^ l17;
	q[7] = l6 ^ l24;
	q[6] = ~(l16 ^ l26);
	q[5] = ~(l19 ^ l28);
	q[4] = l6 ^ l21;
	q[3] = l20 ^ l22;
	q[2] = l25 ^ l29;
	q[1] = ~(l13 ^ l27);
	q[0] = ~(l6 ^ l23);
}

/* Row r (bits 16r..16r+15) rotates right by 4r bits: column c takes c + r. */
static inline uint64_t shift_rows_word(uint64_t x)
{
	return (x & 0x000000000000ffffu)
	     | ((x >> 4) & 0x000000000fff0000u) | ((x << 12) & 0x00000000f0000000u)
	     | ((x >> 8) & 0x000000ff00000000u) | ((x << 8) & 0x0000ff0000000000u)
	     | ((x >> 12) & 0x000f000000000000u) | ((x << 4) & 0xfff0000000000000u);
}

static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

/*
 * out[r] = 2 a[r] + 3 a[r+1] + a[r+2] + a[r+3]
 *        = xtime(a[r] + a[r+1]) + a[r+1] + (a[r+2] + a[r+3]).
 * With t = a + a[r+1] (q ^ rotr16 q), the last two terms are rotr32(t).
 * xtime in bit planes: shift up one plane, and fold bit 7 back into
 * bits 0, 1, 3, 4 (the polynomial 0x11b).
 */
static void mix_columns(uint64_t q[8])
{
	uint64_t t[8], x[8];

	for (int b = 0; b < 8; b++)
		t[b] = q[b] ^ rotr64(q[b], 16);
	x[0] = t[7];
	x[1] = t[0] ^ t[7];
	x[2] = t[1];
	x[3] = t[2] ^ t[7];
	x[4] = t[3] ^ t[7];
	x[5] = t[4];
	x[6] = t[5];
	x[7] = t[6];
	for (int b = 0; b < 8; b++)
		q[b] = x[b] ^ rotr64(q[b], 16) ^ rotr64(t[b], 32);
}

static inline void add_round_key(uint64_t q[8], const uint64_t *rk)
{
	for (int b = 0; b < 8; b++)
		q[b] ^= rk[b];
}

void aes_ct_encrypt4(const struct aes_ct_key *k, const uint8_t in[64], uint8_t out[64])
{
	uint64_t q[8];

	load4(q, in);
	add_round_key(q, k->rk);
	for (unsigned r = 1; r < k->rounds; r++) {
		sbox(q);
		for (int b = 0; b < 8; b++)
			q[b] = shift_rows_word(q[b]);
		mix_columns(q);
		add_round_key(q, k->rk + 8 * r);
	}
	sbox(q);
	for (int b = 0; b < 8; b++)
		q[b] = shift_rows_word(q[b]);
	add_round_key(q, k->rk + 8 * k->rounds);
	store4(out, q);
	wipe(q, sizeof(q));
}

uint32_t aes_ct_subword(uint32_t w)
{
	uint64_t q[8];
	uint32_t r = 0;

	/* bit b of byte j goes to bit j of q[b]; the other 60 slots are 0 */
	for (unsigned b = 0; b < 8; b++) {
		q[b] = 0;
		for (unsigned j = 0; j < 4; j++)
			q[b] |= (uint64_t)((w >> (8 * j + b)) & 1) << j;
	}
	sbox(q);
	for (unsigned b = 0; b < 8; b++)
		for (unsigned j = 0; j < 4; j++)
			r |= (uint32_t)((q[b] >> j) & 1) << (8 * j + b);
	wipe(q, sizeof(q));
	return r;
}

/*
 * FIPS-197 5.2 KeyExpansion. Words are held little-endian (byte 0 in the
 * low bits), so RotWord is a right rotation by 8 and Rcon goes in the low
 * byte.
 */
unsigned aes_ct_expand(uint8_t rk[16 * (HS_AES_MAX_ROUNDS + 1)], const uint8_t *key,
			  size_t key_len)
{
	/* Rcon[i] = x^(i-1) in GF(2^8), FIPS-197 5.2 */
	static const uint8_t rcon[10] = {
		0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36,
	};
	unsigned nk = (unsigned)(key_len / 4), rounds = nk + 6;
	uint32_t w[4 * (HS_AES_MAX_ROUNDS + 1)];

	if (key_len != 16 && key_len != 24 && key_len != 32)
		return 0;
	for (unsigned i = 0; i < nk; i++)
		w[i] = load_le32(key + 4 * i);
	for (unsigned i = nk; i < 4 * (rounds + 1); i++) {
		uint32_t t = w[i - 1];
		if (i % nk == 0)
			t = aes_ct_subword((t >> 8) | (t << 24)) ^ rcon[i / nk - 1];
		else if (nk > 6 && i % nk == 4)
			t = aes_ct_subword(t);
		w[i] = w[i - nk] ^ t;
	}
	for (unsigned i = 0; i < 4 * (rounds + 1); i++)
		store_le32(rk + 4 * i, w[i]);
	wipe(w, sizeof(w));
	return rounds;
}

int aes_ct_init(struct aes_ct_key *k, const uint8_t *key, size_t key_len)
{
	uint8_t rk[16 * (HS_AES_MAX_ROUNDS + 1)], rep[64];
	unsigned rounds = aes_ct_expand(rk, key, key_len);

	if (rounds == 0)
		return HS_ERR_ARG;
	memset(k, 0, sizeof(*k));
	k->rounds = rounds;
	for (unsigned r = 0; r <= rounds; r++) {
		for (int s = 0; s < 4; s++)
			memcpy(rep + 16 * s, rk + 16 * r, 16);
		load4(k->rk + 8 * r, rep);
	}
	wipe(rk, sizeof(rk));
	wipe(rep, sizeof(rep));
	return 0;
}
