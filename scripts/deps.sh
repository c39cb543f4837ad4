#!/usr/bin/env bash
# Install what hs needs to build, test and benchmark, from Debian/Ubuntu
# packages, only where something is missing. Uses sudo when not root.
set -euo pipefail

packages=(
	meson ninja-build gcc clang pkg-config python3
	libcmocka-dev          # unit tests
	libssl-dev openssl     # OpenSSL: comparison peer in bench/ and tests/ only
	valgrind               # constant-time (ctgrind) tests
	gnutls-bin iproute2 util-linux  # interop peers (gnutls-serv/-cli), ip + unshare for a private netns
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
