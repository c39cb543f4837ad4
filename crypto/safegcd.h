/*
 * The parts of a Bernstein-Yang "safegcd" inversion that its two users
 * share (internal to crypto/): the divstep batch (sg_divsteps_59, in
 * safegcd256.c) and the updates over signed 62-bit limbs that apply a
 * batch's matrix to f, g and to d, e and bring d into [0, m) at the end.
 * The users: sg256_inv (crypto/safegcd256.c: five limbs and a constant
 * modulus, inlined so m's zero limbs cost nothing) and bn_mod_inv
 * (crypto/bignum.c: any count of limbs).
 *
 * A number is len limbs: value = sum v[i] 2^(62 i), every limb but the
 * top one in [0, 2^62) after an update, the top one signed. The modulus
 * m is len limbs that sum to it (any sign, zeros allowed), odd. |f|, |g|
 * <= m; d, e stay in (-2m, m) through every batch (sg_update_de), so only
 * the end reduces them (sg_normalize). With 62-bit limbs a column of
 * u a + v b + md m stays below 2^126 for |u| + |v| <= 2^62 and any md in
 * (-2^63, 2^62].
 *
 * Constant time: fixed loop counts, sign masks behind ct_barrier_u64
 * (clang would make CMOVs or branches of bare `x >> 63` masks; ctgrind
 * caught that once), no secret-dependent index.
 */
#ifndef HS_CRYPTO_SAFEGCD_H
#define HS_CRYPTO_SAFEGCD_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/ct.h"

/* A batch's matrix scaled by 2^62: (f', g') 2^62 = (u f + v g, q f + r g). */
struct sg_mat {
	int64_t u, v, q, r;
};

/*
 * The divstep batch: 59 divsteps on the low words of f (odd) and g;
 * returns the new zeta, t the matrix. Delta is kept as zeta = 1 - 2 delta
 * (Bernstein-Yang's original variant, delta starting at 1: start with
 * zeta = -1). The x86-64 CMOV batch unless cpu_force_portable, then the C
 * one (same results). Constant time. sg256_inv runs the half-delta
 * variant of the same batch inside safegcd256.c.
 */
int64_t sg_divsteps_59(int64_t zeta, uint64_t f, uint64_t g, struct sg_mat *t);

#define SG_M62 (UINT64_MAX >> 2)
#define SG_INLINE static inline __attribute__((always_inline))

/*
 * (a, b) = ((u a + v b + ma m) / 2^62, (q a + r b + mb m) / 2^62) over
 * len limbs, for numerators the callers made multiples of 2^62: the low
 * column is only carried, each later one stored 62 bits at a time.
 * with_m = 0 (f and g) leaves m out (m may then be anything).
 */
SG_INLINE void sg_apply(int64_t *restrict a, int64_t *restrict b, const struct sg_mat *t,
			int64_t ma, int64_t mb, const int64_t *restrict m, size_t len, int with_m)
{
	/* in locals: a and b's stores could otherwise alias t's fields for the compiler */
	const int64_t u = t->u, v = t->v, q = t->q, r = t->r;
	__int128 ca = (__int128)u * a[0] + (__int128)v * b[0];
	__int128 cb = (__int128)q * a[0] + (__int128)r * b[0];

	if (with_m) {
		ca += (__int128)m[0] * ma;
		cb += (__int128)m[0] * mb;
	}
	ca >>= 62; /* arithmetic shift (gcc and clang): the signed carry */
	cb >>= 62;
	for (size_t i = 1; i < len; i++) {
		ca += (__int128)u * a[i] + (__int128)v * b[i];
		cb += (__int128)q * a[i] + (__int128)r * b[i];
		if (with_m) {
			ca += (__int128)m[i] * ma;
			cb += (__int128)m[i] * mb;
		}
		a[i - 1] = (int64_t)((uint64_t)ca & SG_M62);
		b[i - 1] = (int64_t)((uint64_t)cb & SG_M62);
		ca >>= 62;
		cb >>= 62;
	}
	a[len - 1] = (int64_t)ca;
	b[len - 1] = (int64_t)cb;
}

/* (f, g) = ((u f + v g) / 2^62, (q f + r g) / 2^62): exact divisions */
SG_INLINE void sg_update_fg(int64_t *f, int64_t *g, const struct sg_mat *t, size_t len)
{
	sg_apply(f, g, t, 0, 0, NULL, len, 0);
}

/*
 * (d, e) = ((u d + v e + md m) / 2^62, (q d + r e + me m) / 2^62), d and
 * e in (-2m, m) in and out: md, me start as u or v (q or r) where d (e)
 * is negative (u d + [d < 0] u m = u (d + m [d < 0]) with |d + m [d < 0]|
 * < m, so the sum is below (|u| + |v|) m <= 2^62 m in size), then lose
 * the value in [0, 2^62) that makes the numerators divisible by 2^62
 * (minv = 1/m mod 2^62): (-2^63 m, 2^62 m) / 2^62 = (-2m, m).
 */
SG_INLINE void sg_update_de(int64_t *d, int64_t *e, const struct sg_mat *t, const int64_t *m,
			    uint64_t minv, size_t len)
{
	int64_t sd = (int64_t)ct_barrier_u64((uint64_t)(d[len - 1] >> 63)); /* all-ones if < 0 */
	int64_t se = (int64_t)ct_barrier_u64((uint64_t)(e[len - 1] >> 63));
	int64_t md = (t->u & sd) + (t->v & se), me = (t->q & sd) + (t->r & se);
	uint64_t ld = (uint64_t)t->u * (uint64_t)d[0] + (uint64_t)t->v * (uint64_t)e[0];
	uint64_t le = (uint64_t)t->q * (uint64_t)d[0] + (uint64_t)t->r * (uint64_t)e[0];

	md -= (int64_t)((minv * ld + (uint64_t)md) & SG_M62);
	me -= (int64_t)((minv * le + (uint64_t)me) & SG_M62);
	sg_apply(d, e, t, md, me, m, len, 1);
}

/* r += m where mask is all-ones, then the limbs carried into [0, 2^62) but the top one */
SG_INLINE void sg_add_m_carry(int64_t *r, int64_t mask, const int64_t *m, size_t len)
{
	mask = (int64_t)ct_barrier_u64((uint64_t)mask);
	for (size_t i = 0; i < len; i++)
		r[i] += m[i] & mask;
	for (size_t i = 0; i + 1 < len; i++) {
		r[i + 1] += r[i] >> 62;
		r[i] = (int64_t)((uint64_t)r[i] & SG_M62);
	}
}

/*
 * d in (-2m, m) to sign d mod m in [0, m), for sign = +-1 (f's top limb
 * at the end: its sign is f's).
 */
SG_INLINE void sg_normalize(int64_t *d, int64_t sign, const int64_t *m, size_t len)
{
	int64_t neg = (int64_t)ct_barrier_u64((uint64_t)(sign >> 63));
	int64_t low = (int64_t)ct_barrier_u64((uint64_t)(d[len - 1] >> 63));

	for (size_t i = 0; i < len; i++) /* now in (-m, m) (carried below) */
		d[i] += m[i] & low;
	for (size_t i = 0; i < len; i++)
		d[i] = (d[i] ^ neg) - neg;
	sg_add_m_carry(d, 0, m, len);
	sg_add_m_carry(d, d[len - 1] >> 63, m, len); /* [0, m) */
}

#endif
