/*
 * kTLS diagnostics: the kernel's view of kTLS sockets, through sock_diag
 * (INET_DIAG_ULP_INFO, Linux >= 5.4 for the TLS attributes) read with libmnl,
 * and the counters in /proc/net/tls_stat.
 */
#ifndef HS_KTLS_DIAG_H
#define HS_KTLS_DIAG_H

#include <stdint.h>

#include "base/err.h"

struct ktls_sock {
	int family;          /* AF_INET or AF_INET6 */
	char local[64];      /* "127.0.0.1:4433", "[::1]:4433" */
	char peer[64];
	uint32_t inode;
	uint16_t version;    /* 0x0304 = TLS 1.3 (0: not reported) */
	uint16_t cipher;     /* TLS_CIPHER_* of linux/tls.h (0: none yet) */
	uint16_t txconf, rxconf; /* TLS_CONF_BASE / SW / HW / HW_RECORD */
	int zc_ro_tx, rx_no_pad;
};

/* "sw", "hw", "hw-record", "none" (base: not installed). */
const char *ktls_conf_name(uint16_t conf);
/* "aes-gcm-128", ... as the kernel names them; "?" if unknown. */
const char *ktls_cipher_name(uint16_t kernel_type);

typedef int (*ktls_sock_fn)(void *arg, const struct ktls_sock *s);
/*
 * Call fn for every TCP socket (IPv4 and IPv6) whose ULP is "tls". fn
 * returning non-zero stops the walk and is returned. HS_ERR_UNSUPPORTED if
 * the kernel has no sock_diag for TCP, HS_ERR_INTERNAL on netlink errors.
 */
HS_MUST_CHECK int ktls_list(ktls_sock_fn fn, void *arg);

typedef int (*ktls_stat_fn)(void *arg, const char *name, unsigned long long value);
/*
 * Call fn for each counter of /proc/net/tls_stat. HS_ERR_UNSUPPORTED when
 * the file is absent (no tls module loaded, or no CONFIG_TLS).
 */
HS_MUST_CHECK int ktls_stat(ktls_stat_fn fn, void *arg);

#endif
