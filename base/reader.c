#include "base/reader.h"

#include <string.h>

int hs_read_view(struct hs_reader *r, size_t n, const uint8_t **p)
{
	if (n > r->len)
		return HS_ERR_TRUNCATED;
	*p = r->p;
	r->p += n;
	r->len -= n;
	return 0;
}

int hs_read_skip(struct hs_reader *r, size_t n)
{
	const uint8_t *p;
	return hs_read_view(r, n, &p);
}

int hs_read_bytes(struct hs_reader *r, void *out, size_t n)
{
	const uint8_t *p;
	int err = hs_read_view(r, n, &p);
	if (err == 0 && n > 0)
		memcpy(out, p, n);
	return err;
}

static int read_be(struct hs_reader *r, unsigned n, uint32_t *v)
{
	const uint8_t *p;
	int err = hs_read_view(r, n, &p);
	if (err)
		return err;
	uint32_t x = 0;
	for (unsigned i = 0; i < n; i++)
		x = (x << 8) | p[i];
	*v = x;
	return 0;
}

int hs_read_u8(struct hs_reader *r, uint8_t *v)
{
	uint32_t x;
	int err = read_be(r, 1, &x);
	if (err == 0)
		*v = (uint8_t)x;
	return err;
}

int hs_read_u16(struct hs_reader *r, uint16_t *v)
{
	uint32_t x;
	int err = read_be(r, 2, &x);
	if (err == 0)
		*v = (uint16_t)x;
	return err;
}

int hs_read_u24(struct hs_reader *r, uint32_t *v) { return read_be(r, 3, v); }

int hs_read_u32(struct hs_reader *r, uint32_t *v) { return read_be(r, 4, v); }

int hs_read_sub(struct hs_reader *r, size_t n, struct hs_reader *sub)
{
	const uint8_t *p;
	int err = hs_read_view(r, n, &p);
	if (err == 0)
		*sub = hs_reader_init(p, n);
	return err;
}

int hs_read_vec(struct hs_reader *r, unsigned len_bytes, size_t min, size_t max,
		struct hs_reader *sub)
{
	struct hs_reader save = *r;
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
	err = hs_read_sub(r, n, sub);
	if (err)
		*r = save;
	return err;
}

int hs_read_end(const struct hs_reader *r)
{
	return r->len == 0 ? 0 : HS_ERR_TRAILING;
}
