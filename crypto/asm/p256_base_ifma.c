/*
 * Implementation notes: the P-256 fixed-base sum (p256_point_mul_base)
 * in eight AVX-512 IFMA lanes.
 *
 * - k G = sum d_i 2^(7i) G over 37 signed 7-bit digits (recoded by
 *   p256_point_mul_base); the terms come from p256_base_table. The sum is
 *   split into eight runs of consecutive windows, one per 64-bit lane:
 *   lanes 0..4 take windows 5l .. 5l+4, lanes 5, 6, 7 take 25..28, 29..32
 *   and 33..36. Each lane sums its run with mixed Jacobian additions
 *   (madd-1998-cmo, 8M + 3S); the first window of a run is just loaded,
 *   so the whole run costs four additions (the first with Z1 = 1), all
 *   lanes at once. The eight lane sums are then added as a tree (lanes
 *   2j + 2j+1, then pairs of those, then the two halves) with the general
 *   Jacobian addition (add-1998-cmo-2, 12M + 4S), its products packed
 *   into all eight lanes (jadd_packed).
 * - Field elements: struct p256_fe8 of crypto/asm/p256_ifma_field.h (radix
 *   2^52, five limbs, one per register; Montgomery R' = 2^260; its notes
 *   say how a product reduces and how fold() carries a subtraction).
 * - The table is Montgomery form for R = 2^256: entry x R becomes x R'
 *   = 16 x R by reading its 256 bits four places up into the five limbs
 *   (below 2^260), then fold(). The result leaves as projective
 *   (X Z : Y : Z^3) in R' form, read as R-form numbers: that is each
 *   coordinate times 16, the same projective point. p256_point_to_bytes
 *   and every other user see the same affine point as the portable path
 *   (tests/crypto/test_p256.c compares them bit for bit).
 * - Why the incomplete formulas are enough: a run starting at window s
 *   sums to A = sum d_j 2^(7j), a multiple of 2^(7s) with |A| < 0.51 *
 *   2^(7e) before window e. Adding d_e 2^(7e) fails only if A -+ d_e
 *   2^(7e) = j n: for s > 0 the left side is a multiple of 2^(7s) and n is
 *   odd, so 2^(7s) | j and |j n| >= 128 n > 2^263, beyond the size; for
 *   s = 0 the size is below 2^36 < n; so j = 0, and |A| < |d_e| 2^(7e)
 *   unless A = 0 (infinity: all digits so far zero, tracked as a lane
 *   mask, when the sum is replaced by the entry). The tree's additions of
 *   windows [a, b) and [b, c) are the same argument when c <= 36 or
 *   a > 0. The last one adds lo = windows [0, 20) and hi = [20, 37):
 *   lo + hi = k' in [0, n) and |lo| < 0.51 * 2^140, so lo - hi = j n
 *   needs j = 0 (lo = hi, then both 0: infinity, a mask) or j = -1:
 *   k' = n + 2 lo with lo < 0, so k' mod 2^140 = -n mod 2^140, whose
 *   window 19 is 0: its recoding carries nothing out, lo >= 0, no. So
 *   no addition meets equal points and none needs the doubling;
 *   opposite ones only when both are infinity (k' = 0).
 * - p256_mul_base_ifma_vartime (verification's u1 G, public digits)
 *   is the same sum with the entries read directly instead of scanned:
 *   about 2k cycles less.
 * - Constant time: the windows each lane takes, and so every operation,
 *   are fixed; the digits only choose table entries (whole-row scans,
 *   crypto/asm/p256_scan_avx512.h) and lane masks for blends. valgrind cannot
 *   run AVX-512: tests/ct/dudect.c times p256_public and ECDSA signing,
 *   which take this path on IFMA CPUs.
 */
#include "crypto/p256_point.h"

#if defined(HS_HAVE_P256_IFMA)

#include <immintrin.h>
#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/asm/p256_ifma_field.h"
#include "crypto/asm/p256_scan_avx512.h"

#define TGT P256_IFMA_TGT8
#define INL P256_IFMA_INL8
#define M52 P256_IFMA_M52
#define LANES 8
#define RUN_MAX 5 /* windows per lane: 5 5 5 5 5 4 4 4 */

/* Jacobian (X : Y : Z) = (X / Z^2, Y / Z^3); Z = 0 is infinity */
struct jac8 {
	struct p256_fe8 x, y, z;
};

/* 2^260 mod p: one in R' form */
static const uint64_t one_limbs[5] = { 0x10, 0xf000000000000ull, 0xfffffffffffffull,
				       0xffeffffffffffull, 0xfffffull };

/* the first window of each lane's run and the run's length */
static const unsigned run_start[LANES] = { 0, 5, 10, 15, 20, 25, 29, 33 };
static const unsigned run_len[LANES] = { 5, 5, 5, 5, 5, 4, 4, 4 };

INL void jblend(struct jac8 *r, __mmask8 k, const struct jac8 *a)
{
	fblend(&r->x, k, &a->x);
	fblend(&r->y, k, &a->y);
	fblend(&r->z, k, &a->z);
}

/*
 * the digits of every step, per lane: the table index and the lane
 * masks; vartime (public) when the digits are public too
 */
struct steps {
	uint32_t abs[RUN_MAX][LANES];
	unsigned neg[RUN_MAX], nz[RUN_MAX];
	int vartime;
};

static void steps_init(struct steps *st, const int8_t d[HS_P256_BASE_WINDOWS], int vartime)
{
	st->vartime = vartime;
	for (unsigned s = 0; s < RUN_MAX; s++) {
		st->neg[s] = st->nz[s] = 0;
		for (unsigned l = 0; l < LANES; l++) {
			uint32_t u, sg, abs;

			st->abs[s][l] = 0;
			if (s >= run_len[l]) /* public: the run is over */
				continue;
			u = (uint32_t)(int32_t)d[run_start[l] + s];
			sg = 0 - (u >> 31);
			abs = (u ^ sg) - sg;
			st->abs[s][l] = abs;
			st->neg[s] |= (sg & 1) << l;
			st->nz[s] |= (((0 - abs) >> 31) & 1) << l; /* abs <= 64 */
		}
	}
}

/*
 * q[l] = lane l's entry of step s: the whole-row scan of
 * crypto/asm/p256_scan_avx512.h, inline so that it interleaves with the
 * arithmetic; zeros when the lane's run is over (public). With public
 * digits (st->vartime), the entry itself, read directly.
 */
INL void fetch(struct p256_affine q[LANES], unsigned s, unsigned l, const struct steps *st)
{
	if (s >= RUN_MAX)
		return;
	if (s >= run_len[l]) {
		memset(&q[l], 0, sizeof(q[l]));
		return;
	}
	if (st->vartime) { /* public digits only: this branches on them */
		if (st->abs[s][l] == 0)
			memset(&q[l], 0, sizeof(q[l]));
		else
			q[l] = p256_base_table[run_start[l] + s][st->abs[s][l] - 1];
		return;
	}
	_mm512_storeu_si512((void *)&q[l],
			    p256_scan_row_avx512(p256_base_table[run_start[l] + s],
							 HS_P256_BASE_ENTRIES, st->abs[s][l]));
}

/*
 * acc += (qx, qy) per lane (madd-1998-cmo); lanes in inf take (qx, qy, 1)
 * instead; lanes not in nz keep acc (their digit is zero). z1_one (the
 * first addition: acc is an entry, or infinity, which the inf lanes
 * replace anyway) takes Z1 = 1: 6 products instead of 11. Between its
 * products it fetches the entries of step sn into next: the table scans
 * wait on L2 while the products keep the IFMA units busy.
 */
INL void madd8(struct jac8 *acc, const struct p256_fe8 *qx, const struct p256_fe8 *qy, __mmask8 inf,
	       __mmask8 nz, struct p256_affine next[LANES], unsigned sn, const struct steps *st,
	       int z1_one)
{
	struct p256_fe8 z1z1, u2, s2, h, rr, hh, hhh, v, s1hhh, t;
	struct jac8 s;

	if (z1_one) { /* Z1 = 1 in every lane that is not infinity: 5 products fewer */
		fetch(next, sn, 0, st);
		fetch(next, sn, 1, st);
		fsub(&h, qx, &acc->x);
		fsub(&rr, qy, &acc->y);
		fetch(next, sn, 2, st);
		s.z = h;
	} else {
		fsqr(&z1z1, &acc->z);
		fetch(next, sn, 0, st);
		fmul_u(&u2, qx, &z1z1);
		fetch(next, sn, 1, st);
		fmul(&s2, qy, &acc->z);
		fetch(next, sn, 2, st);
		fmul_u(&s2, &s2, &z1z1);
		fsub(&h, &u2, &acc->x);
		fsub(&rr, &s2, &acc->y);
		fmul(&s.z, &acc->z, &h);
	}
	fetch(next, sn, 3, st);
	fsqr(&hh, &h);
	fetch(next, sn, 4, st);
	fmul(&hhh, &h, &hh);
	fmul_u(&v, &acc->x, &hh);
	fetch(next, sn, 5, st);
	fmul_u(&s1hhh, &acc->y, &hhh);
	fmul_u(&t, &rr, &rr);
	fetch(next, sn, 6, st);
	fsub2(&s.x, &t, &hhh, &v);
	fsub(&t, &v, &s.x);
	fmul_u(&t, &rr, &t);
	fetch(next, sn, 7, st);
	fsub(&s.y, &t, &s1hhh);
	fblend(&s.x, inf, qx);
	fblend(&s.y, inf, qy);
	fe8_const(&t, one_limbs);
	fblend(&s.z, inf, &t);
	jblend(acc, nz, &s);
}

/*
 * The tree's additions, packed. m additions (m = 4, 2, 1) are "compact"
 * when addition a's values sit in lane a. A round of n independent
 * products of every addition fills 8 / m slots of m lanes per vector
 * (slot s in lanes s m .. s m + m - 1), so the m additions' products
 * take ceil(n m / 8) vector products, not n: a level of the tree costs
 * what its lanes need. Lanes move with VPERMQ (masked for packing).
 */
INL void fpack(struct p256_fe8 *r, const struct p256_fe8 *a, unsigned s, unsigned m)
{
	const __m512i idx = _mm512_and_si512(
		_mm512_sub_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), p256_bc_x8(s * m)), p256_bc_x8(7));
	const __mmask8 k = (__mmask8)(((1u << m) - 1) << (s * m));

	for (int i = 0; i < 5; i++)
		r->l[i] = _mm512_mask_permutexvar_epi64(r->l[i], k, idx, a->l[i]);
}

INL void funpack(struct p256_fe8 *r, const struct p256_fe8 *a, unsigned s, unsigned m)
{
	const __m512i idx = _mm512_and_si512(
		_mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), p256_bc_x8(s * m)), p256_bc_x8(7));

	for (int i = 0; i < 5; i++) /* slot 0 is in place already */
		r->l[i] = s == 0 ? a->l[i] : _mm512_permutexvar_epi64(idx, a->l[i]);
}

/* out[j] = a[j] b[j] for j < n, compact, m additions */
INL void fmul_round(struct p256_fe8 *const out[], const struct p256_fe8 *const a[],
		    const struct p256_fe8 *const b[], unsigned n, unsigned m, int norm)
{
	const unsigned slots = LANES / m;

	for (unsigned g = 0; g < n; g += slots) {
		struct p256_fe8 pa = *a[g], pb = *b[g], pr;
		unsigned e = n - g < slots ? n - g : slots;

		for (unsigned s = 1; s < e; s++) {
			fpack(&pa, a[g + s], s, m);
			fpack(&pb, b[g + s], s, m);
		}
		fmul_s(&pr, &pa, &pb, 1, norm);
		for (unsigned s = 0; s < e; s++)
			funpack(out[g + s], &pr, s, m);
	}
}

/*
 * r = p + q (add-1998-cmo-2) for m compact additions, in five rounds of
 * products; correct when p != +-q or one of them is infinity (lanes pinf,
 * qinf: a mask picks the other).
 */
INL void jadd_packed(struct jac8 *r, const struct jac8 *p, const struct jac8 *q, __mmask8 pinf,
		     __mmask8 qinf, unsigned m)
{
	struct p256_fe8 z1z1, z2z2, c, d, e, u1, u2, s1, s2, h, rr, hh, r2, hhh, v, t, w;
	struct jac8 o;

	fmul_round((struct p256_fe8 *const[]){ &z1z1, &z2z2, &c, &d, &e },
		   (const struct p256_fe8 *const[]){ &p->z, &q->z, &p->y, &q->y, &p->z },
		   (const struct p256_fe8 *const[]){ &p->z, &q->z, &q->z, &p->z, &q->z }, 5, m, 1);
	fmul_round((struct p256_fe8 *const[]){ &u1, &u2, &s1, &s2 },
		   (const struct p256_fe8 *const[]){ &p->x, &q->x, &c, &d },
		   (const struct p256_fe8 *const[]){ &z2z2, &z1z1, &z2z2, &z1z1 }, 4, m, 1);
	fsub(&h, &u2, &u1);
	fsub(&rr, &s2, &s1);
	fmul_round((struct p256_fe8 *const[]){ &hh, &o.z, &r2 },
		   (const struct p256_fe8 *const[]){ &h, &e, &rr },
		   (const struct p256_fe8 *const[]){ &h, &h, &rr }, 3, m, 1);
	fmul_round((struct p256_fe8 *const[]){ &hhh, &v },
		   (const struct p256_fe8 *const[]){ &h, &u1 },
		   (const struct p256_fe8 *const[]){ &hh, &hh }, 2, m, 1);
	fsub2(&o.x, &r2, &hhh, &v);
	fsub(&t, &v, &o.x);
	fmul_round((struct p256_fe8 *const[]){ &s1, &w },
		   (const struct p256_fe8 *const[]){ &s1, &rr },
		   (const struct p256_fe8 *const[]){ &hhh, &t }, 2, m, 0); /* into fsub only */
	fsub(&o.y, &w, &s1);
	jblend(&o, pinf, q);
	jblend(&o, qinf, p);
	*r = o;
}

/* compact pairs: p takes lanes 0, 2, 4, 6 of a, q lanes 1, 3, 5, 7 */
INL void jsplit(struct jac8 *p, struct jac8 *q, const struct jac8 *a)
{
	const __m512i ev = _mm512_set_epi64(6, 4, 2, 0, 6, 4, 2, 0);
	const __m512i od = _mm512_set_epi64(7, 5, 3, 1, 7, 5, 3, 1);
	const struct p256_fe8 *src[3] = { &a->x, &a->y, &a->z };
	struct p256_fe8 *pe[3] = { &p->x, &p->y, &p->z }, *qo[3] = { &q->x, &q->y, &q->z };

	for (int c = 0; c < 3; c++) {
		for (int i = 0; i < 5; i++) {
			__m512i v = src[c]->l[i]; /* p may be a */

			pe[c]->l[i] = _mm512_permutexvar_epi64(ev, v);
			qo[c]->l[i] = _mm512_permutexvar_epi64(od, v);
		}
	}
}

/* the lane bits 0, 2, 4, 6 (odd = 0) or 1, 3, 5, 7 (odd = 1) of k, as bits 0..3 */
static inline __mmask8 bits_split(__mmask8 k, unsigned odd)
{
	unsigned r = 0;

	for (unsigned a = 0; a < 4; a++)
		r |= ((k >> (2 * a + odd)) & 1u) << a;
	return (__mmask8)r;
}

/*
 * Eight table entries (x, y as four 64-bit limbs each, Montgomery R) to
 * R' = 2^260 form in radix 2^52: the 256 bits read four places up.
 */
INL void load8(struct p256_fe8 *r, const uint64_t *base)
{
	const __m512i idx = _mm512_set_epi64(56, 48, 40, 32, 24, 16, 8, 0);
	__m512i a[4];
	struct p256_fe8 t;

	for (int k = 0; k < 4; k++)
		a[k] = _mm512_i64gather_epi64(idx, (const void *)(base + k), 8);
	p256_from_u64_x8(&t, a, 4);
	fold(r, t.l[0], t.l[1], t.l[2], t.l[3], t.l[4]);
}

/* the fetched entries into qx, qy (R' form), y negated in the lanes of neg */
INL void convert(struct p256_fe8 *qx, struct p256_fe8 *qy, const struct p256_affine q[LANES], __mmask8 neg)
{
	struct p256_fe8 ny;

	load8(qx, q[0].x);
	load8(qy, q[0].y);
	for (int i = 0; i < 5; i++)
		ny.l[i] = _mm512_setzero_si512();
	fsub(&ny, &ny, qy); /* 8p - y */
	fblend(qy, neg, &ny);
}

/* lane 0 of a, fully reduced, as four 64-bit limbs */
TGT static void store_lane0(p256_fe r, const struct p256_fe8 *a)
{
	uint64_t l[5], t[4], b, bw;

	for (int i = 0; i < 5; i++)
		l[i] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(a->l[i]));
	r[0] = l[0] | l[1] << 52;
	r[1] = l[1] >> 12 | l[2] << 40;
	r[2] = l[2] >> 24 | l[3] << 28;
	r[3] = l[3] >> 36 | l[4] << 16;
	b = l[4] >> 48; /* bits 256, 257: the value is below 2^258 < 5p */
	/* subtract p four times, each time if (b : r) >= p */
	for (int k = 0; k < 4; k++) {
		static const uint64_t p[4] = { 0xffffffffffffffffull, 0x00000000ffffffffull, 0,
					       0xffffffff00000001ull };
		uint64_t keep, tb;

		bw = 0;
		for (int i = 0; i < 4; i++) {
			uint64_t x = r[i] - p[i];
			uint64_t bo = (r[i] < p[i]) | ((x < bw) & 1);

			t[i] = x - bw;
			bw = bo;
		}
		tb = b - bw; /* wraps (top bit set) iff (b : r) < p */
		keep = 0 - ct_barrier_u64((tb >> 63) ^ 1);
		for (int i = 0; i < 4; i++)
			r[i] = (t[i] & keep) | (r[i] & ~keep);
		b = (tb & keep) | (b & ~keep);
	}
	wipe(l, sizeof(l));
	wipe(t, sizeof(t));
}

/* both entry points; vartime: the digits are public (no table scans) */
INL void mul_base(struct p256_point *r, const int8_t d[HS_P256_BASE_WINDOWS], int vartime)
{
	struct p256_affine q[2][LANES];
	struct steps st;
	struct jac8 acc, o;
	struct p256_fe8 qx, qy, t;
	__mmask8 inf, oinf;
	p256_fe one;
	uint64_t zmask;

	steps_init(&st, d, vartime);
	/* the first window of every run, loaded: Z = 1 where the digit is not 0 */
	for (unsigned l = 0; l < LANES; l++) {
		fetch(q[0], 0, l, &st);
		fetch(q[1], 1, l, &st);
	}
	convert(&acc.x, &acc.y, q[0], (__mmask8)st.neg[0]);
	fe8_const(&acc.z, one_limbs);
	for (int i = 0; i < 5; i++)
		acc.z.l[i] = _mm512_maskz_mov_epi64((__mmask8)st.nz[0], acc.z.l[i]);
	inf = (__mmask8)~st.nz[0];
	for (unsigned s = 1; s < RUN_MAX; s++) {
		convert(&qx, &qy, q[s & 1], (__mmask8)st.neg[s]);
		madd8(&acc, &qx, &qy, inf, (__mmask8)st.nz[s], q[(s + 1) & 1], s + 1, &st, s == 1);
		inf &= (__mmask8)~st.nz[s];
	}
	/* the tree: runs 2a and 2a + 1 (four additions), then pairs of those, then the halves */
	for (unsigned m = 4; m >= 1; m /= 2) {
		jsplit(&acc, &o, &acc);
		oinf = bits_split(inf, 1);
		inf = bits_split(inf, 0);
		jadd_packed(&acc, &acc, &o, inf, oinf, m);
		inf &= oinf;
	}
	/* projective (X Z : Y : Z^3) */
	fmul_round((struct p256_fe8 *const[]){ &o.x, &t },
		   (const struct p256_fe8 *const[]){ &acc.x, &acc.z },
		   (const struct p256_fe8 *const[]){ &acc.z, &acc.z }, 2, 1, 1);
	fmul(&o.z, &t, &acc.z);
	store_lane0(r->x, &o.x);
	store_lane0(r->y, &acc.y);
	store_lane0(r->z, &o.z);
	/* infinity (k = 0 mod n) as (0 : 1 : 0), like the portable path */
	zmask = p256_fe_is_zero(r->z);
	p256_fe_set_one(one);
	p256_fe_cmov(r->y, one, zmask);
	wipe(q, sizeof(q));
	wipe(&st, sizeof(st));
	wipe(&acc, sizeof(acc));
	wipe(&o, sizeof(o));
	wipe(&qx, sizeof(qx));
	wipe(&qy, sizeof(qy));
	wipe(&t, sizeof(t));
}

TGT void p256_mul_base_ifma(struct p256_point *r, const int8_t d[HS_P256_BASE_WINDOWS])
{
	mul_base(r, d, 0);
}

TGT void p256_mul_base_ifma_vartime(struct p256_point *r, const int8_t d[HS_P256_BASE_WINDOWS])
{
	mul_base(r, d, 1);
}

#endif
