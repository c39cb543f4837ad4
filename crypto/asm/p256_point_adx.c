/*
 * P-256 Jacobian doubling and additions as single assembly blocks
 * (BMI2 MULX, ADX ADCX/ADOX).
 *
 * Implementation notes:
 * - Each formula is one inline-assembly block: the products, squares,
 *   additions and subtractions are the macros of p256_adx_asm.h, one
 *   after the other, with every operand and temporary in the workspace
 *   (struct p256_jws) addressed from rdi. No call, no register save and
 *   restore per product, and no compiler spill around the fixed-register
 *   assembly: about a fifth less time per doubling than the C formula
 *   calling p256_fe_mul_adx.
 * - The operation sequence is that of the C formulas in
 *   crypto/p256_point.c, so every intermediate value, hence the result,
 *   is the same integer: bit-identical (tests/crypto/test_p256.c).
 * - Constant time: straight-line code, no value-dependent address.
 * - The caller checks p256_fe_adx_active() (BMI2 and ADX).
 */
#include "crypto/asm/p256_point_adx.h"

#include <stddef.h>

#include "crypto/asm/p256_adx_asm.h"

#if defined(HS_HAVE_P256_ADX)

/* workspace operands (rdi = the workspace) */
#define W_(f) "%c[o_" #f "](%%rdi)"
#define X1 W_(x1)
#define Y1 W_(y1)
#define Z1 W_(z1)
#define X2 W_(x2)
#define Y2 W_(y2)
#define Z2 W_(z2)
#define X3 W_(x3)
#define Y3 W_(y3)
#define Z3 W_(z3)
#define H W_(h)
#define RR W_(rr)
#define T0 W_(t0)
#define T1 W_(t1)
#define T2 W_(t2)
#define T3 W_(t3)
#define T4 W_(t4)
#define T5 W_(t5)
#define T6 W_(t6)
#define T7 W_(t7)
#define T8 W_(t8)
#define T9 W_(t9)

#define OFF_(f, m) [o_##f] "i"(offsetof(struct p256_jws, m))
#define OFFSETS                                                                                \
	OFF_(x1, p[0]), OFF_(y1, p[1]), OFF_(z1, p[2]), OFF_(x2, q[0]), OFF_(y2, q[1]),        \
		OFF_(z2, q[2]), OFF_(x3, r[0]), OFF_(y3, r[1]), OFF_(z3, r[2]), OFF_(h, h),     \
		OFF_(rr, rr),                                                                  \
		OFF_(t0, t[0]), OFF_(t1, t[1]), OFF_(t2, t[2]), OFF_(t3, t[3]),                 \
		OFF_(t4, t[4]), OFF_(t5, t[5]), OFF_(t6, t[6]), OFF_(t7, t[7]),                 \
		OFF_(t8, t[8]), OFF_(t9, t[9])

#define CLOBBERS                                                                               \
	"rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc", \
		"memory"

/*
 * jac_double's formula: delta = Z^2 (t0), 2Y (t1), Z3 = 2Y Z,
 * M = 3 (X - delta)(X + delta) (t3), 4Y^2 (t1), S = X 4Y^2 (t4),
 * 16Y^4 / 2 (t1), X3 = M^2 - 2S, Y3 = M (S - X3) - 8Y^4.
 */
void p256_jac_double_adx(struct p256_jws *w)
{
	__asm__ volatile(P256_SQR_TO(T0, Z1)
			 P256_ADD_TO(T1, Y1, Y1)
			 P256_MUL_TO(Z1, T1, Z1)
			 P256_SUB_TO(T2, X1, T0)
			 P256_ADD_TO(T3, X1, T0)
			 P256_MUL_TO(T3, T2, T3)
			 P256_ADD_TO(T2, T3, T3)
			 P256_ADD_TO(T3, T2, T3)
			 P256_SQR_TO(T1, T1)
			 P256_MUL_TO(T4, X1, T1)
			 P256_SQR_TO(T1, T1)
			 P256_HALF_TO(T1, T1)
			 P256_SQR_TO(T2, T3)
			 P256_SUB_TO(T2, T2, T4)
			 P256_SUB_TO(X1, T2, T4)
			 P256_SUB_TO(T2, T4, X1)
			 P256_MUL_TO(T2, T3, T2)
			 P256_SUB_TO(Y1, T2, T1)
			 :
			 : "D"(w), OFFSETS, P256_ADX_CONSTS
			 : CLOBBERS);
}

/*
 * jac_add_tail's formula with u1, s1 given, h, rr and z3 set:
 * hh = h^2 (t6), hhh = h hh (t7), v = u1 hh (t8), s1 hhh (t9),
 * X3 = rr^2 - hhh - 2v, Y3 = rr (v - X3) - s1 hhh.
 */
#define TAIL(U1, S1)                                                                           \
	P256_SQR_TO(T6, H)                                                                     \
	P256_MUL_TO(T7, H, T6)                                                                 \
	P256_MUL_TO(T8, U1, T6)                                                                \
	P256_MUL_TO(T9, S1, T7)                                                                \
	P256_SQR_TO(T0, RR)                                                                    \
	P256_SUB_TO(T0, T0, T7)                                                                \
	P256_SUB_TO(T0, T0, T8)                                                                \
	P256_SUB_TO(X3, T0, T8)                                                                \
	P256_SUB_TO(T0, T8, X3)                                                                \
	P256_MUL_TO(T0, RR, T0)                                                                \
	P256_SUB_TO(Y3, T0, T9)

/*
 * jac_add_start's: z1z1 (t0), z2z2 (t1), u1 = X1 z2z2 (t2),
 * u2 = X2 z1z1 (t3), s1 = Y1 Z2 z2z2 (t4), s2 = Y2 Z1 z1z1 (t5),
 * h = u2 - u1, rr = s2 - s1; then Z3 = Z1 Z2 h and the tail.
 */
void p256_jac_add_adx(struct p256_jws *w)
{
	__asm__ volatile(P256_SQR_TO(T0, Z1)
			 P256_SQR_TO(T1, Z2)
			 P256_MUL_TO(T2, X1, T1)
			 P256_MUL_TO(T3, X2, T0)
			 P256_MUL_TO(T4, Y1, Z2)
			 P256_MUL_TO(T4, T4, T1)
			 P256_MUL_TO(T5, Y2, Z1)
			 P256_MUL_TO(T5, T5, T0)
			 P256_SUB_TO(H, T3, T2)
			 P256_SUB_TO(RR, T5, T4)
			 P256_MUL_TO(T0, Z1, Z2)
			 P256_MUL_TO(Z3, T0, H)
			 TAIL(T2, T4)
			 :
			 : "D"(w), OFFSETS, P256_ADX_CONSTS
			 : CLOBBERS);
}

/* jac_add_affine's: z1z1 (t0), u2 = X2 z1z1 (t3), s2 = Y2 Z1 z1z1 (t5), u1 = X1, s1 = Y1 */
void p256_jac_add_affine_adx(struct p256_jws *w)
{
	__asm__ volatile(P256_SQR_TO(T0, Z1)
			 P256_MUL_TO(T3, X2, T0)
			 P256_MUL_TO(T5, Y2, Z1)
			 P256_MUL_TO(T5, T5, T0)
			 P256_SUB_TO(H, T3, X1)
			 P256_SUB_TO(RR, T5, Y1)
			 P256_MUL_TO(Z3, Z1, H)
			 TAIL(X1, Y1)
			 :
			 : "D"(w), OFFSETS, P256_ADX_CONSTS
			 : CLOBBERS);
}

#endif
