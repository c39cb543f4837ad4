/*
 * Proves (under valgrind, via ctgrind) that RSA-PSS signing never
 * branches on, or indexes memory with, the private key or the random
 * values: the 2048-bit test key's d, p, q, dp, dq and qinv are marked
 * undefined after parsing (the DER parse itself is documented as not
 * constant time in the integers' lengths and top bytes), and so is every
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

static void mark_key_secret(struct rsa_private *k)
{
	CT_SECRET(k->d, sizeof(k->d));
	CT_SECRET(k->p, sizeof(k->p));
	CT_SECRET(k->q, sizeof(k->q));
	CT_SECRET(k->dp, sizeof(k->dp));
	CT_SECRET(k->dq, sizeof(k->dq));
	CT_SECRET(k->qinv, sizeof(k->qinv));
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
		mark_key_secret(&k);
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
