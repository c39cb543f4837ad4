#!/bin/bash
# Upcall handshakes per second in a UML 7.x guest: NFSv4.2 mounts with
# xprtsec=tls, each answered by handshaked on both sides (the client's and
# knfsd's upcalls), repeated N times (default 20) after
# tests/handshaked/nfs_tls.sh's own checks. Function only: UML runs on one
# emulated CPU with the kernel's generic crypto. tlshd would be the
# reference; it is not packaged in Debian 12, and the output says so.
#   bench/uml-upcalls.sh BUILD_DIR [N]
set -eu
build=${1:?usage: bench/uml-upcalls.sh BUILD_DIR [N]}
src=$(cd "$(dirname "$0")/.." && pwd)
NFS_MOUNTS=${2:-20} UML_QUIET=1 exec "$src/tests/uml/run-in-uml.sh" --kernel 7 --timeout 900 \
	--modules tls -- "$src/tests/handshaked/nfs_tls.sh" "$(realpath "$build/handshaked/handshaked")"
