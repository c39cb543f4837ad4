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
	[-HS_ERR_TLS_DECODE] = "malformed handshake message",
	[-HS_ERR_TLS_RECORD_HEADER] = "record header is not TLS",
	[-HS_ERR_TLS_RECORD_OVERFLOW] = "record longer than the protocol allows",
	[-HS_ERR_TLS_BAD_RECORD_MAC] = "record failed to authenticate",
	[-HS_ERR_TLS_UNEXPECTED_MSG] = "handshake message not allowed in this state",
	[-HS_ERR_TLS_UNEXPECTED_RECORD] = "record type not allowed in this state",
	[-HS_ERR_TLS_EMPTY_RECORD] = "empty or all-padding record where content is required",
	[-HS_ERR_TLS_KEY_CHANGE_MID_RECORD] = "key change not at a record boundary",
	[-HS_ERR_TLS_VERSION] = "peer does not support TLS 1.3",
	[-HS_ERR_TLS_NO_SHARED_SUITE] = "no cipher suite in common",
	[-HS_ERR_TLS_NO_SHARED_GROUP] = "no key exchange group in common",
	[-HS_ERR_TLS_NO_SHARED_SIGALG] = "no signature scheme in common",
	[-HS_ERR_TLS_ILLEGAL_PARAM] = "illegal parameter in handshake message",
	[-HS_ERR_TLS_BAD_KEY_SHARE] = "key share does not match the negotiated group",
	[-HS_ERR_TLS_BAD_SESSION_ID] = "legacy_session_id echo does not match",
	[-HS_ERR_TLS_BAD_SUITE] = "server chose a cipher suite that was not offered",
	[-HS_ERR_TLS_BAD_HRR] = "invalid HelloRetryRequest",
	[-HS_ERR_TLS_BAD_COOKIE] = "cookie missing or not echoed",
	[-HS_ERR_TLS_DUP_EXT] = "duplicate extension",
	[-HS_ERR_TLS_EXT_NOT_ALLOWED] = "extension not allowed in this message",
	[-HS_ERR_TLS_UNSOLICITED_EXT] = "extension was not offered",
	[-HS_ERR_TLS_MISSING_EXT] = "required extension missing",
	[-HS_ERR_TLS_BAD_FINISHED] = "Finished verify_data mismatch",
	[-HS_ERR_TLS_BAD_CERT_VERIFY] = "CertificateVerify signature does not verify",
	[-HS_ERR_TLS_BAD_CERT] = "certificate malformed or missing",
	[-HS_ERR_TLS_UNSUPPORTED_CERT] = "certificate key type not supported",
	[-HS_ERR_TLS_CERT_UNTRUSTED] = "certificate does not match the pinned trust anchor",
	[-HS_ERR_TLS_CERT_NAME] = "certificate not valid for the server name",
	[-HS_ERR_TLS_NO_ALPN] = "no application protocol in common",
	[-HS_ERR_TLS_MSG_TOO_LARGE] = "handshake message larger than supported",
	[-HS_ERR_TLS_DOWNGRADE] = "TLS downgrade sentinel in ServerHello random",
	[-HS_ERR_TLS_PEER_ALERT] = "peer sent a fatal alert",
	[-HS_ERR_TLS_CLOSED] = "connection closed",
	[-HS_ERR_TLS_STATE] = "operation not valid in this connection state",
	[-HS_ERR_TLS_BAD_CCS] = "invalid change_cipher_spec record",
	[-HS_ERR_TLS_BAD_ALERT] = "malformed alert record",
	[-HS_ERR_TLS_SEQ_EXHAUSTED] = "record sequence number exhausted",
	[-HS_ERR_TLS_NO_CERT] = "no certificate configured",
	[-HS_ERR_TLS_BAD_KEY_UPDATE] = "invalid KeyUpdate request value",
	[-HS_ERR_TLS_INSUFFICIENT_SECURITY] = "peer offered only parameters below our minimum",
};

const char *hs_strerror(int err)
{
	if (err <= 0 && -err < (int)(sizeof(messages) / sizeof(messages[0])) &&
	    messages[-err] != NULL)
		return messages[-err];
	return "unknown error";
}
