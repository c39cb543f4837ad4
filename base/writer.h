/*
 * writer: the one bounds-checked cursor for output. Writes past the end
 * fail with HS_ERR_NO_SPACE and set a sticky error, so a builder can write
 * a whole message and check once with writer_error().
 *
 * Length-prefixed vectors: write_vec_open() reserves the length field
 * and returns its position; write_vec_close() fills it in after the body
 * is written, failing if the body is larger than the field can hold.
 */
#ifndef HS_BASE_WRITER_H
#define HS_BASE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct writer {
	uint8_t *buf;
	size_t cap;
	size_t len;
	int err;
};

static inline struct writer writer_init(void *buf, size_t cap)
{
	struct writer w = { (uint8_t *)buf, cap, 0, 0 };
	return w;
}

static inline int writer_error(const struct writer *w) { return w->err; }

int write_u8(struct writer *w, uint8_t v);
int write_u16(struct writer *w, uint16_t v);
int write_u24(struct writer *w, uint32_t v);
int write_u32(struct writer *w, uint32_t v);
int write_bytes(struct writer *w, const void *p, size_t n);
/* Reserve n bytes and return a pointer to them (NULL on failure). */
uint8_t *write_reserve(struct writer *w, size_t n);

struct writer_vec {
	size_t at;          /* offset of the length field */
	unsigned len_bytes; /* 1, 2 or 3 */
};

int write_vec_open(struct writer *w, unsigned len_bytes, struct writer_vec *v);
int write_vec_close(struct writer *w, const struct writer_vec *v);

#endif
