#!/usr/bin/env bash
# hs-server --uring where io_uring is unavailable (io_uring_setup blocked
# with ENOSYS by a seccomp filter, tests/uring/no_uring.c): it says why and
# serves with the blocking loop; an echo goes through. Then the same
# server with io_uring, to show the message is the fallback's alone.
#   fallback.sh NO_URING HS_SERVER HS_CLIENT
set -u
no_uring=$(realpath "$1")
server=$(realpath "$2")
client=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
. "$here/../interop/lib.sh"

"$no_uring" true || { echo "seccomp unavailable here: cannot force the fallback"; exit "$SKIP"; }

"$no_uring" "$server" --listen 127.0.0.1:0 --uring --echo --max-conns 1 2>"$tmp/s.err" &
pids+=($!)
port=$(hs_port "$tmp/s.err") || { bad "hs-server did not start: $(cat "$tmp/s.err")"; finish; }
out=$(echo fallback-echo | timeout 10 "$client" --insecure "127.0.0.1:$port" 2>/dev/null)
wait "${pids[-1]}"
rc=$?
if grep -q "io_uring unavailable (io_uring_setup: Function not implemented" "$tmp/s.err"; then
	pass "without io_uring, hs-server --uring says why: $(grep -o 'io_uring unavailable.*' "$tmp/s.err")"
else
	bad "no fallback message: $(cat "$tmp/s.err")"
fi
[ "$out" = fallback-echo ] && [ "$rc" -eq 0 ] && pass "and serves with the blocking loop (echo back, exit 0)" ||
	bad "fallback did not serve: got '$out', exit $rc"

"$server" --listen 127.0.0.1:0 --uring --echo --max-conns 1 2>"$tmp/u.err" &
pids+=($!)
port=$(hs_port "$tmp/u.err") || { bad "hs-server did not start: $(cat "$tmp/u.err")"; finish; }
out=$(echo uring-echo | timeout 10 "$client" --insecure "127.0.0.1:$port" 2>/dev/null)
wait "${pids[-1]}"
if grep -q "io_uring: serving" "$tmp/u.err" && [ "$out" = uring-echo ]; then
	pass "with io_uring the same command serves on the io_uring loop"
elif grep -q "io_uring unavailable" "$tmp/u.err"; then
	pass "this host has no io_uring either: $(grep -o 'io_uring unavailable.*' "$tmp/u.err")"
else
	bad "hs-server --uring: got '$out': $(cat "$tmp/u.err")"
fi
finish
