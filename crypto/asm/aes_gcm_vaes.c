/*
 * AES-GCM with VAES and VPCLMULQDQ on 512-bit vectors (AVX-512 F/BW/VL):
 * each register holds four blocks.
 *
 * Implementation notes
 * - Per-function target attributes, as in aes_gcm_aesni.c; the key
 *   schedule is AESKEYGENASSIST's (aes_ni_key.h); GHASH uses the
 *   reflected representation and the pre-divided key powers of
 *   ghash_clmul.h.
 * - CTR in tails: one register holds four counter blocks, each with its
 *   32-bit counter word in native order (one vpaddd steps all four,
 *   wrapping mod 2^32 like inc32; one vpshufb per 128-bit lane restores
 *   the blocks).
 * - Bulk: batches of 32 blocks (eight registers, 512 bytes), the rounds
 *   unrolled per key size. Counters cost one XOR per register (ctr_low:
 *   the low five counter bits of a batch are fixed, so the whitened
 *   counter blocks are a per-batch base XOR a constant). GHASH is summed
 *   unreduced over two batches with H^64..H^1 and reduced once, lane by
 *   lane, so the serial chain through Y (multiply, sum, reduce) comes once
 *   per KiB; each register's four VPCLMULQDQ products (schoolbook) follow
 *   one of the first eight AES rounds of the next batch (sealing) or of
 *   the same batch (opening, which reads the ciphertext before it writes
 *   the plaintext). On AVX-512 cores VAESENC runs on one port and the
 *   shuffles and products on another, so the batch is built to need no
 *   more of the second than of the first: about 80 cycles per 512 bytes
 *   for AES-128, measured 83-87 (crypto/README.md).
 * - Every input register of a batch is read (and XORed with the last round
 *   key, so VAESENCLAST writes the output) before the batch stores any
 *   output: a load after a store whose address matches it modulo 4 KiB
 *   may wait for the store ("4K aliasing"); reading each register just
 *   before its store made opening 4-5% slower with hs-bench's buffers
 *   (16 bytes apart modulo 4 KiB).
 * - Tails: anything shorter than a batch goes through byte-masked loads
 *   and stores (AVX-512 BW), zero-filled, so a partial last block is
 *   padded for GHASH for free and nothing outside the buffers is touched;
 *   only the registers the tail needs are encrypted. The same masked path
 *   hashes the AD.
 * - Sealing hashes the lengths block with its last batch or tail, opening
 *   with its tail (every power one higher, lens times H added before the
 *   one reduction): no multiply after the last reduction, 1 KiB sealing
 *   298 -> 248 core cycles alone. Opening's last batches keep the
 *   multiply after them: folded into the last pair (with H^65) it was
 *   faster alone (240 -> 230) but 2-8% slower back to back (hs-bench's
 *   way: the extra products fall where both vector ports are full, the
 *   multiply after them where they are not).
 * - open compares the tags in a register (XOR, PTEST: no branch, no
 *   copy to memory); the verdict is the return value, hence public, and
 *   only a failed tag clears the output (a branch on the verdict). Only
 *   lengths and the return value are observable.
 * Valgrind cannot run AVX-512, so this file is checked by the bit-for-bit
 * and OpenSSL tests but not by ctgrind; it uses no table and no branch on
 * data, like the others.
 */
#include "crypto/asm/aes_gcm_asm.h"

#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#include "crypto/aes_ct.h"
#include "crypto/asm/aes_ni_key.h"
#include "crypto/asm/ghash_clmul.h"

#define TARGET                                                                      \
	__attribute__((target("aes,pclmul,ssse3,sse4.1,avx2,avx512f,avx512bw,avx512vl," \
			      "vaes,vpclmulqdq")))
#define INLINE static inline __attribute__((always_inline)) TARGET

/* Registers per batch (four blocks each) and bytes per batch. */
#define NV 8
#define BATCH (64 * NV)

typedef struct aes_gcm_vaes512_ctx ctx_t;

_Static_assert(sizeof(((ctx_t *)0)->rk) >= 16 * (HS_AES_MAX_ROUNDS + 1), "round keys");
/* the bulk loop spreads the hash over rounds 1..NV, and AES-128 has 10; two batches share a reduction */
_Static_assert(HS_VAES_HPOWERS == 2 * 4 * NV && NV < 10, "batch size");

INLINE __m128i load128(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

INLINE void store128(uint8_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }
INLINE __m512i load512(const uint8_t *p) { return _mm512_loadu_si512((const void *)p); }
INLINE void store512(uint8_t *p, __m512i v) { _mm512_storeu_si512((void *)p, v); }
INLINE __m512i xor512(__m512i a, __m512i b) { return _mm512_xor_si512(a, b); }
/* a ^ b ^ c in one instruction (truth table 0x96) */
INLINE __m512i xor3(__m512i a, __m512i b, __m512i c)
{
	return _mm512_ternarylogic_epi64(a, b, c, 0x96);
}

/* Round key r in all four lanes. */
INLINE __m512i rkey(const ctx_t *c, unsigned r)
{
	const __m128i *rk = (const __m128i *)(const void *)c->rk;

	return _mm512_broadcast_i32x4(_mm_load_si128(rk + r));
}

/* Byte reversal of each 128-bit lane: blocks <-> reflected integers. */
INLINE __m512i bswap4(__m512i v)
{
	const __m128i m = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);

	return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(m));
}

/* Reverse the counter word (last 4 bytes) of each lane. */
INLINE __m512i ctr_swap4(__m512i v)
{
	const __m128i m = _mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);

	return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(m));
}

/* Add n to the counter word of every lane. */
INLINE __m512i ctr_add4(__m512i ctr, int n)
{
	const __m512i inc = _mm512_set_epi32(n, 0, 0, 0, n, 0, 0, 0, n, 0, 0, 0, n, 0, 0, 0);

	return _mm512_add_epi32(ctr, inc);
}

/* The first n bytes (n public; all 64 if n >= 64). */
INLINE __mmask64 first_bytes(size_t n) { return n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1; }

INLINE __m128i aes_block(const ctx_t *c, __m128i x)
{
	const __m128i *rk = (const __m128i *)(const void *)c->rk;

	x = _mm_xor_si128(x, _mm_load_si128(rk));
	for (unsigned r = 1; r < c->rounds; r++)
		x = _mm_aesenc_si128(x, _mm_load_si128(rk + r));
	return _mm_aesenclast_si128(x, _mm_load_si128(rk + c->rounds));
}

/* --- GHASH over registers of four blocks ---------------------------------- */

/*
 * Unreduced sums of products, lane by lane: the value is
 * hi 2^128 + mi 2^64 + lo (schoolbook: mi gathers x.lo h.hi + x.hi h.lo).
 */
struct gacc3 {
	__m512i lo, mi, hi;
};

/* The four products of a register of hashed blocks x by its key powers. */
struct prod4 {
	__m512i lo, hi, m0, m1;
};

INLINE struct prod4 prod4(__m512i x, const uint8_t *hk)
{
	__m512i h = load512(hk);
	struct prod4 p = {
		_mm512_clmulepi64_epi128(x, h, 0x00),
		_mm512_clmulepi64_epi128(x, h, 0x11),
		_mm512_clmulepi64_epi128(x, h, 0x01),
		_mm512_clmulepi64_epi128(x, h, 0x10),
	};
	return p;
}

/*
 * Two registers' products added into a (first: a is empty). Three-way
 * XORs (one VPTERNLOGQ each) take two products at a time.
 */
INLINE void gacc3_add2(struct gacc3 *a, const struct prod4 *p, const struct prod4 *q, int first)
{
	__m512i m = xor3(p->m0, p->m1, q->m0);

	if (first) {
		a->lo = xor512(p->lo, q->lo);
		a->hi = xor512(p->hi, q->hi);
		a->mi = xor512(m, q->m1);
	} else {
		a->lo = xor3(a->lo, p->lo, q->lo);
		a->hi = xor3(a->hi, p->hi, q->hi);
		a->mi = xor3(a->mi, m, q->m1);
	}
}

/* XOR of the four 128-bit lanes. */
INLINE __m128i fold4(__m512i v)
{
	__m256i t = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));

	return _mm_xor_si128(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

/*
 * The reduced sum of a (lane by lane, then the four lanes added). The
 * value is hi 2^128 + mi 2^64 + lo; each fold moves the low 64 bits of a
 * part 64 bits up (ghash_reduce's fold): lo into mi, then mi into hi, so
 * mi is never shifted apart.
 */
INLINE __m128i gacc3_reduce(const struct gacc3 *a)
{
	const __m512i poly =
		_mm512_broadcast_i32x4(_mm_set_epi64x(0, (long long)0xc200000000000000u));
	__m512i mi = xor3(a->mi, _mm512_shuffle_epi32(a->lo, (_MM_PERM_ENUM)0x4e),
			  _mm512_clmulepi64_epi128(a->lo, poly, 0x00));
	__m512i hi = xor3(a->hi, _mm512_shuffle_epi32(mi, (_MM_PERM_ENUM)0x4e),
			  _mm512_clmulepi64_epi128(mi, poly, 0x00));

	return fold4(hi);
}

/*
 * Adds the lengths block (reflected: [len(A)]_64 || [len(C)]_64 in bits)
 * times H into a: the last product of GHASH, folded into the last
 * batch's sum so that no multiply follows its reduction.
 */
INLINE void gacc3_add_lens(struct gacc3 *a, const ctx_t *c, __m128i lens)
{
	const __m512i zero = _mm512_setzero_si512();
	const struct prod4 none = { zero, zero, zero, zero };
	/* H^1, then three zero blocks: only lane 0 has a product */
	struct prod4 p = prod4(_mm512_zextsi128_si512(lens), c->hk[HS_VAES_HPOWERS - 1]);

	gacc3_add2(a, &p, &none, 0);
}

/*
 * GHASH of n <= 4 NV blocks given reflected in x[0..NV-1] (lane j of x[k]
 * is block 4k + j; Y already added into block 0; lanes past n are zero):
 * block j is multiplied by H^(n - j), which is c->hk[HS_VAES_HPOWERS - n + j].
 * With lens (fold), the lengths block follows: block j by H^(n + 1 - j),
 * lens by H.
 */
INLINE __m128i ghash_batch(const ctx_t *c, const __m512i x[NV], unsigned n, const int fold,
			   __m128i lens)
{
	const uint8_t(*hk)[16] = c->hk + HS_VAES_HPOWERS - n - (fold ? 1 : 0);
	const __m512i zero = _mm512_setzero_si512();
	const struct prod4 none = { zero, zero, zero, zero };
	struct gacc3 a = { zero, zero, zero }; /* set by the first products (n > 0) */

	for (unsigned k = 0; k < NV && 4 * k < n; k += 2) {
		struct prod4 p = prod4(x[k], hk[4 * k]);
		struct prod4 q = 4 * (k + 1) < n ? prod4(x[k + 1], hk[4 * (k + 1)]) : none;

		gacc3_add2(&a, &p, &q, k == 0);
	}
	if (fold)
		gacc3_add_lens(&a, c, lens);
	return gacc3_reduce(&a);
}

/* Absorb len bytes, zero-padding a last partial block (masked loads). */
static TARGET __m128i ghash_bytes(const ctx_t *c, __m128i y, const uint8_t *p, size_t len)
{
	while (len > 0) {
		size_t n = len < BATCH ? len : BATCH;
		__m512i x[NV];

		for (unsigned k = 0; k < NV; k++)
			x[k] = 64 * k < n ? bswap4(_mm512_maskz_loadu_epi8(first_bytes(n - 64 * k),
									   p + 64 * k))
					  : _mm512_setzero_si512();
		x[0] = xor512(x[0], _mm512_zextsi128_si512(y));
		y = ghash_batch(c, x, (unsigned)((n + 15) / 16), 0, y); /* lens unused */
		p += n;
		len -= n;
	}
	return y;
}

/*
 * The AD when it is one block or less (a TLS record header: 5 bytes), read
 * a byte at a time. Its bytes were usually written just before by narrow
 * stores (the header's fields); one wide load over several recent stores
 * cannot take them from the store buffer and waits until they reach the
 * cache: measured at 11% of a 1 KiB record. Byte loads each take theirs.
 */
static TARGET __m128i ghash_short(const ctx_t *c, __m128i y, const uint8_t *p, size_t len)
{
	uint64_t w[2] = { 0, 0 };
	__m512i x[NV];

	if (len == 0)
		return y;
	for (size_t i = 0; i < len; i++)
		w[i / 8] |= (uint64_t)p[i] << (8 * (i % 8));
	for (unsigned k = 0; k < NV; k++)
		x[k] = _mm512_setzero_si512();
	x[0] = bswap4(_mm512_zextsi128_si512(_mm_set_epi64x((long long)w[1], (long long)w[0])));
	x[0] = xor512(x[0], _mm512_zextsi128_si512(y));
	return ghash_batch(c, x, 1, 0, y); /* no lengths block: lens unused */
}

/* GHASH of the AD. */
static TARGET __m128i ghash_ad(const ctx_t *c, const uint8_t *ad, size_t ad_len)
{
	return ad_len <= 16 ? ghash_short(c, _mm_setzero_si128(), ad, ad_len)
			    : ghash_bytes(c, _mm_setzero_si128(), ad, ad_len);
}

/* --- CTR ------------------------------------------------------------------ */

/*
 * The first nv <= NV registers of counter blocks from *ctr, whitened with
 * round key 0; *ctr moves past the whole batch. The aes_* helpers only
 * touch s[0..nv-1]: a short tail computes no more than it needs.
 */
INLINE void aes_start(const ctx_t *c, __m512i s[NV], unsigned nv, __m512i *ctr)
{
	__m512i k = rkey(c, 0);

	for (unsigned j = 0; j < nv; j++)
		s[j] = xor512(ctr_swap4(ctr_add4(*ctr, 4 * (int)j)), k);
	*ctr = ctr_add4(*ctr, 4 * NV);
}

INLINE void aes_round(__m512i s[NV], unsigned nv, __m512i k)
{
	for (unsigned j = 0; j < nv; j++)
		s[j] = _mm512_aesenc_epi128(s[j], k);
}

/* Rounds r..last: s becomes keystream. */
INLINE void aes_finish(const ctx_t *c, __m512i s[NV], unsigned nv, unsigned r)
{
	__m512i k;

	for (; r < c->rounds; r++)
		aes_round(s, nv, rkey(c, r));
	k = rkey(c, r);
	for (unsigned j = 0; j < nv; j++)
		s[j] = _mm512_aesenclast_epi128(s[j], k);
}

/* --- Bulk: whole batches ------------------------------------------------------ */

/*
 * Counters without shuffles. A batch's 32 blocks have counters
 * 2 + 32 i .. 33 + 32 i: blocks 0..29 are 32 i + v with v = 2..31, and since
 * 32 i has its low five bits clear, 32 i + v = 32 i | v: the whitened block
 * (counter block ^ round key 0) is the batch's whitened base W_i with v
 * XORed into byte 15. Blocks 30 and 31 are the next base, W_(i+1), with 0
 * and 1. So one XOR per register (by ctr_low) replaces the add, the byte
 * shuffle and the whitening XOR of the general path (aes_start), and the
 * 32-bit counter still wraps like inc32.
 */
#define CTR_LANE(v) 0, 0, 0, (uint32_t)(v) << 24
#define CTR_REG(v) CTR_LANE(v), CTR_LANE(v + 1), CTR_LANE(v + 2), CTR_LANE(v + 3)
static const __attribute__((aligned(64))) uint32_t ctr_low[8][16] = {
	{ CTR_REG(2) },	 { CTR_REG(6) },  { CTR_REG(10) }, { CTR_REG(14) },
	{ CTR_REG(18) }, { CTR_REG(22) }, { CTR_REG(26) }, { CTR_LANE(30), CTR_LANE(31),
							     CTR_LANE(0), CTR_LANE(1) },
};
_Static_assert(NV == 8, "ctr_low is written for 32 blocks per batch");

/* The whitened base for counter ctr (a multiple of 32): nk with word 3 set. */
INLINE __m512i ctr_base(__m512i nk, uint32_t k3, uint32_t ctr)
{
	return _mm512_mask_set1_epi32(nk, 0x8888, (int)(__builtin_bswap32(ctr) ^ k3));
}

/* Register j of the batch at base w (wn: the next base), whitened. */
INLINE __m512i ctr_reg(__m512i w, __m512i wn, unsigned j)
{
	__m512i low = _mm512_load_si512((const void *)ctr_low[j]);

	/* the last register's upper two lanes count from the next base */
	return xor512(j == NV - 1 ? _mm512_mask_blend_epi64(0xf0, w, wn) : w, low);
}

/* How a batch's hash is summed: alone, or as the first or second of a pair. */
enum { ALONE, PAIR_FIRST, PAIR_SECOND };

/*
 * One batch: out = in ^ keystream for the counters at w (wn the next
 * base); when gh is set, y becomes GHASH over the batch at gh with y
 * added into its first block, one register's products after each of
 * rounds 1..8 (summed two by two). gh may be in (read before out
 * is written) or the previous batch of out. The last round's key is
 * XORed into the input first, so VAESENCLAST writes the output.
 */
INLINE __m128i gcm_batch(const ctx_t *c, const unsigned rounds, __m512i w, __m512i wn,
			 const uint8_t *in, uint8_t *out, const uint8_t *gh, __m128i y,
			 struct gacc3 *a, const int part)
{
	const __m512i kl = rkey(c, rounds);
	/* the first of a pair takes H^64..H^33, the others H^32..H^1 */
	const uint8_t(*hk)[16] = c->hk + (part == PAIR_FIRST ? 0 : 4 * NV);
	__m512i s[NV], t[NV];
	struct prod4 p = { kl, kl, kl, kl }; /* set at even g before use */

	for (unsigned j = 0; j < NV; j++)
		s[j] = ctr_reg(w, wn, j);
#pragma GCC unroll 16
	for (unsigned r = 1; r < rounds; r++) {
		unsigned g = r - 1;

		aes_round(s, NV, rkey(c, r));
		if (g >= NV)
			continue;
		/* the input with the last round key, read before any store */
		t[g] = xor512(kl, load512(in + 64 * g));
		if (gh != NULL) {
			__m512i x = bswap4(load512(gh + 64 * g));

			if (g == 0 && part != PAIR_SECOND)
				x = xor512(x, _mm512_zextsi128_si512(y));
			if (g % 2 == 0) {
				p = prod4(x, hk[4 * g]);
			} else {
				struct prod4 q = prod4(x, hk[4 * g]);
				gacc3_add2(a, &p, &q, g == 1 && part != PAIR_SECOND);
			}
		}
	}
	for (unsigned j = 0; j < NV; j++)
		store512(out + 64 * j, _mm512_aesenclast_epi128(s[j], t[j]));
	return gh != NULL && part != PAIR_FIRST ? gacc3_reduce(a) : y;
}

/*
 * nb > 0 whole batches from counter 2; rounds and decrypt are constants
 * in the four callers below, so each unrolls into straight code. Sealing
 * hashes batch i's output during batch i + 1 and the last batch's after
 * the loop, with the lengths block lens when fold (nothing follows the
 * batches: the result is the whole GHASH); opening hashes each batch's
 * input during it.
 */
INLINE __m128i bulk(const ctx_t *c, const unsigned rounds, const int decrypt, __m512i nk,
		    const uint8_t *in, uint8_t *out, size_t nb, __m128i y, int fold, __m128i lens)
{
	const __m128i *rk0 = (const __m128i *)(const void *)c->rk;
	uint32_t k3 = (uint32_t)_mm_extract_epi32(_mm_load_si128(rk0), 3);
	__m512i w = ctr_base(nk, k3, 0), wn, x[NV];
	struct gacc3 a = { w, w, w }; /* set by each first products */
	size_t i = 0;

	if (!decrypt) {
		wn = ctr_base(nk, k3, 32);
		gcm_batch(c, rounds, w, wn, in, out, NULL, y, &a, ALONE);
		w = wn;
		in += BATCH;
		out += BATCH;
		i = 1;
	}
	for (; i + 2 <= nb; i += 2, in += 2 * BATCH, out += 2 * BATCH) {
		wn = ctr_base(nk, k3, (uint32_t)(32 * (i + 1)));
		gcm_batch(c, rounds, w, wn, in, out, decrypt ? in : out - BATCH, y, &a, PAIR_FIRST);
		w = wn;
		wn = ctr_base(nk, k3, (uint32_t)(32 * (i + 2)));
		y = gcm_batch(c, rounds, w, wn, in + BATCH, out + BATCH, decrypt ? in + BATCH : out,
			      y, &a, PAIR_SECOND);
		w = wn;
	}
	if (i < nb) {
		wn = ctr_base(nk, k3, (uint32_t)(32 * (i + 1)));
		y = gcm_batch(c, rounds, w, wn, in, out, decrypt ? in : out - BATCH, y, &a, ALONE);
		in += BATCH;
		out += BATCH;
	}
	if (decrypt)
		return y;
	/*
	 * the last batch's output, whole registers: plain loads, inlined (the
	 * masked general path, ghash_bytes, made 1 KiB sealing 7% slower
	 * back to back)
	 */
	for (unsigned k = 0; k < NV; k++)
		x[k] = bswap4(load512(out - BATCH + 64 * k));
	x[0] = xor512(x[0], _mm512_zextsi128_si512(y));
	/* two inlined copies, each with its power offset a constant */
	return fold ? ghash_batch(c, x, 4 * NV, 1, lens) : ghash_batch(c, x, 4 * NV, 0, lens);
}

#define BULK(name, rounds, decrypt)                                                         \
	static TARGET __m128i name(const ctx_t *c, __m512i nk, const uint8_t *in, uint8_t *out, \
				   size_t nb, __m128i y, int fold, __m128i lens)             \
	{                                                                                   \
		return bulk(c, rounds, decrypt, nk, in, out, nb, y, fold, lens);            \
	}
BULK(seal_128, 10, 0)
BULK(open_128, 10, 1)
BULK(seal_256, 14, 0)
BULK(open_256, 14, 1)

/*
 * The last 0 < len < BATCH bytes, with masked loads and stores, then
 * hashed with the lengths block lens: the whole GHASH.
 */
static TARGET __m128i ctr_tail(const ctx_t *c, __m512i ctr, const uint8_t *in, size_t len,
			       uint8_t *out, int decrypt, __m128i y, __m128i lens)
{
	unsigned nv = (unsigned)((len + 63) / 64);
	__m512i s[NV], x[NV];

	aes_start(c, s, nv, &ctr);
	aes_finish(c, s, nv, 1);
	for (unsigned k = 0; k < NV; k++) {
		__mmask64 m;
		__m512i d, o;
		if (k >= nv) {
			x[k] = _mm512_setzero_si512();
			continue;
		}
		m = first_bytes(len - 64 * k);
		d = _mm512_maskz_loadu_epi8(m, in + 64 * k);
		o = _mm512_maskz_mov_epi8(m, xor512(d, s[k])); /* zero past the end */
		_mm512_mask_storeu_epi8(out + 64 * k, m, o);
		x[k] = bswap4(decrypt ? d : o);
	}
	x[0] = xor512(x[0], _mm512_zextsi128_si512(y));
	return ghash_batch(c, x, (unsigned)((len + 15) / 16), 1, lens);
}

/* --- GCM -------------------------------------------------------------------- */

/*
 * CTR from counter 2 with GHASH of the ciphertext and of the lengths
 * block (ad_len, len), *y holding the AD's in and the whole GHASH out;
 * returns E_K(J0).
 */
static TARGET __m128i gcm_crypt(const ctx_t *c, const uint8_t nonce[12], const uint8_t *in,
				size_t len, uint8_t *out, int decrypt, __m128i *y, size_t ad_len)
{
	/* the lengths block in bits, reflected: hashed with the last data */
	const __m128i lens = _mm_set_epi64x((long long)((uint64_t)ad_len * 8),
					    (long long)((uint64_t)len * 8));
	const __m128i swap = _mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	uint32_t n0;
	uint64_t n1;
	__m128i j0, ctr1, mask;
	__m512i ctr;
	size_t nb = len / BATCH;

	/*
	 * J0 = nonce || 0^31 || 1, built in a register from a 4-byte and an
	 * 8-byte load: record/'s rec_nonce writes the nonce with stores of
	 * those sizes just before, and a load within one store takes its bytes
	 * from the store buffer (a 16-byte load of a stack copy would wait).
	 */
	memcpy(&n0, nonce, 4);
	memcpy(&n1, nonce + 4, 8);
	j0 = _mm_set_epi64x((long long)((n1 >> 32) | ((uint64_t)0x01000000 << 32)),
			    (long long)(n0 | (n1 << 32)));
	ctr1 = _mm_shuffle_epi8(j0, swap);
	mask = aes_block(c, j0);
	/* lanes hold counters 2, 3, 4, 5 */
	ctr = _mm512_add_epi32(_mm512_broadcast_i32x4(ctr1),
			       _mm512_set_epi32(4, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0));
	if (nb > 0) {
		/* lanes: nonce || 0, whitened (bulk sets word 3 per batch) */
		__m512i nk = xor512(_mm512_broadcast_i32x4(_mm_insert_epi32(j0, 0, 3)), rkey(c, 0));

		/*
		 * sealing hashes the lengths with its last batch unless a tail
		 * follows; opening multiplies after its batches (see the notes)
		 */
		int fold = len % BATCH == 0 && !decrypt;

		if (c->rounds == 10)
			*y = decrypt ? open_128(c, nk, in, out, nb, *y, fold, lens)
				     : seal_128(c, nk, in, out, nb, *y, fold, lens);
		else
			*y = decrypt ? open_256(c, nk, in, out, nb, *y, fold, lens)
				     : seal_256(c, nk, in, out, nb, *y, fold, lens);
		ctr = ctr_add4(ctr, (int)(32 * nb));
	}
	if (len % BATCH != 0)
		*y = ctr_tail(c, ctr, in + BATCH * nb, len % BATCH, out + BATCH * nb, decrypt, *y,
			      lens);
	else if (decrypt || nb == 0) /* the lengths block after the batches, or alone */
		*y = ghash_mul(_mm_xor_si128(*y, lens), load128(c->hk[HS_VAES_HPOWERS - 1]));
	return mask;
}

/* The tag: the whole GHASH y (reflected) masked with E_K(J0). */
INLINE __m128i gcm_tag(__m128i y, __m128i mask)
{
	return _mm_xor_si128(ghash_bswap(y), mask);
}

/* x * hk lane by lane (hk stored divided by x, as ghash_mul), each lane reduced */
INLINE __m512i ghash_mul4(__m512i x, __m512i hk)
{
	const __m512i poly =
		_mm512_broadcast_i32x4(_mm_set_epi64x(0, (long long)0xc200000000000000u));
	__m512i lo = _mm512_clmulepi64_epi128(x, hk, 0x00);
	__m512i hi = _mm512_clmulepi64_epi128(x, hk, 0x11);
	__m512i mid = xor512(_mm512_clmulepi64_epi128(x, hk, 0x01),
			     _mm512_clmulepi64_epi128(x, hk, 0x10));

	hi = xor512(hi, _mm512_bsrli_epi128(mid, 8));
	lo = xor512(lo, _mm512_bslli_epi128(mid, 8));
	/* ghash_reduce's two folds, in every lane */
	lo = xor512(_mm512_shuffle_epi32(lo, (_MM_PERM_ENUM)0x4e),
		    _mm512_clmulepi64_epi128(lo, poly, 0x00));
	lo = xor512(_mm512_shuffle_epi32(lo, (_MM_PERM_ENUM)0x4e),
		    _mm512_clmulepi64_epi128(lo, poly, 0x00));
	return xor512(hi, lo);
}

/* ghash_div_x in every lane */
INLINE __m512i ghash_div_x4(__m512i h)
{
	const __m512i p =
		_mm512_broadcast_i32x4(_mm_set_epi64x((long long)0xc200000000000000u, 1));
	__m512i top = _mm512_shuffle_epi32(_mm512_srai_epi32(h, 31), (_MM_PERM_ENUM)0xff);
	__m512i shl = _mm512_or_si512(_mm512_slli_epi64(h, 1),
				      _mm512_bslli_epi128(_mm512_srli_epi64(h, 63), 8));

	return xor512(shl, _mm512_and_si512(top, p));
}

/*
 * The key schedule by AESKEYGENASSIST (aes_ni_key.h); H^2, then H^3 and
 * H^4 side by side, then H^8..H^5 (lane by lane times H^4), then two
 * independent chains of four powers each step up by H^8: eight dependent
 * steps for the 64 powers. A context set-up is paid at every TLS key
 * change.
 */
TARGET int aes_gcm_vaes512_init(void *ctx, const uint8_t *key, size_t key_len)
{
	ctx_t *c = ctx;
	__m128i h, h1, p2, p3, p4;
	__m512i v0, v1, h8;
	unsigned rounds = aes_expand_aesni(c->rk, key, key_len);

	if (rounds == 0)
		return HS_ERR_ARG;
	c->rounds = rounds;
	h = ghash_bswap(aes_block(c, _mm_setzero_si128()));
	h1 = ghash_div_x(h);
	p2 = ghash_mul(h, h1);
	p3 = ghash_mul(p2, h1);
	p4 = ghash_mul(p2, ghash_div_x(p2));
	/* lanes 0..3 (lowest address first): H^4, H^3, H^2, H, as hk stores them */
	v0 = _mm512_inserti32x4(_mm512_castsi128_si512(p4), p3, 1);
	v0 = _mm512_inserti32x4(v0, p2, 2);
	v0 = _mm512_inserti32x4(v0, h, 3);
	v1 = ghash_mul4(v0, _mm512_broadcast_i32x4(ghash_div_x(p4))); /* H^8 .. H^5 */
	h8 = _mm512_broadcast_i32x4(ghash_div_x(_mm512_castsi512_si128(v1)));
	for (unsigned k = 0; k < HS_VAES_HPOWERS / 8; k++) { /* H^(8k+8) .. H^(8k+1) */
		if (k > 0) {
			v0 = ghash_mul4(v0, h8);
			v1 = ghash_mul4(v1, h8);
		}
		store512(c->hk[HS_VAES_HPOWERS - 4 - 8 * k], ghash_div_x4(v0));
		store512(c->hk[HS_VAES_HPOWERS - 8 - 8 * k], ghash_div_x4(v1));
	}
	memset(c->hk[HS_VAES_HPOWERS], 0, 4 * 16);
	return 0;
}

TARGET void aes_gcm_vaes512_block(const void *ctx, const uint8_t in[16], uint8_t out[16])
{
	store128(out, aes_block(ctx, load128(in)));
}

TARGET void aes_gcm_vaes512_seal(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
				 size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	const ctx_t *c = ctx;
	__m128i y = ghash_ad(c, ad, ad_len);
	__m128i mask = gcm_crypt(c, nonce, in, len, out, 0, &y, ad_len);

	store128(out + len, gcm_tag(y, mask));
}

TARGET int aes_gcm_vaes512_open(const void *ctx, const uint8_t *nonce, const uint8_t *ad,
				size_t ad_len, const uint8_t *in, size_t len, uint8_t *out)
{
	const ctx_t *c = ctx;
	__m128i y, mask, diff;
	__m512i keep;
	uint32_t bad;

	if (len < 16)
		return HS_ERR_BAD_TAG;
	len -= 16;
	y = ghash_ad(c, ad, ad_len);
	mask = gcm_crypt(c, nonce, in, len, out, 1, &y, ad_len);
	/* the tags differ unless every bit of the XOR is 0 (PTEST: no branch) */
	diff = _mm_xor_si128(gcm_tag(y, mask), load128(in + len));
	bad = (uint32_t)!_mm_testz_si128(diff, diff);
	/*
	 * The verdict is public (it is the return value), so the plaintext is
	 * cleared only when the tag failed: the branch shows nothing the return
	 * value does not, and an accepted record costs no second pass.
	 */
	if (bad != 0) {
		keep = _mm512_setzero_si512();
		for (size_t i = 0; i < len; i += 64)
			_mm512_mask_storeu_epi8(out + i, first_bytes(len - i), keep);
	}
	return (int)bad * HS_ERR_BAD_TAG;
}

#endif /* __x86_64__ */
