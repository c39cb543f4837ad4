/* Messages for the error codes of base/err.h. */
#include "base/err.h"

#include <stddef.h>

static const char *const messages[] = {
	[-HS_OK] = "success",
	[-HS_ERR_INTERNAL] = "internal error",
	[-HS_ERR_ARG] = "invalid argument",
	[-HS_ERR_RAND] = "random number generator failed",
	[-HS_ERR_BAD_TAG] = "authentication tag mismatch",
	[-HS_ERR_BAD_POINT] = "invalid elliptic curve point",
	[-HS_ERR_BAD_SIG] = "signature verification failed",
	[-HS_ERR_BAD_ENCODING] = "malformed encoding",
	[-HS_ERR_ZERO_SHARED] = "key exchange produced an all-zero secret",
	[-HS_ERR_TOO_LONG] = "length out of range",
	[-HS_ERR_TRUNCATED] = "input truncated",
	[-HS_ERR_NO_SPACE] = "output buffer too small",
	[-HS_ERR_TRAILING] = "unexpected trailing bytes",
	[-HS_ERR_BAD_KEY] = "invalid private key",
	[-HS_ERR_UNSUPPORTED] = "unsupported algorithm or feature",
	[-HS_ERR_NOMEM] = "out of memory",
};

const char *hs_strerror(int err)
{
	if (err <= 0 && -err < (int)(sizeof(messages) / sizeof(messages[0])) &&
	    messages[-err] != NULL)
		return messages[-err];
	return "unknown error";
}
