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
#include "crypto/asm/p256_ifma_field.h"

#if defined(HS_HAVE_P256_ADX)

/* the Intel form's functions end in _intel (crypto/asm/p256_point_adx_intel.c) */
#if defined(P256_ADX_INTEL)
#define ADX_NAME(f) f##_intel
#else
#define ADX_NAME(f) f
#endif

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
	"rax", "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",  \
		"cc", "memory"

/* the same without rsi, for a block that takes a second base in it */
#define CLOBBERS_BUT_RSI                                                                       \
	"rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",   \
		"memory"

/* register lists: a product's result, a square's, two scratch sets */
#define MUL_R "rax", "rbx", "rdx", "r14"
#define SQR_R "rax", "rbx", "rdx", "r12"
#define R8_11 "r8", "r9", "r10", "r11"
#define SCRATCH3 "r13", "r15", "rcx"
/* expand the lists above before the macro counts its arguments */
#define STORE(...) P256_STORE(__VA_ARGS__)
#define SUB_RM(...) P256_SUB_RM(__VA_ARGS__)
#define SUB_MR(...) P256_SUB_MR(__VA_ARGS__)
#define ADD_RM(...) P256_ADD_RM(__VA_ARGS__)
#define ADD_RR(...) P256_ADD_RR(__VA_ARGS__)
#define HALF_R(...) P256_HALF_R(__VA_ARGS__)

/*
 * The shared middle of the doubling and ZADDU: X3 = s^2 - a - b into xd,
 * then v - X3 into td (the factor of Y3's product)
 */
#define X3_AND_V_MINUS_X3(S, A, B, XD, V, TD)                                                  \
	P256_SQR(S)                                                                            \
	SUB_RM(SQR_R, A, "r8", "r9", "r10")                                               \
	SUB_RM(SQR_R, B, "r8", "r9", "r10")                                               \
	STORE(XD, SQR_R)                                                                  \
	SUB_MR(R8_11, V, SQR_R, SCRATCH3)                                                 \
	STORE(TD, R8_11)

/* d = a, through r8..r11 */
#define P256_COPY(D, A)                                                                        \
	"movq 0+" A ", %%r8\n\t"                                                               \
	"movq 8+" A ", %%r9\n\t"                                                               \
	"movq 16+" A ", %%r10\n\t"                                                             \
	"movq 24+" A ", %%r11\n\t"                                                             \
	STORE(D, R8_11)

/*
 * jac_double's formula: delta = Z^2, t = X - delta (t2),
 * m = X + delta (t3), 2Y (t1), M = 3 t m (t3), Z3 = 2Y Z, 4Y^2 (t1),
 * S = X 4Y^2 (t4), X3 = M^2 - 2S, S - X3 (t2), 16Y^4 / 2 (t1),
 * Y3 = M (S - X3) - 8Y^4. The chains that follow a product or square
 * stay in registers.
 */
void ADX_NAME(p256_jac_double_adx)(struct p256_jws *w)
{
	__asm__ volatile(P256_SQR(Z1)
			 SUB_MR(R8_11, X1, SQR_R, SCRATCH3)
			 STORE(T2, R8_11)
			 ADD_RM(SQR_R, X1, "rcx", R8_11)
			 STORE(T3, R8_11)
			 P256_ADD_TO(T1, Y1, Y1)
			 P256_MUL(T2, T3)
			 "movq %%rax, %%r8\n\t"
			 "movq %%rbx, %%r9\n\t"
			 "movq %%rdx, %%r10\n\t"
			 "movq %%r14, %%r11\n\t"
			 ADD_RR(R8_11, MUL_R, "rcx", "r12", "r13", "r15", "rsi")
			 ADD_RR("r12", "r13", "r15", "rsi", MUL_R, "rcx", R8_11)
			 STORE(T3, R8_11)
			 P256_MUL_TO(Z1, T1, Z1)
			 P256_SQR_TO(T1, T1)
			 P256_MUL_TO(T4, X1, T1)
			 X3_AND_V_MINUS_X3(T3, T4, T4, X1, T4, T2)
			 P256_SQR(T1)
			 HALF_R(SQR_R, R8_11)
			 STORE(T1, SQR_R)
			 P256_MUL(T3, T2)
			 SUB_RM(MUL_R, T1, "r8", "r9", "r10")
			 STORE(Y1, MUL_R)
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
	P256_SQR(RR)                                                                           \
	SUB_RM(SQR_R, T7, "r8", "r9", "r10")                                              \
	SUB_RM(SQR_R, T8, "r8", "r9", "r10")                                              \
	SUB_RM(SQR_R, T8, "r8", "r9", "r10")                                              \
	STORE(X3, SQR_R)                                                                  \
	SUB_MR(R8_11, T8, SQR_R, SCRATCH3)                                                \
	STORE(T0, R8_11)                                                                  \
	P256_MUL(RR, T0)                                                                       \
	SUB_RM(MUL_R, T9, "r8", "r9", "r10")                                              \
	STORE(Y3, MUL_R)

/*
 * Both general additions after u1 (t2), s1 (t4) and z1z1 (t0): h = X2 z1z1 - u1,
 * rr = Y2 Z1 z1z1 - s1, Z3 = Z1 Z2 h, then the tail.
 */
#define ADD_REST                                                                               \
	P256_MUL(X2, T0)                                                                       \
	SUB_RM(MUL_R, T2, "r8", "r9", "r10")                                              \
	STORE(H, MUL_R)                                                                   \
	P256_MUL_TO(T5, Y2, Z1)                                                                \
	P256_MUL(T5, T0)                                                                       \
	SUB_RM(MUL_R, T4, "r8", "r9", "r10")                                              \
	STORE(RR, MUL_R)                                                                  \
	P256_MUL_TO(T0, Z1, Z2)                                                                \
	P256_MUL_TO(Z3, T0, H)                                                                 \
	TAIL(T2, T4)

/*
 * jac_add_start's: z1z1 (t0), z2z2 (t1), u1 = X1 z2z2 (t2),
 * s1 = Y1 Z2 z2z2 (t4), h = X2 z1z1 - u1, rr = Y2 Z1 z1z1 - s1;
 * then Z3 = Z1 Z2 h and the tail.
 */
void ADX_NAME(p256_jac_add_adx)(struct p256_jws *w)
{
	__asm__ volatile(P256_SQR_TO(T0, Z1)
			 P256_SQR_TO(T1, Z2)
			 P256_MUL_TO(T2, X1, T1)
			 P256_MUL_TO(T4, Y1, Z2)
			 P256_MUL_TO(T4, T4, T1)
			 ADD_REST
			 :
			 : "D"(w), OFFSETS, P256_ADX_CONSTS
			 : CLOBBERS);
}

/*
 * The same with q's Z2^2 and Z2^3 given (zz[0], zz[1]: a table entry's,
 * computed once; read in place, not copied into the workspace just
 * before, which measured 140 cycles slower an addition):
 * u1 = X1 z2z2, s1 = Y1 z2^3 (11M + 3S)
 */
void ADX_NAME(p256_jac_add_cached_adx)(struct p256_jws *w, const p256_fe zz[2])
{
	__asm__ volatile(P256_SQR_TO(T0, Z1)
			 P256_MUL_TO(T2, X1, "0(%%rsi)")
			 P256_MUL_TO(T4, Y1, "32(%%rsi)")
			 ADD_REST
			 :
			 : "D"(w), "S"(zz), OFFSETS, P256_ADX_CONSTS
			 : CLOBBERS_BUT_RSI);
}

/*
 * zaddu's co-Z addition (p and q share Z1): h = X1 - X2, c = h^2 (t0),
 * W1 = X1 c (t1), W2 = X2 c (t2), A1 = Y1 (W1 - W2) (t3), Y1 - Y2 (t4),
 * Z3 = Z1 h, X3 = (Y1 - Y2)^2 - W1 - W2, Y3 = (Y1 - Y2)(W1 - X3) - A1;
 * then p = (W1, A1, Z3), p rescaled to the sum's Z (5M + 2S)
 */
void ADX_NAME(p256_jac_zaddu_adx)(struct p256_jws *w)
{
	__asm__ volatile(P256_SUB_TO(H, X1, X2)
			 P256_SQR_TO(T0, H)
			 P256_MUL_TO(T1, X1, T0)
			 P256_MUL_TO(T2, X2, T0)
			 P256_SUB_TO(T3, T1, T2)
			 P256_MUL_TO(T3, Y1, T3)
			 P256_SUB_TO(T4, Y1, Y2)
			 P256_MUL_TO(Z3, Z1, H)
			 X3_AND_V_MINUS_X3(T4, T1, T2, X3, T1, T2)
			 P256_MUL(T4, T2)
			 SUB_RM(MUL_R, T3, "r8", "r9", "r10")
			 STORE(Y3, MUL_R)
			 P256_COPY(X1, T1)
			 P256_COPY(Y1, T3)
			 P256_COPY(Z1, Z3)
			 :
			 : "D"(w), OFFSETS, P256_ADX_CONSTS
			 : CLOBBERS);
}

/* jac_add_affine's: z1z1 (t0), h = X2 z1z1 - X1, rr = Y2 Z1 z1z1 - Y1, u1 = X1, s1 = Y1 */
void ADX_NAME(p256_jac_add_affine_adx)(struct p256_jws *w)
{
	__asm__ volatile(P256_SQR_TO(T0, Z1)
			 P256_MUL(X2, T0)
			 SUB_RM(MUL_R, X1, "r8", "r9", "r10")
			 STORE(H, MUL_R)
			 P256_MUL_TO(T5, Y2, Z1)
			 P256_MUL(T5, T0)
			 SUB_RM(MUL_R, Y1, "r8", "r9", "r10")
			 STORE(RR, MUL_R)
			 P256_MUL_TO(Z3, Z1, H)
			 TAIL(X1, Y1)
			 :
			 : "D"(w), OFFSETS, P256_ADX_CONSTS
			 : CLOBBERS);
}

/*
 * ECDH's window with products in AVX-512 IFMA lanes: five doublings
 * (p256_jac_double5_ifma) and the mixed addition
 * (p256_jac_add_affine_ifma), with four-lane 256-bit vectors
 * (crypto/asm/p256_ifma_field.h's struct p256_fe4) beside the scalar MULX/ADX
 * products. The formulas are jac_double's and jac_add_affine's, integer
 * for integer: the lanes compute, in radix 2^52, products whose results
 * the scalar code needs only later, so that they leave the integer side
 * (the bound: a scalar product takes about 30 cycles whether or not the
 * one before it is done).
 * - Each doubling computes, in one four-lane product, delta' = Z'^2 =
 *   4Y^2 delta (lane 0), 8Y^4 = (4Y^2)^2 / 2 (lane 1; Y3 needs it at the
 *   doubling's end) and Z' = 2Y Z (lane 2); the next doubling's M takes
 *   delta' from lane 0. Two layouts, one per form of this file:
 *   - this file's own (Zen 5): S = X 4Y^2 is a scalar product; the
 *     fifth doubling computes the same lanes (delta and Z for the
 *     addition), but its Z' is a scalar product too (the addition needs
 *     Z at once) and so is its 8Y^4: waiting for the lanes there cost
 *     10% of an ECDH (measured).
 *   - the Intel form (P256_ADX_INTEL, p256_point_adx_intel.c): S in lane
 *     3, and the fifth doubling's Z' and 8Y^4 from the lanes too: 2M + 2S
 *     scalar per doubling. On the Intel Xeon the doubling is bound by the
 *     ports it shares (ADC, SBB, CMOV on two; MULX, the 256-bit IFMA and
 *     the vector operations on the same and two more), and a lane
 *     product's chain is half Zen 5's: ECDH 86.3k -> 80.7k TSC cycles.
 * - The addition computes the next window's (delta, Z) in two lanes,
 *   (delta h^2, Z h) from the fifth doubling's, and selects them with
 *   masks as p256_point_mul selects X and Y (q or p at infinity): the
 *   doublings that follow start from them (struct p256_zlanes, stored
 *   and loaded as vectors), with no scalar Z3 and no delta = Z^2 u^2 of
 *   their own.
 * - The product: a factor that enters the lanes four bits up (16 x <
 *   2^260; three for 8Y^4's half) makes the radix-2^52 product a b /
 *   2^260 the R = 2^256 one; the other factor below p keeps the result
 *   below 2p, and one masked subtraction of p (carry_finish) fully
 *   reduces it: every value that leaves the lanes is the integer the
 *   scalar code would have computed (the tests compare them).
 * - Values cross between the register files in registers (VMOVQ,
 *   VPBROADCASTQ, VPINSRQ, VINSERTI128 and back in the pieces'
 *   assembly): a vector store that 64-bit loads read soon after, or
 *   64-bit stores read by a vector load, do not forward, and ECDH ran up
 *   to 2x slower through memory.
 * - The vector code is cut into pieces between the scalar products
 *   (empty asm statements pin each piece's values; volatile statements
 *   keep their order), so each piece issues when its inputs are ready:
 *   as one block it held up retirement and gained nothing.
 * - One copy of the doubling body, the fifth's variant chosen by a
 *   (public) flag: five inlined copies (16 KB) were too much code for
 *   the instruction cache next to the addition.
 * - Measured (Zen 5, TSC cycles): two lanes (delta', Z') in the first
 *   four doublings took ECDH from 69.8k to 67.5-68.1k, the isomorphic
 *   curve's mixed additions to 64.6k, 8Y^4 in a third lane to 63.0k, the
 *   Z chain through the addition to 60.5-61.0k.
 * - Constant time: straight-line code; lane selects by masks; the
 *   runtime flags are the public doubling count and window. valgrind
 *   cannot run it: tests/ct/dudect.c times ECDH, which takes it on IFMA
 *   CPUs.
 */
/* pin values in vector registers here (nothing moves across) */
#define PIN5(a) __asm__ volatile("" : "+v"(a[0]), "+v"(a[1]), "+v"(a[2]), "+v"(a[3]), "+v"(a[4]))
#define PIN4(a) __asm__ volatile("" : "+v"(a[0]), "+v"(a[1]), "+v"(a[2]), "+v"(a[3]))
#define PIN10(a)                                                                               \
	__asm__ volatile("" : "+v"(a[0]), "+v"(a[1]), "+v"(a[2]), "+v"(a[3]), "+v"(a[4]),       \
			 "+v"(a[5]), "+v"(a[6]), "+v"(a[7]), "+v"(a[8]), "+v"(a[9]))

/* one scalar piece on the workspace */
#define PIECE(code) __asm__ volatile(code : : "D"(w), OFFSETS, P256_ADX_CONSTS : CLOBBERS)

/* M = 3 (X - delta)(X + delta) (t3) with delta in rax, rbx, rdx, r12 */
#define M_FROM_DELTA                                                                           \
	SUB_MR(R8_11, X1, SQR_R, SCRATCH3)                                                     \
	STORE(T2, R8_11)                                                                       \
	ADD_RM(SQR_R, X1, "rcx", R8_11)                                                        \
	STORE(T3, R8_11)                                                                       \
	P256_MUL(T2, T3)                                                                       \
	"movq %%rax, %%r8\n\t"                                                                 \
	"movq %%rbx, %%r9\n\t"                                                                 \
	"movq %%rdx, %%r10\n\t"                                                                \
	"movq %%r14, %%r11\n\t"                                                                \
	ADD_RR(R8_11, MUL_R, "rcx", "r12", "r13", "r15", "rsi")                                \
	ADD_RR("r12", "r13", "r15", "rsi", MUL_R, "rcx", R8_11)                                \
	STORE(T3, R8_11)

/* lane 0 of the packed limbs q0..q3 (delta) into rax, rbx, rdx, r12 */
#define DELTA_FROM_LANES                                                                       \
	"vmovq %x[q0], %%rax\n\t"                                                              \
	"vmovq %x[q1], %%rbx\n\t"                                                              \
	"vmovq %x[q2], %%rdx\n\t"                                                              \
	"vmovq %x[q3], %%r12\n\t"

/* lane 2 of q0..q3 (Z) into the workspace's Z, through xmm0 */
#define Z_FROM_LANES                                                                           \
	"vextracti128 $1, %[q0], %%xmm0\n\t"                                                   \
	"vmovq %%xmm0, %%r8\n\t"                                                               \
	"vextracti128 $1, %[q1], %%xmm0\n\t"                                                   \
	"vmovq %%xmm0, %%r9\n\t"                                                               \
	"vextracti128 $1, %[q2], %%xmm0\n\t"                                                   \
	"vmovq %%xmm0, %%r10\n\t"                                                              \
	"vextracti128 $1, %[q3], %%xmm0\n\t"                                                   \
	"vmovq %%xmm0, %%r11\n\t"                                                              \
	STORE(Z1, R8_11)

/* lane 1 of q0..q3 (8Y^4) into t1, through xmm0 */
#define Y4_FROM_LANES                                                                          \
	"vpunpckhqdq %x[q0], %x[q0], %%xmm0\n\t"                                              \
	"vmovq %%xmm0, %%r8\n\t"                                                               \
	"vpunpckhqdq %x[q1], %x[q1], %%xmm0\n\t"                                              \
	"vmovq %%xmm0, %%r9\n\t"                                                               \
	"vpunpckhqdq %x[q2], %x[q2], %%xmm0\n\t"                                              \
	"vmovq %%xmm0, %%r10\n\t"                                                              \
	"vpunpckhqdq %x[q3], %x[q3], %%xmm0\n\t"                                              \
	"vmovq %%xmm0, %%r11\n\t"                                                              \
	STORE(T1, R8_11)

/*
 * the last scalar result a (rax, rbx, rdx, r12: a square's) and the value
 * b at memory operand M into q0..q3 as (a, a, b, a) through registers:
 * vector loads of limbs the scalar code has just stored wait for those
 * stores to retire (no forwarding between the two register files' stores
 * and loads), and the reorder buffer fills behind them
 */
#define LANE_IN(R, S, Q)                                                                       \
	"vpbroadcastq %%" R ", %x[" Q "]\n\t"                                                  \
	"vmovq %%" S ", %%xmm0\n\t"                                                            \
	"vpinsrq $1, %%" R ", %%xmm0, %%xmm0\n\t"                                              \
	"vinserti128 $1, %%xmm0, %[" Q "], %[" Q "]\n\t"
/* limb by limb through r8..r11, with LANE_IN or LANE_IN2 */
#define TO_LANES_BY(LANE, M)                                                                   \
	"movq 0+" M ", %%r8\n\t"                                                               \
	"movq 8+" M ", %%r9\n\t"                                                               \
	"movq 16+" M ", %%r10\n\t"                                                             \
	"movq 24+" M ", %%r11\n\t"                                                             \
	LANE("rax", "r8", "q0") LANE("rbx", "r9", "q1") LANE("rdx", "r10", "q2")               \
	LANE("r12", "r11", "q3")
#define TO_LANES(M) TO_LANES_BY(LANE_IN, M)

/* (a, 0, b, 0) the same way: the first (delta, Z) */
#define LANE_IN2(R, S, Q)                                                                      \
	"vmovq %%" R ", %x[" Q "]\n\t"                                                         \
	"vmovq %%" S ", %%xmm0\n\t"                                                            \
	"vinserti128 $1, %%xmm0, %[" Q "], %[" Q "]\n\t"
#define TO_LANES2(M) TO_LANES_BY(LANE_IN2, M)

/* a scalar piece whose result goes to q0..q3 (xmm0..15: VEX encodings) */
#define PIECE_TO_Q(code, q)                                                                    \
	__asm__ volatile(code                                                                  \
			 : [q0] "=&x"(q[0]), [q1] "=&x"(q[1]), [q2] "=&x"(q[2]),               \
			   [q3] "=&x"(q[3])                                                    \
			 : "D"(w), OFFSETS, P256_ADX_CONSTS                                    \
			 : CLOBBERS, "xmm0")

/* a scalar piece that also reads q0..q3 (and may use xmm0) */
#define PIECE_Q(code)                                                                          \
	__asm__ volatile(code                                                                  \
			 :                                                                     \
			 : "D"(w), [q0] "x"(q[0]), [q1] "x"(q[1]), [q2] "x"(q[2]),             \
			   [q3] "x"(q[3]), OFFSETS, P256_ADX_CONSTS                            \
			 : CLOBBERS, "xmm0")

#if defined(P256_ADX_INTEL)
/*
 * (a, a, b, x) the same way, x from memory operand X: the doubling's
 * (4Y^2, 4Y^2, 2Y, X)
 */
#define LANE_IN_X(X)                                                                           \
	"vpbroadcastq %%rax, %x[q0]\n\t"                                                     \
	"vmovq %%r8, %%xmm0\n\t"                                                             \
	"vpinsrq $1, 0+" X ", %%xmm0, %%xmm0\n\t"                                             \
	"vinserti128 $1, %%xmm0, %[q0], %[q0]\n\t"                                          \
	"vpbroadcastq %%rbx, %x[q1]\n\t"                                                     \
	"vmovq %%r9, %%xmm0\n\t"                                                             \
	"vpinsrq $1, 8+" X ", %%xmm0, %%xmm0\n\t"                                             \
	"vinserti128 $1, %%xmm0, %[q1], %[q1]\n\t"                                          \
	"vpbroadcastq %%rdx, %x[q2]\n\t"                                                     \
	"vmovq %%r10, %%xmm0\n\t"                                                            \
	"vpinsrq $1, 16+" X ", %%xmm0, %%xmm0\n\t"                                            \
	"vinserti128 $1, %%xmm0, %[q2], %[q2]\n\t"                                          \
	"vpbroadcastq %%r12, %x[q3]\n\t"                                                     \
	"vmovq %%r11, %%xmm0\n\t"                                                            \
	"vpinsrq $1, 24+" X ", %%xmm0, %%xmm0\n\t"                                            \
	"vinserti128 $1, %%xmm0, %[q3], %[q3]\n\t"
#define TO_LANES_X(M, X)                                                                       \
	"movq 0+" M ", %%r8\n\t"                                                               \
	"movq 8+" M ", %%r9\n\t"                                                               \
	"movq 16+" M ", %%r10\n\t"                                                             \
	"movq 24+" M ", %%r11\n\t"                                                             \
	LANE_IN_X(X)

/* lane 3 of q0..q3 (S = X 4Y^2) into t4, through xmm0 */
#define S_FROM_LANES                                                                           \
	"vextracti128 $1, %[q0], %%xmm0\n\t"                                                   \
	"vpextrq $1, %%xmm0, %%r8\n\t"                                                         \
	"vextracti128 $1, %[q1], %%xmm0\n\t"                                                   \
	"vpextrq $1, %%xmm0, %%r9\n\t"                                                         \
	"vextracti128 $1, %[q2], %%xmm0\n\t"                                                   \
	"vpextrq $1, %%xmm0, %%r10\n\t"                                                        \
	"vextracti128 $1, %[q3], %%xmm0\n\t"                                                   \
	"vpextrq $1, %%xmm0, %%r11\n\t"                                                        \
	STORE(T4, R8_11)

/*
 * One doubling, the Intel form's layout. delta = Z^2 comes from lane 0 of
 * q (packed 64-bit limbs), Z from v's lane 2 (radix 2^52): the lanes'
 * product of the doubling before, or the window's start. The lanes
 * compute the next (delta, 8Y^4, Z) and S = X 4Y^2 into v and q; X3
 * takes S from lane 3 and Y3 8Y^4 from lane 1. The last doubling (last)
 * also puts Z into the workspace.
 */
P256_IFMA_INL4 void double_pieces(struct p256_jws *w, struct p256_fe4 *v, __m256i q[4], int last)
{
	struct p256_fe4 u, y4;
	__m256i t[10], y[4];

	/* 2Y (t0), 4Y^2 (t1); (4Y^2, 4Y^2, 2Y, X) into y */
	PIECE_TO_Q(P256_ADD_TO(T0, Y1, Y1) P256_SQR_TO(T1, T0) TO_LANES_X(T0, X1), y);
	/*
	 * u: 16 (4Y^2), 8 (4Y^2), 16 (2Y), 16 X; v keeps delta and Z and
	 * takes 4Y^2 into lanes 1 and 3: the product is (4Y^2 delta,
	 * (4Y^2)^2 / 2, 2Y Z, X 4Y^2)
	 */
	p256_from_u64_v_x4(&u, y, _mm256_setr_epi64x(4, 3, 4, 4));
	p256_from_u64_x4(&y4, y, 0);
	for (int i = 0; i < 5; i++)
		v->l[i] = _mm256_mask_permutexvar_epi64(v->l[i], 0xa, _mm256_setzero_si256(),
							y4.l[i]);
	p256_columns_x4(t, NULL, &u, v, 0, 2);
	PIN10(t);
	/* M = 3 (X - delta)(X + delta) (t3), delta from lane 0 of q */
	PIECE_Q(DELTA_FROM_LANES M_FROM_DELTA);
	p256_columns_x4(t, NULL, &u, v, 2, 5);
	PIN10(t);
	p256_reduce_x4(t, 0, 3);
	PIN10(t);
	p256_reduce_x4(t, 3, 5);
	p256_carry_finish_x4(v, t); /* below p */
	p256_to_u64_x4(q, v);
	PIN4(q);
	/* S (t4); X3 = M^2 - 2S, S - X3 (t2) */
	PIECE_Q(S_FROM_LANES);
	if (last) /* Z = 2Y Z from lane 2 */
		PIECE_Q(Z_FROM_LANES);
	PIECE(X3_AND_V_MINUS_X3(T3, T4, T4, X1, T4, T2));
	/* 8Y^4 (t1) */
	PIECE_Q(Y4_FROM_LANES);
	/* Y3 = M (S - X3) - 8Y^4 */
	PIECE(P256_MUL(T3, T2) SUB_RM(MUL_R, T1, "r8", "r9", "r10") STORE(Y1, MUL_R));
}

#else
/*
 * One doubling. delta = Z^2 comes from lane 0 of q (packed 64-bit limbs),
 * Z from v's lane 2 (radix 2^52): the lanes' product of the doubling
 * before, or the window's start. The lanes compute the next (delta,
 * 8Y^4, Z) into v and q; Y3 takes 8Y^4 from lane 1, except in the last
 * doubling (last), where 8Y^4 is a scalar square and Z = 2Y Z a scalar
 * product as well (Z from lane 2 of q).
 */
P256_IFMA_INL4 void double_pieces(struct p256_jws *w, struct p256_fe4 *v, __m256i q[4], int last)
{
	struct p256_fe4 u;
	__m256i t[10], y[4];

	/* 2Y (t0), 4Y^2 (t1); (4Y^2, 4Y^2, 2Y, 4Y^2) into y */
	PIECE_TO_Q(P256_ADD_TO(T0, Y1, Y1) P256_SQR_TO(T1, T0) TO_LANES(T0), y);
	/*
	 * u: 16 (4Y^2), 8 (4Y^2), 16 (2Y), 4Y^2; v keeps delta and Z and
	 * takes 4Y^2 (u's lane 3) into lane 1: the product is (4Y^2 delta,
	 * (4Y^2)^2 / 2, 2Y Z)
	 */
	p256_from_u64_v_x4(&u, y, _mm256_setr_epi64x(4, 3, 4, 0));
	for (int i = 0; i < 5; i++)
		v->l[i] = _mm256_mask_permutexvar_epi64(v->l[i], 2, _mm256_set1_epi64x(3), u.l[i]);
	p256_columns_x4(t, NULL, &u, v, 0, 2);
	PIN10(t);
	/* S = X 4Y^2 (t4) */
	PIECE(P256_MUL_TO(T4, X1, T1));
	p256_columns_x4(t, NULL, &u, v, 2, 5);
	PIN10(t);
	/* M = 3 (X - delta)(X + delta) (t3), delta from lane 0 of q */
	PIECE_Q(DELTA_FROM_LANES M_FROM_DELTA);
	if (last) /* Z = 2Y Z, Z from lane 2 of q */
		PIECE_Q(Z_FROM_LANES P256_MUL_TO(Z1, T0, Z1));
	p256_reduce_x4(t, 0, 3);
	PIN10(t);
	/* X3 = M^2 - 2S, S - X3 (t2) */
	PIECE(X3_AND_V_MINUS_X3(T3, T4, T4, X1, T4, T2));
	p256_reduce_x4(t, 3, 5);
	p256_carry_finish_x4(v, t); /* below p */
	p256_to_u64_x4(q, v);
	PIN4(q);
	/* 8Y^4 (t1) */
	if (!last)
		PIECE_Q(Y4_FROM_LANES);
	else
		PIECE(P256_SQR(T1) HALF_R(SQR_R, R8_11) STORE(T1, SQR_R));
	/* Y3 = M (S - X3) - 8Y^4 */
	PIECE(P256_MUL(T3, T2) SUB_RM(MUL_R, T1, "r8", "r9", "r10") STORE(Y1, MUL_R));
}

#endif /* P256_ADX_INTEL */

/* the lane state to and from memory (vector stores read by vector loads: forwarded) */
P256_IFMA_INL4 void zlanes_load(struct p256_fe4 *v, const struct p256_zlanes *zl)
{
	for (int i = 0; i < 5; i++)
		v->l[i] = _mm256_load_si256((const __m256i *)(const void *)zl->l[i]);
}

P256_IFMA_INL4 void zlanes_store(struct p256_zlanes *zl, const struct p256_fe4 *v)
{
	for (int i = 0; i < 5; i++)
		_mm256_store_si256((__m256i *)(void *)zl->l[i], v->l[i]);
}

P256_IFMA_TGT4 void ADX_NAME(p256_jac_double5_ifma)(struct p256_jws *w, struct p256_zlanes *zl, int from_lanes)
{
	struct p256_fe4 v;
	__m256i q[4];

	if (from_lanes) {
		zlanes_load(&v, zl);
		p256_to_u64_x4(q, &v);
	} else {
		/* (delta, 0, Z, 0) with delta = Z^2 c, c in q's Z (see the header) */
		PIECE_TO_Q(P256_SQR_TO(T5, Z1) P256_MUL(T5, Z2) "movq %%r14, %%r12\n\t"
				   TO_LANES2(Z1),
			   q);
		p256_from_u64_x4(&v, q, 0);
	}
	PIN5(v.l);
	/*
	 * one copy of the doubling body, the last one's variant chosen by a
	 * (public) flag: five inlined copies (16 KB) were too much code for
	 * the instruction cache next to the addition
	 */
#pragma GCC unroll 1
	for (int k = 0; k < 5; k++) {
		int last = k == 4;

		__asm__("" : "+r"(last)); /* no specialised copies */
		double_pieces(w, &v, q, last);
	}
	zlanes_store(zl, &v);
}

/*
 * The mixed addition with the Z chain in the lanes: jac_add_affine's
 * formula (p256_jac_add_affine_adx) for X3 and Y3, while two lanes take
 * the next window's delta = delta hh (the P-256 Z3^2 = (u Z1 h)^2) and
 * Z3 = Z1 h from the doublings' (delta, Z), which the lanes then select
 * as p256_point_mul selects X and Y: (u^2, 1) where p was infinity
 * (p_inf), the doublings' own where q is (q_inf). No scalar Z3.
 */
P256_IFMA_TGT4 void ADX_NAME(p256_jac_add_affine_ifma)(struct p256_jws *w, struct p256_zlanes *zl,
					     const p256_fe one, uint64_t p_inf, uint64_t q_inf)
{
	struct p256_fe4 u, v, r, c;
	__m256i t[10], y[4], k[4];
	const __mmask8 kp = (__mmask8)(p_inf & 0xf), kq = (__mmask8)(q_inf & 0xf);

	/* z1z1 (t0), h = X2 z1z1 - X1, rr = Y2 Z1 z1z1 - Y1 */
	PIECE(P256_SQR_TO(T0, Z1)
	      P256_MUL(X2, T0) SUB_RM(MUL_R, X1, "r8", "r9", "r10") STORE(H, MUL_R)
	      P256_MUL_TO(T5, Y2, Z1)
	      P256_MUL(T5, T0) SUB_RM(MUL_R, Y1, "r8", "r9", "r10") STORE(RR, MUL_R));
	/* hh (t6); (hh, hh, h, hh) into y */
	PIECE_TO_Q(P256_SQR_TO(T6, H) TO_LANES(H), y);
	zlanes_load(&v, zl);
	p256_from_u64_x4(&u, y, 4); /* 16 x: the product's 2^260 is 2^256 */
	p256_columns_x4(t, NULL, &u, &v, 0, 2);
	PIN10(t);
	/* hhh = h hh (t7) */
	PIECE(P256_MUL_TO(T7, H, T6));
	p256_columns_x4(t, NULL, &u, &v, 2, 5);
	PIN10(t);
	/* v = X1 hh (t8) */
	PIECE(P256_MUL_TO(T8, X1, T6));
	p256_reduce_x4(t, 0, 3);
	PIN10(t);
	/* s1 hhh (t9) */
	PIECE(P256_MUL_TO(T9, Y1, T7));
	p256_reduce_x4(t, 3, 5);
	p256_carry_finish_x4(&r, t); /* (delta hh, -, Z1 h, -) below p */
	PIN5(r.l);
	/* X3 = rr^2 - hhh - 2v, v - X3 (t0) */
	PIECE(P256_SQR(RR) SUB_RM(SQR_R, T7, "r8", "r9", "r10") SUB_RM(SQR_R, T8, "r8", "r9", "r10")
		      SUB_RM(SQR_R, T8, "r8", "r9", "r10") STORE(X3, SQR_R)
			      SUB_MR(R8_11, T8, SQR_R, SCRATCH3) STORE(T0, R8_11));
	for (int i = 0; i < 4; i++)
		k[i] = _mm256_setr_epi64x((long long)w->q[2][i], 0, (long long)one[i], 0);
	p256_from_u64_x4(&c, k, 0); /* (u^2, 0, 1, 0): q's Z holds u^2 */
	for (int i = 0; i < 5; i++) {
		r.l[i] = _mm256_mask_blend_epi64(kp, r.l[i], c.l[i]);
		r.l[i] = _mm256_mask_blend_epi64(kq, r.l[i], v.l[i]);
	}
	zlanes_store(zl, &r);
	/* Y3 = rr (v - X3) - s1 hhh */
	PIECE(P256_MUL(RR, T0) SUB_RM(MUL_R, T9, "r8", "r9", "r10") STORE(Y3, MUL_R));
}

#if !defined(P256_ADX_INTEL) /* one copy of what does not depend on the form */
/* delta (lane 0) and Z (lane 2) of the lane state, as field elements */
P256_IFMA_TGT4 void p256_zlanes_get(p256_fe delta, p256_fe z, const struct p256_zlanes *zl)
{
	struct p256_fe4 v;
	__m256i q[4];

	zlanes_load(&v, zl);
	p256_to_u64_x4(q, &v);
	for (int i = 0; i < 4; i++) {
		delta[i] = (uint64_t)_mm256_extract_epi64(q[i], 0);
		z[i] = (uint64_t)_mm256_extract_epi64(q[i], 2);
	}
}

#if defined(HS_TEST_HOOKS)
/* the lane state (delta, -, Z, -) from field elements below p */
P256_IFMA_TGT4 void p256_zlanes_set(struct p256_zlanes *zl, const p256_fe delta, const p256_fe z)
{
	struct p256_fe4 v;
	__m256i q[4];

	for (int i = 0; i < 4; i++)
		q[i] = _mm256_setr_epi64x((long long)delta[i], 0, (long long)z[i], 0);
	p256_from_u64_x4(&v, q, 0);
	zlanes_store(zl, &v);
}
#endif

#endif /* !P256_ADX_INTEL */

#endif
