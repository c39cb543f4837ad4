/* Helpers for the record tests: records built without record/'s limits. */
#ifndef HS_TESTS_RECORD_UTIL_H
#define HS_TESTS_RECORD_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

/*
 * Write into out one protected record (header 23 0x0303 length) whose inner
 * plaintext is inner[0..n), exactly, under k's secret at sequence number
 * seq: key and IV derived here from k->secret (RFC 8446 7.3), sealed with
 * k->aead directly. No limit is checked. Returns the record's length.
 */
size_t rec_raw(const struct rec_key *k, uint64_t seq, const uint8_t *inner, size_t n,
	       uint8_t *out);

#endif
