/*
 * Random bytes: a per-thread generator keyed from the kernel (getrandom(2));
 * see crypto/rand.c for its design. Safe across threads and fork(2); not
 * async-signal-safe.
 */
#ifndef HS_CRYPTO_RAND_H
#define HS_CRYPTO_RAND_H

#include <stddef.h>

#include "base/err.h"

/* Fill buf with len random bytes; HS_ERR_RAND if the kernel refuses. */
HS_MUST_CHECK int rand_bytes(void *buf, size_t len);

#endif
