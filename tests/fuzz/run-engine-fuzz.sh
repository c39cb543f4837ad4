#!/bin/sh
# Run an engine fuzz target (fuzz_tls, fuzz_pair) for a bounded time
# (default 25 s, HS_FUZZ_SECONDS overrides) from its committed seed corpus
# (copied, so the run never writes into the source tree), one job. Exit
# status: the fuzzer's (0: nothing found), 77 (skip) if the target cannot
# run. A failing input is kept in the printed directory: copy it into the
# corpus once fixed (tests/fuzz/README.md).
set -eu
fuzzer=$1
seeds=$2
secs=${HS_FUZZ_SECONDS:-25}
[ -x "$fuzzer" ] || { echo "fuzz: $fuzzer missing" >&2; exit 77; }
work=$(mktemp -d /tmp/hs-fuzz-engine-XXXXXX)
mkdir "$work/corpus" "$work/artifacts"
cp "$seeds"/* "$work/corpus/" 2>/dev/null || true
rc=0
"$fuzzer" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=8192 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "fuzz: failed ($rc); the input that failed is kept in $work/artifacts/" >&2
	exit "$rc"
fi
rm -rf "$work"
