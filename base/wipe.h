/* hs_wipe: zero memory holding secrets, in a way the compiler cannot drop. */
#ifndef HS_BASE_WIPE_H
#define HS_BASE_WIPE_H

#include <stddef.h>

void hs_wipe(void *p, size_t n);

#endif
