/*
 * p256_field_adx.c in its Intel form (P256_ADX_INTEL: the MULX reduction
 * step of p256_adx_asm.h); its functions end in _intel and p256_field.h
 * calls them where cpu_has(HS_CPU_INTEL).
 */
#define P256_ADX_INTEL 1
#include "crypto/asm/p256_field_adx.c"
