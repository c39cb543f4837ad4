#!/usr/bin/env bash
# The main job: install what is missing, build an optimised hs, and run
# the crypto benchmark (hs next to OpenSSL, measured in the same run).
# Extra arguments go to hs-bench crypto (e.g. --json, --filter GCM).
set -euo pipefail
cd "$(dirname "$0")"
scripts/deps.sh
[ -d build-release ] || meson setup build-release -Dbuildtype=release >/dev/null
ninja -C build-release >/dev/null
exec build-release/bench/hs-bench crypto "$@"
