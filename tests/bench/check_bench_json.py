#!/usr/bin/env python3
"""Smoke test of hs-bench: proves that `hs-bench crypto --json` measures every
required row (each side's correctness check passed, or the row would be
missing and the exit status 1), with the documented keys in order and
positive, finite numbers, and that the command line behaves as documented
(--filter narrows the rows, --misalign moves the data buffers, a bad option
is a usage error with status 2).

Usage: check_bench_json.py PATH/TO/hs-bench
"""
import json
import math
import subprocess
import sys

REQUIRED = [
    "X25519 keygen", "X25519 shared secret", "P-256 keygen",
    "P-256 ECDH shared secret", "ECDSA P-256 sign", "ECDSA P-256 verify",
    "Ed25519 sign", "Ed25519 verify", "SHA-256 64 B", "SHA-256 16 KiB",
    "HKDF-Expand-Label", "RSA-2048 sign (PSS)", "RSA-2048 verify (PSS)",
    "ECDSA P-384 verify",
] + [f"{aead} {op} {size}"
     for aead in ("AES-128-GCM", "AES-256-GCM", "ChaCha20-Poly1305")
     for size in ("1 KiB", "16 KiB")
     for op in ("seal", "open")]
FIRST_KEYS = ["row", "unit", "hs", "openssl", "ratio"]

errors = []


def error(msg):
    errors.append(msg)
    print("FAIL: " + msg)


def run(bench, *args):
    p = subprocess.run([bench, *args], capture_output=True, text=True, timeout=600)
    sys.stderr.write(p.stderr)
    return p


def positive(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) \
        and math.isfinite(v) and v > 0


def check_row(d):
    name = d.get("row")
    if list(d)[:5] != FIRST_KEYS:
        error(f"{name}: keys {list(d)[:5]} do not start with {FIRST_KEYS}")
    if d.get("unit") not in ("ops/s", "MB/s"):
        error(f"{name}: bad unit {d.get('unit')!r}")
    for key in ("hs", "openssl", "ratio"):
        if not positive(d.get(key)):
            error(f"{name}: {key} = {d.get(key)!r} is not a positive number")
    if all(positive(d.get(k)) for k in ("hs", "openssl", "ratio")):
        want = d["hs"] / d["openssl"]
        if abs(d["ratio"] - want) > 1e-3 * want + 1e-4:
            error(f"{name}: ratio {d['ratio']} != hs/openssl {want:.4f}")
    for lo, mid, hi in (("hs_min", "hs", "hs_max"),
                        ("openssl_min", "openssl", "openssl_max")):
        if lo in d and hi in d and not d[lo] <= d[mid] <= d[hi]:
            error(f"{name}: {mid} median outside [{lo}, {hi}]")


def rows_of(p):
    rows = {}
    for line in p.stdout.splitlines():
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            error(f"not JSON: {line!r} ({e})")
            continue
        if not isinstance(d, dict) or "row" not in d:
            error(f"not a row object: {line!r}")
            continue
        if d["row"] in rows:
            error(f"row {d['row']!r} printed twice")
        rows[d["row"]] = d
    return rows


def main():
    bench = sys.argv[1]

    p = run(bench, "crypto", "--json", "--time", "5", "--repeat", "1")
    if p.returncode != 0:
        error(f"hs-bench crypto exited with {p.returncode}")
    rows = rows_of(p)
    for name in REQUIRED:
        if name not in rows:
            error(f"row {name!r} missing")
        else:
            check_row(rows[name])
            print(f"ok: {name}: hs {rows[name]['hs']:.1f} {rows[name]['unit']}, "
                  f"ratio {rows[name]['ratio']:.2f}")

    p = run(bench, "crypto", "--json", "--time", "1", "--repeat", "1",
            "--filter", "sha-256")
    got = sorted(rows_of(p))
    if p.returncode != 0 or got != ["SHA-256 16 KiB", "SHA-256 64 B"]:
        error(f"--filter sha-256 gave {got} (status {p.returncode})")

    # the data buffers off their 64-byte boundaries: each row's check (hs
    # and OpenSSL seal and open the same bytes there) still passes, and the
    # header says where they are; 64 is out of range
    p = run(bench, "crypto", "--json", "--time", "1", "--repeat", "1",
            "--filter", "16 KiB", "--misalign", "17")
    got = sorted(rows_of(p))
    want = sorted(n for n in REQUIRED if n.endswith("16 KiB"))
    if p.returncode != 0 or got != want:
        error(f"--misalign 17 gave {got} (status {p.returncode}), want {want}")
    if "data 17 byte(s) past a 64-byte boundary" not in p.stderr:
        error("--misalign 17: the header does not say where the buffers are")
    p = run(bench, "crypto", "--filter", "sha-256", "--misalign", "64")
    if p.returncode != 2 or "0 to 63" not in p.stderr or p.stdout:
        error(f"--misalign 64: status {p.returncode}, want 2 and the range on stderr")

    p = run(bench, "crypto", "--no-such-option")
    if p.returncode != 2 or "usage" not in p.stderr or p.stdout:
        error(f"unknown option: status {p.returncode}, want 2 and usage on stderr")

    if errors:
        print(f"{len(errors)} problem(s)")
        return 1
    print(f"all {len(REQUIRED)} rows present with positive numbers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
