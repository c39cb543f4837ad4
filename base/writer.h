/*
 * hs_writer: the one bounds-checked cursor for output. Writes past the end
 * fail with HS_ERR_NO_SPACE and set a sticky error, so a builder can write
 * a whole message and check once with hs_writer_error().
 *
 * Length-prefixed vectors: hs_write_vec_open() reserves the length field
 * and returns its position; hs_write_vec_close() fills it in after the body
 * is written, failing if the body is larger than the field can hold.
 */
#ifndef HS_BASE_WRITER_H
#define HS_BASE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct hs_writer {
	uint8_t *buf;
	size_t cap;
	size_t len;
	int err;
};

static inline struct hs_writer hs_writer_init(void *buf, size_t cap)
{
	struct hs_writer w = { (uint8_t *)buf, cap, 0, 0 };
	return w;
}

static inline int hs_writer_error(const struct hs_writer *w) { return w->err; }

int hs_write_u8(struct hs_writer *w, uint8_t v);
int hs_write_u16(struct hs_writer *w, uint16_t v);
int hs_write_u24(struct hs_writer *w, uint32_t v);
int hs_write_u32(struct hs_writer *w, uint32_t v);
int hs_write_bytes(struct hs_writer *w, const void *p, size_t n);
/* Reserve n bytes and return a pointer to them (NULL on failure). */
uint8_t *hs_write_reserve(struct hs_writer *w, size_t n);

struct hs_writer_vec {
	size_t at;          /* offset of the length field */
	unsigned len_bytes; /* 1, 2 or 3 */
};

int hs_write_vec_open(struct hs_writer *w, unsigned len_bytes, struct hs_writer_vec *v);
int hs_write_vec_close(struct hs_writer *w, const struct hs_writer_vec *v);

#endif
