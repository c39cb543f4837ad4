/*
 * Implementation notes: RSASSA-PSS with a given salt (RFC 8017 8.1.1,
 * EMSA-PSS-ENCODE 9.1.1), built on the public bignum API only (rsa.c is
 * left alone). The private operation is the plain s = m^d mod n with the
 * constant-time fixed-window exponentiation of bignum.c; no CRT and no
 * blinding, since this path exists for deterministic test traces, where
 * speed does not matter. The signature is checked (s^e = m mod n, e
 * public) before it leaves, as in rsa.c: the check's outcome only selects,
 * by masks, between the signature and zeros and between the two return
 * codes. Only the key's sizes and salt_len are observable (the salt, the
 * digest and d are not: tests/ct/ct_rsa_pss_salt.c).
 */
#include "crypto/rsa_pss_salt.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/bignum.h"
#include "crypto/ct.h"

/* out[0..len) ^= MGF1(seed) over h (RFC 8017 B.2.1) */
static void mgf1_mask(uint8_t *out, size_t len, const struct hash *h, const uint8_t *seed)
{
	union hash_ctx ctx;
	uint8_t block[HS_HASH_MAX_LEN], counter[4];
	size_t done = 0;

	for (uint32_t i = 0; done < len; i++) {
		size_t n = len - done < h->digest_len ? len - done : h->digest_len;
		counter[0] = (uint8_t)(i >> 24);
		counter[1] = (uint8_t)(i >> 16);
		counter[2] = (uint8_t)(i >> 8);
		counter[3] = (uint8_t)i;
		h->init(&ctx);
		h->update(&ctx, seed, h->digest_len);
		h->update(&ctx, counter, sizeof(counter));
		h->final(&ctx, block);
		for (size_t j = 0; j < n; j++)
			out[done + j] ^= block[j];
		done += n;
	}
	wipe(block, sizeof(block));
}

/*
 * EM into out[0..k->len): emBits = bits - 1, so EM is k->len or k->len - 1
 * bytes (then out[0] = 0). EM = maskedDB || H || 0xbc with
 * H = Hash(8 zero bytes || mHash || salt), DB = PS || 0x01 || salt.
 */
static int encode(uint8_t *out, const struct rsa_public *k, const struct hash *h,
		  const uint8_t *digest, const uint8_t *salt, size_t salt_len)
{
	static const uint8_t zeros[8];
	size_t hlen = h->digest_len, em_len = (k->bits - 1 + 7) / 8, db_len;
	uint8_t *em = out + (k->len - em_len);
	unsigned top = (unsigned)(8 * em_len - (k->bits - 1));
	union hash_ctx ctx;

	if (salt_len > HS_HASH_MAX_LEN || em_len < hlen + salt_len + 2)
		return HS_ERR_ARG; /* step 3 */
	memset(out, 0, k->len);
	db_len = em_len - hlen - 1;
	h->init(&ctx);
	h->update(&ctx, zeros, sizeof(zeros));
	h->update(&ctx, digest, hlen);
	h->update(&ctx, salt, salt_len);
	h->final(&ctx, em + db_len);
	em[db_len - salt_len - 1] = 0x01;
	memcpy(em + db_len - salt_len, salt, salt_len);
	mgf1_mask(em, db_len, h, em + db_len);
	em[0] &= (uint8_t)(0xff >> top); /* step 11: clear the bits above emBits */
	em[em_len - 1] = 0xbc;
	return 0;
}

/* The working set, wiped as a whole. */
struct salt_ws {
	struct bn_mont mont;
	uint64_t m[HS_BN_LIMBS], s[HS_BN_LIMBS], t[HS_BN_LIMBS];
	uint8_t em[HS_RSA_MAX_LEN];
};

/* sig = EM^d mod n, checked; the return value is computed without a branch. */
static int private_op(struct salt_ws *w, const struct rsa_private *k, uint8_t *sig)
{
	const struct rsa_public *pub = &k->pub;
	size_t n = pub->n_limbs;
	uint64_t ok;
	uint32_t ok32;

	if (bn_mont_init_vartime(&w->mont, pub->n, n) != 0) /* n is public */
		return HS_ERR_BAD_KEY;
	(void)bn_from_bytes(w->m, n, w->em, pub->len); /* len <= 8 n */
	/* EM < 2^(bits-1) < n, as bn_mod_exp needs */
	bn_mod_exp(w->s, w->m, k->d, n, &w->mont);
	/* the check: s^e = m mod n (variable time in e only, which is public) */
	bn_mod_exp_vartime(w->t, w->s, pub->e, pub->e_limbs, &w->mont);
	ok = bn_eq_mask(w->t, w->m, n);
	bn_to_bytes(sig, pub->len, w->s, n);
	ok32 = (uint32_t)ok;
	for (size_t i = 0; i < pub->len; i++)
		sig[i] &= (uint8_t)ok32; /* zeros unless the check passed */
	return (int)ct_select_u32(ok32, 0, (uint32_t)HS_ERR_BAD_KEY);
}

int rsa_pss_sign_salt(const struct rsa_private *k, const struct hash *h,
			 const uint8_t *digest, const uint8_t *salt, size_t salt_len,
			 uint8_t *sig, size_t *sig_len, unsigned flags)
{
	struct salt_ws w;
	int err;

	if (k->pub.bits < HS_RSA_MIN_BITS && !(flags & HS_RSA_ALLOW_SMALL))
		return HS_ERR_BAD_KEY;
	if (*sig_len < k->pub.len)
		return HS_ERR_NO_SPACE;
	*sig_len = k->pub.len;
	err = encode(w.em, &k->pub, h, digest, salt, salt_len); /* fails on lengths only */
	if (err)
		memset(sig, 0, k->pub.len);
	else
		err = private_op(&w, k, sig); /* zeroes sig itself if its check fails */
	wipe(&w, sizeof(w));
	return err;
}
