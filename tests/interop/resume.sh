#!/usr/bin/env bash
# Proves resumption interoperates both ways (RFC 8446 2.2):
# - openssl s_client -sess_out, then -sess_in against hs-server: "Reused"
#   on the client, "resumed (psk_dhe_ke)" on hs-server; a session from a
#   server restarted since (new ticket keys) gives a full handshake;
# - hs-client --sess-out, then --sess-in against openssl s_server: resumed
#   in psk_dhe_ke, and with --psk-ke in psk_ke (s_server -allow_no_dhe_kex);
#   each time the data comes back;
# - external PSK: hs-client --psk against openssl s_server -nocert -psk, and
#   openssl s_client -psk against hs-server --psk.
#   resume.sh HS_CLIENT HS_SERVER
set -u
client=$(realpath "$1")
server=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"

need timeout openssl

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tmp/ec.key" \
	-out "$tmp/ec.pem" -subj /CN=localhost -addext subjectAltName=DNS:localhost -days 2 \
	2>/dev/null || { bad "openssl cannot make a certificate"; finish; }

start_hs() { # start_hs LOG: hs-server --echo for 3 connections; sets port
	"$server" --listen 127.0.0.1:0 --echo --max-conns 3 2>"$1" &
	pids+=($!)
	port=$(hs_port "$1") || { bad "hs-server did not start: $(cat "$1")"; finish; }
}
s_client() { # s_client ARGS...: one line through openssl s_client
	(echo resume-me; sleep 0.5) | timeout 10 openssl s_client -connect "127.0.0.1:$port" \
		-servername localhost -ign_eof "$@" 2>&1
}

# --- openssl s_client against hs-server
start_hs "$tmp/srv.err"
s_client -sess_out "$tmp/o.sess" >"$tmp/c1.out"
s_client -sess_in "$tmp/o.sess" >"$tmp/c2.out"
if grep -q "^New, TLSv1.3" "$tmp/c1.out" && grep -q "^Reused, TLSv1.3" "$tmp/c2.out" &&
	grep -q "resume-me" "$tmp/c2.out"; then
	pass "openssl s_client -sess_in resumes against hs-server"
else
	bad "openssl s_client did not resume: $(grep -E '^(New|Reused)' "$tmp/c2.out")"
fi
sleep 0.3
if grep -q "session: resumed (psk_dhe_ke)" "$tmp/srv.err"; then
	pass "hs-server reports the resumed session"
else
	bad "hs-server did not report a resumption: $(cat "$tmp/srv.err")"
fi
# new process, new ticket keys: the old ticket is refused, full handshake
s_client >/dev/null # the third connection ends the first server
start_hs "$tmp/srv2.err"
s_client -sess_in "$tmp/o.sess" >"$tmp/c3.out"
if grep -q "^New, TLSv1.3" "$tmp/c3.out" && grep -q "resume-me" "$tmp/c3.out"; then
	pass "a ticket from another server's keys gives a full handshake"
else
	bad "unknown ticket: $(grep -E '^(New|Reused)' "$tmp/c3.out")"
fi

# --- hs-client against openssl s_server
port=$(free_port)
timeout 60 openssl s_server -accept "$port" -cert "$tmp/ec.pem" -key "$tmp/ec.key" -naccept 3 \
	-rev -allow_no_dhe_kex >"$tmp/oss.out" 2>&1 &
pid=$!
pids+=($pid)
wait_listen "$pid" "$port" || { bad "openssl s_server did not start"; finish; }
hs() { # hs ARGS...: one line through hs-client; s_server -rev reverses it
	(echo hello; sleep 0.5) | timeout 10 "$client" --insecure "$@" "localhost:$port" 2>&1
}
hs --sess-out "$tmp/h.sess" >"$tmp/h1.out"
hs --sess-in "$tmp/h.sess" --sess-out "$tmp/h2.sess" >"$tmp/h2.out"
hs --sess-in "$tmp/h2.sess" --psk-ke >"$tmp/h3.out"
if grep -q "session: new" "$tmp/h1.out" && [ -s "$tmp/h.sess" ] &&
	[ "$(stat -c %a "$tmp/h.sess")" = 600 ]; then
	pass "hs-client --sess-out saves the session (mode 600)"
else
	bad "hs-client --sess-out: $(cat "$tmp/h1.out")"
fi
if grep -q "session: resumed (psk_dhe_ke)" "$tmp/h2.out" && grep -q olleh "$tmp/h2.out"; then
	pass "hs-client --sess-in resumes against openssl s_server (psk_dhe_ke)"
else
	bad "hs-client psk_dhe_ke: $(cat "$tmp/h2.out")"
fi
if grep -q "session: resumed (psk_ke)" "$tmp/h3.out" && grep -q olleh "$tmp/h3.out"; then
	pass "hs-client --psk-ke resumes against openssl s_server (psk_ke)"
else
	bad "hs-client psk_ke: $(cat "$tmp/h3.out")"
fi

# --- external PSK both ways (openssl -psk/-psk_identity)
key=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
port=$(free_port)
timeout 60 openssl s_server -accept "$port" -nocert -psk "$key" -psk_identity nvme-host -naccept 1 \
	-rev >"$tmp/ossp.out" 2>&1 &
pid=$!
pids+=($pid)
wait_listen "$pid" "$port" || { bad "openssl s_server -psk did not start"; finish; }
hs --psk "$key" --psk-identity nvme-host >"$tmp/p1.out"
if grep -q "psk: external PSK (psk_dhe_ke)" "$tmp/p1.out" && grep -q olleh "$tmp/p1.out"; then
	pass "hs-client --psk against openssl s_server -nocert -psk"
else
	bad "hs-client --psk: $(cat "$tmp/p1.out")"
fi
"$server" --listen 127.0.0.1:0 --echo --max-conns 1 --psk "$key" --psk-identity nvme-host \
	2>"$tmp/srvp.err" &
pids+=($!)
port=$(hs_port "$tmp/srvp.err") || { bad "hs-server --psk did not start"; finish; }
s_client -psk "$key" -psk_identity nvme-host >"$tmp/p2.out"
sleep 0.3
if grep -q "resume-me" "$tmp/p2.out" && grep -q "psk: external PSK" "$tmp/srvp.err"; then
	pass "openssl s_client -psk against hs-server --psk"
else
	bad "openssl s_client -psk: $(tail -3 "$tmp/p2.out") / $(cat "$tmp/srvp.err")"
fi
finish
