#!/usr/bin/env bash
# Install what hs needs to build, test and benchmark, from Debian/Ubuntu
# packages, only where something is missing. Uses sudo when not root.
set -euo pipefail

packages=(
	meson ninja-build gcc clang pkg-config python3
	libcmocka-dev          # unit tests
	libssl-dev openssl     # OpenSSL: comparison peer in bench/ and tests/ only
	valgrind               # constant-time (ctgrind) tests
	liburing-dev           # hs-server --uring, include/hs/uring.h (the io_uring loop)
	gnutls-bin iproute2 util-linux  # interop peers (gnutls-serv/-cli), ip + unshare for a private netns
	libmnl-dev             # hs-ktls-stat (sock_diag) and handshaked (net/handshake upcalls) through libmnl
	libkeyutils-dev        # handshaked: keys the kernel names by serial (kernel keyrings)
	ca-certificates        # X.509: the system bundle (default trust store, parse test, fuzz seeds)
	libclang-rt-14-dev     # libFuzzer runtime for the X.509 parser fuzz target (clang builds)
	tshark                 # key log test: decrypts a captured hs connection with SSLKEYLOGFILE
	groff man-db           # man pages (roff, by hand): tests/interop/man.sh checks groff -ww and man --warnings
)
# Kernel tests in User-Mode Linux (tests/uml/run-in-uml.sh): best effort, the
# tests skip (exit 77) when UML cannot start. knfsd and mount.nfs for the NFS
# over TLS test of handshaked (in the guest, whose root is this machine's);
# keyctl to look at the key handshaked's DONE names; debootstrap makes the
# Debian trixie root where tlshd runs next to handshaked.
optional=(user-mode-linux kmod patchelf nfs-kernel-server nfs-common keyutils debootstrap)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
opt_missing=()
for p in "${optional[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		opt_missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && [ ${#opt_missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]} ${opt_missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null
if [ ${#missing[@]} -gt 0 ]; then
	$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
for p in "${opt_missing[@]}"; do
	$sudo apt-get install -y -q --no-install-recommends "$p" >/dev/null 2>&1 ||
		echo "deps: optional $p not installed (kernel tests may skip)" >&2
done
