#!/usr/bin/env bash
# What a packager and a C programmer get from `meson install`: installs this
# build into a temporary DESTDIR, checks the tree (library with soname,
# static archive, headers that compile alone, libhs.pc, hs-ktls-stat, nothing
# linking OpenSSL), that libhs.so exports hs_* and nothing else (and every
# function the headers declare), then builds tests/install/example.c (the
# README's example) with `pkg-config --cflags --libs libhs`, shared and with
# the static archive, and runs both against hs-server on 127.0.0.1.
# Usage: install.sh BUILD_DIR SOURCE_DIR HS_SERVER CC [CC args...]
set -u
build=$1 src=$2 server=$3
shift 3
cc=("$@")
# a sanitized build's libhs needs the sanitizer runtimes in the program too
[ "${HS_SANITIZE:-none}" != none ] && cc+=("-fsanitize=$HS_SANITIZE")
# shellcheck source=../interop/lib.sh
. "$src/tests/interop/lib.sh" # $tmp, $pids, cleanup, pass / bad / finish, hs_port

root=$tmp/root
if ! meson install -C "$build" --no-rebuild --destdir "$root" >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "FAIL meson install"
	exit 1
fi
pass "meson install --destdir"

pc=$(find "$root" -name libhs.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL no libhs.pc installed"; exit 1; }
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR=$root
# (pkg-config puts the sysroot in front of these paths)
libdir=$(pkg-config --variable=libdir libhs)
incdir=$(pkg-config --variable=includedir libhs)
pass "libhs.pc: $(pkg-config --modversion libhs), $(pkg-config --cflags --libs libhs)"

# ---- the tree
so=$(readlink "$libdir/libhs.so")
soname=$(readelf -d "$libdir/libhs.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ -f "$libdir/libhs.so" ] && [ "$soname" = libhs.so.0 ] && [ -f "$libdir/$soname" ]; then
	pass "libhs.so -> $so, soname $soname"
else
	bad "libhs.so / soname (got '$soname')"
fi
[ -f "$libdir/libhs.a" ] && pass "libhs.a" || bad "no libhs.a"
for h in cred err fd ktls secrets tls version x509 x509_write; do
	[ -f "$incdir/hs/$h.h" ] || bad "hs/$h.h not installed"
done
if bash "$src/tests/api/check-headers.sh" "$incdir" "${cc[@]}" >"$tmp/headers.log" 2>&1; then
	pass "installed headers compile alone: $(tail -n 1 "$tmp/headers.log")"
else
	bad "installed headers: $(cat "$tmp/headers.log")"
fi
stat=$(find "$root" -name hs-ktls-stat -type f)
[ -n "$stat" ] && pass "hs-ktls-stat installed (${stat#"$root"})" || bad "hs-ktls-stat not installed"
[ -z "$(find "$root" -name 'hs-bench' -type f)" ] && pass "hs-bench (links OpenSSL) not installed" ||
	bad "hs-bench installed"
[ -z "$(find "$root" -path '*test*' -type f)" ] && pass "no test installed" || bad "tests installed"
while IFS= read -r f; do
	if readelf -d "$f" 2>/dev/null | grep -Eq 'NEEDED.*lib(ssl|crypto)\.so'; then
		bad "${f#"$root"} links OpenSSL"
	fi
done < <(find "$root" -type f)
pass "nothing installed links OpenSSL"

# ---- the exports: hs_* only, and every public function
nm -D --defined-only "$libdir/libhs.so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | LC_ALL=C sort >"$tmp/exported"
others=$(grep -v '^hs_' "$tmp/exported")
[ -z "$others" ] && [ -s "$tmp/exported" ] && pass "nm -D: $(wc -l <"$tmp/exported") symbols, all hs_*" ||
	bad "exported beyond hs_*: $others"
# every declaration at the start of a line naming hs_...( carries HS_API
missing=$(grep -hE '^[A-Za-z_].*\bhs_[a-z0-9_]+\(' "$incdir"/hs/*.h | grep -v '^typedef' |
	grep -v 'HS_API')
[ -z "$missing" ] && pass "every public declaration carries HS_API" ||
	bad "declared without HS_API: $missing"
grep -hE '^(extern )?HS_API' "$incdir"/hs/*.h | grep -oE '\bhs_[a-z0-9_]+ *(\(|;)' |
	sed 's/ *[(;]$//' | LC_ALL=C sort -u >"$tmp/declared"
unexported=$(comm -23 "$tmp/declared" "$tmp/exported")
[ -z "$unexported" ] && [ "$(wc -l <"$tmp/declared")" -gt 50 ] && pass "all $(wc -l <"$tmp/declared") declared names exported" ||
	bad "declared but not exported: $unexported"

# ---- README.md shows example.c as it is
if awk '/^<!-- tests\/install\/example.c/ {f = 1; next} f && /^```c$/ {p = 1; next}
	p && /^```$/ {exit} p' "$src/README.md" | cmp -s - "$src/tests/install/example.c"; then
	pass "README.md's example is tests/install/example.c"
else
	bad "README.md's example differs from tests/install/example.c"
fi

# ---- an external program, shared and static
ex=$src/tests/install/example.c
# shellcheck disable=SC2046 # pkg-config's words are separate arguments
if "${cc[@]}" -std=c17 -Wall -Wextra -Werror -o "$tmp/ex_shared" "$ex" \
	$(pkg-config --cflags --libs libhs) 2>"$tmp/cc.log"; then
	pass "example.c with pkg-config --cflags --libs libhs"
else
	bad "example.c (shared): $(cat "$tmp/cc.log")"
fi
# static: libhs.a instead of libhs.so, the rest as pkg-config --static says
# shellcheck disable=SC2046
if "${cc[@]}" -std=c17 -Wall -Wextra -Werror -o "$tmp/ex_static" "$ex" \
	$(pkg-config --cflags libhs) $(pkg-config --static --libs libhs | sed 's/-lhs\b/-l:libhs.a/') \
	2>"$tmp/cc.log"; then
	if readelf -d "$tmp/ex_static" | grep -q 'libhs\.so'; then
		bad "example.c (static) still needs libhs.so"
	else
		pass "example.c with pkg-config --static --libs libhs (libhs.a)"
	fi
else
	bad "example.c (static): $(cat "$tmp/cc.log")"
fi

"$server" --listen 127.0.0.1:0 --print-cert "$tmp/ca.pem" --echo --max-conns 2 \
	2>"$tmp/srv.err" &
pids+=($!)
port=$(hs_port "$tmp/srv.err") || { echo "FAIL hs-server did not start: $(cat "$tmp/srv.err")"; exit 1; }
for kind in shared static; do
	[ -x "$tmp/ex_$kind" ] || continue
	if LD_LIBRARY_PATH=$libdir timeout 20 "$tmp/ex_$kind" localhost "$port" "$tmp/ca.pem" \
		>"$tmp/out_$kind" 2>&1 && grep -q '^received: hello from libhs' "$tmp/out_$kind"; then
		pass "$kind example against hs-server: $(head -n 1 "$tmp/out_$kind")"
	else
		bad "$kind example against hs-server: $(cat "$tmp/out_$kind")"
	fi
done
if LD_LIBRARY_PATH=$libdir ldd "$tmp/ex_shared" | grep -q "$libdir/libhs.so.0"; then
	pass "the shared example loads the installed libhs.so.0"
else
	bad "the shared example does not load the installed libhs.so.0"
fi
finish
