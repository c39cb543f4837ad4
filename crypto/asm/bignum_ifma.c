/*
 * Implementation notes: Montgomery exponentiation with AVX-512 IFMA
 * (VPMADD52LUQ/HUQ) for 1024- and 2048-bit moduli (16 and 32 64-bit limbs
 * in crypto/bignum.h), the RSA private operation's two CRT halves side
 * by side and the public-exponent operation of verification.
 *
 * - Radix 2^52: a value is L = 21 (1024 bits) or 40 (2048 bits) limbs of
 *   52 bits, 8 limbs per 512-bit vector (NV = 3 or 6 vectors; the lanes
 *   above L stay zero). R' = 2^(52 L) > 4 m for every m below 2^(64 n),
 *   and for the m' = k m below (1024-bit m).
 * - Almost Montgomery multiplication (AMM): r = a b / R' mod m, for
 *   a, b < 2m, gives r < (4m^2 + R' m) / R' < 2m: no final subtraction
 *   between products, only at the end of an exponentiation.
 * - One AMM is L steps over b's limbs b_i, on an accumulator T held as
 *   unreduced 64-bit lanes (carry-save). Step i:
 *     T += lo52(a b_i) + hi52(a_up b_i)   (a_up: a moved up one limb, so
 *                                          the high halves land one limb
 *                                          higher, where they belong)
 *     u = lo52(T_0 k0), k0 = -m^-1 mod 2^52  (IFMA on lane 0, broadcast)
 *     T += lo52(m u) + hi52(m_up u)       (now T_0 = 0 mod 2^52)
 *     T = T / 2^52: lanes move down one (VALIGNQ), T_0's top bits ride
 *     into the new lane 0.
 *   The a-products do not depend on u. The serial chain is kept short:
 *   u_(i+1) is computed from lane 1 (limb i + 1) as soon as m u_i is
 *   added, before the lanes move (the move is off the chain), and the
 *   carry limb i + 1 will send up is known then too: adding m u makes the
 *   low 52 bits of a limb x zero, so it carries ceil(x / 2^52), one
 *   shift of x + 2^52 - 1. A lane gains < 2^54 per step, so after 40
 *   steps it is below 2^60: no lane overflows. This is the form of the
 *   public-exponent path (amm_step).
 * - The secret CRT pair (1024-bit p and q, bn_mod_exp_x2_ifma) works
 *   modulo m' = k m with k = -m^-1 mod 2^52, so that m' = -1 mod 2^52
 *   ("Montgomery-friendly"): u_i is limb i itself, no multiplication by
 *   k0. Only residues mod m matter (m divides m'), so a R' mod m is a
 *   valid Montgomery input and the result is reduced mod m at the end
 *   (bn_mod_wide). m' has 21 limbs, hence L = 21. Each step also adds
 *   the next limb's a-product (a moved up once and twice) before the
 *   lanes move, so the accumulator holds a b_i when a step starts; and
 *   the sums between products are IFMA accumulations where the chain
 *   allows. Measured on our Intel Xeon (AVX-512, AMX): an add
 *   between two IFMAs costs its latency plus about three cycles of
 *   bypass, IFMA runs on the same two 512-bit ports as every other
 *   vector instruction here, and the old form's serial chain was about
 *   29 cycles per step: the two halves' AMMs took 650 cycles, now 550
 *   (21 steps); RSA-2048 signing went from 0.90-0.95 of OpenSSL's rate to
 *   1.01-1.06 in hs-bench. Zen 5 was not measured after this change.
 * - Zen 5 executes 512-bit IFMA at full width; so does that Xeon (two
 *   512-bit IFMA issued per cycle, measured).
 * - Normalisation after every AMM (IFMA reads only 52 bits of its
 *   inputs): one vector carry pass, then the remaining single carries
 *   resolved at once as a carry-lookahead addition on lane bitmasks:
 *   G = lanes above 2^52 - 1, P = lanes equal to it; carries in =
 *   ((G | P) + G) ^ P. Integer arithmetic only, no branch.
 * - Secret exponents: fixed 5-bit windows over every bit of the
 *   exponent, 32-entry tables per modulus read whole for every window
 *   (AND with an all-ones or zero vector, OR), always 5 squarings and
 *   one multiplication. Constant time in a, e and m: the instruction
 *   sequence depends on the sizes only; the tables and accumulators are
 *   wiped. Public exponents (verification): square-and-multiply on the
 *   exponent's bits (variable time, public data only).
 * - The results are fully reduced and equal, bit for bit, to the
 *   portable bn_mod_exp / bn_mod_exp_vartime (tests/crypto/test_rsa.c).
 * - The caller checks cpu_has(HS_BN_IFMA_CPU). valgrind cannot run this
 *   code; tests/ct/dudect.c times it instead.
 */
#include "crypto/bignum.h"

#if defined(HS_HAVE_BN_IFMA)

#include <immintrin.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"

#define TGT __attribute__((target("avx512f,avx512ifma")))
#define INL static inline __attribute__((always_inline)) TGT
#define M52 (((uint64_t)1 << 52) - 1)
#define NV_MAX 6                /* vectors per value (2048 bits) */
/*
 * The loops over a value's vectors must unroll (so the vectors stay in
 * registers): gcc needs telling; clang unrolls them fully by itself once
 * nv is a constant, and mishandles the gcc pragma (it kept them as loops).
 */
#if defined(__clang__)
#define UNROLL
#else
#define UNROLL _Pragma("GCC unroll 8")
#endif
#define LANES (8 * NV_MAX)      /* 52-bit limbs per stored value */
#define WBITS 5                 /* secret-exponent window */
#define WSIZE (1u << WBITS)

/* A value in 52-bit limbs, as stored between products. */
typedef uint64_t v52[LANES] __attribute__((aligned(64)));

/* One modulus in vectors. */
struct modv {
	__m512i m[NV_MAX], mup[NV_MAX], k0;
};

/* out (52-bit limbs, 8 nv of them) = a (n 64-bit limbs); positions are public. */
static void to52(uint64_t *out, const uint64_t *a, size_t n, int nv)
{
	for (size_t j = 0; j < (size_t)(8 * nv); j++) {
		size_t bit = 52 * j, w = bit / 64, s = bit % 64;
		uint64_t x = 0;

		if (w < n) {
			x = a[w] >> s;
			if (s > 12 && w + 1 < n) /* fewer than 52 bits left in a[w] */
				x |= a[w + 1] << (64 - s);
		}
		out[j] = x & M52;
	}
}

/* out (n 64-bit limbs) = a (normalised 52-bit limbs), bits above 64 n dropped. */
static void from52(uint64_t *out, const uint64_t *a, size_t n, int nv)
{
	memset(out, 0, n * sizeof(*out));
	for (size_t j = 0; j < (size_t)(8 * nv); j++) {
		size_t bit = 52 * j, w = bit / 64, s = bit % 64;

		if (w < n)
			out[w] |= a[j] << s;
		if (s > 12 && w + 1 < n)
			out[w + 1] |= a[j] >> (64 - s);
	}
}

/* r = r - m if r >= m (r < 2m), n limbs, under a mask. */
static void final_sub(uint64_t *r, const uint64_t *m, size_t n)
{
	uint64_t t[HS_BN_LIMBS];
	uint64_t borrow = bn_sub(t, r, m, n);

	bn_cmov(r, t, n, ct_barrier_u64(borrow - 1));
	wipe(t, sizeof(t));
}

INL void load(__m512i *x, const uint64_t *a, int nv)
{
UNROLL
	for (int v = 0; v < nv; v++)
		x[v] = _mm512_load_si512((const void *)(a + 8 * v));
}

INL void store(uint64_t *a, const __m512i *x, int nv)
{
UNROLL
	for (int v = 0; v < nv; v++)
		_mm512_store_si512((void *)(a + 8 * v), x[v]);
}

/* up = x moved up one lane across the vectors (lane 0 = 0) */
INL void shift_up(__m512i *up, const __m512i *x, int nv)
{
	up[0] = _mm512_alignr_epi64(x[0], _mm512_setzero_si512(), 7);
UNROLL
	for (int v = 1; v < nv; v++)
		up[v] = _mm512_alignr_epi64(x[v], x[v - 1], 7);
}

TGT static void modv_init(struct modv *md, const struct bn_mont *c, int nv)
{
	v52 m;

	to52(m, c->m, c->n, nv);
	load(md->m, m, nv);
	shift_up(md->mup, md->m, nv);
	md->k0 = _mm512_set1_epi64((long long)(c->m0inv & M52)); /* -m^-1 mod 2^52 */
}

/* Carry-save lanes (each < 2^63) to 52-bit limbs; the value must fit 8 nv limbs. */
INL void normalize(__m512i *x, int nv)
{
	const __m512i mask = _mm512_set1_epi64((long long)M52), one = _mm512_set1_epi64(1);
	__m512i c[NV_MAX], cu[NV_MAX];
	uint64_t g = 0, p = 0, cin;

UNROLL
	for (int v = 0; v < nv; v++) {
		c[v] = _mm512_srli_epi64(x[v], 52);
		x[v] = _mm512_and_si512(x[v], mask);
	}
	shift_up(cu, c, nv);
UNROLL
	for (int v = 0; v < nv; v++) {
		x[v] = _mm512_add_epi64(x[v], cu[v]); /* <= 2^52 - 1 + 2^11: one carry at most */
		g |= (uint64_t)_mm512_cmpgt_epu64_mask(x[v], mask) << (8 * v);
		p |= (uint64_t)_mm512_cmpeq_epu64_mask(x[v], mask) << (8 * v);
	}
	cin = ((g | p) + g) ^ p; /* bit j: a carry arrives in lane j */
UNROLL
	for (int v = 0; v < nv; v++)
		x[v] = _mm512_and_si512(
			_mm512_mask_add_epi64(x[v], (__mmask8)(cin >> (8 * v)), x[v], one), mask);
}

/*
 * The state of one AMM between steps: acc (lane 0 = the current limb i),
 * u (u_i, in the low 52 bits of every lane), cy (lane 1: what limb i
 * carries into limb i + 1 once m u_i is added; 0 elsewhere) and b
 * (b_i in every lane).
 */
struct amm_state {
	__m512i acc[NV_MAX], u, cy, b;
};

/*
 * s1 = s + 2^52 - 1, where lane 1 of s holds limb i + 1 as it will be
 * when step i + 1 starts (its a-product included). u_(i+1) = k0 s =
 * k0 s1 + k0 (mod 2^52; IFMA reads only the low 52 bits of u), broadcast
 * from lane 1; the carry that limb sends up once m u_(i+1) makes its low
 * 52 bits 0 is ceil(s / 2^52) = s1 >> 52.
 */
INL void next_u(struct amm_state *st, __m512i s1, const struct modv *md)
{
	st->u = _mm512_permutexvar_epi64(_mm512_set1_epi64(1),
					 _mm512_madd52lo_epu64(md->k0, s1, md->k0));
	st->cy = _mm512_maskz_srli_epi64(2, s1, 52);
}

/*
 * Before step 0: limb 0 is lo(a_0 b_0). u_0 from lane 0 of a itself (a
 * broadcast, no wait for a moved up), the carry from lane 1 of a moved up.
 */
INL void amm_start(struct amm_state *st, const __m512i *av, const __m512i *aup,
		   const struct modv *md, uint64_t b0, int nv)
{
	const __m512i z = _mm512_setzero_si512(), m52 = _mm512_set1_epi64((long long)M52);
	__m512i u0;

UNROLL
	for (int v = 0; v < nv; v++)
		st->acc[v] = z;
	st->b = _mm512_set1_epi64((long long)b0);
	u0 = _mm512_madd52lo_epu64(md->k0, _mm512_madd52lo_epu64(m52, av[0], st->b), md->k0);
	st->u = _mm512_broadcastq_epi64(_mm512_castsi512_si128(u0));
	st->cy = _mm512_maskz_srli_epi64(2, _mm512_madd52lo_epu64(m52, aup[0], st->b), 52);
}

/*
 * Step i, bnext = b_(i+1); av, aup: a and a moved up one limb. The
 * serial chain is u_i -> m u_i -> lane 1 -> u_(i+1): the carry out of
 * limb i is known before m u_i is (next_u), and the lanes move down off
 * that chain.
 */
INL void amm_step(struct amm_state *st, const __m512i *av, const __m512i *aup,
		  const struct modv *md, uint64_t bnext, int nv)
{
	const __m512i z = _mm512_setzero_si512(), m52 = _mm512_set1_epi64((long long)M52);
	const __m512i b = st->b;
	__m512i t[NV_MAX], h[NV_MAX], s1;

UNROLL
	for (int v = 0; v < nv; v++)
		t[v] = _mm512_add_epi64(
			st->acc[v],
			_mm512_madd52hi_epu64(_mm512_madd52lo_epu64(z, av[v], b), aup[v], b));
	h[0] = _mm512_madd52hi_epu64(st->cy, md->mup[0], st->u); /* limb i's carry rides along */
UNROLL
	for (int v = 1; v < nv; v++)
		h[v] = _mm512_madd52hi_epu64(z, md->mup[v], st->u);
UNROLL
	for (int v = 0; v < nv; v++)
		t[v] = _mm512_add_epi64(_mm512_madd52lo_epu64(t[v], md->m[v], st->u), h[v]);
	/* now t_0 = 0 mod 2^52; lane 1 of s1: limb i + 1 with the next a-product, + 2^52 - 1 */
	st->b = _mm512_set1_epi64((long long)bnext);
	s1 = _mm512_add_epi64(t[0], _mm512_madd52lo_epu64(m52, aup[0], st->b));
	next_u(st, s1, md);
UNROLL
	for (int v = 0; v + 1 < nv; v++)
		st->acc[v] = _mm512_alignr_epi64(t[v + 1], t[v], 1);
	st->acc[nv - 1] = _mm512_alignr_epi64(z, t[nv - 1], 1);
}

/*
 * r = AMM(a, b) mod md, normalised; r may alias a or b. b is read up to
 * limb L (8 nv > L lanes; limb L of a normalised value below 2m is 0).
 */
INL void amm1(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct modv *md, int nv)
{
	__m512i av[NV_MAX], aup[NV_MAX];
	struct amm_state st;
	const int l = nv == 3 ? 21 : 40;

	load(av, a, nv);
	shift_up(aup, av, nv);
	amm_start(&st, av, aup, md, b[0], nv);
	for (int i = 0; i < l; i++)
		amm_step(&st, av, aup, md, b[i + 1], nv);
	normalize(st.acc, nv);
	store(r, st.acc, nv);
}

/*
 * The secret exponentiations work modulo m' = k m, k = -m^-1 mod 2^52
 * (below 2^52), so that m' = -1 mod 2^52 ("Montgomery-friendly"): u_i is
 * the limb itself, and the multiplication by k0 leaves the serial chain.
 * m' < 2^1076 has 21 limbs, hence L = 21 steps. Values are kept modulo
 * m' but only their residues modulo m matter (m divides m'), so a value
 * that is a R' modulo m (a R' mod m itself) is as good an input as a R'
 * mod m', and the result is reduced modulo m at the end.
 */
TGT static void modv_init_friendly(struct modv *md, const struct bn_mont *c)
{
	uint64_t k = c->m0inv & M52, mk[17], carry = 0;
	v52 m;

	for (size_t i = 0; i < 16; i++) { /* m k, 17 limbs */
		unsigned __int128 x = (unsigned __int128)c->m[i] * k + carry;

		mk[i] = (uint64_t)x;
		carry = (uint64_t)(x >> 64);
	}
	mk[16] = carry;
	to52(m, mk, 17, 3);
	load(md->m, m, 3);
	shift_up(md->mup, md->m, 3);
	md->k0 = _mm512_set1_epi64(1); /* -m'^-1 mod 2^52 */
	wipe(mk, sizeof(mk));
	wipe(m, sizeof(m));
}

/*
 * As amm_start and amm_step, modulo a friendly m': u_(i+1) is lane 1 of
 * s (limb i + 1 as step i + 1 starts) broadcast, and the carry it sends
 * up is ceil(s / 2^52), off the chain.
 */
INL void next_u_friendly(struct amm_state *st, __m512i s)
{
	const __m512i m52 = _mm512_set1_epi64((long long)M52);

	st->u = _mm512_permutexvar_epi64(_mm512_set1_epi64(1), s);
	st->cy = _mm512_maskz_srli_epi64(2, _mm512_add_epi64(s, m52), 52);
}

/*
 * Before step 0: acc = a b_0 (limb 0 is lo(a_0 b_0), so u_0 is that lane
 * broadcast; its carry comes from lane 1 of a moved up, as in amm_start).
 */
INL void amm_start_friendly(struct amm_state *st, const __m512i *av, const __m512i *aup,
			    uint64_t b0)
{
	const __m512i z = _mm512_setzero_si512(), m52 = _mm512_set1_epi64((long long)M52);
	const __m512i b = _mm512_set1_epi64((long long)b0);

UNROLL
	for (int v = 0; v < 3; v++)
		st->acc[v] = _mm512_madd52hi_epu64(_mm512_madd52lo_epu64(z, av[v], b), aup[v], b);
	st->u = _mm512_broadcastq_epi64(_mm512_castsi512_si128(st->acc[0]));
	st->cy = _mm512_maskz_srli_epi64(2, _mm512_madd52lo_epu64(m52, aup[0], b), 52);
}

/*
 * Step i. The accumulator already holds a b_i: each step adds the next
 * limb's product a b_(i+1) before the lanes move down, computed with a
 * moved up once (low halves) and twice (high halves) so that it lands
 * where the move puts it. The serial chain is u_i -> m u_i (lane 1) ->
 * u_(i+1); the carry from limb i rides in h0's accumulator, with the
 * next product's lane 0; every other sum is an IFMA accumulation (on
 * Intel cores an add between two IFMAs costs its latency plus about
 * three cycles of bypass, and both run on the same two 512-bit ports).
 */
INL void amm_step_friendly(struct amm_state *st, const __m512i *aup, const __m512i *aup2,
			   const struct modv *md, uint64_t bnext, const int last)
{
	const __m512i z = _mm512_setzero_si512();
	const __m512i b = _mm512_set1_epi64((long long)bnext);
	__m512i t[3], nab[3];

UNROLL
	for (int v = 0; v < 3; v++) /* a b_(i+1), one lane up (b_21 = 0: none after the last) */
		nab[v] = last ? z
			      : _mm512_madd52hi_epu64(_mm512_madd52lo_epu64(z, aup[v], b), aup2[v], b);
	t[0] = _mm512_add_epi64(
		_mm512_madd52lo_epu64(st->acc[0], md->m[0], st->u),
		_mm512_madd52hi_epu64(_mm512_add_epi64(st->cy, nab[0]), md->mup[0], st->u));
UNROLL
	for (int v = 1; v < 3; v++)
		t[v] = _mm512_add_epi64(_mm512_madd52hi_epu64(_mm512_madd52lo_epu64(st->acc[v], md->m[v],
										   st->u),
							      md->mup[v], st->u),
					nab[v]);
	next_u_friendly(st, t[0]);
	st->acc[0] = _mm512_alignr_epi64(t[1], t[0], 1);
	st->acc[1] = _mm512_alignr_epi64(t[2], t[1], 1);
	st->acc[2] = _mm512_alignr_epi64(z, t[2], 1);
}

/* Two AMMs modulo two friendly moduli (21 steps), their chains interleaved. */
INL void amm2(uint64_t *r1, const uint64_t *a1, const uint64_t *b1, const struct modv *m1,
	      uint64_t *r2, const uint64_t *a2, const uint64_t *b2, const struct modv *m2)
{
	__m512i av1[3], aup1[3], aupp1[3], av2[3], aup2[3], aupp2[3];
	struct amm_state s1, s2;

	load(av1, a1, 3);
	load(av2, a2, 3);
	shift_up(aup1, av1, 3);
	shift_up(aup2, av2, 3);
	shift_up(aupp1, aup1, 3);
	shift_up(aupp2, aup2, 3);
	amm_start_friendly(&s1, av1, aup1, b1[0]);
	amm_start_friendly(&s2, av2, aup2, b2[0]);
	for (int i = 0; i < 20; i++) {
		amm_step_friendly(&s1, aup1, aupp1, m1, b1[i + 1], 0);
		amm_step_friendly(&s2, aup2, aupp2, m2, b2[i + 1], 0);
	}
	amm_step_friendly(&s1, aup1, aupp1, m1, 0, 1);
	amm_step_friendly(&s2, aup2, aupp2, m2, 0, 1);
	normalize(s1.acc, 3);
	normalize(s2.acc, 3);
	store(r1, s1.acc, 3);
	store(r2, s2.acc, 3);
}

/* r (16 limbs) = x mod m for x = a 21-limb value below 2^1088 (17 limbs) */
static void reduce_mod_m(uint64_t *r, const uint64_t *x52, const struct bn_mont *c)
{
	uint64_t wide[32];

	memset(wide, 0, sizeof(wide));
	from52(wide, x52, 17, 3);
	bn_mod_wide(r, wide, c);
	wipe(wide, sizeof(wide));
}

/*
 * out = tab[w], every entry read (nv = 3): entry i is ANDed with a vector
 * that is all-ones when i = w (a lane compare, turned into a vector) and
 * ORed in.
 */
INL void lookup(uint64_t *out, const v52 *tab, uint64_t w)
{
	const __m512i want = _mm512_set1_epi64((long long)w), one = _mm512_set1_epi64(1);
	const __m512i ones = _mm512_set1_epi64(-1);
	__m512i x[3] = { _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512() };
	__m512i idx = _mm512_setzero_si512();

	for (unsigned i = 0; i < WSIZE; i++) {
		__m512i sel = _mm512_maskz_mov_epi64(_mm512_cmpeq_epi64_mask(idx, want), ones);

UNROLL
		for (int v = 0; v < 3; v++)
			x[v] = _mm512_or_si512(
				x[v], _mm512_and_si512(_mm512_load_si512((const void *)(tab[i] + 8 * v)), sel));
		idx = _mm512_add_epi64(idx, one);
	}
	store(out, x, 3);
}

/* bits [pos, pos + len) of e (len <= WBITS; public positions) */
static uint64_t window(const uint64_t *e, size_t pos, unsigned len)
{
	size_t w = pos / 64, s = pos % 64;
	uint64_t x = e[w] >> s;

	if (s + len > 64)
		x |= e[w + 1] << (64 - s);
	return x & ((1u << len) - 1);
}

/* The working set of the two-way exponentiation, wiped as a whole. */
struct x2_ws {
	v52 tab[2][WSIZE];
	v52 acc[2], t[2], a[2], rr[2], one;
	struct modv md[2];
};

TGT void bn_mod_exp_x2_ifma(uint64_t *r1, const uint64_t *a1, const uint64_t *e1,
			   const struct bn_mont *c1, uint64_t *r2, const uint64_t *a2,
			   const uint64_t *e2, const struct bn_mont *c2, size_t e_n)
{
	struct x2_ws w;
	size_t bits = 64 * e_n;
	unsigned top = (unsigned)(bits % WBITS ? bits % WBITS : WBITS);

	memset(&w, 0, sizeof(w));
	modv_init_friendly(&w.md[0], c1);
	modv_init_friendly(&w.md[1], c2);
	to52(w.a[0], a1, 16, 3);
	to52(w.a[1], a2, 16, 3);
	to52(w.rr[0], c1->rr52, 16, 3);
	to52(w.rr[1], c2->rr52, 16, 3);
	w.one[0] = 1;
	/* tab[k][i] = a^i R' (< 2m) */
	amm2(w.tab[0][0], w.one, w.rr[0], &w.md[0], w.tab[1][0], w.one, w.rr[1], &w.md[1]);
	amm2(w.tab[0][1], w.a[0], w.rr[0], &w.md[0], w.tab[1][1], w.a[1], w.rr[1], &w.md[1]);
	for (unsigned i = 2; i < WSIZE; i++)
		amm2(w.tab[0][i], w.tab[0][i - 1], w.tab[0][1], &w.md[0], w.tab[1][i],
		     w.tab[1][i - 1], w.tab[1][1], &w.md[1]);
	lookup(w.acc[0], (const v52 *)w.tab[0], window(e1, bits - top, top));
	lookup(w.acc[1], (const v52 *)w.tab[1], window(e2, bits - top, top));
	for (size_t pos = bits - top; pos > 0;) {
		pos -= WBITS; /* public: the windows' positions are fixed */
		for (unsigned k = 0; k < WBITS; k++)
			amm2(w.acc[0], w.acc[0], w.acc[0], &w.md[0], w.acc[1], w.acc[1], w.acc[1],
			     &w.md[1]);
		lookup(w.t[0], (const v52 *)w.tab[0], window(e1, pos, WBITS));
		lookup(w.t[1], (const v52 *)w.tab[1], window(e2, pos, WBITS));
		amm2(w.acc[0], w.acc[0], w.t[0], &w.md[0], w.acc[1], w.acc[1], w.t[1], &w.md[1]);
	}
	/* out of Montgomery form: AMM(x, 1) <= m', then modulo m */
	amm2(w.acc[0], w.acc[0], w.one, &w.md[0], w.acc[1], w.acc[1], w.one, &w.md[1]);
	reduce_mod_m(r1, w.acc[0], c1);
	reduce_mod_m(r2, w.acc[1], c2);
	wipe(&w, sizeof(w));
}

/* Public exponent, nv = 3 (n = 16) or 6 (n = 32); see bn_mod_exp_vartime_ifma. */
INL void exp_vartime(uint64_t *r, const uint64_t *a, const uint64_t *e, size_t bits,
		     const struct bn_mont *c, int nv)
{
	struct modv md;
	v52 am, acc, one = { 1 };

	modv_init(&md, c, nv);
	to52(am, a, c->n, nv);
	to52(acc, c->rr52, c->n, nv);
	amm1(am, am, acc, &md, nv); /* a R' */
	memcpy(acc, am, sizeof(acc));
	for (size_t i = bits - 1; i > 0; i--) {
		amm1(acc, acc, acc, &md, nv);
		if ((e[(i - 1) / 64] >> ((i - 1) % 64)) & 1) /* public exponent */
			amm1(acc, acc, am, &md, nv);
	}
	amm1(acc, acc, one, &md, nv);
	from52(r, acc, c->n, nv);
	final_sub(r, c->m, c->n);
}

TGT void bn_mod_exp_vartime_ifma(uint64_t *r, const uint64_t *a, const uint64_t *e, size_t bits,
				const struct bn_mont *c)
{
	if (c->n == 16)
		exp_vartime(r, a, e, bits, c, 3);
	else
		exp_vartime(r, a, e, bits, c, 6);
}

#endif
