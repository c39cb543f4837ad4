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
 * - The caller checks hs_cpu_has(HS_CPU_BMI2 | HS_CPU_ADX).
 * - Constant time: a fixed instruction sequence; the final reduction is a
 *   CMOVC select.
 */
#include "crypto/p256_field.h"

#if defined(HS_HAVE_P256_ADX)

#include "crypto/asm/p256_field_adx.h"

void hs_p256_fe_mul_adx(hs_p256_fe r, const hs_p256_fe a, const hs_p256_fe b)
{
	hs_p256_fe_mul_adx_inline(r, a, b);
}

void hs_p256_fe_sqr_adx(hs_p256_fe r, const hs_p256_fe a)
{
	hs_p256_fe_sqr_adx_inline(r, a);
}

#endif
