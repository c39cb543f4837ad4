#!/bin/bash
# hs-client --via: handshaked does the client's handshake with its own trust
# store and hands the socket back on kernel TLS; hs-client then moves stdin
# and stdout over it (ktls/'s adopted path). hs-server --echo is the peer
# (it sends two session tickets, which the adopted socket reads and drops).
#   HS_KTLS_EXPECT=kernel (UML 7.x): the line comes back, hs-client says kernel TLS
#   HS_KTLS_EXPECT=user (host, no kTLS): hs-client exits 5 with the daemon's refusal
#   NO_URING=PATH (tests/uring/no_uring): the daemon runs where io_uring_setup
#     fails (a seccomp filter): it must say so and serve on its epoll loop
#   via.sh HANDSHAKED HS_SERVER HS_CLIENT
set -u
hsd=$(realpath "$1")
server=$(realpath "$2")
client=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
. "$here/../interop/lib.sh"

"$server" --listen 127.0.0.1:0 --echo --max-conns 5 --print-cert "$tmp/ca.pem" 2>"$tmp/srv.err" &
pids+=($!)
port=$(hs_port "$tmp/srv.err") || { bad "hs-server did not start: $(cat "$tmp/srv.err")"; finish; }
printf '[authenticate.client]\nx509.truststore=%s\n' "$tmp/ca.pem" >"$tmp/tlshd.conf"
${NO_URING:+"$NO_URING"} "$hsd" --config "$tmp/tlshd.conf" --socket "$tmp/hsd.sock" --no-upcalls -v \
	2>"$tmp/hsd.err" &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/hsd.sock" ] && break; sleep 0.1; done
out=$( (echo via-the-daemon; sleep 0.5) | timeout 20 "$client" --via "$tmp/hsd.sock" localhost:"$port" 2>"$tmp/cli.err")
rc=$?
if [ "${HS_KTLS_EXPECT:-user}" = kernel ]; then
	[ "$rc" = 0 ] && [ "$out" = via-the-daemon ] && grep -q "the socket is on kernel TLS" "$tmp/cli.err" &&
		pass "hs-client --via: handshake by handshaked, data over kernel TLS ($(grep -o 'TLSv1.3 [^ ]*' "$tmp/cli.err"))" ||
		bad "hs-client --via: exit $rc, got '$out': $(cat "$tmp/cli.err" "$tmp/hsd.err")"
else
	[ "$rc" = 5 ] && grep -q "handshaked: kernel TLS" "$tmp/cli.err" &&
		pass "hs-client --via without kTLS: exit 5, $(tail -1 "$tmp/cli.err")" ||
		bad "hs-client --via: exit $rc: $(cat "$tmp/cli.err" "$tmp/hsd.err")"
fi
if [ -n "${NO_URING:-}" ]; then
	grep -q "ready: .*one thread, epoll: io_uring_setup: " "$tmp/hsd.err" &&
		pass "without io_uring the daemon says why and runs on epoll: $(grep -o 'epoll: [^)]*' "$tmp/hsd.err")" ||
		bad "the daemon's loop without io_uring: $(cat "$tmp/hsd.err")"
	"$NO_URING" "$hsd" --config "$tmp/tlshd.conf" --socket "$tmp/hsd2.sock" --no-upcalls --loop io_uring \
		2>"$tmp/hsd2.err"
	rc=$?
	[ "$rc" = 1 ] && grep -q "event loop: io_uring_setup: " "$tmp/hsd2.err" &&
		pass "--loop io_uring where there is none: exit 1, $(tail -1 "$tmp/hsd2.err")" ||
		bad "--loop io_uring without io_uring: exit $rc: $(cat "$tmp/hsd2.err")"
fi
# SIGHUP reloads the configuration (host only): a trust store that does not
# hold the server's certificate makes the next hand-off fail; one that names a
# missing file is refused and the daemon keeps what it had; the right one
# again makes the hand-off reach the kTLS install (the host's refusal)
if [ "${HS_KTLS_EXPECT:-user}" = user ] && [ -z "${NO_URING:-}" ]; then
	hsd_pid=${pids[-1]}
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=other \
		-keyout "$tmp/other.key" -out "$tmp/other.pem" 2>/dev/null
	reload() {	# reload TRUSTSTORE: SIGHUP with that store; waits for the log line
		local n
		n=$(grep -c "reload\|credentials:" "$tmp/hsd.err")
		printf '[authenticate.client]\nx509.truststore=%s\n' "$1" >"$tmp/tlshd.conf"
		kill -HUP "$hsd_pid"
		for _ in $(seq 50); do
			[ "$(grep -c "reload\|credentials:" "$tmp/hsd.err")" -gt "$n" ] && break
			sleep 0.1
		done
	}
	via() { timeout 20 "$client" --via "$tmp/hsd.sock" localhost:"$port" </dev/null 2>"$tmp/cli3.err"; }
	reload "$tmp/other.pem"
	via; rc=$?
	grep -q "reloaded" "$tmp/hsd.err" && [ "$rc" != 5 ] && [ "$rc" != 0 ] &&
		pass "SIGHUP: reloaded with another trust store, the hand-off fails (exit $rc: $(tail -1 "$tmp/cli3.err"))" ||
		bad "SIGHUP with another trust store: exit $rc: $(cat "$tmp/cli3.err" "$tmp/hsd.err")"
	reload "$tmp/missing.pem"
	via; rc=$?
	kill -0 "$hsd_pid" && grep -q "credentials: .*missing.pem" "$tmp/hsd.err" && [ "$rc" != 5 ] &&
		pass "SIGHUP with a missing trust store: refused with the reason, the daemon keeps the previous one" ||
		bad "SIGHUP with a missing trust store: exit $rc: $(cat "$tmp/hsd.err")"
	reload "$tmp/ca.pem"
	via; rc=$?
	[ "$rc" = 5 ] && grep -q "handshaked: kernel TLS" "$tmp/cli3.err" &&
		pass "SIGHUP with the right trust store again: the hand-off reaches the kTLS install" ||
		bad "SIGHUP with the right store: exit $rc: $(cat "$tmp/cli3.err" "$tmp/hsd.err")"
fi
"$client" --via "$tmp/nonexistent.sock" localhost:"$port" </dev/null 2>"$tmp/cli2.err"
rc=$?
[ "$rc" = 4 ] && grep -q "handshaked at .*nonexistent.sock" "$tmp/cli2.err" &&
	pass "no daemon at the path: exit 4, $(tail -1 "$tmp/cli2.err")" || bad "no daemon: exit $rc: $(cat "$tmp/cli2.err")"
finish
