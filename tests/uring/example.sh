#!/usr/bin/env bash
# examples/uring-echo works as its comment says: two clients at once get
# their lines back, then it exits after its two connections.
#   example.sh URING_ECHO HS_CLIENT
set -u
echo_srv=$(realpath "$1")
client=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/../interop/lib.sh"

"$echo_srv" 0 2 >"$tmp/out" 2>"$tmp/err" &
pid=$!
pids+=($pid)
for _ in $(seq 50); do grep -q listening "$tmp/out" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$tmp/out")
[ -n "$port" ] || { bad "uring-echo did not start: $(cat "$tmp/err")"; finish; }
(echo one; sleep 0.5) | timeout 10 "$client" --insecure "localhost:$port" >"$tmp/c1" 2>/dev/null &
c1=$!
(echo two; sleep 0.5) | timeout 10 "$client" --insecure "localhost:$port" >"$tmp/c2" 2>/dev/null
wait $c1
timeout 10 tail --pid=$pid -f /dev/null
[ "$(cat "$tmp/c1")" = one ] && [ "$(cat "$tmp/c2")" = two ] &&
	pass "uring-echo echoes two clients at once" || bad "echo: '$(cat "$tmp/c1")' '$(cat "$tmp/c2")'"
grep -q "2 connections, 2 handshakes, 0 failed" "$tmp/out" && pass "and exits after them" ||
	bad "uring-echo: $(cat "$tmp/out" "$tmp/err")"
finish
