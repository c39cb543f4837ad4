/*
 * CPU features, read once from CPUID (and XGETBV for AVX state), and the
 * switch that forces portable code: cpu_force_portable(1) or the
 * environment variable HS_CRYPTO_PORTABLE=1 at start-up.
 *
 * Backend getters (aead_aes128gcm_aesni() etc.) return NULL when
 * cpu_has() says the CPU lacks what they need.
 */
#ifndef HS_CRYPTO_CPU_H
#define HS_CRYPTO_CPU_H

#include <stdint.h>

enum cpu_feature {
	HS_CPU_AESNI = 1u << 0,
	HS_CPU_PCLMUL = 1u << 1,
	HS_CPU_SSSE3 = 1u << 2,
	HS_CPU_SSE41 = 1u << 3,
	HS_CPU_AVX = 1u << 4,
	HS_CPU_AVX2 = 1u << 5,
	HS_CPU_BMI2 = 1u << 6,
	HS_CPU_ADX = 1u << 7,
	HS_CPU_SHANI = 1u << 8,
	HS_CPU_AVX512F = 1u << 9,
	HS_CPU_AVX512BW = 1u << 10,
	HS_CPU_AVX512VL = 1u << 11,
	HS_CPU_VAES = 1u << 12,
	HS_CPU_VPCLMUL = 1u << 13,
	HS_CPU_AVX512IFMA = 1u << 14,
	/*
	 * Not an instruction set: the vendor is Intel, for code laid out for
	 * its execution ports (crypto/asm/p256_point_adx_intel.c)
	 */
	HS_CPU_INTEL = 1u << 15,
};

/* The features usable now (0 when forced portable). */
uint32_t cpu_features(void);

/* 1 if every feature in mask is usable. */
static inline int cpu_has(uint32_t mask) { return (cpu_features() & mask) == mask; }

/* Force portable code (on = 1) or go back to CPUID (on = 0). For tests. */
void cpu_force_portable(int on);

#endif
