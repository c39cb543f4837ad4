#!/usr/bin/env bash
# Every test: installs what is missing, then builds hs three ways (gcc,
# clang, gcc with AddressSanitizer + UndefinedBehaviorSanitizer) and runs
# the whole meson test suite in each. Prints the Wycheproof counts and ends
# with one line: "N passed, N failed, N skipped" (summed over the builds).
set -uo pipefail
cd "$(dirname "$0")"
scripts/deps.sh || { echo "test.sh: installing dependencies failed"; echo "0 passed, 1 failed"; exit 1; }

builds=(build-test-gcc build-test-clang build-test-asan)
declare -A setup_cc=([build-test-gcc]=gcc [build-test-clang]=clang [build-test-asan]=gcc)
declare -A setup_opts=([build-test-gcc]="" [build-test-clang]=""
	[build-test-asan]="-Db_sanitize=address,undefined -Db_lundef=false")

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

failed_builds=0
for b in "${builds[@]}"; do
	echo "== $b"
	if [ ! -f "$b/build.ninja" ]; then
		# shellcheck disable=SC2086
		CC=${setup_cc[$b]} meson setup "$b" -Dwerror=true -Dtest_hooks=true ${setup_opts[$b]} \
			>"$b.setup.log" 2>&1 ||
			{ cat "$b.setup.log"; failed_builds=$((failed_builds + 1)); continue; }
	fi
	if ! ninja -C "$b" >"$b.ninja.log" 2>&1; then
		tail -n 40 "$b.ninja.log"
		failed_builds=$((failed_builds + 1))
		continue
	fi
	meson test -C "$b" --print-errorlogs --num-processes 2 2>&1 |
		grep -vE '^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout): ' || true
done

python3 scripts/test-summary.py "$failed_builds" "${builds[@]}"
