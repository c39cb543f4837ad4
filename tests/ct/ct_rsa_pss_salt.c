/*
 * Proves (under valgrind, via ctgrind) that RSA-PSS signing with a given
 * salt (crypto/rsa_pss_salt.h, the RFC 8448 test path) never branches on,
 * or indexes memory with, the private exponent d, the salt or the digest:
 * all three are marked undefined before the call (d after parsing, whose
 * DER rules are documented as not constant time). The signature and the
 * return code are marked public after the call and then checked by
 * verification, for SHA-256 and SHA-384. n and e are public.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "crypto/rsa.h"
#include "crypto/rsa_pss_salt.h"
#include "ct.h"
#include "testutil.h"
#include "../crypto/rsa_test_keys.h"

int main(void)
{
	const struct hash *hs[] = { hash_sha256(), hash_sha384() };
	struct rsa_private k;
	uint8_t *der, sig[HS_RSA_MAX_LEN], d[HS_HASH_MAX_LEN], salt[HS_HASH_MAX_LEN];
	size_t len;
	int failures = 0;

	der = hex_decode(rsa2048_priv_hex, &len);
	if (der == NULL || rsa_private_from_der(&k, der, len) != 0) {
		printf("FAILED: key\n");
		return 1;
	}
	free(der);
	for (int i = 0; i < 2; i++) {
		size_t sig_len = sizeof(sig), hl = hs[i]->digest_len;
		int r;

		hash_digest(hs[i], "ct_rsa_pss_salt", 15, d);
		memset(salt, 0x40 + i, sizeof(salt));
		CT_SECRET(k.d, sizeof(k.d));
		CT_SECRET(d, hl);
		CT_SECRET(salt, hl);
		r = rsa_pss_sign_salt(&k, hs[i], d, salt, hl, sig, &sig_len, 0);
		CT_PUBLIC(&r, sizeof(r));
		CT_PUBLIC(sig, sizeof(sig));
		CT_PUBLIC(d, hl);
		if (r != 0 || sig_len != 256 ||
		    rsa_pss_verify(&k.pub, hs[i], hl, d, sig, sig_len, 0) != 0) {
			printf("FAILED: sign %d (r=%d)\n", i, r);
			failures++;
		}
	}
	rsa_private_wipe(&k);
	printf("ct_rsa_pss_salt: %s\n", failures ? "FAILED" : "ok");
	return failures != 0;
}
