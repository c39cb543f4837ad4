/*
 * hs error codes: every fallible function returns 0 or one of these
 * (negative) values. The protocol layer maps them to TLS alerts in one
 * table; hs_strerror() gives a human-readable message for each.
 */
#ifndef HS_BASE_ERR_H
#define HS_BASE_ERR_H

#define HS_MUST_CHECK __attribute__((warn_unused_result))

enum hs_err {
	HS_OK = 0,
	HS_ERR_INTERNAL = -1,      /* a bug in hs: should never happen */
	HS_ERR_ARG = -2,           /* invalid argument from the caller */
	HS_ERR_RAND = -3,          /* the system random source failed */
	HS_ERR_BAD_TAG = -4,       /* AEAD authentication failed */
	HS_ERR_BAD_POINT = -5,     /* public key not a valid curve point */
	HS_ERR_BAD_SIG = -6,       /* signature does not verify */
	HS_ERR_BAD_ENCODING = -7,  /* malformed or non-canonical encoding */
	HS_ERR_ZERO_SHARED = -8,   /* key exchange gave an all-zero secret */
	HS_ERR_TOO_LONG = -9,      /* requested output or input too long */
	HS_ERR_TRUNCATED = -10,    /* reader ran out of bytes */
	HS_ERR_NO_SPACE = -11,     /* writer ran out of room */
	HS_ERR_TRAILING = -12,     /* bytes left over where none may be */
	HS_ERR_BAD_KEY = -13,      /* private key out of range or malformed */
	HS_ERR_UNSUPPORTED = -14,  /* algorithm or feature not available */
	HS_ERR_NOMEM = -15,        /* allocation failed */
	HS_ERR_CRYPTO_LAST = -15,
	/* protocol (libhs) errors: from -100 down, added here as they come */
};

/* A short English message for err; never NULL. */
const char *hs_strerror(int err);

#endif
