/*
 * The error codes every layer returns: the public enum hs_err and
 * hs_strerror() live in include/hs/err.h (applications see them too);
 * internal code includes this header.
 */
#ifndef HS_BASE_ERR_H
#define HS_BASE_ERR_H

#include "hs/err.h"

#endif
