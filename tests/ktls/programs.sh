#!/bin/sh
# Proves that `hs-server --ktls --echo` and `hs-client --ktls` move data
# intact on the path the environment promises, and say which one:
# - HS_KTLS_EXPECT=kernel (inside UML): both directions of both peers report
#   "TX kernel, RX kernel", for each of the three TLS 1.3 suites; the echoed
#   data (several MiB of random bytes) comes back with the same SHA-256;
#   hs-ktls-stat -s lists both ends of a live connection as TLS1.3 kTLS
#   sockets; --ktls=require succeeds.
# - HS_KTLS_EXPECT=user (the host, no CONFIG_TLS): the same transfers work
#   through the userspace fallback, which each peer reports with its reason;
#   hs-ktls-stat lists no socket; --ktls=require exits 5 "kTLS unavailable"
#   on the client before it connects and on the server before it listens
#   (the kernel is probed first).
# Both: a client without --ktls (the engine's records) talks to a --ktls
# server (the kernel's or ktls/'s records); hs-server --ktls sends its
# session tickets after the hand-off, hs-client --ktls --sess-out saves
# them and --sess-in resumes.
# Environment: HS_CLIENT, HS_SERVER (binaries), HS_KTLS_STAT (optional),
# HS_KTLS_EXPECT (kernel|user), HS_KTLS_PROG_BYTES (default 4 MiB).
set -u
client=${HS_CLIENT:?HS_CLIENT: path of hs-client}
server=${HS_SERVER:?HS_SERVER: path of hs-server}
stat=${HS_KTLS_STAT:-}
expect=${HS_KTLS_EXPECT:-user}
bytes=${HS_KTLS_PROG_BYTES:-4194304}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs-ktls-prog.XXXXXX")
failed=0
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT

pass() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; failed=1; }

# start_server ARGS...: sets spid and port (server stderr in $tmp/srv.err)
start_server() {
	"$server" --listen 127.0.0.1:0 "$@" >"$tmp/srv.out" 2>"$tmp/srv.err" &
	spid=$!
	port=
	for _ in $(seq 1 100); do
		port=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p' "$tmp/srv.err")
		[ -n "$port" ] && return 0
		sleep 0.1
	done
	bad "server did not start: $(cat "$tmp/srv.err")"
	exit 1
}

# wait_server: wait for the server to exit, sets src
wait_server() {
	wait "$spid"
	src=$?
	spid=
}

# path_ok FILE WHO: the ktls status line says what HS_KTLS_EXPECT wants
path_ok() {
	line=$(grep "ktls: TX" "$1" | tail -n 1)
	if [ "$expect" = kernel ]; then
		case $line in
		*"ktls: TX kernel, RX kernel") pass "$2: $line" ;;
		*) bad "$2: want both directions on the kernel, got '$line'" ;;
		esac
	else
		case $line in
		*"TX userspace fallback ("?*"), RX userspace fallback ("?*")") pass "$2: $line" ;;
		*) bad "$2: want the userspace fallback with its reason, got '$line'" ;;
		esac
	fi
}

head -c "$bytes" /dev/urandom >"$tmp/in"
want=$(sha256sum <"$tmp/in" | cut -d' ' -f1)

# ---- transfers: one connection per suite, then an engine-records client
start_server --ktls --echo --max-conns 6
for suite in TLS_AES_128_GCM_SHA256 TLS_AES_256_GCM_SHA384 TLS_CHACHA20_POLY1305_SHA256; do
	timeout 300 "$client" "127.0.0.1:$port" -k --ktls --ciphersuites "$suite" \
		<"$tmp/in" >"$tmp/out" 2>"$tmp/cli.err"
	rc=$?
	got=$(sha256sum <"$tmp/out" | cut -d' ' -f1)
	if [ $rc -ne 0 ]; then
		bad "$suite: client exit $rc: $(tail -n 1 "$tmp/cli.err")"
	elif [ "$got" != "$want" ]; then
		bad "$suite: echoed data differs ($(wc -c <"$tmp/out") of $bytes bytes back)"
	else
		pass "$suite: $bytes bytes echoed, SHA-256 equal"
	fi
	path_ok "$tmp/cli.err" "$suite client"
	grep -q "$suite" "$tmp/cli.err" || bad "$suite: not negotiated: $(grep TLSv1.3 "$tmp/cli.err")"
done
timeout 300 "$client" "127.0.0.1:$port" -k <"$tmp/in" >"$tmp/out" 2>"$tmp/cli.err"
rc=$?
got=$(sha256sum <"$tmp/out" | cut -d' ' -f1)
if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then
	pass "client without --ktls against a --ktls server: data intact"
else
	bad "client without --ktls: exit $rc: $(tail -n 1 "$tmp/cli.err")"
fi
grep -q "ktls: TX" "$tmp/cli.err" && bad "client without --ktls printed a ktls path"

# ---- a live connection, as hs-ktls-stat sees it
mkfifo "$tmp/fifo"
timeout 120 "$client" "127.0.0.1:$port" -k --ktls <"$tmp/fifo" >"$tmp/live.out" 2>"$tmp/live.err" &
cpid=$!
exec 3>"$tmp/fifo"
printf 'ping\n' >&3
for _ in $(seq 1 100); do
	grep -q ping "$tmp/live.out" && break
	sleep 0.1
done
grep -q ping "$tmp/live.out" || bad "live connection: no echo"
if [ -n "$stat" ]; then
	"$stat" -s >"$tmp/stat" 2>&1
	n=$(grep -c "127.0.0.1:$port" "$tmp/stat")
	if [ "$expect" = kernel ]; then
		# both ends: the server's socket (local :port) and the client's (peer :port)
		if [ "$n" -eq 2 ] && [ "$(grep "127.0.0.1:$port" "$tmp/stat" | grep -c 'TLS1.3')" -eq 2 ]; then
			pass "hs-ktls-stat lists both ends: $(grep "127.0.0.1:$port" "$tmp/stat" | tr '\n' ';')"
		else
			bad "hs-ktls-stat: want 2 TLS1.3 sockets on port $port, got: $(cat "$tmp/stat")"
		fi
	elif [ "$n" -eq 0 ]; then
		pass "hs-ktls-stat lists no kTLS socket on the userspace path"
	else
		bad "hs-ktls-stat lists a kTLS socket on the userspace path: $(cat "$tmp/stat")"
	fi
fi
exec 3>&-
wait "$cpid"
rc=$?
[ $rc -eq 0 ] && pass "live connection closed cleanly" || bad "live client exit $rc: $(tail -n 1 "$tmp/live.err")"
path_ok "$tmp/live.err" "live client"

# ---- --ktls=require on the client
timeout 120 "$client" "127.0.0.1:$port" -k --ktls=require <"$tmp/in" >"$tmp/out" 2>"$tmp/cli.err"
rc=$?
if [ "$expect" = kernel ]; then
	got=$(sha256sum <"$tmp/out" | cut -d' ' -f1)
	[ $rc -eq 0 ] && [ "$got" = "$want" ] && pass "client --ktls=require on the kernel" ||
		bad "client --ktls=require: exit $rc: $(tail -n 1 "$tmp/cli.err")"
else
	# the kernel is probed before connecting: exit 5 and no connection
	[ $rc -eq 5 ] && grep -q "kTLS unavailable: " "$tmp/cli.err" &&
		! grep -q "connected to" "$tmp/cli.err" &&
		pass "client --ktls=require: exit 5 before connecting ($(tail -n 1 "$tmp/cli.err"))" ||
		bad "client --ktls=require: exit $rc, want 5 before connecting: $(tail -n 1 "$tmp/cli.err")"
	# the server's sixth connection, then
	printf 'x' | timeout 60 "$client" "127.0.0.1:$port" -k --ktls >/dev/null 2>&1 ||
		bad "sixth connection failed"
fi
wait_server
n=$(grep -c "ktls: TX" "$tmp/srv.err")
[ "$n" -eq 6 ] || bad "server printed $n ktls path lines for 6 connections"
path_ok "$tmp/srv.err" "server"
# On the host the require client never connects (the sixth connection is a
# plain --ktls one): every connection must succeed.
if [ "$expect" = kernel ]; then
	[ $src -eq 0 ] && pass "server exit 0" || bad "server exit $src: $(tail -n 3 "$tmp/srv.err")"
else
	[ $src -le 1 ] && pass "server exit $src" || bad "server exit $src: $(tail -n 3 "$tmp/srv.err")"
	[ "$(grep -c 'connection done' "$tmp/srv.err")" -eq 6 ] ||
		bad "server: not 6 connections done: $(cat "$tmp/srv.err")"
fi

# ---- --ktls=require on the server
if [ "$expect" = kernel ]; then
	start_server --ktls=require --echo --max-conns 1
	printf 'x' | timeout 60 "$client" "127.0.0.1:$port" -k --ktls >"$tmp/out" 2>"$tmp/cli.err"
	rc=$?
	wait_server
	[ $rc -eq 0 ] && [ $src -eq 0 ] && [ "$(cat "$tmp/out")" = x ] &&
		pass "server --ktls=require on the kernel" ||
		bad "server --ktls=require: client $rc, server $src: $(tail -n 1 "$tmp/srv.err")"
else
	# probed at start: exit 5 before listening
	timeout 60 "$server" --listen 127.0.0.1:0 --ktls=require --echo --max-conns 1 \
		>"$tmp/srv.out" 2>"$tmp/srv.err"
	src=$?
	[ $src -eq 5 ] && grep -q "kTLS unavailable" "$tmp/srv.err" &&
		! grep -q "listening on" "$tmp/srv.err" &&
		pass "server --ktls=require: exit 5 before listening ($(tail -n 1 "$tmp/srv.err"))" ||
		bad "server --ktls=require: server exit $src (want 5 before listening): $(tail -n 1 "$tmp/srv.err")"
fi

# ---- session tickets after the hand-off: hs-server --ktls sends them
# through kTLS (handshake records), hs-client --ktls receives them there,
# saves the session, and a second connection resumes with it
# (connections 3 and 4: a client on the engine's records does the same)
start_server --ktls --echo --max-conns 4 -v
for i in 1 2 3 4; do
	case $i in
	1) args="--ktls --sess-out $tmp/s.sess" ;;
	2) args="--ktls --sess-in $tmp/s.sess" ;;
	3) args="--sess-out $tmp/e.sess" ;;
	4) args="--sess-in $tmp/e.sess" ;;
	esac
	# shellcheck disable=SC2086 # $args is several words
	printf 'ticket-%s\n' $i | timeout 60 "$client" "127.0.0.1:$port" -k $args \
		>"$tmp/t$i.out" 2>"$tmp/t$i.err"
	rc=$?
	[ $rc -eq 0 ] && [ "$(cat "$tmp/t$i.out")" = "ticket-$i" ] ||
		bad "ticket connection $i: exit $rc: $(tail -n 1 "$tmp/t$i.err")"
	[ $i -le 2 ] && path_ok "$tmp/t$i.err" "ticket client $i"
done
wait_server
grep -q "session: new" "$tmp/t1.err" && [ -s "$tmp/s.sess" ] &&
	pass "client --ktls --sess-out saved the tickets it got on $expect records" ||
	bad "client --ktls --sess-out: $(cat "$tmp/t1.err")"
grep -q "session: resumed (psk_dhe_ke)" "$tmp/t2.err" &&
	pass "client --ktls --sess-in resumed" || bad "client --ktls --sess-in: $(cat "$tmp/t2.err")"
grep -q "session: new" "$tmp/t3.err" && grep -q "session: resumed (psk_dhe_ke)" "$tmp/t4.err" &&
	pass "client without --ktls: the tickets of a --ktls server reach its engine; it resumes" ||
	bad "client without --ktls, tickets: $(cat "$tmp/t3.err" "$tmp/t4.err")"
[ "$(grep -c 'session tickets sent after the hand-off (ktls)' "$tmp/srv.err")" -eq 4 ] &&
	[ "$(grep -c 'session: resumed (psk_dhe_ke)' "$tmp/srv.err")" -eq 2 ] &&
	pass "server --ktls sent its tickets after each hand-off and saw the resumption" ||
	bad "server --ktls tickets: $(grep -E 'session|ktls' "$tmp/srv.err")"

[ $failed -eq 0 ] && echo "programs --ktls ($expect): all passed"
exit $failed
