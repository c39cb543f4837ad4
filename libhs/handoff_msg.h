/*
 * The hand-off wire format, one home for both ends (libhs/handoff.c, the
 * client; handshaked/, the daemon). One SOCK_SEQPACKET message each way:
 *   request: "HSHO" version(1) role(1) timeout_ms(4) then three strings,
 *            each length(2) + bytes: server_name, alpn, credential
 *   result:  "HSHR" version(1) status(4, signed) alert(2, signed) suite(2)
 *            then alpn, peer, detail as above
 * Strings are at most HS_HANDOFF_TEXT_MAX - 1 bytes, no NUL inside.
 */
#ifndef HS_LIBHS_HANDOFF_MSG_H
#define HS_LIBHS_HANDOFF_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "hs/handoff.h"

#define HANDOFF_MSG_MAX 1024

/* A request as the daemon holds it (strings copied, NUL-terminated). */
struct handoff_req {
	uint8_t role;
	uint32_t timeout_ms;
	char server_name[HS_HANDOFF_TEXT_MAX], alpn[HS_HANDOFF_TEXT_MAX],
		credential[HS_HANDOFF_TEXT_MAX];
};

int handoff_req_encode(const struct hs_handoff_request *r, uint8_t *out, size_t cap, size_t *len);
int handoff_req_decode(const uint8_t *in, size_t len, struct handoff_req *r);
int handoff_res_encode(const struct hs_handoff_result *r, uint8_t *out, size_t cap, size_t *len);
int handoff_res_decode(const uint8_t *in, size_t len, struct hs_handoff_result *r);

#endif
