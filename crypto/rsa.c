/*
 * Implementation notes: RSA signatures (RFC 8017) over crypto/bignum.h.
 *
 * - Verification (public data, variable time): s < n is required (RFC
 *   8017 5.2.2 step 1), then m = s^e mod n by square-and-multiply. PSS
 *   checks EMSA-PSS-VERIFY (9.1.2) step by step; PKCS #1 v1.5 builds the
 *   one valid encoding (9.2) and compares it whole, which leaves no room
 *   for the parsing leniencies of Bleichenbacher's 2006 forgery.
 * - Signing: the EMSA-PSS encoding m (with a random salt), then CRT with
 *   base blinding: r random below 2^(bits-1) < n; m' = m r^e mod n;
 *   s_p = (m' mod p)^dp / (r mod p) mod p, the same for q (m'^dp = m^dp r
 *   mod p since e dp = 1 mod p-1); s = s_q + q (qinv (s_p - s_q) mod p)
 *   (Garner). The divisions use the constant-time inversion of bignum.c
 *   modulo each prime (both at once), and reductions modulo a secret
 *   prime go through Montgomery reduction, never a division; the
 *   Montgomery contexts of n, p and q are the key's, made once by its
 *   parser (crypto/rsa_key.c; p and q's from n's). The two
 *   exponentiations run side by side where a backend can (AVX-512 IFMA
 *   for 1024-bit primes: bn_mod_exp_x2).
 * - The result is checked (s^e = m mod n) before it leaves: a fault in
 *   one CRT half would otherwise give away a prime (Boneh, DeMillo,
 *   Lipton 1997). The check's outcome only selects, by masks, between the
 *   signature and zeros and between the two return codes, so the
 *   function stays branch-free on secrets to the end.
 * - Constant time in the key, r and the salt; what is observable: n, e
 *   and the limb counts (the key's sizes).
 */
#include "crypto/rsa.h"

#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"
#include "crypto/rand.h"

#define EM_MAX HS_RSA_MAX_LEN

static int check_size(const struct rsa_public *k, unsigned flags)
{
	if (k->bits < 1024 || k->bits > HS_RSA_MAX_BITS)
		return HS_ERR_BAD_KEY;
	if (k->bits < HS_RSA_MIN_BITS && !(flags & HS_RSA_ALLOW_SMALL))
		return HS_ERR_BAD_KEY;
	return 0;
}

/* em[0..k->len) = sig^e mod n (RSAVP1); HS_ERR_BAD_SIG unless sig is k->len bytes and < n. */
static int public_op(const struct rsa_public *k, const uint8_t *sig, size_t sig_len,
		     uint8_t *em)
{
	uint64_t s[HS_BN_LIMBS], m[HS_BN_LIMBS];

	if (sig == NULL || sig_len != k->len ||
	    bn_from_bytes(s, k->n_limbs, sig, sig_len) != 0 ||
	    !bn_lt_mask(s, k->n, k->n_limbs))
		return HS_ERR_BAD_SIG;
	if (bn_mod_exp_public(m, s, k->e, k->e_limbs, k->n, k->n_limbs) != 0)
		return HS_ERR_BAD_KEY;
	bn_to_bytes(em, k->len, m, k->n_limbs);
	return 0;
}

/* out[0..len) ^= MGF1(seed) over h (RFC 8017 B.2.1). */
static void mgf1_xor(uint8_t *out, size_t len, const struct hash *h, const uint8_t *seed,
		     size_t seed_len)
{
	union hash_ctx ctx;
	uint8_t t[HS_HASH_MAX_LEN], cnt[4];
	size_t off = 0;

	for (uint32_t i = 0; off < len; i++) {
		size_t take = len - off < h->digest_len ? len - off : h->digest_len;

		cnt[0] = (uint8_t)(i >> 24);
		cnt[1] = (uint8_t)(i >> 16);
		cnt[2] = (uint8_t)(i >> 8);
		cnt[3] = (uint8_t)i;
		h->init(&ctx);
		h->update(&ctx, seed, seed_len);
		h->update(&ctx, cnt, 4);
		h->final(&ctx, t);
		for (size_t j = 0; j < take; j++)
			out[off + j] ^= t[j];
		off += take;
	}
	wipe(t, sizeof(t));
}

/* H = Hash(0x00 * 8 || mHash || salt) (RFC 8017 9.1.1 steps 5-6) */
static void pss_hash(uint8_t *out, const struct hash *h, const uint8_t *digest,
		     const uint8_t *salt, size_t salt_len)
{
	static const uint8_t zeros[8];
	union hash_ctx ctx;

	h->init(&ctx);
	h->update(&ctx, zeros, sizeof(zeros));
	h->update(&ctx, digest, h->digest_len);
	h->update(&ctx, salt, salt_len);
	h->final(&ctx, out);
}

/*
 * The EM of PSS for a modulus of mod_bits bits: emBits = mod_bits - 1,
 * emLen = ceil(emBits / 8), which is k - 1 bytes when emBits is a multiple
 * of 8 (then the k-byte integer must start with a zero byte).
 */
static size_t em_len(const struct rsa_public *k) { return (k->bits - 1 + 7) / 8; }

int rsa_pss_verify(const struct rsa_public *k, const struct hash *h, size_t salt_len,
		      const uint8_t *digest, const uint8_t *sig, size_t sig_len, unsigned flags)
{
	uint8_t full[EM_MAX], want[HS_HASH_MAX_LEN];
	size_t hlen = h->digest_len, elen, db_len, ps_len;
	const uint8_t *em, *hh;
	uint8_t *db;
	unsigned top_bits;
	int err = check_size(k, flags);

	if (err)
		return err;
	if ((err = public_op(k, sig, sig_len, full)) != 0)
		return err;
	elen = em_len(k);
	em = full + (k->len - elen);
	if (k->len != elen && full[0] != 0)
		return HS_ERR_BAD_SIG; /* 8.1.2 step 2c: m does not fit emLen octets */
	/* 9.1.2 steps 3, 4 and 6 */
	if (elen < hlen + salt_len + 2 || em[elen - 1] != 0xbc)
		return HS_ERR_BAD_SIG;
	top_bits = (unsigned)(8 * elen - (k->bits - 1)); /* 0..7 bits above emBits */
	if (top_bits != 0 && (em[0] >> (8 - top_bits)) != 0)
		return HS_ERR_BAD_SIG;
	/* steps 5, 7-9: DB = maskedDB ^ MGF(H), top bits cleared; em is inside full */
	db_len = elen - hlen - 1;
	db = full + (k->len - elen);
	hh = em + db_len;
	mgf1_xor(db, db_len, h, hh, hlen);
	db[0] &= (uint8_t)(0xff >> top_bits);
	/* step 10: PS of zeros, then 0x01 */
	ps_len = db_len - salt_len - 1;
	for (size_t i = 0; i < ps_len; i++) {
		if (db[i] != 0)
			return HS_ERR_BAD_SIG;
	}
	if (db[ps_len] != 0x01)
		return HS_ERR_BAD_SIG;
	/* steps 11-14 */
	pss_hash(want, h, digest, db + db_len - salt_len, salt_len);
	return memcmp(want, hh, hlen) == 0 ? 0 : HS_ERR_BAD_SIG;
}

/* DigestInfo prefixes of RFC 8017 9.2 note 1 (with the NULL parameters). */
static const uint8_t *digest_info(size_t hlen, size_t *len)
{
	static const uint8_t sha256[] = { 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
					  0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20 };
	static const uint8_t sha384[] = { 0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
					  0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0x04, 0x30 };
	static const uint8_t sha512[] = { 0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
					  0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40 };

	*len = sizeof(sha256); /* all three are 19 bytes */
	if (hlen == HS_SHA256_LEN)
		return sha256;
	if (hlen == HS_SHA384_LEN)
		return sha384;
	if (hlen == HS_SHA512_LEN)
		return sha512;
	return NULL;
}

int rsa_pkcs1_verify(const struct rsa_public *k, const struct hash *h,
			const uint8_t *digest, const uint8_t *sig, size_t sig_len, unsigned flags)
{
	uint8_t got[EM_MAX], want[EM_MAX];
	size_t di_len, hlen = h->digest_len, t_len, ps_len;
	const uint8_t *di = digest_info(hlen, &di_len);
	int err = check_size(k, flags);

	if (err)
		return err;
	if (di == NULL)
		return HS_ERR_UNSUPPORTED;
	if ((err = public_op(k, sig, sig_len, got)) != 0)
		return err;
	/* EMSA-PKCS1-v1_5 (9.2): 0x00 0x01 PS(0xff, >= 8) 0x00 DigestInfo */
	t_len = di_len + hlen;
	if (k->len < t_len + 11)
		return HS_ERR_BAD_SIG;
	ps_len = k->len - t_len - 3;
	want[0] = 0x00;
	want[1] = 0x01;
	memset(want + 2, 0xff, ps_len);
	want[2 + ps_len] = 0x00;
	memcpy(want + 3 + ps_len, di, di_len);
	memcpy(want + 3 + ps_len + di_len, digest, hlen);
	return memcmp(got, want, k->len) == 0 ? 0 : HS_ERR_BAD_SIG;
}

/*
 * EMSA-PSS-ENCODE (RFC 8017 9.1.1) into out[0..k->len) (a leading zero
 * byte when emLen = k - 1), salt of hlen random bytes. Constant time in
 * the salt: only lengths decide the layout.
 */
static int pss_encode(uint8_t *out, const struct rsa_public *k, const struct hash *h,
		      const uint8_t *digest)
{
	uint8_t salt[HS_HASH_MAX_LEN];
	size_t hlen = h->digest_len, elen = em_len(k), db_len;
	uint8_t *em = out + (k->len - elen);
	unsigned top_bits = (unsigned)(8 * elen - (k->bits - 1));

	if (elen < 2 * hlen + 2)
		return HS_ERR_BAD_KEY; /* step 3: cannot happen from 1024 bits up */
	if (rand_bytes(salt, hlen) != 0)
		return HS_ERR_RAND;
	memset(out, 0, k->len);
	db_len = elen - hlen - 1;
	pss_hash(em + db_len, h, digest, salt, hlen);   /* H */
	em[db_len - hlen - 1] = 0x01;                    /* DB = PS || 0x01 || salt */
	memcpy(em + db_len - hlen, salt, hlen);
	mgf1_xor(em, db_len, h, em + db_len, hlen);      /* maskedDB */
	em[0] &= (uint8_t)(0xff >> top_bits);            /* step 11 */
	em[elen - 1] = 0xbc;
	wipe(salt, sizeof(salt));
	return 0;
}

/* The working set of one signature, wiped as a whole (the key's contexts are k's). */
struct sign_ws {
	uint64_t m[HS_BN_LIMBS], r[HS_BN_LIMBS], t[HS_BN_LIMBS], u[HS_BN_LIMBS], v[HS_BN_LIMBS];
	uint64_t wide[2 * HS_BN_LIMBS];
	uint64_t sp[HS_BN_LIMBS], sq[HS_BN_LIMBS];
};

/* out (c->n limbs) = a mod c's modulus, for a (a_n limbs) < m 2^(64 c->n) */
static void reduce(uint64_t *out, uint64_t *wide, const uint64_t *a, size_t a_n,
		   const struct bn_mont *c)
{
	memset(wide, 0, 2 * c->n * sizeof(*wide));
	memcpy(wide, a, a_n * sizeof(*a));
	bn_mod_wide(out, wide, c);
}

/* out = out r^-1 R R^-1 = out / r mod P, for u = r^-1 mod P */
static void unblind_half(uint64_t *out, uint64_t *u, const struct bn_mont *cP)
{
	bn_mont_to(u, u, cP);
	bn_mont_mul(out, out, u, cP);
}

/*
 * The two CRT halves: s_P = (mb mod P)^dP / (r mod P) mod P for P = p, q,
 * the two exponentiations and the two inversions each run side by side.
 * Returns all-ones unless r mod p or r mod q has no inverse (probability
 * about 2^-1000).
 */
static uint64_t crt_halves(struct sign_ws *w, const struct rsa_private *k)
{
	size_t n_limbs = k->pub.n_limbs, l = k->p_limbs;
	uint64_t ok;

	reduce(w->sp, w->wide, w->m, n_limbs, &k->cp);
	reduce(w->sq, w->wide, w->m, n_limbs, &k->cq);
	bn_mod_exp_x2(w->sp, w->sp, k->dp, &k->cp, w->sq, w->sq, k->dq, &k->cq, l);
	reduce(w->t, w->wide, w->r, n_limbs, &k->cp);
	reduce(w->v, w->wide, w->r, n_limbs, &k->cq);
	ok = bn_mod_inv_x2(w->u, w->t, &k->cp, w->v, w->v, &k->cq);
	unblind_half(w->sp, w->u, &k->cp);
	unblind_half(w->sq, w->v, &k->cq);
	return ok;
}

/* s = s_q + q (qinv (s_p - s_q) mod p), into w->wide (2 p_limbs limbs) */
static void crt_combine(struct sign_ws *w, const struct rsa_private *k)
{
	size_t l = k->p_limbs;

	reduce(w->t, w->wide, w->sq, l, &k->cp); /* s_q mod p: s_q < q < R */
	bn_mod_sub(w->u, w->sp, w->t, &k->cp);
	bn_mont_to(w->t, k->qinv, &k->cp);
	bn_mont_mul(w->u, w->u, w->t, &k->cp); /* h = qinv (s_p - s_q) mod p */
	bn_mul(w->wide, k->q, w->u, l);
	memset(w->t, 0, 2 * l * sizeof(*w->t));
	memcpy(w->t, w->sq, l * sizeof(*w->t));
	(void)bn_add(w->wide, w->wide, w->t, 2 * l); /* < p q: no carry */
}

/* The random blinding value r < 2^(bits-1) < n and m' = m r^e mod n in w->m. */
static int blind(struct sign_ws *w, const struct rsa_private *k)
{
	const struct rsa_public *pub = &k->pub;
	uint8_t rb[EM_MAX];
	size_t top = (pub->bits - 1) % 8; /* bits kept in rb[0] */

	if (rand_bytes(rb, pub->len) != 0)
		return HS_ERR_RAND;
	rb[0] &= (uint8_t)((1u << top) - 1); /* top = 0: the whole first byte goes */
	(void)bn_from_bytes(w->r, pub->n_limbs, rb, pub->len);
	wipe(rb, sizeof(rb));
	bn_mod_exp_vartime(w->u, w->r, pub->e, pub->e_limbs, &k->cn); /* e is public */
	bn_mont_to(w->t, w->m, &k->cn);
	bn_mont_mul(w->m, w->t, w->u, &k->cn); /* m R r^e R^-1 */
	return 0;
}

/*
 * sig = em^d mod n by CRT with blinding, checked; see the notes. The
 * return value is computed without a branch on the check.
 */
static int private_op(struct sign_ws *w, const struct rsa_private *k, const uint8_t *em,
		      uint8_t *sig)
{
	const struct rsa_public *pub = &k->pub;
	size_t l = k->p_limbs;
	uint64_t ok, keep[HS_BN_LIMBS];
	uint32_t ok32;
	int err;

	(void)bn_from_bytes(w->m, pub->n_limbs, em, pub->len);
	memcpy(keep, w->m, sizeof(keep));
	if ((err = blind(w, k)) != 0)
		return err;
	ok = crt_halves(w, k);
	crt_combine(w, k);
	/* the check: s^e = m mod n */
	bn_mod_exp_vartime(w->t, w->wide, pub->e, pub->e_limbs, &k->cn);
	ok &= bn_eq_mask(w->t, keep, pub->n_limbs);
	ok &= bn_is_zero_mask(w->wide + pub->n_limbs, 2 * l - pub->n_limbs); /* s < R_n */
	bn_to_bytes(sig, pub->len, w->wide, pub->n_limbs);
	ok32 = (uint32_t)ok;
	for (size_t i = 0; i < pub->len; i++)
		sig[i] &= (uint8_t)ok32; /* zeros unless the check passed */
	return (int)ct_select_u32(ok32, 0, (uint32_t)HS_ERR_BAD_KEY);
}

int rsa_pss_sign(const struct rsa_private *k, const struct hash *h,
		    const uint8_t *digest, uint8_t *sig, size_t *sig_len, unsigned flags)
{
	struct sign_ws w;
	uint8_t em[EM_MAX];
	int err = check_size(&k->pub, flags);

	if (err)
		return err;
	/* the contexts are the parser's: a key filled any other way has none */
	if (k->cn.n != k->pub.n_limbs || k->cp.n != k->p_limbs || k->cq.n != k->p_limbs)
		return HS_ERR_BAD_KEY;
	if (*sig_len < k->pub.len)
		return HS_ERR_NO_SPACE;
	err = pss_encode(em, &k->pub, h, digest);
	if (!err)
		err = private_op(&w, k, em, sig);
	*sig_len = k->pub.len;
	wipe(&w, sizeof(w));
	wipe(em, sizeof(em));
	return err;
}

/* ---- the signature tables ---- */

/* The table's priv is a parsed key (struct rsa_private, crypto/rsa.h). */
static int pss_sign_with(const struct hash *h, uint8_t *sig, size_t *sig_len,
			 const struct rsa_private *k, const uint8_t *msg, size_t msg_len)
{
	uint8_t digest[HS_HASH_MAX_LEN];

	if (k == NULL)
		return HS_ERR_ARG;
	hash_digest(h, msg, msg_len, digest);
	return rsa_pss_sign(k, h, digest, sig, sig_len, 0);
}

static int pss_verify_with(const struct hash *h, const uint8_t *pub, size_t pub_len,
			   const uint8_t *msg, size_t msg_len, const uint8_t *sig, size_t sig_len)
{
	struct rsa_public k;
	uint8_t digest[HS_HASH_MAX_LEN];
	int err = rsa_public_from_der(&k, pub, pub_len);

	if (err)
		return err;
	hash_digest(h, msg, msg_len, digest);
	/* RFC 8446 4.2.3: "the length of the Salt MUST be equal to the length of the digest" */
	return rsa_pss_verify(&k, h, h->digest_len, digest, sig, sig_len, 0);
}

#define PSS_TABLE(bits)                                                                     \
	static int sign_sha##bits(uint8_t *sig, size_t *sig_len, const void *priv,            \
				  const uint8_t *pub, const uint8_t *msg, size_t msg_len)      \
	{                                                                                   \
		(void)pub;                                                                  \
		return pss_sign_with(hash_sha##bits(), sig, sig_len, priv, msg, msg_len); \
	}                                                                                   \
	static int verify_sha##bits(const uint8_t *pub, size_t pub_len, const uint8_t *msg,   \
				    size_t msg_len, const uint8_t *sig, size_t sig_len)        \
	{                                                                                   \
		return pss_verify_with(hash_sha##bits(), pub, pub_len, msg, msg_len, sig,  \
				       sig_len);                                            \
	}                                                                                   \
	const struct sig sig_rsa_pss_rsae_sha##bits = {                                 \
		.name = "rsa_pss_rsae_sha" #bits,                                            \
		.priv_len = 0,                                                              \
		.pub_len = 0,                                                               \
		.max_sig_len = HS_RSA_MAX_LEN,                                              \
		.sign = sign_sha##bits,                                                     \
		.verify = verify_sha##bits,                                                 \
	};

PSS_TABLE(256)
PSS_TABLE(384)
PSS_TABLE(512)
