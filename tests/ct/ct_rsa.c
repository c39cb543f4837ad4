/*
 * Proves (under valgrind, via ctgrind) that RSA-PSS signing never
 * branches on, or indexes memory with, the private key or the random
 * values: the 2048-bit test key's d, p, q, dp, dq and qinv are marked
 * undefined after parsing (the DER parse itself is documented as not
 * constant time in the integers' lengths and top bytes), then p and q's
 * Montgomery contexts, which the parser keeps in the key, are made again
 * from the marked primes and marked themselves, and so is every
 * byte rand_bytes returns (the link wraps it: -Wl,--wrap=rand_bytes),
 * which covers the blinding value r and the salt. The signature and the
 * return code are marked public only after the call, then checked by
 * verification. n and e are public.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "crypto/rand.h"
#include "crypto/rsa.h"
#include "ct.h"
#include "testutil.h"
#include "../crypto/rsa_test_keys.h"

/* The link redirects the library's calls to rand_bytes here. */
int __real_rand_bytes(void *buf, size_t len);
int __wrap_rand_bytes(void *buf, size_t len);

int __wrap_rand_bytes(void *buf, size_t len)
{
	int err = __real_rand_bytes(buf, len);

	CT_SECRET(buf, len);
	return err;
}

/* a prime's Montgomery context: every field but the sizes and backend flags */
static void mark_context_secret(struct bn_mont *c)
{
	CT_SECRET(&c->m0inv, sizeof(c->m0inv));
	CT_SECRET(c->m, sizeof(c->m));
	CT_SECRET(c->rr, sizeof(c->rr));
	CT_SECRET(c->one, sizeof(c->one));
	CT_SECRET(c->rr52, sizeof(c->rr52));
}

/*
 * The key's secrets, and its p and q contexts made again from the secret
 * p and q (the parser made them before anything was marked): so the
 * contexts' construction is checked too, as when signing made them.
 */
static int mark_key_secret(struct rsa_private *k)
{
	int err;

	CT_SECRET(k->d, sizeof(k->d));
	CT_SECRET(k->p, sizeof(k->p));
	CT_SECRET(k->q, sizeof(k->q));
	CT_SECRET(k->dp, sizeof(k->dp));
	CT_SECRET(k->dq, sizeof(k->dq));
	CT_SECRET(k->qinv, sizeof(k->qinv));
	err = bn_mont_init_divisor(&k->cp, k->p, k->p_limbs, &k->cn) |
	      bn_mont_init_divisor(&k->cq, k->q, k->p_limbs, &k->cn);
	CT_PUBLIC(&err, sizeof(err));
	mark_context_secret(&k->cp);
	mark_context_secret(&k->cq);
	return err;
}

int main(void)
{
	const struct hash *hs[] = { hash_sha256(), hash_sha384() };
	struct rsa_private k;
	uint8_t *der, sig[HS_RSA_MAX_LEN], d[HS_HASH_MAX_LEN];
	size_t len;
	int failures = 0;

	der = hex_decode(rsa2048_priv_hex, &len);
	if (der == NULL || rsa_private_from_der(&k, der, len) != 0) {
		printf("FAILED: key\n");
		return 1;
	}
	free(der);
	for (int i = 0; i < 2; i++) {
		size_t sig_len = sizeof(sig);
		int r;

		hash_digest(hs[i], "ct_rsa", 6, d);
		if (mark_key_secret(&k) != 0) {
			printf("FAILED: contexts\n");
			return 1;
		}
		r = rsa_pss_sign(&k, hs[i], d, sig, &sig_len, 0);
		CT_PUBLIC(&r, sizeof(r));
		CT_PUBLIC(sig, sizeof(sig));
		if (r != 0 || sig_len != 256 ||
		    rsa_pss_verify(&k.pub, hs[i], hs[i]->digest_len, d, sig, sig_len, 0) != 0) {
			printf("FAILED: sign %d (r=%d)\n", i, r);
			failures++;
		}
	}
	rsa_private_wipe(&k);
	printf("ct_rsa: %s\n", failures ? "FAILED" : "ok");
	return failures != 0;
}
