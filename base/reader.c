#include "base/reader.h"

#include <string.h>

int read_view(struct reader *r, size_t n, const uint8_t **p)
{
	if (n > r->len)
		return HS_ERR_TRUNCATED;
	*p = r->p;
	r->p += n;
	r->len -= n;
	return 0;
}

int read_skip(struct reader *r, size_t n)
{
	const uint8_t *p;
	return read_view(r, n, &p);
}

int read_bytes(struct reader *r, void *out, size_t n)
{
	const uint8_t *p;
	int err = read_view(r, n, &p);
	if (err == 0 && n > 0)
		memcpy(out, p, n);
	return err;
}

static int read_be(struct reader *r, unsigned n, uint32_t *v)
{
	const uint8_t *p;
	int err = read_view(r, n, &p);
	if (err)
		return err;
	uint32_t x = 0;
	for (unsigned i = 0; i < n; i++)
		x = (x << 8) | p[i];
	*v = x;
	return 0;
}

int read_u8(struct reader *r, uint8_t *v)
{
	uint32_t x;
	int err = read_be(r, 1, &x);
	if (err == 0)
		*v = (uint8_t)x;
	return err;
}

int read_u16(struct reader *r, uint16_t *v)
{
	uint32_t x;
	int err = read_be(r, 2, &x);
	if (err == 0)
		*v = (uint16_t)x;
	return err;
}

int read_u24(struct reader *r, uint32_t *v) { return read_be(r, 3, v); }

int read_u32(struct reader *r, uint32_t *v) { return read_be(r, 4, v); }

int read_sub(struct reader *r, size_t n, struct reader *sub)
{
	const uint8_t *p;
	int err = read_view(r, n, &p);
	if (err == 0)
		*sub = reader_init(p, n);
	return err;
}

int read_vec(struct reader *r, unsigned len_bytes, size_t min, size_t max,
		struct reader *sub)
{
	struct reader save = *r;
	uint32_t n;
	int err;

	if (len_bytes < 1 || len_bytes > 3)
		return HS_ERR_ARG;
	err = read_be(r, len_bytes, &n);
	if (err)
		return err;
	if (n < min || n > max) {
		*r = save;
		return HS_ERR_BAD_ENCODING;
	}
	err = read_sub(r, n, sub);
	if (err)
		*r = save;
	return err;
}

int read_end(const struct reader *r)
{
	return r->len == 0 ? 0 : HS_ERR_TRAILING;
}
