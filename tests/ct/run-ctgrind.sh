#!/bin/sh
# Run a ctgrind test program under valgrind memcheck: any use of a value
# marked secret in a branch or an address is an error, and so a failure.
# Exit 77 (meson: skipped) when valgrind is missing.
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
exec valgrind -q --error-exitcode=1 --exit-on-first-error=no --track-origins=yes \
	--leak-check=no "$@"
