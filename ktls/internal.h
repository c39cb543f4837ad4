/* ktls/ private helpers shared by its files. */
#ifndef HS_KTLS_INTERNAL_H
#define HS_KTLS_INTERNAL_H

#include <stdint.h>

#include "ktls/ktls.h"

#ifndef SOL_TLS
#define SOL_TLS 282
#endif
#ifndef TCP_ULP
#define TCP_ULP 31
#endif

/* The 64-byte aligned AEAD context inside d->aead_buf (round the address up). */
static inline void *ktls_aead_ctx(struct hs_ktls_dir *d)
{
	return (void *)(((uintptr_t)d->aead_buf + 63) & ~(uintptr_t)63);
}

/* setsockopt TLS_TX/TLS_RX from d's key and IV; returns 0 or errno. */
int ktls_set_conf(struct hs_ktls *k, int name, const struct hs_ktls_dir *d, uint64_t seq);
/* Key the userspace AEAD of d. */
HS_MUST_CHECK int ktls_user_key(struct hs_ktls *k, struct hs_ktls_dir *d);
enum hs_ktls_why ktls_why_ulp(int e);
enum hs_ktls_why ktls_why_conf(int e, const struct hs_ktls_cipher *c);

/* Record-level I/O of one direction (record.c). */
HS_MUST_CHECK int ktls_send(struct hs_ktls *k, uint8_t type, const uint8_t *p, size_t len);
HS_MUST_CHECK int ktls_recv(struct hs_ktls *k, uint8_t *type, uint8_t *buf, size_t cap,
			    size_t *n);
/* Record the first fatal error (and send the alert it maps to, if ours). */
int ktls_fail(struct hs_ktls *k, int err, int sys_errno);

#endif
