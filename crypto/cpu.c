/*
 * CPUID probing. AVX and AVX-512 need both the CPUID bit and the OS having
 * enabled the register state (XCR0 bits 1-2 for YMM, 5-7 for ZMM).
 */
#include "crypto/cpu.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static uint32_t probe(void)
{
	uint32_t a, b, c, d, f = 0;
	uint64_t xcr0 = 0;

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return 0;
	/* "GenuineIntel" in EBX, EDX, ECX */
	if (b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu)
		f |= HS_CPU_INTEL;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (c & bit_AES)
		f |= HS_CPU_AESNI;
	if (c & bit_PCLMUL)
		f |= HS_CPU_PCLMUL;
	if (c & bit_SSSE3)
		f |= HS_CPU_SSSE3;
	if (c & bit_SSE4_1)
		f |= HS_CPU_SSE41;
	if ((c & bit_OSXSAVE) && (c & bit_AVX)) {
		xcr0 = xgetbv0();
		if ((xcr0 & 0x6) == 0x6)
			f |= HS_CPU_AVX;
	}
	if (__get_cpuid_max(0, NULL) < 7)
		return f;
	__cpuid_count(7, 0, a, b, c, d);
	if ((f & HS_CPU_AVX) && (b & bit_AVX2))
		f |= HS_CPU_AVX2;
	if (b & bit_BMI2)
		f |= HS_CPU_BMI2;
	if (b & bit_ADX)
		f |= HS_CPU_ADX;
	if (b & bit_SHA)
		f |= HS_CPU_SHANI;
	if ((f & HS_CPU_AVX) && (xcr0 & 0xe0) == 0xe0) {
		if (b & bit_AVX512F)
			f |= HS_CPU_AVX512F;
		if (b & bit_AVX512BW)
			f |= HS_CPU_AVX512BW;
		if (b & bit_AVX512VL)
			f |= HS_CPU_AVX512VL;
		if (b & bit_AVX512IFMA)
			f |= HS_CPU_AVX512IFMA;
	}
	if ((f & HS_CPU_AVX) && (c & bit_VAES))
		f |= HS_CPU_VAES;
	if ((f & HS_CPU_AVX) && (c & bit_VPCLMULQDQ))
		f |= HS_CPU_VPCLMUL;
	return f;
}
#else
static uint32_t probe(void) { return 0; }
#endif

/*
 * Probed once; two threads probing at once compute the same value, and the
 * atomics make that race well defined.
 */
static _Atomic int probed;
static _Atomic uint32_t features;
static _Atomic int forced;

uint32_t cpu_features(void)
{
	if (!atomic_load_explicit(&probed, memory_order_acquire)) {
		const char *env = getenv("HS_CRYPTO_PORTABLE");
		atomic_store(&features, probe());
		if (env != NULL && strcmp(env, "1") == 0)
			atomic_store(&forced, 1);
		atomic_store_explicit(&probed, 1, memory_order_release);
	}
	return atomic_load(&forced) ? 0 : atomic_load(&features);
}

void cpu_force_portable(int on)
{
	(void)cpu_features();
	atomic_store(&forced, on);
}
