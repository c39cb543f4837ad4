#!/usr/bin/env bash
# Every man page renders without a single warning: groff -ww (all warnings)
# and man --warnings, as Debian's lintian and CI check them.
#   man.sh PAGE...   (the configured pages of the build directory)
set -u
command -v groff >/dev/null || {
	echo "SKIP: groff not installed (scripts/deps.sh installs it)"
	exit 77
}
fails=0
for page in "$@"; do
	out=$(LC_ALL=C.UTF-8 groff -ww -z -man -Tutf8 "$page" 2>&1)
	if [ -n "$out" ]; then
		echo "FAIL $page: groff -ww: $out"
		fails=$((fails + 1))
	else
		echo "ok   $page: groff -ww quiet"
	fi
	if command -v man >/dev/null; then
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
		if [ -n "$out" ]; then
			echo "FAIL $page: man --warnings: $out"
			fails=$((fails + 1))
		else
			echo "ok   $page: man --warnings quiet"
		fi
	fi
	grep -q '@VERSION@' "$page" && {
		echo "FAIL $page: @VERSION@ not replaced"
		fails=$((fails + 1))
	}
done
[ $fails -eq 0 ] || exit 1
echo "all passed"
