#!/usr/bin/env bash
# Proves the command-line behaviour of hs-client and hs-server that scripts
# rely on: documented exit codes (2 bad usage, 3 certificate verification,
# 4 network) with a one-line reason on stderr, --help, and the generated
# default certificate: the printed SHA-256 fingerprint is that of the PEM
# written by --print-cert; hs-client verifies against the system roots by
# default (the self-signed certificate is refused: unknown issuer), trusts
# that PEM with --ca (chain validation: the self-signed certificate is its
# own trust anchor) and pins it with --pin; a wrong name or another
# certificate is refused with the precise reason; --insecure skips it all.
#   cli.sh HS_CLIENT HS_SERVER
# Needs nothing but coreutils (no OpenSSL).
set -u
client=$(realpath "$1")
server=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"

need timeout sha256sum base64

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

# ---- usage
expect 2 "client without HOST:PORT" -- "$client"
expect 2 "client unknown option" -- "$client" localhost:1 --bogus
expect 2 "client option without its value" -- "$client" localhost:1 --ca
expect 2 "client unknown group" -- "$client" localhost:1 -k --groups x448
expect 2 "client unknown suite" -- "$client" localhost:1 -k -ciphersuites TLS_AES_128_CCM_SHA256
expect 2 "client bad address" -- "$client" localhost -k
expect 2 "client unreadable --ca" -- "$client" localhost:1 --ca "$tmp/none.pem"
expect 2 "server bad --max-conns" -- "$server" --max-conns x
expect 2 "server --cert without --key" -- "$server" --cert "$tmp/none.pem"
expect 2 "server unreadable --cert" -- "$server" --cert "$tmp/none.pem" --key "$tmp/none.key"
expect 0 "client --help" -- "$client" --help
grep -q "system" "$tmp/out" && grep -q -- "--pin FILE" "$tmp/out" &&
	grep -q -- "--cert" "$tmp/out" && grep -q "4 network" "$tmp/out" ||
	bad "client --help does not explain the roots, --pin, --cert and the exit codes"
expect 0 "server --help" -- "$server" -help
grep -q -- "--require-client" "$tmp/out" || bad "server --help does not list --require-client"
expect 2 "client --cert without --key" -- "$client" localhost:1 --cert "$tmp/none.pem"
expect 2 "client unreadable --pin" -- "$client" localhost:1 --pin "$tmp/none.pem"
expect 2 "client unreadable --capath" -- "$client" localhost:1 --capath "$tmp/none.d"
expect 2 "server unreadable --require-client" -- "$server" --require-client "$tmp/none.pem"

# ---- network
port=$(free_port)
expect 4 "connection refused" -- "$client" "127.0.0.1:$port" --insecure

# ---- the default certificate
"$server" --listen 127.0.0.1:0 --print-cert "$tmp/default.pem" --max-conns 20 \
	2>"$tmp/srv.err" &
pids+=($!)
port=$(hs_port "$tmp/srv.err") || {
	bad "hs-server did not start: $(cat "$tmp/srv.err")"
	finish
}
want=$(sed -n 's/.*SHA-256 fingerprint \([0-9A-F:]*\).*/\1/p' "$tmp/srv.err")
got=$(sed '/-----/d' "$tmp/default.pem" | base64 -d | sha256sum | cut -d' ' -f1 |
	tr a-f A-F | sed 's/../&:/g; s/:$//')
[ -n "$want" ] && [ "$want" = "$got" ] && pass "printed fingerprint is the PEM's ($want)" ||
	bad "fingerprint printed '$want', PEM's is '$got'"

# another generated certificate, to show that the pin is exact
"$server" --listen 127.0.0.1:0 --print-cert "$tmp/other.pem" --max-conns 1 2>"$tmp/other.err" &
opid=$!
pids+=($opid)
hs_port "$tmp/other.err" >/dev/null
kill $opid

printf 'GET / HTTP/1.0\r\n\r\n' >"$tmp/req"
timeout 20 "$client" "localhost:$port" --ca "$tmp/default.pem" <"$tmp/req" >"$tmp/page" \
	2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q "^Ciphersuite: TLS_" "$tmp/page" &&
	grep -q "^Server name: localhost" "$tmp/page" &&
	grep -q "^Client certificate: (none)" "$tmp/page" &&
	pass "--ca trusts the default certificate; the page names the parameters" ||
	bad "--ca connection: exit $rc: $(tail -1 "$tmp/err") / $(head -c 300 "$tmp/page")"
grep -q "verify=chain+name" "$tmp/err" || bad "hs-client does not say it checked chain+name"
expect 0 "an IP address host matches the certificate's iPAddress" -- "$client" \
	"127.0.0.1:$port" --ca "$tmp/default.pem"
# expect_reason TEXT: the last stderr line of the last expect says why
expect_reason() {
	grep -q "$1" "$tmp/err" && pass "  ... because: $1" || bad "reason '$1' not in: $(tail -1 "$tmp/err")"
}
expect 3 "wrong server name (chain)" -- "$client" "localhost:$port" --ca "$tmp/default.pem" \
	--servername wrong.example
expect_reason "not valid for the host name"
# other.pem has the same subject (CN=localhost), so it is tried as the issuer
expect 3 "another certificate trusted" -- "$client" "localhost:$port" -CAfile "$tmp/other.pem"
expect_reason "signature does not verify"
expect 3 "system roots (default) refuse the self-signed certificate" -- "$client" \
	"localhost:$port"
expect_reason "issuer unknown"
mkdir -p "$tmp/capath" && cp "$tmp/default.pem" "$tmp/capath/a.pem"
expect 0 "--capath DIR holding the certificate" -- "$client" "localhost:$port" -CApath "$tmp/capath"
expect 0 "--pin the exact certificate" -- "$client" "localhost:$port" --pin "$tmp/default.pem"
expect 3 "--pin another certificate" -- "$client" "localhost:$port" --pin "$tmp/other.pem"
expect 3 "--pin with a wrong server name" -- "$client" "localhost:$port" \
	--pin "$tmp/default.pem" --servername wrong.example
expect 0 "--insecure skips chain, pin and name" -- "$client" "localhost:$port" -k \
	-servername wrong.example
finish
