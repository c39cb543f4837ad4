/*
 * Proves X25519 matches RFC 7748: the section 5.2 vectors (including the
 * top bit of u being ignored), the iterated test after 1 and 1,000 steps
 * (and 1,000,000 with HS_SLOW_TESTS=1: about a minute of CPU, so run it as
 * `HS_SLOW_TESTS=1 meson test x25519 --timeout-multiplier 20`), and the
 * section 6.1 Diffie-Hellman example; that non-canonical u (>= p) is
 * reduced rather than rejected; that every low-order input gives
 * HS_ERR_ZERO_SHARED with zero bytes written; that the public key taken
 * through the Edwards fixed-base table equals the ladder on u = 9; that
 * the field inversion (safegcd) equals Fermat's f^(p-2) on random, edge
 * and non-canonical elements; and that the kx_x25519 table checks lengths
 * and agrees with itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/cpu.h"
#include "crypto/fe25519.h"
#include "crypto/kx.h"
#include "crypto/x25519.h"
#include "testutil.h"

static void unhex32(const char *hex, uint8_t out[32])
{
	assert_int_equal(hex_decode_to(hex, out, 32), 0);
}

static void check_x25519(const char *k_hex, const char *u_hex, const char *out_hex)
{
	uint8_t k[32], u[32], want[32], out[32];

	unhex32(k_hex, k);
	unhex32(u_hex, u);
	unhex32(out_hex, want);
	assert_int_equal(x25519(out, k, u), 0);
	assert_memory_equal(out, want, 32);
}

/* RFC 7748 5.2, the two single-shot vectors. */
static void test_rfc7748_vectors(void **state)
{
	(void)state;
	check_x25519("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
		     "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
		     "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552");
	/* this u has its top bit set (…93): it must be ignored */
	check_x25519("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
		     "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
		     "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957");
	check_x25519("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
		     "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a413",
		     "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957");
}

/* RFC 7748 5.2 iterated: k, u = X25519(k, u), k starting from k = u = 9. */
static void test_rfc7748_iterated(void **state)
{
	(void)state;
	uint8_t k[32] = { 9 }, u[32] = { 9 }, r[32], want[32];
	const char *slow = getenv("HS_SLOW_TESTS");
	unsigned n = (slow && strcmp(slow, "1") == 0) ? 1000000 : 1000;

	for (unsigned i = 1; i <= n; i++) {
		assert_int_equal(x25519(r, k, u), 0);
		memcpy(u, k, 32);
		memcpy(k, r, 32);
		if (i == 1) {
			unhex32("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079",
				want);
			assert_memory_equal(k, want, 32);
		} else if (i == 1000) {
			unhex32("684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51",
				want);
			assert_memory_equal(k, want, 32);
		}
	}
	if (n == 1000000) {
		unhex32("7c3911e0ab2586fd864497297e575e6f3bc601c0883c30df5f4dd2d24f665424", want);
		assert_memory_equal(k, want, 32);
	}
}

/* RFC 7748 6.1: both public keys and the shared secret, from both sides. */
static void test_rfc7748_dh(void **state)
{
	(void)state;
	uint8_t a[32], b[32], a_pub[32], b_pub[32], want[32], s1[32], s2[32];

	unhex32("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a", a);
	unhex32("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb", b);
	assert_int_equal(x25519_public(a_pub, a), 0);
	unhex32("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a", want);
	assert_memory_equal(a_pub, want, 32);
	assert_int_equal(x25519_public(b_pub, b), 0);
	unhex32("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f", want);
	assert_memory_equal(b_pub, want, 32);
	assert_int_equal(x25519(s1, a, b_pub), 0);
	assert_int_equal(x25519(s2, b, a_pub), 0);
	unhex32("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742", want);
	assert_memory_equal(s1, want, 32);
	assert_memory_equal(s2, want, 32);
}

/* u and u + p (both < 2^255) are the same point: RFC 7748 5 says accept. */
static void test_noncanonical_u(void **state)
{
	(void)state;
	uint8_t k[32], u[32], u_big[32], r1[32], r2[32];

	unhex32("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4", k);
	for (unsigned small = 2; small < 19; small++) {
		/* u_big = small + p = 2^255 - 19 + small: ed+small ff .. ff 7f */
		memset(u, 0, 32);
		u[0] = (uint8_t)small;
		memset(u_big, 0xff, 32);
		u_big[0] = (uint8_t)(0xed + small);
		u_big[31] = 0x7f;
		int e1 = x25519(r1, k, u), e2 = x25519(r2, k, u_big);
		assert_int_equal(e1, e2);
		assert_memory_equal(r1, r2, 32);
		/* the ignored top bit changes nothing either */
		u_big[31] = 0xff;
		assert_int_equal(x25519(r2, k, u_big), e1);
		assert_memory_equal(r1, r2, 32);
	}
}

/* Low-order points (and their non-canonical twins) give an all-zero secret. */
static void test_zero_shared(void **state)
{
	(void)state;
	static const char *const low_order[] = {
		"0000000000000000000000000000000000000000000000000000000000000000", /* 0 */
		"0100000000000000000000000000000000000000000000000000000000000000", /* 1 */
		/* the two points of order 8 */
		"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
		"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
		/* non-canonical encodings of 0 and 1, and -1 (order 2 on the twist) */
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p */
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p + 1 */
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p - 1 */
		/* p - 1 again, with the ignored top bit set */
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	};
	uint8_t k[32], u[32], out[32], zero[32] = { 0 };

	unhex32("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a", k);
	for (size_t i = 0; i < sizeof(low_order) / sizeof(low_order[0]); i++) {
		unhex32(low_order[i], u);
		memset(out, 0xaa, 32);
		assert_int_equal(x25519(out, k, u), HS_ERR_ZERO_SHARED);
		assert_memory_equal(out, zero, 32);
	}
}

/* The kx table: sizes, peer length check, and two parties agree. */
static void test_kx_table(void **state)
{
	(void)state;
	const struct kx *kx = &kx_x25519;
	uint8_t a[32], b[32], a_pub[32], b_pub[33], s1[32], s2[32], pub[32];

	assert_string_equal(kx->name, "x25519");
	assert_int_equal(kx->priv_len, 32);
	assert_int_equal(kx->pub_len, 32);
	assert_int_equal(kx->shared_len, 32);
	assert_int_equal(kx->keygen(a, a_pub), 0);
	assert_int_equal(kx->keygen(b, b_pub), 0);
	assert_int_equal(x25519_public(pub, a), 0);
	assert_memory_equal(pub, a_pub, 32);
	assert_memory_not_equal(a, b, 32);
	assert_int_equal(kx->shared(s1, a, b_pub, 32), 0);
	assert_int_equal(kx->shared(s2, b, a_pub, 32), 0);
	assert_memory_equal(s1, s2, 32);
	assert_int_equal(kx->shared(s1, a, b_pub, 31), HS_ERR_BAD_ENCODING);
	assert_int_equal(kx->shared(s1, a, b_pub, 33), HS_ERR_BAD_ENCODING);
	assert_int_equal(kx->shared(s1, a, b_pub, 0), HS_ERR_BAD_ENCODING);
}

/*
 * keygen_shared (one inversion for the key pair and the secret) against
 * x25519_public and x25519 on the key it drew, on both backends: random
 * peers, every low-order point of test_zero_shared (zero secret, the key
 * pair still right), and bad lengths.
 */
static void test_keygen_shared(void **state)
{
	(void)state;
	static const char *const low_order[] = {
		"0000000000000000000000000000000000000000000000000000000000000000",
		"0100000000000000000000000000000000000000000000000000000000000000",
		"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	};
	const struct kx *kx = &kx_x25519;
	struct test_rng rng;
	uint8_t priv[32], pub[32], out[32], peer[33], want[32], zero[32] = { 0 };

	test_rng_init(&rng, 0x25519);
	for (int portable = 0; portable < 2; portable++) {
		cpu_force_portable(portable);
		for (int i = 0; i < 40 + 4; i++) {
			int want_err = 0;

			if (i < 40) {
				test_rng_bytes(&rng, peer, 32);
			} else {
				unhex32(low_order[i - 40], peer);
				want_err = HS_ERR_ZERO_SHARED;
			}
			memset(out, 0xaa, 32);
			assert_int_equal(kx->keygen_shared(priv, pub, out, peer, 32), want_err);
			assert_int_equal(x25519_public(want, priv), 0);
			assert_memory_equal(pub, want, 32);
			assert_int_equal(x25519(want, priv, peer), want_err);
			assert_memory_equal(out, want, 32);
			if (want_err)
				assert_memory_equal(out, zero, 32);
		}
		assert_int_equal(kx->keygen_shared(priv, pub, out, peer, 31), HS_ERR_BAD_ENCODING);
		assert_int_equal(kx->keygen_shared(priv, pub, out, peer, 33), HS_ERR_BAD_ENCODING);
	}
	cpu_force_portable(0);
}

/* The public key (Edwards fixed-base table, mapped to u) equals the ladder on u = 9. */
static void test_public_matches_ladder(void **state)
{
	(void)state;
	static const uint8_t nine[32] = { 9 };
	struct test_rng rng;
	uint8_t k[32], p1[32], p2[32];

	test_rng_init(&rng, 0x7748);
	for (int i = 0; i < 300; i++) {
		test_rng_bytes(&rng, k, 32);
		if (i == 0)
			memset(k, 0, 32);
		if (i == 1)
			memset(k, 0xff, 32);
		assert_int_equal(x25519_public(p1, k), 0);
		assert_int_equal(x25519(p2, k, nine), 0);
		assert_memory_equal(p1, p2, 32);
	}
}

/*
 * Every backend gives the portable ladder's bytes: random scalars against
 * random u (top bit set or not), the non-canonical u in [p, 2^255), the
 * low-order points u = 0 and u = 1, and all-ones / all-zero scalars.
 * Skipped (trivially equal) on CPUs without an accelerated ladder.
 */
static void check_backend(const uint8_t k[32], const uint8_t u[32])
{
	uint8_t fast[32], ref[32];
	int e1, e2;

	/* the public key too (fixed-base backend) */
	cpu_force_portable(0);
	assert_int_equal(x25519_public(fast, k), 0);
	cpu_force_portable(1);
	assert_int_equal(x25519_public(ref, k), 0);
	assert_memory_equal(fast, ref, 32);

	cpu_force_portable(0);
	e1 = x25519(fast, k, u);
	cpu_force_portable(1);
	e2 = x25519(ref, k, u);
	cpu_force_portable(0);
	assert_int_equal(e1, e2);
	assert_memory_equal(fast, ref, 32);
}

static void test_backend_matches_portable(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t k[32], u[32];

	test_rng_init(&rng, 0x25519);
	for (int i = 0; i < 3000; i++) {
		test_rng_bytes(&rng, k, 32);
		test_rng_bytes(&rng, u, 32);
		switch (i % 8) {
		case 0: /* p + small: non-canonical */
			memset(u, 0xff, 32);
			u[0] = (uint8_t)(0xed + (i / 8) % 19);
			u[31] = 0x7f;
			break;
		case 1: /* u = 0 or 1: low order, all-zero secret */
			memset(u, 0, 32);
			u[0] = (uint8_t)((i / 8) & 1);
			break;
		case 2:
			memset(k, (i / 8) & 1 ? 0xff : 0x00, 32);
			break;
		case 3: /* all ones u (bit 255 ignored) */
			memset(u, 0xff, 32);
			break;
		default:
			break;
		}
		check_backend(k, u);
	}
}

/*
 * fe_invert (safegcd divsteps; the C and the x86-64 CMOV batches) against
 * each other and against Fermat, f^(p-2) = (f^((p-5)/8))^8 f^3
 * through fe_pow22523's chain, compared by their canonical bytes; and
 * f (1/f) = 1 for f != 0. Inputs: 0, 1, p - 1, p, p + 1, 2^255 - 1 and
 * other values >= p, small and power-of-two values, limbs at 2^54 - 1
 * (the widest fe_mul accepts), and random limbs below 2^51 and 2^54.
 */
static void check_invert(const struct fe25519 *f)
{
	struct fe25519 inv, ref, t;
	uint8_t a[32], b[32], one[32] = { 1 };

	/* the C divsteps (forced portable), then the CMOV ones where there are */
	cpu_force_portable(1);
	fe_invert(&inv, f);
	cpu_force_portable(0);
	fe_invert(&t, f);
	fe_tobytes(a, &inv);
	fe_tobytes(b, &t);
	assert_memory_equal(a, b, 32);
	fe_pow22523(&ref, f);
	fe_sq_n(&ref, &ref, 3);
	fe_sq(&t, f);
	fe_mul(&t, &t, f);
	fe_mul(&ref, &ref, &t);
	fe_tobytes(a, &inv);
	fe_tobytes(b, &ref);
	assert_memory_equal(a, b, 32);
	fe_mul(&t, &inv, f);
	fe_tobytes(a, &t);
	if (!fe_iszero_mask(f))
		assert_memory_equal(a, one, 32);
	else
		assert_true(fe_iszero_mask(&inv) == UINT64_MAX);
}

static void test_invert_matches_fermat(void **state)
{
	(void)state;
	static const char *const edge[] = {
		"0000000000000000000000000000000000000000000000000000000000000000",
		"0100000000000000000000000000000000000000000000000000000000000000",
		"0200000000000000000000000000000000000000000000000000000000000000",
		"1300000000000000000000000000000000000000000000000000000000000000",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p - 1 */
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p */
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p + 1 */
		"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* 2^255 - 1 */
		"0000000000000000000000000000000000000000000000000000000000000040", /* 2^254 */
		"0000000000000000000000000000000000000000000000000000000000000001", /* 2^248 */
		"0000000000000000000000000000000000000000000000000000000000000080", /* 2^255: 0 */
	};
	struct test_rng rng;
	struct fe25519 f;
	uint8_t s[32];

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		unhex32(edge[i], s);
		fe_frombytes(&f, s);
		check_invert(&f);
	}
	for (int k = 0; k < 5; k++)
		f.v[k] = (UINT64_C(1) << 54) - 1;
	check_invert(&f);
	for (int k = 0; k < 5; k++)
		f.v[k] = FE_MASK51; /* 2^255 - 1 as limbs */
	check_invert(&f);
	test_rng_init(&rng, 0xfe1);
	for (int i = 0; i < 2000; i++) {
		test_rng_bytes(&rng, (uint8_t *)f.v, sizeof(f.v));
		for (int k = 0; k < 5; k++)
			f.v[k] &= i % 2 ? (UINT64_C(1) << 54) - 1 : FE_MASK51;
		check_invert(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc7748_vectors),
		cmocka_unit_test(test_keygen_shared),
		cmocka_unit_test(test_rfc7748_iterated),
		cmocka_unit_test(test_rfc7748_dh),
		cmocka_unit_test(test_noncanonical_u),
		cmocka_unit_test(test_zero_shared),
		cmocka_unit_test(test_kx_table),
		cmocka_unit_test(test_public_matches_ladder),
		cmocka_unit_test(test_backend_matches_portable),
		cmocka_unit_test(test_invert_matches_fermat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
