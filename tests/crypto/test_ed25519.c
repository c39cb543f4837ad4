/*
 * Proves Ed25519 matches RFC 8032: the section 7.1 vectors (TEST 1, 2, 3,
 * 1024 and SHA(abc)) give the published public keys and signatures and
 * verify, while any flipped signature bit, a changed message or a changed
 * key fails. Also proves the strict checks of 5.1.7 (S >= L, non-canonical
 * or off-curve A, x = 0 with sign 1, non-canonical R), the precomputed base
 * point tables (every entry, against the table-free variable-base code),
 * the scalar arithmetic mod L on edge values, and the sig_ed25519 table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/cpu.h"
#include "crypto/ed25519.h"
#include "crypto/ge25519.h"
#include "crypto/sc25519.h"
#include "crypto/sig.h"
#include "testutil.h"

/* L, the group order, and L - 1, little-endian (RFC 8032 5.1) */
#define Z32 "0000000000000000000000000000000000000000000000000000000000000000"
#define L_HEX "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"
#define LM1_HEX "ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"

struct rfc_vector {
	const char *name, *seed, *pub, *msg, *sig;
};

/* RFC 8032 7.1 */
static const struct rfc_vector rfc8032[] = {
	{ "TEST 1", "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
	  "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
	  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bac"
	  "c61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b" },
	{ "TEST 2", "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
	  "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
	  "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e"
	  "458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00" },
	{ "TEST 3", "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
	  "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
	  "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290"
	  "ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a" },
	{ "TEST 1024", "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
	  "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
		"08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12"
		"ee50f8f54e9f77b1e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe57"
		"38829adb26c81b37c93a1b270b20329d658675fc6ea534e0810a4432826bf58c941efb65d57a338b"
		"bd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a7363c344fe6b199ee5d02e82d522c4fe"
		"ba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e06203b33890cc9b8"
		"32f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc10"
		"3b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53"
		"f1d8ac70bdcb7ed185ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2"
		"d17ba70eb6248e594e1a2297acbbb39d502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6"
		"079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f27088d78b7e883c8759d2c4f5c65adb7553"
		"878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089beccf80cfe2df16a2"
		"cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba"
		"b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae078"
		"4504df543af8969be3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8"
		"fcffead94f3c7ca495e056a9b47acdb751fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301"
		"651339e22904cc8c42f58c30c04aafdb038dda0847dd988dcda6f3bfd15c4b4c4525004aa06eeff8"
		"ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34dff7310fdc82aebfd9"
		"04b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7"
		"984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a"
		"3ca8e1b939ae49e488acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a3"
		"2ef5b52a1ecc820e308aa342721aac0943bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a4"
		"3dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5fb93246f6b1116398a346f1a641f3b041"
		"e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f1610e4eafe595f6d9d9"
		"0d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d"
		"b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef"
		"68d3a101e8a3b8cac60c905c15fc910840b94c00a0b9d0",
	  "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f45"
	  "28ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03" },
	{ "TEST SHA(abc)", "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
	  "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
	  "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a8"
	  "36ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
	  "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ec"
	  "fdfbc7c66431e0303dca179c138ac17ad9bef1177331a704" },
};

#define N_RFC (sizeof(rfc8032) / sizeof(rfc8032[0]))

struct decoded {
	uint8_t seed[32], pub[32], sig[64];
	uint8_t *msg;
	size_t msg_len;
};

static void decode_vector(const struct rfc_vector *v, struct decoded *d)
{
	assert_int_equal(hex_decode_to(v->seed, d->seed, 32), 0);
	assert_int_equal(hex_decode_to(v->pub, d->pub, 32), 0);
	assert_int_equal(hex_decode_to(v->sig, d->sig, 64), 0);
	d->msg = hex_decode(v->msg, &d->msg_len);
	assert_non_null(d->msg);
}

static void test_rfc8032_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_RFC; i++) {
		struct decoded d;
		uint8_t pub[32], sig[64];

		decode_vector(&rfc8032[i], &d);
		print_message("%s (%zu-byte message)\n", rfc8032[i].name, d.msg_len);
		assert_int_equal(ed25519_public(pub, d.seed), 0);
		assert_memory_equal(pub, d.pub, 32);
		assert_int_equal(ed25519_sign(sig, d.seed, d.pub, d.msg, d.msg_len), 0);
		assert_memory_equal(sig, d.sig, 64);
		assert_int_equal(ed25519_verify(d.pub, d.msg, d.msg_len, d.sig), 0);
		free(d.msg);
	}
}

/* An empty message may be passed as NULL (TEST 1 again). */
static void test_null_empty_message(void **state)
{
	(void)state;
	struct decoded d;
	uint8_t sig[64];

	decode_vector(&rfc8032[0], &d);
	assert_int_equal(ed25519_sign(sig, d.seed, d.pub, NULL, 0), 0);
	assert_memory_equal(sig, d.sig, 64);
	assert_int_equal(ed25519_verify(d.pub, NULL, 0, sig), 0);
	free(d.msg);
}

/* Every single-bit change of the signature, a changed message, a changed key: rejected. */
static void test_rfc8032_tampered(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_RFC; i++) {
		struct decoded d;
		uint8_t bad[64], pub[32];

		decode_vector(&rfc8032[i], &d);
		for (int bit = 0; bit < 512; bit++) {
			memcpy(bad, d.sig, 64);
			bad[bit / 8] ^= (uint8_t)(1 << (bit % 8));
			assert_int_not_equal(ed25519_verify(d.pub, d.msg, d.msg_len, bad), 0);
		}
		if (d.msg_len > 0) {
			d.msg[d.msg_len / 2] ^= 0x10;
			assert_int_equal(ed25519_verify(d.pub, d.msg, d.msg_len, d.sig),
					 HS_ERR_BAD_SIG);
			d.msg[d.msg_len / 2] ^= 0x10;
			assert_int_equal(ed25519_verify(d.pub, d.msg, d.msg_len - 1, d.sig),
					 HS_ERR_BAD_SIG);
		} else {
			assert_int_equal(ed25519_verify(d.pub, "x", 1, d.sig), HS_ERR_BAD_SIG);
		}
		for (int bit = 0; bit < 256; bit += 7) {
			memcpy(pub, d.pub, 32);
			pub[bit / 8] ^= (uint8_t)(1 << (bit % 8));
			assert_int_not_equal(ed25519_verify(pub, d.msg, d.msg_len, d.sig), 0);
		}
		/* another vector's key */
		assert_int_equal(hex_decode_to(rfc8032[(i + 1) % N_RFC].pub, pub, 32), 0);
		assert_int_equal(ed25519_verify(pub, d.msg, d.msg_len, d.sig), HS_ERR_BAD_SIG);
		free(d.msg);
	}
}

static void unhex(const char *hex, uint8_t *out, size_t n)
{
	assert_int_equal(hex_decode_to(hex, out, n), 0);
}

/* RFC 8032 5.1.7 strictness, one rule at a time. */
static void test_verify_strict(void **state)
{
	(void)state;
	static const char ident[] = /* the identity (0, 1) */
		"0100000000000000000000000000000000000000000000000000000000000000";
	struct decoded d;
	uint8_t sig[64], pub[32];
	unsigned carry = 0;

	decode_vector(&rfc8032[2], &d); /* TEST 3 */

	/* S = L, and S + L (the same S mod L): out of range */
	memcpy(sig, d.sig, 32);
	unhex(L_HEX, sig + 32, 32);
	assert_int_equal(ed25519_verify(d.pub, d.msg, d.msg_len, sig), HS_ERR_BAD_SIG);
	uint8_t l[32];
	unhex(L_HEX, l, 32);
	memcpy(sig, d.sig, 64);
	for (int i = 0; i < 32; i++) {
		carry += (unsigned)sig[32 + i] + l[i];
		sig[32 + i] = (uint8_t)carry;
		carry >>= 8;
	}
	assert_int_equal(carry, 0);
	assert_int_equal(ed25519_verify(d.pub, d.msg, d.msg_len, sig), HS_ERR_BAD_SIG);

	/* A with y = p (non-canonical 0) and y = p + 1 (non-canonical identity) */
	unhex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", pub, 32);
	assert_int_equal(ed25519_verify(pub, d.msg, d.msg_len, d.sig), HS_ERR_BAD_ENCODING);
	unhex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", pub, 32);
	assert_int_equal(ed25519_verify(pub, d.msg, d.msg_len, d.sig), HS_ERR_BAD_ENCODING);
	/* A = identity with the sign bit set: x = 0, x_0 = 1 */
	unhex("0100000000000000000000000000000000000000000000000000000000000080", pub, 32);
	assert_int_equal(ed25519_verify(pub, d.msg, d.msg_len, d.sig), HS_ERR_BAD_ENCODING);
	/* y = 2: (y^2 - 1)/(d y^2 + 1) is not a square, no point */
	unhex("0200000000000000000000000000000000000000000000000000000000000000", pub, 32);
	assert_int_equal(ed25519_verify(pub, d.msg, d.msg_len, d.sig), HS_ERR_BAD_ENCODING);

	/* A = R = identity, S = 0: 0 B = R + k A holds, cofactorless, valid */
	unhex(ident, pub, 32);
	memset(sig, 0, 64);
	unhex(ident, sig, 32);
	assert_int_equal(ed25519_verify(pub, "edge", 4, sig), 0);
	/* the same R written non-canonically (y = p + 1): must be refused */
	unhex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", sig, 32);
	assert_int_equal(ed25519_verify(pub, "edge", 4, sig), HS_ERR_BAD_SIG);
	/* R = identity with the sign bit set */
	unhex("0100000000000000000000000000000000000000000000000000000000000080", sig, 32);
	assert_int_equal(ed25519_verify(pub, "edge", 4, sig), HS_ERR_BAD_SIG);
	free(d.msg);
}

/* Encodings of a B through the table and through the table-free path. */
static void check_base_mult(const uint8_t s[32])
{
	static const uint8_t zero[32];
	uint8_t b_enc[32], e1[32], e2[32];
	struct ge_ext b, p;
	struct ge_proj q;

	unhex("5866666666666666666666666666666666666666666666666666666666666666", b_enc, 32);
	assert_int_equal(ge_frombytes(&b, b_enc), 0);
	ge_scalarmult_base(&p, s);
	ge_tobytes(e1, &p);
	ge_double_scalarmult_vartime(&q, s, &b, zero); /* uses no table */
	ge_proj_tobytes(e2, &q);
	assert_memory_equal(e1, e2, 32);
}

/*
 * Each comb entry (k + 1) 256^j B is reached by a scalar with the single
 * nonzero byte k + 1 at position j (digits 8 also exercise the negated
 * entry); each odd-multiple entry (2k + 1) B by the scalar 2k + 1.
 */
static void test_base_tables(void **state)
{
	(void)state;
	static const uint8_t zero[32];
	uint8_t s[32], b_enc[32], e1[32], e2[32];
	struct ge_ext b;
	struct ge_proj q;
	struct test_rng rng;

	for (int j = 0; j < 32; j++) {
		for (int k = 0; k < 8; k++) {
			memset(s, 0, 32);
			s[j] = (uint8_t)(k + 1);
			if (j == 31)
				s[j] &= 0x7f;
			check_base_mult(s);
			s[j] = (uint8_t)((k + 1) << 4); /* the odd-digit half of the comb */
			if (j < 31 || k < 7) /* below 2^255 */
				check_base_mult(s);
		}
	}
	unhex("5866666666666666666666666666666666666666666666666666666666666666", b_enc, 32);
	assert_int_equal(ge_frombytes(&b, b_enc), 0);
	for (int k = 0; k < 32; k++) {
		memset(s, 0, 32);
		s[0] = (uint8_t)(2 * k + 1);
		ge_double_scalarmult_vartime(&q, zero, &b, s); /* ge_base_odd */
		ge_proj_tobytes(e1, &q);
		ge_double_scalarmult_vartime(&q, s, &b, zero); /* runtime multiples */
		ge_proj_tobytes(e2, &q);
		assert_memory_equal(e1, e2, 32);
	}
	/* 1 B encodes as B, 0 B as the identity */
	memset(s, 0, 32);
	s[0] = 1;
	ge_scalarmult_base(&b, s);
	ge_tobytes(e1, &b);
	assert_memory_equal(e1, b_enc, 32);
	s[0] = 0;
	ge_scalarmult_base(&b, s);
	ge_tobytes(e1, &b);
	unhex("0100000000000000000000000000000000000000000000000000000000000000", e2, 32);
	assert_memory_equal(e1, e2, 32);
	/* random scalars below 2^255, and all-ones digits */
	test_rng_init(&rng, 0xed25519);
	for (int i = 0; i < 64; i++) {
		test_rng_bytes(&rng, s, 32);
		s[31] &= 0x7f;
		check_base_mult(s);
	}
	memset(s, 0x88, 32);
	s[31] = 0x7f;
	check_base_mult(s);
	memset(s, 0xff, 32);
	s[31] = 0x7f;
	check_base_mult(s);
}

static void check_reduce(const char *in_hex, const char *want_hex)
{
	uint8_t in[64], out[32], want[32];

	unhex(in_hex, in, 64);
	unhex(want_hex, want, 32);
	sc_reduce64(out, in);
	assert_memory_equal(out, want, 32);
}

/* Scalar arithmetic on the edges of Barrett's estimate (values from Python). */
static void test_scalars(void **state)
{
	(void)state;
	uint8_t a[32], out[32], want[32], s[32];

	check_reduce(Z32 Z32, Z32);
	check_reduce(L_HEX Z32, Z32);
	check_reduce(LM1_HEX Z32, LM1_HEX);
	/* 2^512 - 1 */
	check_reduce("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
		     "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
		     "000f9c44e31106a447938568a71b0ed065bef517d273ecce3d9a307c1b419903");
	/* L 2^259, a multiple of L near the top */
	check_reduce(Z32 "689faee7d21893c0b2e6bc17f5cef7a600000000000000000000000000000080",
		     Z32);
	/* q L - 1 for the largest q with q L < 2^512 */
	check_reduce("fef063bb1ceef95bb86c7a9758e4f12f9a410ae82d8c1331c265cf83e4be66fc"
		     "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
		     LM1_HEX);
	/* (2^256 - 1)^2 + 2^256 - 1 */
	memset(a, 0xff, 32);
	sc_muladd(out, a, a, a);
	unhex("d14df91389432c25ad60ff9791b9fd1d67bef517d273ecce3d9a307c1b419903", want, 32);
	assert_memory_equal(out, want, 32);
	/* 0 * x + (L - 1) = L - 1; 1 * (L - 1) + 1 = 0 */
	memset(a, 0, 32);
	unhex(LM1_HEX, s, 32);
	sc_muladd(out, a, s, s);
	assert_memory_equal(out, s, 32);
	a[0] = 1;
	sc_muladd(out, a, s, a);
	memset(want, 0, 32);
	assert_memory_equal(out, want, 32);

	unhex(LM1_HEX, s, 32);
	assert_true(sc_is_canonical(s));
	unhex(L_HEX, s, 32);
	assert_false(sc_is_canonical(s));
	s[0]++;
	assert_false(sc_is_canonical(s));
	memset(s, 0, 32);
	assert_true(sc_is_canonical(s));
	s[31] = 0x10; /* 2^252 < L */
	assert_true(sc_is_canonical(s));
	s[31] = 0x11;
	assert_false(sc_is_canonical(s));
	s[31] = 0x0f;
	memset(s, 0xff, 31);
	assert_true(sc_is_canonical(s));
}

/* The signature table: sizes, capacity, lengths; keygen round trip. */
static void test_sig_table(void **state)
{
	(void)state;
	const struct sig *sg = &sig_ed25519;
	uint8_t seed[32], pub[32], pub2[32], sig[72];
	size_t len;
	static const uint8_t msg[] = "table";

	assert_string_equal(sg->name, "ed25519");
	assert_int_equal(sg->priv_len, 32);
	assert_int_equal(sg->pub_len, 32);
	assert_int_equal(sg->max_sig_len, 64);
	assert_int_equal(ed25519_keygen(seed, pub), 0);
	assert_int_equal(ed25519_public(pub2, seed), 0);
	assert_memory_equal(pub, pub2, 32);

	len = 63;
	assert_int_equal(sg->sign(sig, &len, seed, pub, msg, sizeof(msg)), HS_ERR_NO_SPACE);
	len = sizeof(sig);
	assert_int_equal(sg->sign(sig, &len, seed, pub, msg, sizeof(msg)), 0);
	assert_int_equal(len, 64);
	assert_int_equal(sg->verify(pub, 32, msg, sizeof(msg), sig, 64), 0);
	assert_int_equal(sg->verify(pub, 31, msg, sizeof(msg), sig, 64), HS_ERR_BAD_ENCODING);
	assert_int_equal(sg->verify(pub, 33, msg, sizeof(msg), sig, 64), HS_ERR_BAD_ENCODING);
	assert_int_equal(sg->verify(pub, 32, msg, sizeof(msg), sig, 63), HS_ERR_BAD_SIG);
	assert_int_equal(sg->verify(pub, 32, msg, sizeof(msg), sig, 65), HS_ERR_BAD_SIG);
	assert_int_equal(sg->verify(pub, 32, msg, sizeof(msg) - 1, sig, 64), HS_ERR_BAD_SIG);
	/* a signature by another key does not verify under this one */
	assert_int_equal(ed25519_keygen(seed, pub2), 0);
	len = 64;
	assert_int_equal(sg->sign(sig, &len, seed, pub2, msg, sizeof(msg)), 0);
	assert_int_equal(sg->verify(pub, 32, msg, sizeof(msg), sig, 64), HS_ERR_BAD_SIG);
	assert_int_equal(sg->verify(pub2, 32, msg, sizeof(msg), sig, 64), 0);
}

/*
 * The fixed-base backend (AVX-512 IFMA where the CPU has it) gives the
 * portable code's public keys and signatures, bit for bit, on random seeds
 * and messages (the all-zero and all-ones seeds included).
 */
static void test_backend_matches_portable(void **state)
{
	(void)state;
	struct test_rng rng;
	uint8_t seed[32], pub1[32], pub2[32], msg[64], sig1[64], sig2[64];

	test_rng_init(&rng, 0xed25519);
	for (int i = 0; i < 1000; i++) {
		test_rng_bytes(&rng, seed, 32);
		test_rng_bytes(&rng, msg, sizeof(msg));
		if (i < 2)
			memset(seed, i ? 0xff : 0, 32);
		cpu_force_portable(0);
		assert_int_equal(ed25519_public(pub1, seed), 0);
		assert_int_equal(ed25519_sign(sig1, seed, pub1, msg, (size_t)i % 65), 0);
		cpu_force_portable(1);
		assert_int_equal(ed25519_public(pub2, seed), 0);
		assert_int_equal(ed25519_sign(sig2, seed, pub2, msg, (size_t)i % 65), 0);
		cpu_force_portable(0);
		assert_memory_equal(pub1, pub2, 32);
		assert_memory_equal(sig1, sig2, 64);
	}
}

/*
 * Verification's double-scalar multiplication a A + b B, dispatched (AVX-512
 * IFMA where the CPU has it) against portable: the same encoding for
 * random scalars below 2^253 and points A = c B plus a point of small
 * order (so A need not lie in the prime-order subgroup, as a public key
 * need not), edge scalars (0, 1, L - 1) included; and the same verdicts
 * on good and damaged signatures.
 */
static void test_verify_backend_matches_portable(void **state)
{
	(void)state;
	/* a point of order 8 (y of RFC 8032's small-order examples), encoded */
	static const uint8_t tors[32] = {
		0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10,
		0x67, 0x0f, 0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77,
		0x92, 0xac, 0x03, 0x7a,
	};
	static const uint8_t l_minus_1[32] = {
		0xec, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9,
		0xde, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x10,
	};
	struct test_rng rng;
	struct ge_ext A, T;
	struct ge_proj r1, r2;
	uint8_t a[32], b[32], c[32], enc[32], e1[32], e2[32];
	uint8_t seed[32], pub[32], msg[48], sig[64];

	test_rng_init(&rng, 0xed2551f);
	assert_int_equal(ge_frombytes(&T, tors), 0);
	for (int i = 0; i < 400; i++) {
		test_rng_bytes(&rng, a, 32);
		test_rng_bytes(&rng, b, 32);
		test_rng_bytes(&rng, c, 32);
		a[31] &= 0x1f;
		b[31] &= 0x1f;
		c[31] &= 0x1f;
		if (i % 8 == 1)
			memset(a, 0, 32);
		if (i % 8 == 2)
			memcpy(b, l_minus_1, 32);
		if (i % 8 == 3) {
			memset(b, 0, 32);
			b[0] = 1;
		}
		ge_scalarmult_base(&A, c);
		ge_tobytes(enc, &A);
		if (i % 2) { /* A = c B + T, through the portable code and the encoding */
			cpu_force_portable(1);
			ge_double_scalarmult_vartime(&r1, (const uint8_t[32]){ 1 }, &T, c);
			cpu_force_portable(0);
			ge_proj_tobytes(enc, &r1);
		}
		assert_int_equal(ge_frombytes(&A, enc), 0);
		cpu_force_portable(1);
		ge_double_scalarmult_vartime(&r1, a, &A, b);
		cpu_force_portable(0);
		ge_double_scalarmult_vartime(&r2, a, &A, b);
		ge_proj_tobytes(e1, &r1);
		ge_proj_tobytes(e2, &r2);
		assert_memory_equal(e1, e2, 32);
	}
	/* verdicts: good, then one flipped bit in the message, R, S or the key */
	for (int i = 0; i < 200; i++) {
		int v1, v2;

		test_rng_bytes(&rng, seed, 32);
		test_rng_bytes(&rng, msg, sizeof(msg));
		assert_int_equal(ed25519_public(pub, seed), 0);
		assert_int_equal(ed25519_sign(sig, seed, pub, msg, sizeof(msg)), 0);
		switch (i % 4) {
		case 1:
			msg[test_rng_below(&rng, sizeof(msg))] ^= 1;
			break;
		case 2:
			sig[test_rng_below(&rng, 64)] ^= (uint8_t)(1u << test_rng_below(&rng, 8));
			break;
		case 3:
			pub[test_rng_below(&rng, 32)] ^= (uint8_t)(1u << test_rng_below(&rng, 8));
			break;
		default:
			break;
		}
		cpu_force_portable(1);
		v1 = ed25519_verify(pub, msg, sizeof(msg), sig);
		cpu_force_portable(0);
		v2 = ed25519_verify(pub, msg, sizeof(msg), sig);
		assert_int_equal(v1, v2);
		if (i % 4 == 0)
			assert_int_equal(v1, 0);
		else
			assert_int_not_equal(v1, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc8032_vectors),
		cmocka_unit_test(test_null_empty_message),
		cmocka_unit_test(test_rfc8032_tampered),
		cmocka_unit_test(test_verify_strict),
		cmocka_unit_test(test_base_tables),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_sig_table),
		cmocka_unit_test(test_backend_matches_portable),
		cmocka_unit_test(test_verify_backend_matches_portable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
