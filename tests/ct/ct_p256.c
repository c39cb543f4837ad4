/*
 * Proves (under valgrind, via ctgrind) that P-256 public-key computation,
 * ECDH, key generation (alone and with a secret: keygen_shared) and ECDSA
 * signing never branch on, or index memory
 * with, the private key, the nonce or its material: the private key (and
 * the digest) are marked undefined, and so is every byte rand_bytes
 * returns (the link wraps it: -Wl,--wrap=rand_bytes), which covers the
 * keygen candidates and the hedged-signature randomness. Outputs and
 * return codes are marked public only after the call, then checked
 * against an unmarked run or a verification. Everything runs twice: forced
 * portable, then with the best field backend (the program prints which).
 * valgrind hides BMI2/ADX from CPUID, so that second run is portable too;
 * the MULX/ADX field and scalar kernels are then run directly on secret
 * operands (when the host has them), which is all that differs. The AVX2
 * fixed-base table scan is also run directly with a secret index, for
 * every row and index.
 *
 * Accepted leaks, listed in ct_p256.supp (valgrind suppressions, matched
 * by the function holding the branch):
 * - draw_private (p256_ecdh.c, for p256_keygen and p256_keygen_shared):
 *   whether a random candidate was out of [1, n-1]
 *   (probability ~2^-32; the candidate is then discarded);
 * - sign_loop (ecdsa_p256.c): whether a nonce candidate was unusable
 *   (k out of range, r = 0 or s = 0; same probability, discarded).
 * A suppression only hides a branch whose innermost frame is that
 * function; the work it calls is in separate noinline functions, so a
 * leak there is still reported.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "crypto/cpu.h"
#include "crypto/kx.h"
#include "crypto/p256.h"
#include "crypto/p256_point.h"
#include "crypto/p256_scalar.h"
#include "crypto/rand.h"
#include "ct.h"

/* The link redirects the library's calls to rand_bytes here. */
int __real_rand_bytes(void *buf, size_t len);
int __wrap_rand_bytes(void *buf, size_t len);

int __wrap_rand_bytes(void *buf, size_t len)
{
	int err = __real_rand_bytes(buf, len);

	CT_SECRET(buf, len);
	return err;
}

static int failures;

static void expect(int cond, const char *what)
{
	if (!cond) {
		printf("FAILED: %s\n", what);
		failures++;
	}
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 29 + 7 * i + 1);
}

static void ct_public_and_ecdh(uint8_t seed)
{
	uint8_t d[32], e[32], pd[65], pe[65], ref[65], z1[32], z2[32];
	int r;

	fill(d, 32, seed);
	fill(e, 32, (uint8_t)(seed + 100));
	expect(p256_public(ref, d) == 0, "public (unmarked)");
	expect(p256_public(pe, e) == 0, "public e");

	CT_SECRET(d, 32);
	r = p256_public(pd, d);
	CT_PUBLIC(&r, sizeof(r));
	CT_PUBLIC(pd, sizeof(pd));
	expect(r == 0 && memcmp(pd, ref, 65) == 0, "public");

	r = p256_ecdh(z1, d, pe, 65);
	CT_PUBLIC(&r, sizeof(r));
	CT_PUBLIC(z1, sizeof(z1));
	r |= kx_p256.shared(z2, d, pe, 65);
	CT_PUBLIC(&r, sizeof(r));
	CT_PUBLIC(z2, sizeof(z2));
	CT_PUBLIC(d, 32);
	expect(r == 0 && memcmp(z1, z2, 32) == 0, "ecdh");
	expect(p256_ecdh(z2, e, pd, 65) == 0 && memcmp(z1, z2, 32) == 0, "ecdh agrees");
}

/* A bad key goes through the same code, masked: no branch on its validity. */
static void ct_bad_key(void)
{
	uint8_t d[32], pub[65], peer[65], z[32], h[32], sig[64];
	int r1, r2, r3;

	fill(peer, 32, 9);
	expect(p256_public(peer, peer) == 0, "peer");
	memset(d, 0xff, 32); /* >= n */
	fill(h, 32, 3);
	CT_SECRET(d, 32);
	r1 = p256_public(pub, d);
	r2 = p256_ecdh(z, d, peer, 65);
	r3 = ecdsa_p256_sign(sig, d, h, 32, 0);
	CT_PUBLIC(&r1, sizeof(r1));
	CT_PUBLIC(&r2, sizeof(r2));
	CT_PUBLIC(&r3, sizeof(r3));
	expect(r1 == HS_ERR_BAD_KEY && r2 == HS_ERR_BAD_KEY && r3 == HS_ERR_BAD_KEY, "bad key");
}

static void ct_keygen(void)
{
	uint8_t d[32], pub[65], ref[65];
	int r = p256_keygen(d, pub);

	CT_PUBLIC(&r, sizeof(r));
	CT_PUBLIC(pub, sizeof(pub));
	CT_PUBLIC(d, sizeof(d));
	expect(r == 0, "keygen");
	expect(p256_public(ref, d) == 0 && memcmp(ref, pub, 65) == 0, "keygen public");
}

/* a server's step: the drawn key (secret, from rand_bytes) for the pair and the secret */
static void ct_keygen_shared(void)
{
	uint8_t d[32], pub[65], z[32], ref[65], peer[65], e[32];
	int r;

	fill(e, 32, 11);
	e[0] &= 0x7f;
	expect(p256_public(peer, e) == 0, "keygen_shared peer");
	r = p256_keygen_shared(d, pub, z, peer, sizeof(peer));
	CT_PUBLIC(&r, sizeof(r));
	CT_PUBLIC(pub, sizeof(pub));
	CT_PUBLIC(z, sizeof(z));
	CT_PUBLIC(d, sizeof(d));
	expect(r == 0, "keygen_shared");
	expect(p256_public(ref, d) == 0 && memcmp(ref, pub, 65) == 0, "keygen_shared public");
	expect(p256_ecdh(ref, d, peer, 65) == 0 && memcmp(ref, z, 32) == 0, "keygen_shared secret");
}

static void ct_sign(uint8_t seed, size_t hash_len, int hedged)
{
	uint8_t d[32], pub[65], h[64], sig[64], ref[64];
	int r;

	fill(d, 32, seed);
	fill(h, hash_len, (uint8_t)(seed + 1));
	expect(p256_public(pub, d) == 0, "sign key");
	expect(ecdsa_p256_sign(ref, d, h, hash_len, 0) == 0, "sign (unmarked)");
	CT_SECRET(d, 32);
	CT_SECRET(h, hash_len);
	r = ecdsa_p256_sign(sig, d, h, hash_len, hedged);
	CT_PUBLIC(&r, sizeof(r));
	CT_PUBLIC(sig, sizeof(sig));
	CT_PUBLIC(d, 32);
	CT_PUBLIC(h, hash_len);
	expect(r == 0, "sign");
	expect(ecdsa_p256_verify(pub, 65, h, hash_len, sig) == 0, "sign verifies");
	if (!hedged)
		expect(memcmp(sig, ref, 64) == 0, "deterministic sign");
	else
		expect(memcmp(sig, ref, 64) != 0, "hedged sign differs");
}

#if defined(HS_HAVE_P256_ADX)
/*
 * valgrind hides BMI2/ADX from CPUID, so the library picks the portable
 * field code under it; the MULX/ADX kernels are then checked directly,
 * when /proc/cpuinfo (which valgrind does not rewrite) shows the host has them.
 */
static int host_has_bmi2_adx(void)
{
	char line[4096];
	int bmi2 = 0, adx = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		bmi2 = strstr(line, " bmi2") != NULL;
		adx = strstr(line, " adx") != NULL;
		break;
	}
	fclose(f);
	return bmi2 && adx;
}

static void ct_adx_kernels(void)
{
	p256_fe a, b, r, ri, ref;

	if (!host_has_bmi2_adx()) {
		printf("ct_p256: host without BMI2/ADX: kernels not checked\n");
		return;
	}
	fill((uint8_t *)a, 32, 11);
	fill((uint8_t *)b, 32, 12);
	a[3] >>= 1;
	b[3] >>= 1;
	p256_fe_mul_portable(ref, a, b);
	p256_fe_sqr_portable(ref, ref);
	p256_sc_mont_mul_portable(ref, ref, b);
	p256_sc_mont_sqr_portable(ref, ref);
	CT_SECRET(a, sizeof(a));
	CT_SECRET(b, sizeof(b));
	p256_fe_mul_adx(r, a, b);
	p256_fe_sqr_adx(r, r);
	p256_sc_mont_mul_adx(r, r, b);
	p256_sc_mont_sqr_adx(r, r);
	/* the field's Intel form (the MULX reduction step) */
	p256_fe_mul_adx_intel(ri, a, b);
	p256_fe_sqr_adx_intel(ri, ri);
	p256_sc_mont_mul_adx(ri, ri, b);
	p256_sc_mont_sqr_adx(ri, ri);
	CT_PUBLIC(r, sizeof(r));
	CT_PUBLIC(ri, sizeof(ri));
	CT_PUBLIC(a, sizeof(a));
	CT_PUBLIC(b, sizeof(b));
	expect(memcmp(r, ref, sizeof(r)) == 0, "adx kernels");
	expect(memcmp(ri, ref, sizeof(ri)) == 0, "adx kernels, Intel form");
	printf("ct_p256: MULX/ADX kernels checked directly\n");
}
#endif

#if defined(HS_HAVE_P256_AVX2)
/*
 * The AVX2 fixed-base scan with a secret index, every row and index
 * (valgrind runs AVX2; this does not depend on what CPUID reports to the
 * library under it). Skipped when the host lacks AVX2.
 */
static void ct_avx2_scan(void)
{
	struct p256_affine got, want;

	if (!__builtin_cpu_supports("avx2")) {
		printf("ct_p256: host without AVX2: table scan not checked\n");
		return;
	}
	for (unsigned w = 0; w < HS_P256_BASE_WINDOWS; w++) {
		for (uint32_t j = 0; j <= HS_P256_BASE_ENTRIES; j++) {
			uint32_t idx = j;

			p256_lookup_portable(&want, p256_base_table[w], HS_P256_BASE_ENTRIES, j);
			CT_SECRET(&idx, sizeof(idx));
			p256_lookup_avx2(&got, p256_base_table[w], HS_P256_BASE_ENTRIES, idx);
			CT_PUBLIC(&got, sizeof(got));
			expect(memcmp(&got, &want, sizeof(got)) == 0, "avx2 scan");
		}
	}
	printf("ct_p256: AVX2 table scan checked directly\n");
}
#endif

int main(void)
{
	/* once forced portable, once with the best field backend (MULX/ADX) */
	for (int pass = 0; pass < 2; pass++) {
		cpu_force_portable(pass == 0);
		printf("ct_p256: field backend %s\n",
		       cpu_has(HS_CPU_BMI2 | HS_CPU_ADX) ? "mulx/adx" : "portable");
		ct_public_and_ecdh(1);
		ct_public_and_ecdh(2);
		ct_bad_key();
		ct_keygen();
		ct_keygen_shared();
		ct_sign(5, 32, 0);
		ct_sign(6, 32, 1);
		ct_sign(7, 48, 0);
		ct_sign(8, 64, 1);
		ct_sign(9, 20, 0);
	}
#if defined(HS_HAVE_P256_ADX)
	ct_adx_kernels();
#endif
#if defined(HS_HAVE_P256_AVX2)
	ct_avx2_scan();
#endif
	printf("ct_p256: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
