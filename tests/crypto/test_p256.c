/*
 * Proves P-256 known answers and internal consistency:
 * - field and scalar arithmetic (inverses, range checks, reductions);
 * - public keys of known private keys (1, 2, 3, n-1, n-2, RFC 5903, RFC
 *   6979) and the rejection of 0, n and above with a zeroed output;
 * - every entry of the fixed-base table, and the fixed-base and windowed
 *   multiplications against a plain double-and-add, on random and edge
 *   scalars (window boundaries, carries, n-1);
 * - verify's variable-time u1 G + u2 Q (Jacobian, wNAF) against the
 *   constant-time multiplications, exceptional cases included;
 * - ECDH known answers (RFC 5903 8.1) and peer point validation;
 * - RFC 6979 A.2.5 signatures (k, r and s exactly) for SHA-256, SHA-384
 *   and SHA-512, and short digests (SHA-1, SHA-224 sizes);
 * - verification rejects r or s of 0 or n, modified r, s, digest or key;
 * - strict DER encoding and parsing; the kx and sig tables;
 * - the MULX/ADX field and scalar backends give bit-identical results to
 *   the portable ones (edge and random operands, and whole operations);
 *   so do the AVX2 and AVX-512 table scans (fixed base: every row and index;
 *   variable base: random tables, every index); and the AVX-512 IFMA
 *   fixed-base sum gives the same points as the portable one (edge
 *   scalars, lanes left at infinity, random ones; called directly and
 *   through the dispatch).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/bignum.h"
#include "crypto/cpu.h"
#include "crypto/kx.h"
#include "crypto/p256.h"
#include "crypto/p256_point.h"
#include "crypto/safegcd256.h"
#if defined(__x86_64__)
#include "crypto/asm/p256_point_adx.h"
#endif
#include "crypto/sha2.h"
#include "crypto/sig.h"
#include "testutil.h"

#define N_HEX "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"
#define GX_HEX "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
#define GY_HEX "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"

static void unhex(const char *hex, uint8_t *out, size_t n)
{
	assert_int_equal(hex_decode_to(hex, out, n), 0);
}

/* big-endian 32 bytes of x (x < 2^64) */
static void be32_small(uint8_t out[32], uint64_t x)
{
	memset(out, 0, 32);
	for (int i = 31; i >= 24; i--) {
		out[i] = (uint8_t)x;
		x >>= 8;
	}
}

/* out = n - x, big-endian, for small x */
static void n_minus(uint8_t out[32], unsigned x)
{
	unsigned borrow = x;

	unhex(N_HEX, out, 32);
	for (int i = 31; i >= 0 && borrow; i--) {
		unsigned v = out[i];
		out[i] = (uint8_t)(v - borrow);
		borrow = v < borrow ? 1 : 0;
	}
}

static void point_bytes(uint8_t xy[64], const struct p256_point *p)
{
	uint64_t inf = p256_point_to_bytes(xy, xy + 32, p);
	assert_int_equal(inf, 0);
}

/* ---- field and scalar ---- */

static void test_field(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t b[32], out[32];
	p256_fe a, inv, one, t;

	test_rng_init(&rng, 0x256f);
	p256_fe_set_one(one);
	for (int i = 0; i < 200; i++) {
		test_rng_bytes(&rng, b, 32);
		b[0] &= 0x7f; /* < p */
		assert_true(p256_fe_from_bytes(a, b) != 0);
		p256_fe_to_bytes(out, a);
		assert_memory_equal(out, b, 32);
		p256_fe_inv(inv, a);
		p256_fe_mul(t, a, inv);
		assert_true(p256_fe_eq(t, one) != 0);
		p256_fe_sub(t, a, a);
		assert_true(p256_fe_is_zero(t) != 0);
		p256_fe_neg(t, a);
		p256_fe_add(t, t, a);
		assert_true(p256_fe_is_zero(t) != 0);
	}
	/* p itself and above are out of range; p - 1 is in */
	unhex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", b, 32);
	assert_true(p256_fe_from_bytes(a, b) == 0);
	b[31] = 0xfe;
	assert_true(p256_fe_from_bytes(a, b) != 0);
	p256_fe_add(t, a, one); /* (p - 1) + 1 = 0 */
	assert_true(p256_fe_is_zero(t) != 0);
	memset(b, 0xff, 32);
	assert_true(p256_fe_from_bytes(a, b) == 0);
	p256_fe_set_zero(a);
	p256_fe_inv(inv, a);
	assert_true(p256_fe_is_zero(inv) != 0);
}

static void test_scalar(void **state)
{
	(void)state;
	uint8_t b[32], out[32];
	p256_sc a, am, inv, t;
	struct test_rng rng;

	be32_small(b, 0);
	assert_true(p256_sc_from_bytes(a, b) == 0);
	be32_small(b, 1);
	assert_true(p256_sc_from_bytes(a, b) != 0);
	n_minus(b, 1);
	assert_true(p256_sc_from_bytes(a, b) != 0);
	n_minus(b, 0);
	assert_true(p256_sc_from_bytes(a, b) == 0);
	memset(b, 0xff, 32);
	assert_true(p256_sc_from_bytes(a, b) == 0);

	/* digest reduction: n -> 0, n + 1 -> 1 (as n - 0 + 1), 2^256-1 -> 2^256-1-n */
	n_minus(b, 0);
	p256_sc_from_digest(a, b, 32);
	assert_true(p256_sc_is_zero(a) != 0);
	memset(b, 0xff, 32);
	p256_sc_from_digest(a, b, 32);
	p256_sc_to_bytes(out, a);
	unhex("00000000ffffffff00000000000000004319055258e8617b0c46353d039cdaae", b, 32);
	assert_memory_equal(out, b, 32);
	/* short digests are integers as they are; long ones keep the left 256 bits */
	{
		uint8_t h[40];
		for (int i = 0; i < 40; i++)
			h[i] = (uint8_t)(i + 1);
		p256_sc_from_digest(a, h, 3);
		p256_sc_to_bytes(out, a);
		be32_small(b, 0x010203);
		assert_memory_equal(out, b, 32);
		p256_sc_from_digest(a, h, 40);
		p256_sc_to_bytes(out, a);
		assert_memory_equal(out, h, 32);
		p256_sc_from_digest(a, h, 0);
		assert_true(p256_sc_is_zero(a) != 0);
	}

	/* a * (1/a) = 1, in and out of Montgomery form */
	test_rng_init(&rng, 0x256a);
	for (int i = 0; i < 100; i++) {
		test_rng_bytes(&rng, b, 32);
		b[0] &= 0x7f;
		b[31] |= 1;
		assert_true(p256_sc_from_bytes(a, b) != 0);
		p256_sc_to_mont(am, a);
		p256_sc_inv_mont(inv, am);
		p256_sc_mont_mul(t, a, inv); /* a * a^-1 R / R = 1 */
		p256_sc_to_bytes(out, t);
		be32_small(b, 1);
		assert_memory_equal(out, b, 32);
	}
	/* (n-1) + 2 = 1 */
	n_minus(b, 1);
	(void)p256_sc_from_bytes(a, b);
	be32_small(b, 2);
	(void)p256_sc_from_bytes(t, b);
	p256_sc_add(a, a, t);
	p256_sc_to_bytes(out, a);
	be32_small(b, 1);
	assert_memory_equal(out, b, 32);
}

/*
 * The 256-bit safegcd (crypto/safegcd256.c) against references, for
 * m = n and m = p: the C batches (forced portable) and the CMOV ones
 * agree bit for bit with bn_mod_inv (the generic divsteps) and with the
 * descriptor's generic (not specialised) copy; p256_fe_inv equals the
 * Fermat power a^(p-2) by square-and-multiply, p256_sc_inv_mont gives
 * a a^-1 = 1 in Montgomery form. Inputs: 0, 1, 2, m - 1, m - 2, 2^255,
 * 2^255 - 1, single limbs, and random values below m.
 */
static void limbs_sub_small(uint64_t r[4], const uint64_t m[4], uint64_t x)
{
	uint64_t borrow = x;

	for (int i = 0; i < 4; i++) {
		r[i] = m[i] - borrow;
		borrow = m[i] < borrow;
	}
}

/* 1 if a < m */
static int limbs_below(const uint64_t a[4], const uint64_t m[4])
{
	for (int i = 3; i >= 0; i--)
		if (a[i] != m[i])
			return a[i] < m[i];
	return 0;
}

/* a^(p-2) in Montgomery form, square-and-multiply over p - 2's bits */
static void fe_inv_fermat_ref(p256_fe r, const p256_fe a)
{
	static const uint64_t pm2[4] = { 0xfffffffffffffffdull, 0x00000000ffffffffull, 0,
					 0xffffffff00000001ull };
	p256_fe acc;

	p256_fe_set_one(acc);
	for (int i = 255; i >= 0; i--) {
		p256_fe_sqr(acc, acc);
		if ((pm2[i / 64] >> (i % 64)) & 1)
			p256_fe_mul(acc, acc, a);
	}
	memcpy(r, acc, sizeof(acc));
}

static void check_inv(const uint64_t x[4], const struct sg256_mod *sm, const struct bn_mont *c,
		      int is_field)
{
	struct sg256_mod generic = *sm; /* another address: the generic copy */
	uint64_t r_c[4], r_cmov[4], r_gen[4], r_bn[4], t[4];

	cpu_force_portable(1);
	p256_fe_select();
	sg256_inv(r_c, x, sm);
	cpu_force_portable(0);
	p256_fe_select();
	sg256_inv(r_cmov, x, sm);
	sg256_inv(r_gen, x, &generic);
	(void)bn_mod_inv(r_bn, x, c);
	assert_memory_equal(r_c, r_cmov, sizeof(r_c));
	assert_memory_equal(r_c, r_gen, sizeof(r_c));
	assert_memory_equal(r_c, r_bn, sizeof(r_c));
	if (is_field) {
		p256_fe ref, one;

		p256_fe_inv(t, x);
		fe_inv_fermat_ref(ref, x);
		assert_memory_equal(t, ref, sizeof(ref));
		p256_fe_mul(ref, t, x);
		p256_fe_set_one(one);
		assert_true(p256_fe_eq(ref, one) != 0 || p256_fe_is_zero(x) != 0);
	} else {
		p256_sc one = { 1, 0, 0, 0 }, onem;

		p256_sc_inv_mont(t, x);
		p256_sc_mont_mul(r_c, t, x); /* a^-1 R a R / R = R: 1 in Montgomery form */
		p256_sc_to_mont(onem, one);
		if (p256_sc_is_zero(x) != 0)
			assert_true(p256_sc_is_zero(t) != 0);
		else
			assert_memory_equal(r_c, onem, sizeof(onem));
	}
}

static void test_inversions_match_reference(void **state)
{
	(void)state;
	static const uint64_t n[4] = { 0xf3b9cac2fc632551ull, 0xbce6faada7179e84ull,
				       0xffffffffffffffffull, 0xffffffff00000000ull };
	static const uint64_t p[4] = { 0xffffffffffffffffull, 0x00000000ffffffffull, 0,
				       0xffffffff00000001ull };
	const uint64_t *mods[2] = { n, p };
	const struct sg256_mod *sms[2] = { &sg256_p256_n, &sg256_p256_p };
	struct test_rng rng;

	test_rng_init(&rng, 0x5ec6);
	for (int k = 0; k < 2; k++) {
		const uint64_t *m = mods[k];
		struct bn_mont c;
		uint64_t x[4];

		assert_int_equal(bn_mont_init(&c, m, 4), 0);
		for (uint64_t small = 0; small < 3; small++) {
			uint64_t e[4] = { small, 0, 0, 0 };

			check_inv(e, sms[k], &c, k);
			limbs_sub_small(x, m, small + 1); /* m - 1, m - 2, m - 3 */
			check_inv(x, sms[k], &c, k);
		}
		for (int i = 0; i < 256; i += 31) { /* single bits, 2^255 among them */
			uint64_t e[4] = { 0, 0, 0, 0 };

			e[i / 64] = 1ull << (i % 64);
			check_inv(e, sms[k], &c, k);
		}
		uint64_t e255[4] = { 0, 0, 0, 1ull << 63 }, lo[4] = { ~0ull, ~0ull, ~0ull, ~0ull >> 1 };

		check_inv(e255, sms[k], &c, k);
		check_inv(lo, sms[k], &c, k); /* 2^255 - 1 */
		for (int i = 0; i < 500; i++) {
			do
				test_rng_bytes(&rng, x, sizeof(x));
			while (!limbs_below(x, m));
			if (i % 4 == 1) /* short values too */
				x[3] = x[2] = 0;
			check_inv(x, sms[k], &c, k);
		}
	}
}

/* ---- public keys ---- */

static void check_public(const uint8_t priv[32], const char *x_hex, const char *y_hex)
{
	uint8_t pub[65], want[64];

	assert_int_equal(p256_public(pub, priv), 0);
	assert_int_equal(pub[0], 0x04);
	unhex(x_hex, want, 32);
	unhex(y_hex, want + 32, 32);
	assert_memory_equal(pub + 1, want, 64);
	assert_int_equal(p256_check_public(pub, sizeof(pub)), 0);
}

static void test_public_known(void **state)
{
	(void)state;
	uint8_t d[32], pub[65];

	be32_small(d, 1);
	check_public(d, GX_HEX, GY_HEX);
	/* 2G, 3G computed with affine formulas in Python (independent of this code) */
	be32_small(d, 2);
	check_public(d, "7cf27b188d034f7e8a52380304b51ac3c08969e277f21b35a60b48fc47669978",
		     "07775510db8ed040293d9ac69f7430dbba7dade63ce982299e04b79d227873d1");
	be32_small(d, 3);
	check_public(d, "5ecbe4d1a6330a44c8f7ef951d4bf165e6c6b721efada985fb41661bc6e7fd6c",
		     "8734640c4998ff7e374b06ce1a64a2ecd82ab036384fb83d9a79b127a27d5032");
	/* (n-1)G = -G: y = p - Gy */
	n_minus(d, 1);
	check_public(d, GX_HEX, "b01cbd1c01e58065711814b583f061e9d431cca994cea1313449bf97c840ae0a");
	/* (n-2)G = -2G */
	n_minus(d, 2);
	check_public(d, "7cf27b188d034f7e8a52380304b51ac3c08969e277f21b35a60b48fc47669978",
		     "f888aaee24712fc0d6c26539608bcf244582521ac3167dd661fb4862dd878c2e");
	/* RFC 5903 section 8.1 */
	unhex("c88f01f510d9ac3f70a292daa2316de544e9aab8afe84049c62a9c57862d1433", d, 32);
	check_public(d, "dad0b65394221cf9b051e1feca5787d098dfe637fc90b9ef945d0c3772581180",
		     "5271a0461cdb8252d61f1c456fa3e59ab1f45b33accf5f58389e0577b8990bb3");
	unhex("c6ef9c5d78ae012a011164acb397ce2088685d8f06bf9be0b283ab46476bee53", d, 32);
	check_public(d, "d12dfb5289c8d4f81208b70270398c342296970a0bccb74c736fc7554494bf63",
		     "56fbf3ca366cc23e8157854c13c58d6aac23f046ada30f8353e74f33039872ab");
	/* RFC 6979 A.2.5 */
	unhex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721", d, 32);
	check_public(d, "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6",
		     "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299");

	/* bad keys: error and a zeroed output */
	static const uint8_t zero65[65] = { 0 };
	be32_small(d, 0);
	memset(pub, 0xaa, sizeof(pub));
	assert_int_equal(p256_public(pub, d), HS_ERR_BAD_KEY);
	assert_memory_equal(pub, zero65, 65);
	n_minus(d, 0);
	memset(pub, 0xaa, sizeof(pub));
	assert_int_equal(p256_public(pub, d), HS_ERR_BAD_KEY);
	assert_memory_equal(pub, zero65, 65);
	memset(d, 0xff, 32);
	assert_int_equal(p256_public(pub, d), HS_ERR_BAD_KEY);
	assert_memory_equal(pub, zero65, 65);
}

/* ---- scalar multiplication ---- */

/* plain MSB-first double-and-add over the complete formulas */
static void ref_mul(struct p256_point *r, const p256_sc k, const struct p256_point *p)
{
	p256_point_set_infinity(r);
	for (int i = 255; i >= 0; i--) {
		p256_point_double(r, r);
		if ((k[i / 64] >> (i % 64)) & 1)
			p256_point_add(r, r, p);
	}
}

static void test_base_table(void **state)
{
	(void)state;
	struct p256_point base, acc, ent;
	uint8_t want[64], got[64];

	p256_point_set_generator(&base);
	for (int i = 0; i < HS_P256_BASE_WINDOWS; i++) {
		acc = base;
		for (int j = 0; j < HS_P256_BASE_ENTRIES; j++) {
			p256_point_from_affine(&ent, &p256_base_table[i][j]);
			point_bytes(want, &acc);
			point_bytes(got, &ent);
			assert_memory_equal(got, want, 64);
			p256_point_add(&acc, &acc, &base);
		}
		for (int k = 0; k < HS_P256_BASE_W; k++)
			p256_point_double(&base, &base);
	}
}

static void check_mul(const uint8_t kb[32])
{
	struct p256_point g, r1, r2, r3;
	uint8_t a[64], b[64], c[64];
	p256_sc k;
	uint64_t inf1, inf2, inf3;

	for (int i = 0; i < 4; i++) {
		k[i] = 0;
		for (int j = 0; j < 8; j++)
			k[i] = (k[i] << 8) | kb[8 * (3 - i) + j];
	}
	p256_point_set_generator(&g);
	ref_mul(&r1, k, &g);
	p256_point_mul(&r2, k, &g);
	p256_point_mul_base(&r3, k);
	inf1 = p256_point_to_bytes(a, a + 32, &r1);
	inf2 = p256_point_to_bytes(b, b + 32, &r2);
	inf3 = p256_point_to_bytes(c, c + 32, &r3);
	assert_true(inf1 == inf2 && inf1 == inf3);
	assert_memory_equal(a, b, 64);
	assert_memory_equal(a, c, 64);
}

static void test_mul_consistency(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t kb[32];

	/* edges: 0, 1, small, n-1, n (infinity), all-ones windows, 2^255 */
	be32_small(kb, 0);
	check_mul(kb);
	for (unsigned v = 1; v < 70; v++) {
		be32_small(kb, v);
		check_mul(kb);
	}
	/* n - 2d for |d| <= 16 meets the doubling case of the last window */
	for (unsigned v = 0; v < 40; v++) {
		n_minus(kb, v);
		check_mul(kb);
	}
	memset(kb, 0xff, 32);
	check_mul(kb); /* 2^256 - 1: every digit carries */
	memset(kb, 0, 32);
	kb[0] = 0x80;
	check_mul(kb);
	for (int pat = 0; pat < 4; pat++) {
		static const uint8_t fill[4] = { 0x10, 0x84, 0x21, 0x7b };
		memset(kb, fill[pat], 32);
		check_mul(kb);
	}
	test_rng_init(&rng, 0x256b);
	for (int i = 0; i < 100; i++) {
		test_rng_bytes(&rng, kb, 32);
		check_mul(kb);
	}
}

/*
 * fn with the assembly form p256_fe_select() chose, then with the other
 * one (crypto/asm/p256_point_adx.c's own and its Intel form), where the
 * CPU has MULX/ADX: both run on any such CPU
 */
static void for_each_adx_form(void (*fn)(void))
{
	p256_fe_select();
	fn();
#if defined(HS_HAVE_P256_ADX)
	if (cpu_has(HS_CPU_BMI2 | HS_CPU_ADX)) {
		int chosen = atomic_load(&p256_fe_use_adx);

		atomic_store(&p256_fe_use_adx, chosen == HS_P256_ADX_INTEL ? 1 : HS_P256_ADX_INTEL);
		fn();
		atomic_store(&p256_fe_use_adx, chosen);
	}
#endif
}

static void mul_other_point_cases(void)
{
	struct test_rng rng;
	struct p256_point p, r1, r2;
	uint8_t kb[32], a[64], b[64];
	p256_sc k;

	test_rng_init(&rng, 0x256c);
	/* p = 7G, then random multiples */
	p256_point_set_generator(&p);
	k[0] = 7, k[1] = k[2] = k[3] = 0;
	p256_point_mul_base(&p, k);
	for (int i = 0; i < 30; i++) {
		test_rng_bytes(&rng, kb, 32);
		for (int j = 0; j < 4; j++)
			memcpy(&k[j], kb + 8 * j, 8);
		ref_mul(&r1, k, &p);
		p256_point_mul(&r2, k, &p);
		point_bytes(a, &r1);
		point_bytes(b, &r2);
		assert_memory_equal(a, b, 64);
	}
}

static void test_mul_other_point(void **state)
{
	(void)state;
	for_each_adx_form(mul_other_point_cases);
}

/* a G + b p by the constant-time functions and one complete addition */
static void ref_double_mul(struct p256_point *r, const p256_sc a, const p256_sc b,
			   const struct p256_point *p)
{
	struct p256_point ag, bp;

	p256_point_mul_base(&ag, a);
	p256_point_mul(&bp, b, p);
	p256_point_add(r, &ag, &bp);
}

static void check_double_mul(const p256_sc a, const p256_sc b,
			     const struct p256_point *p)
{
	struct p256_point r1, r2;
	uint8_t x1[64], x2[64];
	uint64_t inf1, inf2;

	ref_double_mul(&r1, a, b, p);
	p256_point_mul_double_vartime(&r2, a, b, p);
	inf1 = p256_point_to_bytes(x1, x1 + 32, &r1);
	inf2 = p256_point_to_bytes(x2, x2 + 32, &r2);
	assert_true(inf1 == inf2);
	assert_memory_equal(x1, x2, 64);
}

static void sc_small(p256_sc k, uint64_t v)
{
	k[0] = v, k[1] = k[2] = k[3] = 0;
}

/*
 * The variable-time a G + b p of verify (Jacobian, wNAF, branches on the
 * exceptional cases) against the constant-time code: random scalars,
 * edges, p = G so that the two halves meet (aG == bG doubles, aG == -bG
 * gives infinity), and p at infinity.
 */
static void mul_double_vartime_cases(void)
{
	static const p256_sc n1 = { 0xf3b9cac2fc632550ull, 0xbce6faada7179e84ull,
				       0xffffffffffffffffull, 0xffffffff00000000ull };
	struct test_rng rng;
	struct p256_point g, p, inf;
	p256_sc a, b, k;

	test_rng_init(&rng, 0x256e);
	p256_point_set_generator(&g);
	p256_point_set_infinity(&inf);
	sc_small(k, 0x1234567);
	p256_point_mul_base(&p, k);
	for (int i = 0; i < 200; i++) {
		test_rng_bytes(&rng, a, 32);
		test_rng_bytes(&rng, b, 32);
		if (i % 4 == 1)
			memcpy(b, a, 32); /* with p = G: aG + aG */
		if (i % 4 == 2)
			sc_small(b, (uint64_t)i);
		check_double_mul(a, b, &p);
		check_double_mul(a, b, &g);
		check_double_mul(a, b, &inf);
	}
	for (uint64_t v = 0; v < 40; v++) {
		sc_small(a, v);
		sc_small(b, 39 - v);
		check_double_mul(a, b, &g);
		check_double_mul(a, b, &p);
		check_double_mul(b, a, &p);
		/* aG + (n - a)G = infinity; aG + (n - 1)G = (a - 1)G */
		memcpy(b, n1, 32);
		b[0] -= v ? v - 1 : 0;
		check_double_mul(a, b, &g);
		check_double_mul(b, a, &g);
	}
	memset(a, 0xff, 32);
	memcpy(b, n1, 32);
	check_double_mul(a, b, &p);
	check_double_mul(b, a, &p);
	check_double_mul(a, a, &g);
}

/*
 * Both of verify's paths: forced portable (u1 G by the Jacobian table
 * additions, the sum by jac_add's branches), then native (on IFMA CPUs
 * u1 G in eight lanes and the complete projective sum).
 */
static void test_mul_double_vartime(void **state)
{
	(void)state;
	cpu_force_portable(1);
	p256_fe_select();
	mul_double_vartime_cases();
	cpu_force_portable(0);
	for_each_adx_form(mul_double_vartime_cases);
}

/* ---- ECDH ---- */

static void test_ecdh_known(void **state)
{
	(void)state;
	uint8_t i[32], r[32], gi[65], gr[65], z[32], want[32];

	unhex("c88f01f510d9ac3f70a292daa2316de544e9aab8afe84049c62a9c57862d1433", i, 32);
	unhex("c6ef9c5d78ae012a011164acb397ce2088685d8f06bf9be0b283ab46476bee53", r, 32);
	unhex("04dad0b65394221cf9b051e1feca5787d098dfe637fc90b9ef945d0c3772581180"
	      "5271a0461cdb8252d61f1c456fa3e59ab1f45b33accf5f58389e0577b8990bb3", gi, 65);
	unhex("04d12dfb5289c8d4f81208b70270398c342296970a0bccb74c736fc7554494bf63"
	      "56fbf3ca366cc23e8157854c13c58d6aac23f046ada30f8353e74f33039872ab", gr, 65);
	unhex("d6840f6b42f6edafd13116e0e12565202fef8e9ece7dce03812464d04b9442de", want, 32);
	assert_int_equal(p256_ecdh(z, i, gr, 65), 0);
	assert_memory_equal(z, want, 32);
	assert_int_equal(p256_ecdh(z, r, gi, 65), 0);
	assert_memory_equal(z, want, 32);
	assert_int_equal(kx_p256.shared(z, i, gr, 65), 0);
	assert_memory_equal(z, want, 32);

	/* d = 1 gives the peer's own x; d = n - 1 too (-P has the same x) */
	be32_small(i, 1);
	assert_int_equal(p256_ecdh(z, i, gr, 65), 0);
	assert_memory_equal(z, gr + 1, 32);
	n_minus(i, 1);
	assert_int_equal(p256_ecdh(z, i, gr, 65), 0);
	assert_memory_equal(z, gr + 1, 32);

	/* bad private keys: error and zeroed output */
	static const uint8_t zero[32] = { 0 };
	be32_small(i, 0);
	assert_int_equal(p256_ecdh(z, i, gr, 65), HS_ERR_BAD_KEY);
	assert_memory_equal(z, zero, 32);
	n_minus(i, 0);
	assert_int_equal(p256_ecdh(z, i, gr, 65), HS_ERR_BAD_KEY);
	assert_memory_equal(z, zero, 32);
}

static void test_ecdh_bad_points(void **state)
{
	(void)state;
	uint8_t d[32], pub[65], bad[66], z[32];

	unhex("c6ef9c5d78ae012a011164acb397ce2088685d8f06bf9be0b283ab46476bee53", d, 32);
	unhex("04dad0b65394221cf9b051e1feca5787d098dfe637fc90b9ef945d0c3772581180"
	      "5271a0461cdb8252d61f1c456fa3e59ab1f45b33accf5f58389e0577b8990bb3", pub, 65);
	assert_int_equal(p256_check_public(pub, 65), 0);
	/* lengths */
	assert_int_equal(p256_ecdh(z, d, pub, 64), HS_ERR_BAD_POINT);
	memcpy(bad, pub, 65);
	bad[65] = 0;
	assert_int_equal(p256_ecdh(z, d, bad, 66), HS_ERR_BAD_POINT);
	assert_int_equal(p256_ecdh(z, d, pub, 0), HS_ERR_BAD_POINT);
	assert_int_equal(p256_ecdh(z, d, pub, 33), HS_ERR_BAD_POINT);
	/* prefixes other than 0x04 (compressed, hybrid, infinity) */
	static const uint8_t prefixes[] = { 0x00, 0x02, 0x03, 0x05, 0x06, 0x07 };
	for (size_t k = 0; k < sizeof(prefixes); k++) {
		memcpy(bad, pub, 65);
		bad[0] = prefixes[k];
		assert_int_equal(p256_ecdh(z, d, bad, 65), HS_ERR_BAD_POINT);
	}
	/* off the curve: y + 1, x + 1 */
	memcpy(bad, pub, 65);
	bad[64] ^= 1;
	assert_int_equal(p256_ecdh(z, d, bad, 65), HS_ERR_BAD_POINT);
	memcpy(bad, pub, 65);
	bad[32] ^= 1;
	assert_int_equal(p256_ecdh(z, d, bad, 65), HS_ERR_BAD_POINT);
	/* (0, 0) and all-zero */
	memset(bad, 0, 65);
	bad[0] = 0x04;
	assert_int_equal(p256_ecdh(z, d, bad, 65), HS_ERR_BAD_POINT);
	/*
	 * (0, y0) is on the curve; (p, y0) is the same point if x were
	 * reduced mod p, and must be rejected: coordinates must be < p.
	 */
	unhex("04" "0000000000000000000000000000000000000000000000000000000000000000"
	      "66485c780e2f83d72433bd5d84a06bb6541c2af31dae871728bf856a174f93f4", bad, 65);
	assert_int_equal(p256_ecdh(z, d, bad, 65), 0);
	unhex("04" "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"
	      "66485c780e2f83d72433bd5d84a06bb6541c2af31dae871728bf856a174f93f4", bad, 65);
	assert_int_equal(p256_ecdh(z, d, bad, 65), HS_ERR_BAD_POINT);
	/* y = p, y = 2^256 - 1 */
	unhex("04" GX_HEX "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", bad,
	      65);
	assert_int_equal(p256_ecdh(z, d, bad, 65), HS_ERR_BAD_POINT);
	memset(bad + 33, 0xff, 32);
	assert_int_equal(p256_ecdh(z, d, bad, 65), HS_ERR_BAD_POINT);
	/* while G itself is fine */
	unhex("04" GX_HEX GY_HEX, bad, 65);
	assert_int_equal(p256_ecdh(z, d, bad, 65), 0);
	assert_int_equal(p256_check_public(NULL, 0), HS_ERR_BAD_POINT);
}

static void test_keygen(void **state)
{
	(void)state;
	uint8_t a[32], b[32], pa[65], pb[65], za[32], zb[32], p2[65];

	assert_int_equal(p256_keygen(a, pa), 0);
	assert_int_equal(kx_p256.keygen(b, pb), 0);
	assert_memory_not_equal(a, b, 32);
	assert_int_equal(p256_check_public(pa, 65), 0);
	assert_int_equal(p256_public(p2, a), 0);
	assert_memory_equal(p2, pa, 65);
	assert_int_equal(p256_ecdh(za, a, pb, 65), 0);
	assert_int_equal(p256_ecdh(zb, b, pa, 65), 0);
	assert_memory_equal(za, zb, 32);
	assert_string_equal(kx_p256.name, "secp256r1");
	assert_int_equal(kx_p256.priv_len, 32);
	assert_int_equal(kx_p256.pub_len, 65);
	assert_int_equal(kx_p256.shared_len, 32);
}

/*
 * keygen_shared (one inversion for the key pair and the secret) against
 * p256_public and p256_ecdh on the key it drew, portable and with the
 * CPU's backends: random peers, then a bad one (p256_ecdh's error, the
 * secret zeroed, no key drawn).
 */
static void test_keygen_shared(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t priv[32], pub[65], out[32], peer[65], want[65], k[32], kept[32];
	static const uint8_t zero[32];

	assert_ptr_equal(kx_p256.keygen_shared, p256_keygen_shared);
	test_rng_init(&rng, 0x256d);
	for (int portable = 0; portable < 2; portable++) {
		cpu_force_portable(portable);
		for (int i = 0; i < 20; i++) {
			test_rng_bytes(&rng, k, 32);
			k[0] &= 0x7f;
			k[31] |= 1;
			assert_int_equal(p256_public(peer, k), 0);
			memset(out, 0xaa, 32);
			assert_int_equal(kx_p256.keygen_shared(priv, pub, out, peer, 65), 0);
			assert_int_equal(p256_public(want, priv), 0);
			assert_memory_equal(pub, want, 65);
			assert_int_equal(p256_ecdh(want, priv, peer, 65), 0);
			assert_memory_equal(out, want, 32);
		}
		memset(priv, 0x55, 32);
		memcpy(kept, priv, 32);
		peer[64] ^= 1; /* off the curve */
		assert_int_equal(kx_p256.keygen_shared(priv, pub, out, peer, 65), HS_ERR_BAD_POINT);
		assert_memory_equal(out, zero, 32);
		assert_memory_equal(priv, kept, 32);
		peer[64] ^= 1;
		assert_int_equal(kx_p256.keygen_shared(priv, pub, out, peer, 64), HS_ERR_BAD_POINT);
		assert_memory_equal(priv, kept, 32);
	}
	cpu_force_portable(0);
}

/* The pair conversion against two single ones, and with r at infinity (rx 0, a still right). */
static void test_point_pair_to_bytes(void **state)
{
	(void)state;
	struct p256_point a, r;
	uint8_t ax[32], ay[32], rx[32], wx[32], wy[32];
	static const uint8_t zero[32];
	p256_sc k = { 5, 0, 0, 0 }, m = { 11, 0, 0, 0 };

	p256_point_mul_base(&a, k);
	p256_point_mul_base(&r, m);
	assert_int_equal(p256_point_pair_to_bytes(ax, ay, &a, rx, &r), 0);
	assert_int_equal(p256_point_to_bytes(wx, wy, &a), 0);
	assert_memory_equal(ax, wx, 32);
	assert_memory_equal(ay, wy, 32);
	assert_int_equal(p256_point_to_bytes(wx, wy, &r), 0);
	assert_memory_equal(rx, wx, 32);
	p256_point_set_infinity(&r);
	memset(rx, 0xaa, 32);
	assert_int_equal(p256_point_pair_to_bytes(ax, ay, &a, rx, &r), UINT64_MAX);
	assert_memory_equal(rx, zero, 32);
	assert_int_equal(p256_point_to_bytes(wx, wy, &a), 0);
	assert_memory_equal(ax, wx, 32);
	assert_memory_equal(ay, wy, 32);
}

/* ---- ECDSA ---- */

struct rfc6979_vec {
	const char *msg;
	int hash; /* digest length: 20, 28 (given as hex), 32, 48, 64 */
	const char *digest_hex; /* for 20 and 28 */
	const char *k, *r, *s;
};

#define RFC6979_D "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
#define RFC6979_U                                                                              \
	"0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"                   \
	"7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"

/*
 * RFC 6979 A.2.5 for 32-, 48- and 64-byte digests. The 20- and 28-byte
 * rows (SHA-1 and SHA-224 digests of the same messages) are NOT the RFC's:
 * the RFC runs its HMAC_DRBG with SHA-1 / SHA-224 there, which hs has no
 * use for; these use HMAC-SHA-256 as hs does, computed with an independent
 * Python model (hashlib, hmac, affine point arithmetic).
 */
static const struct rfc6979_vec rfc6979_vecs[] = {
	{ "sample", 32, NULL,
	  "a6e3c57dd01abe90086538398355dd4c3b17aa873382b0f24d6129493d8aad60",
	  "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716",
	  "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8" },
	{ "test", 32, NULL,
	  "d16b6ae827f17175e040871a1c7ec3500192c4c92677336ec2537acaee0008e0",
	  "f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367",
	  "019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083" },
	{ "sample", 48, NULL,
	  "09f634b188cefd98e7ec88b1aa9852d734d0bc272f7d2a47decc6ebeb375aad4",
	  "0eafea039b20e9b42309fb1d89e213057cbf973dc0cfc8f129edddc800ef7719",
	  "4861f0491e6998b9455193e34e7b0d284ddd7149a74b95b9261f13abde940954" },
	{ "test", 48, NULL,
	  "16aeffa357260b04b1dd199693960740066c1a8f3e8edd79070aa914d361b3b8",
	  "83910e8b48bb0c74244ebdf7f07a1c5413d61472bd941ef3920e623fbccebeb6",
	  "8ddbec54cf8cd5874883841d712142a56a8d0f218f5003cb0296b6b509619f2c" },
	{ "sample", 64, NULL,
	  "5fa81c63109badb88c1f367b47da606da28cad69aa22c4fe6ad7df73a7173aa5",
	  "8496a60b5e9b47c825488827e0495b0e3fa109ec4568fd3f8d1097678eb97f00",
	  "2362ab1adbe2b8adf9cb9edab740ea6049c028114f2460f96554f61fae3302fe" },
	{ "test", 64, NULL,
	  "6915d11632aca3c40d5d51c08daf9c555933819548784480e93499000d9f0b7f",
	  "461d93f31b6540894788fd206c07cfa0cc35f46fa3c91816fff1040ad1581a04",
	  "39af9f15de0db8d97e72719c74820d304ce5226e32dedae67519e840d1194e55" },
	{ "sample", 20, "8151325dcdbae9e0ff95f9f9658432dbedfdb209",
	  "5c999e2e983043e124ac74b6899108c8c7f8eecb3b747a57baa599a552a23378",
	  "3eb8ddc0ac1950f0b92a1456308bc78543a8a76fee7e30cb95dd85ec5c92a6a6",
	  "d959bae95c09890e31b848da6acb2b43e78ca545858900b67743ef3650061ef6" },
	{ "test", 20, "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",
	  "631c91973744139a03ddefc0474b58ce72c45e11194d7e674e2ccbd8df0c34ec",
	  "aba05bcacf26386cad3c3c0a87bf5e5915c8b77c1404e0b8dab246125b0588f5",
	  "3427e387a5dd6c15a24276a8fe596f51de8cd0be9a3ed64374acaefd0f4e84e6" },
	{ "sample", 28, "9003e374bc726550c2c289447fd0533160f875709386dfa377bfd41c",
	  "5ae98f0a7ed7ebc17363c643e3044e1b803a6c0dc480da04920cef677b87029a",
	  "41aac2925693c03ac1b034771ca0435582b420528ecf86ce51322b6d6f82c788",
	  "28f850d0a21284f2cdfd3c2dd86fe9ba789283a56c9a59cdf81fa6fa051cbe64" },
	{ "test", 28, "90a3ed9e32b2aaf4c61c410eb925426119e1a9dc53d4286ade99a809",
	  "5eb4a8ec245baf753721387c4e9126ae049f8d9b651a212ff8db17b3e1a3a2bd",
	  "e86faee5d30fde6982e16cdf54ff67be600dd362889dee0ee5351fab41ec3b27",
	  "899ece7184d9fb7bf258ced9e53327819c6e9dae51b56e191067aeb6f4244a3f" },
};

static size_t vec_digest(const struct rfc6979_vec *v, uint8_t h[64])
{
	size_t len = strlen(v->msg);

	switch (v->hash) {
	case 32:
		sha256(v->msg, len, h);
		return 32;
	case 48:
		sha384(v->msg, len, h);
		return 48;
	case 64:
		sha512(v->msg, len, h);
		return 64;
	default:
		unhex(v->digest_hex, h, (size_t)v->hash);
		return (size_t)v->hash;
	}
}

/* k = s^-1 (e + r d) mod n, from a signature and its key */
static void recover_k(uint8_t k_out[32], const uint8_t sig[64], const uint8_t d_b[32],
		      const uint8_t *h, size_t h_len)
{
	p256_sc r, s, d, e, t, w;

	(void)p256_sc_from_bytes(r, sig);
	(void)p256_sc_from_bytes(s, sig + 32);
	(void)p256_sc_from_bytes(d, d_b);
	p256_sc_from_digest(e, h, h_len);
	p256_sc_to_mont(t, d);
	p256_sc_mont_mul(t, r, t); /* r d */
	p256_sc_add(t, t, e);
	p256_sc_to_mont(w, s);
	p256_sc_inv_mont(w, w);
	p256_sc_mont_mul(t, w, t);
	p256_sc_to_bytes(k_out, t);
}

static void test_rfc6979(void **state)
{
	(void)state;
	uint8_t d[32], pub[65], h[64], sig[64], want[64], k[32], kwant[32], kpub[65];

	unhex(RFC6979_D, d, 32);
	unhex(RFC6979_U, pub, 65);
	for (size_t i = 0; i < sizeof(rfc6979_vecs) / sizeof(rfc6979_vecs[0]); i++) {
		const struct rfc6979_vec *v = &rfc6979_vecs[i];
		size_t hl = vec_digest(v, h);

		assert_int_equal(ecdsa_p256_sign(sig, d, h, hl, 0), 0);
		unhex(v->r, want, 32);
		unhex(v->s, want + 32, 32);
		assert_memory_equal(sig, want, 64);
		/* the nonce: from the signature, and r = x(kG) mod n */
		unhex(v->k, kwant, 32);
		recover_k(k, sig, d, h, hl);
		assert_memory_equal(k, kwant, 32);
		assert_int_equal(p256_public(kpub, kwant), 0);
		assert_int_equal(ecdsa_p256_verify(pub, 65, h, hl, sig), 0);
		/* hedged: a different signature, still valid */
		assert_int_equal(ecdsa_p256_sign(sig, d, h, hl, 1), 0);
		assert_memory_not_equal(sig, want, 64);
		assert_int_equal(ecdsa_p256_verify(pub, 65, h, hl, sig), 0);
	}
}

static void test_sign_bad_key(void **state)
{
	(void)state;
	uint8_t d[32], h[32] = { 1 }, sig[64];
	static const uint8_t zero[64] = { 0 };

	be32_small(d, 0);
	memset(sig, 0xaa, 64);
	assert_int_equal(ecdsa_p256_sign(sig, d, h, 32, 0), HS_ERR_BAD_KEY);
	assert_memory_equal(sig, zero, 64);
	n_minus(d, 0);
	memset(sig, 0xaa, 64);
	assert_int_equal(ecdsa_p256_sign(sig, d, h, 32, 1), HS_ERR_BAD_KEY);
	assert_memory_equal(sig, zero, 64);
	/* n - 1 is a good key */
	n_minus(d, 1);
	assert_int_equal(ecdsa_p256_sign(sig, d, h, 32, 0), 0);
}

static void test_verify_negative(void **state)
{
	(void)state;
	uint8_t d[32], pub[65], h[32], sig[64], bad[64], badpub[65];

	unhex(RFC6979_D, d, 32);
	unhex(RFC6979_U, pub, 65);
	sha256("sample", 6, h);
	assert_int_equal(ecdsa_p256_sign(sig, d, h, 32, 0), 0);
	assert_int_equal(ecdsa_p256_verify(pub, 65, h, 32, sig), 0);
	/* any one bit of r, s or the digest */
	for (int bit = 0; bit < 512; bit += 7) {
		memcpy(bad, sig, 64);
		bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(ecdsa_p256_verify(pub, 65, h, 32, bad), 0);
	}
	h[5] ^= 0x10;
	assert_int_equal(ecdsa_p256_verify(pub, 65, h, 32, sig), HS_ERR_BAD_SIG);
	h[5] ^= 0x10;
	/* r or s zero, n, or n + small */
	memcpy(bad, sig, 64);
	memset(bad, 0, 32);
	assert_int_equal(ecdsa_p256_verify(pub, 65, h, 32, bad), HS_ERR_BAD_SIG);
	memcpy(bad, sig, 64);
	memset(bad + 32, 0, 32);
	assert_int_equal(ecdsa_p256_verify(pub, 65, h, 32, bad), HS_ERR_BAD_SIG);
	memcpy(bad, sig, 64);
	n_minus(bad, 0);
	assert_int_equal(ecdsa_p256_verify(pub, 65, h, 32, bad), HS_ERR_BAD_SIG);
	memcpy(bad, sig, 64);
	n_minus(bad + 32, 0);
	assert_int_equal(ecdsa_p256_verify(pub, 65, h, 32, bad), HS_ERR_BAD_SIG);
	/* s and n - s both verify (no low-s rule) */
	{
		uint8_t nb[32];
		unsigned borrow = 0;

		n_minus(nb, 0);
		memcpy(bad, sig, 64);
		/* bad.s = n - s, byte by byte */
		for (int i = 31; i >= 0; i--) {
			unsigned v = (unsigned)nb[i] - sig[32 + i] - borrow;
			bad[32 + i] = (uint8_t)v;
			borrow = (v >> 8) & 1;
		}
		assert_int_equal(ecdsa_p256_verify(pub, 65, h, 32, bad), 0);
	}
	/* wrong key, bad key encodings */
	unhex("04" GX_HEX GY_HEX, badpub, 65);
	assert_int_equal(ecdsa_p256_verify(badpub, 65, h, 32, sig), HS_ERR_BAD_SIG);
	memcpy(badpub, pub, 65);
	badpub[64] ^= 1;
	assert_int_equal(ecdsa_p256_verify(badpub, 65, h, 32, sig), HS_ERR_BAD_POINT);
	assert_int_equal(ecdsa_p256_verify(pub, 64, h, 32, sig), HS_ERR_BAD_POINT);
	memcpy(badpub, pub, 65);
	badpub[0] = 0x03;
	assert_int_equal(ecdsa_p256_verify(badpub, 65, h, 32, sig), HS_ERR_BAD_POINT);
}

/* ---- DER ---- */

static void der_roundtrip(const char *raw_hex, const char *der_hex)
{
	uint8_t raw[64], der[80], want[80], back[64];
	size_t len = sizeof(der), want_len = strlen(der_hex) / 2;

	unhex(raw_hex, raw, 64);
	unhex(der_hex, want, want_len);
	assert_int_equal(ecdsa_sig_to_der(der, &len, raw), 0);
	assert_int_equal(len, want_len);
	assert_memory_equal(der, want, len);
	assert_int_equal(ecdsa_sig_from_der(back, der, len), 0);
	assert_memory_equal(back, raw, 64);
	/* one byte short of room */
	len = want_len - 1;
	assert_int_equal(ecdsa_sig_to_der(der, &len, raw), HS_ERR_NO_SPACE);
}

static void test_der_encode(void **state)
{
	(void)state;
	/* top bits set: both padded, 72 bytes */
	der_roundtrip("ff" "00000000000000000000000000000000000000000000000000000000000001"
		      "80" "00000000000000000000000000000000000000000000000000000000000002",
		      "3046"
		      "022100ff00000000000000000000000000000000000000000000000000000000000001"
		      "022100"
		      "80" "00000000000000000000000000000000000000000000000000000000000002");
	/* small values lose their leading zeros */
	der_roundtrip("0000000000000000000000000000000000000000000000000000000000000001"
		      "000000000000000000000000000000000000000000000000000000000000007f",
		      "300602010102017f");
	der_roundtrip("0000000000000000000000000000000000000000000000000000000000000080"
		      "0000000000000000000000000000000000000000000000000000000000000000",
		      "300702020080020100");
	der_roundtrip("7f00000000000000000000000000000000000000000000000000000000000001"
		      "0001000000000000000000000000000000000000000000000000000000000001",
		      "3043"
		      "02207f00000000000000000000000000000000000000000000000000000000000001"
		      "021f01000000000000000000000000000000000000000000000000000000000001");
}

static void der_bad(const char *der_hex)
{
	uint8_t der[128], raw[64];
	size_t len = strlen(der_hex) / 2;

	unhex(der_hex, der, len);
	assert_int_equal(ecdsa_sig_from_der(raw, der, len), HS_ERR_BAD_ENCODING);
}

static void test_der_strict(void **state)
{
	(void)state;
	static const uint8_t ok_der[] = { 0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02 };
	uint8_t raw[64];

	assert_int_equal(ecdsa_sig_from_der(raw, ok_der, sizeof(ok_der)), 0);
	der_bad("");
	der_bad("30");
	der_bad("3000");
	der_bad("3006020101020102" "00");   /* trailing byte */
	der_bad("3007020101020102" "00");   /* byte after the integers inside */
	der_bad("3106020101020102");        /* SET, not SEQUENCE */
	der_bad("3006030101020102");        /* BIT STRING, not INTEGER */
	der_bad("3006020101020202");        /* length overruns */
	der_bad("3005020101020102");        /* sequence shorter than contents */
	der_bad("308106020101020102");      /* long-form length, not minimal */
	der_bad("3007028101010201" "02");   /* long-form integer length */
	der_bad("300702020001020102");      /* leading zero not needed */
	der_bad("3006020181020102");        /* negative */
	der_bad("30050200020102");          /* empty integer */
	der_bad("3003020101");              /* one integer */
	der_bad("3009020101020102020103");  /* three integers */
	der_bad("3080020101020102" "0000"); /* indefinite length (BER) */
	/* 33 bytes without a needed zero: too long */
	der_bad("3026" "022101" "0000000000000000000000000000000000000000000000000000000000000000"
		"020101");
	/* 34 bytes even with the zero */
	der_bad("3027" "02220080" "0000000000000000000000000000000000000000000000000000000000000000"
		"020101");
	/* 33 bytes with the one allowed zero: fine */
	{
		uint8_t der[40];
		unhex("3026" "022100"
		      "80000000000000000000000000000000000000000000000000000000000001" "00"
		      "020101", der, 40);
		assert_int_equal(ecdsa_sig_from_der(raw, der, 40), 0);
		assert_int_equal(raw[0], 0x80);
		assert_int_equal(raw[30], 0x01);
		assert_int_equal(raw[31], 0x00);
		assert_int_equal(raw[63], 0x01);
	}
	assert_int_equal(ecdsa_sig_from_der(raw, NULL, 0), HS_ERR_BAD_ENCODING);
}

/* ---- the signature table ---- */

static void test_sig_table(void **state)
{
	(void)state;
	const struct sig *t = &sig_ecdsa_p256_sha256;
	uint8_t d[32], pub[65], sig[HS_SIG_MAX_LEN + 8], raw[64], h[32];
	size_t len = sizeof(sig);
	static const char msg[] = "hs P-256 signature table";
	const uint8_t *m = (const uint8_t *)msg;

	assert_int_equal(t->priv_len, 32);
	assert_int_equal(t->pub_len, 65);
	assert_int_equal(t->max_sig_len, HS_P256_SIG_DER_MAX);
	unhex(RFC6979_D, d, 32);
	unhex(RFC6979_U, pub, 65);
	assert_int_equal(t->sign(sig, &len, d, pub, m, sizeof(msg)), 0);
	assert_true(len >= 8 && len <= HS_P256_SIG_DER_MAX);
	assert_int_equal(t->verify(pub, 65, m, sizeof(msg), sig, len), 0);
	/* it is DER over SHA-256(msg) */
	assert_int_equal(ecdsa_sig_from_der(raw, sig, len), 0);
	sha256(msg, sizeof(msg), h);
	assert_int_equal(ecdsa_p256_verify(pub, 65, h, 32, raw), 0);
	/* other message, trailing byte, truncated */
	assert_int_not_equal(t->verify(pub, 65, m, sizeof(msg) - 1, sig, len), 0);
	sig[len] = 0;
	assert_int_not_equal(t->verify(pub, 65, m, sizeof(msg), sig, len + 1), 0);
	assert_int_not_equal(t->verify(pub, 65, m, sizeof(msg), sig, len - 1), 0);
	/* no room */
	len = 8;
	assert_int_equal(t->sign(sig, &len, d, pub, m, sizeof(msg)), HS_ERR_NO_SPACE);
}

/* ---- backends ---- */

/* field elements that stress carries: 0, 1, p - 1, p - 2^k, sparse and dense limbs */
static void edge_fe(p256_fe a, unsigned i, struct test_rng *rng)
{
	static const p256_fe edges[] = {
		{ 0, 0, 0, 0 },
		{ 1, 0, 0, 0 },
		{ 0xfffffffffffffffeull, 0x00000000ffffffffull, 0, 0xffffffff00000001ull },
		{ 0, 0x00000000ffffffffull, 0, 0xffffffff00000001ull },
		{ 0xffffffffffffffffull, 0xffffffffffffffffull, 0xffffffffffffffffull,
		  0xfffffffe00000001ull },
		{ 0, 0, 0, 0x8000000000000000ull },
		{ 0xffffffffffffffffull, 0, 0xffffffffffffffffull, 0 },
		{ 0x00000000ffffffffull, 0xffffffff00000000ull, 0x00000000ffffffffull, 1 },
	};
	if (i < sizeof(edges) / sizeof(edges[0])) {
		p256_fe_copy(a, edges[i]);
		return;
	}
	test_rng_bytes(rng, a, 32);
	if (a[3] >= 0xffffffff00000001ull) /* keep it below p */
		a[3] = 0xffffffff00000000ull;
}

static void test_backends_agree(void **state)
{
	(void)state;
	struct test_rng rng;
	p256_fe a, b, r1, r2;
	uint8_t d[32], e[32], h[32], pe[65], o1[65], o2[65], z1[32], z2[32], s1[64], s2[64];
	enum { EDGES = 8 };

	/* the inline additions (assembly on x86-64) against their C reference */
	test_rng_init(&rng, 0x256a);
	for (unsigned i = 0; i < 20000; i++) {
		edge_fe(a, i % 64 < EDGES ? i % 64 : EDGES, &rng);
		edge_fe(b, (i / 64) % 64 < EDGES ? (i / 64) % 64 : EDGES, &rng);
		p256_fe_add_c(r1, a, b);
		p256_fe_add(r2, a, b);
		assert_memory_equal(r1, r2, 32);
		p256_fe_sub_c(r1, a, b);
		p256_fe_sub(r2, a, b);
		assert_memory_equal(r1, r2, 32);
		p256_fe_half(r2, a); /* a / 2 + a / 2 = a, and a / 2 < p */
		p256_fe_add(r1, r2, r2);
		assert_memory_equal(r1, a, 32);
		assert_true(r2[3] < 0xffffffff00000001ull || (r2[3] == 0xffffffff00000001ull &&
							      r2[2] == 0 && r2[1] < 0xffffffffull));
		p256_fe_copy(r2, a); /* aliased output */
		p256_fe_add(r2, r2, r2);
		p256_fe_add_c(r1, a, a);
		assert_memory_equal(r1, r2, 32);
	}
	if (!cpu_has(HS_CPU_BMI2 | HS_CPU_ADX)) {
		printf("# p256: no BMI2/ADX here: only the portable field code exists\n");
		skip();
	}
#if defined(HS_HAVE_P256_ADX)
	test_rng_init(&rng, 0x256d);
	for (unsigned i = 0; i < 20000; i++) {
		edge_fe(a, i % 64 < EDGES ? i % 64 : EDGES, &rng);
		edge_fe(b, (i / 64) % 64 < EDGES ? (i / 64) % 64 : EDGES, &rng);
		p256_fe_mul_portable(r1, a, b);
		p256_fe_mul_adx(r2, a, b);
		assert_memory_equal(r1, r2, 32);
		p256_fe_mul_adx_intel(r2, a, b); /* the MULX reduction step */
		assert_memory_equal(r1, r2, 32);
		p256_fe_sqr_portable(r1, a);
		p256_fe_sqr_adx(r2, a);
		assert_memory_equal(r1, r2, 32);
		p256_fe_sqr_adx_intel(r2, a);
		assert_memory_equal(r1, r2, 32);
		/* the same operands mod n (all below n but the top edge ones) */
		if (a[3] >= 0xffffffff00000000ull)
			a[3] = 0xfffffffe00000000ull;
		if (b[3] >= 0xffffffff00000000ull)
			b[3] = 0xfffffffe00000000ull;
		p256_sc_mont_mul_portable(r1, a, b);
		p256_sc_mont_mul_adx(r2, a, b);
		assert_memory_equal(r1, r2, 32);
		p256_sc_mont_sqr_portable(r1, a);
		p256_sc_mont_sqr_adx(r2, a);
		assert_memory_equal(r1, r2, 32);
	}
	/* n - 1 and n - 2 squared and multiplied */
	{
		static const p256_sc n1 = { 0xf3b9cac2fc632550ull, 0xbce6faada7179e84ull,
					       0xffffffffffffffffull, 0xffffffff00000000ull };
		static const p256_sc n2 = { 0xf3b9cac2fc63254full, 0xbce6faada7179e84ull,
					       0xffffffffffffffffull, 0xffffffff00000000ull };
		p256_sc_mont_mul_portable(r1, n1, n2);
		p256_sc_mont_mul_adx(r2, n1, n2);
		assert_memory_equal(r1, r2, 32);
		p256_sc_mont_sqr_portable(r1, n1);
		p256_sc_mont_sqr_adx(r2, n1);
		assert_memory_equal(r1, r2, 32);
	}
	/* whole operations, forced portable and not */
	for (int i = 0; i < 20; i++) {
		test_rng_bytes(&rng, d, 32);
		test_rng_bytes(&rng, e, 32);
		test_rng_bytes(&rng, h, 32);
		d[0] &= 0x7f;
		e[0] &= 0x7f;
		assert_int_equal(p256_public(pe, e), 0);
		cpu_force_portable(1);
		assert_int_equal(p256_public(o1, d), 0);
		assert_int_equal(p256_ecdh(z1, d, pe, 65), 0);
		assert_int_equal(ecdsa_p256_sign(s1, d, h, 32, 0), 0);
		assert_int_equal(ecdsa_p256_verify(o1, 65, h, 32, s1), 0);
		cpu_force_portable(0);
		assert_int_equal(p256_public(o2, d), 0);
		assert_int_equal(p256_ecdh(z2, d, pe, 65), 0);
		assert_int_equal(ecdsa_p256_sign(s2, d, h, 32, 0), 0);
		assert_int_equal(ecdsa_p256_verify(o2, 65, h, 32, s2), 0);
		assert_memory_equal(o1, o2, 65);
		assert_memory_equal(z1, z2, 32);
		assert_memory_equal(s1, s2, 64);
	}
#else
	(void)rng, (void)a, (void)b, (void)r1, (void)r2, (void)d, (void)e, (void)h, (void)pe;
	(void)o1, (void)o2, (void)z1, (void)z2, (void)s1, (void)s2;
#endif
}

#if defined(HS_HAVE_P256_ADX) && defined(HS_TEST_HOOKS)
/* the two forms of crypto/asm/p256_point_adx.c (its own and p256_point_adx_intel.c) */
struct adx_form {
	void (*dbl)(struct p256_jws *w);
	void (*add)(struct p256_jws *w);
	void (*add_affine)(struct p256_jws *w);
	void (*add_cached)(struct p256_jws *w, const p256_fe zz[2]);
	void (*zaddu)(struct p256_jws *w);
	void (*double5)(struct p256_jws *w, struct p256_zlanes *zl, int from_lanes);
	void (*add_affine_ifma)(struct p256_jws *w, struct p256_zlanes *zl, const p256_fe one,
				uint64_t p_inf, uint64_t q_inf);
};

static const struct adx_form adx_forms[] = {
	{ p256_jac_double_adx, p256_jac_add_adx, p256_jac_add_affine_adx, p256_jac_add_cached_adx,
	  p256_jac_zaddu_adx, p256_jac_double5_ifma, p256_jac_add_affine_ifma },
	{ p256_jac_double_adx_intel, p256_jac_add_adx_intel, p256_jac_add_affine_adx_intel,
	  p256_jac_add_cached_adx_intel, p256_jac_zaddu_adx_intel, p256_jac_double5_ifma_intel,
	  p256_jac_add_affine_ifma_intel },
};

/*
 * The mixed addition with the Z chain in lanes against the C one: X3 and
 * Y3 equal, and the lanes' (delta, Z) those of jws_affine_select's choice
 * (p + q's Z1 h, 1 where p is infinity, Z1 where q is; delta = (u Z)^2)
 */
static void check_add_affine_ifma(const struct adx_form *f, const struct p256_jws *b,
				  const p256_fe u, unsigned i, struct test_rng *rng)
{
	struct p256_jws w1 = *b, w2 = *b;
	struct p256_zlanes zl;
	p256_fe one, uu, uz, want_z, want_delta, delta, z;
	uint64_t p_inf = p256_fe_is_zero(b->p[2]), q_inf = (i % 4 == 3) ? ~(uint64_t)0 : 0;

	(void)rng;
	p256_fe_set_one(one);
	p256_fe_sqr(uu, u);
	p256_fe_copy(w2.q[2], uu);
	p256_fe_mul(uz, b->p[2], u);
	p256_fe_sqr(delta, uz);
	p256_zlanes_set(&zl, delta, b->p[2]);
	cpu_force_portable(1);
	p256_fe_select();
	p256_jws_add_c(&w1, 1, NULL);
	cpu_force_portable(0);
	p256_fe_select();
	f->add_affine_ifma(&w2, &zl, one, p_inf, q_inf);
	assert_memory_equal(w1.r[0], w2.r[0], sizeof(w1.r[0]));
	assert_memory_equal(w1.r[1], w2.r[1], sizeof(w1.r[1]));
	p256_fe_copy(want_z, q_inf ? b->p[2] : p_inf ? one : w1.r[2]);
	p256_fe_mul(uz, want_z, u);
	p256_fe_sqr(want_delta, uz);
	p256_zlanes_get(delta, z, &zl);
	assert_memory_equal(z, want_z, sizeof(z));
	assert_memory_equal(delta, want_delta, sizeof(delta));
}
#endif

/*
 * The whole-formula assembly (crypto/asm/p256_point_adx.c) against the C
 * formulas on the portable field code, on the same workspace: random and
 * edge coordinates (they need not be on the curve: the formulas are
 * algebra), q = p and q = -p (h = 0), either point at infinity (Z = 0);
 * the doubling, the three additions and the co-Z addition (ZADDU), in
 * both forms of the assembly.
 */
static void test_point_kernels_agree(void **state)
{
	(void)state;
	if (!cpu_has(HS_CPU_BMI2 | HS_CPU_ADX)) {
		printf("# p256: no BMI2/ADX here: no point assembly\n");
		skip();
	}
#if defined(HS_HAVE_P256_ADX) && defined(HS_TEST_HOOKS)
	enum { EDGES = 8 };
	struct test_rng rng;
	struct p256_jws b, w1, w2, w3;
	struct p256_zlanes zl;
	p256_fe zz[2], delta, z, uz2;
	unsigned double5_runs = 0;

	test_rng_init(&rng, 0x2570);
	for (unsigned i = 0; i < 4000; i++) {
		const struct adx_form *f = &adx_forms[i % 2];

		memset(&b, 0, sizeof(b));
		for (unsigned c = 0; c < 3; c++) {
			unsigned e1 = (i + c) % 32, e2 = (i / 32 + c) % 32;

			edge_fe(b.p[c], e1 < EDGES ? e1 : EDGES, &rng);
			edge_fe(b.q[c], e2 < EDGES ? e2 : EDGES, &rng);
		}
		if (i % 7 == 1) /* q = p, as points and as coordinates */
			memcpy(b.q, b.p, sizeof(b.q));
		if (i % 7 == 2) { /* q = -p */
			memcpy(b.q, b.p, sizeof(b.q));
			p256_fe_neg(b.q[1], b.q[1]);
		}
		if (i % 11 == 3)
			p256_fe_set_zero(b.p[2]);
		if (i % 13 == 4)
			p256_fe_set_zero(b.q[2]);
		/* for the cached addition: q's Z^2 and Z^3 */
		p256_fe_sqr(zz[0], b.q[2]);
		p256_fe_mul(zz[1], zz[0], b.q[2]);
		for (int op = 0; op < 5; op++) {
			w1 = b;
			w2 = b;
			cpu_force_portable(1);
			p256_fe_select();
			if (op == 0)
				p256_jws_double_c(&w1);
			else if (op == 4)
				p256_jws_zaddu_c(&w1); /* q's Z is taken to be p's */
			else
				p256_jws_add_c(&w1, op - 1, zz); /* 0 Jacobian, 1 affine, 2 cached */
			cpu_force_portable(0);
			p256_fe_select();
			if (op == 0) {
				f->dbl(&w2);
				assert_memory_equal(w1.p, w2.p, sizeof(w1.p));
				continue;
			}
			if (op == 4) {
				f->zaddu(&w2);
				assert_memory_equal(w1.p, w2.p, sizeof(w1.p));
				assert_memory_equal(w1.r, w2.r, sizeof(w1.r));
				assert_memory_equal(w1.h, w2.h, sizeof(w1.h));
				continue;
			}
			if (op == 1)
				f->add(&w2);
			else if (op == 2)
				f->add_affine(&w2);
			else
				f->add_cached(&w2, zz);
			assert_memory_equal(w1.r, w2.r, sizeof(w1.r));
			assert_memory_equal(w1.h, w2.h, sizeof(w1.h));
			assert_memory_equal(w1.rr, w2.rr, sizeof(w1.rr));
		}
		/*
		 * five doublings with the IFMA Z chain against five C ones:
		 * with q's Z = 1 the same point; with q's Z = u^2 (the
		 * isomorphic curve's doubling) X and Y of (X, Y, u Z)'s, and
		 * its Z is u times theirs
		 */
		if (cpu_has(HS_P256_DOUBLE5_CPU)) {
			p256_fe u, uz;

			w1 = b;
			w2 = b;
			edge_fe(u, i % 5 == 0 ? (i / 5) % EDGES : EDGES, &rng);
			if (i % 2 == 0)
				p256_fe_set_one(u);
			p256_fe_mul(w1.p[2], b.p[2], u);
			p256_fe_sqr(w2.q[2], u);
			cpu_force_portable(1);
			p256_fe_select();
			for (int j = 0; j < 5; j++)
				p256_jws_double_c(&w1);
			cpu_force_portable(0);
			p256_fe_select();
			f->double5(&w2, &zl, 0);
			assert_memory_equal(w1.p[0], w2.p[0], sizeof(w1.p[0]));
			assert_memory_equal(w1.p[1], w2.p[1], sizeof(w1.p[1]));
			p256_fe_mul(uz, w2.p[2], u);
			assert_memory_equal(w1.p[2], uz, sizeof(uz));
			/* the lanes hold the fifth doubling's delta = (u Z)^2 and Z */
			p256_zlanes_get(delta, z, &zl);
			assert_memory_equal(z, w2.p[2], sizeof(z));
			p256_fe_sqr(uz2, uz);
			assert_memory_equal(delta, uz2, sizeof(delta));
			/* the same doublings with delta and Z given in the lanes */
			w3 = b;
			p256_fe_sqr(w3.q[2], u);
			p256_fe_mul(uz, b.p[2], u);
			p256_fe_sqr(uz2, uz);
			p256_zlanes_set(&zl, uz2, b.p[2]);
			p256_fe_set_zero(w3.p[2]); /* not read */
			f->double5(&w3, &zl, 1);
			assert_memory_equal(w3.p, w2.p, sizeof(w3.p));
			p256_zlanes_get(delta, z, &zl);
			assert_memory_equal(z, w2.p[2], sizeof(z));
			check_add_affine_ifma(f, &b, u, i, &rng);
			double5_runs++;
		}
	}
	if (!cpu_has(HS_P256_DOUBLE5_CPU))
		printf("# p256: no AVX-512 IFMA/VL here: the IFMA doublings were not run\n");
	else
		assert_int_equal(double5_runs, 4000);
#else
	printf("# p256: built without test hooks: no C reference to compare with\n");
	skip();
#endif
}

/*
 * The AVX2 fixed-base table scan against the portable one: every row and
 * every index (0 gives zeros), then k G for edge scalars (0, 1, 2, n - 1,
 * n - 2, window boundaries) forced portable and not.
 */
static void test_lookup_backends_agree(void **state)
{
	(void)state;
	if (!cpu_has(HS_CPU_AVX2)) {
		printf("# p256: no AVX2 here: only the portable table scan exists\n");
		skip();
	}
#if defined(HS_HAVE_P256_AVX2)
	static const uint8_t zero[32];
	struct p256_affine a, b;
	uint8_t d[32], o1[65], o2[65];

	for (unsigned w = 0; w < HS_P256_BASE_WINDOWS; w++) {
		for (uint32_t j = 0; j <= HS_P256_BASE_ENTRIES; j++) {
			memset(&a, 0x55, sizeof(a));
			memset(&b, 0xaa, sizeof(b));
			p256_lookup_portable(&a, p256_base_table[w], HS_P256_BASE_ENTRIES, j);
			p256_lookup_avx2(&b, p256_base_table[w], HS_P256_BASE_ENTRIES, j);
			assert_memory_equal(&a, &b, sizeof(a));
			if (cpu_has(HS_CPU_AVX512F)) {
				memset(&b, 0xaa, sizeof(b));
				p256_lookup_avx512(&b, p256_base_table[w], HS_P256_BASE_ENTRIES, j);
				assert_memory_equal(&a, &b, sizeof(a));
			}
			if (j == 0)
				assert_memory_equal(&a, zero, 32);
			else
				assert_memory_equal(&a, &p256_base_table[w][j - 1], sizeof(a));
		}
	}
	/* p256_point_mul's row of 16: random tables, every index (0 gives zeros) */
	{
		struct test_rng rng;
		struct p256_affine vt[HS_P256_VAR_ENTRIES], r1, r2;

		test_rng_init(&rng, 0x256e);
		for (int round = 0; round < 20; round++) {
			test_rng_bytes(&rng, vt, sizeof(vt));
			for (uint32_t j = 0; j <= HS_P256_VAR_ENTRIES; j++) {
				memset(&r1, 0x55, sizeof(r1));
				p256_lookup_portable(&r1, vt, HS_P256_VAR_ENTRIES, j);
				memset(&r2, 0xaa, sizeof(r2));
				p256_lookup_avx2(&r2, vt, HS_P256_VAR_ENTRIES, j);
				assert_memory_equal(&r1, &r2, sizeof(r1));
				if (cpu_has(HS_CPU_AVX512F)) {
					memset(&r2, 0xaa, sizeof(r2));
					p256_lookup_avx512(&r2, vt, HS_P256_VAR_ENTRIES, j);
					assert_memory_equal(&r1, &r2, sizeof(r1));
				}
				if (j == 0) {
					assert_memory_equal(r1.x, zero, 32);
					assert_memory_equal(r1.y, zero, 32);
				} else {
					assert_memory_equal(&r1, &vt[j - 1], sizeof(r1));
				}
			}
		}
	}
	for (int i = 0; i < 16 + 2 * HS_P256_BASE_WINDOWS; i++) {
		/* i < 8: 1..8; i < 16: n-1..n-8; then 2^(w - 1) 2^(w k) and k + 1 */
		memset(d, 0, 32);
		if (i < 8) {
			d[31] = (uint8_t)(i + 1);
		} else if (i < 16) {
			unhex(N_HEX, d, 32);
			d[31] = (uint8_t)(d[31] - (i - 7));
		} else {
			unsigned bit = HS_P256_BASE_W - 1 +
				       HS_P256_BASE_W * (unsigned)((i - 16) / 2);

			if (bit > 255)
				bit = 255;
			d[31 - bit / 8] = (uint8_t)(1u << (bit % 8));
			if (i % 2)
				d[31] |= 1;
		}
		cpu_force_portable(1);
		assert_int_equal(p256_public(o1, d), 0);
		cpu_force_portable(0);
		assert_int_equal(p256_public(o2, d), 0);
		assert_memory_equal(o1, o2, 65);
	}
#endif
}

#if defined(HS_HAVE_P256_IFMA)
/* k's 7-bit window i (bits 7i .. 7i + 6, the top one 4 bits) = v */
static void set_window(p256_sc k, unsigned i, unsigned v)
{
	for (unsigned b = 0; b < HS_P256_BASE_W && HS_P256_BASE_W * i + b < 256; b++) {
		unsigned bit = HS_P256_BASE_W * i + b;
		uint64_t m = (uint64_t)1 << (bit % 64);

		k[bit / 64] = ((v >> b) & 1) ? k[bit / 64] | m : k[bit / 64] & ~m;
	}
}

/*
 * The signed 7-bit digits p256_point_mul_base gives the IFMA sum, made
 * here from k mod n by plain integer steps: d_i in [-63, 64].
 */
static void base_digits(int8_t d[HS_P256_BASE_WINDOWS], const p256_sc k)
{
	static const p256_sc zero = { 0, 0, 0, 0 };
	p256_sc kr;
	int carry = 0;

	p256_sc_add(kr, k, zero); /* k mod n */
	for (unsigned i = 0; i < HS_P256_BASE_WINDOWS; i++) {
		int v = carry;

		for (unsigned b = 0; b < HS_P256_BASE_W; b++) {
			unsigned bit = HS_P256_BASE_W * i + b;

			if (bit < 256)
				v += (int)((kr[bit / 64] >> (bit % 64)) & 1) << b;
		}
		carry = v > 64;
		d[i] = (int8_t)(v - (carry << HS_P256_BASE_W));
	}
	assert_int_equal(carry, 0);
}

/*
 * k G forced portable, through the dispatch and by p256_mul_base_ifma
 * itself: the same affine point (infinity as (0 : 1 : 0)).
 */
static void check_base_backends(const p256_sc k)
{
	struct p256_point r1, r2, r3;
	uint8_t a[64], b[64], c[64];
	int8_t d[HS_P256_BASE_WINDOWS];
	uint64_t inf1, inf2, inf3;

	cpu_force_portable(1);
	p256_point_mul_base(&r1, k);
	cpu_force_portable(0);
	memset(&r2, 0x5a, sizeof(r2));
	p256_point_mul_base(&r2, k);
	base_digits(d, k);
	memset(&r3, 0xa5, sizeof(r3));
	p256_mul_base_ifma(&r3, d);
	inf1 = p256_point_to_bytes(a, a + 32, &r1);
	inf2 = p256_point_to_bytes(b, b + 32, &r2);
	inf3 = p256_point_to_bytes(c, c + 32, &r3);
	assert_true(inf1 == inf2 && inf1 == inf3);
	assert_true(inf3 == p256_point_is_infinity(&r3));
	assert_memory_equal(a, b, 64);
	assert_memory_equal(a, c, 64);
	if (inf1)
		assert_memory_equal(&r1, &r3, sizeof(r1)); /* (0 : 1 : 0) both */
	/* verification's variant reads the same entries directly: the same bits */
	memset(&r2, 0x3c, sizeof(r2));
	p256_mul_base_ifma_vartime(&r2, d);
	assert_memory_equal(&r2, &r3, sizeof(r2));
}
#endif

/*
 * The eight-lane IFMA fixed-base sum against the portable path: edge
 * scalars (0, 1, 2, n - 2 .. n + 1, 2^256 - 1), every digit 64 or -63,
 * only one lane's windows nonzero (the other seven lanes stay infinity
 * into the tree), one lane's windows all zero, the scalars nearest to the
 * tree's equal-points case, and random ones with random zero windows.
 */
static void test_base_ifma_agrees(void **state)
{
	(void)state;
#if defined(HS_HAVE_P256_IFMA)
	static const unsigned run_start[9] = { 0, 5, 10, 15, 20, 25, 29, 33, 37 };
	static const char *const near_equal[] = {
		/* n + 2 ((-n mod 2^140) - 2^140), the same for 2^133 */
		"ffffffff00000000ffffffffffffe0004319055258e8617b0c46353d039cdaaf",
		"ffffffff00000000ffffffffffffffc04319055258e8617b0c46353d039cdaaf",
	};
	struct test_rng rng;
	uint8_t kb[32];
	p256_sc k;

	if (!cpu_has(HS_P256_IFMA_CPU)) {
		printf("# p256: no AVX-512 IFMA here: the fixed base runs the portable sum\n");
		skip();
	}
	for (uint64_t v = 0; v < 3; v++) {
		sc_small(k, v);
		check_base_backends(k);
	}
	for (unsigned v = 0; v < 3; v++) { /* n - 2, n - 1, n */
		n_minus(kb, 2 - v);
		p256_sc_from_bytes(k, kb);
		check_base_backends(k);
	}
	memset(k, 0xff, sizeof(k));
	check_base_backends(k);
	for (unsigned v = 64; v <= 65; v++) {
		memset(k, 0, sizeof(k));
		for (unsigned i = 0; i < HS_P256_BASE_WINDOWS; i++)
			set_window(k, i, v);
		check_base_backends(k);
	}
	for (unsigned i = 0; i < 2; i++) {
		unhex(near_equal[i], kb, 32);
		p256_sc_from_bytes(k, kb);
		check_base_backends(k);
	}
	test_rng_init(&rng, 0x256f);
	for (unsigned l = 0; l < 8; l++) {
		for (int rep = 0; rep < 8; rep++) {
			/* lane l alone, then every lane but l */
			memset(k, 0, sizeof(k));
			for (unsigned i = run_start[l]; i < run_start[l + 1]; i++)
				set_window(k, i, (unsigned)test_rng_below(&rng, 128));
			check_base_backends(k);
			test_rng_bytes(&rng, k, sizeof(k));
			for (unsigned i = run_start[l]; i < run_start[l + 1]; i++)
				set_window(k, i, rep % 2 ? 0 : 127);
			check_base_backends(k);
		}
	}
	for (int it = 0; it < 600; it++) {
		test_rng_bytes(&rng, k, sizeof(k));
		if (it % 2)
			for (unsigned i = 0; i < HS_P256_BASE_WINDOWS; i++)
				if (test_rng_below(&rng, 3) == 0)
					set_window(k, i, test_rng_below(&rng, 2) ? 0 : 64);
		check_base_backends(k);
	}
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field),
		cmocka_unit_test(test_scalar),
		cmocka_unit_test(test_inversions_match_reference),
		cmocka_unit_test(test_public_known),
		cmocka_unit_test(test_base_table),
		cmocka_unit_test(test_mul_consistency),
		cmocka_unit_test(test_mul_other_point),
		cmocka_unit_test(test_mul_double_vartime),
		cmocka_unit_test(test_ecdh_known),
		cmocka_unit_test(test_ecdh_bad_points),
		cmocka_unit_test(test_keygen),
		cmocka_unit_test(test_keygen_shared),
		cmocka_unit_test(test_point_pair_to_bytes),
		cmocka_unit_test(test_rfc6979),
		cmocka_unit_test(test_sign_bad_key),
		cmocka_unit_test(test_verify_negative),
		cmocka_unit_test(test_der_encode),
		cmocka_unit_test(test_der_strict),
		cmocka_unit_test(test_sig_table),
		cmocka_unit_test(test_backends_agree),
		cmocka_unit_test(test_lookup_backends_agree),
		cmocka_unit_test(test_point_kernels_agree),
		cmocka_unit_test(test_base_ifma_agrees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
