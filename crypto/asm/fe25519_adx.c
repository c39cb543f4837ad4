/*
 * GF(2^255 - 19) products for the exponentiation chains (inversion, square
 * root) with BMI2 (MULX) and ADX (ADCX/ADOX), in x86-64 inline assembly.
 *
 * Implementation notes:
 * - Another representation than crypto/fe25519.h's: four 64-bit limbs
 *   v[0..3] of a struct fe25519 (v[4] unused), any value below 2^256,
 *   kept only modulo p (2^256 = 38 mod p). fe25519.c converts in and out
 *   around a whole chain (fe_invert, fe_pow22523); the chain itself is
 *   written once there and runs on these or the portable products.
 * - Product: a 4x4-limb schoolbook with MULX and two carry chains (ADCX
 *   for the low halves, ADOX for the high ones), as the P-256 code; the
 *   high 256 bits times 38 are added into the low ones (four MULX, the
 *   same two chains), the top limb (below 39) times 38 once more, and a
 *   carry out of that (then the value is tiny) adds 38 once: the result
 *   is below 2^256 and congruent to the product.
 * - Squaring: the six cross products once, doubled, plus the four squares
 *   (10 MULX), then the same folding.
 * - About 1.6x the portable radix-2^51 squaring's speed in a chain of
 *   squarings (the chain is latency-bound, and these keep fewer limbs).
 * - Constant time: fixed instruction sequences, the last carry becomes a
 *   mask (SBB). The caller checks cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 *   valgrind cannot run ADX: tests/ct/dudect.c times the inversion.
 */
#include "crypto/fe25519.h"

#if defined(HS_HAVE_FE25519_ADX)

/*
 * r8..r15 (the 512-bit product, low limb first) into r8..r11:
 * t_lo + 38 t_hi, then the top limb (in r12) times 38, then 38 more if
 * that carried out. rcx becomes zero; rax, rbx, rdx are scratch.
 */
#define FOLD38                                                                                 \
	"movl $38, %%edx\n\t"                                                                  \
	"xorl %%ecx, %%ecx\n\t"                                                                \
	"mulxq %%r12, %%rax, %%rbx\n\t"                                                        \
	"adcxq %%rax, %%r8\n\t"                                                                \
	"adoxq %%rbx, %%r9\n\t"                                                                \
	"mulxq %%r13, %%rax, %%rbx\n\t"                                                        \
	"adcxq %%rax, %%r9\n\t"                                                                \
	"adoxq %%rbx, %%r10\n\t"                                                               \
	"mulxq %%r14, %%rax, %%rbx\n\t"                                                        \
	"adcxq %%rax, %%r10\n\t"                                                               \
	"adoxq %%rbx, %%r11\n\t"                                                               \
	"mulxq %%r15, %%rax, %%r12\n\t"                                                        \
	"adcxq %%rax, %%r11\n\t"                                                               \
	"adoxq %%rcx, %%r12\n\t"                                                               \
	"adcxq %%rcx, %%r12\n\t"                                                               \
	"imulq $38, %%r12, %%r12\n\t"                                                          \
	"addq %%r12, %%r8\n\t"                                                                 \
	"adcq %%rcx, %%r9\n\t"                                                                 \
	"adcq %%rcx, %%r10\n\t"                                                                \
	"adcq %%rcx, %%r11\n\t"                                                                \
	"sbbq %%rax, %%rax\n\t"                                                                \
	"andq $38, %%rax\n\t"                                                                  \
	"addq %%rax, %%r8\n\t"                                                                 \
	"movq %%r8, 0(%%rdi)\n\t"                                                              \
	"movq %%r9, 8(%%rdi)\n\t"                                                              \
	"movq %%r10, 16(%%rdi)\n\t"                                                            \
	"movq %%r11, 24(%%rdi)\n\t"

/*
 * acc (A0..A3) += a * rdx, the top limb into A4 (zeroed first); Z (Z32
 * its low half) is made zero. The XORs also clear CF and OF.
 */
#define MUL_ROW(A0, A1, A2, A3, A4, Z, Z32)                                                    \
	"xorl %%" Z32 ", %%" Z32 "\n\t"                                                        \
	"xorl %%" A4 "d, %%" A4 "d\n\t"                                                        \
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
	"adcxq %%" Z ", %%" A4 "\n\t"

static void mul64(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
	__asm__ volatile(
		/* row 0 into r8..r12 */
		"movq 0(%%rcx), %%rdx\n\t"
		"mulxq 0(%%rsi), %%r8, %%r9\n\t"
		"mulxq 8(%%rsi), %%rax, %%r10\n\t"
		"addq %%rax, %%r9\n\t"
		"mulxq 16(%%rsi), %%rax, %%r11\n\t"
		"adcq %%rax, %%r10\n\t"
		"mulxq 24(%%rsi), %%rax, %%r12\n\t"
		"adcq %%rax, %%r11\n\t"
		"adcq $0, %%r12\n\t"
		"movq 8(%%rcx), %%rdx\n\t"
		MUL_ROW("r9", "r10", "r11", "r12", "r13", "r14", "r14d")
		"movq 16(%%rcx), %%rdx\n\t"
		MUL_ROW("r10", "r11", "r12", "r13", "r14", "r15", "r15d")
		"movq 24(%%rcx), %%rdx\n\t"
		MUL_ROW("r11", "r12", "r13", "r14", "r15", "rcx", "ecx")
		FOLD38
		:
		: "D"(r), "S"(a), "c"(b)
		: "rax", "rbx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
		  "memory");
}
#undef MUL_ROW

static void sqr64(uint64_t r[4], const uint64_t a[4])
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
		FOLD38
		:
		: "D"(r), "S"(a)
		: "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
		  "cc", "memory");
}
#undef FOLD38

void fe64_sq_n_adx(struct fe25519 *h, const struct fe25519 *f, int n)
{
	if (h != f)
		*h = *f;
	for (int i = 0; i < n; i++)
		sqr64(h->v, h->v);
}

void fe64_mul_adx(struct fe25519 *h, const struct fe25519 *f, const struct fe25519 *g)
{
	mul64(h->v, f->v, g->v);
}

#endif
