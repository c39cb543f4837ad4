/*
 * Implementation notes: P-256 point arithmetic and scalar multiplication.
 *
 * - Projective (X:Y:Z) coordinates with the complete formulas of Renes,
 *   Costello and Batina 2016 (algorithm 4: addition, 5: mixed addition
 *   with an affine point, 6: doubling; all for a = -3). They are exception
 *   free: infinity, P + P and P + (-P) need no test, hence no branch.
 * - Variable base (p256_point_mul): signed fixed windows of 5 bits,
 *   in Jacobian coordinates (doubling 4M + 4S instead of 8M + 3S + 2
 *   products by b). The scalar is recoded into 52 digits in [-15, 16];
 *   each window costs 5 doublings and one addition of a table entry in
 *   {0, P, ..., 16P} selected by scanning all 16 entries under a mask,
 *   then negated under a mask. The table's points share one Z (co-Z,
 *   built by ZADDU and a backward rescaling: coz_table), so an entry is
 *   64 bytes like a fixed-base entry (the same scans, p256_lookup_*)
 *   and the addition takes Z^2 and Z^3 computed once (11M + 3S instead
 *   of 12M + 4S). The addition (jws_add_ct) selects
 *   among sum, p and q with masks (infinity on either side); only the last
 *   window's can meet p = q (argued above p256_point_mul), and that one
 *   computes the doubling too and selects it. The number and order of
 *   operations never depend on k.
 * - With BMI2 and ADX, the Jacobian doubling and additions run as whole
 *   assembly blocks (crypto/asm/p256_point_adx.c: the same formulas, no
 *   call per product, chains after a product kept in registers) on a
 *   workspace (struct p256_jws) that the caller wipes; the C formulas
 *   below stay the reference (tests compare them bit for bit).
 * - Fixed base (p256_point_mul_base): k mod n = sum d_i 2^(7i) with 37
 *   signed digits in [-63, 64]; the table holds (j+1) 2^(7i) G for j < 64,
 *   so kG is 37 mixed Jacobian additions (in two interleaved chains)
 *   and no doubling (why the
 *   incomplete formula cannot fail there is argued above the function).
 *   A zero digit still does the addition (of a dummy entry) and discards
 *   it with a masked move.
 * - Digits are computed with masks (no branch); the carry out of a window
 *   is 1 when its value exceeds half the window range.
 * - Verification only (p256_point_mul_double_vartime, public inputs):
 *   variable time, Jacobian coordinates (cheaper doublings, 4M+4S), u2 Q
 *   by a width-5 NAF over Q, 3Q, ..., 15Q (built by co-Z additions,
 *   each kept with its Z^2 and Z^3: 11M + 3S an addition in the chain);
 *   exceptional cases of the incomplete
 *   formulas (infinity, P == Q, P == -Q) are detected and branched on.
 *   u1 G: with AVX-512 IFMA, the eight-lane fixed-base sum with the
 *   entries read directly (p256_mul_base_ifma_vartime) and one complete
 *   projective addition; else the fixed-base table without
 *   scans, in Jacobian coordinates.
 * Secrets (the scalar, its digits, intermediate points) are wiped.
 */
#include "crypto/p256_point.h"

#include <string.h>

#include "base/err.h"
#include "base/wipe.h"
#include "crypto/asm/p256_point_adx.h"
#include "crypto/cpu.h"
#include "crypto/ct.h"

/*
 * short names for the field operations, to keep the formulas readable;
 * the products stay calls: inlining the MULX/ADX assembly (fixed
 * registers) into the formulas was measured slower (register spills)
 */
static inline void fmul(p256_fe r, const p256_fe a, const p256_fe b)
{
	p256_fe_mul(r, a, b);
}
static inline void fsqr(p256_fe r, const p256_fe a)
{
	p256_fe_sqr(r, a);
}
static inline void fadd(p256_fe r, const p256_fe a, const p256_fe b)
{
	p256_fe_add(r, a, b);
}
static inline void fsub(p256_fe r, const p256_fe a, const p256_fe b)
{
	p256_fe_sub(r, a, b);
}
/*
 * if (mask) r = a; inline here because the hot loops call it per digit.
 * The empty asm keeps the loads 64-bit: gcc would otherwise vectorize the
 * loop, and a 128-bit load of limbs that the assembly formulas just
 * stored one by one waits for the stores to retire (a failed store
 * forward: a tenth of p256_point_mul's own time)
 */
static inline void fcmov(p256_fe r, const p256_fe a, uint64_t mask)
{
	mask = ct_barrier_u64(mask);
	for (int i = 0; i < 4; i++) {
		uint64_t v = r[i], u = a[i];

		__asm__("" : "+r"(v), "+r"(u));
		r[i] = ct_select_u64(mask, u, v);
	}
}

/* affine G in Montgomery form (SEC 2 section 2.4.2) */
static const struct p256_affine generator = {
	{ 0x79e730d418a9143cull, 0x75ba95fc5fedb601ull, 0x79fb732b77622510ull,
	  0x18905f76a53755c6ull },
	{ 0xddf25357ce95560aull, 0x8b4ab8e4ba19e45cull, 0xd2e88688dd21f325ull,
	  0x8571ff1825885d85ull },
};

void p256_point_set_infinity(struct p256_point *r)
{
	p256_fe_set_zero(r->x);
	p256_fe_set_one(r->y);
	p256_fe_set_zero(r->z);
}

void p256_point_from_affine(struct p256_point *r, const struct p256_affine *a)
{
	p256_fe_copy(r->x, a->x);
	p256_fe_copy(r->y, a->y);
	p256_fe_set_one(r->z);
}

void p256_point_set_generator(struct p256_point *r)
{
	p256_point_from_affine(r, &generator);
}

/* RCB16 algorithm 4 (a = -3), step for step; 12M + 2 mult by b. */
void p256_point_add(struct p256_point *r, const struct p256_point *p,
		       const struct p256_point *q)
{
	p256_fe t0, t1, t2, t3, t4, x3, y3, z3, b;

	p256_fe_set_b(b);
	fmul(t0, p->x, q->x);
	fmul(t1, p->y, q->y);
	fmul(t2, p->z, q->z);
	fadd(t3, p->x, p->y);
	fadd(t4, q->x, q->y);
	fmul(t3, t3, t4);
	fadd(t4, t0, t1);
	fsub(t3, t3, t4);
	fadd(t4, p->y, p->z);
	fadd(x3, q->y, q->z);
	fmul(t4, t4, x3);
	fadd(x3, t1, t2);
	fsub(t4, t4, x3);
	fadd(x3, p->x, p->z);
	fadd(y3, q->x, q->z);
	fmul(x3, x3, y3);
	fadd(y3, t0, t2);
	fsub(y3, x3, y3);
	fmul(z3, b, t2);
	fsub(x3, y3, z3);
	fadd(z3, x3, x3);
	fadd(x3, x3, z3);
	fsub(z3, t1, x3);
	fadd(x3, t1, x3);
	fmul(y3, b, y3);
	fadd(t1, t2, t2);
	fadd(t2, t1, t2);
	fsub(y3, y3, t2);
	fsub(y3, y3, t0);
	fadd(t1, y3, y3);
	fadd(y3, t1, y3);
	fadd(t1, t0, t0);
	fadd(t0, t1, t0);
	fsub(t0, t0, t2);
	fmul(t1, t4, y3);
	fmul(t2, t0, y3);
	fmul(y3, x3, z3);
	fadd(y3, y3, t2);
	fmul(x3, t3, x3);
	fsub(x3, x3, t1);
	fmul(z3, t4, z3);
	fmul(t1, t3, t0);
	fadd(z3, z3, t1);
	p256_fe_copy(r->x, x3);
	p256_fe_copy(r->y, y3);
	p256_fe_copy(r->z, z3);
}

/* RCB16 algorithm 5 (a = -3, Z2 = 1); 11M + 2 mult by b. */
void p256_point_add_affine(struct p256_point *r, const struct p256_point *p,
			      const struct p256_affine *q)
{
	p256_fe t0, t1, t2, t3, t4, x3, y3, z3, b;

	p256_fe_set_b(b);
	fmul(t0, p->x, q->x);
	fmul(t1, p->y, q->y);
	fadd(t3, q->x, q->y);
	fadd(t4, p->x, p->y);
	fmul(t3, t3, t4);
	fadd(t4, t0, t1);
	fsub(t3, t3, t4);
	fmul(t4, q->y, p->z);
	fadd(t4, t4, p->y);
	fmul(y3, q->x, p->z);
	fadd(y3, y3, p->x);
	fmul(z3, b, p->z);
	fsub(x3, y3, z3);
	fadd(z3, x3, x3);
	fadd(x3, x3, z3);
	fsub(z3, t1, x3);
	fadd(x3, t1, x3);
	fmul(y3, b, y3);
	fadd(t1, p->z, p->z);
	fadd(t2, t1, p->z);
	fsub(y3, y3, t2);
	fsub(y3, y3, t0);
	fadd(t1, y3, y3);
	fadd(y3, t1, y3);
	fadd(t1, t0, t0);
	fadd(t0, t1, t0);
	fsub(t0, t0, t2);
	fmul(t1, t4, y3);
	fmul(t2, t0, y3);
	fmul(y3, x3, z3);
	fadd(y3, y3, t2);
	fmul(x3, t3, x3);
	fsub(x3, x3, t1);
	fmul(z3, t4, z3);
	fmul(t1, t3, t0);
	fadd(z3, z3, t1);
	p256_fe_copy(r->x, x3);
	p256_fe_copy(r->y, y3);
	p256_fe_copy(r->z, z3);
}

/* RCB16 algorithm 6 (a = -3); 8M + 3S + 2 mult by b. */
void p256_point_double(struct p256_point *r, const struct p256_point *p)
{
	p256_fe t0, t1, t2, t3, x3, y3, z3, b;

	p256_fe_set_b(b);
	fsqr(t0, p->x);
	fsqr(t1, p->y);
	fsqr(t2, p->z);
	fmul(t3, p->x, p->y);
	fadd(t3, t3, t3);
	fmul(z3, p->x, p->z);
	fadd(z3, z3, z3);
	fmul(y3, b, t2);
	fsub(y3, y3, z3);
	fadd(x3, y3, y3);
	fadd(y3, x3, y3);
	fsub(x3, t1, y3);
	fadd(y3, t1, y3);
	fmul(y3, x3, y3);
	fmul(x3, x3, t3);
	fadd(t3, t2, t2);
	fadd(t2, t2, t3);
	fmul(z3, b, z3);
	fsub(z3, z3, t2);
	fsub(z3, z3, t0);
	fadd(t3, z3, z3);
	fadd(z3, z3, t3);
	fadd(t3, t0, t0);
	fadd(t0, t3, t0);
	fsub(t0, t0, t2);
	fmul(t0, t0, z3);
	fadd(y3, y3, t0);
	fmul(t0, p->y, p->z);
	fadd(t0, t0, t0);
	fmul(z3, t0, z3);
	fsub(x3, x3, z3);
	fmul(z3, t0, t1);
	fadd(z3, z3, z3);
	fadd(z3, z3, z3);
	p256_fe_copy(r->x, x3);
	p256_fe_copy(r->y, y3);
	p256_fe_copy(r->z, z3);
}

void p256_point_neg(struct p256_point *r, const struct p256_point *p)
{
	p256_fe_copy(r->x, p->x);
	p256_fe_neg(r->y, p->y);
	p256_fe_copy(r->z, p->z);
}

void p256_point_cmov(struct p256_point *r, const struct p256_point *a, uint64_t mask)
{
	p256_fe_cmov(r->x, a->x, mask);
	p256_fe_cmov(r->y, a->y, mask);
	p256_fe_cmov(r->z, a->z, mask);
}

uint64_t p256_point_is_infinity(const struct p256_point *p)
{
	return p256_fe_is_zero(p->z);
}

int p256_point_from_bytes(struct p256_point *r, const uint8_t x[32], const uint8_t y[32])
{
	p256_fe lhs, rhs, t, b;

	if (!p256_fe_from_bytes(r->x, x) || !p256_fe_from_bytes(r->y, y))
		return HS_ERR_BAD_POINT;
	/* y^2 == x^3 - 3x + b */
	fsqr(lhs, r->y);
	fsqr(rhs, r->x);
	fmul(rhs, rhs, r->x);
	fadd(t, r->x, r->x);
	fadd(t, t, r->x);
	fsub(rhs, rhs, t);
	p256_fe_set_b(b);
	fadd(rhs, rhs, b);
	if (!p256_fe_eq(lhs, rhs))
		return HS_ERR_BAD_POINT;
	p256_fe_set_one(r->z);
	return 0;
}

uint64_t p256_point_to_bytes(uint8_t x[32], uint8_t y[32], const struct p256_point *p)
{
	p256_fe zinv, t;

	p256_fe_inv(zinv, p->z); /* 1/0 gives 0, so infinity maps to (0, 0) */
	fmul(t, p->x, zinv);
	p256_fe_to_bytes(x, t);
	fmul(t, p->y, zinv);
	p256_fe_to_bytes(y, t);
	wipe(zinv, sizeof(zinv));
	wipe(t, sizeof(t));
	return p256_point_is_infinity(p);
}

/*
 * 1/(a.z r.z) once, then 1/a.z = r.z (a.z r.z)^-1 and 1/r.z = a.z (a.z
 * r.z)^-1: three products instead of a second inversion. r.z = 0
 * (infinity) is replaced by 1 under a mask, so a still gets its inverse,
 * and r's inverse is then 0.
 */
uint64_t p256_point_pair_to_bytes(uint8_t ax[32], uint8_t ay[32], const struct p256_point *a,
				  uint8_t rx[32], const struct p256_point *r)
{
	static const p256_fe zero;
	uint64_t inf = p256_point_is_infinity(r);
	p256_fe one, rz, t, ia, ir, u;

	p256_fe_set_one(one);
	memcpy(rz, r->z, sizeof(rz));
	fcmov(rz, one, inf);
	fmul(t, a->z, rz);
	p256_fe_inv(t, t);
	fmul(ia, t, rz);
	fmul(ir, t, a->z);
	fcmov(ir, zero, inf); /* 1/0 gives 0, as p256_fe_inv's does: infinity maps to 0 */
	fmul(u, a->x, ia);
	p256_fe_to_bytes(ax, u);
	fmul(u, a->y, ia);
	p256_fe_to_bytes(ay, u);
	fmul(u, r->x, ir);
	p256_fe_to_bytes(rx, u);
	wipe(rz, sizeof(rz));
	wipe(t, sizeof(t));
	wipe(ia, sizeof(ia));
	wipe(ir, sizeof(ir));
	wipe(u, sizeof(u));
	return inf;
}

/* w bits of k starting at bit pos (pos is public: a loop counter). */
static uint32_t scalar_bits(const p256_sc k, unsigned pos, unsigned w)
{
	unsigned limb = pos / 64, off = pos % 64;
	uint64_t v;

	if (limb >= 4)
		return 0;
	v = k[limb] >> off;

	if (off + w > 64 && limb + 1 < 4)
		v |= k[limb + 1] << (64 - off);
	return (uint32_t)v & ((1u << w) - 1);
}

/*
 * Signed fixed-window recoding: k = sum d[i] 2^(w i), each digit in
 * [-2^(w-1) + 1, 2^(w-1)]. A window value v (plus the carry in) above
 * 2^(w-1) becomes v - 2^w with a carry of 1 into the next window.
 * ndig * w must exceed 256 so the last window absorbs the final carry.
 */
static void recode(int8_t *d, unsigned ndig, const p256_sc k, unsigned w)
{
	uint32_t carry = 0;

	for (unsigned i = 0; i < ndig; i++) {
		uint32_t v = scalar_bits(k, w * i, w) + carry;
		/* v <= 2^w: (2^(w-1) - v) wraps, setting bit 31, iff v > 2^(w-1) */
		carry = ct_barrier_u32(((1u << (w - 1)) - v) >> 31);
		d[i] = (int8_t)(int32_t)(v - (carry << w));
	}
}

/* sign mask (all-ones if d < 0) and |d| of a digit, without a branch */
static uint64_t digit_sign(int8_t d, uint32_t *abs)
{
	uint32_t u = (uint32_t)(int32_t)d;
	uint32_t neg = 0 - (u >> 31);

	*abs = (u ^ neg) - neg;
	return (uint64_t)0 - (uint64_t)(neg & 1);
}

static inline uint64_t mask64(uint32_t m32)
{
	return (uint64_t)0 - (uint64_t)(m32 & 1);
}

/*
 * r = row[idx - 1] (zeros for idx = 0); reads the whole row, 16 bytes at
 * a time (GCC vector extension: SSE2 on any x86-64). Each entry is ANDed
 * with its mask and ORed in: all-ones for the wanted entry, zero for the
 * others, so the addresses read and the instructions run are the same
 * for every idx.
 */
void p256_lookup_portable(struct p256_affine *r, const struct p256_affine *row, unsigned n,
			  uint32_t idx)
{
	typedef uint64_t v2 __attribute__((vector_size(16)));
	v2 a0 = { 0, 0 }, a1 = { 0, 0 }, a2 = { 0, 0 }, a3 = { 0, 0 }, e0, e1, e2, e3;

	for (uint32_t j = 0; j < n; j++) {
		/* all-ones for the wanted entry only */
		uint64_t m = mask64(ct_eq_mask_u32(idx, j + 1));
		v2 vm = { m, m };

		memcpy(&e0, &row[j].x[0], sizeof(e0));
		memcpy(&e1, &row[j].x[2], sizeof(e1));
		memcpy(&e2, &row[j].y[0], sizeof(e2));
		memcpy(&e3, &row[j].y[2], sizeof(e3));
		a0 |= vm & e0;
		a1 |= vm & e1;
		a2 |= vm & e2;
		a3 |= vm & e3;
	}
	memcpy(&r->x[0], &a0, sizeof(a0));
	memcpy(&r->x[2], &a1, sizeof(a1));
	memcpy(&r->y[0], &a2, sizeof(a2));
	memcpy(&r->y[2], &a3, sizeof(a3));
}


/*
 * Variable time, Jacobian coordinates: public data only (verify).
 * (X:Y:Z) stands for (X/Z^2, Y/Z^3); Z = 0 is infinity. These formulas
 * are NOT complete: the functions below test the exceptional cases
 * (an input at infinity, P == Q, P == -Q) with branches, and the scalar
 * digits drive branches and table indexes. That is fine for public
 * scalars and points and nothing else; they cost 4M+4S (doubling),
 * 8M+3S (adding an affine point) and 12M+4S (general addition) against
 * 8M+3S, 11M and 12M plus multiplications by b for the complete ones.
 */
struct jac {
	p256_fe x, y, z;
};


static void jac_set_infinity(struct jac *r)
{
	p256_fe_set_one(r->x);
	p256_fe_set_one(r->y);
	p256_fe_set_zero(r->z);
}

/* if (mask) r = a */
static void jac_cmov(struct jac *r, const struct jac *a, uint64_t mask)
{
	fcmov(r->x, a->x, mask);
	fcmov(r->y, a->y, mask);
	fcmov(r->z, a->z, mask);
}

/*
 * r = 2p for a = -3, as "dbl-2001-b" of the Explicit-Formulas Database
 * (3M + 5S there) but arranged around 2Y, which saves additions: with
 * delta = Z^2, M = 3 (X - delta)(X + delta), y4 = (2Y)^2 = 4 Y^2 and
 * S = X y4 = 4 X Y^2: X3 = M^2 - 2S, Y3 = M (S - X3) - y4^2 / 2,
 * Z3 = 2Y Z (4M + 4S, ten additions instead of fourteen).
 * Infinity stays infinity (Z3 = 0); no point of order 2 exists.
 * Straight-line code: constant time, also used by p256_point_mul.
 * With same != NULL, also p itself with r's Z (co-Z, for free: p scaled
 * by 2Y is (S, 8 Y^4, Z3)) into *same.
 */
static void jac_double_coz(struct jac *r, struct jac *same, const struct jac *p)
{
	p256_fe delta, y2, s, m, t, z3;

	fsqr(delta, p->z);
	fadd(y2, p->y, p->y);
	fmul(z3, y2, p->z);
	fsub(t, p->x, delta);
	fadd(m, p->x, delta);
	fmul(m, t, m);
	fadd(t, m, m);
	fadd(m, t, m); /* M */
	fsqr(y2, y2);  /* 4 Y^2 */
	fmul(s, p->x, y2);
	fsqr(y2, y2);  /* 16 Y^4 */
	p256_fe_half(y2, y2);
	fsqr(t, m);
	fsub(t, t, s);
	fsub(r->x, t, s); /* p->x, p->y, p->z are not read after this */
	fsub(t, s, r->x);
	fmul(t, m, t);
	fsub(r->y, t, y2);
	p256_fe_copy(r->z, z3);
	if (same != NULL) {
		p256_fe_copy(same->x, s);
		p256_fe_copy(same->y, y2);
		p256_fe_copy(same->z, z3);
	}
}

static void jac_double_c(struct jac *r, const struct jac *p)
{
	jac_double_coz(r, NULL, p);
}

/*
 * nonzero when the whole-formula assembly of crypto/asm/p256_point_adx.c
 * runs: HS_P256_ADX_INTEL for its Intel form (p256_point_adx_intel.c)
 */
static inline int use_adx(void)
{
#if defined(HS_HAVE_P256_ADX)
	return atomic_load_explicit(&p256_fe_use_adx, memory_order_relaxed);
#else
	return 0;
#endif
}

/* f(...) of the form p256_fe_select() chose (use_adx() nonzero) */
#define ADX_CALL(f, ...)                                                                       \
	(use_adx() == HS_P256_ADX_INTEL ? f##_intel(__VA_ARGS__) : f(__VA_ARGS__))

/*
 * a point into the workspace's p, q or r, and back: struct jac and the
 * workspace's p256_fe[3] are the same 96 bytes (inline copies: these run
 * once per doubling)
 */
_Static_assert(sizeof(struct jac) == 3 * sizeof(p256_fe), "struct jac is X, Y, Z");
_Static_assert(sizeof(struct p256_point) == sizeof(struct jac), "so is struct p256_point");
_Static_assert(sizeof(struct p256_affine) == 2 * sizeof(p256_fe), "an affine entry is X, Y");

/*
 * n bytes (a multiple of 8) in 64-bit moves, for a copy that the assembly
 * reads right after: its 64-bit loads wait less on 64-bit stores than on
 * the vector stores memcpy becomes (about 0.6k cycles of a verification)
 */
static inline void copy64(void *dst, const void *src, size_t n)
{
	uint64_t *d = dst;
	const uint64_t *sr = src;

	for (size_t i = 0; i < n / 8; i++) {
		uint64_t v = sr[i];

		__asm__("" : "+r"(v));
		d[i] = v;
	}
}

static inline void jws_put(p256_fe dst[3], const struct jac *p)
{
	memcpy(dst, p, sizeof(*p));
}

static inline void jws_get(struct jac *r, const p256_fe src[3])
{
	memcpy(r, src, sizeof(*r));
}

/* the workspace's p = 2p by jac_double_c's formula, in assembly when use_adx() */
static void jws_double(struct p256_jws *ws)
{
	struct jac p;

#if defined(HS_HAVE_P256_ADX)
	if (use_adx()) {
		ADX_CALL(p256_jac_double_adx, ws);
		return;
	}
#endif
	jws_get(&p, ws->p);
	jac_double_c(&p, &p);
	jws_put(ws->p, &p);
}

/*
 * Temporaries of the Jacobian additions, in one struct so that the
 * constant-time caller (p256_point_mul) wipes them once at its end
 * instead of after every addition.
 */
struct add_tmp {
	p256_fe z1z1, z2z2, u1, u2, s1, s2, h, rr, hh, hhh, v, s1hhh, t;
	struct jac sum, dbl;
	struct p256_jws jw; /* the assembly's (use_adx()) */
	const p256_fe *zz;  /* ADD_CACHED: q's Z^2 and Z^3 (zz[0], zz[1]) */
};

/*
 * The common tail of both additions, with w->h = U2 - U1 != 0 and
 * w->rr = S2 - S1: X3 = rr^2 - h^3 - 2 U1 h^2, Y3 = rr (U1 h^2 - X3) -
 * S1 h^3; Z3 is set by the caller. r may alias the input that u1 and s1
 * came from.
 */
static void jac_add_tail(struct jac *r, const p256_fe u1, const p256_fe s1, struct add_tmp *w)
{
	fsqr(w->hh, w->h);
	fmul(w->hhh, w->h, w->hh);
	fmul(w->v, u1, w->hh);
	fmul(w->s1hhh, s1, w->hhh); /* read u1 and s1 before r->x, r->y change */
	fsqr(w->t, w->rr);
	fsub(w->t, w->t, w->hhh);
	fsub(w->t, w->t, w->v);
	fsub(r->x, w->t, w->v);
	fsub(w->t, w->v, r->x);
	fmul(w->t, w->rr, w->t);
	fsub(r->y, w->t, w->s1hhh);
}

/*
 * The first half of "add-1998-cmo-2", shared by both additions:
 * u1 = X1 Z2^2, s1 = Y1 Z2^3, h = X2 Z1^2 - u1, rr = Y2 Z1^3 - s1, into w.
 */
static void jac_add_start(const struct jac *p, const struct jac *q, struct add_tmp *w)
{
	fsqr(w->z1z1, p->z);
	fsqr(w->z2z2, q->z);
	fmul(w->u1, p->x, w->z2z2);
	fmul(w->u2, q->x, w->z1z1);
	fmul(w->s1, p->y, q->z);
	fmul(w->s1, w->s1, w->z2z2);
	fmul(w->s2, q->y, p->z);
	fmul(w->s2, w->s2, w->z1z1);
	fsub(w->h, w->u2, w->u1);
	fsub(w->rr, w->s2, w->s1);
}

/*
 * What the workspace's q is for an addition: Jacobian; affine (its X and
 * Y); or Jacobian with its Z^2 and Z^3 given (w->zz: a table entry's,
 * computed once for many additions).
 */
enum add_kind { ADD_JAC = 0, ADD_AFFINE = 1, ADD_CACHED = 2 };

/*
 * The additions on the workspace w->jw, by the C formulas: r = p + q by
 * the incomplete formula ("add-1998-cmo-2", 12M + 4S; 11M + 3S with q's
 * Z^2 and Z^3 given; or with affine q, "madd-1998-cmo", 8M + 3S), and h,
 * rr for the caller's exceptional cases (h = 0: p = +-q, or either at
 * infinity). No branch; the temporaries stay in w.
 */
static void jws_add_c(struct add_tmp *w, enum add_kind kind)
{
	struct jac p, q;

	jws_get(&p, w->jw.p);
	jws_get(&q, w->jw.q);
	if (kind == ADD_CACHED) {
		fsqr(w->z1z1, p.z);
		fmul(w->u1, p.x, w->zz[0]);
		fmul(w->s1, p.y, w->zz[1]);
		fmul(w->u2, q.x, w->z1z1);
		fmul(w->s2, q.y, p.z);
		fmul(w->s2, w->s2, w->z1z1);
		fsub(w->h, w->u2, w->u1);
		fsub(w->rr, w->s2, w->s1);
		fmul(w->z1z1, p.z, q.z);
		fmul(w->sum.z, w->z1z1, w->h);
		jac_add_tail(&w->sum, w->u1, w->s1, w);
	} else if (kind == ADD_AFFINE) {
		fsqr(w->z1z1, p.z);
		fmul(w->u2, q.x, w->z1z1);
		fmul(w->s2, q.y, p.z);
		fmul(w->s2, w->s2, w->z1z1);
		fsub(w->h, w->u2, p.x);
		fsub(w->rr, w->s2, p.y);
		fmul(w->sum.z, p.z, w->h);
		jac_add_tail(&w->sum, p.x, p.y, w);
	} else {
		jac_add_start(&p, &q, w);
		fmul(w->z1z1, p.z, q.z);
		fmul(w->sum.z, w->z1z1, w->h); /* 0 when p = -q: the sum is infinity, rightly */
		jac_add_tail(&w->sum, w->u1, w->s1, w);
	}
	jws_put(w->jw.r, &w->sum);
	memcpy(w->jw.h, w->h, sizeof(w->h));
	memcpy(w->jw.rr, w->rr, sizeof(w->rr));
}

/* the same, in assembly when use_adx() */
static void jws_add(struct add_tmp *w, enum add_kind kind)
{
#if defined(HS_HAVE_P256_ADX)
	if (use_adx()) {
		if (kind == ADD_AFFINE)
			ADX_CALL(p256_jac_add_affine_adx, &w->jw);
		else if (kind == ADD_CACHED)
			ADX_CALL(p256_jac_add_cached_adx, &w->jw, w->zz);
		else
			ADX_CALL(p256_jac_add_adx, &w->jw);
		return;
	}
#endif
	jws_add_c(w, kind);
}

/*
 * The workspace's p += q on public points, the exceptional cases (an
 * input at infinity, p = q, p = -q) branched; kind says what q is.
 */
static void jws_add_vartime(struct add_tmp *w, enum add_kind kind)
{
	struct p256_jws *j = &w->jw;

	if (kind == ADD_AFFINE)
		p256_fe_set_one(j->q[2]); /* q as a Jacobian point too */
	if (p256_fe_is_zero(j->p[2])) {
		memcpy(j->p, j->q, sizeof(j->p));
		return;
	}
	if (p256_fe_is_zero(j->q[2]))
		return;
	jws_add(w, kind);
	if (p256_fe_is_zero(j->h)) {
		if (p256_fe_is_zero(j->rr)) { /* p == q */
			jws_double(j);
		} else { /* p == -q */
			p256_fe_set_one(j->p[0]);
			p256_fe_set_one(j->p[1]);
			p256_fe_set_zero(j->p[2]);
		}
		return;
	}
	copy64(j->p, j->r, sizeof(j->p));
}

/* r = p + q: "add-1998-cmo-2" with the exceptional cases branched (public data). */
static void jac_add(struct jac *r, const struct jac *p, const struct jac *q)
{
	struct add_tmp w;

	jws_put(w.jw.p, p);
	jws_put(w.jw.q, q);
	jws_add_vartime(&w, ADD_JAC);
	jws_get(r, w.jw.p);
}

#if defined(HS_TEST_HOOKS)
/*
 * The C formulas on the assembly's workspace, for tests/crypto/test_p256.c
 * to compare with crypto/asm/p256_point_adx.c.
 */
void p256_jws_double_c(struct p256_jws *w)
{
	struct jac p;

	jws_get(&p, w->p);
	jac_double_c(&p, &p);
	jws_put(w->p, &p);
}

void p256_jws_add_c(struct p256_jws *w, int kind, const p256_fe zz[2])
{
	struct add_tmp t;

	t.jw = *w;
	t.zz = zz;
	jws_add_c(&t, (enum add_kind)kind);
	*w = t.jw;
}
#endif

/* r = k * G for a public k: the fixed-base digits, direct table reads, zero digits skipped. */
static void jac_mul_base_vartime(struct jac *r, const p256_sc k)
{
	int8_t d[HS_P256_BASE_WINDOWS];
	struct add_tmp w;

	recode(d, HS_P256_BASE_WINDOWS, k, HS_P256_BASE_W);
	jac_set_infinity(r);
	jws_put(w.jw.p, r); /* the sum lives in the workspace */
	for (unsigned i = 0; i < HS_P256_BASE_WINDOWS; i++) {
		if (d[i] == 0)
			continue;
		memcpy(w.jw.q, &p256_base_table[i][(d[i] < 0 ? -d[i] : d[i]) - 1],
		       sizeof(struct p256_affine));
		if (d[i] < 0)
			p256_fe_neg(w.jw.q[1], w.jw.q[1]);
		jws_add_vartime(&w, ADD_AFFINE);
	}
	jws_get(r, w.jw.p);
}

#define WNAF_W 5
#define WNAF_MAX 257 /* a width-w NAF of k < 2^256 has at most 257 digits */

/* t (5 limbs) -= v for a small signed v; t >= v and the result fits */
static void sub_small(uint64_t t[5], int v)
{
	uint64_t m = (uint64_t)(v < 0 ? -v : v), old;

	for (int i = 0; i < 5 && m != 0; i++) {
		old = t[i];
		if (v > 0) {
			t[i] = old - m;
			m = t[i] > old; /* borrow */
		} else {
			t[i] = old + m;
			m = t[i] < old; /* carry */
		}
	}
}

/*
 * Width-w NAF of a public k: k = sum d[i] 2^i, every nonzero digit odd
 * and in (-2^(w-1), 2^(w-1)), any w consecutive digits hold at most one
 * nonzero. Returns the number of digits.
 */
static int wnaf(int8_t d[WNAF_MAX], const p256_sc k, unsigned w)
{
	uint64_t t[5] = { k[0], k[1], k[2], k[3], 0 };
	int n = 0;

	while ((t[0] | t[1] | t[2] | t[3] | t[4]) != 0) {
		int v = 0;

		if (t[0] & 1) {
			v = (int)(t[0] & ((1u << w) - 1));
			if (v >= 1 << (w - 1))
				v -= 1 << w;
			sub_small(t, v); /* now t = 0 mod 2^w */
		}
		d[n++] = (int8_t)v;
		for (int i = 0; i < 4; i++)
			t[i] = (t[i] >> 1) | (t[i + 1] << 63);
		t[4] >>= 1;
	}
	return n;
}

/* an odd multiple of p for the NAF: Jacobian, with its Z^2 and Z^3 (for ADD_CACHED) */
struct naf_entry {
	struct jac p;
	p256_fe zz[2];
};

static void naf_entry_set(struct naf_entry *e, const struct jac *p)
{
	e->p = *p;
	fsqr(e->zz[0], e->p.z);
	fmul(e->zz[1], e->zz[0], e->p.z);
}

/* the workspace's p += +-e (neg: minus), exceptional cases branched */
static void naf_add(struct add_tmp *w, const struct naf_entry *e, int neg)
{
	jws_put(w->jw.q, &e->p);
	w->zz = e->zz;
	if (neg)
		p256_fe_neg(w->jw.q[1], w->jw.q[1]);
	jws_add_vartime(w, ADD_CACHED);
}

/*
 * q = p + q for p and q with the same Z, and p rescaled to the sum's Z
 * ("ZADDU", Meloni 2007; 5M + 2S): with H = X1 - X2, C = H^2,
 * W1 = X1 C, W2 = X2 C, A1 = Y1 (W1 - W2): X3 = (Y1 - Y2)^2 - W1 - W2,
 * Y3 = (Y1 - Y2)(W1 - X3) - A1, Z3 = Z H, and p becomes (W1, A1, Z3)
 * (p scaled by H; H is left in h). Both finite and p != +-q (H != 0):
 * the caller's argument. Straight-line code; used on public points only
 * (the verification's table and p256_point_mul's table of the peer's
 * point). jws_zaddu_c is the formula on a workspace (p, q in, r, h and
 * the new p out); zaddu runs p256_jac_zaddu_adx instead when use_adx()
 * (the same operations: bit-identical).
 */
static void jws_zaddu_c(struct p256_jws *w)
{
	p256_fe *t = w->t;

	fsub(w->h, w->p[0], w->q[0]);
	fsqr(t[0], w->h);
	fmul(t[1], w->p[0], t[0]); /* W1 */
	fmul(t[2], w->q[0], t[0]); /* W2 */
	fsub(t[3], t[1], t[2]);
	fmul(t[3], w->p[1], t[3]); /* A1 */
	fsub(t[4], w->p[1], w->q[1]);
	fmul(w->r[2], w->p[2], w->h);
	fsqr(t[0], t[4]);
	fsub(t[0], t[0], t[1]);
	fsub(w->r[0], t[0], t[2]);
	fsub(t[2], t[1], w->r[0]);
	fmul(t[2], t[4], t[2]);
	fsub(w->r[1], t[2], t[3]);
	p256_fe_copy(w->p[0], t[1]);
	p256_fe_copy(w->p[1], t[3]);
	p256_fe_copy(w->p[2], w->r[2]);
}

static void zaddu(struct jac *p, struct jac *q, p256_fe h)
{
	struct p256_jws w;

	copy64(w.p, p, sizeof(w.p));
	copy64(w.q, q, sizeof(w.q));
#if defined(HS_HAVE_P256_ADX)
	if (use_adx())
		ADX_CALL(p256_jac_zaddu_adx, &w);
	else
#endif
		jws_zaddu_c(&w);
	copy64(q, w.r, sizeof(w.r));
	copy64(p, w.p, sizeof(w.p));
	p256_fe_copy(h, w.h);
}

#if defined(HS_TEST_HOOKS)
void p256_jws_zaddu_c(struct p256_jws *w)
{
	jws_zaddu_c(w);
}
#endif

/*
 * r = k * p for public k and p: width-5 NAF over the odd multiples p, 3p,
 * ..., 15p, each kept with its Z^2 and Z^3 so that an addition costs
 * 11M + 3S instead of 12M + 4S. The odd multiples come from co-Z
 * additions: 2p and p with a common Z from one doubling, then
 * (2i + 1) p = 2p + (2i - 1) p by ZADDU (5M + 2S, which also rescales
 * 2p to the new Z). It never meets 2p = +-(2i - 1) p: p has order n,
 * prime and far above 17; p at infinity gives infinity straight away.
 */
static void jac_mul_vartime(struct jac *r, const p256_sc k, const struct jac *p)
{
	struct naf_entry tab[1 << (WNAF_W - 2)];
	struct jac two, odd;
	struct add_tmp w;
	p256_fe h;
	int8_t d[WNAF_MAX];
	int n;

	if (p256_fe_is_zero(p->z)) {
		jac_set_infinity(r);
		return;
	}
	jac_double_coz(&two, &odd, p);
	for (int i = 0; i < 1 << (WNAF_W - 2); i++) {
		if (i > 0)
			zaddu(&two, &odd, h);
		naf_entry_set(&tab[i], &odd);
	}
	n = wnaf(d, k, WNAF_W);
	jac_set_infinity(r);
	jws_put(w.jw.p, r); /* the sum lives in the workspace */
	/* one doubling per digit below the top (doubling infinity keeps it) */
	for (int i = n - 1; i >= 0; i--) {
		if (i < n - 1)
			jws_double(&w.jw);
		if (d[i] != 0)
			naf_add(&w, &tab[(d[i] < 0 ? -d[i] : d[i]) / 2], d[i] < 0);
	}
	jws_get(r, w.jw.p);
}

/* projective (X Z : Y : Z^3) from Jacobian (X:Y:Z); infinity as (0 : 1 : 0) */
static void jac_to_proj(struct p256_point *r, const struct jac *p)
{
	p256_fe z2;

	fmul(r->x, p->x, p->z);
	p256_fe_copy(r->y, p->y);
	fsqr(z2, p->z);
	fmul(r->z, z2, p->z);
	if (p256_fe_is_zero(p->z))
		p256_fe_set_one(r->y);
}

/*
 * Public inputs only: b p by a width-5 NAF in Jacobian coordinates, a G
 * by the fixed-base table (no doubling), then their sum in projective
 * coordinates. With AVX-512 IFMA, a G is the eight-lane fixed-base sum
 * (p256_mul_base_ifma_vartime: no table scans; faster than the 37 mixed
 * additions here) and the sum is the complete projective addition;
 * else a G is jac_mul_base_vartime and the sum jac_add's, exceptional
 * cases branched. Either way a or b may be 0 and a G may be +-b p.
 */
void p256_point_mul_double_vartime(struct p256_point *r, const p256_sc a,
				      const p256_sc b, const struct p256_point *p)
{
	struct jac ag, bp, pj;
	p256_fe z2;

	/* projective (X:Y:Z) is (X Z : Y Z^2 : Z) Jacobian */
	fmul(pj.x, p->x, p->z);
	fsqr(z2, p->z);
	fmul(pj.y, p->y, z2);
	p256_fe_copy(pj.z, p->z);
#if defined(HS_HAVE_P256_IFMA)
	if (cpu_has(HS_P256_IFMA_CPU)) {
		static const p256_sc zero = { 0, 0, 0, 0 };
		struct p256_point agp, bpp;
		int8_t d[HS_P256_BASE_WINDOWS];
		p256_sc ar;

		jac_mul_vartime(&bp, b, &pj);
		jac_to_proj(&bpp, &bp);
		p256_sc_add(ar, a, zero); /* a mod n, as p256_point_mul_base */
		recode(d, HS_P256_BASE_WINDOWS, ar, HS_P256_BASE_W);
		p256_mul_base_ifma_vartime(&agp, d);
		p256_point_add(r, &agp, &bpp);
		return;
	}
#endif
	jac_mul_base_vartime(&ag, a);
	jac_mul_vartime(&bp, b, &pj);
	jac_add(&bp, &ag, &bp);
	jac_to_proj(r, &bp);
}

/*
 * Constant time from here on: the variable-base multiplication in
 * Jacobian coordinates. The doubling above has no branch and is correct
 * for every input (infinity included); the addition below computes the
 * incomplete formula, the doubling of p, and picks the right one of
 * (sum, 2p, q, p) with masks, so it is correct for every pair of inputs.
 */

/*
 * The workspace's r = p + q by the incomplete formula of the given kind,
 * made complete with masks, constant time; the temporaries stay in w,
 * for the caller to wipe. Infinity on either side is selected by mask,
 * and p = -q needs nothing (the formula gives Z3 = 0). p = q needs the
 * doubling: with may_be_equal (a public flag) it is computed too (4M +
 * 4S more) and selected by mask; without it the caller guarantees p != q
 * whenever both are finite.
 */
static void jws_add_ct(struct add_tmp *w, int may_be_equal, enum add_kind kind)
{
	struct p256_jws *j = &w->jw;
	uint64_t p_inf, q_inf, same;

	/*
	 * the masks after the addition (which leaves p and q as they are):
	 * with the IFMA doublings before it, measured about 1k TSC cycles
	 * less an ECDH than reading Z before it
	 */
	jws_add(w, kind);
	p_inf = p256_fe_is_zero(j->p[2]);
	q_inf = p256_fe_is_zero(j->q[2]);
	if (may_be_equal) {
		/* p = q (both finite): h = rr = 0 and the formula gives (0, 0, 0) */
		same = p256_fe_is_zero(j->h) & p256_fe_is_zero(j->rr) & ~p_inf & ~q_inf;
		jws_get(&w->dbl, j->p);
		jac_double_c(&w->dbl, &w->dbl);
		fcmov(j->r[0], w->dbl.x, same);
		fcmov(j->r[1], w->dbl.y, same);
		fcmov(j->r[2], w->dbl.z, same);
	}
	for (int c = 0; c < 3; c++) {
		fcmov(j->r[c], j->q[c], p_inf);
		fcmov(j->r[c], j->p[c], q_inf);
	}
}

/* r = p + q for Jacobian p, q through the workspace (jws_add_ct) */
static void jac_add_ct(struct jac *r, const struct jac *p, const struct jac *q, int may_be_equal,
		       struct add_tmp *w)
{
	jws_put(w->jw.p, p);
	jws_put(w->jw.q, q);
	jws_add_ct(w, may_be_equal, ADD_JAC);
	jws_get(r, w->jw.r);
}

#define VAR_W 5
#define VAR_DIGITS 52 /* 52 * 5 = 260 > 256 */

/*
 * p256_point_mul's table: t[j] = (j + 1) p for j < 16, all with one Z
 * ("co-Z"), so an entry is its X and Y only (64 bytes, scanned like a
 * fixed-base row) and zc holds the shared Z, Z^2 and Z^3 (the additions'
 * "cached" form, 11M + 3S). Built by ZADDU (5M + 2S): p and 2p co-Z from
 * the doubling, then (j + 1) p = p + j p, which also rescales p to the
 * new Z; each step multiplies the common Z by its H, so a backward pass
 * brings the earlier entries to the last Z (X by l^2, Y by l^3, l the
 * product of the later H's). ZADDU never meets p = +-j p: p has prime
 * order n > 17. p at infinity (Z = 0) leaves every Z zero: every entry
 * is then infinity, as it should be. p is public (the peer's point):
 * nothing here depends on the scalar.
 */
static void coz_table(struct p256_affine t[HS_P256_VAR_ENTRIES], p256_fe zc[3],
		      const struct p256_point *p)
{
	struct jac one, cur;
	p256_fe h[HS_P256_VAR_ENTRIES], l, l2, l3;

	/* projective (X:Y:Z) is (X Z : Y Z^2 : Z) Jacobian; infinity keeps Z = 0 */
	fmul(one.x, p->x, p->z);
	fsqr(l, p->z);
	fmul(one.y, p->y, l);
	p256_fe_copy(one.z, p->z);
	jac_double_coz(&cur, &one, &one);
	p256_fe_copy(t[1].x, cur.x);
	p256_fe_copy(t[1].y, cur.y);
	for (int j = 2; j < HS_P256_VAR_ENTRIES; j++) {
		zaddu(&one, &cur, h[j]); /* cur = (j + 1) p */
		p256_fe_copy(t[j].x, cur.x);
		p256_fe_copy(t[j].y, cur.y);
	}
	p256_fe_copy(t[0].x, one.x); /* p, rescaled all the way */
	p256_fe_copy(t[0].y, one.y);
	p256_fe_copy(l, h[HS_P256_VAR_ENTRIES - 1]);
	for (int j = HS_P256_VAR_ENTRIES - 2; j >= 1; j--) {
		fsqr(l2, l);
		fmul(l3, l2, l);
		fmul(t[j].x, t[j].x, l2);
		fmul(t[j].y, t[j].y, l3);
		if (j >= 2)
			fmul(l, l, h[j]);
	}
	p256_fe_copy(zc[0], cur.z);
	fsqr(zc[1], zc[0]);
	fmul(zc[2], zc[1], zc[0]);
}

/*
 * The workspace's p = 2^VAR_W p: with the IFMA Z chain when ifma (use_adx()
 * too), its delta and Z from zl when from_lanes
 */
static void jws_double_window(struct p256_jws *ws, int ifma, struct p256_zlanes *zl, int from_lanes)
{
#if defined(HS_HAVE_P256_ADX)
	_Static_assert(VAR_W == 5, "p256_jac_double5_ifma does five doublings");
	if (ifma) {
		ADX_CALL(p256_jac_double5_ifma, ws, zl, from_lanes);
		return;
	}
#endif
	(void)ifma;
	(void)zl;
	(void)from_lanes;
	for (int j = 0; j < VAR_W; j++)
		jws_double(ws);
}

/*
 * After the mixed addition r = p + q (q affine) with the Z chain in the
 * lanes (which select Z alike): p = r, or q where p was infinity (p_inf),
 * or p itself where q is (q_inf: a zero digit)
 */
static void jws_affine_select_xy(struct p256_jws *j, uint64_t p_inf, uint64_t q_inf)
{
	for (int c = 0; c < 2; c++) {
		fcmov(j->r[c], j->q[c], p_inf);
		fcmov(j->r[c], j->p[c], q_inf);
		p256_fe_copy(j->p[c], j->r[c]);
	}
}

/*
 * Signed fixed windows of 5 bits over the co-Z table of (i + 1) p, i <
 * 16: 5 doublings (4M + 4S each, against 8M + 3S and two products by b
 * for the complete projective formula) and one masked addition per
 * window (11M + 3S: the table's Z^2 and Z^3 are computed once; with the
 * IFMA doublings the mixed 8M + 3S on the isomorphic curve where the
 * entries are affine, see the loop). Leaks nothing of k: the operation
 * sequence is fixed and the table is scanned whole; a zero digit is the
 * entry with Z = 0 or a mask, a negative one the entry with Y negated
 * (masked).
 *
 * Only the last addition needs the doubling case. With k' = k mod n =
 * sum d_j 32^j (|d_j| <= 16) and p of order n (every point of P-256 but
 * infinity), the accumulator before digit i is M p with
 * M = (k' - L)/32^i - d_i, |L| < 0.52 * 32^i, so for i >= 1 M lies in
 * (-17, n/32 + 16) and is a multiple of 32: M = +-d_i mod n would need
 * M = +-d_i with 1 <= |d_i| <= 16, impossible. For i = 0, M = n - |d_0|
 * does happen (k' = n - 2|d_0|), so that addition computes the doubling
 * too. The infinity cases (M = 0, d_i = 0) are masks in every addition.
 */
void p256_point_mul(struct p256_point *r, const p256_sc k, const struct p256_point *p)
{
	static const p256_sc zero = { 0, 0, 0, 0 };
	struct p256_affine table[HS_P256_VAR_ENTRIES], e;
	struct jac acc;
	/*
	 * 64-byte aligned: every 32-byte element of the workspace in one cache
	 * line (hs-bench ECDH measured 1-2% faster than the stack's alignment)
	 */
	_Alignas(64) struct add_tmp w;
	p256_sc kr;
	p256_fe zc[3], t, ny;
	int8_t d[VAR_DIGITS];
	uint32_t abs;
	uint64_t neg, inf;
	void (*lookup)(struct p256_affine *, const struct p256_affine *, unsigned, uint32_t) =
		p256_lookup_portable;
	int double5 = 0, iso, from_lanes = 0;
	p256_fe one;
	uint64_t q_inf;
	struct p256_zlanes zl;

#if defined(HS_HAVE_P256_AVX2)
	if (cpu_has(HS_CPU_AVX512F))
		lookup = p256_lookup_avx512;
	else if (cpu_has(HS_CPU_AVX2))
		lookup = p256_lookup_avx2;
#endif
#if defined(HS_HAVE_P256_ADX)
	double5 = use_adx() && cpu_has(HS_P256_DOUBLE5_CPU);
#endif
	iso = double5;
	coz_table(table, zc, p);
	w.zz = &zc[1];
	p256_sc_add(kr, k, zero); /* k mod n: k < 2^256 < 2n */
	recode(d, VAR_DIGITS, kr, VAR_W);
	/* the top digit is bit 255 plus a carry: in [0, 2]; the accumulator lives in w.jw.p */
	(void)digit_sign(d[VAR_DIGITS - 1], &abs);
	lookup(&e, table, HS_P256_VAR_ENTRIES, abs);
	p256_fe_copy(w.jw.p[0], e.x);
	p256_fe_copy(w.jw.p[1], e.y);
	p256_fe_set_zero(w.jw.p[2]);
	/*
	 * With the IFMA doublings (iso), the accumulator lives on the curve
	 * isomorphic by u = the table's Z (p256_jac_double5_ifma: (X, Y, Z')
	 * there is (X, Y, u Z') here, and q's Z holds u^2), where the entries
	 * are affine: each window's addition is the mixed one (8M + 3S, not
	 * 11M + 3S), and the doublings take delta = (u Z')^2 as before. The
	 * Z chain stays in IFMA lanes from window to window (zl: the
	 * addition computes the next delta and Z' there, and the workspace's
	 * Z is the fifth doubling's). The last window goes back (Z = u Z'):
	 * only its addition can meet p = q.
	 */
	p256_fe_set_one(one);
	fcmov(w.jw.p[2], iso ? one : zc[0], ~mask64(ct_eq_mask_u32(abs, 0)));
	if (iso)
		p256_fe_copy(w.jw.q[2], zc[1]);
	for (int i = VAR_DIGITS - 2; i >= 0; i--) {
		/*
		 * the entry first, straight into the workspace's q (X, Y: the
		 * layout of struct p256_affine): the doublings, which do not
		 * touch q, give the scan's 512-bit store time to land before
		 * 64-bit loads read it (a load right after it waits: a failed
		 * store forward)
		 */
		neg = digit_sign(d[i], &abs);
		q_inf = mask64(ct_eq_mask_u32(abs, 0));
		lookup((struct p256_affine *)(void *)w.jw.q, table, HS_P256_VAR_ENTRIES, abs);
		if (iso && i == 0) {
#if defined(HS_HAVE_P256_ADX)
			if (from_lanes) /* the Z the additions kept in the lanes */
				p256_zlanes_get(t, w.jw.p[2], &zl);
#endif
			fmul(w.jw.p[2], w.jw.p[2], zc[0]);
			p256_fe_copy(w.jw.q[2], one); /* plain doublings */
			iso = 0;
			from_lanes = 0;
		}
		jws_double_window(&w.jw, double5, &zl, from_lanes);
		p256_fe_neg(ny, w.jw.q[1]);
		fcmov(w.jw.q[1], ny, neg);
#if defined(HS_HAVE_P256_ADX)
		if (iso) {
			/* the addition keeps the Z chain in the lanes for the next doublings */
			uint64_t p_inf = p256_fe_is_zero(w.jw.p[2]);

			ADX_CALL(p256_jac_add_affine_ifma, &w.jw, &zl, one, p_inf, q_inf);
			jws_affine_select_xy(&w.jw, p_inf, q_inf);
			from_lanes = 1;
			continue;
		}
#endif
		/* Z = 0 (infinity) for a zero digit */
		p256_fe_set_zero(w.jw.q[2]);
		fcmov(w.jw.q[2], zc[0], ~q_inf);
		jws_add_ct(&w, i == 0, ADD_CACHED);
		copy64(w.jw.p, w.jw.r, sizeof(w.jw.p));
	}
	jws_get(&acc, w.jw.p);
	/* back to projective: (X Z : Y : Z^3); infinity as (0 : 1 : 0) */
	fmul(r->x, acc.x, acc.z);
	p256_fe_copy(r->y, acc.y);
	fsqr(t, acc.z);
	fmul(r->z, t, acc.z);
	inf = p256_fe_is_zero(acc.z);
	p256_fe_set_one(t);
	fcmov(r->y, t, inf);
	wipe(table, sizeof(table));
	wipe(zc, sizeof(zc));
	wipe(&w, sizeof(w));
	wipe(&zl, sizeof(zl));
	wipe(&e, sizeof(e));
	wipe(kr, sizeof(kr));
	wipe(&acc, sizeof(acc));
	wipe(t, sizeof(t));
	wipe(ny, sizeof(ny));
	wipe(one, sizeof(one));
	wipe(d, sizeof(d));
	wipe(&abs, sizeof(abs));
}

/* Temporaries of base_step2, for both lanes; wiped once by the caller. */
struct base_ws {
	p256_fe z1z1[2], u2[2], s2[2], h[2], rr[2], hh[2], hhh[2], v[2], s1hhh[2], t[2], one;
	struct jac sum[2];
};

/*
 * One fixed-base step on two independent accumulators: acc[l] += q[l]
 * by the mixed Jacobian addition "madd-1998-cmo" (8M + 3S; its tail is
 * jac_add_tail's), written operation by operation for both lanes so the
 * CPU overlaps the two chains of dependent products. Then, per lane, if
 * acc was infinity the sum is q (inf[l] mask), and a zero digit (nz[l]
 * = 0, q the dummy (0, 0)) keeps acc. Masks only: constant time.
 */
static void base_step2(struct jac acc[2], uint64_t inf[2], const struct p256_affine q[2],
		       const uint64_t nz[2], struct base_ws *w)
{
	int l;

	for (l = 0; l < 2; l++)
		fsqr(w->z1z1[l], acc[l].z);
	for (l = 0; l < 2; l++)
		fmul(w->u2[l], q[l].x, w->z1z1[l]);
	for (l = 0; l < 2; l++)
		fmul(w->s2[l], q[l].y, acc[l].z);
	for (l = 0; l < 2; l++)
		fmul(w->s2[l], w->s2[l], w->z1z1[l]);
	for (l = 0; l < 2; l++) {
		fsub(w->h[l], w->u2[l], acc[l].x);
		fsub(w->rr[l], w->s2[l], acc[l].y);
	}
	for (l = 0; l < 2; l++)
		fmul(w->sum[l].z, acc[l].z, w->h[l]);
	/* X3 = rr^2 - h^3 - 2 X1 h^2, Y3 = rr (X1 h^2 - X3) - Y1 h^3 */
	for (l = 0; l < 2; l++)
		fsqr(w->hh[l], w->h[l]);
	for (l = 0; l < 2; l++)
		fmul(w->hhh[l], w->h[l], w->hh[l]);
	for (l = 0; l < 2; l++)
		fmul(w->v[l], acc[l].x, w->hh[l]);
	for (l = 0; l < 2; l++)
		fmul(w->s1hhh[l], acc[l].y, w->hhh[l]);
	for (l = 0; l < 2; l++)
		fsqr(w->t[l], w->rr[l]);
	for (l = 0; l < 2; l++) {
		fsub(w->t[l], w->t[l], w->hhh[l]);
		fsub(w->t[l], w->t[l], w->v[l]);
		fsub(w->sum[l].x, w->t[l], w->v[l]);
		fsub(w->t[l], w->v[l], w->sum[l].x);
	}
	for (l = 0; l < 2; l++)
		fmul(w->t[l], w->rr[l], w->t[l]);
	p256_fe_set_one(w->one);
	for (l = 0; l < 2; l++) {
		fsub(w->sum[l].y, w->t[l], w->s1hhh[l]);
		fcmov(w->sum[l].x, q[l].x, inf[l]);
		fcmov(w->sum[l].y, q[l].y, inf[l]);
		fcmov(w->sum[l].z, w->one, inf[l]);
		jac_cmov(&acc[l], &w->sum[l], nz[l]);
		inf[l] &= ~nz[l];
	}
}

/* windows 0..BASE_SPLIT-1 go to lane 0, the others to lane 1 */
#define BASE_SPLIT ((HS_P256_BASE_WINDOWS + 1) / 2)

/*
 * r = k G: 37 signed 7-bit digits of k mod n, one mixed Jacobian addition
 * (8M + 3S, against 11M and two products by b for the complete formula)
 * per digit, no doubling. The low 19 windows and the high 18 sum into
 * two accumulators, stepped together (base_step2), then added with the
 * constant-time general addition. Leaks nothing of k: every digit does a
 * full table-row scan and an addition; a zero digit (dummy entry) and the
 * first nonzero one (acc still infinity, tracked as a mask) are fixed up
 * by masked moves; which windows exist is public.
 *
 * Why the incomplete formula is enough: with k' = k mod n in [0, n) and
 * k' = sum d_j 2^(7j), |d_j| <= 64, a lane's accumulator before digit i
 * is A G with A = sum d_j 2^(7j) over its earlier windows j < i, so
 * |A| <= 64 (2^(7i) - 1) / 127 < 0.51 * 2^(7i), and the added point is
 * d_i 2^(7i) G with |d_i| 2^(7i) >= 2^(7i). The formula fails only for
 * A -+ d_i 2^(7i) = j n. Lane 0 (i <= 18): both terms are below 2^133
 * in size, so j = 0 and A = +-d_i 2^(7i), impossible by the sizes. Lane 1
 * (windows 19..36): the left side is a multiple of 2^133 below 2^257 in
 * size and n is odd, so again j = 0, impossible. A = 0 happens only
 * while every digit so far was 0: the infinity mask. The final addition
 * is complete (jac_add_ct handles infinity, equal and opposite points by
 * masks).
 */
void p256_point_mul_base(struct p256_point *r, const p256_sc k)
{
	static const p256_sc zero = { 0, 0, 0, 0 };
	struct jac acc[2], res;
	struct p256_affine q[2];
	struct base_ws ws;
	struct add_tmp w;
	p256_fe ny, t;
	p256_sc kr;
	int8_t d[HS_P256_BASE_WINDOWS];
	uint32_t abs;
	uint64_t neg, nz[2], inf[2] = { ~(uint64_t)0, ~(uint64_t)0 };
	void (*lookup)(struct p256_affine *, const struct p256_affine *, unsigned, uint32_t) =
		p256_lookup_portable;

#if defined(HS_HAVE_P256_AVX2)
	if (cpu_has(HS_CPU_AVX512F))
		lookup = p256_lookup_avx512;
	else if (cpu_has(HS_CPU_AVX2))
		lookup = p256_lookup_avx2;
#endif
	p256_sc_add(kr, k, zero); /* k mod n: k < 2^256 < 2n */
	recode(d, HS_P256_BASE_WINDOWS, kr, HS_P256_BASE_W);
#if defined(HS_HAVE_P256_IFMA)
	if (cpu_has(HS_P256_IFMA_CPU)) { /* the same sum in eight IFMA lanes */
		p256_mul_base_ifma(r, d);
		wipe(kr, sizeof(kr));
		wipe(d, sizeof(d));
		return;
	}
#endif
	jac_set_infinity(&acc[0]);
	jac_set_infinity(&acc[1]);
	for (unsigned i = 0; i < BASE_SPLIT; i++) {
		for (unsigned l = 0; l < 2; l++) {
			unsigned win = i + l * BASE_SPLIT;

			if (win >= HS_P256_BASE_WINDOWS) { /* public: lane 1 has one window less */
				memset(&q[l], 0, sizeof(q[l]));
				nz[l] = 0;
				continue;
			}
			neg = digit_sign(d[win], &abs);
			lookup(&q[l], p256_base_table[win], HS_P256_BASE_ENTRIES, abs);
			p256_fe_neg(ny, q[l].y);
			fcmov(q[l].y, ny, neg);
			nz[l] = ~mask64(ct_eq_mask_u32(abs, 0));
		}
		base_step2(acc, inf, q, nz, &ws);
	}
	jac_add_ct(&res, &acc[0], &acc[1], 1, &w);
	/* back to projective: (X Z : Y : Z^3), or (0 : 1 : 0) for k = 0 mod n */
	fmul(r->x, res.x, res.z);
	p256_fe_copy(r->y, res.y);
	fsqr(t, res.z);
	fmul(r->z, t, res.z);
	p256_fe_set_one(t);
	fcmov(r->y, t, p256_fe_is_zero(res.z));
	wipe(acc, sizeof(acc));
	wipe(&res, sizeof(res));
	wipe(q, sizeof(q));
	wipe(&ws, sizeof(ws));
	wipe(&w, sizeof(w));
	wipe(ny, sizeof(ny));
	wipe(t, sizeof(t));
	wipe(kr, sizeof(kr));
	wipe(d, sizeof(d));
	wipe(&abs, sizeof(abs));
	wipe(&neg, sizeof(neg));
	wipe(nz, sizeof(nz));
	wipe(inf, sizeof(inf));
}
