#!/usr/bin/env bash
# Every public header compiles on its own, with only include/ on the include
# path, as C17 with warnings as errors: what an application that installed
# hs sees. Usage: check-headers.sh INCLUDE_DIR CC [CC args...]
set -u
inc=$1
shift
fail=0
# an empty working directory: nothing of the source tree is reachable but include/
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc=$(cd "$inc" && pwd)
n=0
for h in "$inc"/hs/*.h; do
	name=hs/$(basename "$h")
	n=$((n + 1))
	if ! printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$name" "$name" |
		(cd "$tmp" && "$@" -std=c17 -Wall -Wextra -Wpedantic -Werror -I "$inc" -x c \
			-fsyntax-only -); then
		echo "FAIL: $name does not compile alone (twice included, only include/ on the path)"
		fail=1
	fi
done
echo "checked $n public headers"
exit $fail
