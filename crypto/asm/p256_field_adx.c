/*
 * P-256 field multiplication and squaring with BMI2
 * (MULX) and ADX (ADCX/ADOX), in x86-64 inline assembly.
 *
 * Implementation notes:
 * - The arithmetic is the text of crypto/asm/p256_adx_asm.h (shared with
 *   the whole point formulas of p256_point_adx.c): same results as the
 *   portable code in crypto/p256_field.c (Montgomery form, R = 2^256,
 *   -1/p mod 2^64 = 1 so m is the low limb, m*P1 + m = m*2^32 and
 *   m*P3 = (m - (m >> 32)) 2^64 + m - (m << 32) by shifts, P2 = 0); the
 *   product interleaves the reduction steps with its rows, which keeps
 *   every limb in a register: the intrinsics version spilled about 45
 *   times per product.
 * - Inline assembly because compilers do not keep two carry chains
 *   (ADCX on CF, ADOX on OF) alive with intrinsics. Fixed registers
 *   (inputs in rdi, rsi, rcx; everything else declared clobbered), no
 *   rbp, so it builds at -O0 and with sanitizers too.
 * - Squaring: the cross products once, doubled, plus the squares (10
 *   MULX), then four reduction steps on the low half and the high half
 *   added after. (The inversion, once a Fermat chain of squarings, is
 *   safegcd now: crypto/safegcd256.c.)
 * - The caller checks cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 * - Constant time: a fixed instruction sequence;
 *   the final reduction is a CMOVC select.
 */
#include "crypto/p256_field.h"

#include "crypto/asm/p256_adx_asm.h"

#if defined(HS_HAVE_P256_ADX)

/* the Intel form's functions end in _intel (crypto/asm/p256_field_adx_intel.c) */
#if defined(P256_ADX_INTEL)
#define ADX_NAME(f) f##_intel
#else
#define ADX_NAME(f) f
#endif

/* the product and the square are the shared macros of p256_adx_asm.h */
void ADX_NAME(p256_fe_mul_adx)(p256_fe r, const p256_fe a, const p256_fe b)
{
	__asm__ volatile(P256_MUL_TO("0(%%rdi)", "0(%%rsi)", "0(%%rcx)")
			 :
			 : "D"(r), "S"(a), "c"(b), P256_ADX_CONSTS
			 : "rax", "rbx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
			   "memory");
}

void ADX_NAME(p256_fe_sqr_adx)(p256_fe r, const p256_fe a)
{
	__asm__ volatile(P256_SQR_TO("0(%%rdi)", "0(%%rsi)")
			 :
			 : "D"(r), "S"(a), P256_ADX_CONSTS
			 : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
			   "r15", "cc", "memory");
}

#endif
