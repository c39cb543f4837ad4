/*
 * Byte order: the one set of load/store helpers for big- and little-endian
 * integers in byte arrays. Compilers turn each into a single move (plus a
 * byte swap where the order differs from the CPU's). No alignment needed.
 */
#ifndef HS_BASE_BYTES_H
#define HS_BASE_BYTES_H

#include <stdint.h>

static inline uint16_t load_be16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline void store_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint64_t load_be64(const uint8_t *p)
{
	return (uint64_t)load_be32(p) << 32 | load_be32(p + 4);
}

static inline void store_be64(uint8_t *p, uint64_t v)
{
	store_be32(p, (uint32_t)(v >> 32));
	store_be32(p + 4, (uint32_t)v);
}

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint64_t load_le64(const uint8_t *p)
{
	return (uint64_t)load_le32(p) | (uint64_t)load_le32(p + 4) << 32;
}

static inline void store_le64(uint8_t *p, uint64_t v)
{
	store_le32(p, (uint32_t)v);
	store_le32(p + 4, (uint32_t)(v >> 32));
}

#endif
