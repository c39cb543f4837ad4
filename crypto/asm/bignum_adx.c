/*
 * Implementation notes: the multiply-accumulate row of crypto/bignum.c
 * with BMI2 (MULX) and ADX (ADCX/ADOX), in inline assembly.
 *
 * - One row adds x[0..len) * y + cin 2^(64 len) into t[0..len] and
 *   returns the carry out of t[len], exactly as bignum.c's
 *   row_portable does; every Montgomery multiplication, squaring and
 *   reduction of bignum.c is built from rows, so both backends give
 *   bit-identical results.
 * - Two carry chains run side by side: ADCX (CF) adds each product's
 *   low half into t[j], ADOX (OF) adds the previous product's high
 *   half. MULX leaves the flags alone; the loop is counted with LEA
 *   and JRCXZ, which leave them alone too, so the chains survive the
 *   loop. Eight limbs per pass, then blocks of 4, 2 and 1 limbs as the
 *   bits of len mod 8 ask (each skipped with JRCXZ on a 0/1 count).
 * - Constant time: the instruction sequence depends on len only (a
 *   public size); no branch or address depends on t, x, y or cin.
 * - The caller checks cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 */
#include "crypto/bignum.h"

#if defined(HS_HAVE_BN_ADX)

/* One limb: t[k] += lo(x[k] y) (CF) + H (OF); H' = hi(x[k] y). */
#define STEP(k, H, H2)                                  \
	"movq " #k "*8(%[t]), %%r8\n\t"                 \
	"mulxq " #k "*8(%[x]), %%r9, %%" H2 "\n\t"      \
	"adcxq %%r9, %%r8\n\t"                          \
	"adoxq %%" H ", %%r8\n\t"                       \
	"movq %%r8, " #k "*8(%[t])\n\t"

__attribute__((target("bmi2,adx")))
uint64_t bn_row_adx(uint64_t *t, const uint64_t *x, uint64_t y, size_t len, uint64_t cin)
{
	/* blocks of 8, then one optional block each of 4, 2 and 1 limbs */
	const uint64_t blk[3] = { (len >> 2) & 1, (len >> 1) & 1, len & 1 };
	uint64_t octs = len / 8, out;

	__asm__ volatile(
		"xorl %%r10d, %%r10d\n\t"
		"xorl %%eax, %%eax\n\t" /* rax = 0, CF = OF = 0 */
		"movq %[q], %%rcx\n\t"
		"jrcxz 5f\n\t" /* JRCXZ reaches 127 bytes: hop over the loop through a JMP */
		"jmp 1f\n"
		"5:\n\t"
		"jmp 2f\n"
		"1:\n\t"
		STEP(0, "r10", "r11")
		STEP(1, "r11", "r10")
		STEP(2, "r10", "r11")
		STEP(3, "r11", "r10")
		STEP(4, "r10", "r11")
		STEP(5, "r11", "r10")
		STEP(6, "r10", "r11")
		STEP(7, "r11", "r10")
		"leaq 64(%[t]), %[t]\n\t"
		"leaq 64(%[x]), %[x]\n\t"
		"leaq -1(%%rcx), %%rcx\n\t"
		"jrcxz 2f\n\t"
		"jmp 1b\n"
		"2:\n\t"
		"movq %[b4], %%rcx\n\t" /* MOV leaves the flags alone */
		"jrcxz 6f\n\t"
		STEP(0, "r10", "r11")
		STEP(1, "r11", "r10")
		STEP(2, "r10", "r11")
		STEP(3, "r11", "r10")
		"leaq 32(%[t]), %[t]\n\t"
		"leaq 32(%[x]), %[x]\n"
		"6:\n\t"
		"movq %[b2], %%rcx\n\t"
		"jrcxz 7f\n\t"
		STEP(0, "r10", "r11")
		STEP(1, "r11", "r10")
		"leaq 16(%[t]), %[t]\n\t"
		"leaq 16(%[x]), %[x]\n"
		"7:\n\t"
		"movq %[b1], %%rcx\n\t"
		"jrcxz 4f\n\t"
		STEP(0, "r10", "r11")
		"movq %%r11, %%r10\n\t"
		"leaq 8(%[t]), %[t]\n\t"
		"leaq 8(%[x]), %[x]\n"
		"4:\n\t"
		/* the top limb: t[len] + CF + cin (CF chain) + OF + H (OF chain) */
		"movq (%[t]), %%r8\n\t"
		"adcxq %[cin], %%r8\n\t"
		"adoxq %%r10, %%r8\n\t"
		"movq %%r8, (%[t])\n\t"
		"movl $0, %%r8d\n\t"
		"adcxq %%rax, %%r8\n\t"
		"adoxq %%rax, %%r8\n\t"
		"movq %%r8, %[out]\n\t"
		: [t] "+r"(t), [x] "+r"(x), [out] "=r"(out), "+d"(y)
		: [q] "r"(octs), [b4] "m"(blk[0]), [b2] "m"(blk[1]), [b1] "m"(blk[2]), [cin] "r"(cin)
		: "rax", "rcx", "r8", "r9", "r10", "r11", "cc", "memory");
	return out;
}

#endif
