/*
 * Proves (under valgrind, via ctgrind) that X25519 and Ed25519 signing
 * never branch on, or index memory with, secrets: the X25519 private scalar
 * (shared secret with a normal and with a low-order peer, whose all-zero
 * result must be reported without a secret branch; public key, i.e. key
 * generation after the random bytes) and the Ed25519 seed (public key and
 * signing; the message and public key are public, as in TLS) are marked
 * undefined, so any such use fails the run. Outputs are marked public only
 * after the computation, then checked against an unmarked recomputation.
 * Verification handles public data only and is not covered.
 *
 * Under valgrind the dispatch picks the portable ladder (valgrind offers no
 * AVX-512 IFMA); the IFMA ladder is covered by tests/ct/dudect.c instead.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "crypto/ed25519.h"
#include "crypto/x25519.h"
#include "ct.h"

static int failures;

static void expect(int cond, const char *what)
{
	if (!cond) {
		printf("MISMATCH: %s\n", what);
		failures++;
	}
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + 37 * i);
}

static void ct_x25519(void)
{
	static const uint8_t low_order[32] = { 0 }; /* u = 0 */
	uint8_t priv[32], peer[32], out[32], ref[32];
	int err, ref_err;

	fill(priv, 32, 1);
	fill(peer, 32, 2);
	peer[31] &= 0x7f;

	ref_err = x25519(ref, priv, peer);
	CT_SECRET(priv, 32);
	err = x25519(out, priv, peer);
	CT_PUBLIC(&err, sizeof(err));
	CT_PUBLIC(out, 32);
	expect(err == ref_err && memcmp(out, ref, 32) == 0, "x25519 shared");

	err = x25519(out, priv, low_order); /* priv is still secret */
	CT_PUBLIC(&err, sizeof(err));
	CT_PUBLIC(out, 32);
	expect(err == HS_ERR_ZERO_SHARED, "x25519 zero shared");

	CT_PUBLIC(priv, 32);
	ref_err = x25519_public(ref, priv);
	CT_SECRET(priv, 32);
	err = x25519_public(out, priv);
	CT_PUBLIC(&err, sizeof(err));
	CT_PUBLIC(out, 32);
	CT_PUBLIC(priv, 32);
	expect(err == 0 && ref_err == 0 && memcmp(out, ref, 32) == 0, "x25519 public");
}

static void ct_ed25519(size_t msg_len)
{
	uint8_t seed[32], pub[32], ref_pub[32], sig[64], ref_sig[64], msg[300];
	int err, ref_err;

	fill(seed, 32, 3);
	fill(msg, msg_len, 4);
	ref_err = ed25519_public(ref_pub, seed);
	ref_err |= ed25519_sign(ref_sig, seed, ref_pub, msg, msg_len);

	CT_SECRET(seed, 32);
	err = ed25519_public(pub, seed);
	CT_PUBLIC(&err, sizeof(err));
	CT_PUBLIC(pub, 32);
	expect(err == 0 && ref_err == 0 && memcmp(pub, ref_pub, 32) == 0, "ed25519 public");
	err = ed25519_sign(sig, seed, pub, msg, msg_len);
	CT_PUBLIC(&err, sizeof(err));
	CT_PUBLIC(sig, 64);
	CT_PUBLIC(seed, 32);
	expect(err == 0 && memcmp(sig, ref_sig, 64) == 0, "ed25519 sign");
	expect(ed25519_verify(pub, msg, msg_len, sig) == 0, "ed25519 verify");
}

int main(void)
{
	ct_x25519();
	ct_ed25519(0);
	ct_ed25519(200);
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures != 0;
}
