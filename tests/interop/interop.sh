#!/usr/bin/env bash
# Proves hs-client and hs-server interoperate with real TLS 1.3 peers on
# loopback, both directions, for every cipher suite x group x certificate
# (P-256 and Ed25519 leaves): the certificate is verified by the client, the
# negotiated suite and group are the ones asked for, and a few hundred KiB
# of data sent and echoed (or sent both ways) arrive intact (sha256).
#   interop.sh MODE HS_CLIENT HS_SERVER
#   MODE: openssl-server  hs-client -> openssl s_server (data both ways)
#         openssl-client  openssl s_client -> hs-server --echo
#         gnutls-server   hs-client -> gnutls-serv --echo (private netns)
#         gnutls-client   gnutls-cli -> hs-server --echo (private netns)
#         hrr-alpn        HelloRetryRequest (group, cookie) both ways and ALPN
#                         both ways, against OpenSSL
#         mtls-openssl    client certificates (P-256, Ed25519, RSA leaves from a
#                         test CA): s_client -cert -> hs-server --require-client,
#                         hs-client --cert -> s_server -Verify 1, hs-client ->
#                         hs-server; and without a certificate: certificate_required
#         mtls-gnutls     the same with gnutls-cli --x509certfile/--x509keyfile
#                         and gnutls-serv --require-client-cert (private netns)
#         rsa-openssl     RSA and P-384 server certificates: s_client -> hs-server
#                         with an RSA-2048 leaf (PKCS#8 and PKCS#1 keys; hs signs
#                         rsa_pss_rsae_sha256, s_client verifies), hs-client ->
#                         s_server with RSA-2048 and P-384 leaves (hs verifies
#                         rsa_pss_rsae_sha256 and ecdsa_secp384r1_sha384)
# Servers listen on 127.0.0.1 only; gnutls-serv cannot be told to, so it and
# its client run in a private network namespace (unshare -n), skipped with
# exit 77 when namespaces are not permitted.
set -u
mode=$1
client=$(realpath "$2")
server=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"

UP=245760   # bytes sent by the client
DOWN=163840 # bytes sent by a server that is not an echo server

# hs-client -> openssl s_server: our data up (s_server's stdout), its stdin down
one_openssl_server() { # suite group cert [extra hs-client args] [s_server groups]
	local s=$1 g=$2 c=$3 cargs=${4:---groups $2} sgroups=${5:-$2} port pid fpid d=$tmp/run
	rm -rf "$d" && mkdir "$d" && mkfifo "$d/in"
	for _ in 1 2 3 4 5; do
		port=$(free_port)
		timeout 30 openssl s_server -quiet -naccept 1 -accept "127.0.0.1:$port" \
			-cert "$tmp/$c.pem" -key "$tmp/$c.key" -ciphersuites "$s" -groups "$sgroups" \
			${S_EXTRA:-} <"$d/in" >"$d/srv.out" 2>"$d/srv.err" &
		pid=$!
		{ cat "$tmp/down"; sleep 20; } >"$d/in" &
		fpid=$!
		pids+=("$pid" "$fpid")
		wait_listen "$pid" "$port" && break
		kill "$pid" "$fpid" 2>/dev/null
	done
	feed "$tmp/up" "$d/cli.out" "$DOWN" |
		timeout 20 "$client" "localhost:$port" --ca "$tmp/$c.pem" --ciphersuites "$s" \
			$cargs --brief >"$d/cli.out" 2>"$d/cli.err"
	local rc=$?
	wait "$pid"
	local src=$?
	kill "$fpid" 2>/dev/null
	what="hs-client -> s_server $s $g $c"
	if [ $rc -ne 0 ] || [ $src -ne 0 ]; then
		bad "$what: client rc $rc, server rc $src: $(tail -1 "$d/cli.err") $(tail -1 "$d/srv.err")"
	elif ! same "$tmp/up" "$d/srv.out" || ! same "$tmp/down" "$d/cli.out"; then
		bad "$what: data differs"
	elif ! grep -q "TLSv1.3 $s $(hs_group "$g") " "$d/cli.err"; then
		bad "$what: negotiated $(tail -1 "$d/cli.err")"
	else
		pass "$what $(grep -o 'hrr=[a-z]*' "$d/cli.err")"
	fi
}

# openssl s_client -> hs-server --echo
one_openssl_client() { # suite group cert [s_client groups] [extra hs-server args]
	local s=$1 g=$2 c=$3 cgroups=${4:-$2} sargs=${5:-} port pid d=$tmp/run
	rm -rf "$d" && mkdir "$d"
	"$server" --listen 127.0.0.1:0 --cert "$tmp/$c.pem" --key "$tmp/$c.key" --echo \
		--max-conns 1 --ciphersuites "$s" --groups "$g" $sargs --brief 2>"$d/srv.err" &
	pid=$!
	pids+=("$pid")
	port=$(hs_port "$d/srv.err") || {
		bad "hs-server did not start: $(cat "$d/srv.err")"
		return
	}
	feed "$tmp/up" "$d/cli.out" "$UP" |
		timeout 20 openssl s_client -quiet -no_ign_eof -nocommands \
			-connect "127.0.0.1:$port" -servername localhost -verify_hostname localhost \
			-CAfile "$tmp/$c.pem" -verify_return_error -ciphersuites "$s" -groups "$cgroups" \
			${C_EXTRA:-} >"$d/cli.out" 2>"$d/cli.err"
	local rc=$?
	timeout 5 tail --pid="$pid" -f /dev/null
	kill "$pid" 2>/dev/null
	wait "$pid"
	local src=$?
	what="s_client -> hs-server $s $g $c"
	if [ $src -ne 0 ]; then
		bad "$what: server rc $src: $(tail -1 "$d/srv.err") / client rc $rc"
	elif ! same "$tmp/up" "$d/cli.out"; then
		bad "$what: echoed data differs (client rc $rc)"
	elif ! grep -q "TLSv1.3 $s $(hs_group "$g") " "$d/srv.err"; then
		bad "$what: negotiated $(grep TLSv1.3 "$d/srv.err")"
	else
		pass "$what $(grep -o 'hrr=[a-z]*' "$d/srv.err")"
	fi
}

gnutls_prio() { # suite group
	local c gg
	case $1 in
	TLS_AES_128_GCM_SHA256) c=AES-128-GCM ;;
	TLS_AES_256_GCM_SHA384) c=AES-256-GCM ;;
	*) c=CHACHA20-POLY1305 ;;
	esac
	[ "$2" = x25519 ] && gg=GROUP-X25519 || gg=GROUP-SECP256R1
	echo "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+$c:-GROUP-ALL:+$gg"
}

# hs-client -> gnutls-serv --echo (we are inside the private namespace)
one_gnutls_server() {
	local s=$1 g=$2 c=$3 port pid d=$tmp/run
	rm -rf "$d" && mkdir "$d"
	for _ in 1 2 3 4 5; do
		port=$(free_port)
		timeout 30 gnutls-serv --echo -p "$port" --x509certfile "$tmp/$c.pem" \
			--x509keyfile "$tmp/$c.key" --priority "$(gnutls_prio "$s" "$g")" \
			${G_EXTRA:-} >"$d/srv.log" 2>&1 &
		pid=$!
		pids+=("$pid")
		wait_listen "$pid" "$port" && break
		kill "$pid" 2>/dev/null
	done
	timeout 20 "$client" "localhost:$port" --ca "$tmp/$c.pem" --ciphersuites "$s" \
		--groups "$g" ${H_EXTRA:-} --brief <"$tmp/up" >"$d/cli.out" 2>"$d/cli.err"
	local rc=$?
	kill "$pid" 2>/dev/null
	what="hs-client -> gnutls-serv $s $g $c"
	if [ $rc -ne 0 ]; then
		bad "$what: client rc $rc: $(tail -1 "$d/cli.err")"
	elif ! same "$tmp/up" "$d/cli.out"; then
		bad "$what: echoed data differs"
	elif ! grep -q "TLSv1.3 $s $(hs_group "$g") " "$d/cli.err"; then
		bad "$what: negotiated $(tail -1 "$d/cli.err")"
	else
		pass "$what"
	fi
}

# gnutls-cli -> hs-server --echo
one_gnutls_client() {
	local s=$1 g=$2 c=$3 port pid d=$tmp/run
	rm -rf "$d" && mkdir "$d"
	"$server" --listen 127.0.0.1:0 --cert "$tmp/$c.pem" --key "$tmp/$c.key" --echo \
		--max-conns 1 --ciphersuites "$s" --groups "$g" ${H_EXTRA:-} --brief 2>"$d/srv.err" &
	pid=$!
	pids+=("$pid")
	port=$(hs_port "$d/srv.err") || {
		bad "hs-server did not start: $(cat "$d/srv.err")"
		return
	}
	feed "$tmp/up" "$d/cli.out" "$UP" |
		timeout 20 gnutls-cli -p "$port" localhost --x509cafile "$tmp/$c.pem" \
			--priority "$(gnutls_prio "$s" "$g")" --logfile="$d/cli.info" ${G_EXTRA:-} \
			>"$d/cli.out" 2>"$d/cli.err"
	local rc=$?
	timeout 5 tail --pid="$pid" -f /dev/null
	kill "$pid" 2>/dev/null
	wait "$pid"
	local src=$?
	what="gnutls-cli -> hs-server $s $g $c"
	if [ $rc -ne 0 ] || [ $src -ne 0 ]; then
		bad "$what: client rc $rc, server rc $src: $(tail -1 "$d/srv.err") $(tail -2 "$d/cli.info" 2>/dev/null)"
	elif ! same "$tmp/up" "$d/cli.out"; then
		bad "$what: echoed data differs"
	elif ! grep -q "TLSv1.3 $s $(hs_group "$g") " "$d/srv.err"; then
		bad "$what: negotiated $(grep TLSv1.3 "$d/srv.err")"
	else
		pass "$what"
	fi
}

# Every suite x group; the leaf alternates so that each certificate type
# meets each group and each suite (HS_INTEROP_ALL_CERTS=1: every triple).
matrix() { # function
	local i=0
	for s in $SUITES; do
		for g in $GROUPS_; do
			for c in $CERTS; do
				[ -n "${HS_INTEROP_ALL_CERTS:-}" ] || [ $(((i + ${#c}) % 2)) -eq 0 ] &&
					"$1" "$s" "$g" "$c"
			done
			i=$((i + 1))
		done
		i=$((i + 1))
	done
}

hrr() {
	local d=$tmp/run
	# our client offers an x25519 key share; s_server takes only P-256
	one_openssl_server TLS_AES_128_GCM_SHA256 P-256 p256 "--groups x25519,P-256" P-256
	grep -q "hrr=yes" "$d/cli.err" && pass "hs-client answered s_server's HRR" ||
		bad "hs-client: no HRR seen: $(tail -1 "$d/cli.err")"
	# s_client offers an x25519 key share; hs-server takes only P-256
	one_openssl_client TLS_CHACHA20_POLY1305_SHA256 P-256 ed25519 x25519:P-256
	grep -q "hrr=yes" "$d/srv.err" && pass "hs-server sent HRR (group) to s_client" ||
		bad "hs-server: no HRR: $(grep TLSv1.3 "$d/srv.err")"
	# hs-server asks for a cookie round trip even though the group matches
	one_openssl_client TLS_AES_256_GCM_SHA384 x25519 p256 x25519 --hrr-cookie
	grep -q "hrr=yes" "$d/srv.err" && pass "hs-server sent HRR (cookie) to s_client" ||
		bad "hs-server: no cookie HRR: $(grep TLSv1.3 "$d/srv.err")"
}

alpn() {
	local d=$tmp/run
	S_EXTRA="-alpn http/1.1" one_openssl_server TLS_AES_128_GCM_SHA256 x25519 p256 \
		"--groups x25519 --alpn h2,http/1.1"
	grep -q "alpn=http/1.1 " "$d/cli.err" && pass "hs-client: s_server chose ALPN http/1.1" ||
		bad "hs-client ALPN: $(tail -1 "$d/cli.err")"
	C_EXTRA="-alpn h2,http/1.1" one_openssl_client TLS_AES_128_GCM_SHA256 x25519 ed25519 \
		x25519 "--alpn h2"
	grep -q "alpn=h2 " "$d/srv.err" && pass "hs-server chose ALPN h2 for s_client" ||
		bad "hs-server ALPN: $(grep TLSv1.3 "$d/srv.err")"
}

# ---- mTLS: client leaves (clientAuth) issued by a test CA
CLIENT_KEYS=${CLIENT_KEYS:-"cp256 ced25519 crsa"}
make_client_certs() {
	local k
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-keyout "$tmp/ca.key" -out "$tmp/ca.pem" -subj /CN=hs-interop-client-ca \
		-addext basicConstraints=critical,CA:true -addext keyUsage=critical,keyCertSign \
		2>/dev/null || return 1
	printf '%s\n' basicConstraints=critical,CA:false keyUsage=critical,digitalSignature \
		extendedKeyUsage=clientAuth >"$tmp/client.ext"
	for k in $CLIENT_KEYS; do
		case $k in
		cp256) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 ;;
		ced25519) openssl genpkey -algorithm ed25519 ;;
		crsa) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 ;;
		esac >"$tmp/$k.key" 2>/dev/null &&
			openssl req -new -key "$tmp/$k.key" -subj "/CN=client-$k" 2>/dev/null |
			openssl x509 -req -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -set_serial "$RANDOM" \
				-days 2 -extfile "$tmp/client.ext" -out "$tmp/$k.pem" 2>/dev/null ||
			return 1
	done
}

# hs-server --require-client: did it say it verified the client's certificate?
srv_verified() { # what
	grep -q "client-cert=verified" "$tmp/run/srv.err" && pass "  $1: client certificate verified" ||
		bad "$1: hs-server did not verify the client: $(grep TLSv1.3 "$tmp/run/srv.err")"
}

# A client without a certificate meets a server that requires one: the server
# sends certificate_required (116); check_cmd's status and stderr say so.
no_cert() { # what server_rc_want client_rc_want server_err client_err
	local what=$1 d=$tmp/run
	if [ "$CRC" -eq "$3" ] && [ "$SRC" -eq "$2" ] && grep -qi "$4" "$d/srv.err" &&
		grep -qi "$5" "$d/cli.err"; then
		pass "$what: refused (server rc $SRC, client rc $CRC: $(tail -1 "$d/cli.err"))"
	else
		bad "$what: server rc $SRC, client rc $CRC: $(tail -1 "$d/srv.err") / $(tail -1 "$d/cli.err")"
	fi
}

# our hs-server (default certificate), CA file, extra server args; then a client command
run_hs_server() { # server-args... -- client-command...
	local d=$tmp/run pid port sargs=()
	rm -rf "$d" && mkdir "$d"
	while [ "$1" != -- ]; do sargs+=("$1") && shift; done
	shift
	"$server" --listen 127.0.0.1:0 --print-cert "$d/srv.pem" --echo --max-conns 1 \
		"${sargs[@]}" --brief 2>"$d/srv.err" &
	pid=$!
	pids+=("$pid")
	port=$(hs_port "$d/srv.err") || {
		bad "hs-server did not start: $(cat "$d/srv.err")"
		return
	}
	# HOLD: keep stdin open a moment, so that a client that quits at the end
	# of its input (s_client, gnutls-cli) reads the server's alert first
	{ echo hello; [ -z "${HOLD:-}" ] || sleep 2; } |
		timeout 20 "${@//PORT/$port}" >"$d/cli.out" 2>"$d/cli.err"
	CRC=$?
	timeout 5 tail --pid="$pid" -f /dev/null
	kill "$pid" 2>/dev/null
	wait "$pid"
	SRC=$?
}

mtls_openssl() {
	local k d=$tmp/run
	for k in $CLIENT_KEYS; do
		C_EXTRA="-cert $tmp/$k.pem -key $tmp/$k.key" one_openssl_client \
			TLS_AES_128_GCM_SHA256 x25519 p256 x25519 "--require-client $tmp/ca.pem"
		srv_verified "s_client -cert $k -> hs-server --require-client"
		S_EXTRA="-Verify 1 -CAfile $tmp/ca.pem -verify_return_error" one_openssl_server \
			TLS_AES_256_GCM_SHA384 P-256 ed25519 \
			"--groups P-256 --cert $tmp/$k.pem --key $tmp/$k.key"
		run_hs_server --require-client "$tmp/ca.pem" -- "$client" localhost:PORT \
			--ca "$d/srv.pem" --cert "$tmp/$k.pem" --key "$tmp/$k.key"
		[ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ] && [ "$(cat "$d/cli.out")" = hello ] &&
			grep -q "client-cert=verified" "$d/srv.err" &&
			pass "hs-client --cert $k -> hs-server --require-client" ||
			bad "hs-client --cert $k -> hs-server: rc $CRC/$SRC: $(tail -1 "$d/cli.err") $(tail -1 "$d/srv.err")"
	done
	HOLD=1 run_hs_server --require-client "$tmp/ca.pem" -- openssl s_client -no_ign_eof \
		-connect 127.0.0.1:PORT -servername localhost
	no_cert "s_client without -cert -> hs-server --require-client" 3 1 \
		"certificate_required" "certificate required"
	# s_client prints the CertificateRequest's certificate_authorities
	grep -A1 "Acceptable client certificate CA names" "$d/cli.out" |
		grep -q "CN *= *hs-interop-client-ca" &&
		pass "  hs-server's CertificateRequest names the client CA" ||
		bad "s_client saw no CA names: $(grep -A2 Acceptable "$d/cli.out")"
	run_hs_server --verify-client "$tmp/ca.pem" -- "$client" localhost:PORT --ca "$d/srv.pem"
	[ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ] && grep -q "client-cert=none" "$d/srv.err" &&
		pass "hs-client without --cert -> hs-server --verify-client (request only)" ||
		bad "request mode without a certificate: rc $CRC/$SRC: $(tail -1 "$d/srv.err")"
	# hs-client without --cert -> s_server -Verify 1: certificate_required
	local port pid
	port=$(free_port)
	timeout 20 openssl s_server -quiet -naccept 1 -accept "127.0.0.1:$port" \
		-cert "$tmp/p256.pem" -key "$tmp/p256.key" -Verify 1 -CAfile "$tmp/ca.pem" \
		-verify_return_error </dev/null >"$d/srv.out" 2>"$d/srv.err" &
	pid=$!
	pids+=("$pid")
	wait_listen "$pid" "$port"
	echo hello | timeout 20 "$client" "localhost:$port" --ca "$tmp/p256.pem" \
		>"$d/cli.out" 2>"$d/cli.err"
	CRC=$?
	kill "$pid" 2>/dev/null
	[ "$CRC" -eq 3 ] && grep -q "alert certificate_required (116)" "$d/cli.err" &&
		pass "hs-client without --cert -> s_server -Verify 1: $(tail -1 "$d/cli.err")" ||
		bad "hs-client without --cert -> s_server -Verify 1: rc $CRC: $(cat "$d/cli.err")"
	# a client certificate from another CA: unknown_ca
	run_hs_server --require-client "$tmp/ca.pem" -- "$client" localhost:PORT \
		--ca "$d/srv.pem" --cert "$tmp/p256.pem" --key "$tmp/p256.key"
	no_cert "hs-client --cert (self-signed) -> hs-server --require-client" 3 3 \
		"issuer unknown" "unknown_ca"
}

mtls_gnutls() {
	local k d=$tmp/run s=TLS_CHACHA20_POLY1305_SHA256
	for k in $CLIENT_KEYS; do
		G_EXTRA="--x509certfile $tmp/$k.pem --x509keyfile $tmp/$k.key" \
			H_EXTRA="--require-client $tmp/ca.pem" one_gnutls_client "$s" x25519 p256
		srv_verified "gnutls-cli --x509certfile $k -> hs-server --require-client"
		G_EXTRA="--require-client-cert --verify-client-cert --x509cafile $tmp/ca.pem" \
			H_EXTRA="--cert $tmp/$k.pem --key $tmp/$k.key" one_gnutls_server "$s" P-256 ed25519
	done
	HOLD=1 run_hs_server --require-client "$tmp/ca.pem" -- gnutls-cli -p PORT localhost \
		--x509cafile "$d/srv.pem"
	no_cert "gnutls-cli without a certificate -> hs-server --require-client" 3 1 \
		"certificate_required" "certificate"
	# hs-client without --cert -> gnutls-serv --require-client-cert
	local port pid
	for _ in 1 2 3 4 5; do
		port=$(free_port)
		timeout 30 gnutls-serv --echo -p "$port" --x509certfile "$tmp/ed25519.pem" \
			--x509keyfile "$tmp/ed25519.key" --require-client-cert \
			--x509cafile "$tmp/ca.pem" >"$d/srv.log" 2>&1 &
		pid=$!
		pids+=("$pid")
		wait_listen "$pid" "$port" && break
		kill "$pid" 2>/dev/null
	done
	echo hello | timeout 20 "$client" "localhost:$port" --ca "$tmp/ed25519.pem" \
		>"$d/cli.out" 2>"$d/cli.err"
	CRC=$?
	kill "$pid" 2>/dev/null
	[ "$CRC" -eq 3 ] && grep -q "alert certificate_required (116)" "$d/cli.err" &&
		pass "hs-client without --cert -> gnutls-serv --require-client-cert: $(tail -1 "$d/cli.err")" ||
		bad "hs-client without --cert -> gnutls-serv: rc $CRC: $(cat "$d/cli.err")"
}

# RSA-2048 (PKCS#8, and the same key as PKCS#1 "rsa1") and P-384 leaves
make_rsa_p384_certs() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout "$tmp/rsa.key" \
		-out "$tmp/rsa.pem" -subj /CN=localhost -addext subjectAltName=DNS:localhost \
		2>/dev/null &&
		openssl rsa -in "$tmp/rsa.key" -traditional -out "$tmp/rsa1.key" 2>/dev/null &&
		cp "$tmp/rsa.pem" "$tmp/rsa1.pem" &&
		grep -q "BEGIN RSA PRIVATE KEY" "$tmp/rsa1.key" &&
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes -days 2 \
			-keyout "$tmp/p384.key" -out "$tmp/p384.pem" -subj /CN=localhost \
			-addext subjectAltName=DNS:localhost 2>/dev/null
}

# the signature scheme hs reported in its --brief line ($1: file, $2: scheme)
saw_scheme() {
	grep -q "TLSv1.3 [^ ]* [^ ]* $2 " "$1" || bad "$3: hs reported $(grep TLSv1.3 "$1")"
}

rsa_openssl() {
	make_rsa_p384_certs || {
		bad "openssl could not make the RSA / P-384 certificates"
		return
	}
	for s in $SUITES; do
		one_openssl_client "$s" x25519 rsa
		saw_scheme "$tmp/run/srv.err" rsa_pss_rsae_sha256 "s_client -> hs-server $s rsa"
		one_openssl_server "$s" x25519 rsa
		saw_scheme "$tmp/run/cli.err" rsa_pss_rsae_sha256 "hs-client -> s_server $s rsa"
	done
	one_openssl_client TLS_AES_128_GCM_SHA256 P-256 rsa1
	saw_scheme "$tmp/run/srv.err" rsa_pss_rsae_sha256 "s_client -> hs-server PKCS#1 key"
	for s in $SUITES; do
		one_openssl_server "$s" x25519 p384
		saw_scheme "$tmp/run/cli.err" ecdsa_secp384r1_sha384 "hs-client -> s_server $s p384"
	done
}

need openssl timeout sha256sum od
case $mode in
gnutls-server | gnutls-client | mtls-gnutls)
	need gnutls-serv gnutls-cli unshare ip
	private_netns "$0" "$@"
	;;
esac

make_certs || {
	echo "FAIL: openssl could not make the test certificates"
	exit 1
}
case $mode in
mtls-*) # authentication is the point here: a little data is enough
	UP=16384 DOWN=16384
	make_client_certs || {
		echo "FAIL: openssl could not make the client certificates"
		exit 1
	}
	;;
esac
make_data "$tmp/up" $((UP * 16 / 45))
make_data "$tmp/down" $((DOWN * 16 / 45))
UP=$(size "$tmp/up")
DOWN=$(size "$tmp/down")

case $mode in
openssl-server) matrix one_openssl_server ;;
openssl-client) matrix one_openssl_client ;;
gnutls-server) matrix one_gnutls_server ;;
gnutls-client) matrix one_gnutls_client ;;
hrr-alpn)
	hrr
	alpn
	;;
mtls-openssl) mtls_openssl ;;
mtls-gnutls) mtls_gnutls ;;
rsa-openssl) rsa_openssl ;;
*)
	echo "unknown mode $mode"
	exit 2
	;;
esac
finish
