/*
 * reader: the one bounds-checked cursor over received bytes. Every
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

struct reader {
	const uint8_t *p;
	size_t len;
};

static inline struct reader reader_init(const void *p, size_t len)
{
	struct reader r = { (const uint8_t *)p, len };
	return r;
}

static inline size_t reader_left(const struct reader *r) { return r->len; }

HS_MUST_CHECK int read_u8(struct reader *r, uint8_t *v);
HS_MUST_CHECK int read_u16(struct reader *r, uint16_t *v);
HS_MUST_CHECK int read_u24(struct reader *r, uint32_t *v);
HS_MUST_CHECK int read_u32(struct reader *r, uint32_t *v);
/* Copy n bytes out. */
HS_MUST_CHECK int read_bytes(struct reader *r, void *out, size_t n);
/* Point *p at the next n bytes without copying and advance. */
HS_MUST_CHECK int read_view(struct reader *r, size_t n, const uint8_t **p);
HS_MUST_CHECK int read_skip(struct reader *r, size_t n);
/* Split off the next n bytes as a sub-reader and advance past them. */
HS_MUST_CHECK int read_sub(struct reader *r, size_t n, struct reader *sub);
/*
 * Length-prefixed vector (TLS "opaque x<a..b>"): read a len_bytes (1, 2 or
 * 3) big-endian length, check it lies in [min, max], and split off that
 * many bytes as sub. Out of range gives HS_ERR_BAD_ENCODING.
 */
HS_MUST_CHECK int read_vec(struct reader *r, unsigned len_bytes, size_t min,
			      size_t max, struct reader *sub);
/* HS_ERR_TRAILING unless every byte was consumed. */
HS_MUST_CHECK int read_end(const struct reader *r);

#endif
