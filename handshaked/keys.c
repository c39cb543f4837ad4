/*
 * Keys from the kernel keyrings (libkeyutils): the upcall names them by
 * serial; their payloads are read with keyctl_read_alloc and wiped as soon
 * as they are copied where they are used.
 */
#define _GNU_SOURCE
#include "handshaked/keys.h"

#include <errno.h>
#include <keyutils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wipe.h"
#include "hs/cred.h"
#include "hs/x509_write.h"

/* The payload of key serial; *out is freed by the caller (wiped first). */
static int read_key(int32_t serial, uint8_t **out, size_t *len)
{
	void *p = NULL;
	long n = keyctl_read_alloc((key_serial_t)serial, &p);

	if (n < 0 || p == NULL)
		return -1;
	*out = p;
	*len = (size_t)n;
	return 0;
}

int hsd_key_psk(int32_t serial, uint8_t *key, size_t cap, size_t *len, char *identity, size_t id_cap)
{
	char *desc = NULL, *name;
	uint8_t *p = NULL;
	size_t n = 0;
	int rc = -1;

	if (read_key(serial, &p, &n) != 0)
		return -1;
	/* "type;uid;gid;perm;description": the identity is what follows the fourth ';' */
	if (keyctl_describe_alloc((key_serial_t)serial, &desc) >= 0 && desc != NULL) {
		name = desc;
		for (int i = 0; i < 4 && name != NULL; i++) {
			name = strchr(name, ';');
			name = name != NULL ? name + 1 : NULL;
		}
		if (name != NULL && *name != '\0' && strlen(name) < id_cap && n > 0 && n <= cap) {
			memcpy(key, p, n);
			*len = n;
			snprintf(identity, id_cap, "%s", name);
			rc = 0;
		}
	}
	free(desc);
	wipe(p, n);
	free(p);
	return rc;
}

int32_t hsd_key_psk_find(int32_t keyring, const uint8_t *identity, size_t len, uint8_t *key,
			 size_t cap, size_t *key_len)
{
	static const char *const types[] = { "psk", "user" };
	key_serial_t rings[2] = { (key_serial_t)keyring, KEY_SPEC_SESSION_KEYRING };
	char desc[256];
	uint8_t *p = NULL;
	size_t n = 0;

	/* a description: printable, no NUL, shorter than the buffer */
	if (len == 0 || len >= sizeof(desc))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (identity[i] < 0x20 || identity[i] > 0x7e)
			return -1;
	memcpy(desc, identity, len);
	desc[len] = '\0';
	for (size_t r = keyring > 0 ? 0 : 1; r < 2; r++)
		for (size_t t = 0; t < 2; t++) {
			long k = keyctl_search(rings[r], types[t], desc, 0);

			if (k <= 0 || read_key((int32_t)k, &p, &n) != 0)
				continue;
			if (n == 0 || n > cap) {
				wipe(p, n);
				free(p);
				return -1;
			}
			memcpy(key, p, n);
			*key_len = n;
			wipe(p, n);
			free(p);
			return (int32_t)k;
		}
	return -1;
}

int hsd_key_cred(int32_t cert_serial, int32_t key_serial, struct hs_cred **out)
{
	uint8_t *cert = NULL, *key = NULL;
	size_t cert_len = 0, key_len = 0, cp_len = 0, kp_len = 0;
	char *cert_pem = NULL, *key_pem = NULL;
	int rc = -1;

	if (read_key(cert_serial, &cert, &cert_len) != 0 || read_key(key_serial, &key, &key_len) != 0)
		goto out;
	/* the one credential loader takes PEM: wrap the DER (4/3 + line breaks) */
	cert_pem = malloc(cert_len * 2 + 128);
	key_pem = malloc(key_len * 2 + 128);
	if (cert_pem == NULL || key_pem == NULL ||
	    hs_pem_write(cert_pem, cert_len * 2 + 128, &cp_len, "CERTIFICATE", cert, cert_len) != 0 ||
	    hs_pem_write(key_pem, key_len * 2 + 128, &kp_len, "PRIVATE KEY", key, key_len) != 0)
		goto out;
	rc = hs_cred_load_pem(out, cert_pem, cp_len, key_pem, kp_len) == 0 ? 0 : -1;
out:
	if (key != NULL)
		wipe(key, key_len);
	if (key_pem != NULL)
		wipe(key_pem, key_len * 2 + 128);
	free(cert);
	free(key);
	free(cert_pem);
	free(key_pem);
	return rc;
}

int32_t hsd_keyring_link(const char *name, char *why, size_t cap)
{
	char *end = NULL, *desc = NULL;
	long n = strtol(name, &end, 0);
	key_serial_t k;

	/* a serial number, or a description found in our keyrings, else in /proc/keys */
	k = *name != '\0' && *end == '\0' && n > 0 && n <= INT32_MAX
		    ? (key_serial_t)n
		    : find_key_by_type_and_desc("keyring", name, 0);
	if (k < 0) {
		snprintf(why, cap, "keyring %s: %s", name, strerror(errno));
		return -1;
	}
	if (keyctl_describe_alloc(k, &desc) < 0 || strncmp(desc, "keyring;", 8) != 0) {
		snprintf(why, cap, "keyring %s: %s", name, desc == NULL ? strerror(errno) : "not a keyring");
		free(desc);
		return -1;
	}
	free(desc);
	if (keyctl_link(k, KEY_SPEC_SESSION_KEYRING) < 0) {
		snprintf(why, cap, "keyring %s: linking it into the session keyring: %s", name,
			 strerror(errno));
		return -1;
	}
	return k;
}

int32_t hsd_key_peer_cert(const uint8_t *der, size_t len, const char *peername)
{
	char desc[300];
	key_serial_t k;

	snprintf(desc, sizeof(desc), "TLS x509 %s", peername);
	/* in our session keyring (tlshd uses its user keyring): possessed, so we may
	 * give it an end; the consumer finds it by its serial wherever it is */
	k = add_key("asymmetric", desc, der, len, KEY_SPEC_SESSION_KEYRING);
	if (k < 0)
		return -1;
	/* without an end, a daemon doing many handshakes would fill its user's key
	 * quota (tlshd's keys never end) */
	if (keyctl_set_timeout(k, HSD_PEER_KEY_SECS) < 0) {
		(void)keyctl_invalidate(k);
		return -1;
	}
	return k;
}
