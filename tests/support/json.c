/* Recursive-descent JSON parser for tests/support/json.h. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *p, *end;
	int depth;
};

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
		ps->p++;
}

static struct json *new_node(enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));
	if (j)
		j->type = t;
	return j;
}

static int put_utf8(char *out, size_t *n, unsigned cp)
{
	if (cp < 0x80) {
		out[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (char)(0xc0 | (cp >> 6));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*n)++] = (char)(0xe0 | (cp >> 12));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | (cp >> 18));
		out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
	return 0;
}

static int hex4(const char *s, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static char *parse_string(struct parser *ps)
{
	const char *s = ps->p + 1;
	char *out;
	size_t n = 0;

	/* the decoded string is never longer than the escaped one */
	const char *q = s;
	while (q < ps->end && *q != '"')
		q += (*q == '\\') ? 2 : 1;
	if (q >= ps->end)
		return NULL;
	out = malloc((size_t)(q - s) + 4);
	if (!out)
		return NULL;
	while (s < q) {
		if (*s != '\\') {
			out[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'u': {
			unsigned cp, lo;
			if (q - s < 5 || hex4(s + 1, &cp)) {
				free(out);
				return NULL;
			}
			s += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && q - s >= 7 && s[1] == '\\' &&
			    s[2] == 'u' && hex4(s + 3, &lo) == 0) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				s += 6;
			}
			put_utf8(out, &n, cp);
			break;
		}
		default: out[n++] = *s; break;
		}
		s++;
	}
	out[n] = 0;
	ps->p = q + 1;
	return out;
}

static struct json *parse_value(struct parser *ps);

static int grow(struct json *j, size_t *cap, int with_keys)
{
	if (j->count < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 8;
	void *items = realloc(j->items, *cap * sizeof(*j->items));
	if (!items)
		return -1;
	j->items = items;
	if (with_keys) {
		void *keys = realloc(j->keys, *cap * sizeof(*j->keys));
		if (!keys)
			return -1;
		j->keys = keys;
	}
	return 0;
}

static struct json *parse_container(struct parser *ps, int object)
{
	struct json *j = new_node(object ? JSON_OBJECT : JSON_ARRAY);
	size_t cap = 0;
	char close = object ? '}' : ']';

	if (!j)
		return NULL;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return j;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(ps);
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"' || !(key = parse_string(ps)))
				goto fail;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				goto fail;
			}
			ps->p++;
		}
		struct json *v = parse_value(ps);
		if (!v || grow(j, &cap, object)) {
			free(key);
			json_free(v);
			goto fail;
		}
		if (object)
			j->keys[j->count] = key;
		j->items[j->count++] = v;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return j;
		}
		goto fail;
	}
fail:
	json_free(j);
	return NULL;
}

static struct json *parse_value(struct parser *ps)
{
	struct json *j;

	skip_ws(ps);
	if (ps->p >= ps->end || ps->depth > 64)
		return NULL;
	switch (*ps->p) {
	case '{':
	case '[':
		ps->depth++;
		j = parse_container(ps, *ps->p == '{');
		ps->depth--;
		return j;
	case '"':
		j = new_node(JSON_STRING);
		if (j && !(j->string = parse_string(ps))) {
			free(j);
			return NULL;
		}
		return j;
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = { "true", "false", "null" };
		for (int i = 0; i < 3; i++) {
			size_t wl = strlen(words[i]);
			if ((size_t)(ps->end - ps->p) >= wl && memcmp(ps->p, words[i], wl) == 0) {
				ps->p += wl;
				j = new_node(i == 2 ? JSON_NULL : JSON_BOOL);
				if (j)
					j->number = (i == 0);
				return j;
			}
		}
		return NULL;
	}
	default: {
		char buf[64];
		size_t n = 0;
		while (ps->p + n < ps->end && n < sizeof(buf) - 1 &&
		       strchr("+-0123456789.eE", ps->p[n]) != NULL)
			n++;
		if (n == 0)
			return NULL;
		memcpy(buf, ps->p, n);
		buf[n] = 0;
		ps->p += n;
		j = new_node(JSON_NUMBER);
		if (j)
			j->number = strtod(buf, NULL);
		return j;
	}
	}
}

struct json *json_parse(const char *text, size_t len)
{
	struct parser ps = { text, text + len, 0 };
	struct json *j = parse_value(&ps);
	skip_ws(&ps);
	if (!j || ps.p != ps.end) {
		fprintf(stderr, "json: syntax error at offset %zu\n", (size_t)(ps.p - text));
		json_free(j);
		return NULL;
	}
	return j;
}

struct json *json_load_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	struct json *j = NULL;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) != NULL) {
		if (fread(buf, 1, (size_t)n, f) == (size_t)n)
			j = json_parse(buf, (size_t)n);
		free(buf);
	}
	fclose(f);
	return j;
}

void json_free(struct json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->count; i++) {
		json_free(j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->string);
	free(j);
}

const struct json *json_get(const struct json *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->count; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return obj->items[i];
	return NULL;
}

const char *json_get_str(const struct json *obj, const char *key)
{
	const struct json *v = json_get(obj, key);
	return v && v->type == JSON_STRING ? v->string : NULL;
}

double json_get_num(const struct json *obj, const char *key, double def)
{
	const struct json *v = json_get(obj, key);
	return v && (v->type == JSON_NUMBER || v->type == JSON_BOOL) ? v->number : def;
}
