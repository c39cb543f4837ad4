/*
 * explicit_bzero (glibc >= 2.25) is documented never to be removed by the
 * optimiser; the compiler barrier after it guards against link-time
 * inlining tricks all the same.
 */
#define _DEFAULT_SOURCE
#include "base/wipe.h"

#include <string.h>

void wipe(void *p, size_t n)
{
	if (n == 0)
		return;
	explicit_bzero(p, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}
