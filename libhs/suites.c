/*
 * The algorithm tables: cipher suites (RFC 8446 B.4), named groups
 * (4.2.7) and signature schemes (4.2.3), each a row pointing at a crypto
 * table. Adding P-384 or RSA-PSS is one more row here and nothing else.
 */
#include "libhs/internal.h"

#include "crypto/hash.h"
#include "crypto/p384.h"
#include "crypto/rsa.h"

static const struct aead *aes128(void) { return aead_aes128gcm(); }
static const struct aead *aes256(void) { return aead_aes256gcm(); }
static const struct aead *chacha(void) { return aead_chacha20poly1305(); }

/* RFC 8446 5.5: AES-GCM may protect at most 2^24.5 records per key; we
 * update at 2^24. ChaCha20-Poly1305's limit exceeds 2^64: we use 2^60. */
static const struct suite suites[] = {
	{ .id = HS_TLS_AES_128_GCM_SHA256, .name = "TLS_AES_128_GCM_SHA256", .aead = aes128,
	  .hash = hash_sha256, .key_len = 16, .record_limit = (uint64_t)1 << 24 },
	{ .id = HS_TLS_AES_256_GCM_SHA384, .name = "TLS_AES_256_GCM_SHA384", .aead = aes256,
	  .hash = hash_sha384, .key_len = 32, .record_limit = (uint64_t)1 << 24 },
	{ .id = HS_TLS_CHACHA20_POLY1305_SHA256, .name = "TLS_CHACHA20_POLY1305_SHA256",
	  .aead = chacha, .hash = hash_sha256, .key_len = 32,
	  .record_limit = (uint64_t)1 << 60 },
	{ .id = 0 },
};

static const struct group groups[] = {
	{ .id = HS_GROUP_X25519, .name = "x25519", .kx = &kx_x25519 },
	{ .id = HS_GROUP_SECP256R1, .name = "secp256r1", .kx = &kx_p256 },
	{ .id = 0 },
};

static const struct sigscheme sigschemes[] = {
	{ .id = HS_SIG_ECDSA_SECP256R1_SHA256, .name = "ecdsa_secp256r1_sha256",
	  .sig = &sig_ecdsa_p256_sha256, .key = KEY_P256 },
	{ .id = HS_SIG_ED25519, .name = "ed25519", .sig = &sig_ed25519, .key = KEY_ED25519 },
	/* RSASSA-PSS with an rsaEncryption key (4.2.3); the signer uses a salt
	 * of the digest's length, as 4.2.3 requires */
	{ .id = HS_SIG_RSA_PSS_RSAE_SHA256, .name = "rsa_pss_rsae_sha256",
	  .sig = &sig_rsa_pss_rsae_sha256, .key = KEY_RSA },
	{ .id = HS_SIG_RSA_PSS_RSAE_SHA384, .name = "rsa_pss_rsae_sha384",
	  .sig = &sig_rsa_pss_rsae_sha384, .key = KEY_RSA },
	{ .id = HS_SIG_RSA_PSS_RSAE_SHA512, .name = "rsa_pss_rsae_sha512",
	  .sig = &sig_rsa_pss_rsae_sha512, .key = KEY_RSA },
	/* verify only: its table's sign returns HS_ERR_UNSUPPORTED, and x509/cred.c
	 * loads no P-384 private key, so no server ever picks it */
	{ .id = HS_SIG_ECDSA_SECP384R1_SHA384, .name = "ecdsa_secp384r1_sha384",
	  .sig = &sig_ecdsa_p384_sha384, .key = KEY_P384 },
	{ .id = 0 },
};

const uint16_t default_suites[] = { HS_TLS_AES_128_GCM_SHA256, HS_TLS_AES_256_GCM_SHA384,
				       HS_TLS_CHACHA20_POLY1305_SHA256 };
const size_t n_default_suites = sizeof(default_suites) / sizeof(default_suites[0]);
const uint16_t default_groups[] = { HS_GROUP_X25519, HS_GROUP_SECP256R1 };
const size_t n_default_groups = sizeof(default_groups) / sizeof(default_groups[0]);
/* also the server's preference for its key's type: rsa_pss_rsae_sha256 first */
const uint16_t default_sigs[] = { HS_SIG_ECDSA_SECP256R1_SHA256, HS_SIG_ED25519,
				     HS_SIG_RSA_PSS_RSAE_SHA256,    HS_SIG_RSA_PSS_RSAE_SHA384,
				     HS_SIG_RSA_PSS_RSAE_SHA512,    HS_SIG_ECDSA_SECP384R1_SHA384 };
const size_t n_default_sigs = sizeof(default_sigs) / sizeof(default_sigs[0]);
/*
 * The client's signature_algorithms_cert (4.2.3): the certificate
 * signatures x509/sig.c checks. rsa_pkcs1_* are allowed here (chains) but
 * have no row above: "RSASSA-PKCS1-v1_5 algorithms ... are not defined for
 * use in signed TLS handshake messages" in TLS 1.3.
 */
const uint16_t cert_sigs[] = { HS_SIG_ECDSA_SECP256R1_SHA256, HS_SIG_ECDSA_SECP384R1_SHA384,
				  HS_SIG_ED25519,                HS_SIG_RSA_PKCS1_SHA256,
				  HS_SIG_RSA_PKCS1_SHA384,       HS_SIG_RSA_PKCS1_SHA512 };
const size_t n_cert_sigs = sizeof(cert_sigs) / sizeof(cert_sigs[0]);

const struct suite *suite_find(uint16_t id)
{
	for (const struct suite *s = suites; s->id != 0; s++)
		if (s->id == id)
			return s;
	return NULL;
}

const struct group *group_find(uint16_t id)
{
	for (const struct group *g = groups; g->id != 0; g++)
		if (g->id == id)
			return g;
	return NULL;
}

const struct sigscheme *sigscheme_find(uint16_t id)
{
	for (const struct sigscheme *s = sigschemes; s->id != 0; s++)
		if (s->id == id)
			return s;
	return NULL;
}

int is_grease(uint16_t v)
{
	return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff);
}

const char *hs_suite_name(uint16_t id)
{
	const struct suite *s = suite_find(id);
	return s ? s->name : "?";
}

const char *hs_group_name(uint16_t id)
{
	const struct group *g = group_find(id);
	return g ? g->name : "?";
}

const char *hs_sig_scheme_name(uint16_t id)
{
	const struct sigscheme *s = sigscheme_find(id);
	return s ? s->name : "?";
}

static void cfg_list(const uint16_t *v, size_t n, const uint16_t *def, size_t n_def,
		     const uint16_t **out, size_t *n_out)
{
	if (v != NULL && n > 0) {
		*out = v;
		*n_out = n;
	} else {
		*out = def;
		*n_out = n_def;
	}
}

void cfg_suites(const struct hs_config *cfg, const uint16_t **v, size_t *n)
{
	cfg_list(cfg->suites, cfg->n_suites, default_suites, n_default_suites, v, n);
}

void cfg_groups(const struct hs_config *cfg, const uint16_t **v, size_t *n)
{
	cfg_list(cfg->groups, cfg->n_groups, default_groups, n_default_groups, v, n);
}

void cfg_sigs(const struct hs_config *cfg, const uint16_t **v, size_t *n)
{
	cfg_list(cfg->sig_schemes, cfg->n_sig_schemes, default_sigs, n_default_sigs, v, n);
}

int u16_in(const uint16_t *v, size_t n, uint16_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}
