/*
 * The one table mapping errors to TLS alerts (RFC 8446 6.2), and alert
 * names. Every fatal error the engine detects sends exactly the alert
 * listed here; anything not listed is an internal_error.
 */
#include "libhs/internal.h"

struct err_alert {
	int err;
	uint8_t alert;
};

static const struct err_alert table[] = {
	/* crypto-layer errors surfacing in the protocol */
	{ HS_ERR_TRUNCATED, AL_DECODE_ERROR },
	{ HS_ERR_TRAILING, AL_DECODE_ERROR },
	{ HS_ERR_BAD_ENCODING, AL_DECODE_ERROR },
	{ HS_ERR_BAD_TAG, AL_BAD_RECORD_MAC },
	{ HS_ERR_BAD_POINT, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_ZERO_SHARED, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_BAD_SIG, AL_DECRYPT_ERROR },
	/* protocol errors */
	{ HS_ERR_TLS_DECODE, AL_DECODE_ERROR },
	{ HS_ERR_TLS_RECORD_HEADER, AL_DECODE_ERROR },
	{ HS_ERR_TLS_RECORD_OVERFLOW, AL_RECORD_OVERFLOW },
	{ HS_ERR_TLS_BAD_RECORD_MAC, AL_BAD_RECORD_MAC },
	{ HS_ERR_TLS_UNEXPECTED_MSG, AL_UNEXPECTED_MESSAGE },
	{ HS_ERR_TLS_UNEXPECTED_RECORD, AL_UNEXPECTED_MESSAGE },
	{ HS_ERR_TLS_EMPTY_RECORD, AL_UNEXPECTED_MESSAGE },
	{ HS_ERR_TLS_KEY_CHANGE_MID_RECORD, AL_UNEXPECTED_MESSAGE },
	{ HS_ERR_TLS_VERSION, AL_PROTOCOL_VERSION },
	{ HS_ERR_TLS_NO_SHARED_SUITE, AL_HANDSHAKE_FAILURE },
	{ HS_ERR_TLS_NO_SHARED_GROUP, AL_HANDSHAKE_FAILURE },
	{ HS_ERR_TLS_NO_SHARED_SIGALG, AL_HANDSHAKE_FAILURE },
	{ HS_ERR_TLS_ILLEGAL_PARAM, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_BAD_KEY_SHARE, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_BAD_SESSION_ID, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_BAD_SUITE, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_BAD_HRR, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_BAD_COOKIE, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_DUP_EXT, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_EXT_NOT_ALLOWED, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_UNSOLICITED_EXT, AL_UNSUPPORTED_EXTENSION },
	{ HS_ERR_TLS_MISSING_EXT, AL_MISSING_EXTENSION },
	{ HS_ERR_TLS_BAD_FINISHED, AL_DECRYPT_ERROR },
	{ HS_ERR_TLS_BAD_BINDER, AL_DECRYPT_ERROR },
	/* 4.2.10: "more than max_early_data_size ... SHOULD abort the
	 * handshake with an "unexpected_message" alert" */
	{ HS_ERR_TLS_EARLY_DATA_LIMIT, AL_UNEXPECTED_MESSAGE },
	{ HS_ERR_TLS_BAD_CERT_VERIFY, AL_DECRYPT_ERROR },
	{ HS_ERR_TLS_BAD_CERT, AL_BAD_CERTIFICATE },
	{ HS_ERR_TLS_UNSUPPORTED_CERT, AL_UNSUPPORTED_CERTIFICATE },
	{ HS_ERR_TLS_CERT_UNTRUSTED, AL_UNKNOWN_CA },
	{ HS_ERR_TLS_CERT_NAME, AL_BAD_CERTIFICATE },
	{ HS_ERR_TLS_NO_ALPN, AL_NO_APPLICATION_PROTOCOL },
	{ HS_ERR_TLS_MSG_TOO_LARGE, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_DOWNGRADE, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_BAD_CCS, AL_UNEXPECTED_MESSAGE },
	{ HS_ERR_TLS_BAD_ALERT, AL_DECODE_ERROR },
	{ HS_ERR_TLS_BAD_KEY_UPDATE, AL_ILLEGAL_PARAMETER },
	{ HS_ERR_TLS_INSUFFICIENT_SECURITY, AL_INSUFFICIENT_SECURITY },
	{ HS_ERR_TLS_CERT_REQUIRED, AL_CERTIFICATE_REQUIRED },
	{ HS_ERR_TLS_TOO_MANY_RECORDS, AL_UNEXPECTED_MESSAGE },
	/* certificate path validation (x509/); RFC 8446 6.2 names
	 * the alerts, the choice per error follows common practice */
	{ HS_ERR_X509_MALFORMED, AL_BAD_CERTIFICATE },
	{ HS_ERR_X509_UNKNOWN_CRITICAL, AL_UNSUPPORTED_CERTIFICATE },
	{ HS_ERR_X509_UNSUPPORTED_ALG, AL_UNSUPPORTED_CERTIFICATE },
	{ HS_ERR_X509_EXPIRED, AL_CERTIFICATE_EXPIRED },
	{ HS_ERR_X509_NOT_YET_VALID, AL_CERTIFICATE_EXPIRED },
	{ HS_ERR_X509_UNKNOWN_ISSUER, AL_UNKNOWN_CA },
	{ HS_ERR_X509_BAD_SIGNATURE, AL_DECRYPT_ERROR },
	{ HS_ERR_X509_NOT_CA, AL_UNKNOWN_CA },
	{ HS_ERR_X509_PATH_LEN, AL_UNKNOWN_CA },
	{ HS_ERR_X509_CHAIN_TOO_LONG, AL_UNKNOWN_CA },
	{ HS_ERR_X509_KEY_USAGE, AL_UNSUPPORTED_CERTIFICATE },
	{ HS_ERR_X509_EKU, AL_UNSUPPORTED_CERTIFICATE },
	{ HS_ERR_X509_NAME_CONSTRAINT, AL_BAD_CERTIFICATE },
	{ HS_ERR_X509_HOSTNAME, AL_BAD_CERTIFICATE },
};

int alert_for(int err)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].err == err)
			return table[i].alert;
	return AL_INTERNAL_ERROR;
}

int hs_err_alert(int err)
{
	return alert_for(err);
}

const char *hs_alert_name(int alert)
{
	switch (alert) {
	case AL_CLOSE_NOTIFY: return "close_notify";
	case AL_UNEXPECTED_MESSAGE: return "unexpected_message";
	case AL_BAD_RECORD_MAC: return "bad_record_mac";
	case AL_RECORD_OVERFLOW: return "record_overflow";
	case AL_HANDSHAKE_FAILURE: return "handshake_failure";
	case AL_BAD_CERTIFICATE: return "bad_certificate";
	case AL_UNSUPPORTED_CERTIFICATE: return "unsupported_certificate";
	case AL_CERTIFICATE_EXPIRED: return "certificate_expired";
	case AL_CERTIFICATE_UNKNOWN: return "certificate_unknown";
	case AL_ILLEGAL_PARAMETER: return "illegal_parameter";
	case AL_UNKNOWN_CA: return "unknown_ca";
	case AL_DECODE_ERROR: return "decode_error";
	case AL_DECRYPT_ERROR: return "decrypt_error";
	case AL_PROTOCOL_VERSION: return "protocol_version";
	case AL_INSUFFICIENT_SECURITY: return "insufficient_security";
	case AL_INTERNAL_ERROR: return "internal_error";
	case AL_USER_CANCELED: return "user_canceled";
	case AL_MISSING_EXTENSION: return "missing_extension";
	case AL_UNSUPPORTED_EXTENSION: return "unsupported_extension";
	case AL_UNRECOGNIZED_NAME: return "unrecognized_name";
	case AL_CERTIFICATE_REQUIRED: return "certificate_required";
	case AL_NO_APPLICATION_PROTOCOL: return "no_application_protocol";
	default: return "unknown_alert";
	}
}
