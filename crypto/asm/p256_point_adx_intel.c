/*
 * p256_point_adx.c in its Intel form (P256_ADX_INTEL): the MULX
 * reduction step of p256_adx_asm.h and ECDH's doubling with S = X 4Y^2
 * in the fourth IFMA lane; its functions end in _intel and
 * crypto/p256_point.c calls them where cpu_has(HS_CPU_INTEL). Both
 * forms are built everywhere and tested against the C formulas
 * (tests/crypto/test_p256.c).
 */
#define P256_ADX_INTEL 1
#include "crypto/asm/p256_point_adx.c"
