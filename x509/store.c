/*
 * The trust store: a growable array of trust anchors, each a private
 * copy of its DER and the parsed view of it.
 *
 * Implementation notes: allocation happens only while loading (one
 * buffer per anchor, the array doubles); lookups during verification are
 * linear scans comparing subject names byte for byte, which is fast
 * enough for a system bundle (~150 roots) and allocates nothing.
 * Anchors that do not parse are skipped when loading a bundle; identical
 * certificates are stored once (a directory like /etc/ssl/certs holds
 * each root several times: file, hash link, and the bundle).
 */
#define _POSIX_C_SOURCE 200809L

#include "x509/x509.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


#define PEM_CERT_MAX 65536

struct anchor {
	uint8_t *der;
	size_t len;
	struct x509_cert cert; /* views into der */
};

struct hs_x509_store {
	struct anchor *a;
	size_t n, cap;
};

int hs_x509_store_new(struct hs_x509_store **out)
{
	*out = calloc(1, sizeof(**out));
	return *out == NULL ? HS_ERR_NOMEM : 0;
}

void hs_x509_store_free(struct hs_x509_store *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->a[i].der);
	free(s->a);
	free(s);
}

size_t hs_x509_store_count(const struct hs_x509_store *s)
{
	return s->n;
}

const struct x509_cert *x509_store_at(const struct hs_x509_store *s, size_t i)
{
	return i < s->n ? &s->a[i].cert : NULL;
}

static int has_der(const struct hs_x509_store *s, const uint8_t *der, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->a[i].len == len && memcmp(s->a[i].der, der, len) == 0)
			return 1;
	return 0;
}

int hs_x509_store_add_der(struct hs_x509_store *s, const uint8_t *der, size_t len)
{
	struct anchor *a;
	uint8_t *copy;

	ENSURE(s != NULL && der != NULL, HS_ERR_ARG);
	if (has_der(s, der, len))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		a = realloc(s->a, cap * sizeof(*a));
		ENSURE(a != NULL, HS_ERR_NOMEM);
		s->a = a;
		s->cap = cap;
	}
	copy = malloc(len);
	ENSURE(copy != NULL, HS_ERR_NOMEM);
	memcpy(copy, der, len);
	a = &s->a[s->n];
	int err = x509_cert_parse(&a->cert, copy, len);
	if (err != 0) {
		free(copy);
		return err;
	}
	a->der = copy;
	a->len = len;
	s->n++;
	return 0;
}

/* Step text past the next BEGIN line (after a block that failed to decode). */
static void skip_block(struct reader *text)
{
	static const char begin[] = "-----BEGIN ";
	size_t k = sizeof(begin) - 1, i;

	for (i = 0; i + k <= text->len; i++)
		if (memcmp(text->p + i, begin, k) == 0)
			break;
	i = i + k <= text->len ? i + k : text->len;
	if (read_skip(text, i) != 0)
		*text = reader_init(NULL, 0);
}

int hs_x509_store_add_pem(struct hs_x509_store *s, const char *pem, size_t len, size_t *n_added)
{
	struct reader text = reader_init(pem, len);
	size_t added = 0, der_len;
	int first_err = 0, err;
	uint8_t *der = malloc(PEM_CERT_MAX);

	ENSURE(der != NULL, HS_ERR_NOMEM);
	for (;;) {
		struct reader save = text;
		err = pem_next(&text, "CERTIFICATE", der, PEM_CERT_MAX, &der_len);
		if (err == HS_ERR_TRUNCATED)
			break; /* no further block */
		if (err == 0) {
			err = hs_x509_store_add_der(s, der, der_len);
			added += err == 0; /* new, or already there */
		} else {
			text = save;
			skip_block(&text);
		}
		if (err == HS_ERR_NOMEM) {
			first_err = err;
			break;
		}
		if (err != 0 && first_err == 0)
			first_err = err;
	}
	free(der);
	if (n_added != NULL)
		*n_added = added;
	if (first_err == HS_ERR_NOMEM || (added == 0 && first_err != 0))
		return first_err;
	return 0;
}

int hs_x509_store_load_file(struct hs_x509_store *s, const char *path)
{
	char *buf;
	size_t len, added = 0;
	int err;

	ENSURE(s != NULL && path != NULL, HS_ERR_ARG);
	x509_load_detail_clear();
	err = hs_read_file(path, &buf, &len); /* says which file and why */
	if (err != 0)
		return err == HS_ERR_NOMEM ? err : HS_ERR_X509_NO_ANCHORS;
	err = hs_x509_store_add_pem(s, buf, len, &added);
	free(buf);
	if (err == 0 && added == 0)
		err = HS_ERR_X509_NO_ANCHORS; /* no certificate in the file */
	if (err != 0)
		x509_load_detail("%s: no certificate could be loaded: %s", path, hs_strerror(err));
	return err;
}

int hs_x509_store_load_dir(struct hs_x509_store *s, const char *dir)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	char path[4096];
	size_t files_ok = 0;
	int err = 0;

	ENSURE(s != NULL && dir != NULL, HS_ERR_ARG);
	d = opendir(dir);
	ENSURE(d != NULL, HS_ERR_X509_NO_ANCHORS);
	while (err != HS_ERR_NOMEM && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		/* follows symlinks; only regular files of sane size */
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 24))
			continue;
		err = hs_x509_store_load_file(s, path);
		files_ok += err == 0;
	}
	closedir(d);
	if (err == HS_ERR_NOMEM)
		return err;
	return files_ok > 0 ? 0 : HS_ERR_X509_NO_ANCHORS;
}

int hs_x509_store_load_default(struct hs_x509_store *s)
{
	return hs_x509_store_load_file(s, HS_X509_DEFAULT_BUNDLE);
}
