/*
 * A small JSON reader for test data (Wycheproof files): parses a whole
 * document into a tree. Test-only; not for hostile input at scale.
 */
#ifndef HS_TESTS_JSON_H
#define HS_TESTS_JSON_H

#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	double number;    /* JSON_NUMBER, JSON_BOOL (0/1) */
	char *string;     /* JSON_STRING (NUL-terminated, escapes decoded) */
	char **keys;      /* JSON_OBJECT: keys[i] names items[i] */
	struct json **items; /* JSON_ARRAY, JSON_OBJECT */
	size_t count;
};

/* NULL on a syntax error (a message goes to stderr). */
struct json *json_parse(const char *text, size_t len);
/* Read and parse a file; NULL if missing or malformed. */
struct json *json_load_file(const char *path);
void json_free(struct json *j);

/* Object member by key, or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
/* String member by key, or NULL if absent or not a string. */
const char *json_get_str(const struct json *obj, const char *key);
/* Number member by key, or def. */
double json_get_num(const struct json *obj, const char *key, double def);

#endif
