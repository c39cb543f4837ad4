/*
 * Implementation notes: P-256 key generation and ECDH (SEC 1 3.3.1).
 *
 * - The peer's point is public and fully validated before use (length 65,
 *   SEC 1 uncompressed prefix 0x04, x and y below p, y^2 = x^3 - 3x + b).
 *   The curve has prime order and cofactor 1, so a point on the curve
 *   other than infinity (which has no 65-byte encoding) has order n.
 * - The private key check (0 < d < n) and the "result is infinity" check
 *   are masks, not branches: a bad key is replaced by 1 for the
 *   computation, the output is zeroed under the mask, and the error code
 *   is selected with a mask. Only the returned code tells them apart.
 * - p256_keygen draws 32 bytes until they form a key in [1, n-1]
 *   (rejection sampling, uniform; a retry happens with probability about
 *   2^-32). The retry branch reveals only that a discarded candidate was
 *   out of range; tests/ct/ct_p256.supp lists it as an accepted leak.
 * - p256_keygen_shared (a TLS server's step: a key pair, then the secret
 *   with the client's share) converts both points to affine with one
 *   inversion (p256_point_pair_to_bytes); the peer is validated first.
 */
#include "crypto/p256.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/kx.h"
#include "crypto/p256_point.h"
#include "crypto/rand.h"

/* (uint8_t)mask applied to n bytes: zero them unless mask is all-ones. */
static void mask_bytes(uint8_t *p, size_t n, uint64_t mask)
{
	for (size_t i = 0; i < n; i++)
		p[i] &= (uint8_t)mask;
}

/* mask ? err : 0, chosen without a branch */
static int err_if(uint64_t mask, int err)
{
	return (int)ct_select_u32((uint32_t)mask, (uint32_t)err, 0);
}

/* d = priv if it is in [1, n-1], else 1; returns the validity mask. */
static uint64_t load_private(p256_sc d, const uint8_t priv[32])
{
	static const p256_sc one = { 1, 0, 0, 0 };
	uint64_t ok = p256_sc_from_bytes(d, priv);

	p256_sc_cmov(d, one, ~ok);
	return ok;
}

static int decode_peer(struct p256_point *q, const uint8_t *pub, size_t pub_len)
{
	if (pub == NULL || pub_len != HS_P256_PUB_LEN || pub[0] != 0x04)
		return HS_ERR_BAD_POINT;
	return p256_point_from_bytes(q, pub + 1, pub + 33);
}

int p256_check_public(const uint8_t *pub, size_t pub_len)
{
	struct p256_point q;

	p256_fe_select();
	return decode_peer(&q, pub, pub_len);
}

int p256_public(uint8_t pub[65], const uint8_t priv[32])
{
	struct p256_point r;
	p256_sc d;
	uint64_t ok = load_private(d, priv);

	p256_fe_select();
	p256_point_mul_base(&r, d);
	pub[0] = 0x04;
	(void)p256_point_to_bytes(pub + 1, pub + 33, &r); /* d != 0 mod n: never infinity */
	mask_bytes(pub, HS_P256_PUB_LEN, ok);
	wipe(d, sizeof(d));
	wipe(&r, sizeof(r));
	return err_if(~ok, HS_ERR_BAD_KEY);
}

/*
 * A random private key in [1, n-1] to priv and d. Not inlined: the one
 * accepted leak (whether a discarded candidate was out of range) is this
 * function's branch, which tests/ct/ct_p256.supp names.
 */
static __attribute__((noinline)) int draw_private(uint8_t priv[32], p256_sc d)
{
	for (;;) {
		int err = rand_bytes(priv, 32);

		if (err) {
			wipe(priv, 32);
			return err;
		}
		if (p256_sc_from_bytes(d, priv))
			return 0;
	}
}

int p256_keygen(uint8_t priv[32], uint8_t pub[65])
{
	p256_sc d;
	int err = draw_private(priv, d);

	wipe(d, sizeof(d));
	return err ? err : p256_public(pub, priv);
}

int p256_ecdh(uint8_t out[32], const uint8_t priv[32], const uint8_t *peer, size_t peer_len)
{
	struct p256_point q, r;
	p256_sc d;
	uint8_t y[32];
	uint64_t ok, inf;
	int err;

	memset(out, 0, 32);
	p256_fe_select();
	err = decode_peer(&q, peer, peer_len);
	if (err)
		return err;
	ok = load_private(d, priv);
	p256_point_mul(&r, d, &q);
	inf = p256_point_to_bytes(out, y, &r); /* cannot happen: q has order n */
	mask_bytes(out, 32, ok & ~inf);
	wipe(d, sizeof(d));
	wipe(&r, sizeof(r));
	wipe(y, sizeof(y));
	return err_if(~ok, HS_ERR_BAD_KEY) | err_if(ok & inf, HS_ERR_ZERO_SHARED);
}

int p256_keygen_shared(uint8_t priv[32], uint8_t pub[65], uint8_t out[32], const uint8_t *peer,
		       size_t peer_len)
{
	struct p256_point q, a, r;
	p256_sc d;
	uint64_t inf;
	int err;

	memset(out, 0, 32);
	p256_fe_select();
	err = decode_peer(&q, peer, peer_len);
	if (err == 0)
		err = draw_private(priv, d);
	if (err) {
		wipe(d, sizeof(d));
		return err;
	}
	p256_point_mul_base(&a, d);
	p256_point_mul(&r, d, &q);
	pub[0] = 0x04;
	inf = p256_point_pair_to_bytes(pub + 1, pub + 33, &a, out, &r); /* cannot happen */
	wipe(d, sizeof(d));
	wipe(&a, sizeof(a));
	wipe(&r, sizeof(r));
	return err_if(inf, HS_ERR_ZERO_SHARED);
}

const struct kx kx_p256 = {
	.name = "secp256r1",
	.priv_len = 32,
	.pub_len = HS_P256_PUB_LEN,
	.shared_len = 32,
	.keygen = p256_keygen,
	.shared = p256_ecdh,
	.keygen_shared = p256_keygen_shared,
};
