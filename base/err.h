/*
 * hs error codes for the layers inside hs: the public enum hs_err and
 * HS_MUST_CHECK live in include/hs/err.h (callers of the public API need
 * them too); this header is the one base/, crypto/ and the rest include.
 */
#ifndef HS_BASE_ERR_H
#define HS_BASE_ERR_H

#include "hs/err.h"

#endif
