/*
 * handshaked/conf.c: the configuration. tlshd's file format, unchanged (the
 * version Debian ships: a GLib key file): [debug] loglevel/tls/nl,
 * [authenticate] keyrings, [authenticate.client] and [authenticate.server]
 * x509.truststore / x509.certificate / x509.private_key. Our own options
 * live in [handshaked] (handshaked.conf(5)); tlshd ignores that section.
 */
#ifndef HS_HANDSHAKED_CONF_H
#define HS_HANDSHAKED_CONF_H

#include <stddef.h>

#define HSD_PATH_MAX 512
#define HSD_MAX_KEYRINGS 8
#define HSD_MAX_HANDSHAKES 1000 /* max_handshakes: memory stays bounded */

struct hsd_role_conf {
	char truststore[HSD_PATH_MAX]; /* "" = the system's roots */
	char certificate[HSD_PATH_MAX];
	char private_key[HSD_PATH_MAX];
};

struct hsd_conf {
	int loglevel, debug_tls, debug_nl;
	char keyrings[HSD_MAX_KEYRINGS][64];
	size_t n_keyrings;
	struct hsd_role_conf client, server;
	/* [handshaked] */
	char socket_path[108];  /* application hand-off socket ("" = none) */
	char socket_group[64];  /* group allowed to connect to it ("" = root only) */
	unsigned max_handshakes; /* in flight at once (default 64, 1..HSD_MAX_HANDSHAKES) */
};

/*
 * Read path into *c (defaults first). 0, or -1 with the reason in why
 * ("tlshd.conf:12: not a key=value line"). Keys and groups we do not know
 * are ignored, as tlshd does.
 */
int hsd_conf_load(const char *path, struct hsd_conf *c, char *why, size_t cap);
void hsd_conf_defaults(struct hsd_conf *c);

#endif
