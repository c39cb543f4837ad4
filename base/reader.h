/*
 * hs_reader: the one bounds-checked cursor over received bytes. Every
 * parser in hs (TLS messages, extensions, DER, PEM bodies) reads through it;
 * no other code does pointer arithmetic on input.
 *
 * Invariant: p points at len readable bytes. A failed read leaves the
 * reader unchanged and returns HS_ERR_TRUNCATED.
 */
#ifndef HS_BASE_READER_H
#define HS_BASE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct hs_reader {
	const uint8_t *p;
	size_t len;
};

static inline struct hs_reader hs_reader_init(const void *p, size_t len)
{
	struct hs_reader r = { (const uint8_t *)p, len };
	return r;
}

static inline size_t hs_reader_left(const struct hs_reader *r) { return r->len; }

HS_MUST_CHECK int hs_read_u8(struct hs_reader *r, uint8_t *v);
HS_MUST_CHECK int hs_read_u16(struct hs_reader *r, uint16_t *v);
HS_MUST_CHECK int hs_read_u24(struct hs_reader *r, uint32_t *v);
HS_MUST_CHECK int hs_read_u32(struct hs_reader *r, uint32_t *v);
/* Copy n bytes out. */
HS_MUST_CHECK int hs_read_bytes(struct hs_reader *r, void *out, size_t n);
/* Point *p at the next n bytes without copying and advance. */
HS_MUST_CHECK int hs_read_view(struct hs_reader *r, size_t n, const uint8_t **p);
HS_MUST_CHECK int hs_read_skip(struct hs_reader *r, size_t n);
/* Split off the next n bytes as a sub-reader and advance past them. */
HS_MUST_CHECK int hs_read_sub(struct hs_reader *r, size_t n, struct hs_reader *sub);
/*
 * Length-prefixed vector (TLS "opaque x<a..b>"): read a len_bytes (1, 2 or
 * 3) big-endian length, check it lies in [min, max], and split off that
 * many bytes as sub. Out of range gives HS_ERR_BAD_ENCODING.
 */
HS_MUST_CHECK int hs_read_vec(struct hs_reader *r, unsigned len_bytes, size_t min,
			      size_t max, struct hs_reader *sub);
/* HS_ERR_TRAILING unless every byte was consumed. */
HS_MUST_CHECK int hs_read_end(const struct hs_reader *r);

#endif
