/*
 * include/hs/ktls.h is self-contained: this file is built with only include/
 * on the include path (tests/meson.build), and checks what the header
 * promises about struct hs_ktls: opaque, HS_KTLS_SIZE bytes, aligned for any
 * standard type (so malloc'd, static and automatic storage all do).
 */
#include "hs/ktls.h"

#include <stdalign.h>
#include <stddef.h>

_Static_assert(sizeof(struct hs_ktls) == HS_KTLS_SIZE, "struct hs_ktls is HS_KTLS_SIZE bytes");
_Static_assert(alignof(struct hs_ktls) <= alignof(max_align_t),
	       "struct hs_ktls must not need more alignment than malloc gives");

int main(void)
{
	static struct hs_ktls k;

	hs_ktls_wipe(&k); /* links: the API is there */
	return hs_ktls_fd(&k) == -1 ? 0 : 1;
}
