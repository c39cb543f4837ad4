/*
 * Arithmetic in GF(2^255 - 19), shared by X25519 and Ed25519.
 *
 * Implementation notes:
 * - An element is five unsigned 64-bit limbs of nominal 51 bits:
 *   value = v[0] + v[1] 2^51 + v[2] 2^102 + v[3] 2^153 + v[4] 2^204.
 *   Values are kept only modulo p; fe_tobytes() gives the canonical form.
 * - Limb bounds (the contract between functions, checked by hand):
 *     "tight"  every limb < 2^52. Produced by fe_mul, fe_sq, fe_mul_small,
 *              fe_sub, fe_carry, fe_frombytes and every fe_* result.
 *     fe_add   sums limb by limb without carrying: tight + tight < 2^53,
 *              and sums of two such sums stay < 2^54.
 *     fe_mul/fe_sq accept limbs < 2^54: each 128-bit column sum is at most
 *              77 * 2^108 < 2^115 (so column >> 51 fits 64 bits), and the
 *              carry out of the top column is < 2^60 (19 times it fits too).
 *     fe_sub   adds 8p first, so its subtrahend may have limbs < 2^54 - 152;
 *              the result is carried, hence tight.
 * - Products use unsigned __int128 (one MUL per limb pair, constant time on
 *   x86-64 and arm64). 2^255 = 19 mod p folds the high columns back down.
 * - Nothing here branches on or indexes by an element's value; the swaps and
 *   moves are masked (see crypto/ct.h).
 *
 * The small hot kernels are static inline here so that the ladder and the
 * point formulas inline them; the rest lives in fe25519.c.
 */
#ifndef HS_CRYPTO_FE25519_H
#define HS_CRYPTO_FE25519_H

#include <stdint.h>

#include "crypto/ct.h"

struct fe25519 {
	uint64_t v[5];
};

typedef unsigned __int128 fe_u128;

#define FE_MASK51 ((UINT64_C(1) << 51) - 1)

static inline void fe_0(struct fe25519 *h)
{
	for (int i = 0; i < 5; i++)
		h->v[i] = 0;
}

static inline void fe_1(struct fe25519 *h)
{
	fe_0(h);
	h->v[0] = 1;
}

/* h = f + g, limbs added without carry (see bounds above). */
static inline void fe_add(struct fe25519 *h, const struct fe25519 *f,
			  const struct fe25519 *g)
{
	for (int i = 0; i < 5; i++)
		h->v[i] = f->v[i] + g->v[i];
}

/* One carry pass: any limbs < 2^63 in, tight out (limb 0 < 2^51 + 19 * 2^12). */
static inline void fe_carry(struct fe25519 *h)
{
	uint64_t c;

	c = h->v[0] >> 51; h->v[0] &= FE_MASK51; h->v[1] += c;
	c = h->v[1] >> 51; h->v[1] &= FE_MASK51; h->v[2] += c;
	c = h->v[2] >> 51; h->v[2] &= FE_MASK51; h->v[3] += c;
	c = h->v[3] >> 51; h->v[3] &= FE_MASK51; h->v[4] += c;
	c = h->v[4] >> 51; h->v[4] &= FE_MASK51; h->v[0] += 19 * c;
}

/* h = f - g, computed as f + 8p - g so no limb goes negative, then carried. */
static inline void fe_sub(struct fe25519 *h, const struct fe25519 *f,
			  const struct fe25519 *g)
{
	/* 8p in limbs: 8 (2^51 - 19), then 8 (2^51 - 1) four times */
	h->v[0] = f->v[0] + (UINT64_C(0x3fffffffffff68)) - g->v[0];
	for (int i = 1; i < 5; i++)
		h->v[i] = f->v[i] + (UINT64_C(0x3ffffffffffff8)) - g->v[i];
	fe_carry(h);
}

/* h = -f */
static inline void fe_neg(struct fe25519 *h, const struct fe25519 *f)
{
	struct fe25519 z;

	fe_0(&z);
	fe_sub(h, &z, f);
}

/*
 * Carry five 128-bit column sums (each < 2^115) into a tight element. The
 * top carry is < 2^60, so 19 times it still fits 64 bits.
 */
static inline void fe_carry_wide(struct fe25519 *h, fe_u128 r0, fe_u128 r1,
				 fe_u128 r2, fe_u128 r3, fe_u128 r4)
{
	uint64_t c;

	r1 += (uint64_t)(r0 >> 51);
	r2 += (uint64_t)(r1 >> 51);
	r3 += (uint64_t)(r2 >> 51);
	r4 += (uint64_t)(r3 >> 51);
	c = (uint64_t)(r4 >> 51);
	h->v[0] = ((uint64_t)r0 & FE_MASK51) + 19 * c;
	h->v[1] = ((uint64_t)r1 & FE_MASK51) + (h->v[0] >> 51);
	h->v[0] &= FE_MASK51;
	h->v[2] = (uint64_t)r2 & FE_MASK51;
	h->v[3] = (uint64_t)r3 & FE_MASK51;
	h->v[4] = (uint64_t)r4 & FE_MASK51;
}

/* 64 x 64 -> 128-bit product (undefined again at the end of this header) */
#define FE_M(a, b) ((fe_u128)(a) * (b))

/* h = f g. Limbs of f and g < 2^54; h may alias f or g. */
static inline void fe_mul(struct fe25519 *h, const struct fe25519 *f,
			  const struct fe25519 *g)
{
	uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	uint64_t g0 = g->v[0], g1 = g->v[1], g2 = g->v[2], g3 = g->v[3], g4 = g->v[4];
	/* column i + j >= 5 wraps to column i + j - 5 with weight 19 */
	uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;

	fe_carry_wide(h,
		      FE_M(f0, g0) + FE_M(f1, g4_19) + FE_M(f2, g3_19) + FE_M(f3, g2_19) +
			      FE_M(f4, g1_19),
		      FE_M(f0, g1) + FE_M(f1, g0) + FE_M(f2, g4_19) + FE_M(f3, g3_19) +
			      FE_M(f4, g2_19),
		      FE_M(f0, g2) + FE_M(f1, g1) + FE_M(f2, g0) + FE_M(f3, g4_19) +
			      FE_M(f4, g3_19),
		      FE_M(f0, g3) + FE_M(f1, g2) + FE_M(f2, g1) + FE_M(f3, g0) + FE_M(f4, g4_19),
		      FE_M(f0, g4) + FE_M(f1, g3) + FE_M(f2, g2) + FE_M(f3, g1) + FE_M(f4, g0));
}

/* h = f^2, the symmetric products counted once and doubled. Limbs < 2^54. */
static inline void fe_sq(struct fe25519 *h, const struct fe25519 *f)
{
	uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	uint64_t f0_2 = 2 * f0, f1_2 = 2 * f1, f2_2 = 2 * f2, f3_2 = 2 * f3;
	uint64_t f3_19 = 19 * f3, f4_19 = 19 * f4;

	fe_carry_wide(h, FE_M(f0, f0) + FE_M(f1_2, f4_19) + FE_M(f2_2, f3_19),
		      FE_M(f0_2, f1) + FE_M(f2_2, f4_19) + FE_M(f3, f3_19),
		      FE_M(f0_2, f2) + FE_M(f1, f1) + FE_M(f3_2, f4_19),
		      FE_M(f0_2, f3) + FE_M(f1_2, f2) + FE_M(f4, f4_19),
		      FE_M(f0_2, f4) + FE_M(f1_2, f3) + FE_M(f2, f2));
}

/* h = f^(2^n), n >= 1. */
static inline void fe_sq_n(struct fe25519 *h, const struct fe25519 *f, int n)
{
	fe_sq(h, f);
	for (int i = 1; i < n; i++)
		fe_sq(h, h);
}

/* h = f n for a small constant n < 2^32. Limbs of f < 2^54. */
static inline void fe_mul_small(struct fe25519 *h, const struct fe25519 *f, uint32_t n)
{
	fe_carry_wide(h, FE_M(f->v[0], n), FE_M(f->v[1], n), FE_M(f->v[2], n), FE_M(f->v[3], n),
		      FE_M(f->v[4], n));
}

#undef FE_M

static inline void fe_copy(struct fe25519 *h, const struct fe25519 *f)
{
	*h = *f;
}

/*
 * Swap f and g if mask is all-ones, leave them if it is zero. Both are read
 * and written either way: the xor of the pair is masked, never branched on.
 */
static inline void fe_cswap(struct fe25519 *f, struct fe25519 *g, uint64_t mask)
{
	mask = ct_barrier_u64(mask);
	for (int i = 0; i < 5; i++) {
		uint64_t t = mask & (f->v[i] ^ g->v[i]);
		f->v[i] ^= t;
		g->v[i] ^= t;
	}
}

/* h = mask ? f : h, by masking (see fe_cswap). */
static inline void fe_cmov(struct fe25519 *h, const struct fe25519 *f, uint64_t mask)
{
	mask = ct_barrier_u64(mask);
	for (int i = 0; i < 5; i++)
		h->v[i] = ct_select_u64(mask, f->v[i], h->v[i]);
}

/* Out-of-line helpers (fe25519.c). */

/* Load 32 little-endian bytes, ignoring bit 255; values >= p are accepted
 * as they stand (they are reduced by the arithmetic). */
void fe_frombytes(struct fe25519 *h, const uint8_t s[32]);
/* Store the canonical (fully reduced) little-endian encoding. */
void fe_tobytes(uint8_t s[32], const struct fe25519 *h);
/* 1 if bytes s (bit 255 ignored) encode a value >= p. Variable time: public input only. */
int fe_bytes_noncanonical(const uint8_t s[32]);
/* All-ones if f = 0 mod p, else 0. */
uint64_t fe_iszero_mask(const struct fe25519 *f);
/* Bit 0 of the canonical encoding (the "sign" of RFC 8032). */
uint64_t fe_isodd(const struct fe25519 *f);
/* h = 1/f (= f^(p-2)); 0 maps to 0. Constant time (safegcd256.c). */
void fe_invert(struct fe25519 *h, const struct fe25519 *f);
/* h = f^((p-5)/8) = f^(2^252-3). */
void fe_pow22523(struct fe25519 *h, const struct fe25519 *f);
/*
 * x = sqrt(u/v) if it exists (RFC 8032 5.1.3 step 2-3); returns all-ones
 * then, else 0 (and x is garbage). The root returned has no chosen sign.
 * Constant time.
 */
uint64_t fe_sqrt_ratio(struct fe25519 *x, const struct fe25519 *u,
			  const struct fe25519 *v);

#endif
