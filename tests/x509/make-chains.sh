#!/bin/sh
# Build the certificate chains tests/x509/test_x509_chain.c checks, with the
# openssl CLI, into directory $1. Every certificate is made with `openssl ca`
# so validity dates are explicit (expired, not-yet-valid certificates are
# real, not simulated by moving the clock). Files: NAME.pem (certificate),
# NAME.key (its key). One defect per certificate; see the test for which.
set -eu
dir=$1
cd "$dir"
mkdir -p newcerts
NOW_START=20200101000000Z
NOW_END=20490101000000Z

key() { # key NAME TYPE
	case $2 in
	p256) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" ;;
	p384) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out "$1.key" ;;
	rsa) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key" ;;
	ed25519) openssl genpkey -algorithm ed25519 -out "$1.key" ;;
	esac 2>/dev/null
}

# Extension sections, one per kind of certificate.
cat > ext.cnf <<'EOF'
[root]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[int]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[int_pathlen0]
basicConstraints = critical,CA:true,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
[int_notca]
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature,keyCertSign
[int_nc]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign
nameConstraints = critical,permitted;DNS:example.com,excluded;DNS:bad.example.com
[int_eku_client]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign
extendedKeyUsage = clientAuth
[leaf]
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth,clientAuth
subjectAltName = DNS:www.example.com,DNS:*.wild.example.com,IP:192.0.2.1,IP:2001:db8::1
authorityKeyIdentifier = keyid
[leaf_badwild]
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:w*.example.com,DNS:*.*.example.net,DNS:*.com
[leaf_client]
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
subjectAltName = DNS:www.example.com
[leaf_ku]
keyUsage = critical,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:www.example.com
[leaf_crit]
keyUsage = critical,digitalSignature
subjectAltName = DNS:www.example.com
1.3.6.1.4.1.55555.1 = critical,DER:0500
[leaf_noncrit]
keyUsage = critical,digitalSignature
subjectAltName = DNS:www.example.com
1.3.6.1.4.1.55555.1 = DER:0500
[leaf_nc_ok]
subjectAltName = DNS:www.example.com
[leaf_nc_bad]
subjectAltName = DNS:www.example.org
[leaf_nc_excl]
subjectAltName = DNS:x.bad.example.com
[int_nc_secret]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign
nameConstraints = critical,excluded;DNS:secret.example.com
[leaf_dot]
subjectAltName = DNS:secret.example.com.
[leaf_wild]
subjectAltName = DNS:*.example.com
[leaf_www]
subjectAltName = DNS:www.example.com
[int_pathlen200]
basicConstraints = critical,CA:true,pathlen:200
keyUsage = critical,keyCertSign,cRLSign
[int_pathlen256]
basicConstraints = critical,CA:true,pathlen:256
keyUsage = critical,keyCertSign,cRLSign
EOF

# sign NAME ISSUER SECTION [START END]: NAME.key -> NAME.pem signed by ISSUER
sign() {
	name=$1 issuer=$2 sect=$3 start=${4:-$NOW_START} end=${5:-$NOW_END}
	: > "index-$issuer.txt"
	[ -f "serial-$issuer" ] || echo 1000 > "serial-$issuer"
	cat > "ca-$issuer.cnf" <<EOF
[ca]
default_ca = d
[d]
database = index-$issuer.txt
new_certs_dir = newcerts
serial = serial-$issuer
default_md = default
policy = p
unique_subject = no
[p]
commonName = supplied
EOF
	openssl req -new -key "$name.key" -subj "/CN=hs test $name" -out "$name.csr" 2>/dev/null
	if [ "$issuer" = "$name" ]; then
		set -- -selfsign -keyfile "$name.key"
	else
		set -- -cert "$issuer.pem" -keyfile "$issuer.key"
	fi
	openssl ca -batch -notext -config "ca-$issuer.cnf" "$@" -in "$name.csr" -out "$name.pem" \
		-startdate "$start" -enddate "$end" -extfile ext.cnf -extensions "$sect" \
		>/dev/null 2>&1 || { echo "make-chains: signing $name failed" >&2; exit 1; }
}

# The main P-256 hierarchy: root -> int -> leaves
key root p256; sign root root root
key int p256; sign int root int
for l in leaf leaf_badwild leaf_client leaf_ku leaf_crit leaf_noncrit; do
	key "$l" p256; sign "$l" int "$l"
done
key expired p256; sign expired int leaf 20200101000000Z 20210101000000Z
key future p256; sign future int leaf 20400101000000Z 20450101000000Z
key int_expired p256; sign int_expired root int 20200101000000Z 20210101000000Z
key leaf_under_expired p256; sign leaf_under_expired int_expired leaf
# pathlen:0 intermediate -> another CA -> leaf
key int_pl0 p256; sign int_pl0 root int_pathlen0
key int_sub p256; sign int_sub int_pl0 int
key leaf_pl p256; sign leaf_pl int_sub leaf
key leaf_pl_ok p256; sign leaf_pl_ok int_pl0 leaf
# CA:false "intermediate"
key int_notca p256; sign int_notca root int_notca
key leaf_notca p256; sign leaf_notca int_notca leaf
# name constraints
key int_nc p256; sign int_nc root int_nc
for l in leaf_nc_ok leaf_nc_bad leaf_nc_excl; do
	key "$l" p256; sign "$l" int_nc "$l"
done
# excludedSubtrees secret.example.com: a SAN with a trailing dot, a wildcard over it
key int_ncs p256; sign int_ncs root int_nc_secret
for l in leaf_dot leaf_wild leaf_www; do
	key "ncs_$l" p256; sign "ncs_$l" int_ncs "$l"
done
# pathLenConstraint 200 and 256 (two-octet INTEGERs) above another CA
for n in 200 256; do
	key "int_pl$n" p256; sign "int_pl$n" root "int_pathlen$n"
	key "int_pl${n}_sub" p256; sign "int_pl${n}_sub" "int_pl$n" int
	key "leaf_pl$n" p256; sign "leaf_pl$n" "int_pl${n}_sub" leaf
done
# EKU on the intermediate limits the leaf
key int_ekuc p256; sign int_ekuc root int_eku_client
key leaf_ekuc p256; sign leaf_ekuc int_ekuc leaf
# an unrelated root (the "other" trust store) and its leaf
key other p256; sign other other root
key leaf_other p256; sign leaf_other other leaf

# Algorithm mixes: RSA root -> P-384 intermediate -> P-256 leaf;
# P-384 root -> RSA intermediate -> RSA leaf; Ed25519 root -> Ed25519 leaf
key rsa_root rsa; sign rsa_root rsa_root root
key p384_int p384; sign p384_int rsa_root int
key mix1_leaf p256; sign mix1_leaf p384_int leaf
key p384_root p384; sign p384_root p384_root root
key rsa_int rsa; sign rsa_int p384_root int
key mix2_leaf rsa; sign mix2_leaf rsa_int leaf
key ed_root ed25519; sign ed_root ed_root root
key ed_leaf ed25519; sign ed_leaf ed_root leaf
