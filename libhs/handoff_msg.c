/*
 * The hand-off messages (handoff_msg.h) through the one bounds-checked
 * reader and writer (base/). Every decode checks each length, refuses a
 * NUL inside a string, and refuses bytes after the last field.
 */
#include "libhs/handoff_msg.h"

#include <string.h>

#include "base/reader.h"
#include "base/writer.h"
#include "hs/err.h"

#define VERSION 1

static int put_str(struct writer *w, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n >= HS_HANDOFF_TEXT_MAX)
		return HS_ERR_TOO_LONG;
	write_u16(w, (uint16_t)n);
	return write_bytes(w, s, n);
}

static int get_str(struct reader *r, char *out)
{
	const uint8_t *p;
	uint16_t n;

	if (read_u16(r, &n) != 0 || n >= HS_HANDOFF_TEXT_MAX || read_view(r, n, &p) != 0 ||
	    memchr(p, 0, n) != NULL)
		return HS_ERR_BAD_ENCODING;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

static int magic(struct reader *r, const char *m)
{
	const uint8_t *p;
	uint8_t v;

	if (read_view(r, 4, &p) != 0 || memcmp(p, m, 4) != 0 || read_u8(r, &v) != 0 || v != VERSION)
		return HS_ERR_BAD_ENCODING;
	return 0;
}

int handoff_req_encode(const struct hs_handoff_request *q, uint8_t *out, size_t cap, size_t *len)
{
	struct writer w = writer_init(out, cap);
	int err;

	write_bytes(&w, "HSHO", 4);
	write_u8(&w, VERSION);
	write_u8(&w, q->role == HS_HANDOFF_SERVER ? 1 : 0);
	write_u32(&w, q->timeout_ms);
	if ((err = put_str(&w, q->server_name)) != 0 || (err = put_str(&w, q->alpn)) != 0 ||
	    (err = put_str(&w, q->credential)) != 0)
		return err;
	if (writer_error(&w))
		return HS_ERR_NO_SPACE;
	*len = w.len;
	return 0;
}

int handoff_req_decode(const uint8_t *in, size_t len, struct handoff_req *q)
{
	struct reader r = reader_init(in, len);

	memset(q, 0, sizeof(*q));
	if (magic(&r, "HSHO") != 0 || read_u8(&r, &q->role) != 0 || q->role > 1 ||
	    read_u32(&r, &q->timeout_ms) != 0 || get_str(&r, q->server_name) != 0 ||
	    get_str(&r, q->alpn) != 0 || get_str(&r, q->credential) != 0 || read_end(&r) != 0)
		return HS_ERR_BAD_ENCODING;
	return 0;
}

int handoff_res_encode(const struct hs_handoff_result *s, uint8_t *out, size_t cap, size_t *len)
{
	struct writer w = writer_init(out, cap);
	int err;

	write_bytes(&w, "HSHR", 4);
	write_u8(&w, VERSION);
	write_u32(&w, (uint32_t)s->status);
	write_u16(&w, (uint16_t)(int16_t)s->alert);
	write_u16(&w, s->suite);
	if ((err = put_str(&w, s->alpn)) != 0 || (err = put_str(&w, s->peer)) != 0 ||
	    (err = put_str(&w, s->detail)) != 0)
		return err;
	if (writer_error(&w))
		return HS_ERR_NO_SPACE;
	*len = w.len;
	return 0;
}

int handoff_res_decode(const uint8_t *in, size_t len, struct hs_handoff_result *s)
{
	struct reader r = reader_init(in, len);
	uint32_t status;
	uint16_t alert;

	memset(s, 0, sizeof(*s));
	if (magic(&r, "HSHR") != 0 || read_u32(&r, &status) != 0 || read_u16(&r, &alert) != 0 ||
	    read_u16(&r, &s->suite) != 0 || get_str(&r, s->alpn) != 0 || get_str(&r, s->peer) != 0 ||
	    get_str(&r, s->detail) != 0 || read_end(&r) != 0)
		return HS_ERR_BAD_ENCODING;
	s->status = (int32_t)status;
	s->alert = (int16_t)alert;
	return 0;
}
