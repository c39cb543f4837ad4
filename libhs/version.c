/* The version of the library actually loaded (include/hs/version.h). */
#include "hs/version.h"

const char *hs_version(void) { return HS_VERSION_STRING; }

unsigned long hs_version_number(void) { return HS_VERSION_NUMBER; }
