/*
 * The P-256 field operations as x86-64 assembly text (BMI2 MULX, ADX
 * ADCX/ADOX), for string concatenation into inline-assembly blocks: the
 * one home of the Montgomery product, square, addition, subtraction and
 * halving in assembly, used by the single products of
 * crypto/asm/p256_field_adx.c and by the whole point formulas of
 * crypto/asm/p256_point_adx.c.
 *
 * Operands are memory operand strings such as "0(%%rsi)" or "96(%%rdi)";
 * limb i is addressed as "8*i+" operand (the assembler adds the
 * displacements). Registers: every macro may use rax, rbx, rcx, rdx and
 * r8..r15 (the block declares them clobbered) and none other, so the
 * base registers rsi and rdi survive. The block must provide the memory
 * operands %[p1] and %[p3] (p's limbs 1 and 3: p256_adx_p1, p256_adx_p3).
 *
 * Every macro leaves a fully reduced element, the same integer as the
 * portable code (crypto/p256_field.c, p256_field.h): results are
 * bit-identical. No branch, no value-dependent address (CMOV, masks).
 */
#ifndef HS_CRYPTO_ASM_P256_ADX_ASM_H
#define HS_CRYPTO_ASM_P256_ADX_ASM_H

#include <stdint.h>

static const uint64_t p256_adx_p1 = 0x00000000ffffffffull, p256_adx_p3 = 0xffffffff00000001ull,
		      p256_adx_2e32 = 0x100000000ull;

/* the operand list entries for %[p1], %[p3] and %[e32] (2^32) */
#define P256_ADX_CONSTS [p1] "m"(p256_adx_p1), [p3] "m"(p256_adx_p3), [e32] "m"(p256_adx_2e32)

/*
 * Interleaved Montgomery multiplication: for each limb b_i, acc += a * b_i
 * with MULX and two independent carry chains (ADCX through CF for the low
 * halves, ADOX through OF for the high halves), then one reduction step
 * with m = the low limb (-1/p mod 2^64 = 1): acc = (acc + m p) / 2^64.
 * acc stays below a + p < 2^257 (five limbs, six before the shift), and
 * the final value (a b + M p) / 2^256 is the integer the portable code
 * reduces, so one masked subtraction of p gives the same result. The
 * limbs rotate through r8..r13 instead of being moved.
 */

/*
 * acc (A0..A4) += a * b_i, A5 gets the top limb; rdx = b_i. Clearing A5
 * also clears CF and OF; at the end OF goes into A5 (ADOX of A5 = 0 to
 * itself) and then CF into A4 and on into A5 (ADC: the OF chain is done).
 */
#define P256_MUL_ROW(A, A0, A1, A2, A3, A4, A5)                                                \
	"xorl %%" A5 "d, %%" A5 "d\n\t"                                                        \
	"mulxq 0+" A ", %%rax, %%rbx\n\t"                                                      \
	"adcxq %%rax, %%" A0 "\n\t"                                                            \
	"adoxq %%rbx, %%" A1 "\n\t"                                                            \
	"mulxq 8+" A ", %%rax, %%rbx\n\t"                                                      \
	"adcxq %%rax, %%" A1 "\n\t"                                                            \
	"adoxq %%rbx, %%" A2 "\n\t"                                                            \
	"mulxq 16+" A ", %%rax, %%rbx\n\t"                                                     \
	"adcxq %%rax, %%" A2 "\n\t"                                                            \
	"adoxq %%rbx, %%" A3 "\n\t"                                                            \
	"mulxq 24+" A ", %%rax, %%rbx\n\t"                                                     \
	"adcxq %%rax, %%" A3 "\n\t"                                                            \
	"adoxq %%rbx, %%" A4 "\n\t"                                                            \
	"adoxq %%" A5 ", %%" A5 "\n\t"                                                         \
	"adcq $0, %%" A4 "\n\t"                                                                \
	"adcq $0, %%" A5 "\n\t"

/*
 * acc (A0..A5) += m p with m = A0, which leaves A0 = 0; the caller drops
 * it. m*P0 + A0 = m 2^64 carries m; m*P1 + m = m 2^32 (P2 = 0), so limbs
 * 1 and 2 take m 2^32's two halves, s = m << 32 and t = m >> 32, and
 * limbs 3 and 4 m*P3's. Two forms, one per kind of core (the translation
 * unit picks one, below):
 * - SHIFT: s and t by SHLX, SHRX (r15 = 32); since P3 = 2^64 - 2^32 + 1,
 *   m*P3 = (m - t) 2^64 + (m - s): low limb m - s, high limb m - t less
 *   its borrow (never negative: m - t >= 1 whenever m >= 1, and m = 0
 *   borrows nothing). 16 MULX per product; the fewer instructions, and
 *   the faster on Zen 5 (MULX for m p measured 5% slower a product).
 * - MULX: both halves pairs from MULX by 2^32 and by P3 (rdx = m). On the
 *   Intel Xeon the shifts, ADC, SBB, ADCX, ADOX and CMOV all issue on
 *   the same two ports (about two per cycle, measured), which bound the
 *   point formulas, while MULX runs on the multiplier ports: a dependent
 *   product 66 -> 49 cycles there, a doubling 370 -> 335.
 */
#define P256_REDUCE_SHIFT(A0, A1, A2, A3, A4, A5)                                              \
	"shlxq %%r15, %%" A0 ", %%r14\n\t"                                                      \
	"shrxq %%r15, %%" A0 ", %%rax\n\t"                                                      \
	"movq %%" A0 ", %%rbx\n\t"                                                             \
	"subq %%r14, %%" A0 "\n\t"                                                             \
	"sbbq %%rax, %%rbx\n\t"                                                                \
	"addq %%r14, %%" A1 "\n\t"                                                             \
	"adcq %%rax, %%" A2 "\n\t"                                                             \
	"adcq %%" A0 ", %%" A3 "\n\t"                                                          \
	"adcq %%rbx, %%" A4 "\n\t"                                                             \
	"adcq $0, %%" A5 "\n\t"
#define P256_REDUCE_MULX(A0, A1, A2, A3, A4, A5)                                               \
	"movq %%" A0 ", %%rdx\n\t"                                                             \
	"mulxq %[e32], %%r14, %%rax\n\t"                                                      \
	"mulxq %[p3], %%" A0 ", %%rbx\n\t"                                                    \
	"addq %%r14, %%" A1 "\n\t"                                                             \
	"adcq %%rax, %%" A2 "\n\t"                                                             \
	"adcq %%" A0 ", %%" A3 "\n\t"                                                          \
	"adcq %%rbx, %%" A4 "\n\t"                                                             \
	"adcq $0, %%" A5 "\n\t"

/*
 * (R0..R3) = (T0..T3 + TC 2^256) mod p for a value below 2p: subtract p,
 * keep the value if that borrowed (CMOVC). R may not overlap T or TC.
 */
#define P256_FINAL_SUB(T0, T1, T2, T3, TC, R0, R1, R2, R3)                                     \
	"movq %%" T0 ", %%" R0 "\n\t"                                                          \
	"movq %%" T1 ", %%" R1 "\n\t"                                                          \
	"movq %%" T2 ", %%" R2 "\n\t"                                                          \
	"movq %%" T3 ", %%" R3 "\n\t"                                                          \
	"subq $-1, %%" R0 "\n\t"                                                               \
	"sbbq %[p1], %%" R1 "\n\t"                                                             \
	"sbbq $0, %%" R2 "\n\t"                                                                \
	"sbbq %[p3], %%" R3 "\n\t"                                                             \
	"sbbq $0, %%" TC "\n\t"                                                                \
	"cmovcq %%" T0 ", %%" R0 "\n\t"                                                        \
	"cmovcq %%" T1 ", %%" R1 "\n\t"                                                        \
	"cmovcq %%" T2 ", %%" R2 "\n\t"                                                        \
	"cmovcq %%" T3 ", %%" R3 "\n\t"

/* a * b (a, b memory operands) into rax, rbx, rdx, r14; uses r8..r15 */
#define P256_MUL(A, B)                                                                         \
	/* row 0 into r8..r12 (plain ADD/ADC: nothing to add to yet) */                        \
	"movq 0+" B ", %%rdx\n\t"                                                              \
	"mulxq 0+" A ", %%r8, %%r9\n\t"                                                        \
	"mulxq 8+" A ", %%rax, %%r10\n\t"                                                      \
	"addq %%rax, %%r9\n\t"                                                                 \
	"mulxq 16+" A ", %%rax, %%r11\n\t"                                                     \
	"adcq %%rax, %%r10\n\t"                                                                \
	"mulxq 24+" A ", %%rax, %%r12\n\t"                                                     \
	"adcq %%rax, %%r11\n\t"                                                                \
	"adcq $0, %%r12\n\t"                                                                   \
	"xorl %%r13d, %%r13d\n\t"                                                              \
	P256_RED_START_MUL                                                                     \
	P256_REDUCE("r8", "r9", "r10", "r11", "r12", "r13")                                    \
	"movq 8+" B ", %%rdx\n\t"                                                              \
	P256_MUL_ROW(A, "r9", "r10", "r11", "r12", "r13", "r8")                                \
	P256_REDUCE("r9", "r10", "r11", "r12", "r13", "r8")                                    \
	"movq 16+" B ", %%rdx\n\t"                                                             \
	P256_MUL_ROW(A, "r10", "r11", "r12", "r13", "r8", "r9")                                \
	P256_REDUCE("r10", "r11", "r12", "r13", "r8", "r9")                                    \
	"movq 24+" B ", %%rdx\n\t"                                                             \
	P256_MUL_ROW(A, "r11", "r12", "r13", "r8", "r9", "r10")                                \
	P256_REDUCE("r11", "r12", "r13", "r8", "r9", "r10")                                    \
	/* acc = r12, r13, r8, r9 + r10 2^256 < 2p */                                          \
	P256_FINAL_SUB("r12", "r13", "r8", "r9", "r10", "rax", "rbx", "rdx", "r14")

/*
 * One Montgomery step on the low half T0..T3 of the square, as a window
 * that turns: (T0..T3 + m p) / 2^64 with m = T0 lands in T1, T2, T3, T0
 * (the new top limb in T0's register). The same limbs of m p as in
 * P256_REDUCE, in the same two forms (SHIFT: rcx = 32). The value stays
 * below 2^256: (V + m p) / 2^64 < 2^192 + p, so the top limb takes the
 * last carry without overflow.
 */
#define P256_SQR_REDUCE_SHIFT(T0, T1, T2, T3)                                                  \
	"shlxq %%rcx, %%" T0 ", %%rdx\n\t"                                                      \
	"shrxq %%rcx, %%" T0 ", %%rax\n\t"                                                      \
	"movq %%" T0 ", %%rbx\n\t"                                                             \
	"subq %%rdx, %%rbx\n\t"                                                                \
	"sbbq %%rax, %%" T0 "\n\t"                                                             \
	"addq %%rdx, %%" T1 "\n\t"                                                             \
	"adcq %%rax, %%" T2 "\n\t"                                                             \
	"adcq %%rbx, %%" T3 "\n\t"                                                             \
	"adcq $0, %%" T0 "\n\t"
#define P256_SQR_REDUCE_MULX(T0, T1, T2, T3)                                                   \
	"movq %%" T0 ", %%rdx\n\t"                                                             \
	"mulxq %[e32], %%rbx, %%rax\n\t"                                                      \
	"mulxq %[p3], %%rcx, %%" T0 "\n\t"                                                    \
	"addq %%rbx, %%" T1 "\n\t"                                                             \
	"adcq %%rax, %%" T2 "\n\t"                                                             \
	"adcq %%rcx, %%" T3 "\n\t"                                                             \
	"adcq $0, %%" T0 "\n\t"

/*
 * The form of this translation unit: MULX where P256_ADX_INTEL is defined
 * (crypto/asm/p256_field_adx_intel.c, p256_point_adx_intel.c), else
 * SHIFT; P256_RED_START sets the shift count the SHIFT form reads.
 */
#if defined(P256_ADX_INTEL)
#define P256_REDUCE P256_REDUCE_MULX
#define P256_SQR_REDUCE P256_SQR_REDUCE_MULX
#define P256_RED_START_MUL ""
#define P256_RED_START_SQR ""
#else
#define P256_REDUCE P256_REDUCE_SHIFT
#define P256_SQR_REDUCE P256_SQR_REDUCE_SHIFT
#define P256_RED_START_MUL "movl $32, %%r15d\n\t"
#define P256_RED_START_SQR "movl $32, %%ecx\n\t"
#endif

/*
 * a^2 into rax, rbx, rdx, r12: the six cross products a_i a_j (i < j)
 * once, doubled, plus the four squares (10 MULX instead of 16), then the
 * four Montgomery steps on the low half only (P256_SQR_REDUCE), the high
 * half added after, and the same masked subtraction: the value is the
 * portable mont_reduce()'s.
 */
#define P256_SQR(A)                                                                            \
	/* a0 (a1, a2, a3) into r9..r12 */                                                     \
	"movq 0+" A ", %%rdx\n\t"                                                              \
	"mulxq 8+" A ", %%r9, %%r10\n\t"                                                       \
	"mulxq 16+" A ", %%rax, %%r11\n\t"                                                     \
	"addq %%rax, %%r10\n\t"                                                                \
	"mulxq 24+" A ", %%rax, %%r12\n\t"                                                     \
	"adcq %%rax, %%r11\n\t"                                                                \
	"adcq $0, %%r12\n\t"                                                                   \
	/* a1 (a2, a3) into r11..r13 */                                                        \
	"movq 8+" A ", %%rdx\n\t"                                                              \
	"mulxq 16+" A ", %%rax, %%rbx\n\t"                                                     \
	"mulxq 24+" A ", %%rcx, %%r13\n\t"                                                     \
	"addq %%rax, %%r11\n\t"                                                                \
	"adcq %%rbx, %%r12\n\t"                                                                \
	"adcq $0, %%r13\n\t"                                                                   \
	"addq %%rcx, %%r12\n\t"                                                                \
	"adcq $0, %%r13\n\t"                                                                   \
	/* a2 a3 into r13..r14 */                                                              \
	"movq 16+" A ", %%rdx\n\t"                                                             \
	"mulxq 24+" A ", %%rax, %%r14\n\t"                                                     \
	"addq %%rax, %%r13\n\t"                                                                \
	"adcq $0, %%r14\n\t"                                                                   \
	/* double into r9..r15 */                                                              \
	"xorl %%r15d, %%r15d\n\t"                                                              \
	"addq %%r9, %%r9\n\t"                                                                  \
	"adcq %%r10, %%r10\n\t"                                                                \
	"adcq %%r11, %%r11\n\t"                                                                \
	"adcq %%r12, %%r12\n\t"                                                                \
	"adcq %%r13, %%r13\n\t"                                                                \
	"adcq %%r14, %%r14\n\t"                                                                \
	"adcq $0, %%r15\n\t"                                                                   \
	/* the squares on the diagonal, one carry chain (MOV, MULX keep CF) */                 \
	"movq 0+" A ", %%rdx\n\t"                                                              \
	"mulxq %%rdx, %%r8, %%rax\n\t"                                                         \
	"addq %%rax, %%r9\n\t"                                                                 \
	"movq 8+" A ", %%rdx\n\t"                                                              \
	"mulxq %%rdx, %%rax, %%rbx\n\t"                                                        \
	"adcq %%rax, %%r10\n\t"                                                                \
	"adcq %%rbx, %%r11\n\t"                                                                \
	"movq 16+" A ", %%rdx\n\t"                                                             \
	"mulxq %%rdx, %%rax, %%rbx\n\t"                                                        \
	"adcq %%rax, %%r12\n\t"                                                                \
	"adcq %%rbx, %%r13\n\t"                                                                \
	"movq 24+" A ", %%rdx\n\t"                                                             \
	"mulxq %%rdx, %%rax, %%rbx\n\t"                                                        \
	"adcq %%rax, %%r14\n\t"                                                                \
	"adcq %%rbx, %%r15\n\t"                                                                \
	/* reduce the low half r8..r11: (a^2 mod 2^256 + M p) / 2^256 <= p */                 \
	P256_RED_START_SQR                                                                     \
	P256_SQR_REDUCE("r8", "r9", "r10", "r11")                                              \
	P256_SQR_REDUCE("r9", "r10", "r11", "r8")                                              \
	P256_SQR_REDUCE("r10", "r11", "r8", "r9")                                              \
	P256_SQR_REDUCE("r11", "r8", "r9", "r10")                                              \
	/* plus the high half (below p): r8..r11 + rcx 2^256 < 2p */                           \
	"xorl %%ecx, %%ecx\n\t"                                                                \
	"addq %%r12, %%r8\n\t"                                                                 \
	"adcq %%r13, %%r9\n\t"                                                                 \
	"adcq %%r14, %%r10\n\t"                                                                \
	"adcq %%r15, %%r11\n\t"                                                                \
	"adcq $0, %%rcx\n\t"                                                                   \
	P256_FINAL_SUB("r8", "r9", "r10", "r11", "rcx", "rax", "rbx", "rdx", "r12")

/* store four registers to a memory operand */
#define P256_STORE(D, R0, R1, R2, R3)                                                          \
	"movq %%" R0 ", 0+" D "\n\t"                                                           \
	"movq %%" R1 ", 8+" D "\n\t"                                                           \
	"movq %%" R2 ", 16+" D "\n\t"                                                          \
	"movq %%" R3 ", 24+" D "\n\t"

/* d = a * b, d = a^2 (d may be a or b: the result is stored last) */
#define P256_MUL_TO(D, A, B) P256_MUL(A, B) P256_STORE(D, "rax", "rbx", "rdx", "r14")
#define P256_SQR_TO(D, A) P256_SQR(A) P256_STORE(D, "rax", "rbx", "rdx", "r12")

/*
 * d = a + b mod p: t = a + b (carry rax), u = t - p; keep t if that
 * borrowed (t < p and no carry), else u. As p256_fe_add.
 */
#define P256_ADD_TO(D, A, B)                                                                   \
	"movq 0+" A ", %%r8\n\t"                                                               \
	"movq 8+" A ", %%r9\n\t"                                                               \
	"movq 16+" A ", %%r10\n\t"                                                             \
	"movq 24+" A ", %%r11\n\t"                                                             \
	"xorl %%eax, %%eax\n\t"                                                                \
	"addq 0+" B ", %%r8\n\t"                                                               \
	"adcq 8+" B ", %%r9\n\t"                                                               \
	"adcq 16+" B ", %%r10\n\t"                                                             \
	"adcq 24+" B ", %%r11\n\t"                                                             \
	"adcq $0, %%rax\n\t"                                                                   \
	P256_FINAL_SUB("r8", "r9", "r10", "r11", "rax", "r12", "r13", "r14", "r15")     \
	P256_STORE(D, "r12", "r13", "r14", "r15")

/*
 * d = a - b mod p: on borrow add p back; the borrow becomes a mask (SBB
 * of a register from itself) ANDed into p's limbs (P0 is the mask
 * itself, P1 its low half, P2 = 0). As p256_fe_sub.
 */
#define P256_SUB_TO(D, A, B)                                                                   \
	"movq 0+" A ", %%r8\n\t"                                                               \
	"movq 8+" A ", %%r9\n\t"                                                               \
	"movq 16+" A ", %%r10\n\t"                                                             \
	"movq 24+" A ", %%r11\n\t"                                                             \
	"subq 0+" B ", %%r8\n\t"                                                               \
	"sbbq 8+" B ", %%r9\n\t"                                                               \
	"sbbq 16+" B ", %%r10\n\t"                                                             \
	"sbbq 24+" B ", %%r11\n\t"                                                             \
	"sbbq %%rax, %%rax\n\t"                                                                \
	"movl %%eax, %%ebx\n\t"                                                                \
	"movq %[p3], %%rdx\n\t"                                                                \
	"andq %%rax, %%rdx\n\t"                                                                \
	"addq %%rax, %%r8\n\t"                                                                 \
	"adcq %%rbx, %%r9\n\t"                                                                 \
	"adcq $0, %%r10\n\t"                                                                   \
	"adcq %%rdx, %%r11\n\t"                                                                \
	P256_STORE(D, "r8", "r9", "r10", "r11")

/*
 * d = a / 2 mod p: a + p when a is odd (a mask from the low bit), then
 * the 257-bit sum shifted right once (no reduction: (a + p) / 2 < p).
 * As p256_fe_half.
 */
#define P256_HALF_TO(D, A)                                                                     \
	"movq 0+" A ", %%r8\n\t"                                                               \
	"movq 8+" A ", %%r9\n\t"                                                               \
	"movq 16+" A ", %%r10\n\t"                                                             \
	"movq 24+" A ", %%r11\n\t"                                                             \
	"movl %%r8d, %%eax\n\t"                                                                \
	"andl $1, %%eax\n\t"                                                                   \
	"negq %%rax\n\t"                                                                       \
	"movl %%eax, %%ebx\n\t"                                                                \
	"movq %[p3], %%rdx\n\t"                                                                \
	"andq %%rax, %%rdx\n\t"                                                                \
	"xorl %%ecx, %%ecx\n\t"                                                                \
	"addq %%rax, %%r8\n\t"                                                                 \
	"adcq %%rbx, %%r9\n\t"                                                                 \
	"adcq $0, %%r10\n\t"                                                                   \
	"adcq %%rdx, %%r11\n\t"                                                                \
	"adcq $0, %%rcx\n\t"                                                                   \
	"shrdq $1, %%r9, %%r8\n\t"                                                             \
	"shrdq $1, %%r10, %%r9\n\t"                                                            \
	"shrdq $1, %%r11, %%r10\n\t"                                                           \
	"shrdq $1, %%rcx, %%r11\n\t"                                                           \
	P256_STORE(D, "r8", "r9", "r10", "r11")

/*
 * Register forms, so that a chain of additions after a product stays in
 * registers (no store and reload on the formula's critical path). Register
 * arguments are 64-bit names without "%%"; results as the memory forms.
 */

/* R0..R3 = R0..R3 - b mod p (b in memory); M, N, K scratch */
#define P256_SUB_RM(R0, R1, R2, R3, B, M, N, K)                                                \
	"subq 0+" B ", %%" R0 "\n\t"                                                           \
	"sbbq 8+" B ", %%" R1 "\n\t"                                                           \
	"sbbq 16+" B ", %%" R2 "\n\t"                                                          \
	"sbbq 24+" B ", %%" R3 "\n\t"                                                          \
	"sbbq %%" M ", %%" M "\n\t"                                                            \
	"movq %[p1], %%" N "\n\t"                                                              \
	"andq %%" M ", %%" N "\n\t"                                                            \
	"movq %[p3], %%" K "\n\t"                                                              \
	"andq %%" M ", %%" K "\n\t"                                                            \
	"addq %%" M ", %%" R0 "\n\t"                                                           \
	"adcq %%" N ", %%" R1 "\n\t"                                                           \
	"adcq $0, %%" R2 "\n\t"                                                                \
	"adcq %%" K ", %%" R3 "\n\t"

/* T0..T3 = a - R0..R3 mod p (a in memory); M, N, K scratch */
#define P256_SUB_MR(T0, T1, T2, T3, A, R0, R1, R2, R3, M, N, K)                                \
	"movq 0+" A ", %%" T0 "\n\t"                                                           \
	"movq 8+" A ", %%" T1 "\n\t"                                                           \
	"movq 16+" A ", %%" T2 "\n\t"                                                          \
	"movq 24+" A ", %%" T3 "\n\t"                                                          \
	"subq %%" R0 ", %%" T0 "\n\t"                                                          \
	"sbbq %%" R1 ", %%" T1 "\n\t"                                                          \
	"sbbq %%" R2 ", %%" T2 "\n\t"                                                          \
	"sbbq %%" R3 ", %%" T3 "\n\t"                                                          \
	"sbbq %%" M ", %%" M "\n\t"                                                            \
	"movq %[p1], %%" N "\n\t"                                                              \
	"andq %%" M ", %%" N "\n\t"                                                            \
	"movq %[p3], %%" K "\n\t"                                                              \
	"andq %%" M ", %%" K "\n\t"                                                            \
	"addq %%" M ", %%" T0 "\n\t"                                                           \
	"adcq %%" N ", %%" T1 "\n\t"                                                           \
	"adcq $0, %%" T2 "\n\t"                                                                \
	"adcq %%" K ", %%" T3 "\n\t"

/* U0..U3 = A0..A3 + B0..B3 mod p (A is overwritten by the raw sum; C scratch) */
#define P256_ADD_RR(A0, A1, A2, A3, B0, B1, B2, B3, C, U0, U1, U2, U3)                         \
	"xorq %%" C ", %%" C "\n\t"                                                            \
	"addq %%" B0 ", %%" A0 "\n\t"                                                          \
	"adcq %%" B1 ", %%" A1 "\n\t"                                                          \
	"adcq %%" B2 ", %%" A2 "\n\t"                                                          \
	"adcq %%" B3 ", %%" A3 "\n\t"                                                          \
	"adcq $0, %%" C "\n\t"                                                                 \
	P256_FINAL_SUB(A0, A1, A2, A3, C, U0, U1, U2, U3)

/* U0..U3 = A0..A3 + b mod p (b in memory; A is overwritten by the raw sum; C scratch) */
#define P256_ADD_RM(A0, A1, A2, A3, B, C, U0, U1, U2, U3)                                      \
	"xorq %%" C ", %%" C "\n\t"                                                            \
	"addq 0+" B ", %%" A0 "\n\t"                                                           \
	"adcq 8+" B ", %%" A1 "\n\t"                                                           \
	"adcq 16+" B ", %%" A2 "\n\t"                                                          \
	"adcq 24+" B ", %%" A3 "\n\t"                                                          \
	"adcq $0, %%" C "\n\t"                                                                 \
	P256_FINAL_SUB(A0, A1, A2, A3, C, U0, U1, U2, U3)

/* R0..R3 = R0..R3 / 2 mod p, as P256_HALF_TO; M, N, K, C scratch */
#define P256_HALF_R(R0, R1, R2, R3, M, N, K, C)                                                \
	"movq %%" R0 ", %%" M "\n\t"                                                           \
	"andq $1, %%" M "\n\t"                                                                 \
	"negq %%" M "\n\t"                                                                     \
	"movq %[p1], %%" N "\n\t"                                                              \
	"andq %%" M ", %%" N "\n\t"                                                            \
	"movq %[p3], %%" K "\n\t"                                                              \
	"andq %%" M ", %%" K "\n\t"                                                            \
	"xorq %%" C ", %%" C "\n\t"                                                            \
	"addq %%" M ", %%" R0 "\n\t"                                                           \
	"adcq %%" N ", %%" R1 "\n\t"                                                           \
	"adcq $0, %%" R2 "\n\t"                                                                \
	"adcq %%" K ", %%" R3 "\n\t"                                                           \
	"adcq $0, %%" C "\n\t"                                                                 \
	"shrdq $1, %%" R1 ", %%" R0 "\n\t"                                                     \
	"shrdq $1, %%" R2 ", %%" R1 "\n\t"                                                     \
	"shrdq $1, %%" R3 ", %%" R2 "\n\t"                                                     \
	"shrdq $1, %%" C ", %%" R3 "\n\t"

#endif
