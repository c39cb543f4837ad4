#!/usr/bin/env bash
# Proves 0-RTT (RFC 8446 2.3, 4.2.10) interoperates both ways on loopback:
# - openssl s_client -sess_out, then -sess_in -early_data FILE (an HTTP
#   request) against hs-server --early-data: "Early data was accepted", the
#   page answers the early request, hs-server says "early data: accepted 18
#   bytes"; the same session's ticket again: "Early data was rejected",
#   still "Reused" (the handshake completes in 1-RTT), hs-server says
#   "early data: rejected". s_client cannot replay one ClientHello byte for
#   byte; that replay is refused in tests/tls (test_tls_early,
#   test_tls_early_openssl, OpenSSL's own first flight included);
# - hs-server without --early-data: no early_data in its tickets, s_client
#   sends none ("Early data was not sent");
# - hs-client --sess-in --early-data against openssl s_server -early_data:
#   "early data: accepted", s_server prints the early data;
# - hs-client against hs-server --echo --early-data: accepted, echoed back;
#   again with the same ticket: rejected, sent again as 1-RTT and echoed.
#   early.sh HS_CLIENT HS_SERVER
set -u
client=$(realpath "$1")
server=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"

need timeout openssl

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tmp/ec.key" \
	-out "$tmp/ec.pem" -subj /CN=localhost -addext subjectAltName=DNS:localhost -days 2 \
	2>/dev/null || { bad "openssl cannot make a certificate"; finish; }
printf 'GET / HTTP/1.0\r\n\r\n' >"$tmp/req"

start_hs() { # start_hs LOG ARGS...: hs-server for 3 connections; sets port
	local log=$1
	shift
	"$server" --listen 127.0.0.1:0 --max-conns 3 "$@" 2>"$log" &
	pids+=($!)
	port=$(hs_port "$log") || { bad "hs-server did not start: $(cat "$log")"; finish; }
}
s_client() { # s_client ARGS...: openssl s_client sending a request (www page)
	(cat "$tmp/req"; sleep 0.5) | timeout 10 openssl s_client -connect "127.0.0.1:$port" -servername localhost \
		-ign_eof "$@" 2>&1
}

# --- openssl s_client against hs-server --early-data (www page)
start_hs "$tmp/srv.err" --early-data
s_client -sess_out "$tmp/o.sess" >"$tmp/c1.out"
s_client -sess_in "$tmp/o.sess" -early_data "$tmp/req" >"$tmp/c2.out"
s_client -sess_in "$tmp/o.sess" -early_data "$tmp/req" >"$tmp/c3.out"
sleep 0.3
if grep -q "^Reused, TLSv1.3" "$tmp/c2.out" && grep -q "^Early data was accepted" "$tmp/c2.out" &&
	grep -q "^Protocol version: TLSv1.3" "$tmp/c2.out" &&
	grep -q "early data: accepted 18 bytes" "$tmp/srv.err"; then
	pass "openssl s_client -early_data is accepted by hs-server, the early request answered"
else
	bad "0-RTT not accepted: $(grep -E '^(New|Reused|Early)' "$tmp/c2.out") / $(cat "$tmp/srv.err")"
fi
if grep -q "^Reused, TLSv1.3" "$tmp/c3.out" && grep -q "^Early data was rejected" "$tmp/c3.out" &&
	grep -q "early data: rejected" "$tmp/srv.err"; then
	pass "the same ticket's 0-RTT again is refused by hs-server, the handshake completes"
else
	bad "replayed ticket: $(grep -E '^(New|Reused|Early)' "$tmp/c3.out") / $(cat "$tmp/srv.err")"
fi

# --- off by default: tickets without early_data, nothing sent early
start_hs "$tmp/srv2.err"
s_client -sess_out "$tmp/o2.sess" >/dev/null
s_client -sess_in "$tmp/o2.sess" -early_data "$tmp/req" >"$tmp/c4.out"
s_client >/dev/null # the third connection ends this server
if grep -q "^Reused, TLSv1.3" "$tmp/c4.out" && grep -q "^Early data was not sent" "$tmp/c4.out"; then
	pass "hs-server without --early-data allows no 0-RTT in its tickets"
else
	bad "0-RTT off: $(grep -E '^(New|Reused|Early)' "$tmp/c4.out")"
fi

# --- hs-client against openssl s_server -early_data
port=$(free_port)
sleep 4 | timeout 60 openssl s_server -accept "$port" -cert "$tmp/ec.pem" -key "$tmp/ec.key" \
	-naccept 2 -early_data >"$tmp/oss.out" 2>&1 &
pid=$!
pids+=($pid)
wait_listen "$pid" "$port" || { bad "openssl s_server did not start"; finish; }
hs() { # hs ARGS...: one line through hs-client
	(echo hello; sleep 0.5) | timeout 10 "$client" --insecure "$@" 2>&1
}
hs --sess-out "$tmp/h.sess" "localhost:$port" >"$tmp/h1.out"
hs --sess-in "$tmp/h.sess" --early-data "early-bird-data" "localhost:$port" >"$tmp/h2.out"
sleep 0.3
if grep -q "early data: accepted 15 bytes" "$tmp/h2.out" &&
	grep -q "Early data received" "$tmp/oss.out" && grep -q "early-bird-data" "$tmp/oss.out"; then
	pass "hs-client --early-data is accepted by openssl s_server -early_data"
else
	bad "hs-client 0-RTT: $(cat "$tmp/h2.out") / $(grep -i early "$tmp/oss.out")"
fi

# --- hs-client against hs-server --echo --early-data
start_hs "$tmp/srv3.err" --echo --early-data=1024
hs --sess-out "$tmp/e.sess" "localhost:$port" >/dev/null
echo "early-file-line" >"$tmp/early.txt"
hs --sess-in "$tmp/e.sess" --early-data "$tmp/early.txt" "localhost:$port" >"$tmp/e2.out"
hs --sess-in "$tmp/e.sess" --early-data "$tmp/early.txt" "localhost:$port" >"$tmp/e3.out"
if grep -q "early data: accepted 16 bytes" "$tmp/e2.out" && grep -q "^early-file-line" "$tmp/e2.out" &&
	grep -q "^hello" "$tmp/e2.out"; then
	pass "hs-client --early-data FILE to hs-server --echo --early-data: accepted, echoed"
else
	bad "hs to hs 0-RTT: $(cat "$tmp/e2.out")"
fi
if grep -q "early data: rejected (16 bytes sent again as 1-RTT data)" "$tmp/e3.out" &&
	grep -q "^early-file-line" "$tmp/e3.out"; then
	pass "the same ticket again: rejected, the data sent again as 1-RTT"
else
	bad "hs to hs, same ticket: $(cat "$tmp/e3.out")"
fi
finish
