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
 * - The digests of the empty string are constants (.empty);
 *   tests/crypto/test_sha2.c recomputes them with every backend.
 */
#include "crypto/hash.h"

#include "crypto/cpu.h"
#include "crypto/sha2_internal.h"

static const uint8_t SHA256_EMPTY[HS_SHA256_LEN] = {
	0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
	0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
};

static const uint8_t SHA384_EMPTY[HS_SHA384_LEN] = {
	0x38, 0xb0, 0x60, 0xa7, 0x51, 0xac, 0x96, 0x38, 0x4c, 0xd9, 0x32, 0x7e, 0xb1, 0xb1, 0xe3, 0x6a,
	0x21, 0xfd, 0xb7, 0x11, 0x14, 0xbe, 0x07, 0x43, 0x4c, 0x0c, 0xc7, 0xbf, 0x63, 0xf6, 0xe1, 0xda,
	0x27, 0x4e, 0xde, 0xbf, 0xe7, 0x6f, 0x65, 0xfb, 0xd5, 0x1a, 0xd2, 0xf1, 0x48, 0x98, 0xb9, 0x5b,
};

static const uint8_t SHA512_EMPTY[HS_SHA512_LEN] = {
	0xcf, 0x83, 0xe1, 0x35, 0x7e, 0xef, 0xb8, 0xbd, 0xf1, 0x54, 0x28, 0x50, 0xd6, 0x6d, 0x80, 0x07,
	0xd6, 0x20, 0xe4, 0x05, 0x0b, 0x57, 0x15, 0xdc, 0x83, 0xf4, 0xa9, 0x21, 0xd3, 0x6c, 0xe9, 0xce,
	0x47, 0xd0, 0xd1, 0x3c, 0x5d, 0x85, 0xf2, 0xb0, 0xff, 0x83, 0x18, 0xd2, 0x87, 0x7e, 0xec, 0x2f,
	0x63, 0xb9, 0x31, 0xbd, 0x47, 0x41, 0x7a, 0x81, 0xa5, 0x38, 0x32, 0x7a, 0xf9, 0x27, 0xda, 0x3e,
};

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
	.empty = SHA256_EMPTY,
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
	.empty = SHA256_EMPTY,
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
	.empty = SHA384_EMPTY,
};

static const struct hash sha512_portable = {
	.name = "SHA-512",
	.digest_len = HS_SHA512_LEN,
	.block_len = 128,
	.init = table_sha512_init,
	.update = table_sha512_update,
	.final = table_sha512_final,
	.empty = SHA512_EMPTY,
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
