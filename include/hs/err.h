/*
 * hs error codes: every fallible hs function returns 0 or one of these
 * (negative) values; hs_strerror() gives a short English message for each.
 * Codes near 0 come from the crypto layer, -100 down from the TLS engine
 * (each maps to a TLS alert), -200 down from X.509 certificate checks.
 * Self-contained: needs nothing but this file.
 */
#ifndef HS_ERR_H
#define HS_ERR_H

#ifdef __GNUC__
#define HS_MUST_CHECK __attribute__((warn_unused_result))
#else
#define HS_MUST_CHECK
#endif

/*
 * HS_API marks every public declaration: libhs is compiled with hidden
 * visibility, so only what carries it is exported from libhs.so (with the
 * version script libhs.map as a second fence). ABI rules: include/hs/README.md.
 */
#ifdef __GNUC__
#define HS_API __attribute__((visibility("default")))
#else
#define HS_API
#endif

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
	/* non-blocking sockets (ktls/): nothing is wrong, call again when the socket is ready */
	HS_ERR_WANT_READ = -16,  /* nothing to read yet: poll for POLLIN */
	HS_ERR_WANT_WRITE = -17, /* no room to send, nothing was taken: poll for POLLOUT */
	/* protocol (libhs) errors: from -100 down; libhs/alert.c maps each to a TLS alert */
	HS_ERR_TLS_FIRST = -100,
	HS_ERR_TLS_DECODE = -100,              /* malformed handshake message */
	HS_ERR_TLS_RECORD_HEADER = -101,       /* record header is not TLS */
	HS_ERR_TLS_RECORD_OVERFLOW = -102,     /* record longer than the protocol allows */
	HS_ERR_TLS_BAD_RECORD_MAC = -103,      /* record failed to authenticate */
	HS_ERR_TLS_UNEXPECTED_MSG = -104,      /* handshake message not allowed in this state */
	HS_ERR_TLS_UNEXPECTED_RECORD = -105,   /* record type not allowed in this state */
	HS_ERR_TLS_EMPTY_RECORD = -106,        /* empty or all-padding record where content is required */
	HS_ERR_TLS_KEY_CHANGE_MID_RECORD = -107, /* key change not at a record boundary */
	HS_ERR_TLS_VERSION = -108,             /* peer does not support TLS 1.3 */
	HS_ERR_TLS_NO_SHARED_SUITE = -109,     /* no cipher suite in common */
	HS_ERR_TLS_NO_SHARED_GROUP = -110,     /* no key exchange group in common */
	HS_ERR_TLS_NO_SHARED_SIGALG = -111,    /* no signature scheme in common */
	HS_ERR_TLS_ILLEGAL_PARAM = -112,       /* illegal parameter in handshake message */
	HS_ERR_TLS_BAD_KEY_SHARE = -113,       /* key share does not match the negotiated group */
	HS_ERR_TLS_BAD_SESSION_ID = -114,      /* legacy_session_id echo does not match */
	HS_ERR_TLS_BAD_SUITE = -115,           /* server chose a cipher suite that was not offered */
	HS_ERR_TLS_BAD_HRR = -116,             /* invalid HelloRetryRequest */
	HS_ERR_TLS_BAD_COOKIE = -117,          /* cookie missing or not echoed */
	HS_ERR_TLS_DUP_EXT = -118,             /* duplicate extension */
	HS_ERR_TLS_EXT_NOT_ALLOWED = -119,     /* extension not allowed in this message */
	HS_ERR_TLS_UNSOLICITED_EXT = -120,     /* extension was not offered */
	HS_ERR_TLS_MISSING_EXT = -121,         /* required extension missing */
	HS_ERR_TLS_BAD_FINISHED = -122,        /* Finished verify_data mismatch */
	HS_ERR_TLS_BAD_CERT_VERIFY = -123,     /* CertificateVerify signature does not verify */
	HS_ERR_TLS_BAD_CERT = -124,            /* certificate malformed or missing */
	HS_ERR_TLS_UNSUPPORTED_CERT = -125,    /* certificate key type not supported */
	HS_ERR_TLS_CERT_UNTRUSTED = -126,      /* certificate does not match the pinned trust anchor */
	HS_ERR_TLS_CERT_NAME = -127,           /* certificate not valid for the server name */
	HS_ERR_TLS_NO_ALPN = -128,             /* no application protocol in common */
	HS_ERR_TLS_MSG_TOO_LARGE = -129,       /* handshake message larger than supported */
	HS_ERR_TLS_DOWNGRADE = -130,           /* TLS downgrade sentinel in ServerHello random */
	HS_ERR_TLS_PEER_ALERT = -131,          /* peer sent a fatal alert */
	HS_ERR_TLS_CLOSED = -132,              /* connection closed */
	HS_ERR_TLS_STATE = -133,               /* operation not valid in this connection state */
	HS_ERR_TLS_BAD_CCS = -134,             /* invalid change_cipher_spec record */
	HS_ERR_TLS_BAD_ALERT = -135,           /* malformed alert record */
	HS_ERR_TLS_SEQ_EXHAUSTED = -136,       /* record sequence number exhausted */
	HS_ERR_TLS_NO_CERT = -137,             /* no certificate configured */
	HS_ERR_TLS_BAD_KEY_UPDATE = -138,      /* invalid KeyUpdate request value */
	HS_ERR_TLS_INSUFFICIENT_SECURITY = -139, /* peer offered only parameters below our minimum */
	HS_ERR_TLS_CERT_REQUIRED = -140,      /* client certificate required but none sent */
	HS_ERR_TLS_TOO_MANY_RECORDS = -141,   /* too many records in a row without data */
	HS_ERR_TLS_TIMEOUT = -142,            /* deadline or SO_RCVTIMEO/SO_SNDTIMEO passed (fd helpers) */
	HS_ERR_TLS_RESET = -143,              /* the peer reset the connection (fd helpers) */
	HS_ERR_TLS_IO = -144,                 /* another socket error: errno says which (fd helpers) */
	HS_ERR_TLS_BAD_BINDER = -145,         /* PSK binder does not verify */
	HS_ERR_TLS_EARLY_DATA_LIMIT = -146,   /* more 0-RTT data than max_early_data_size */
	HS_ERR_TLS_LAST = -146,
	/* X.509 certificate errors (x509/): from -200 down */
	HS_ERR_X509_FIRST = -200,
	HS_ERR_X509_MALFORMED = -200,        /* certificate is not valid DER / RFC 5280 */
	HS_ERR_X509_UNKNOWN_CRITICAL = -201, /* unknown critical extension */
	HS_ERR_X509_UNSUPPORTED_ALG = -202,  /* signature algorithm or key type not supported */
	HS_ERR_X509_EXPIRED = -203,          /* certificate has expired */
	HS_ERR_X509_NOT_YET_VALID = -204,    /* certificate is not yet valid */
	HS_ERR_X509_UNKNOWN_ISSUER = -205,   /* no path to a trusted root */
	HS_ERR_X509_BAD_SIGNATURE = -206,    /* certificate signature does not verify */
	HS_ERR_X509_NOT_CA = -207,           /* issuer is not a CA (basicConstraints) */
	HS_ERR_X509_PATH_LEN = -208,         /* pathLenConstraint exceeded */
	HS_ERR_X509_KEY_USAGE = -209,        /* keyUsage does not allow this use */
	HS_ERR_X509_EKU = -210,              /* extendedKeyUsage does not allow this purpose */
	HS_ERR_X509_NAME_CONSTRAINT = -211,  /* name outside the issuer's name constraints */
	HS_ERR_X509_HOSTNAME = -212,         /* certificate not valid for the host name */
	HS_ERR_X509_CHAIN_TOO_LONG = -213,   /* too many certificates */
	HS_ERR_X509_NO_ANCHORS = -214,       /* no trust anchors could be loaded */
	HS_ERR_X509_KEY_MISMATCH = -215,     /* private key does not match the certificate */
	HS_ERR_X509_KEY_ENCRYPTED = -216,    /* private key is encrypted (PKCS#8 or PEM) */
	HS_ERR_X509_LAST = -216,
};

/* A short English message for err; never NULL. */
HS_API const char *hs_strerror(int err);

#endif
