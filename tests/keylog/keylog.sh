#!/usr/bin/env bash
# SSLKEYLOGFILE end to end: hs-client and hs-server on 127.0.0.1 with the
# variable set write the NSS key log format (the four TLS 1.3 labels, the
# same lines on both sides, file mode 0600); a loopback capture taken with
# tshark shows the application data only when decrypted with that file
# (`-o tls.keylog_file:`). A second connection resumes with 0-RTT: both
# sides log CLIENT_EARLY_TRAFFIC_SECRET, and tshark decrypts the client's
# early data with it (Wireshark's own key schedule agrees with ours).
# Skipped (77) without tshark or capture rights.
# Usage: keylog.sh HS_CLIENT HS_SERVER
set -u
client=$1 server=$2
command -v tshark >/dev/null || { echo "skipped: no tshark (scripts/deps.sh installs it)"; exit 77; }
# shellcheck source=../interop/lib.sh
. "$(dirname "$0")/../interop/lib.sh" # $tmp, $pids, cleanup, pass / bad / finish, hs_port

SSLKEYLOGFILE=$tmp/server.keys "$server" --listen 127.0.0.1:0 --print-cert "$tmp/ca.pem" --echo \
	--max-conns 2 --early-data 2>"$tmp/srv.err" &
pids+=($!)
port=$(hs_port "$tmp/srv.err") || { echo "FAIL hs-server did not start: $(cat "$tmp/srv.err")"; exit 1; }
grep -q "WARNING: SSLKEYLOGFILE" "$tmp/srv.err" && pass "hs-server warns about SSLKEYLOGFILE" ||
	bad "hs-server does not warn about SSLKEYLOGFILE"

tshark -i lo -f "tcp port $port" -w "$tmp/cap.pcapng" >"$tmp/tshark.out" 2>"$tmp/tshark.err" &
tpid=$!
pids+=($tpid)
for _ in $(seq 200); do
	grep -q "Capturing on" "$tmp/tshark.err" && break
	kill -0 "$tpid" 2>/dev/null || break
	sleep 0.05
done
if ! grep -q "Capturing on" "$tmp/tshark.err"; then
	echo "skipped: tshark cannot capture on lo here: $(tail -n 2 "$tmp/tshark.err")"
	exit 77
fi
# "Capturing on" comes a little before packets are taken: on a loaded machine
# the first ClientHello was missed once, and nothing could be decrypted
sleep 1

marker="hs-keylog-marker-$RANDOM$RANDOM"
echo "$marker" >"$tmp/req"
if SSLKEYLOGFILE=$tmp/client.keys timeout 20 "$client" "localhost:$port" --ca "$tmp/ca.pem" \
	--sess-out "$tmp/k.sess" <"$tmp/req" >"$tmp/resp" 2>"$tmp/cli.err" &&
	grep -q "$marker" "$tmp/resp"; then
	pass "hs-client <-> hs-server echo"
else
	bad "hs-client: $(cat "$tmp/cli.err")"
fi
early="hs-keylog-early-$RANDOM$RANDOM"
if echo late | SSLKEYLOGFILE=$tmp/client.keys timeout 20 "$client" "localhost:$port" \
	--ca "$tmp/ca.pem" --sess-in "$tmp/k.sess" --early-data "$early" >"$tmp/resp2" \
	2>"$tmp/cli2.err" && grep -q "early data: accepted" "$tmp/cli2.err"; then
	pass "hs-client <-> hs-server with 0-RTT"
else
	bad "hs-client 0-RTT: $(cat "$tmp/cli2.err")"
fi
sleep 0.5 # the last segments reach the capture
kill -INT "$tpid" 2>/dev/null
wait "$tpid" 2>/dev/null

# ---- the key log files
for side in client server; do
	f=$tmp/$side.keys
	[ -f "$f" ] || { bad "$side wrote no key log"; continue; }
	mode=$(stat -c %a "$f")
	[ "$mode" = 600 ] && pass "$side key log is mode 0600" || bad "$side key log mode $mode"
	for l in CLIENT_HANDSHAKE_TRAFFIC_SECRET SERVER_HANDSHAKE_TRAFFIC_SECRET \
		CLIENT_TRAFFIC_SECRET_0 SERVER_TRAFFIC_SECRET_0 CLIENT_EARLY_TRAFFIC_SECRET; do
		grep -Eq "^$l [0-9a-f]{64} [0-9a-f]{64}([0-9a-f]{32})?$" "$f" ||
			bad "$side key log has no well-formed $l line"
	done
done
if [ -f "$tmp/client.keys" ] && [ -f "$tmp/server.keys" ] &&
	[ "$(sort "$tmp/client.keys")" = "$(sort "$tmp/server.keys")" ]; then
	pass "client and server logged the same secrets"
else
	bad "client and server key logs differ"
fi

# ---- the capture: opaque without the keys, readable with them
follow() { tshark -r "$tmp/cap.pcapng" "$@" -q -z follow,tls,ascii,0 2>&1; }
follow >"$tmp/plain.txt"
if grep -q "$marker" "$tmp/plain.txt" || strings "$tmp/cap.pcapng" | grep -q "$marker" ||
	strings "$tmp/cap.pcapng" | grep -q "$early"; then
	bad "the application data is visible without the key log"
else
	pass "without the key log the capture shows no application data"
fi
follow -o "tls.keylog_file:$tmp/client.keys" >"$tmp/dec.txt"
n=$(grep -c "$marker" "$tmp/dec.txt")
if [ "$n" -ge 2 ]; then
	pass "tshark decrypts both directions with the key log ($n copies of the marker)"
else
	bad "tshark did not decrypt the application data: $(head -n 20 "$tmp/dec.txt")"
fi
# the second connection: the client's early data, decrypted (a line of the
# client's direction has no leading tab in follow's ascii output)
tshark -r "$tmp/cap.pcapng" -o "tls.keylog_file:$tmp/client.keys" -q -z follow,tls,ascii,1 \
	>"$tmp/dec1.txt" 2>&1
if grep -q "^$early" "$tmp/dec1.txt"; then
	pass "tshark decrypts the 0-RTT data with CLIENT_EARLY_TRAFFIC_SECRET"
else
	bad "tshark did not decrypt the early data: $(head -n 20 "$tmp/dec1.txt")"
fi
finish
