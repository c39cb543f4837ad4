#!/usr/bin/env bash
# Proves what users of the tools expect beyond cli.sh (issue 10, programs):
# --version on every program (the meson project version); -v traces states,
# records and handshake messages; --json gives one valid object per
# connection (hs-client on stderr, hs-server on stdout) and per socket
# (hs-ktls-stat); hs-ktls-stat --help explains itself; errors name the file
# and the cause (ENOENT, an encrypted key, a key of another certificate, the
# one bad PEM); a bad --listen port or address is a usage error (2);
# --timeout gives up on a silent server (exit 4); --ktls=require fails
# before connecting when the kernel has no kTLS (exit 5); the default
# certificate covers ::1.
#   tools.sh VERSION HS_CLIENT HS_SERVER [HS_KTLS_STAT|-] [HS_BENCH|-]
# Needs python3 (JSON checks, a silent listener); openssl for the key cases.
set -u
version=$1
client=$(realpath "$2")
server=$(realpath "$3")
stat=${4:--}
bench=${5:--}
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"

need timeout python3

# expect CODE WHAT -- command...: the exit code and a one-line stderr reason
expect() {
	local code=$1 what=$2 rc
	shift 3
	timeout 20 "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne "$code" ]; then
		bad "$what: exit $rc, want $code: $(tail -1 "$tmp/err")"
	elif [ "$code" -ne 0 ] && ! grep -q "^hs-[a-z]*: " "$tmp/err"; then
		bad "$what: no reason on stderr"
	else
		pass "$what (exit $rc: $(tail -1 "$tmp/err"))"
	fi
}
# reason TEXT...: every TEXT (fixed strings) is in the last stderr
reason() {
	for t in "$@"; do
		grep -qF -- "$t" "$tmp/err" || {
			bad "  reason lacks '$t': $(tail -1 "$tmp/err")"
			return
		}
	done
	pass "  ... names: $*"
}
# json_ok FILE PYEXPR: every line of FILE is a JSON object and PYEXPR holds
# for the list of them (o)
json_ok() {
	python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert all(isinstance(x, dict) for x in o), "not objects"
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>"$tmp/json.err"
}

# ---- --version
for p in "$client" "$server" "$stat" "$bench"; do
	[ "$p" = - ] && continue
	name=$(basename "$p")
	expect 0 "$name --version" -- "$p" --version
	grep -q "^$name $version " "$tmp/out" && pass "  ... says '$(cat "$tmp/out")'" ||
		bad "  ... says '$(cat "$tmp/out")', want '$name $version'"
done

# ---- usage: --listen and ports
expect 2 "server --listen 127.0.0.1:99999" -- "$server" --listen 127.0.0.1:99999
reason "99999" "65535"
expect 2 "server --listen nonsense" -- "$server" --listen nonsense
reason "nonsense"
expect 2 "server --listen host:port-name" -- "$server" --listen 127.0.0.1:https
expect 2 "client HOST:70000" -- "$client" localhost:70000 -k
expect 2 "client HOST:0" -- "$client" localhost:0 -k
expect 2 "client --timeout x" -- "$client" localhost:1 --timeout x

# ---- errors that name the file and the cause
expect 2 "client missing --ca" -- "$client" localhost:1 --ca "$tmp/none.pem"
reason "$tmp/none.pem" "ENOENT" "No such file"
expect 2 "client missing --capath" -- "$client" localhost:1 --capath "$tmp/none.d"
reason "$tmp/none.d" "ENOENT"
expect 2 "server missing --cert and --key" -- "$server" --cert "$tmp/none.pem" --key "$tmp/none.key"
reason "$tmp/none.pem" "ENOENT"
echo "not a certificate" >"$tmp/garbage.pem"
expect 2 "client --ca without a certificate" -- "$client" localhost:1 --ca "$tmp/garbage.pem"
reason "$tmp/garbage.pem" "bad PEM"
mkdir -p "$tmp/capath"
printf -- '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n' \
	>"$tmp/capath/broken.pem"
echo "no certificate here" >"$tmp/capath/README"
expect 2 "client --capath with only a bad PEM" -- "$client" localhost:1 --capath "$tmp/capath"
reason "$tmp/capath/broken.pem" "skipped"
grep -qF "README" "$tmp/err" && bad "  ... names a file that holds no certificate"
if command -v openssl >/dev/null && make_certs; then
	openssl pkcs8 -topk8 -in "$tmp/p256.key" -passout pass:secret -out "$tmp/enc.key" 2>/dev/null
	openssl ec -in "$tmp/p256.key" -aes128 -passout pass:secret -out "$tmp/enc-legacy.key" \
		2>/dev/null
	expect 2 "server encrypted PKCS#8 key" -- "$server" --cert "$tmp/p256.pem" --key "$tmp/enc.key"
	reason "$tmp/enc.key" "is encrypted"
	expect 2 "server encrypted legacy PEM key" -- "$server" --cert "$tmp/p256.pem" \
		--key "$tmp/enc-legacy.key"
	reason "$tmp/enc-legacy.key" "is encrypted"
	expect 2 "server key of another certificate" -- "$server" --cert "$tmp/p256.pem" \
		--key "$tmp/ed25519.key"
	reason "$tmp/ed25519.key" "does not match the certificate" "$tmp/p256.pem"
	expect 2 "client key of another certificate" -- "$client" localhost:1 \
		--cert "$tmp/ed25519.pem" --key "$tmp/p256.key"
	reason "does not match the certificate"
	expect 2 "server bad PEM certificate (names that file only)" -- "$server" \
		--cert "$tmp/garbage.pem" --key "$tmp/p256.key"
	reason "$tmp/garbage.pem" "bad PEM"
	grep -qF "$tmp/p256.key" "$tmp/err" && bad "  ... also blames the good key file"
	expect 2 "server bad PEM key (names that file only)" -- "$server" \
		--cert "$tmp/p256.pem" --key "$tmp/garbage.pem"
	reason "$tmp/garbage.pem" "bad PEM"
	grep -qF "$tmp/p256.pem" "$tmp/err" && bad "  ... also blames the good certificate file"
else
	echo "skip: openssl not installed: key error cases not run"
fi

# ---- hs-ktls-stat --help and --json
if [ "$stat" != - ]; then
	expect 0 "hs-ktls-stat --help" -- "$stat" --help
	grep -q "Exit status" "$tmp/out" && grep -q -- "--json" "$tmp/out" &&
		grep -q "tls_stat" "$tmp/out" && pass "  ... explains the parts, --json and the exit status" ||
		bad "  ... --help does not explain itself"
	timeout 20 "$stat" --json >"$tmp/stat.json" 2>"$tmp/err"
	rc=$?
	[ $rc -le 1 ] && json_ok "$tmp/stat.json" \
		'o[0]["type"] == "kernel" and isinstance(o[0]["ktls"], bool) and o[-1]["type"] == "tls_stat" and all(x["type"] == "socket" for x in o[1:-1])' &&
		pass "hs-ktls-stat --json: kernel, sockets, counters (exit $rc)" ||
		bad "hs-ktls-stat --json: exit $rc: $(cat "$tmp/stat.json" "$tmp/json.err")"
	if [ $rc -eq 1 ]; then
		json_ok "$tmp/stat.json" 'o[0]["reason"]' && pass "  ... no kTLS: the reason is given" ||
			bad "  ... no kTLS and no reason"
	fi
	timeout 20 "$stat" --bogus >/dev/null 2>"$tmp/err"
	[ $? -eq 2 ] && pass "hs-ktls-stat --bogus: exit 2" || bad "hs-ktls-stat --bogus: not exit 2"
fi

# ---- a server with the default certificate, -v and --json
"$server" --listen 127.0.0.1:0 --print-cert "$tmp/default.pem" --max-conns 3 -v --json \
	>"$tmp/srv.json" 2>"$tmp/srv.err" &
spid=$!
pids+=($spid)
port=$(hs_port "$tmp/srv.err") || {
	bad "hs-server did not start: $(cat "$tmp/srv.err")"
	finish
}
printf 'GET / HTTP/1.0\r\n\r\n' >"$tmp/req"
timeout 20 "$client" "localhost:$port" --ca "$tmp/default.pem" -v <"$tmp/req" >"$tmp/page" \
	2>"$tmp/cli.err"
rc=$?
ok=1
for t in ">>>   handshake ClientHello (1)" "<<<   handshake ServerHello (2)" \
	"<<<   handshake Certificate (11)" "<<<   handshake CertificateVerify (15)" \
	">>>   handshake Finished (20)" "<<< record application_data (23)" \
	">>> record handshake (22), version 0301" "state WAIT_SH -> WAIT_EE" \
	"state WAIT_FINISHED -> CONNECTED" ">>>   alert warning close_notify (0)"; do
	grep -qF -- "$t" "$tmp/cli.err" || {
		ok=0
		bad "client -v: no '$t'"
	}
done
[ $rc -eq 0 ] && [ $ok -eq 1 ] && pass "client -v traces records, messages and states"
timeout 20 "$client" "localhost:$port" --ca "$tmp/default.pem" --json <"$tmp/req" \
	>"$tmp/page" 2>"$tmp/cli.json"
rc=$?
[ $rc -eq 0 ] && json_ok "$tmp/cli.json" \
	'len(o) == 1 and o[0]["ok"] and o[0]["exit"] == 0 and o[0]["cipher_suite"].startswith("TLS_") and o[0]["server_name"] == "localhost" and o[0]["verify"] == "chain+name" and o[0]["bytes_received"] > 0 and o[0]["ktls_tx"] == "off"' &&
	pass "client --json: one object on stderr, nothing else there" ||
	bad "client --json: exit $rc: $(cat "$tmp/cli.json" "$tmp/json.err")"
timeout 20 "$client" "localhost:$port" --ca "$tmp/default.pem" --servername wrong.example \
	--json </dev/null >/dev/null 2>"$tmp/cli.json"
rc=$?
grep -v '^hs-client: ' "$tmp/cli.json" >"$tmp/cli.obj"
[ $rc -eq 3 ] && json_ok "$tmp/cli.obj" \
	'len(o) == 1 and not o[0]["ok"] and o[0]["exit"] == 3 and "host name" in o[0]["error"] and o[0]["alert_sent"] == "bad_certificate"' &&
	pass "client --json on a failure: ok false, exit 3, the error and the alert" ||
	bad "client --json failure: exit $rc: $(cat "$tmp/cli.json" "$tmp/json.err")"
wait $spid
grep -qF "<<<   handshake ClientHello (1)" "$tmp/srv.err" &&
	grep -qF ">>>   handshake EncryptedExtensions (8)" "$tmp/srv.err" &&
	pass "server -v traces the handshake" || bad "server -v: no trace in $(head -5 "$tmp/srv.err")"
json_ok "$tmp/srv.json" \
	'len(o) == 3 and o[0]["ok"] and o[0]["server_name"] == "localhost" and o[0]["peer"].startswith("127.0.0.1:") and o[1]["ok"] and o[1]["alpn"] is None and not o[2]["ok"] and o[2]["alert_received"] == "bad_certificate"' &&
	pass "server --json: one object per connection on stdout (3)" ||
	bad "server --json: $(cat "$tmp/srv.json" "$tmp/json.err")"

# ---- the default certificate covers ::1
if python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	"$server" --listen "[::1]:0" --print-cert "$tmp/v6.pem" --max-conns 1 2>"$tmp/v6.err" &
	pids+=($!)
	port=$(hs_port "$tmp/v6.err") || bad "hs-server on [::1] did not start: $(cat "$tmp/v6.err")"
	expect 0 "client [::1]:PORT --ca the default certificate (iPAddress ::1)" -- "$client" \
		"[::1]:$port" --ca "$tmp/v6.pem"
else
	echo "skip: no IPv6 loopback: ::1 not tried"
fi

# ---- --timeout: a server that accepts and says nothing
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(4)
print(s.getsockname()[1], flush=True)
c = s.accept()
time.sleep(15)' >"$tmp/silent.port" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/silent.port" ] && break; sleep 0.05; done
sport=$(cat "$tmp/silent.port")
start=$(date +%s)
expect 4 "--timeout 1 on a silent server" -- "$client" "127.0.0.1:$sport" -k --timeout 1
reason "timed out after 1 s"
took=$(($(date +%s) - start))
[ $took -le 5 ] && pass "  ... gave up in ${took}s" || bad "  ... took ${took}s"
"$client" --help | grep -q "default 300" && pass "client --help documents the 300 s default" ||
	bad "client --help does not give the --timeout default"

# ---- --json when the connection is refused: still one object
rport=$(free_port)
timeout 20 "$client" "127.0.0.1:$rport" -k --json </dev/null >/dev/null 2>"$tmp/err"
rc=$?
grep -v '^hs-client: ' "$tmp/err" >"$tmp/ref.obj"
[ $rc -eq 4 ] && json_ok "$tmp/ref.obj" \
	'len(o) == 1 and o[0]["exit"] == 4 and "refused" in o[0]["error"] and o[0]["state"] is None' &&
	pass "client --json, connection refused: one object, exit 4" ||
	bad "client --json refused: exit $rc: $(cat "$tmp/err" "$tmp/json.err")"

# ---- --ktls=require: before connecting (a closed port says which came first)
cport=$(free_port)
timeout 20 "$client" "127.0.0.1:$cport" -k --ktls=require </dev/null >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 5 ]; then
	grep -q "kTLS unavailable" "$tmp/err" && ! grep -q "connect" "$tmp/err" &&
		pass "--ktls=require without kernel kTLS: exit 5 before connecting ($(tail -1 "$tmp/err"))" ||
		bad "--ktls=require: exit 5 but: $(cat "$tmp/err")"
elif [ $rc -eq 4 ]; then
	pass "--ktls=require: the kernel has kTLS, so the probe passed and connect failed (exit 4)"
else
	bad "--ktls=require on a closed port: exit $rc: $(cat "$tmp/err")"
fi
finish
