#!/bin/bash
# tlshd_compare.sh - handshaked next to tlshd (ktls-utils, the reference
# daemon) on the same NFSv4.2 xprtsec=tls mounts, in ONE UML 7.x guest.
#
#   tlshd_compare.sh [--bench] [--cycles N] [--burst M] HANDSHAKED
#
# The guest's root is a Debian trixie tree (bookworm has no ktls-utils and
# its nfs-utils knows no xprtsec= export option) made once with debootstrap
# under the runner's cache (${UML_CACHE_DIR:-~/.cache/run-in-uml}/trixie-tlshd)
# and kept. Each run stages HANDSHAKED (and any library it links that trixie
# lacks), a throw-away CA, a server certificate and one tlshd.conf that both
# daemons read, in a per-run directory of that tree; then the guest
# (tlshd_compare_guest.sh) serves an NFS export with xprtsec=tls and, for
# tlshd and then handshaked: one warm-up and N timed cycles of mount +
# 256 KiB written, checked on the server side and read back + umount, then M
# mounts at once (one server address each, 127.0.0.2...). Printed: mount
# times (median, min, max) and upcall handshakes per second (2 per mount: the
# NFS client's and knfsd's), counted by the kernel (/proc/net/tls_stat) and
# by each daemon's log.
# UML has no AES-NI and the guest one CPU: function, not speed.
#
# Exit: 0 both daemons served every mount and every byte came back; 1 a
# failure; 77 (skipped) when this is not root, debootstrap cannot fetch
# trixie from the mirror, or UML 7.x cannot start. --bench: 10 cycles and
# 8 mounts at once unless given (the test's defaults: 5 and 4); the same
# rows either way (bench/README.md, "handshaked next to tlshd").
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNNER=$HERE/../uml/run-in-uml.sh
CACHE=${UML_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/run-in-uml}
ROOT=$CACHE/trixie-tlshd
# what the guest needs: tlshd, knfsd's tools, the NFS client's, modprobe, ip,
# pgrep; openssl is not among them (the certificates are made here). The
# system roots too: handshaked loads them at start when [authenticate.server]
# names no trust store (the roots a client certificate would be checked
# against) and will not start without them; tlshd reads them per handshake.
PKGS=ktls-utils,nfs-kernel-server,nfs-common,rpcbind,kmod,iproute2,procps,netbase,mount,keyutils,libmnl0,ca-certificates

BENCH=0 CYCLES= BURST=
while [ $# -gt 1 ]; do
	case $1 in
	--bench) BENCH=1; shift ;;
	--cycles) CYCLES=${2:?}; shift 2 ;;
	--burst) BURST=${2:?}; shift 2 ;;
	*) break ;;
	esac
done
[ $# = 1 ] || { echo "usage: $0 [--bench] [--cycles N] [--burst M] HANDSHAKED" >&2; exit 2; }
DAEMON=$(realpath "$1")
[ -x "$DAEMON" ] || { echo "$0: $DAEMON is not an executable" >&2; exit 2; }
if [ $BENCH = 1 ]; then CYCLES=${CYCLES:-10} BURST=${BURST:-8}
else CYCLES=${CYCLES:-5} BURST=${BURST:-4}; fi
[[ $CYCLES =~ ^[1-9][0-9]?$ && $BURST =~ ^[1-9]$|^1[0-6]$ ]] ||
	{ echo "$0: --cycles 1-99, --burst 1-16" >&2; exit 2; }

T0=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }'; }
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, UML)"

# UML 7.x first: no point in a root tree when no kernel can boot it.
rc=0
"$RUNNER" --kernel 7 --prepare-only --unavailable-status 77 >/tmp/tlshd-cmp.$$.kernel 2>&1 || rc=$?
kernel=$(sed -n 's/^version=//p' /tmp/tlshd-cmp.$$.kernel)
[ $rc = 0 ] || { cat /tmp/tlshd-cmp.$$.kernel; rm -f /tmp/tlshd-cmp.$$.kernel; [ $rc = 77 ] && skip "UML 7.x unavailable"; exit 1; }
rm -f /tmp/tlshd-cmp.$$.kernel

# ---- the trixie root, made once (under a lock: parallel first runs wait) ----
make_root() {
	local mirror t log=$ROOT.log
	if ! command -v debootstrap >/dev/null; then
		echo "installing debootstrap (apt-get)"
		apt-get install -y -qq debootstrap >/dev/null 2>&1 || skip "debootstrap missing and apt-get cannot install it"
	fi
	mirror=$("$RUNNER" --print-mirror 2>/dev/null) || skip "no Debian mirror in the apt sources"
	wget -q -T 20 -t 2 -O /dev/null "${mirror}dists/trixie/Release" ||
		skip "the Debian mirror $mirror does not answer for trixie (no network?)"
	echo "making the trixie root (debootstrap --variant=minbase, once; cached in $ROOT)"
	t=$(date +%s.%N)
	rm -rf "$ROOT.tmp"
	if ! timeout 900 debootstrap --variant=minbase --include="$PKGS" trixie "$ROOT.tmp" "$mirror" >"$log" 2>&1; then
		tail -n 15 "$log"
		rm -rf "$ROOT.tmp"
		# a download that failed half way is the network, not the code under test
		grep -qiE "couldn't download|failed getting release|couldn't retrieve|connection (refused|timed out)|temporary failure" "$log" &&
			skip "debootstrap could not fetch trixie from $mirror"
		echo "FAIL debootstrap (log: $log)"
		exit 1
	fi
	[ -x "$ROOT.tmp/usr/sbin/tlshd" ] && [ -x "$ROOT.tmp/usr/sbin/rpc.nfsd" ] ||
		{ echo "FAIL the trixie root has no tlshd or rpc.nfsd"; exit 1; }
	printf 'packages=%s\nmade=%s\nseconds=%s\n' "$PKGS" "$(date -u +%FT%TZ)" "$(since "$t")" >"$ROOT.tmp/.hs-root"
	mv "$ROOT.tmp" "$ROOT"
	echo "trixie root made in $(since "$t") s ($(du -sm "$ROOT" | cut -f1) MB)"
}
mkdir -p "$CACHE"
exec 8>"$CACHE/.trixie-tlshd.lock"
flock 8
if [ ! -f "$ROOT/.hs-root" ] || [ "$(sed -n 's/^packages=//p' "$ROOT/.hs-root")" != "$PKGS" ]; then
	rm -rf "$ROOT"
	make_root
else
	echo "trixie root: cached in $ROOT (made $(sed -n 's/^made=//p' "$ROOT/.hs-root") in $(sed -n 's/^seconds=//p' "$ROOT/.hs-root") s)"
fi
flock -u 8
exec 8>&-

# ---- this run's directory inside the root: daemon, libraries, PKI, conf ----
mkdir -p "$ROOT/tmp"
HOSTRUN=$(mktemp -d "$ROOT/tmp/hs-tlshd-cmp.XXXXXX")
RUN=${HOSTRUN#"$ROOT"}	# the same directory as the guest sees it
trap 'rm -rf "$HOSTRUN"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$HOSTRUN/bin" "$HOSTRUN/lib" "$HOSTRUN/pki"
cp "$DAEMON" "$HOSTRUN/bin/handshaked"
# Libraries: trixie's own copy where it has the soname (newer, same ABI),
# else this host's (libasan in a sanitizer build, for one). glibc always
# trixie's: the binary needs glibc >= 2.36 and trixie has 2.41.
ldd "$DAEMON" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r soname path; do
	case $soname in libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) continue ;; esac
	ls "$ROOT"/usr/lib/x86_64-linux-gnu/"$soname" >/dev/null 2>&1 || cp -L "$path" "$HOSTRUN/lib/"
done

P=$HOSTRUN/pki
san=DNS:localhost
for i in $(seq 1 $((BURST + 5))); do san=$san,IP:127.0.0.$i; done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=hs-tlshd-cmp-ca \
	-keyout "$P/ca.key" -out "$P/ca.pem" -addext basicConstraints=critical,CA:TRUE \
	-addext keyUsage=critical,keyCertSign 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
	-keyout "$P/server.key" -out "$P/server.csr" 2>/dev/null
printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature \
	extendedKeyUsage=serverAuth "subjectAltName=$san" >"$P/server.ext"
openssl x509 -req -in "$P/server.csr" -CA "$P/ca.pem" -CAkey "$P/ca.key" -CAcreateserial -days 2 \
	-extfile "$P/server.ext" -out "$P/server.pem" 2>/dev/null
# a client certificate for the xprtsec=mtls export (the guest's last step)
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=hs-nfs-client \
	-keyout "$P/client.key" -out "$P/client.csr" 2>/dev/null
printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature \
	extendedKeyUsage=clientAuth >"$P/client.ext"
openssl x509 -req -in "$P/client.csr" -CA "$P/ca.pem" -CAkey "$P/ca.key" -CAcreateserial -days 2 \
	-extfile "$P/client.ext" -out "$P/client.pem" 2>/dev/null
chmod 600 "$P"/*.key
# One tlshd.conf for both daemons. loglevel=1: tlshd logs each finished
# handshake only when debugging is on (and then every step of it).
cat >"$HOSTRUN/tlshd.conf" <<CONF
[debug]
loglevel=1
tls=0
nl=0

[authenticate]

[authenticate.client]
x509.truststore=$RUN/pki/ca.pem
x509.certificate=$RUN/pki/client.pem
x509.private_key=$RUN/pki/client.key

[authenticate.server]
x509.truststore=$RUN/pki/ca.pem
x509.certificate=$RUN/pki/server.pem
x509.private_key=$RUN/pki/server.key
CONF
cp "$HERE/tlshd_compare_guest.sh" "$HOSTRUN/guest.sh"
echo "prepared in $(since "$T0") s; booting UML $kernel on the trixie root"

# ---- the guest ----
t=$(date +%s.%N)
rc=0
(cd "$HOSTRUN" && UML_QUIET=1 "$RUNNER" --kernel 7 --root "$ROOT" --timeout 420 --unavailable-status 77 \
	--modules tls -- "$RUN/guest.sh" "$RUN" "$CYCLES" "$BURST") || rc=$?
echo "UML run: $(since "$t") s; whole script: $(since "$T0") s"
[ $rc = 77 ] && skip "UML 7.x did not start on the trixie root"
[ -s "$HOSTRUN/results" ] || { echo "FAIL no results from the guest (exit $rc)"; exit 1; }

# ---- the report ----
# results: DAEMON cycles_ok mount_med mount_min mount_max seq_hs seq_hs_log
#          seq_seconds burst_ok burst_hs burst_hs_log burst_seconds warm_up_mount
awk -v cycles="$CYCLES" -v burst="$BURST" '
	{ d[$1] = 1; for (i = 2; i <= NF; i++) v[$1, i] = $i }
	function rate(n, s) { return s > 0 ? n / s : 0 }
	function row(name, unit, a, b, r) {
		printf "%-44s %-6s %10s %10s %9s\n", name, unit, a, b, r
	}
	END {
		if (!("handshaked" in d) || !("tlshd" in d)) { print "FAIL a daemon has no results"; exit 1 }
		print ""
		print "function only: UML has no AES-NI, generic C crypto (one emulated CPU; hs keeps its"
		print "userspace backends, the kernel side of both is the same)"
		row("row", "unit", "handshaked", "tlshd", "hsd/tlshd")
		h = "handshaked"; t = "tlshd"
		row("upcall mount, median of " cycles, "s", v[h, 3], v[t, 3], sprintf("%.2f", v[t, 3] / v[h, 3]))
		row("upcall mount, min", "s", v[h, 4], v[t, 4], sprintf("%.2f", v[t, 4] / v[h, 4]))
		row("upcall mount, max", "s", v[h, 5], v[t, 5], sprintf("%.2f", v[t, 5] / v[h, 5]))
		# no ratio: tlshd runs first, so its warm-up also pays for the first
		# NFS mount of the guest (module loads, caches)
		row("upcall mount, warm-up (not above)", "s", v[h, 13], v[t, 13], "-")
		# 2 handshakes per mount over the median mount (robust to one slow
		# mount on a busy host); the totals are in the last lines
		rh = rate(2, v[h, 3]); rt = rate(2, v[t, 3])
		row("upcall handshakes/s, one mount at a time", "hs/s", sprintf("%.2f", rh), sprintf("%.2f", rt),
		    sprintf("%.2f", rt > 0 ? rh / rt : 0))
		rh = rate(v[h, 10], v[h, 12]); rt = rate(v[t, 10], v[t, 12])
		row("upcall handshakes/s, " burst " mounts at once", "hs/s", sprintf("%.2f", rh), sprintf("%.2f", rt),
		    sprintf("%.2f", rt > 0 ? rh / rt : 0))
		print "(hsd/tlshd above 1: handshaked faster; times are ratios tlshd/handshaked)"
		for (k in d)
			printf "%s: %d/%d cycles, %d+%d handshakes (kernel tls_stat), %d+%d in its log; burst %d/%d mounts in %.2f s\n",
			    k, v[k, 2], cycles, v[k, 6], v[k, 10], v[k, 7], v[k, 11], v[k, 9], burst, v[k, 12]
		for (k in d)
			if (v[k, 9] < burst)
				printf "note: %d of the %d mounts at once failed with %s (each tried again alone: see above)\n",
				    burst - v[k, 9], burst, k
	}' "$HOSTRUN/results"
[ $rc = 0 ] || { echo "FAIL the guest reported failures (exit $rc)"; exit 1; }
echo "ok: tlshd and handshaked served every mount; every byte came back"
