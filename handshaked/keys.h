/*
 * handshaked/keys.c: keys the kernel names by serial (the upcall's
 * certificate, private key and PSK identities), read from the kernel
 * keyrings with libkeyutils; the configuration's keyrings linked into our
 * session keyring.
 */
#ifndef HS_HANDSHAKED_KEYS_H
#define HS_HANDSHAKED_KEYS_H

#include <stddef.h>
#include <stdint.h>

struct hs_cred;

/*
 * A PSK: its bytes (at most cap) and its identity, which is the key's
 * description (NVMe-TLS and tlshd name a PSK key by its identity). 0, or -1.
 */
int hsd_key_psk(int32_t serial, uint8_t *key, size_t cap, size_t *len, char *identity,
		size_t id_cap);
/*
 * Server role: the PSK a client offers by identity (the upcall names no key:
 * NVMe targets leave the choice to the ClientHello, as tlshd does). Searched
 * by description, type "psk" (the NVMe keyring's) then "user" (kernels
 * without NVMe: our tests), in keyring (the upcall's, 0 = none) and then in
 * our session keyring (where .nvme is linked). The key's serial and its
 * bytes (at most cap), or -1 (unknown, or an identity that is no name).
 */
int32_t hsd_key_psk_find(int32_t keyring, const uint8_t *identity, size_t len, uint8_t *key,
			 size_t cap, size_t *key_len);
/* A credential from two keys holding a DER certificate and a DER private key. */
int hsd_key_cred(int32_t cert_serial, int32_t key_serial, struct hs_cred **out);
/*
 * The authenticated peer's certificate (DER) as a key for DONE's
 * remote-auth, as tlshd makes it: type "asymmetric" (the kernel parses the
 * certificate), description "TLS x509 " + peername; in our session keyring
 * (tlshd's user keyring would not let us set its end), expiring after
 * HSD_PEER_KEY_SECS. Its serial, or -1 (no asymmetric key
 * type in this kernel, a certificate the kernel's parser refuses, quota).
 */
#define HSD_PEER_KEY_SECS 600
int32_t hsd_key_peer_cert(const uint8_t *der, size_t len, const char *peername);
/*
 * Link a keyring into our session keyring, as tlshd does with the
 * configuration's [authenticate] keyrings=: the keys in it become ours
 * (possessed), so the serials an upcall names from it can be read. name is
 * the keyring's description (".nfs") or its serial number. Its serial, or
 * -1 with the reason in why.
 */
int32_t hsd_keyring_link(const char *name, char *why, size_t cap);

#endif
