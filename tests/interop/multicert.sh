#!/usr/bin/env bash
# Proves that one hs-server serves every client a real deployment sees and
# that what a client sends as SNI cannot reach a terminal or a log raw:
# - hs-server with two --cert/--key pairs (RSA-2048 and ECDSA P-256) hands an
#   RSA-PSS-only client the RSA leaf and an ECDSA-only client the P-256 leaf
#   (hs-client --sigalgs, each trusting only the leaf it must get; and
#   openssl s_client -sigalgs, which names the peer's signature type);
# - SNI that is not a host name (ESC sequence, trailing dot, IP literal,
#   underscore; sent by openssl s_client -servername) is refused with
#   illegal_parameter, and hs-server's output holds no control byte;
# - hs-client refuses such a --servername before connecting (exit 2), with
#   the name escaped in its message.
#   multicert.sh HS_CLIENT HS_SERVER
set -u
client=$(realpath "$1")
server=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"

need timeout openssl

gen() { # gen NAME KEYALG...: self-signed, CN=localhost, SAN DNS:localhost, 2 days
	local name=$1
	shift
	openssl req -x509 -newkey "$@" -nodes -keyout "$tmp/$name.key" -out "$tmp/$name.pem" \
		-subj /CN=localhost -addext subjectAltName=DNS:localhost -days 2 2>/dev/null ||
		{ bad "openssl cannot make the $name certificate"; finish; }
}
gen rsa rsa:2048
gen ec ec -pkeyopt ec_paramgen_curve:P-256

"$server" --listen 127.0.0.1:0 --cert "$tmp/rsa.pem" --key "$tmp/rsa.key" \
	--cert "$tmp/ec.pem" --key "$tmp/ec.key" --echo --max-conns 12 2>"$tmp/srv.err" &
pids+=($!)
port=$(hs_port "$tmp/srv.err") || {
	bad "hs-server did not start: $(cat "$tmp/srv.err")"
	finish
}
grep -q "certificate 1 (rsa_pss_rsae_sha256) SHA-256" "$tmp/srv.err" &&
	grep -q "certificate 2 (ecdsa_secp256r1_sha256) SHA-256" "$tmp/srv.err" &&
	pass "hs-server loaded both credentials" ||
	bad "hs-server does not list both credentials: $(head -3 "$tmp/srv.err")"

# hs_try WHAT WANT_RC SCHEME args...: hs-client echo round trip
hs_try() {
	local what=$1 want=$2 scheme=$3 rc
	shift 3
	echo "ping $what" | timeout 20 "$client" "localhost:$port" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$what: exit $rc, want $want: $(tail -1 "$tmp/err")"
	elif [ "$want" -eq 0 ] && ! { grep -q "ping $what" "$tmp/out" &&
		grep -q " $scheme " "$tmp/err"; }; then
		bad "$what: no echo or not signed with $scheme: $(grep TLSv1.3 "$tmp/err")"
	else
		pass "$what (exit $rc)"
	fi
}
hs_try "RSA-PSS-only hs-client gets the RSA leaf" 0 rsa_pss_rsae_sha256 \
	--ca "$tmp/rsa.pem" --sigalgs rsa_pss_rsae_sha256
hs_try "RSA-PSS-SHA384-only hs-client" 0 rsa_pss_rsae_sha384 \
	--ca "$tmp/rsa.pem" --sigalgs rsa_pss_rsae_sha384
hs_try "ECDSA-only hs-client gets the P-256 leaf" 0 ecdsa_secp256r1_sha256 \
	--ca "$tmp/ec.pem" --sigalgs ecdsa_secp256r1_sha256
hs_try "an RSA-PSS-only client does not get the P-256 leaf" 3 - \
	--ca "$tmp/ec.pem" --sigalgs rsa_pss_rsae_sha256
hs_try "an Ed25519-only client: no credential fits" 1 - \
	--ca "$tmp/ec.pem" --sigalgs ed25519

# openssl s_client -sigalgs: the peer signature type names the leaf's key
ossl_try() {
	local sigalgs=$1 ca=$2 want=$3
	echo ping | timeout 20 openssl s_client -connect "127.0.0.1:$port" -servername localhost \
		-tls1_3 -sigalgs "$sigalgs" -CAfile "$tmp/$ca.pem" -verify_return_error \
		>"$tmp/ossl" 2>&1
	grep -q "Verify return code: 0 (ok)" "$tmp/ossl" && grep -q "$want" "$tmp/ossl" &&
		pass "openssl s_client -sigalgs $sigalgs verifies the $ca leaf" ||
		bad "openssl s_client -sigalgs $sigalgs: $(grep -E 'signature type|Verify return|error' "$tmp/ossl" | head -3)"
}
ossl_try RSA-PSS+SHA256 rsa "Peer signature type: RSA-PSS"
ossl_try ECDSA+SHA256 ec "Peer signature type: ECDSA"

# SNI that is not a host name: illegal_parameter, nothing raw on the server's stderr
sni_try() {
	local what=$1 name=$2
	: >"$tmp/srv.err.mark"
	echo ping | timeout 20 openssl s_client -connect "127.0.0.1:$port" -tls1_3 \
		-servername "$name" >"$tmp/ossl" 2>&1
	if grep -q "alert illegal parameter" "$tmp/ossl"; then
		pass "SNI $what: illegal_parameter"
	else
		bad "SNI $what: $(grep -i alert "$tmp/ossl" | head -2)"
	fi
}
sni_try "with an ESC sequence" $'evil\e[2J\e[31mred'
sni_try "with a trailing dot" "localhost."
sni_try "as an IPv4 literal" "127.0.0.1"
sni_try "with an underscore" "a_b.example"
sleep 0.2
if LC_ALL=C grep -q $'\e' "$tmp/srv.err"; then
	bad "hs-server wrote an ESC byte to its stderr"
else
	pass "hs-server's output holds no ESC byte"
fi
grep -q "illegal parameter in handshake message (sent alert illegal_parameter)" "$tmp/srv.err" &&
	pass "hs-server names the refusal" || bad "hs-server does not say why: $(tail -2 "$tmp/srv.err")"

# hs-client refuses such a name itself, escaped
timeout 20 "$client" "127.0.0.1:$port" --insecure --servername $'evil\e[31m.test' \
	</dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -qF 'evil\x1b[31m.test' "$tmp/err" && ! LC_ALL=C grep -q $'\e' "$tmp/err" &&
	pass "hs-client refuses a malformed --servername, escaped (exit 2)" ||
	bad "hs-client --servername with ESC: exit $rc: $(tail -1 "$tmp/err" | od -c | head -3)"
hs_try "hs-client to an IP literal sends no SNI" 0 ecdsa_secp256r1_sha256 \
	--insecure --sigalgs ecdsa_secp256r1_sha256 --servername 127.0.0.1
sleep 0.2
tail -3 "$tmp/srv.err" | grep -q "sni=- " && pass "  ... the server saw no SNI" ||
	bad "the server saw an SNI: $(tail -3 "$tmp/srv.err")"
finish
