/*
 * The error codes every layer returns: the public enum hs_err and
 * hs_strerror() live in include/hs/err.h (applications see them too);
 * internal code includes this header, which adds the guard macros.
 */
#ifndef HS_BASE_ERR_H
#define HS_BASE_ERR_H

#include "hs/err.h"

/*
 * The two guards every folder uses: TRY returns a non-zero result of expr
 * at once; ENSURE returns err when cond is false. Neither may be used
 * where something must be undone first: there, goto the label that
 * releases it (STYLE.md 4).
 */
#define TRY(expr)                         \
	do {                              \
		int try_err_ = (expr);    \
		if (try_err_ != 0)        \
			return try_err_;  \
	} while (0)
#define ENSURE(cond, err)             \
	do {                          \
		if (!(cond))          \
			return (err); \
	} while (0)

#endif
