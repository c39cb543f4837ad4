#!/usr/bin/env bash
# Proves resumption interoperates with GnuTLS both ways (RFC 8446 2.2):
# - hs-client --sess-out, then --sess-in against gnutls-serv: hs-client says
#   "session: resumed (psk_dhe_ke)", gnutls-serv "*** This is a resumed
#   session", the echoed line comes back; the same with hs-client --ktls
#   (the kernel's records, or ktls/'s fallback here), whose tickets arrive
#   after the hand-off as handshake records (--ktls --sess-out);
# - gnutls-cli --resume against hs-server, and against hs-server --ktls
#   (its tickets sent after the hand-off): gnutls-cli says "*** This is a
#   resumed session", hs-server "session: resumed (psk_dhe_ke)";
# - against hs-server --no-tickets gnutls-cli cannot resume (so the check
#   above can fail).
# In a private network namespace (gnutls-serv listens on every address).
#   resume_gnutls.sh HS_CLIENT HS_SERVER
set -u
client=$(realpath "$1")
server=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"

need timeout openssl gnutls-serv gnutls-cli unshare ip
prio="NORMAL:-VERS-ALL:+VERS-TLS1.3"
private_netns "$0" "$@"

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tmp/ec.key" \
	-out "$tmp/ec.pem" -subj /CN=localhost -addext subjectAltName=DNS:localhost -days 2 \
	2>/dev/null || { bad "openssl cannot make a certificate"; finish; }

# count_in FILE TEXT WANT: wait up to 5 s for WANT lines holding TEXT
count_in() {
	for _ in $(seq 50); do
		[ "$(grep -c "$2" "$1")" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# --- hs-client against gnutls-serv
port=$(free_port)
timeout 90 gnutls-serv --echo -p "$port" --priority "$prio" --x509certfile "$tmp/ec.pem" \
	--x509keyfile "$tmp/ec.key" >"$tmp/gs.out" 2>&1 &
pid=$!
pids+=($pid)
wait_listen "$pid" "$port" || { bad "gnutls-serv did not start: $(cat "$tmp/gs.out")"; finish; }
hs() { # hs OUT ARGS...: one line through hs-client, echoed back by gnutls-serv
	local out=$1
	shift
	(echo "line-$out"; sleep 0.5) | timeout 10 "$client" --insecure "$@" "localhost:$port" \
		>"$tmp/$out" 2>&1
}
hs h1 --sess-out "$tmp/h.sess"
hs h2 --sess-in "$tmp/h.sess"
if grep -q "session: new" "$tmp/h1" && grep -q "session: resumed (psk_dhe_ke)" "$tmp/h2" &&
	grep -q "line-h2" "$tmp/h2" && count_in "$tmp/gs.out" "This is a resumed session" 1; then
	pass "hs-client --sess-in resumes against gnutls-serv (both say so)"
else
	bad "hs-client against gnutls-serv: $(cat "$tmp/h2") / $(grep -c resumed "$tmp/gs.out")"
fi
hs h3 --ktls --sess-in "$tmp/h.sess"
if grep -q "session: resumed (psk_dhe_ke)" "$tmp/h3" && grep -q "ktls: TX" "$tmp/h3" &&
	grep -q "line-h3" "$tmp/h3" && count_in "$tmp/gs.out" "This is a resumed session" 2; then
	pass "hs-client --ktls --sess-in resumes against gnutls-serv"
else
	bad "hs-client --ktls against gnutls-serv: $(cat "$tmp/h3")"
fi
# tickets received after the hand-off (ktls records), saved, then used
hs h4 --ktls --sess-out "$tmp/k.sess"
hs h5 --ktls --sess-in "$tmp/k.sess"
if grep -q "session: new" "$tmp/h4" && [ -s "$tmp/k.sess" ] &&
	grep -q "session: resumed (psk_dhe_ke)" "$tmp/h5" && grep -q "line-h5" "$tmp/h5" &&
	count_in "$tmp/gs.out" "This is a resumed session" 3; then
	pass "hs-client --ktls --sess-out keeps gnutls-serv's tickets read on ktls; --sess-in resumes"
else
	bad "hs-client --ktls --sess-out/--sess-in: $(cat "$tmp/h4" "$tmp/h5")"
fi
kill "$pid" 2>/dev/null

# --- gnutls-cli --resume against hs-server (engine records, then --ktls)
g_cli() { # g_cli OUT: gnutls-cli --resume, one line
	(echo resume-me; sleep 1) | timeout 15 gnutls-cli --resume --priority "$prio" \
		--x509cafile "$tmp/ec.pem" -p "$port" localhost >"$tmp/$1" 2>&1
}
for mode in plain ktls notickets; do
	case $mode in
	plain) extra=() ;;
	ktls) extra=(--ktls) ;;
	notickets) extra=(--no-tickets) ;;
	esac
	"$server" --listen 127.0.0.1:0 --echo --max-conns 2 --cert "$tmp/ec.pem" \
		--key "$tmp/ec.key" "${extra[@]}" 2>"$tmp/srv-$mode.err" &
	pids+=($!)
	port=$(hs_port "$tmp/srv-$mode.err") || { bad "hs-server $mode did not start"; continue; }
	g_cli "g-$mode"
	count_in "$tmp/srv-$mode.err" "connection done" 2
	if [ "$mode" = notickets ]; then
		if ! grep -q "This is a resumed session" "$tmp/g-$mode" &&
			grep -q "resume-me" "$tmp/g-$mode"; then
			pass "gnutls-cli --resume against hs-server --no-tickets: a full handshake"
		else
			bad "gnutls-cli resumed without tickets: $(cat "$tmp/g-$mode")"
		fi
	elif grep -q "This is a resumed session" "$tmp/g-$mode" && grep -q "resume-me" "$tmp/g-$mode" &&
		grep -q "session: resumed (psk_dhe_ke)" "$tmp/srv-$mode.err"; then
		pass "gnutls-cli --resume resumes against hs-server ($mode)"
	else
		bad "gnutls-cli --resume against hs-server ($mode): $(grep -iE 'resum|error' \
			"$tmp/g-$mode") / $(cat "$tmp/srv-$mode.err")"
	fi
done
finish
