/*
 * Montgomery multiplication and squaring modulo the P-256 group order n
 * with BMI2 (MULX) and ADX (ADCX/ADOX), in x86-64 inline assembly.
 *
 * Implementation notes:
 * - Same results as crypto/p256_scalar.c (R = 2^256, m = t_i * (-1/n mod
 *   2^64), one masked subtraction of n) with the reduction steps
 *   interleaved with the product rows: for each limb b_i, acc += a * b_i,
 *   then acc = (acc + m n) / 2^64, both with MULX and two carry chains
 *   (ADCX on CF, ADOX on OF) that compilers do not keep apart with
 *   intrinsics. acc stays below a + n < 2^257, and the final value
 *   (a b + M n) / 2^256 (b < n) is the integer the portable code reduces:
 *   the results are bit-identical.
 * - Fixed registers (inputs in rdi, rsi, rcx, the rest clobbered, rbp
 *   untouched) so it builds at -O0 and with sanitizers; n is read from
 *   memory. Squaring: cross products once, doubled, plus the squares
 *   (10 MULX), then four reduction steps.
 * - The caller checks cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 * - Constant time: a fixed instruction sequence; the final reduction is a
 *   CMOVC select.
 */
#include "crypto/p256_scalar.h"

#if defined(HS_HAVE_P256_ADX)

/* n, little-endian limbs, then -1/n mod 2^64 */
static const uint64_t n_and_n0[5] = { 0xf3b9cac2fc632551ull, 0xbce6faada7179e84ull,
				      0xffffffffffffffffull, 0xffffffff00000000ull,
				      0xccd1c8aaee00bc4full };

/* acc (A0..A4) += a * b_i, A5 gets the top limb; rdx = b_i, a at rsi */
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

/* acc (A0..A5) += m n with m = A0 * n0, which makes A0 = 0; the caller drops it */
#define REDUCE(A0, A1, A2, A3, A4, A5)                                                         \
	"movq %%" A0 ", %%rdx\n\t"                                                             \
	"imulq 32+%[n], %%rdx\n\t"                                                             \
	"xorl %%r14d, %%r14d\n\t"                                                              \
	"mulxq %[n], %%rax, %%rbx\n\t"                                                         \
	"adcxq %%rax, %%" A0 "\n\t"                                                            \
	"adoxq %%rbx, %%" A1 "\n\t"                                                            \
	"mulxq 8+%[n], %%rax, %%rbx\n\t"                                                       \
	"adcxq %%rax, %%" A1 "\n\t"                                                            \
	"adoxq %%rbx, %%" A2 "\n\t"                                                            \
	"mulxq 16+%[n], %%rax, %%rbx\n\t"                                                      \
	"adcxq %%rax, %%" A2 "\n\t"                                                            \
	"adoxq %%rbx, %%" A3 "\n\t"                                                            \
	"mulxq 24+%[n], %%rax, %%rbx\n\t"                                                      \
	"adcxq %%rax, %%" A3 "\n\t"                                                            \
	"adoxq %%rbx, %%" A4 "\n\t"                                                            \
	"adcxq %%r14, %%" A4 "\n\t"                                                            \
	"adoxq %%r14, %%" A5 "\n\t"                                                            \
	"adcxq %%r14, %%" A5 "\n\t"

void p256_sc_mont_mul_adx(p256_sc r, const p256_sc a, const p256_sc b)
{
	__asm__ volatile(
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
		/* acc = r12, r13, r8, r9 + r10 2^256 < 2n: subtract n, keep acc on borrow */
		"movq %%r12, %%rax\n\t"
		"movq %%r13, %%rbx\n\t"
		"movq %%r8, %%rdx\n\t"
		"movq %%r9, %%r14\n\t"
		"subq %[n], %%rax\n\t"
		"sbbq 8+%[n], %%rbx\n\t"
		"sbbq 16+%[n], %%rdx\n\t"
		"sbbq 24+%[n], %%r14\n\t"
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
		: "D"(r), "S"(a), "c"(b), [n] "m"(n_and_n0)
		: "rax", "rbx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "cc",
		  "memory");
}
#undef MUL_ROW
#undef REDUCE

/*
 * t_k..t_k+4 += m n with m = t_k * n0 (t_k becomes 0 and is dropped);
 * rcx carries past the top limb from one step to the next (it is at most
 * 1: the carries out of t_k+4 through OF and CF never both occur).
 */
#define SQR_REDUCE(T0, T1, T2, T3, T4)                                                         \
	"movq %%" T0 ", %%rdx\n\t"                                                             \
	"imulq 32+%[n], %%rdx\n\t"                                                             \
	"xorl %%eax, %%eax\n\t"                                                                \
	"mulxq %[n], %%rax, %%rbx\n\t"                                                         \
	"adcxq %%rax, %%" T0 "\n\t"                                                            \
	"adoxq %%rbx, %%" T1 "\n\t"                                                            \
	"mulxq 8+%[n], %%rax, %%rbx\n\t"                                                       \
	"adcxq %%rax, %%" T1 "\n\t"                                                            \
	"adoxq %%rbx, %%" T2 "\n\t"                                                            \
	"mulxq 16+%[n], %%rax, %%rbx\n\t"                                                      \
	"adcxq %%rax, %%" T2 "\n\t"                                                            \
	"adoxq %%rbx, %%" T3 "\n\t"                                                            \
	"mulxq 24+%[n], %%rax, %%rbx\n\t"                                                      \
	"adcxq %%rax, %%" T3 "\n\t"                                                            \
	"adoxq %%rbx, %%" T4 "\n\t"                                                            \
	"adcxq %%rcx, %%" T4 "\n\t"                                                            \
	"movl $0, %%ecx\n\t"                                                                   \
	"movl $0, %%eax\n\t"                                                                   \
	"adcxq %%rax, %%rcx\n\t"                                                               \
	"adoxq %%rax, %%rcx\n\t"

/*
 * Squaring: the six cross products once, doubled, plus the four squares
 * (10 MULX instead of 16) into r8..r15, then the four reduction steps of
 * the portable mont_reduce() and the same masked subtraction of n:
 * bit-identical results.
 */
void p256_sc_mont_sqr_adx(p256_sc r, const p256_sc a)
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
		/* r12..r15 + rcx 2^256 < 2n: subtract n, keep it on borrow */
		"movq %%r12, %%rax\n\t"
		"movq %%r13, %%rbx\n\t"
		"movq %%r14, %%rdx\n\t"
		"movq %%r15, %%r8\n\t"
		"subq %[n], %%rax\n\t"
		"sbbq 8+%[n], %%rbx\n\t"
		"sbbq 16+%[n], %%rdx\n\t"
		"sbbq 24+%[n], %%r8\n\t"
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
		: "D"(r), "S"(a), [n] "m"(n_and_n0)
		: "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
		  "cc", "memory");
}
#undef SQR_REDUCE

#endif
