/*
 * Whole P-256 Jacobian point formulas in x86-64 assembly (BMI2, ADX),
 * internal to crypto/: used by crypto/p256_point.c when
 * p256_fe_adx_active(). The same formulas, operation for operation, as
 * the C ones there (jac_double, jac_add_ct's incomplete sum,
 * jac_add_affine's), so the results are bit-identical
 * (tests/crypto/test_p256.c compares them).
 *
 * (X:Y:Z) stands for (X/Z^2, Y/Z^3), Montgomery form. The operands and
 * results live in a workspace that the caller owns and wipes.
 */
#ifndef HS_CRYPTO_ASM_P256_POINT_ADX_H
#define HS_CRYPTO_ASM_P256_POINT_ADX_H

#include "crypto/cpu.h"
#include "crypto/p256_field.h"

struct p256_jws {
	p256_fe p[3];  /* p (X, Y, Z); the doubling replaces it by 2p */
	p256_fe q[3];  /* q (Z unused by the mixed addition: q is affine) */
	p256_fe r[3];  /* p + q */
	p256_fe h, rr;      /* the addition's U2 - U1 and S2 - S1 (both 0 when p = q) */
	p256_fe t[10];      /* temporaries */
};

/*
 * ECDH's Z chain in four AVX-512 IFMA lanes (radix 2^52, limb i of each
 * lane in l[i]: delta = the P-256 Z^2 in lane 0, Z in lane 2), kept from
 * one window's addition to the next window's doublings. Plain storage
 * here, so that p256_point_mul can hold it on every architecture.
 */
struct p256_zlanes {
	_Alignas(32) uint64_t l[5][4];
};

#if defined(HS_HAVE_P256_ADX)
/* p = 2p: 4M + 4S, constant time, correct for every input */
void p256_jac_double_adx(struct p256_jws *w);
/*
 * r = p + q by the incomplete formula (12M + 4S), constant
 * time; wrong when p or q is infinity or p = q (the caller selects)
 */
void p256_jac_add_adx(struct p256_jws *w);
/* the same with q = (X, Y, 1) affine (8M + 3S) */
void p256_jac_add_affine_adx(struct p256_jws *w);
/* the same with q's Z^2 and Z^3 given in zz[0] and zz[1] (11M + 3S) */
void p256_jac_add_cached_adx(struct p256_jws *w, const p256_fe zz[2]);
/*
 * co-Z addition ("ZADDU", 5M + 2S) for p and q with the same Z (q's Z
 * unused): r = p + q, h = X1 - X2, and p replaced by itself rescaled to
 * r's Z; wrong when p = +-q or either is infinity (the caller's argument)
 */
void p256_jac_zaddu_adx(struct p256_jws *w);
/*
 * p = 32p: five doublings, the same integers as p256_jac_double_adx five
 * times when q's Z holds 1 (Montgomery form), with delta = Z^2, Z and
 * 8Y^4 (and S = X 4Y^2 in the Intel form) computed in AVX-512 IFMA lanes
 * beside the scalar products (t0..t5 are its temporaries). With c = u^2 in q's Z, p is taken on the
 * isomorphic curve y^2 = x^3 - 3u^4 x + u^6 b (the point (X, Y, u Z) of
 * P-256): delta = (u Z)^2 is all the doubling needs of a = -3 u^4, so
 * that p256_point_mul can add its co-Z table entries (shared Z = u) as
 * affine points there. The first delta and Z come from zl when
 * from_lanes (the addition's, p256_jac_add_affine_ifma; the workspace's
 * Z is not read), else from the workspace (delta = Z^2 c); either way zl
 * gets the fifth doubling's (delta, Z), and the workspace's Z is Z. The
 * caller checks cpu_has(HS_P256_DOUBLE5_CPU) as well.
 */
#define HS_P256_DOUBLE5_CPU (HS_CPU_AVX512F | HS_CPU_AVX512VL | HS_CPU_AVX512IFMA)
void p256_jac_double5_ifma(struct p256_jws *w, struct p256_zlanes *zl, int from_lanes);
/*
 * r = p + q (q affine) as p256_jac_add_affine_adx for X and Y (h, rr and
 * t0..t9 set too), with the Z chain in zl: its (delta, Z), p's, becomes
 * p + q's (delta h^2, Z h), or (u^2, 1) (q's Z holds u^2; one is 1 in
 * Montgomery form) where p_inf, or stays where q_inf (masks, q_inf
 * winning: as p256_point_mul selects X and Y). r's Z is not written.
 */
void p256_jac_add_affine_ifma(struct p256_jws *w, struct p256_zlanes *zl, const p256_fe one,
			      uint64_t p_inf, uint64_t q_inf);
/*
 * The same functions in the form for Intel cores (p256_point_adx_intel.c:
 * the MULX reduction step, S = X 4Y^2 in the doubling's fourth lane);
 * the same results.
 */
void p256_jac_double_adx_intel(struct p256_jws *w);
void p256_jac_add_adx_intel(struct p256_jws *w);
void p256_jac_add_affine_adx_intel(struct p256_jws *w);
void p256_jac_add_cached_adx_intel(struct p256_jws *w, const p256_fe zz[2]);
void p256_jac_zaddu_adx_intel(struct p256_jws *w);
void p256_jac_double5_ifma_intel(struct p256_jws *w, struct p256_zlanes *zl, int from_lanes);
void p256_jac_add_affine_ifma_intel(struct p256_jws *w, struct p256_zlanes *zl,
				    const p256_fe one, uint64_t p_inf, uint64_t q_inf);
/* the lanes' delta and Z, fully reduced */
void p256_zlanes_get(p256_fe delta, p256_fe z, const struct p256_zlanes *zl);
#if defined(HS_TEST_HOOKS)
/* the lanes' (delta, Z) from field elements below p (test hook) */
void p256_zlanes_set(struct p256_zlanes *zl, const p256_fe delta, const p256_fe z);
#endif
#endif

#if defined(HS_TEST_HOOKS)
/*
 * The C formulas of crypto/p256_point.c on the same workspace (test
 * hooks): p = 2p; r, h, rr of p + q (kind: 0 Jacobian q, 1 affine q,
 * 2 Jacobian q with its Z^2 and Z^3 given in zz[0] and zz[1]; zz is
 * read for kind 2 only).
 */
void p256_jws_double_c(struct p256_jws *w);
void p256_jws_add_c(struct p256_jws *w, int kind, const p256_fe zz[2]);
/* r, h and the rescaled p of p256_jac_zaddu_adx by the C formula */
void p256_jws_zaddu_c(struct p256_jws *w);
#endif

#endif
