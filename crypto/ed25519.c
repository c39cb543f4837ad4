/*
 * Ed25519 (RFC 8032 5.1, pure: no context, no prehash) and its signature
 * table entry.
 *
 * Implementation notes:
 * - Key expansion (5.1.5): h = SHA-512(seed); the scalar a is the clamped
 *   first half of h, the nonce prefix its second half. Both are secret and
 *   wiped, with the nonce r and every hash state that saw them.
 * - Signing (5.1.6) is deterministic: r = SHA-512(prefix || M) mod L,
 *   R = r B, k = SHA-512(R || A || M) mod L, S = r + k a mod L. Everything
 *   that touches a, prefix or r is constant time (fixed-base table scan,
 *   Barrett reduction with masked subtractions); only the message length
 *   is observable. The caller's public key is trusted to match the seed
 *   (ed25519_sign's contract): recomputing it would double the cost.
 * - Verification (5.1.7) uses public data only and may take variable time.
 *   It rejects S >= L, a public key that does not decode strictly
 *   (y >= p, not on the curve, x = 0 with the sign bit set), and R with
 *   y >= p; then it checks the cofactorless equation S B = R + k A by
 *   encoding S B - k A and comparing with the R bytes. Our encodings are
 *   canonical, so an R that does not decode can never compare equal.
 * - Errors: a public key that does not decode is HS_ERR_BAD_ENCODING;
 *   anything wrong with the signature (range, encoding, equation) is
 *   HS_ERR_BAD_SIG.
 */
#include "crypto/ed25519.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/ge25519.h"
#include "crypto/rand.h"
#include "crypto/sc25519.h"
#include "crypto/sha2.h"
#include "crypto/sig.h"

/* h = SHA-512(seed), first half clamped into the secret scalar a. */
static void expand_seed(uint8_t h[64], const uint8_t seed[32])
{
	sha512(seed, 32, h);
	h[0] &= 248;
	h[31] &= 127;
	h[31] |= 64;
}

/* out = SHA-512(a || b || msg) mod L */
static void hash_mod_l(uint8_t out[32], const uint8_t a[32], const uint8_t *b, const void *msg,
		       size_t msg_len)
{
	struct sha512 ctx;
	uint8_t h[64];

	sha512_init(&ctx);
	sha512_update(&ctx, a, 32);
	if (b)
		sha512_update(&ctx, b, 32);
	sha512_update(&ctx, msg, msg_len);
	sha512_final(&ctx, h);
	sc_reduce64(out, h);
	wipe(&ctx, sizeof(ctx));
	wipe(h, sizeof(h));
}

int ed25519_public(uint8_t pub[32], const uint8_t seed[32])
{
	uint8_t h[64];
	struct ge_ext A;

	expand_seed(h, seed);
	ge_scalarmult_base(&A, h);
	ge_tobytes(pub, &A);
	wipe(h, sizeof(h));
	wipe(&A, sizeof(A));
	return 0;
}

int ed25519_keygen(uint8_t seed[32], uint8_t pub[32])
{
	int err = rand_bytes(seed, 32);

	if (err)
		return err;
	return ed25519_public(pub, seed);
}

/* sig must not overlap msg: R is written before msg is hashed again. */
int ed25519_sign(uint8_t sig[64], const uint8_t seed[32], const uint8_t pub[32],
		    const void *msg, size_t msg_len)
{
	uint8_t h[64], r[32], k[32];
	struct ge_ext R;

	expand_seed(h, seed);
	hash_mod_l(r, h + 32, NULL, msg, msg_len);  /* r = H(prefix || M) mod L */
	ge_scalarmult_base(&R, r);
	ge_tobytes(sig, &R);
	hash_mod_l(k, sig, pub, msg, msg_len);      /* k = H(R || A || M) mod L */
	sc_muladd(sig + 32, k, h, r);            /* S = k a + r mod L */
	wipe(h, sizeof(h));
	wipe(r, sizeof(r));
	wipe(&R, sizeof(R));
	return 0;
}

int ed25519_verify(const uint8_t pub[32], const void *msg, size_t msg_len,
		      const uint8_t sig[64])
{
	struct ge_ext A;
	struct ge_proj check;
	uint8_t k[32], enc[32];

	/* RFC 8032 5.1.7 step 1: "If any of the decodings fail (including S
	 * being out of range), the signature is invalid." */
	if (!sc_is_canonical(sig + 32))
		return HS_ERR_BAD_SIG;
	if (fe_bytes_noncanonical(sig))
		return HS_ERR_BAD_SIG;
	if (ge_frombytes(&A, pub))
		return HS_ERR_BAD_ENCODING;
	hash_mod_l(k, sig, pub, msg, msg_len);      /* step 2 */
	ge_neg(&A);
	ge_double_scalarmult_vartime(&check, k, &A, sig + 32); /* S B - k A */
	ge_proj_tobytes(enc, &check);
	if (memcmp(enc, sig, 32) != 0)              /* = R ? (public data) */
		return HS_ERR_BAD_SIG;
	return 0;
}

/* The table's sign(): capacity check, then Ed25519 into 64 bytes. */
static int sig_ed25519_sign(uint8_t *sig, size_t *sig_len, const void *priv,
			    const uint8_t *pub, const uint8_t *msg, size_t msg_len)
{
	int err;

	if (*sig_len < 64)
		return HS_ERR_NO_SPACE;
	err = ed25519_sign(sig, priv, pub, msg, msg_len);
	if (err)
		return err;
	*sig_len = 64;
	return 0;
}

/* The table's verify(): a key must be 32 bytes, a signature 64. */
static int sig_ed25519_verify(const uint8_t *pub, size_t pub_len, const uint8_t *msg,
			      size_t msg_len, const uint8_t *sig, size_t sig_len)
{
	if (pub_len != 32)
		return HS_ERR_BAD_ENCODING;
	if (sig_len != 64)
		return HS_ERR_BAD_SIG;
	return ed25519_verify(pub, msg, msg_len, sig);
}

const struct sig sig_ed25519 = {
	.name = "ed25519",
	.priv_len = 32,
	.pub_len = 32,
	.max_sig_len = 64,
	.sign = sig_ed25519_sign,
	.verify = sig_ed25519_verify,
};
