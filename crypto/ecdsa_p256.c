/*
 * Implementation notes: ECDSA over P-256 (SEC 1 4.1.3 sign, 4.1.4 verify)
 * with RFC 6979 nonces, and the ECDSA-P256-SHA256 signature table.
 *
 * - The nonce k comes from RFC 6979 section 3.2: HMAC_DRBG seeded with
 *   int2octets(d) || bits2octets(h1), over HMAC with the digest's own hash
 *   as the RFC does (SHA-384 / SHA-512 for 48- / 64-byte digests,
 *   SHA-256 for any other length, which covers TLS's only use); with
 *   hedged != 0, 32 fresh random bytes are appended to that seed as the
 *   "additional data" k' of section 3.6, so a broken RNG still leaves a
 *   deterministic, safe nonce and a good one protects against faults.
 * - s = k^-1 (e + r d) mod n with Montgomery scalars; 1/k by constant-time
 *   safegcd (p256_sc_inv_mont).
 * - The candidate loop (RFC 6979 3.2 step h, continued when r or s is 0
 *   as section 3.4 allows) branches on whether the candidate was usable.
 *   That reveals only that a discarded k was out of range or gave r = 0
 *   or s = 0 (probability about 2^-32, and r and s are public anyway).
 *   The branch lives alone in sign_loop(); everything it calls is
 *   noinline so tests/ct/ct_p256.supp can accept exactly that branch.
 * - A private key outside [1, n-1] is handled by masks as in p256_ecdh.c.
 * - Verification is on public data only and branches freely (variable
 *   time by design). It checks 0 < r, s < n, inverts s (safegcd),
 *   computes R = u1 G + u2 Q with the variable-time Jacobian / wNAF code
 *   of p256_point.c and compares x(R) mod n with r without a field
 *   inversion: X == r Z, or X == (r + n) Z when r + n < p.
 */
#include "crypto/p256.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/hash.h"
#include "crypto/hmac.h"
#include "crypto/p256_point.h"
#include "crypto/rand.h"
#include "crypto/sig.h"

#define NOINLINE __attribute__((noinline))

/*
 * HMAC_DRBG state of RFC 6979 section 3.2: K and V are hlen bytes, H the
 * hash that made the digest (RFC 6979 2.4 uses one hash for both).
 */
struct drbg {
	const struct hash *h;
	size_t hlen;
	uint8_t k[HS_HASH_MAX_LEN], v[HS_HASH_MAX_LEN];
};

/* n big-endian, and p - n (r + n < p iff r < p - n) */
static const uint8_t n_bytes[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84,
	0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
};
static const uint8_t p_minus_n[32] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x43, 0x19, 0x05, 0x53, 0x58, 0xe8, 0x61, 0x7b,
	0x0c, 0x46, 0x35, 0x3d, 0x03, 0x9c, 0xda, 0xae,
};

/*
 * The digest's hash, guessed from its length (the API takes only bytes):
 * SHA-384 and SHA-512 for 48 and 64 bytes, SHA-256 for every other length.
 */
static const struct hash *drbg_hash(size_t digest_len)
{
	if (digest_len == HS_SHA384_LEN)
		return hash_sha384();
	if (digest_len == HS_SHA512_LEN)
		return hash_sha512();
	return hash_sha256();
}

/* out = HMAC_K(V || sep || a || b || c); sep < 0: no separator byte. */
static void drbg_hmac(const struct drbg *g, uint8_t *out, int sep, const uint8_t *a,
		      const uint8_t *b, const uint8_t *c)
{
	struct hmac m;
	uint8_t s = (uint8_t)sep;

	hmac_init(&m, g->h, g->k, g->hlen);
	hmac_update(&m, g->v, g->hlen);
	if (sep >= 0)
		hmac_update(&m, &s, 1);
	if (a != NULL)
		hmac_update(&m, a, 32);
	if (b != NULL)
		hmac_update(&m, b, 32);
	if (c != NULL)
		hmac_update(&m, c, 32);
	hmac_final(&m, out);
}

/* RFC 6979 3.2 steps b-g; x = int2octets(d), h = bits2octets(h1), extra = k' or NULL. */
static void drbg_init(struct drbg *g, size_t digest_len, const uint8_t x[32],
		      const uint8_t h[32], const uint8_t *extra)
{
	g->h = drbg_hash(digest_len);
	g->hlen = g->h->digest_len;
	memset(g->v, 0x01, g->hlen);
	memset(g->k, 0x00, g->hlen);
	drbg_hmac(g, g->k, 0x00, x, h, extra);
	drbg_hmac(g, g->v, -1, NULL, NULL, NULL);
	drbg_hmac(g, g->k, 0x01, x, h, extra);
	drbg_hmac(g, g->v, -1, NULL, NULL, NULL);
}

/*
 * Step h: V = HMAC_K(V). hlen >= qlen = 256 bits, so T = V and
 * bits2int(T) is its first 32 bytes.
 */
static NOINLINE void drbg_next(struct drbg *g, uint8_t t[32])
{
	drbg_hmac(g, g->v, -1, NULL, NULL, NULL);
	memcpy(t, g->v, 32);
}

/* Step h, candidate rejected: K = HMAC_K(V || 0x00); V = HMAC_K(V). */
static NOINLINE void drbg_reject(struct drbg *g)
{
	drbg_hmac(g, g->k, 0x00, NULL, NULL, NULL);
	drbg_hmac(g, g->v, -1, NULL, NULL, NULL);
}

/*
 * One signing attempt with nonce bytes kb: sig = r || s. Returns all-ones
 * if k was in [1, n-1] and r, s are both nonzero, else 0. Constant time.
 */
static NOINLINE uint64_t sign_with_nonce(uint8_t sig[64], const uint8_t kb[32],
					 const p256_sc d, const p256_sc e)
{
	static const p256_sc one = { 1, 0, 0, 0 };
	struct p256_point pt;
	p256_sc k, r, s, t;
	uint8_t x[32], y[32];
	uint64_t ok;

	ok = p256_sc_from_bytes(k, kb);
	p256_sc_cmov(k, one, ~ok); /* an unusable k is replaced, then discarded */
	p256_point_mul_base(&pt, k);
	(void)p256_point_to_bytes(x, y, &pt); /* k in [1, n-1]: never infinity */
	p256_sc_from_digest(r, x, 32);        /* r = x mod n */
	/* s = k^-1 (e + r d): (r * dR)/R = rd; (k^-1 R * t)/R = k^-1 t */
	p256_sc_to_mont(t, d);
	p256_sc_mont_mul(t, r, t);
	p256_sc_add(t, t, e);
	p256_sc_to_mont(k, k);
	p256_sc_inv_mont(k, k);
	p256_sc_mont_mul(s, k, t);
	p256_sc_to_bytes(sig, r);
	p256_sc_to_bytes(sig + 32, s);
	ok &= ~p256_sc_is_zero(r) & ~p256_sc_is_zero(s);
	wipe(&pt, sizeof(pt));
	wipe(k, sizeof(k));
	wipe(t, sizeof(t));
	wipe(x, sizeof(x));
	wipe(y, sizeof(y));
	return ok;
}

/*
 * The candidate loop of RFC 6979 3.2 step h. Its exit test is the only
 * branch on secret-derived data in signing (see the notes at the top).
 */
static NOINLINE void sign_loop(struct drbg *g, uint8_t sig[64], const p256_sc d,
			       const p256_sc e)
{
	uint8_t kb[32];

	for (;;) {
		drbg_next(g, kb);
		if (sign_with_nonce(sig, kb, d, e))
			break;
		drbg_reject(g);
	}
	wipe(kb, sizeof(kb));
}

int ecdsa_p256_sign(uint8_t sig[64], const uint8_t priv[32], const uint8_t *hash,
		       size_t hash_len, int hedged)
{
	static const p256_sc one = { 1, 0, 0, 0 };
	struct drbg g;
	p256_sc d, e;
	uint8_t x[32], h[32], extra[32];
	uint64_t ok;
	int err = 0;

	memset(sig, 0, 64);
	p256_fe_select();
	if (hedged) {
		err = rand_bytes(extra, sizeof(extra));
		if (err)
			return err;
	}
	ok = p256_sc_from_bytes(d, priv);
	p256_sc_cmov(d, one, ~ok);
	p256_sc_from_digest(e, hash, hash_len);
	p256_sc_to_bytes(x, d); /* int2octets(x) */
	p256_sc_to_bytes(h, e); /* bits2octets(h1) = int2octets(bits2int(h1) mod n) */
	drbg_init(&g, hash_len, x, h, hedged ? extra : NULL);
	sign_loop(&g, sig, d, e);
	for (int i = 0; i < 64; i++)
		sig[i] &= (uint8_t)ok;
	wipe(&g, sizeof(g));
	wipe(d, sizeof(d));
	wipe(x, sizeof(x));
	wipe(extra, sizeof(extra));
	return (int)ct_select_u32((uint32_t)ok, 0, (uint32_t)HS_ERR_BAD_KEY);
}

/* x(R) mod n == r, for R not infinity, without inverting Z. */
static int x_matches_r(const struct p256_point *pt, const uint8_t rb[32])
{
	p256_fe r, t;

	(void)p256_fe_from_bytes(r, rb); /* r < n < p */
	p256_fe_mul(t, r, pt->z);
	if (p256_fe_eq(t, pt->x))
		return 1;
	/* x in [n, p) also reduces to r: x = r + n, possible only if r < p - n */
	if (memcmp(rb, p_minus_n, 32) >= 0)
		return 0;
	(void)p256_fe_from_bytes(t, n_bytes);
	p256_fe_add(r, r, t);
	p256_fe_mul(t, r, pt->z);
	return p256_fe_eq(t, pt->x) != 0;
}

/* Public inputs only: branches freely. */
int ecdsa_p256_verify(const uint8_t *pub, size_t pub_len, const uint8_t *hash,
			 size_t hash_len, const uint8_t sig[64])
{
	struct p256_point q, pt;
	p256_sc r, s, e, w, u1, u2;
	int err;

	if (pub == NULL || pub_len != HS_P256_PUB_LEN || pub[0] != 0x04)
		return HS_ERR_BAD_POINT;
	p256_fe_select();
	err = p256_point_from_bytes(&q, pub + 1, pub + 33);
	if (err)
		return err;
	if (!p256_sc_from_bytes(r, sig) || !p256_sc_from_bytes(s, sig + 32))
		return HS_ERR_BAD_SIG; /* SEC 1 4.1.4 step 1: r, s in [1, n-1] */
	p256_sc_from_digest(e, hash, hash_len);
	p256_sc_to_mont(w, s);
	p256_sc_inv_mont(w, w); /* s^-1 R */
	p256_sc_mont_mul(u1, e, w);
	p256_sc_mont_mul(u2, r, w);
	p256_point_mul_double_vartime(&pt, u1, u2, &q);
	if (p256_point_is_infinity(&pt))
		return HS_ERR_BAD_SIG;
	return x_matches_r(&pt, sig) ? 0 : HS_ERR_BAD_SIG;
}

static int sign_sha256(uint8_t *sig, size_t *sig_len, const void *priv, const uint8_t *pub,
		       const uint8_t *msg, size_t msg_len)
{
	uint8_t h[32], raw[64];
	int err;

	(void)pub;
	hash_digest(hash_sha256(), msg, msg_len, h);
	err = ecdsa_p256_sign(raw, priv, h, sizeof(h), 1);
	if (!err)
		err = ecdsa_sig_to_der(sig, sig_len, raw);
	wipe(h, sizeof(h));
	return err;
}

static int verify_sha256(const uint8_t *pub, size_t pub_len, const uint8_t *msg, size_t msg_len,
			 const uint8_t *sig, size_t sig_len)
{
	uint8_t h[32], raw[64];
	int err;

	err = ecdsa_sig_from_der(raw, sig, sig_len);
	if (err)
		return err;
	hash_digest(hash_sha256(), msg, msg_len, h);
	return ecdsa_p256_verify(pub, pub_len, h, sizeof(h), raw);
}

const struct sig sig_ecdsa_p256_sha256 = {
	.name = "ecdsa_secp256r1_sha256",
	.priv_len = 32,
	.pub_len = HS_P256_PUB_LEN,
	.max_sig_len = HS_P256_SIG_DER_MAX,
	.sign = sign_sha256,
	.verify = verify_sha256,
};
