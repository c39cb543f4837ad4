/* wipe: zero memory holding secrets, in a way the compiler cannot drop. */
#ifndef HS_BASE_WIPE_H
#define HS_BASE_WIPE_H

#include <stddef.h>

void wipe(void *p, size_t n);

#endif
