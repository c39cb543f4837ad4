/*
 * Implementation notes: RSA keys from DER (RFC 8017 A.1), strict (X.690
 * section 10), through base/der.h only.
 *
 * - Lengths: definite and minimal (base/der.c).
 * - INTEGERs: at least one octet, not negative, no needless leading zero
 *   (X.690 8.3.2); the one zero that keeps a positive value positive is
 *   dropped (der_read_uint), so a magnitude's length is its exact byte
 *   length.
 * - Private keys: version 0 only (two primes; multi-prime keys are
 *   refused), and the components are checked against each other (p q = n,
 *   dp < p, dq < q, qinv < p, p and q odd and > 1), so signing can rely on
 *   them. The parse branches on lengths and on each integer's top byte:
 *   it is not constant time in those (see rsa.h).
 * - A private key leaves with the Montgomery contexts of n, p and q
 *   (bn_mont_init_divisor makes p and q's from n's without a division),
 *   which every signature needs: rsa.c's signing only reads them.
 */
#include "crypto/rsa.h"

#include <string.h>

#include "base/der.h"
#include "base/wipe.h"

/* One INTEGER into a (limbs limbs); HS_ERR_BAD_KEY if it does not fit. */
static int der_bn(struct reader *r, uint64_t *a, size_t limbs, size_t *bytes)
{
	struct reader mag;

	if (der_read_uint(r, &mag) != 0)
		return HS_ERR_BAD_ENCODING;
	if (bytes != NULL)
		*bytes = mag.len;
	return bn_from_bytes(a, limbs, mag.p, mag.len) ? HS_ERR_BAD_KEY : 0;
}

static size_t limbs_of(size_t bytes) { return (bytes + 7) / 8; }

/* modulus and publicExponent, then the checks of rsa.h */
static int read_public(struct reader *seq, struct rsa_public *k)
{
	size_t nb, eb;
	int err;

	if ((err = der_bn(seq, k->n, HS_BN_LIMBS, &nb)) != 0 ||
	    (err = der_bn(seq, k->e, HS_BN_LIMBS, &eb)) != 0)
		return err;
	k->len = nb;
	k->n_limbs = limbs_of(nb);
	k->e_limbs = limbs_of(eb);
	k->bits = bn_bitlen_vartime(k->n, k->n_limbs);
	if (k->bits < 1024 || k->bits > HS_RSA_MAX_BITS || (k->n[0] & 1) == 0)
		return HS_ERR_BAD_KEY;
	if (k->e_limbs > k->n_limbs || (k->e[0] & 1) == 0 ||
	    bn_bitlen_vartime(k->e, k->e_limbs) < 2 || !bn_lt_mask(k->e, k->n, k->n_limbs))
		return HS_ERR_BAD_KEY; /* e odd, 3 <= e < n */
	return 0;
}

int rsa_public_from_der(struct rsa_public *k, const uint8_t *der, size_t der_len)
{
	struct reader r = reader_init(der, der_len), seq;
	int err;

	memset(k, 0, sizeof(*k));
	if (der == NULL || der_read(&r, DER_SEQUENCE, &seq) || read_end(&r))
		return HS_ERR_BAD_ENCODING;
	err = read_public(&seq, k);
	if (!err && read_end(&seq))
		err = HS_ERR_BAD_ENCODING;
	return err;
}

/* p, q, dp, dq, qinv: all sized by the larger prime */
static int read_crt(struct reader *seq, struct rsa_private *k)
{
	const size_t cap = HS_BN_LIMBS / 2;
	size_t pb, qb;
	int err;

	if ((err = der_bn(seq, k->p, cap, &pb)) != 0 || (err = der_bn(seq, k->q, cap, &qb)) != 0)
		return err;
	k->p_limbs = limbs_of(pb > qb ? pb : qb);
	if ((err = der_bn(seq, k->dp, k->p_limbs, NULL)) != 0 ||
	    (err = der_bn(seq, k->dq, k->p_limbs, NULL)) != 0 ||
	    (err = der_bn(seq, k->qinv, k->p_limbs, NULL)) != 0)
		return err;
	return 0;
}

/* p q = n, p and q odd and > 1, dp < p, dq < q, qinv < p */
static int check_crt(const struct rsa_private *k)
{
	uint64_t pq[HS_BN_LIMBS];
	size_t l = k->p_limbs;
	int ok;

	if ((k->p[0] & 1) == 0 || (k->q[0] & 1) == 0 || bn_bitlen_vartime(k->p, l) < 2 ||
	    bn_bitlen_vartime(k->q, l) < 2 || 2 * l < k->pub.n_limbs)
		return HS_ERR_BAD_KEY;
	bn_mul(pq, k->p, k->q, l);
	ok = bn_eq_mask(pq, k->pub.n, 2 * l) && bn_lt_mask(k->dp, k->p, l) &&
	     bn_lt_mask(k->dq, k->q, l) && bn_lt_mask(k->qinv, k->p, l);
	wipe(pq, sizeof(pq));
	return ok ? 0 : HS_ERR_BAD_KEY;
}

static int read_private(struct reader *seq, struct rsa_private *k)
{
	struct reader v;
	int err;

	if (der_read_uint(seq, &v) != 0 || v.len != 1 || v.p[0] != 0)
		return HS_ERR_BAD_ENCODING; /* version 0: two-prime */
	if ((err = read_public(seq, &k->pub)) != 0 ||
	    (err = der_bn(seq, k->d, k->pub.n_limbs, NULL)) != 0 || (err = read_crt(seq, k)) != 0)
		return err;
	if (read_end(seq))
		return HS_ERR_BAD_ENCODING;
	if ((err = check_crt(k)) != 0)
		return err;
	/* p q = n and q < 2^(64 l) (checked): p and q's constants from n's */
	if (bn_mont_init_vartime(&k->cn, k->pub.n, k->pub.n_limbs) != 0 ||
	    bn_mont_init_divisor(&k->cp, k->p, k->p_limbs, &k->cn) != 0 ||
	    bn_mont_init_divisor(&k->cq, k->q, k->p_limbs, &k->cn) != 0)
		return HS_ERR_BAD_KEY;
	return 0;
}

int rsa_private_from_der(struct rsa_private *k, const uint8_t *der, size_t der_len)
{
	struct reader r = reader_init(der, der_len), seq;
	int err;

	memset(k, 0, sizeof(*k));
	if (der == NULL || der_read(&r, DER_SEQUENCE, &seq) || read_end(&r))
		return HS_ERR_BAD_ENCODING;
	err = read_private(&seq, k);
	if (err)
		rsa_private_wipe(k);
	return err;
}

void rsa_private_wipe(struct rsa_private *k) { wipe(k, sizeof(*k)); }
