/*
 * P-256 field multiplication and squaring with BMI2 (MULX) and ADX
 * (ADCX/ADOX), in x86-64 inline assembly.
 *
 * Implementation notes:
 * - Same results as the portable code in crypto/p256_field.c (Montgomery
 *   form, R = 2^256, -1/p mod 2^64 = 1 so m is the low limb, m*P1 + m =
 *   m*2^32 as a shift, P2 = 0, m*P3 by MULX), but the reduction steps are
 *   interleaved with the product rows, which keeps every limb in a
 *   register: the intrinsics version spilled about 45 times per product.
 * - Inline assembly because compilers do not keep two carry chains
 *   (ADCX on CF, ADOX on OF) alive with intrinsics. Fixed registers
 *   (inputs in rdi, rsi, rcx; everything else declared clobbered), no
 *   rbp, so it builds at -O0 and with sanitizers too.
 * - Squaring: the cross products once, doubled, plus the squares (10
 *   MULX), then the four reduction steps one after the other.
 * - The caller checks cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 * - Constant time: a fixed instruction sequence; the final reduction is a
 *   CMOVC select.
 */
#include "crypto/p256_field.h"

#if defined(HS_HAVE_P256_ADX)

/*
 * Interleaved Montgomery multiplication in inline assembly: for each limb
 * b_i, acc += a * b_i with MULX and two independent carry chains (ADCX
 * through CF for the low halves, ADOX through OF for the high halves),
 * then one reduction step with m = the low limb, as in mont_reduce():
 * acc = (acc + m p) / 2^64. acc stays below a + p < 2^257 (five limbs,
 * six before the shift), and the final value (a b + M p) / 2^256 is the
 * same integer the portable code reduces, so one masked subtraction of p
 * (CMOVC, no branch) gives bit-identical results. The limbs rotate
 * through r8..r13 instead of being moved.
 */

/* acc (A0..A4) += a * b_i, A5 gets the top limb; rdx = b_i */
#define MUL_ROW(A0, A1, A2, A3, A4, A5)                                                        \
	"xorl %%r14d, %%r14d\n\t"                                                              \
	"xorl %%" A5 "d, %%" A5 "d\n\t"                                                        \
	"mulxq 0(%%rsi), %%rax, %%rbx\n\t"                                                     \
	"adcxq %%rax, %%" A0 "\n\t"                                                            \
	"adoxq %%rbx, %%" A1 "\n\t"                                                            \
	"mulxq 8(%%rsi), %%rax, %%rbx\n\t"                                                     \
	"adcxq %%rax, %%" A1 "\n\t"                                                            \
	"adoxq %%rbx, %%" A2 "\n\t"                                                            \
	"mulxq 16(%%rsi), %%rax, %%rbx\n\t"                                                    \
	"adcxq %%rax, %%" A2 "\n\t"                                                            \
	"adoxq %%rbx, %%" A3 "\n\t"                                                            \
	"mulxq 24(%%rsi), %%rax, %%rbx\n\t"                                                    \
	"adcxq %%rax, %%" A3 "\n\t"                                                            \
	"adoxq %%rbx, %%" A4 "\n\t"                                                            \
	"adcxq %%r14, %%" A4 "\n\t"                                                            \
	"adoxq %%r14, %%" A5 "\n\t"                                                            \
	"adcxq %%r14, %%" A5 "\n\t"

/*
 * acc (A0..A5) += m p with m = A0, which leaves A0 = 0; the caller drops
 * it. m*P0 + A0 = m 2^64 carries m; m*P1 + m = m 2^32 splits into
 * s = m << 32 and t = m >> 32; P2 = 0; and since P3 = 2^64 - 2^32 + 1,
 * m*P3 = (m - t) 2^64 + (m - s): low limb m - s, high limb m - t less
 * its borrow (never negative: m - t >= 1 whenever m >= 1, and m = 0
 * borrows nothing). Shifts and subtractions
 * instead of a MULX: the products are MULX-bound (one multiplier), so
 * this leaves 16 MULX per product instead of 20.
 */
#define REDUCE(A0, A1, A2, A3, A4, A5)                                                         \
	"movq %%" A0 ", %%rax\n\t"                                                             \
	"movq %%" A0 ", %%rbx\n\t"                                                             \
	"movq %%" A0 ", %%r14\n\t"                                                             \
	"shlq $32, %%r14\n\t"                                                                  \
	"shrq $32, %%" A0 "\n\t"                                                               \
	"subq %%r14, %%rax\n\t"                                                                \
	"sbbq %%" A0 ", %%rbx\n\t"                                                             \
	"addq %%r14, %%" A1 "\n\t"                                                             \
	"adcq %%" A0 ", %%" A2 "\n\t"                                                          \
	"adcq %%rax, %%" A3 "\n\t"                                                             \
	"adcq %%rbx, %%" A4 "\n\t"                                                             \
	"adcq $0, %%" A5 "\n\t"

void p256_fe_mul_adx(p256_fe r, const p256_fe a, const p256_fe b)
{
	__asm__ volatile(
		"movabsq $0xffffffff00000001, %%r15\n\t"
		/* row 0 into r8..r12 (plain ADD/ADC: nothing to add to yet) */
		"movq 0(%%rcx), %%rdx\n\t"
		"mulxq 0(%%rsi), %%r8, %%r9\n\t"
		"mulxq 8(%%rsi), %%rax, %%r10\n\t"
		"addq %%rax, %%r9\n\t"
		"mulxq 16(%%rsi), %%rax, %%r11\n\t"
		"adcq %%rax, %%r10\n\t"
		"mulxq 24(%%rsi), %%rax, %%r12\n\t"
		"adcq %%rax, %%r11\n\t"
		"adcq $0, %%r12\n\t"
		"xorl %%r13d, %%r13d\n\t"
		REDUCE("r8", "r9", "r10", "r11", "r12", "r13")
		"movq 8(%%rcx), %%rdx\n\t"
		MUL_ROW("r9", "r10", "r11", "r12", "r13", "r8")
		REDUCE("r9", "r10", "r11", "r12", "r13", "r8")
		"movq 16(%%rcx), %%rdx\n\t"
		MUL_ROW("r10", "r11", "r12", "r13", "r8", "r9")
		REDUCE("r10", "r11", "r12", "r13", "r8", "r9")
		"movq 24(%%rcx), %%rdx\n\t"
		MUL_ROW("r11", "r12", "r13", "r8", "r9", "r10")
		REDUCE("r11", "r12", "r13", "r8", "r9", "r10")
		/* acc = r12, r13, r8, r9 + r10 2^256 < 2p: subtract p, keep acc on borrow */
		"movl $0xffffffff, %%r11d\n\t"
		"movq %%r12, %%rax\n\t"
		"movq %%r13, %%rbx\n\t"
		"movq %%r8, %%rdx\n\t"
		"movq %%r9, %%r14\n\t"
		"subq $-1, %%rax\n\t"
		"sbbq %%r11, %%rbx\n\t"
		"sbbq $0, %%rdx\n\t"
		"sbbq %%r15, %%r14\n\t"
		"sbbq $0, %%r10\n\t"
		"cmovcq %%r12, %%rax\n\t"
		"cmovcq %%r13, %%rbx\n\t"
		"cmovcq %%r8, %%rdx\n\t"
		"cmovcq %%r9, %%r14\n\t"
		"movq %%rax, 0(%%rdi)\n\t"
		"movq %%rbx, 8(%%rdi)\n\t"
		"movq %%rdx, 16(%%rdi)\n\t"
		"movq %%r14, 24(%%rdi)\n\t"
		:
		: "D"(r), "S"(a), "c"(b)
		: "rax", "rbx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
		  "memory");
}
#undef MUL_ROW
#undef REDUCE

static const uint64_t p3_limb = 0xffffffff00000001ull;

/* t_k..t_k+4 += m p with m = t_k (dropped after), rcx the carry past the top (m P3 without MULX, as in REDUCE) */
#define SQR_REDUCE(T0, T1, T2, T3, T4)                                                         \
	"movq %%" T0 ", %%rax\n\t"                                                             \
	"movq %%" T0 ", %%rbx\n\t"                                                             \
	"movq %%" T0 ", %%rdx\n\t"                                                             \
	"shlq $32, %%rdx\n\t"                                                                  \
	"shrq $32, %%" T0 "\n\t"                                                               \
	"subq %%rdx, %%rax\n\t" /* m P3 = (m - t) 2^64 + (m - s), as in REDUCE */             \
	"sbbq %%" T0 ", %%rbx\n\t"                                                             \
	"addq %%rcx, %%rbx\n\t" /* hi < 2^64 - 1, the carry <= 1: no overflow */               \
	"addq %%rdx, %%" T1 "\n\t"                                                             \
	"adcq %%" T0 ", %%" T2 "\n\t"                                                          \
	"adcq %%rax, %%" T3 "\n\t"                                                             \
	"adcq %%rbx, %%" T4 "\n\t"                                                             \
	"movl $0, %%ecx\n\t"                                                                   \
	"adcq $0, %%rcx\n\t"

/*
 * Squaring: the six cross products a_i a_j (i < j) once, doubled, plus
 * the four squares (10 MULX instead of 16), then the four reduction steps
 * of the portable mont_reduce() over the 512-bit square in r8..r15, and
 * the same masked subtraction: bit-identical results.
 */
void p256_fe_sqr_adx(p256_fe r, const p256_fe a)
{
	__asm__ volatile(
		/* a0 (a1, a2, a3) into r9..r12 */
		"movq 0(%%rsi), %%rdx\n\t"
		"mulxq 8(%%rsi), %%r9, %%r10\n\t"
		"mulxq 16(%%rsi), %%rax, %%r11\n\t"
		"addq %%rax, %%r10\n\t"
		"mulxq 24(%%rsi), %%rax, %%r12\n\t"
		"adcq %%rax, %%r11\n\t"
		"adcq $0, %%r12\n\t"
		/* a1 (a2, a3) into r11..r13 */
		"movq 8(%%rsi), %%rdx\n\t"
		"mulxq 16(%%rsi), %%rax, %%rbx\n\t"
		"mulxq 24(%%rsi), %%rcx, %%r13\n\t"
		"addq %%rax, %%r11\n\t"
		"adcq %%rbx, %%r12\n\t"
		"adcq $0, %%r13\n\t"
		"addq %%rcx, %%r12\n\t"
		"adcq $0, %%r13\n\t"
		/* a2 a3 into r13..r14 */
		"movq 16(%%rsi), %%rdx\n\t"
		"mulxq 24(%%rsi), %%rax, %%r14\n\t"
		"addq %%rax, %%r13\n\t"
		"adcq $0, %%r14\n\t"
		/* double into r9..r15 */
		"xorl %%r15d, %%r15d\n\t"
		"addq %%r9, %%r9\n\t"
		"adcq %%r10, %%r10\n\t"
		"adcq %%r11, %%r11\n\t"
		"adcq %%r12, %%r12\n\t"
		"adcq %%r13, %%r13\n\t"
		"adcq %%r14, %%r14\n\t"
		"adcq $0, %%r15\n\t"
		/* the squares on the diagonal, one carry chain (MOV, MULX keep CF) */
		"movq 0(%%rsi), %%rdx\n\t"
		"mulxq %%rdx, %%r8, %%rax\n\t"
		"addq %%rax, %%r9\n\t"
		"movq 8(%%rsi), %%rdx\n\t"
		"mulxq %%rdx, %%rax, %%rbx\n\t"
		"adcq %%rax, %%r10\n\t"
		"adcq %%rbx, %%r11\n\t"
		"movq 16(%%rsi), %%rdx\n\t"
		"mulxq %%rdx, %%rax, %%rbx\n\t"
		"adcq %%rax, %%r12\n\t"
		"adcq %%rbx, %%r13\n\t"
		"movq 24(%%rsi), %%rdx\n\t"
		"mulxq %%rdx, %%rax, %%rbx\n\t"
		"adcq %%rax, %%r14\n\t"
		"adcq %%rbx, %%r15\n\t"
		/* reduce r8..r15 */
		"xorl %%ecx, %%ecx\n\t"
		SQR_REDUCE("r8", "r9", "r10", "r11", "r12")
		SQR_REDUCE("r9", "r10", "r11", "r12", "r13")
		SQR_REDUCE("r10", "r11", "r12", "r13", "r14")
		SQR_REDUCE("r11", "r12", "r13", "r14", "r15")
		/* r12..r15 + rcx 2^256 < 2p: subtract p, keep it on borrow */
		"movl $0xffffffff, %%r9d\n\t"
		"movq %%r12, %%rax\n\t"
		"movq %%r13, %%rbx\n\t"
		"movq %%r14, %%rdx\n\t"
		"movq %%r15, %%r8\n\t"
		"subq $-1, %%rax\n\t"
		"sbbq %%r9, %%rbx\n\t"
		"sbbq $0, %%rdx\n\t"
		"sbbq %[p3], %%r8\n\t"
		"sbbq $0, %%rcx\n\t"
		"cmovcq %%r12, %%rax\n\t"
		"cmovcq %%r13, %%rbx\n\t"
		"cmovcq %%r14, %%rdx\n\t"
		"cmovcq %%r15, %%r8\n\t"
		"movq %%rax, 0(%%rdi)\n\t"
		"movq %%rbx, 8(%%rdi)\n\t"
		"movq %%rdx, 16(%%rdi)\n\t"
		"movq %%r8, 24(%%rdi)\n\t"
		:
		: "D"(r), "S"(a), [p3] "m"(p3_limb)
		: "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
		  "cc", "memory");
}
#undef SQR_REDUCE

#endif
