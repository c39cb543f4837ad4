/*
 * ChaCha20, portable C (RFC 8439 sections 2.1-2.4).
 *
 * Implementation notes:
 * - A block copies the 16-word state, runs 10 double rounds (a column
 *   round then a diagonal round of quarter rounds, RFC 8439 2.3) and adds
 *   the input state back in.
 * - Only 32-bit additions, XORs and fixed rotations: no table and no
 *   branch or index on data, so the code is constant time by construction.
 * - Bytes are read and written through load_le32/store_le32, so the code
 *   is alignment- and endian-neutral (compilers emit plain moves on x86).
 * - Keystream and state copies on the stack are wiped before returning.
 */
#include "base/bytes.h"
#include "crypto/chacha20.h"

#include <string.h>

#include "base/wipe.h"

static inline uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* RFC 8439 2.1, on words a, b, c, d of the state x. */
static inline void quarter_round(uint32_t x[16], int a, int b, int c, int d)
{
	x[a] += x[b];
	x[d] = rotl32(x[d] ^ x[a], 16);
	x[c] += x[d];
	x[b] = rotl32(x[b] ^ x[c], 12);
	x[a] += x[b];
	x[d] = rotl32(x[d] ^ x[a], 8);
	x[c] += x[d];
	x[b] = rotl32(x[b] ^ x[c], 7);
}

/* x = the 20-round ChaCha20 output for input state s (before serialising). */
static void core(const uint32_t s[16], uint32_t x[16])
{
	memcpy(x, s, 16 * sizeof(uint32_t));
	for (int i = 0; i < 10; i++) {
		quarter_round(x, 0, 4, 8, 12);
		quarter_round(x, 1, 5, 9, 13);
		quarter_round(x, 2, 6, 10, 14);
		quarter_round(x, 3, 7, 11, 15);
		quarter_round(x, 0, 5, 10, 15);
		quarter_round(x, 1, 6, 11, 12);
		quarter_round(x, 2, 7, 8, 13);
		quarter_round(x, 3, 4, 9, 14);
	}
	for (int i = 0; i < 16; i++)
		x[i] += s[i];
}

void chacha20_init(uint32_t st[16], const uint8_t key[32], const uint8_t nonce[12],
		      uint32_t counter)
{
	/* "expand 32-byte k" as four little-endian words (RFC 8439 2.3) */
	st[0] = 0x61707865;
	st[1] = 0x3320646e;
	st[2] = 0x79622d32;
	st[3] = 0x6b206574;
	for (int i = 0; i < 8; i++)
		st[4 + i] = load_le32(key + 4 * i);
	st[12] = counter;
	for (int i = 0; i < 3; i++)
		st[13 + i] = load_le32(nonce + 4 * i);
}

void chacha20_block(const uint32_t st[16], uint8_t out[64])
{
	uint32_t x[16];

	core(st, x);
	for (int i = 0; i < 16; i++)
		store_le32(out + 4 * i, x[i]);
	wipe(x, sizeof(x));
}

void chacha20_xor_portable(const uint32_t st[16], const uint8_t *in, size_t len,
			      uint8_t *out, uint32_t mask)
{
	uint32_t s[16], x[16];
	uint8_t ks[64];

	memcpy(s, st, sizeof(s));
	for (; len >= 64; len -= 64, in += 64, out += 64) {
		core(s, x);
		/* word i is read before it is written: in == out is fine */
		for (int i = 0; i < 16; i++)
			store_le32(out + 4 * i, (load_le32(in + 4 * i) ^ x[i]) & mask);
		s[12]++;
	}
	if (len > 0) {
		chacha20_block(s, ks);
		for (size_t i = 0; i < len; i++)
			out[i] = (uint8_t)((in[i] ^ ks[i]) & mask);
	}
	wipe(s, sizeof(s));
	wipe(x, sizeof(x));
	wipe(ks, sizeof(ks));
}
