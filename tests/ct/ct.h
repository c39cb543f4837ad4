/*
 * The "ctgrind" method (Adam Langley, 2010): tell valgrind memcheck that a
 * secret is uninitialised memory. Any branch or memory index that depends on
 * it is then reported ("Conditional jump or move depends on uninitialised
 * value", "Use of uninitialised value of size 8"), and the test fails
 * (valgrind runs with --error-exitcode). Outputs are derived from secrets,
 * so mark them public before anything looks at them.
 *
 * Outside valgrind these are no-ops.
 */
#ifndef HS_TESTS_CT_H
#define HS_TESTS_CT_H

#include <valgrind/memcheck.h>

#define CT_SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define CT_PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

#endif
