#include "base/writer.h"

#include <string.h>

uint8_t *write_reserve(struct writer *w, size_t n)
{
	uint8_t *p;

	if (w->err)
		return NULL;
	if (n > w->cap - w->len) {
		w->err = HS_ERR_NO_SPACE;
		return NULL;
	}
	p = w->buf + w->len;
	w->len += n;
	return p;
}

static int write_be(struct writer *w, uint32_t v, unsigned n)
{
	uint8_t *p = write_reserve(w, n);
	if (p == NULL)
		return w->err;
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	return 0;
}

int write_u8(struct writer *w, uint8_t v) { return write_be(w, v, 1); }
int write_u16(struct writer *w, uint16_t v) { return write_be(w, v, 2); }
int write_u24(struct writer *w, uint32_t v) { return write_be(w, v, 3); }
int write_u32(struct writer *w, uint32_t v) { return write_be(w, v, 4); }

int write_bytes(struct writer *w, const void *p, size_t n)
{
	uint8_t *d = write_reserve(w, n);
	if (d == NULL)
		return w->err;
	if (n > 0)
		memcpy(d, p, n);
	return 0;
}

int write_vec_open(struct writer *w, unsigned len_bytes, struct writer_vec *v)
{
	if (len_bytes < 1 || len_bytes > 3)
		return w->err = HS_ERR_ARG;
	v->at = w->len;
	v->len_bytes = len_bytes;
	return write_be(w, 0, len_bytes);
}

int write_vec_close(struct writer *w, const struct writer_vec *v)
{
	size_t body;

	if (w->err)
		return w->err;
	body = w->len - v->at - v->len_bytes;
	if (body >> (8 * v->len_bytes))
		return w->err = HS_ERR_TOO_LONG;
	for (unsigned i = 0; i < v->len_bytes; i++)
		w->buf[v->at + i] = (uint8_t)(body >> (8 * (v->len_bytes - 1 - i)));
	return 0;
}
