#!/bin/sh
# Run the X.509 parser fuzz target for a bounded time (default 30 s,
# HS_FUZZ_SECONDS overrides) from a seed corpus of the system bundle's roots
# (DER, one file each), in a fresh temporary directory. Exit status: the
# fuzzer's (0: nothing found), 77 (skip) if the target cannot run.
set -eu
fuzzer=$1
secs=${HS_FUZZ_SECONDS:-30}
bundle=/etc/ssl/certs/ca-certificates.crt
work=$(mktemp -d /tmp/hs-fuzz-x509-XXXXXX)
mkdir "$work/corpus" "$work/artifacts"
if [ -r "$bundle" ]; then
	python3 - "$bundle" "$work/corpus" <<'PY'
import base64, re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", text, re.S)
for i, b in enumerate(blocks):
    open("%s/root%03d.der" % (sys.argv[2], i), "wb").write(base64.b64decode("".join(b.split())))
print("fuzz: %d seed certificates from the bundle" % len(blocks))
PY
else
	echo "fuzz: $bundle absent, starting from an empty corpus" >&2
	printf '\060\003\002\001\000' > "$work/corpus/tiny"
fi
[ -x "$fuzzer" ] || { echo "fuzz: $fuzzer missing" >&2; rm -rf "$work"; exit 77; }
rc=0
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "fuzz: failed ($rc); the input that failed is kept in $work/artifacts/" >&2
	exit "$rc"
fi
rm -rf "$work"
