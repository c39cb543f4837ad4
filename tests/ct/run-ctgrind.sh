#!/bin/sh
# Run a ctgrind test program under valgrind memcheck: any use of a value
# marked secret in a branch or an address is an error, and so a failure.
# Exit 77 (meson: skipped) when valgrind is missing.
#
# --expect-leak PROGRAM: the harness self-test. Passes only if valgrind
# reports a use of secret (uninitialised) data, so a broken harness (no
# debug info, valgrind not really checking) cannot pass silently.
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
vg="valgrind -q --error-exitcode=1 --exit-on-first-error=no --track-origins=yes --leak-check=no"
if [ "$1" = "--expect-leak" ]; then
	shift
	out=$($vg "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	if [ $rc -eq 1 ] && printf '%s' "$out" | grep -q "depends on uninitialised value"; then
		echo "ok: valgrind reported the secret-dependent branch"
		exit 0
	fi
	echo "FAIL: the leak was not reported (exit $rc)"
	exit 1
fi
exec $vg "$@"
