/*
 * The configuration file: tlshd's format (a GLib key file: "[group]"
 * lines, "key=value" lines, '#' comments, lists separated by ';'), read
 * line by line. Keys tlshd knows and we have no use for are accepted and
 * ignored, so an administrator's file works unchanged; a line that is no
 * key file syntax is an error with its line number.
 */
#define _POSIX_C_SOURCE 200809L
#include "handshaked/conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hsd_conf_defaults(struct hsd_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->max_handshakes = 64;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int set_str(char *dst, size_t cap, const char *v)
{
	if (strlen(v) >= cap)
		return -1;
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

static int set_int(int *dst, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (*v == '\0' || *end != '\0' || n < 0 || n > 1000)
		return -1;
	*dst = (int)n;
	return 0;
}

static int set_keyrings(struct hsd_conf *c, char *v)
{
	char *save = NULL;

	c->n_keyrings = 0;
	for (char *t = strtok_r(v, ";", &save); t != NULL; t = strtok_r(NULL, ";", &save)) {
		t = trim(t);
		if (*t == '\0')
			continue;
		if (c->n_keyrings == HSD_MAX_KEYRINGS ||
		    set_str(c->keyrings[c->n_keyrings], sizeof(c->keyrings[0]), t) != 0)
			return -1;
		c->n_keyrings++;
	}
	return 0;
}

static int role_key(struct hsd_role_conf *r, const char *k, const char *v)
{
	if (strcmp(k, "x509.truststore") == 0)
		return set_str(r->truststore, sizeof(r->truststore), v);
	if (strcmp(k, "x509.certificate") == 0)
		return set_str(r->certificate, sizeof(r->certificate), v);
	if (strcmp(k, "x509.private_key") == 0)
		return set_str(r->private_key, sizeof(r->private_key), v);
	return 1; /* not one of ours */
}

/* 0 taken, 1 unknown (ignored), -1 bad value */
static int one_key(struct hsd_conf *c, const char *sec, const char *k, char *v)
{
	if (strcmp(sec, "debug") == 0) {
		if (strcmp(k, "loglevel") == 0)
			return set_int(&c->loglevel, v);
		if (strcmp(k, "tls") == 0)
			return set_int(&c->debug_tls, v);
		if (strcmp(k, "nl") == 0)
			return set_int(&c->debug_nl, v);
		return 1;
	}
	if (strcmp(sec, "authenticate") == 0)
		return strcmp(k, "keyrings") == 0 ? set_keyrings(c, v) : 1;
	if (strcmp(sec, "authenticate.client") == 0)
		return role_key(&c->client, k, v);
	if (strcmp(sec, "authenticate.server") == 0)
		return role_key(&c->server, k, v);
	if (strcmp(sec, "handshaked") == 0) {
		int n;

		if (strcmp(k, "socket") == 0)
			return set_str(c->socket_path, sizeof(c->socket_path), v);
		if (strcmp(k, "socket_group") == 0)
			return set_str(c->socket_group, sizeof(c->socket_group), v);
		if (strcmp(k, "max_handshakes") == 0) {
			if (set_int(&n, v) != 0 || n <= 0 || n > HSD_MAX_HANDSHAKES)
				return -1;
			c->max_handshakes = (unsigned)n;
			return 0;
		}
		return 1;
	}
	return 1;
}

int hsd_conf_load(const char *path, struct hsd_conf *c, char *why, size_t cap)
{
	char line[2048], sec[64] = "";
	unsigned no = 0;
	FILE *f;
	int rc = 0;

	hsd_conf_defaults(c);
	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(why, cap, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		char *s, *eq;

		no++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(why, cap, "%s:%u: line too long", path, no);
			rc = -1;
			break;
		}
		s = trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');

			if (end == NULL || end[1] != '\0' || (size_t)(end - s - 1) >= sizeof(sec)) {
				snprintf(why, cap, "%s:%u: bad group line", path, no);
				rc = -1;
				break;
			}
			*end = '\0';
			snprintf(sec, sizeof(sec), "%s", s + 1);
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL || eq == s || sec[0] == '\0') {
			snprintf(why, cap, "%s:%u: not a key=value line%s", path, no,
				 sec[0] == '\0' && eq != NULL ? " (before any [group])" : "");
			rc = -1;
			break;
		}
		*eq = '\0';
		if (one_key(c, sec, trim(s), trim(eq + 1)) < 0) {
			snprintf(why, cap, "%s:%u: bad value for %s in [%s]", path, no, trim(s), sec);
			rc = -1;
		}
	}
	fclose(f);
	return rc;
}
