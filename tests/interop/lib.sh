# Helpers shared by the interop and CLI tests (sourced, not run).
# Exit 77 = skipped (meson shows SKIP).

SKIP=77
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs-interop.XXXXXX")
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

fails=0
pass() { echo "ok   $*"; }
bad() {
	echo "FAIL $*"
	fails=$((fails + 1))
}
finish() {
	if [ "$fails" -ne 0 ]; then
		echo "$fails failure(s)"
		exit 1
	fi
	echo "all passed"
	exit 0
}

need() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || {
			echo "SKIP: $t not installed (scripts/deps.sh installs it)"
			exit $SKIP
		}
	done
}

# Is TCP port $1 in use (any state) on this host / namespace?
port_used() {
	local hex
	hex=$(printf ':%04X ' "$1")
	grep -qi "$hex" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
# Is something listening on port $1?
port_listening() {
	local hex
	hex=$(printf ':%04X 00000000000000000000000000000000:0000 0A|:%04X 00000000:0000 0A' "$1" "$1")
	grep -Eqi "$hex" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		port_used "$p" || break
	done
	echo "$p"
}
# wait_listen PID PORT: 0 once listening, 1 if PID died or 5 s passed
wait_listen() {
	for _ in $(seq 100); do
		port_listening "$2" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# hs-server --listen 127.0.0.1:0 prints "listening on 127.0.0.1 port N" on stderr
hs_port() {
	for _ in $(seq 100); do
		local p
		p=$(sed -n 's/.*listening on .* port \([0-9]*\).*/\1/p' "$1" 2>/dev/null) # the file may not exist yet
		[ -n "$p" ] && {
			echo "$p"
			return 0
		}
		sleep 0.05
	done
	return 1
}

size() { stat -c %s "$1" 2>/dev/null || echo 0; }
# Send file $1, then keep stdin open until $2 has $3 bytes (at most ~10 s),
# so a peer that closes on end of input does not cut the reply short.
feed() {
	cat "$1"
	for _ in $(seq 200); do
		[ "$(size "$2")" -ge "$3" ] && break
		sleep 0.05
	done
}
same() { [ "$(sha256sum <"$1" | cut -d' ' -f1)" = "$(sha256sum <"$2" | cut -d' ' -f1)" ]; }

# Test data: decimal digits, spaces and newlines only, so that no peer's
# interactive command letters (s_server/s_client) or CRLF rewriting
# (gnutls-serv --echo) can touch it.
make_data() { od -An -tu4 -v -N "$2" /dev/urandom >"$1"; }

# Certificates: P-256 and Ed25519 self-signed leaves for localhost.
make_certs() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-keyout "$tmp/p256.key" -out "$tmp/p256.pem" -subj /CN=localhost \
		-addext subjectAltName=DNS:localhost 2>/dev/null &&
		openssl req -x509 -newkey ed25519 -nodes -days 2 \
			-keyout "$tmp/ed25519.key" -out "$tmp/ed25519.pem" -subj /CN=localhost \
			-addext subjectAltName=DNS:localhost 2>/dev/null
}

SUITES=${SUITES:-"TLS_AES_128_GCM_SHA256 TLS_AES_256_GCM_SHA384 TLS_CHACHA20_POLY1305_SHA256"}
GROUPS_="x25519 P-256"
CERTS="p256 ed25519"
# hs prints the group as its IANA name
hs_group() { [ "$1" = P-256 ] && echo secp256r1 || echo "$1"; }

# private_netns SCRIPT ARGS...: run SCRIPT again in a private network
# namespace (unshare -n) with lo up (gnutls-serv cannot be told to listen on
# 127.0.0.1 only); once inside, just bring lo up. Skipped (77) where
# namespaces are not permitted.
private_netns() {
	if [ -z "${HS_IN_NETNS:-}" ]; then
		unshare -n true 2>/dev/null || {
			echo "SKIP: unshare -n (private network namespace) is not permitted here"
			exit $SKIP
		}
		rm -rf "$tmp"
		HS_IN_NETNS=1 exec unshare -n "$@"
	fi
	ip link set lo up || {
		echo "SKIP: cannot bring up lo in the namespace"
		exit $SKIP
	}
}
