/*
 * Implementation notes: fixed-capacity big integers (see bignum.h).
 *
 * - Limbs are 64 bits, products 128 bits (unsigned __int128). Loops run
 *   over the public limb count n only; carries and borrows are computed
 *   arithmetically and used as masks (ct.h), never in branches.
 * - Montgomery multiplication is CIOS (coarsely integrated operand
 *   scanning, Koc, Acar, Kaliski 1996): after each row the partial result
 *   stays below 2m, and one masked subtraction at the end brings it
 *   below m. Everything quadratic is made of one primitive, the "row"
 *   t[0..len] += x y + cin 2^(64 len) (returns the carry out), run over a
 *   window that slides one limb per step instead of shifting t; the row
 *   is portable C or MULX/ADX assembly (crypto/asm/bignum_adx.c), chosen
 *   per context at set-up from cpu_has, bit-identical either way.
 * - Squaring computes the cross products once (rows of shrinking
 *   length), doubles them and adds the squares, then reduces with n
 *   rows: about 3/4 of a multiplication's products.
 * - R^2 mod m, constant time: x = R mod m by 64n modular doublings of 1,
 *   then write 64n = t 2^k with t <= 32: t more doublings give R 2^t,
 *   and k Montgomery squarings double the exponent k times
 *   (mont(R 2^s, R 2^s) = R 2^(2s)), reaching R 2^(64n). Public moduli:
 *   R mod m and R^2 mod m by long division (Knuth's algorithm D).
 * - Exponentiation with a secret exponent uses fixed 4-bit windows over
 *   all the exponent's limbs (the count of limbs is public) and reads the
 *   16-entry table whole under masks for every window. With a public
 *   exponent (e = 65537: 16 squarings, then one product) the last
 *   multiplication takes the plain base, mont(a^(e-1) R, a) = a^e, which
 *   also leaves Montgomery form.
 * - With AVX-512 IFMA (c->ifma, 16- and 32-limb moduli), exponentiations
 *   go to crypto/asm/bignum_ifma.c in radix 2^52 (its notes); the context
 *   keeps R'^2 mod m for that radix (rr52). bn_mod_exp_x2 runs two
 *   16-limb secret exponentiations side by side (RSA's CRT halves).
 * - A secret prime p dividing a public N gets its constants without
 *   doublings (bn_mont_init_divisor): for N < p R, Montgomery reduction
 *   mod p of 2^(64 k) mod N (public, by long division, or N's own R and
 *   R^2 when N has 2n limbs) is 2^(64 k) R^-1 mod p.
 * - Inversion is Bernstein and Yang's constant-time "safegcd" (Fast
 *   constant-time gcd computation and modular inversion, 2019): divsteps
 *   on f = m, g = a with delta = 1, in batches of 59 computed on the low
 *   words only (the batch's 2x2 matrix depends on nothing else; the
 *   batch is crypto/safegcd256.c's, sg_divsteps_59, its CMOV assembly on
 *   x86-64: the one divstep home), then applied to the full f, g (exact
 *   division by 2^62) and to d, e with d a = f, e a = g (mod m). All four
 *   are in signed 62-bit limbs and d, e stay in (-2m, m) (md starts from
 *   the signs of d and e), so they are reduced once at the end, not after
 *   every batch: crypto/safegcd.h's updates, the ones sg256_inv runs with
 *   five limbs. The 64-bit-limb
 *   version before it needed d, e in [0, m) each batch (the column sums
 *   only just fit 128 bits): two conditional add-and-subtract passes and
 *   copies per batch, a quarter of its time; an RSA-2048 pair of
 *   inversions (the blinding) took 91k TSC cycles, now 55k (Intel Xeon,
 *   December 2026). Their theorem 11.2 bounds the divsteps that bring g
 *   to 0 by (49 b + 80) / 17 for b-bit inputs; the count is fixed from n
 *   (one batch more), so the loop is constant time. At the end
 *   f = +-gcd(a, m), and a^-1 = +-d. safegcd256.c's own inversion uses
 *   the faster half-delta variant (590 divsteps for 256 bits), but that
 *   count is computed for 256 bits only; this one serves every size
 *   (RSA's CRT halves, P-384), so it keeps delta = 1 and the theorem's
 *   count. bn_mod_inv_x2 is two bn_mod_inv: interleaving the two divstep
 *   chains paid with the C batch, not with the CMOV one.
 * - Leaf functions (add, mul, mont_mul) leave their partial sums on the
 *   stack; the functions that hold a whole secret working set
 *   (exponentiation, inversion) wipe it.
 */
#include "crypto/bignum.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/cpu.h"
#include "crypto/ct.h"
#include "crypto/safegcd.h"

typedef unsigned __int128 u128;

#define WIN_BITS 4
#define WIN_SIZE (1u << WIN_BITS)

int bn_from_bytes(uint64_t *a, size_t n, const uint8_t *in, size_t len)
{
	if (len > 8 * n)
		return HS_ERR_TOO_LONG;
	memset(a, 0, n * sizeof(*a));
	for (size_t k = 0; k < len / 8; k++) { /* whole limbs from the least significant end */
		const uint8_t *p = in + len - 8 * (k + 1);
		uint64_t x = 0;

		for (int j = 0; j < 8; j++)
			x = (x << 8) | p[j];
		a[k] = x;
	}
	for (size_t i = 0; i < len % 8; i++) /* the top partial limb */
		a[len / 8] = (a[len / 8] << 8) | in[i];
	return 0;
}

void bn_to_bytes(uint8_t *out, size_t len, const uint64_t *a, size_t n)
{
	for (size_t i = 0; i < len; i++) {
		size_t k = len - 1 - i; /* byte position counted from the least significant end */
		out[i] = k / 8 < n ? (uint8_t)(a[k / 8] >> (8 * (k % 8))) : 0;
	}
}

uint64_t bn_add(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
	uint64_t c = 0;

	for (size_t i = 0; i < n; i++) {
		u128 z = (u128)a[i] + b[i] + c;
		r[i] = (uint64_t)z;
		c = (uint64_t)(z >> 64);
	}
	return c;
}

uint64_t bn_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
	uint64_t borrow = 0;

	for (size_t i = 0; i < n; i++) {
		/* a wrapped difference has all its top 64 bits set: take one */
		u128 z = (u128)a[i] - b[i] - borrow;
		r[i] = (uint64_t)z;
		borrow = (uint64_t)(z >> 64) & 1;
	}
	return borrow;
}

uint64_t bn_lt_mask(const uint64_t *a, const uint64_t *b, size_t n)
{
	uint64_t borrow = 0;

	/* a < b iff a - b borrows */
	for (size_t i = 0; i < n; i++) {
		u128 z = (u128)a[i] - b[i] - borrow;
		borrow = (uint64_t)(z >> 64) & 1;
	}
	return (uint64_t)0 - ct_barrier_u64(borrow);
}

uint64_t bn_eq_mask(const uint64_t *a, const uint64_t *b, size_t n)
{
	uint64_t d = 0;

	for (size_t i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return ct_is_zero_mask_u64(d);
}

uint64_t bn_is_zero_mask(const uint64_t *a, size_t n)
{
	uint64_t d = 0;

	for (size_t i = 0; i < n; i++)
		d |= a[i];
	return ct_is_zero_mask_u64(d);
}

void bn_cmov(uint64_t *r, const uint64_t *a, size_t n, uint64_t mask)
{
	for (size_t i = 0; i < n; i++)
		r[i] = ct_select_u64(mask, a[i], r[i]);
}

void bn_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
	memset(r, 0, 2 * n * sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		uint64_t c = 0;
		for (size_t j = 0; j < n; j++) {
			u128 z = (u128)a[j] * b[i] + r[i + j] + c;
			r[i + j] = (uint64_t)z;
			c = (uint64_t)(z >> 64);
		}
		r[i + n] = c;
	}
}

size_t bn_bitlen_vartime(const uint64_t *a, size_t n)
{
	for (size_t i = n; i > 0; i--) {
		if (a[i - 1] != 0)
			return 64 * (i - 1) + 64 - (size_t)__builtin_clzll(a[i - 1]);
	}
	return 0;
}

/*
 * r = (hi 2^(64n) + x) - m if that is >= 0, else x; for hi:x < 2m.
 * r may alias x.
 */
static void reduce_once(uint64_t *r, const uint64_t *x, uint64_t hi, const struct bn_mont *c)
{
	uint64_t d[HS_BN_LIMBS], borrow = 0, keep;
	size_t n = c->n;

	for (size_t i = 0; i < n; i++) {
		u128 z = (u128)x[i] - c->m[i] - borrow;
		d[i] = (uint64_t)z;
		borrow = (uint64_t)(z >> 64) & 1;
	}
	/* keep x when it did not overflow n limbs and x - m borrowed */
	keep = ct_is_zero_mask_u64(hi) & ((uint64_t)0 - ct_barrier_u64(borrow));
	for (size_t i = 0; i < n; i++)
		r[i] = ct_select_u64(keep, x[i], d[i]); /* r may alias x: same index */
}

void bn_mod_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct bn_mont *c)
{
	uint64_t carry = bn_add(r, a, b, c->n);

	reduce_once(r, r, carry, c);
}

void bn_mod_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct bn_mont *c)
{
	uint64_t t[HS_BN_LIMBS];
	uint64_t borrow = bn_sub(r, a, b, c->n);

	/* a - b wrapped around: add m back, under a mask */
	(void)bn_add(t, r, c->m, c->n);
	bn_cmov(r, t, c->n, (uint64_t)0 - ct_barrier_u64(borrow));
}

uint64_t bn_row_portable(uint64_t *t, const uint64_t *x, uint64_t y, size_t len,
			    uint64_t cin)
{
	uint64_t carry = 0;
	u128 z;

	for (size_t j = 0; j < len; j++) {
		z = (u128)x[j] * y + t[j] + carry;
		t[j] = (uint64_t)z;
		carry = (uint64_t)(z >> 64);
	}
	z = (u128)t[len] + carry + cin;
	t[len] = (uint64_t)z;
	return (uint64_t)(z >> 64);
}

/* t[0..len] += x y + cin 2^(64 len) with c's backend; returns the carry out. */
static inline uint64_t row(const struct bn_mont *c, uint64_t *t, const uint64_t *x,
			   uint64_t y, size_t len, uint64_t cin)
{
#if defined(HS_HAVE_BN_ADX)
	if (c->adx) /* public: a property of the CPU */
		return bn_row_adx(t, x, y, len, cin);
#endif
	return bn_row_portable(t, x, y, len, cin);
}

const char *bn_backend_name(void)
{
#if defined(HS_HAVE_BN_IFMA) && defined(HS_HAVE_BN_ADX)
	if (cpu_has(HS_BN_IFMA_CPU | HS_CPU_BMI2 | HS_CPU_ADX))
		return "ifma+mulx/adx";
#endif
#if defined(HS_HAVE_BN_ADX)
	if (cpu_has(HS_CPU_BMI2 | HS_CPU_ADX))
		return "mulx/adx";
#endif
	return "portable";
}

/*
 * Montgomery reduction in place: t (2n + 1 limbs, t[2n] = 0) holds a
 * value below m R; r = t R^-1 mod m. Row i adds u m at limb i, u chosen
 * so limb i vanishes; the carry out of the row's top limb t[i + n] is
 * owed to t[i + n + 1], the next row's top limb, so it rides in as cin.
 */
static void redc_rows(uint64_t *r, uint64_t *t, const struct bn_mont *c)
{
	uint64_t cin = 0;
	size_t n = c->n;

	for (size_t i = 0; i < n; i++)
		cin = row(c, t + i, c->m, t[i] * c->m0inv, n, cin);
	reduce_once(r, t + n, cin, c);
}

void bn_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct bn_mont *c)
{
	uint64_t t[2 * HS_BN_LIMBS + 2];
	size_t n = c->n;

	/*
	 * CIOS with a sliding window: before step i the running value (< 2m)
	 * is t[i..i+n]; add a b[i], then u m with u making t[i] zero; the
	 * value moves up one limb, and the two rows' carries out of t[i + n]
	 * land in t[i + n + 1] (still zero, and the value stays < 2m).
	 */
	memset(t, 0, (2 * n + 2) * sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		uint64_t c1 = row(c, t + i, a, b[i], n, 0);

		t[i + n + 1] = c1 + row(c, t + i, c->m, t[i] * c->m0inv, n, 0);
	}
	reduce_once(r, t + n, t[2 * n], c);
}

/* t (2n limbs) = a^2: the cross products once, doubled, plus the squares. */
static void square_wide(uint64_t *t, const uint64_t *a, const struct bn_mont *c)
{
	uint64_t shift = 0, carry = 0;
	size_t n = c->n;

	memset(t, 0, 2 * n * sizeof(*t));
	/* row i: a[i] a[i+1..n) at limb 2i+1; its top is t[n+i], its carry goes to t[n+i+1] */
	for (size_t i = 0; i + 1 < n; i++)
		t[n + i + 1] = row(c, t + 2 * i + 1, a + i + 1, a[i], n - 1 - i, 0);
	for (size_t i = 0; i < n; i++) { /* t = 2 t + the squares a[i]^2 at limb 2i */
		u128 sq = (u128)a[i] * a[i];
		uint64_t lo = t[2 * i], hi = t[2 * i + 1];
		u128 z = (u128)((lo << 1) | shift) + (uint64_t)sq + carry;

		t[2 * i] = (uint64_t)z;
		z = (u128)((hi << 1) | (lo >> 63)) + (uint64_t)(sq >> 64) + (uint64_t)(z >> 64);
		t[2 * i + 1] = (uint64_t)z;
		carry = (uint64_t)(z >> 64);
		shift = hi >> 63;
	}
}

void bn_mont_sqr(uint64_t *r, const uint64_t *a, const struct bn_mont *c)
{
	uint64_t t[2 * HS_BN_LIMBS + 1];

	square_wide(t, a, c);
	t[2 * c->n] = 0;
	redc_rows(r, t, c); /* a^2 < m^2 < m R */
}

void bn_mont_to(uint64_t *r, const uint64_t *a, const struct bn_mont *c)
{
	bn_mont_mul(r, a, c->rr, c);
}

void bn_mont_from(uint64_t *r, const uint64_t *a, const struct bn_mont *c)
{
	uint64_t one[HS_BN_LIMBS] = { 1 };

	bn_mont_mul(r, a, one, c);
}

/* r = t R^-1 mod m for t (2n limbs) < m R: Montgomery reduction. */
static void redc(uint64_t *r, const uint64_t *t_in, const struct bn_mont *c)
{
	uint64_t t[2 * HS_BN_LIMBS + 1];
	size_t n = c->n;

	memcpy(t, t_in, 2 * n * sizeof(*t));
	t[2 * n] = 0;
	redc_rows(r, t, c);
	wipe(t, sizeof(t));
}

void bn_mod_wide(uint64_t *r, const uint64_t *t, const struct bn_mont *c)
{
	uint64_t x[HS_BN_LIMBS];

	redc(x, t, c);               /* t R^-1 */
	bn_mont_mul(r, x, c->rr, c); /* t R^-1 R^2 R^-1 = t */
	wipe(x, sizeof(x));
}

/* -m0^-1 mod 2^64 by Newton's iteration; m0 odd, so m0 m0 = 1 mod 8 starts it. */
static uint64_t neg_inv64(uint64_t m0)
{
	uint64_t x = m0;

	for (int i = 0; i < 5; i++)
		x *= 2 - m0 * x; /* doubles the number of correct low bits: 3, 6, ..., 96 */
	return (uint64_t)0 - x;
}

/* x = 2x mod m, for x < m: the shift and the trial subtraction in one pass */
static void mod_double(uint64_t *x, const struct bn_mont *c)
{
	uint64_t y[HS_BN_LIMBS], prev = 0, borrow = 0;
	size_t n = c->n;

	for (size_t i = 0; i < n; i++) {
		uint64_t d = (x[i] << 1) | (prev >> 63);
		u128 z = (u128)d - c->m[i] - borrow;

		prev = x[i];
		x[i] = d;
		y[i] = (uint64_t)z;
		borrow = (uint64_t)(z >> 64) & 1;
	}
	/* keep 2x - m when 2x overflowed n limbs or 2x - m did not borrow */
	bn_cmov(x, y, n, ct_barrier_u64(((uint64_t)0 - (prev >> 63)) | (borrow - 1)));
}

static void pow2_mod_vartime(uint64_t *r, size_t k, const struct bn_mont *c, size_t b);

/*
 * With ifma: c->rr52 = R'^2 mod m, R' = 2^(52 L), L = 21 or 40 for n = 16
 * or 32, i.e. R^2 2^k with k = 2 (52 L - 64 n) = 136 or 64: two products,
 * mont(mont(R^2, R^2), 2^k) = R^3 2^k R^-1 = R^2 2^k (2^k < m), not k
 * doublings. Constant time.
 */
static void rr52_set(struct bn_mont *c)
{
	uint64_t x[HS_BN_LIMBS] = { 0 };
	unsigned k = c->n == 16 ? 136 : 64;

	if (!c->ifma)
		return;
	x[k / 64] = (uint64_t)1 << (k % 64);
	bn_mont_sqr(c->rr52, c->rr, c);
	bn_mont_mul(c->rr52, c->rr52, x, c);
}

/* The modulus' oddness is checked by the callers that may look at it. */
static int mont_setup(struct bn_mont *c, const uint64_t *m, size_t n)
{
	if (n == 0 || n > HS_BN_LIMBS)
		return HS_ERR_ARG;
	memset(c, 0, sizeof(*c));
	c->n = n;
#if defined(HS_HAVE_BN_ADX)
	c->adx = cpu_has(HS_CPU_BMI2 | HS_CPU_ADX);
#endif
#if defined(HS_HAVE_BN_IFMA)
	c->ifma = (n == 16 || n == 32) && cpu_has(HS_BN_IFMA_CPU);
#endif
	memcpy(c->m, m, n * sizeof(*m));
	c->m0inv = neg_inv64(m[0]);
	return 0;
}

/* From x = R mod m, fill one and rr (see the notes). */
static void mont_finish(struct bn_mont *c, uint64_t *x)
{
	size_t t = 64 * c->n;
	unsigned k = 0;

	memcpy(c->one, x, c->n * sizeof(*x));
	/* doublings are ~n times cheaper than squarings: trade a squaring for up to 32 of them */
	while ((t & 1) == 0 && t > 32) {
		t >>= 1;
		k++;
	}
	for (size_t i = 0; i < t; i++)
		mod_double(x, c);
	for (unsigned i = 0; i < k; i++)
		bn_mont_sqr(x, x, c);
	memcpy(c->rr, x, c->n * sizeof(*x));
	rr52_set(c);
}

int bn_mont_init(struct bn_mont *c, const uint64_t *m, size_t n)
{
	uint64_t x[HS_BN_LIMBS] = { 1 };
	int err = mont_setup(c, m, n);

	if (err)
		return err;
	for (size_t i = 0; i < 64 * n; i++)
		mod_double(x, c);
	mont_finish(c, x);
	wipe(x, sizeof(x));
	return 0;
}

int bn_mont_init_divisor(struct bn_mont *c, const uint64_t *m, size_t n,
			 const struct bn_mont *big)
{
	uint64_t t[2 * HS_BN_LIMBS];
	size_t b = bn_bitlen_vartime(big->m, big->n); /* public */
	int err = mont_setup(c, m, n), same;

	if (err)
		return err;
	if (big->n > 2 * n || 3 * n + 1 > 2 * HS_BN_LIMBS || b < 2)
		return HS_ERR_ARG;
	/* m | N and N < m R: redc(2^(64 k) mod N) = 2^(64 k) R^-1 mod m */
	same = big->n == 2 * n && b > 64 * n; /* then N's own R is R^2, and R < N */
	memset(t, 0, sizeof(t));
	if (same) /* no division */
		memcpy(t, big->one, 2 * n * sizeof(*t));
	else
		pow2_mod_vartime(t, 2 * n, big, b); /* R^2 mod N */
	redc(c->one, t, c);
	memset(t, 0, sizeof(t));
	if (same) {
		uint64_t x[HS_BN_LIMBS] = { 0 };

		x[n] = 1;                       /* R = 2^(64 n) < N */
		bn_mont_mul(t, x, big->rr, big); /* R R^4 / R^2 = R^3 mod N */
	} else {
		pow2_mod_vartime(t, 3 * n, big, b); /* R^3 mod N */
	}
	redc(c->rr, t, c);
	wipe(t, sizeof(t));
	rr52_set(c);
	return 0;
}

/*
 * r (n limbs) = 2^(64 k) mod m, for public m of bit length b >= 2 and
 * k >= the limbs of m: Knuth's algorithm D (TAOCP 4.3.1) on the one-bit
 * dividend, normalized so the divisor's top bit is set. Variable time.
 */
static void pow2_mod_vartime(uint64_t *r, size_t k, const struct bn_mont *c, size_t b)
{
	size_t nm = (b + 63) / 64, ul = k + 1;
	unsigned s = (unsigned)(64 * nm - b);
	uint64_t v[HS_BN_LIMBS], u[2 * HS_BN_LIMBS + 2];

	for (size_t i = 0; i < nm; i++)
		v[i] = (c->m[i] << s) | (i > 0 && s ? c->m[i - 1] >> (64 - s) : 0);
	memset(u, 0, (ul + 1) * sizeof(*u));
	u[k] = (uint64_t)1 << s; /* 2^(64k + s) < 2^(64(k+1)) */
	if (nm == 1) {
		u128 rem = 0;

		for (size_t i = ul; i > 0; i--)
			rem = ((rem << 64) | u[i - 1]) % v[0];
		u[0] = (uint64_t)rem;
	} else {
		for (size_t j = ul - nm + 1; j-- > 0;) {
			u128 num = ((u128)u[j + nm] << 64) | u[j + nm - 1];
			u128 qhat = num / v[nm - 1], rhat = num % v[nm - 1], z;
			uint64_t borrow = 0, carry = 0;

			/* the estimate is at most 2 too large; these tests catch nearly all of it */
			while ((qhat >> 64) != 0 ||
			       qhat * v[nm - 2] > ((rhat << 64) | u[j + nm - 2])) {
				qhat--;
				rhat += v[nm - 1];
				if ((rhat >> 64) != 0)
					break;
			}
			for (size_t i = 0; i < nm; i++) { /* u[j..j+nm] -= qhat v */
				u128 p = (u128)(uint64_t)qhat * v[i] + carry;

				carry = (uint64_t)(p >> 64);
				z = (u128)u[i + j] - (uint64_t)p - borrow;
				u[i + j] = (uint64_t)z;
				borrow = (uint64_t)(z >> 64) & 1;
			}
			z = (u128)u[j + nm] - carry - borrow;
			u[j + nm] = (uint64_t)z;
			if ((uint64_t)(z >> 64) & 1) /* one too many: add v back */
				u[j + nm] += bn_add(u + j, u + j, v, nm);
		}
	}
	memset(r, 0, c->n * sizeof(*r));
	for (size_t i = 0; i < nm; i++) /* the remainder, shifted back */
		r[i] = (u[i] >> s) | (s && i + 1 < nm ? u[i + 1] << (64 - s) : 0);
}

int bn_mont_init_vartime(struct bn_mont *c, const uint64_t *m, size_t n)
{
	int err = mont_setup(c, m, n);
	size_t b;

	if (err)
		return err;
	b = bn_bitlen_vartime(m, n);
	if (b < 2 || (m[0] & 1) == 0)
		return HS_ERR_ARG; /* m = 1, or even */
	pow2_mod_vartime(c->one, n, c, b);    /* R mod m */
	pow2_mod_vartime(c->rr, 2 * n, c, b); /* R^2 mod m */
	if (c->ifma && n == 32)
		pow2_mod_vartime(c->rr52, 65, c, b); /* R'^2 = 2^4160 = 2^(64 65) mod m */
	else
		rr52_set(c); /* n = 16: 2^2184 is no whole number of limbs */
	return 0;
}

/* out = table[w], reading every entry under a mask. */
static void table_lookup(uint64_t *out, const uint64_t (*table)[HS_BN_LIMBS], uint64_t w,
			 size_t n)
{
	memset(out, 0, n * sizeof(*out));
	for (uint64_t i = 0; i < WIN_SIZE; i++) {
		uint64_t mask = ct_is_zero_mask_u64(i ^ w);
		for (size_t j = 0; j < n; j++)
			out[j] |= table[i][j] & mask;
	}
}

void bn_mod_exp(uint64_t *r, const uint64_t *a, const uint64_t *e, size_t e_n,
		   const struct bn_mont *c)
{
	uint64_t table[WIN_SIZE][HS_BN_LIMBS], acc[HS_BN_LIMBS], t[HS_BN_LIMBS];
	size_t n = c->n;

	memcpy(table[0], c->one, n * sizeof(*acc));
	bn_mont_to(table[1], a, c);
	for (unsigned i = 2; i < WIN_SIZE; i++)
		bn_mont_mul(table[i], table[i - 1], table[1], c);
	memcpy(acc, c->one, n * sizeof(*acc));
	for (size_t bit = 64 * e_n; bit > 0; bit -= WIN_BITS) {
		size_t pos = bit - WIN_BITS; /* public: the windows' positions are fixed */
		uint64_t w = (e[pos / 64] >> (pos % 64)) & (WIN_SIZE - 1);

		for (unsigned k = 0; k < WIN_BITS; k++)
			bn_mont_sqr(acc, acc, c);
		table_lookup(t, (const uint64_t(*)[HS_BN_LIMBS])table, w, n);
		bn_mont_mul(acc, acc, t, c); /* always multiply: by R (= 1) when w = 0 */
	}
	bn_mont_from(r, acc, c);
	wipe(table, sizeof(table));
	wipe(acc, sizeof(acc));
	wipe(t, sizeof(t));
}

void bn_mod_exp_x2(uint64_t *r1, const uint64_t *a1, const uint64_t *e1, const struct bn_mont *c1,
		   uint64_t *r2, const uint64_t *a2, const uint64_t *e2, const struct bn_mont *c2,
		   size_t e_n)
{
#if defined(HS_HAVE_BN_IFMA)
	/* public: properties of the CPU and of the key's sizes */
	if (c1->ifma && c2->ifma && c1->n == 16 && c2->n == 16 && e_n == 16) {
		bn_mod_exp_x2_ifma(r1, a1, e1, c1, r2, a2, e2, c2, e_n);
		return;
	}
#endif
	bn_mod_exp(r1, a1, e1, e_n, c1);
	bn_mod_exp(r2, a2, e2, e_n, c2);
}

int bn_mod_exp_public(uint64_t *r, const uint64_t *a, const uint64_t *e, size_t e_n,
		      const uint64_t *m, size_t n)
{
	struct bn_mont c;
	int err;

#if defined(HS_HAVE_BN_IFMA)
	/* the IFMA exponentiation needs only m, m0inv and R'^2 = 2^(64 65) mod m */
	if (n == 32 && (err = mont_setup(&c, m, n)) == 0 && c.ifma &&
	    bn_bitlen_vartime(e, e_n) != 0) {
		size_t b = bn_bitlen_vartime(m, n);

		if (b < 2 || (m[0] & 1) == 0)
			return HS_ERR_ARG;
		pow2_mod_vartime(c.rr52, 65, &c, b);
		bn_mod_exp_vartime_ifma(r, a, e, bn_bitlen_vartime(e, e_n), &c);
		return 0;
	}
#endif
	if ((err = bn_mont_init_vartime(&c, m, n)) != 0)
		return err;
	bn_mod_exp_vartime(r, a, e, e_n, &c);
	return 0;
}

void bn_mod_exp_vartime(uint64_t *r, const uint64_t *a, const uint64_t *e, size_t e_n,
			   const struct bn_mont *c)
{
	uint64_t am[HS_BN_LIMBS], acc[HS_BN_LIMBS];
	size_t bits = bn_bitlen_vartime(e, e_n);

	if (bits == 0) { /* a^0 = 1 mod m */
		bn_mont_from(r, c->one, c);
		return;
	}
#if defined(HS_HAVE_BN_IFMA)
	if (c->ifma) {
		bn_mod_exp_vartime_ifma(r, a, e, bits, c);
		return;
	}
#endif
	/* acc = a^(top bit) R, then square-and-multiply down to bit 1 */
	bn_mont_to(am, a, c);
	memcpy(acc, am, c->n * sizeof(*acc));
	for (size_t i = bits - 1; i > 1; i--) {
		bn_mont_sqr(acc, acc, c);
		if ((e[(i - 1) / 64] >> ((i - 1) % 64)) & 1)
			bn_mont_mul(acc, acc, am, c);
	}
	if (bits == 1) {
		bn_mont_from(r, acc, c);
		return;
	}
	bn_mont_sqr(acc, acc, c);
	/* bit 0: mont(acc, a) = acc a R^-1 leaves Montgomery form in the same product */
	if (e[0] & 1)
		bn_mont_mul(r, acc, a, c);
	else
		bn_mont_from(r, acc, c);
}

/*
 * ---- inversion: Bernstein-Yang "safegcd" divsteps (see the notes) ----
 *
 * f, g, d, e are in signed 62-bit limbs, updated by crypto/safegcd.h
 * (the updates sg256_inv runs too); here only the conversions, the count
 * and the end.
 */
#define DIVSTEPS 59 /* per batch (sg_divsteps_59) */
#define M62 SG_M62
/* 62-bit limbs for n 64-bit ones: 62 L >= 64 n + 2 (the sign and 2m) */
#define L62(n) ((64 * (n)) / 62 + 1)
#define INV_LIMBS L62(HS_BN_LIMBS)

/* bit i of a (n limbs) on: the 62-bit limb at bit offset 62 k */
static void to_l62(int64_t *v, const uint64_t *a, size_t n)
{
	for (size_t k = 0; k < L62(n); k++) {
		size_t bit = 62 * k, w = bit / 64, sh = bit % 64;
		uint64_t x = w < n ? a[w] >> sh : 0;

		if (sh > 2 && w + 1 < n)
			x |= a[w + 1] << (64 - sh);
		v[k] = (int64_t)(x & M62);
	}
}

/* v (limbs in [0, 2^62), value below 2^(64 n)) back to n 64-bit limbs */
static void from_l62(uint64_t *a, const int64_t *v, size_t n)
{
	memset(a, 0, n * sizeof(*a));
	for (size_t k = 0; k < L62(n); k++) {
		size_t bit = 62 * k, w = bit / 64, sh = bit % 64;
		uint64_t x = (uint64_t)v[k];

		if (w < n)
			a[w] |= x << sh;
		if (sh > 2 && w + 1 < n)
			a[w + 1] |= x >> (64 - sh);
	}
}

/* All inversion state, wiped as a whole. */
struct inv_ws {
	int64_t f[INV_LIMBS], g[INV_LIMBS], d[INV_LIMBS], e[INV_LIMBS], m[INV_LIMBS];
	struct sg_mat t;
};

/* Bernstein-Yang theorem 11.2: (49 bits + 80) / 17 divsteps make g = 0; one batch more */
static size_t inv_batches(size_t n)
{
	size_t bits = 64 * n;

	return ((49 * bits + 80) / 17 + DIVSTEPS - 1) / DIVSTEPS + 1;
}

/*
 * now g = 0 and f = +-gcd(a, m); d a = f (mod m): r = f d (f = +-1), and
 * all-ones when f is +-1 (the limbs of -1: all 62 bits set, the top -1)
 */
static uint64_t inv_finish(uint64_t *r, struct inv_ws *w, size_t n)
{
	size_t len = L62(n);
	uint64_t one = 0, mone = 0;

	for (size_t i = 0; i + 1 < len; i++) {
		one |= (uint64_t)w->f[i] ^ (i == 0);
		mone |= (uint64_t)w->f[i] ^ M62;
	}
	one |= (uint64_t)w->f[len - 1];
	mone |= (uint64_t)w->f[len - 1] ^ ~(uint64_t)0;
	sg_normalize(w->d, w->f[len - 1], w->m, len);
	from_l62(r, w->d, n);
	wipe(w, sizeof(*w));
	return ct_is_zero_mask_u64(one) | ct_is_zero_mask_u64(mone);
}

uint64_t bn_mod_inv(uint64_t *r, const uint64_t *a, const struct bn_mont *c)
{
	struct inv_ws w;
	size_t n = c->n, len = L62(n), batches = inv_batches(n);
	uint64_t minv = (uint64_t)0 - c->m0inv; /* 1/m mod 2^64 */
	int64_t zeta = -1; /* delta = 1 */

	memset(&w, 0, sizeof(w));
	to_l62(w.f, c->m, n);
	to_l62(w.m, c->m, n);
	to_l62(w.g, a, n);
	w.e[0] = 1;
	for (size_t i = 0; i < batches; i++) {
		zeta = sg_divsteps_59(zeta, (uint64_t)w.f[0], (uint64_t)w.g[0], &w.t);
		sg_update_de(w.d, w.e, &w.t, w.m, minv, len);
		sg_update_fg(w.f, w.g, &w.t, len);
	}
	return inv_finish(r, &w, n);
}

uint64_t bn_mod_inv_x2(uint64_t *r1, const uint64_t *a1, const struct bn_mont *c1, uint64_t *r2,
		       const uint64_t *a2, const struct bn_mont *c2)
{
	uint64_t ok = bn_mod_inv(r1, a1, c1);

	return ok & bn_mod_inv(r2, a2, c2);
}
