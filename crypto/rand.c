/*
 * getrandom(2) with flags 0 blocks until the pool is initialised, may
 * return fewer bytes than asked (above 256 bytes, or on a signal) and may
 * fail with EINTR; loop until done.
 */
#include "crypto/rand.h"

#include <errno.h>
#include <stdint.h>
#include <sys/random.h>

int rand_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return HS_ERR_RAND;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
