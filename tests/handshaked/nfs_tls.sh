#!/bin/bash
# NFSv4.2 over TLS with handshaked answering every handshake upcall (the
# NFS client's and knfsd's), inside a UML 7.x guest (tests/uml): knfsd
# exports a tmpfs directory, the client mounts it over loopback with
# xprtsec=tls, a file is written and read back, the NFS socket is on kernel
# TLS (/proc/net/tls_stat), and handshaked logged both handshakes; then an
# xprtsec=mtls mount (the client's configured certificate, checked by the
# server side) and each DONE's remote identity. First,
# with no daemon running, the mount must fail (not hang).
#   nfs_tls.sh HANDSHAKED     (inside the guest; meson runs it through run-in-uml.sh)
# NFS_MOUNTS=N adds N more mount + umount cycles and prints upcall
# handshakes per second (bench/uml-upcalls.sh; function only: UML).
# The guest's root is the host's file system: everything this writes goes
# under tmpfs mounts made here (/run, /var/lib/nfs, the export, the
# certificates, the logs: $P), never into the host's /etc, nor its /tmp
# (another run of this test may be using it at the same time).
set -u
daemon=$(realpath "$1")
fails=0
T0=$(date +%s.%N)
now() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%6.2f", b - a }'; }
ok() { echo "[$(now)] ok   $*"; }
bad() { echo "[$(now)] FAIL $*"; fails=$((fails + 1)); }
run() { # run NAME CMD...
	local name=$1; shift
	if "$@" >$P/step.out 2>&1; then ok "$name"; else bad "$name"; sed 's/^/      | /' $P/step.out; return 1; fi
}

for t in rpcbind rpc.nfsd rpc.mountd exportfs mount.nfs openssl; do
	command -v "$t" >/dev/null || { echo "skipped: $t missing (nfs-kernel-server, nfs-common)"; exit 77; }
done

mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /run/lock /run/rpc_pipefs /run/hsd /var/lib/nfs
mount -t tmpfs tmpfs /var/lib/nfs
mount -t tmpfs tmpfs /run/hsd
P=/run/hsd
mkdir -p /var/lib/nfs/nfsdcld /var/lib/nfs/v4recovery /var/lib/nfs/rpc_pipefs
: >/var/lib/nfs/etab
: >/var/lib/nfs/rmtab
run "modprobe sunrpc nfsd nfsv4" modprobe -a sunrpc nfsd nfsv4 || exit 1
run "mount rpc_pipefs" mount -t rpc_pipefs sunrpc /run/rpc_pipefs
mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs 2>/dev/null
run "mount nfsd fs" mount -t nfsd nfsd /proc/fs/nfsd

# a throw-away CA and a server certificate for localhost / 127.0.0.1
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=hs-test-ca \
	-keyout $P/ca.key -out $P/ca.pem -addext basicConstraints=critical,CA:TRUE \
	-addext keyUsage=critical,keyCertSign 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
	-keyout $P/server.key -out $P/server.csr 2>/dev/null
printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature \
	extendedKeyUsage=serverAuth subjectAltName=DNS:localhost,IP:127.0.0.1 >$P/server.ext
openssl x509 -req -in $P/server.csr -CA $P/ca.pem -CAkey $P/ca.key -CAcreateserial -days 2 \
	-extfile $P/server.ext -out $P/server.pem 2>/dev/null
# a client certificate from the same CA, for xprtsec=mtls
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=nfs-client \
	-keyout $P/client.key -out $P/client.csr 2>/dev/null
printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature \
	extendedKeyUsage=clientAuth >$P/client.ext
openssl x509 -req -in $P/client.csr -CA $P/ca.pem -CAkey $P/ca.key -CAcreateserial -days 2 \
	-extfile $P/client.ext -out $P/client.pem 2>/dev/null
# tlshd's configuration format, unchanged
cat >$P/tlshd.conf <<CONF
[debug]
loglevel=0

[authenticate]

[authenticate.client]
x509.truststore=$P/ca.pem
x509.certificate=$P/client.pem
x509.private_key=$P/client.key

[authenticate.server]
x509.truststore=$P/ca.pem
x509.certificate=$P/server.pem
x509.private_key=$P/server.key
CONF
run "handshaked --check reads tlshd.conf" "$daemon" --check --config $P/tlshd.conf

mkdir -p /export /mnt/tls
mount -t tmpfs -o size=64m tmpfs /export
echo 'hello over NFS with TLS' >/export/server-file
echo 10 >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null
echo 10 >/proc/fs/nfsd/nfsv4leasetime 2>/dev/null
run "rpcbind" rpcbind -w
run "exportfs (no /etc/exports: -i)" exportfs -i -o rw,fsid=0,no_root_squash,no_subtree_check,insecure 127.0.0.1:/export
run "rpc.mountd" rpc.mountd -N 3
run "rpc.nfsd (v4 only)" rpc.nfsd -N 3 4

# no daemon: the kernel must fail the upcall, not hang
t1=$(date +%s)
if timeout 60 mount -t nfs4 -o vers=4.2,proto=tcp,xprtsec=tls 127.0.0.1:/ /mnt/tls 2>$P/m.err; then
	umount /mnt/tls
	bad "mount with xprtsec=tls succeeded with no handshake daemon"
else
	ok "with no daemon the TLS mount fails after $(( $(date +%s) - t1 )) s: $(tr '\n' ' ' <$P/m.err)"
fi

"$daemon" --foreground --config $P/tlshd.conf --json -v >$P/hsd.json 2>$P/hsd.log &
hsd=$!
sleep 0.5
kill -0 $hsd 2>/dev/null && ok "handshaked running" || { bad "handshaked exited: $(cat $P/hsd.log)"; exit 1; }

t1=$(date +%s.%N)
if run "mount -t nfs4 -o vers=4.2,proto=tcp,xprtsec=tls 127.0.0.1:/ /mnt/tls" \
	timeout 120 mount -t nfs4 -o vers=4.2,proto=tcp,xprtsec=tls 127.0.0.1:/ /mnt/tls; then
	echo "      mount took $(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s (handshaked)"
	grep ' /mnt/tls ' /proc/mounts | sed 's/^/      /'
	run "read a server-side file through the mount" grep -q 'hello over NFS with TLS' /mnt/tls/server-file
	head -c 1048576 /dev/urandom >$P/nfs-src
	run "write 1 MiB (dd conv=fsync)" dd if=$P/nfs-src of=/mnt/tls/blob bs=64k conv=fsync status=none
	run "the server side has the same bytes" cmp $P/nfs-src /export/blob
	echo 3 >/proc/sys/vm/drop_caches
	run "read it back after drop_caches" cmp $P/nfs-src /mnt/tls/blob
	tx=$(awk '$1 == "TlsTxSw" { print $2 }' /proc/net/tls_stat)
	rx=$(awk '$1 == "TlsRxSw" { print $2 }' /proc/net/tls_stat)
	cur=$(awk '$1 == "TlsCurrTxSw" { print $2 }' /proc/net/tls_stat)
	[ "${tx:-0}" -ge 2 ] && [ "${rx:-0}" -ge 2 ] && [ "${cur:-0}" -ge 2 ] &&
		ok "kernel TLS on both ends (tls_stat: TlsTxSw $tx, TlsRxSw $rx, TlsCurrTxSw $cur)" ||
		bad "no kernel TLS sockets: $(tr '\n' ' ' </proc/net/tls_stat)"
	run "umount" umount /mnt/tls
fi
# xprtsec=mtls: the client's upcall is x509 (no key named: the configured client certificate
# goes), knfsd's asks for a client certificate and checks it; its DONE then says the peer
# was authenticated (UINT_MAX, as tlshd sends it: no key, this kernel has no asymmetric type)
t1=$(date +%s.%N)
if timeout 120 mount -t nfs4 -o vers=4.2,proto=tcp,xprtsec=mtls 127.0.0.1:/ /mnt/tls 2>$P/m.err; then
	ok "mount -o xprtsec=mtls ($(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s)"
	run "read a server-side file through the mtls mount" grep -q 'hello over NFS with TLS' /mnt/tls/server-file
	tail -n 2 $P/hsd.json | grep -q '"role": "server".*"status": 0.*"remote_auth": \[4294967295\]' &&
		ok "knfsd's DONE: the client's certificate was checked (remote-auth $(tail -n 2 $P/hsd.json |
			grep '"role": "server"' | sed 's/.*"remote_auth": \(\[[^]]*\]\).*/\1/'))" ||
		bad "knfsd's DONE after the mtls mount: $(tail -n 2 $P/hsd.json | tr '\n' ' ')"
	run "umount (mtls)" umount /mnt/tls
else
	bad "mount -o xprtsec=mtls: $(tr '\n' ' ' <$P/m.err) $(tail -n 2 $P/hsd.json | tr '\n' ' ')"
fi
if [ "${NFS_MOUNTS:-0}" -gt 0 ]; then
	# each mount: a new transport, so a client and a server handshake (counted, not assumed)
	before=$(grep -c '"status": 0' $P/hsd.json)
	t1=$(date +%s.%N)
	done_mounts=0
	for _ in $(seq "$NFS_MOUNTS"); do
		timeout 120 mount -t nfs4 -o vers=4.2,proto=tcp,xprtsec=tls 127.0.0.1:/ /mnt/tls 2>$P/m.err &&
			umount /mnt/tls || { bad "mount $((done_mounts + 1)): $(cat $P/m.err)"; break; }
		done_mounts=$((done_mounts + 1))
	done
	secs=$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	n=$(( $(grep -c '"status": 0' $P/hsd.json) - before ))
	[ "$n" -ge "$done_mounts" ] && [ "$done_mounts" = "$NFS_MOUNTS" ] &&
		ok "$done_mounts mounts + umounts: $n upcall handshakes in $secs s" ||
		bad "$done_mounts mounts, $n handshakes"
	awk -v n="$n" -v m="$done_mounts" -v s="$secs" 'BEGIN { printf \
		"      upcall handshakes/s (handshaked): %.1f; mounts/s: %.2f (function only: UML, one emulated CPU, generic crypto)\n", n / s, m / s }'
	# the handshakes' own time (handshake + kTLS install, from handshaked's JSON), per role
	awk -F'"ms": ' '/"status": 0/ { split($2, v, ","); r = ($0 ~ /"role": "client"/) ? "client" : "server";
		s[r] += v[1]; n[r]++ } END { for (r in n) printf "      %s handshakes: %d, mean %.1f ms each\n", r, n[r], s[r] / n[r] }' $P/hsd.json
	command -v tlshd >/dev/null ||
		echo "      upcall handshakes/s (tlshd): not available (ktls-utils is not packaged in Debian 12)"
fi
# DONE's remote identity (as tlshd gives it): the client's upcall gets a key holding the
# server's certificate (type asymmetric: the kernel must parse it, ECDSA P-256 here); knfsd's
# x509 upcall asked for a client certificate and, xprtsec=tls sending none, gets no identity
remote=$(grep -m1 '"role": "client".*"status": 0' $P/hsd.json | sed -n 's/.*"remote_auth": \[\([0-9]*\).*/\1/p')
if ! command -v keyctl >/dev/null; then
	echo "      note: keyctl missing (keyutils): DONE's remote identity not looked at"
elif [ -n "$remote" ]; then
	desc=$(keyctl describe "$remote" 2>&1)
	case $desc in
	*"asymmetric;"*"TLS x509 127.0.0.1"*) ok "DONE named the server's certificate: key $remote ($desc)" ;;
	*) bad "DONE's key $remote: $desc" ;;
	esac
else
	openssl x509 -in $P/server.pem -outform der -out $P/server.der
	why=$(keyctl padd asymmetric probe @s <$P/server.der 2>&1)
	echo "      note: DONE carried no key for the server's certificate: this kernel cannot make" \
		"one (keyctl padd asymmetric: ${why:-it could: a bug})"
	case $why in [0-9]*) bad "handshaked made no key the kernel could make" ;; esac
fi
grep -q '"role": "server".*"status": 0.*"remote_auth": \[\]' $P/hsd.json &&
	ok "knfsd's DONE: no client identity (xprtsec=tls sends no certificate)" ||
	bad "knfsd's DONE: $(grep '"role": "server"' $P/hsd.json | head -1)"
n_ok=$(grep -c '"status": 0' $P/hsd.json)
grep -q '"role": "client".*"status": 0.*"ktls": true' $P/hsd.json &&
	grep -q '"role": "server".*"status": 0.*"ktls": true' $P/hsd.json &&
	ok "handshaked did both sides ($n_ok handshakes, each on kernel TLS)" ||
	bad "handshaked's record: $(cat $P/hsd.json $P/hsd.log)"
kill -TERM $hsd
wait $hsd && ok "handshaked stops cleanly on SIGTERM" || bad "handshaked exit status $?"
sed 's/^/      log | /' $P/hsd.log
rpc.nfsd 0 >/dev/null 2>&1
echo "$fails failed"
[ $fails = 0 ]
