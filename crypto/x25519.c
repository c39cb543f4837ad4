/*
 * X25519 (RFC 7748) and its key-exchange table entry.
 *
 * Implementation notes:
 * - The Montgomery ladder of RFC 7748 5, x-only, 255 steps whatever the
 *   scalar; the two working points are exchanged with a masked swap
 *   (fe_cswap), and a swap is only done lazily when the next key bit
 *   differs from the previous one, as in the RFC's pseudo-code. No branch
 *   and no memory index depends on the scalar or on the point.
 * - The u-coordinate's top bit is masked off and values >= p are accepted
 *   (RFC 7748 5: "implementations MUST accept non-canonical values").
 * - The result is x2 / z2 = x2 z2^(p-2); z2 = 0 (a low-order input) gives 0.
 *   An all-zero output is reported as HS_ERR_ZERO_SHARED, with the zero
 *   bytes still written; the test for zero is masked and only the returned
 *   code depends on it (RFC 8446 7.4.2 asks callers to abort on it).
 * - The public key (scalar times u = 9) is computed on the birationally
 *   equivalent Edwards curve with the fixed-base table of ge25519.c, about
 *   three times faster than the ladder (eight with AVX-512 IFMA), and
 *   mapped back to u. The one inversion (fe_invert, safegcd divsteps in
 *   crypto/safegcd256.c) is then about 40% of a key generation.
 * - With AVX-512 IFMA the ladder runs eight field elements per vector
 *   (crypto/asm/x25519_ifma.c; same radix, same final inversion and
 *   encoding, so the same bytes): about 1.8x the portable ladder on Zen 5.
 *   There is no MULX/ADX variant: one on 4 x 64-bit limbs (intrinsics,
 *   and later inline assembly) tied or lost against these 5 x 51-bit
 *   limbs on the machines measured.
 * - x25519_keygen_shared (a TLS server's step) inverts the public key's
 *   and the ladder's denominators together (Montgomery's trick): one
 *   inversion for both.
 * - Both ladders return (x2 : z2); the inversion and the encoding are
 *   done here, once for both.
 * - Secrets on the stack (clamped scalar, ladder state) are wiped.
 */
#include "crypto/x25519.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/cpu.h"
#include "crypto/ct.h"
#include "crypto/fe25519.h"
#include "crypto/ge25519.h"
#include "crypto/kx.h"
#include "crypto/rand.h"

/* a24 = (486662 - 2) / 4 (RFC 7748 5) */
#define X25519_A24 121665

/* Ladder state and scratch: one struct, so one wipe at the end clears all. */
struct ladder {
	struct fe25519 x1, x2, z2, x3, z3;
	struct fe25519 a, aa, b, bb, e, c, d, da, cb;
};

/* One differential add-and-double step of RFC 7748 5 (after the swap). */
static void ladder_step(struct ladder *s)
{
	fe_add(&s->a, &s->x2, &s->z2);
	fe_sq(&s->aa, &s->a);
	fe_sub(&s->b, &s->x2, &s->z2);
	fe_sq(&s->bb, &s->b);
	fe_sub(&s->e, &s->aa, &s->bb);
	fe_add(&s->c, &s->x3, &s->z3);
	fe_sub(&s->d, &s->x3, &s->z3);
	fe_mul(&s->da, &s->d, &s->a);
	fe_mul(&s->cb, &s->c, &s->b);
	fe_add(&s->x3, &s->da, &s->cb);
	fe_sq(&s->x3, &s->x3);               /* x3 = (DA + CB)^2 */
	fe_sub(&s->z3, &s->da, &s->cb);
	fe_sq(&s->z3, &s->z3);
	fe_mul(&s->z3, &s->z3, &s->x1);      /* z3 = x1 (DA - CB)^2 */
	fe_mul(&s->x2, &s->aa, &s->bb);      /* x2 = AA BB */
	fe_mul_small(&s->z2, &s->e, X25519_A24);
	fe_add(&s->z2, &s->z2, &s->aa);
	fe_mul(&s->z2, &s->z2, &s->e);       /* z2 = E (AA + a24 E) */
}

/* RFC 7748 5, decodeScalar25519: clear bits 0-2 and 255, set bit 254. */
static void clamp(uint8_t k[32], const uint8_t scalar[32])
{
	memcpy(k, scalar, 32);
	k[0] &= 248;
	k[31] &= 127;
	k[31] |= 64;
}

/* (x2 : z2) = the projective u of k u, k already clamped. */
static void x25519_ladder_portable(struct fe25519 *x2, struct fe25519 *z2, const uint8_t k[32],
				   const uint8_t u[32])
{
	struct ladder s;
	uint64_t swap = 0;

	fe_frombytes(&s.x1, u);
	fe_1(&s.x2);
	fe_0(&s.z2);
	s.x3 = s.x1;
	fe_1(&s.z3);
	for (int t = 254; t >= 0; t--) {
		/* bit t of the scalar, as a 0 / all-ones mask */
		uint64_t bit = 0 - (uint64_t)((k[t >> 3] >> (t & 7)) & 1);

		swap ^= bit;
		fe_cswap(&s.x2, &s.x3, swap);
		fe_cswap(&s.z2, &s.z3, swap);
		swap = bit;
		ladder_step(&s);
	}
	fe_cswap(&s.x2, &s.x3, swap);
	fe_cswap(&s.z2, &s.z3, swap);
	*x2 = s.x2;
	*z2 = s.z2;
	wipe(&s, sizeof(s));
}

/* the ladder of this CPU (scalar clamped inside) */
static void ladder(struct fe25519 *x2, struct fe25519 *z2, const uint8_t scalar[32],
		   const uint8_t point[32])
{
	uint8_t k[32];

	clamp(k, scalar);
#if defined(HS_HAVE_X25519_IFMA)
	if (cpu_has(HS_X25519_IFMA_CPU))
		x25519_ladder_ifma(x2, z2, k, point);
	else
#endif
		x25519_ladder_portable(x2, z2, k, point);
	wipe(k, sizeof(k));
}

/* -HS_ERR_ZERO_SHARED when out is all zero, else 0, without a branch */
static int zero_check(const uint8_t out[32])
{
	uint32_t acc = 0;

	for (int i = 0; i < 32; i++)
		acc |= out[i];
	return -(int)(ct_is_zero_mask_u32(acc) & (uint32_t)-HS_ERR_ZERO_SHARED);
}

int x25519(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32])
{
	struct fe25519 x2, z2;

	ladder(&x2, &z2, scalar, point);
	fe_invert(&z2, &z2); /* 0 for a low-order point: the result is 0 */
	fe_mul(&x2, &x2, &z2);
	fe_tobytes(out, &x2);
	wipe(&x2, sizeof(x2));
	wipe(&z2, sizeof(z2));
	return zero_check(out);
}

/*
 * pub = X25519(priv, 9), computed as k B on edwards25519 with the fixed-base
 * table, then mapped to u = (1 + y)/(1 - y) (RFC 7748 4.1): the Montgomery
 * base point u = 9 corresponds to the Edwards base point B. k B is never
 * the identity (y = 1): clamped k is a multiple of 8 in [2^254, 2^255), and
 * the smallest multiple of 8 L exceeds 2^255.
 */
int x25519_public(uint8_t pub[32], const uint8_t priv[32])
{
	uint8_t k[32];
	struct ge_ext p;

	clamp(k, priv);
	ge_scalarmult_base(&p, k);
	ge_to_montgomery_u(pub, &p);
	wipe(k, sizeof(k));
	wipe(&p, sizeof(p));
	return 0;
}

int x25519_keygen(uint8_t priv[32], uint8_t pub[32])
{
	int err = rand_bytes(priv, 32);

	if (err)
		return err;
	return x25519_public(pub, priv);
}

/*
 * Montgomery's trick for the two denominators: the public key is
 * n1 / d1 (d1 != 0: k B is not the identity, above), the secret x2 / z2
 * with z2 = 0 for a low-order peer. t = d1 d2 with d2 = z2, or 1 where
 * z2 = 0 (a mask: only the returned code may tell), then 1/d1 = d2 / t
 * and 1/d2 = d1 / t; a zero z2 zeroes the secret as fe_invert's 0 does
 * in x25519(). 3 products instead of a second inversion.
 */
int x25519_keygen_shared(uint8_t priv[32], uint8_t pub[32], uint8_t out[32],
			 const uint8_t *peer, size_t peer_len)
{
	struct fe25519 n1, d1, x2, d2, t, one;
	struct ge_ext p;
	uint8_t k[32];
	uint64_t zero;
	int err;

	if (peer_len != 32)
		return HS_ERR_BAD_ENCODING;
	err = rand_bytes(priv, 32);
	if (err)
		return err;
	clamp(k, priv);
	ge_scalarmult_base(&p, k);
	ge_to_montgomery_frac(&n1, &d1, &p);
	ladder(&x2, &d2, priv, peer);
	zero = fe_iszero_mask(&d2);
	fe_1(&one);
	fe_cmov(&d2, &one, zero);
	fe_mul(&t, &d1, &d2);
	fe_invert(&t, &t);
	fe_mul(&d1, &d1, &t); /* 1/d2 */
	fe_mul(&d2, &d2, &t); /* 1/d1 */
	fe_mul(&n1, &n1, &d2);
	fe_tobytes(pub, &n1);
	fe_0(&one);
	fe_cmov(&d1, &one, zero);
	fe_mul(&x2, &x2, &d1);
	fe_tobytes(out, &x2);
	wipe(k, sizeof(k));
	wipe(&p, sizeof(p));
	wipe(&n1, sizeof(n1));
	wipe(&d1, sizeof(d1));
	wipe(&x2, sizeof(x2));
	wipe(&d2, sizeof(d2));
	wipe(&t, sizeof(t));
	return zero_check(out);
}

/* The table's shared(): checks the peer's length, then X25519. */
static int kx_x25519_shared(uint8_t *out, const uint8_t *priv, const uint8_t *peer,
			    size_t peer_len)
{
	if (peer_len != 32)
		return HS_ERR_BAD_ENCODING;
	return x25519(out, priv, peer);
}

const struct kx kx_x25519 = {
	.name = "x25519",
	.priv_len = 32,
	.pub_len = 32,
	.shared_len = 32,
	.keygen = x25519_keygen,
	.shared = kx_x25519_shared,
	.keygen_shared = x25519_keygen_shared,
};
