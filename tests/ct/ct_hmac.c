/*
 * Proves (under valgrind, via ctgrind) that HMAC-SHA-256/384/512, HKDF
 * Extract/Expand, HKDF-Expand-Label and Derive-Secret never branch on, or
 * index memory with, the key / IKM / secret: those are marked undefined
 * and any such use fails the run. Key lengths are public and vary (0, 32,
 * a whole block, longer than a block). The outputs are marked public only
 * after the computation, then checked against an unmarked recomputation.
 *
 * Backends: runs once forced portable and once with the best backend.
 * Valgrind 3.19 hides SHA-NI from CPUID (and cannot execute it), so under
 * ctgrind both runs take the portable SHA-256 path; the program prints
 * which table each run used.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "crypto/cpu.h"
#include "crypto/hash.h"
#include "crypto/hkdf.h"
#include "crypto/hmac.h"
#include "ct.h"

static int failures;

static void expect_same(const uint8_t *a, const uint8_t *b, size_t n, const char *what)
{
	if (memcmp(a, b, n) != 0) {
		printf("MISMATCH: %s\n", what);
		failures++;
	}
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + 31 * i);
}

static void ct_hmac_one(const struct hash *h, size_t key_len)
{
	uint8_t key[200], msg[300], out[HS_HASH_MAX_LEN], ref[HS_HASH_MAX_LEN];

	fill(key, key_len, (uint8_t)key_len);
	fill(msg, sizeof(msg), 7);
	hmac(h, key, key_len, msg, sizeof(msg), ref);
	CT_SECRET(key, key_len);
	hmac(h, key, key_len, msg, sizeof(msg), out);
	CT_PUBLIC(out, sizeof(out));
	CT_PUBLIC(key, key_len);
	expect_same(out, ref, h->digest_len, "hmac");
}

static void ct_hkdf(const struct hash *h)
{
	uint8_t ikm[32], salt[32], prk[HS_HASH_MAX_LEN], okm[100], ref[100];

	fill(ikm, sizeof(ikm), 1);
	fill(salt, sizeof(salt), 2);
	hkdf_extract(h, salt, sizeof(salt), ikm, sizeof(ikm), prk);
	if (hkdf_expand(h, prk, h->digest_len, "info", 4, ref, sizeof(ref)) != 0)
		failures++;
	CT_SECRET(ikm, sizeof(ikm));
	hkdf_extract(h, salt, sizeof(salt), ikm, sizeof(ikm), prk);
	if (hkdf_expand(h, prk, h->digest_len, "info", 4, okm, sizeof(okm)) != 0)
		failures++;
	CT_PUBLIC(okm, sizeof(okm));
	CT_PUBLIC(ikm, sizeof(ikm));
	expect_same(okm, ref, sizeof(okm), "hkdf");
}

static void ct_tls13(const struct hash *h)
{
	uint8_t secret[HS_HASH_MAX_LEN], th[HS_HASH_MAX_LEN];
	uint8_t key[32], iv[12], ds[HS_HASH_MAX_LEN], rkey[32], riv[12], rds[HS_HASH_MAX_LEN];
	int err = 0;

	fill(secret, h->digest_len, 3);
	fill(th, h->digest_len, 4);
	err |= hkdf_expand_label(h, secret, "key", NULL, 0, rkey, sizeof(rkey));
	err |= hkdf_expand_label(h, secret, "iv", NULL, 0, riv, sizeof(riv));
	err |= derive_secret(h, secret, "c ap traffic", th, rds);
	CT_SECRET(secret, h->digest_len);
	err |= hkdf_expand_label(h, secret, "key", NULL, 0, key, sizeof(key));
	err |= hkdf_expand_label(h, secret, "iv", NULL, 0, iv, sizeof(iv));
	err |= derive_secret(h, secret, "c ap traffic", th, ds);
	CT_PUBLIC(key, sizeof(key));
	CT_PUBLIC(iv, sizeof(iv));
	CT_PUBLIC(ds, sizeof(ds));
	CT_PUBLIC(secret, h->digest_len);
	if (err)
		failures++;
	expect_same(key, rkey, sizeof(key), "expand_label key");
	expect_same(iv, riv, sizeof(iv), "expand_label iv");
	expect_same(ds, rds, h->digest_len, "derive_secret");
}

static void run_all(void)
{
	const struct hash *hs[3] = { hash_sha256(), hash_sha384(), hash_sha512() };
	static const size_t key_lens[] = { 0, 1, 32, 64, 128, 129, 200 };

	for (int i = 0; i < 3; i++) {
		for (size_t k = 0; k < sizeof(key_lens) / sizeof(key_lens[0]); k++)
			ct_hmac_one(hs[i], key_lens[k]);
		ct_hkdf(hs[i]);
		ct_tls13(hs[i]);
	}
}

int main(void)
{
	const struct hash *portable;

	cpu_force_portable(1);
	portable = hash_sha256();
	run_all();
	cpu_force_portable(0);
	printf("ct_hmac: SHA-256 best backend is %s\n",
	       hash_sha256() == portable ? "portable (no SHA-NI visible)" : "SHA-NI");
	run_all();
	printf("ct_hmac: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
