/*
 * The struct hash tables for SHA-256, SHA-384 and SHA-512, and the
 * getters that pick the best backend for this CPU.
 *
 * Implementation notes:
 * - SHA-256 has two tables: portable and SHA-NI. Each table's update and
 *   final call the shared streaming code with its own blocks function, so
 *   a context is driven by one backend for its whole life.
 * - hash_sha256() asks cpu_has() on every call, so a test that calls
 *   cpu_force_portable(1) gets the portable table from then on.
 * - SHA-384/512 have a portable backend only.
 */
#include "crypto/hash.h"

#include "crypto/cpu.h"
#include "crypto/sha2_internal.h"

static void table_sha256_init(union hash_ctx *c) { sha256_init(&c->sha256); }

static void sha256_update_portable(union hash_ctx *c, const void *p, size_t n)
{
	sha256_update_with(&c->sha256, p, n, sha256_blocks_portable);
}

static void sha256_final_portable(union hash_ctx *c, uint8_t *out)
{
	sha256_final_with(&c->sha256, out, sha256_blocks_portable);
}

static const struct hash sha256_portable = {
	.name = "SHA-256",
	.digest_len = HS_SHA256_LEN,
	.block_len = 64,
	.init = table_sha256_init,
	.update = sha256_update_portable,
	.final = sha256_final_portable,
};

#ifdef HS_HAVE_SHA256_SHANI
static void sha256_update_shani(union hash_ctx *c, const void *p, size_t n)
{
	sha256_update_with(&c->sha256, p, n, sha256_blocks_shani);
}

static void sha256_final_shani(union hash_ctx *c, uint8_t *out)
{
	sha256_final_with(&c->sha256, out, sha256_blocks_shani);
}

static const struct hash sha256_shani = {
	.name = "SHA-256 (SHA-NI)",
	.digest_len = HS_SHA256_LEN,
	.block_len = 64,
	.init = table_sha256_init,
	.update = sha256_update_shani,
	.final = sha256_final_shani,
};
#endif

static void table_sha384_init(union hash_ctx *c) { sha384_init(&c->sha512); }

static void table_sha512_init(union hash_ctx *c) { sha512_init(&c->sha512); }

static void table_sha512_update(union hash_ctx *c, const void *p, size_t n)
{
	sha512_update(&c->sha512, p, n);
}

static void table_sha384_final(union hash_ctx *c, uint8_t *out) { sha384_final(&c->sha512, out); }

static void table_sha512_final(union hash_ctx *c, uint8_t *out) { sha512_final(&c->sha512, out); }

static const struct hash sha384_portable = {
	.name = "SHA-384",
	.digest_len = HS_SHA384_LEN,
	.block_len = 128,
	.init = table_sha384_init,
	.update = table_sha512_update,
	.final = table_sha384_final,
};

static const struct hash sha512_portable = {
	.name = "SHA-512",
	.digest_len = HS_SHA512_LEN,
	.block_len = 128,
	.init = table_sha512_init,
	.update = table_sha512_update,
	.final = table_sha512_final,
};

const struct hash *hash_sha256(void)
{
#ifdef HS_HAVE_SHA256_SHANI
	if (cpu_has(HS_CPU_SHANI | HS_CPU_SSE41 | HS_CPU_SSSE3))
		return &sha256_shani;
#endif
	return &sha256_portable;
}

const struct hash *hash_sha384(void) { return &sha384_portable; }

const struct hash *hash_sha512(void) { return &sha512_portable; }

void hash_digest(const struct hash *h, const void *p, size_t n, uint8_t *out)
{
	union hash_ctx c;

	h->init(&c);
	h->update(&c, p, n);
	h->final(&c, out); /* final wipes c */
}
