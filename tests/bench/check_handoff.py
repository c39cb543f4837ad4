#!/usr/bin/env python3
"""Smoke test of `hs-bench handoff` (not a speed test): both documented rows
are measured (every hand-off answered: the bench refuses a row otherwise),
with the documented keys in order, a positive rate, no reference (openssl
and ratio null, no_reference naming tlshd), the daemon's loop in the backend
column ("handshaked, one thread, io_uring" or "... epoll"), and the footer
saying how the hand-offs ended (kernel TLS, or the kernel's kTLS refusal);
the table form prints the reason in the reference column.

Usage: check_handoff.py PATH/TO/hs-bench
"""
import json
import math
import subprocess
import sys

ROWS = ["handoff hand-offs/s, 32 clients", "handoff hand-offs per daemon CPU s"]
errors = []


def error(msg):
    errors.append(msg)
    print("FAIL: " + msg)


def run(*args):
    p = subprocess.run([sys.argv[1], "handoff", "--time", "100", "--repeat", "2", *args],
                       capture_output=True, text=True, timeout=120)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        error(f"hs-bench handoff {' '.join(args)}: exit {p.returncode}")
    return p


p = run("--json")
rows = {}
for line in p.stdout.splitlines():
    try:
        d = json.loads(line)
    except json.JSONDecodeError as e:
        error(f"not JSON: {line!r} ({e})")
        continue
    rows[d.get("row")] = d
    if list(d)[:5] != ["row", "unit", "hs", "openssl", "ratio"]:
        error(f"{d.get('row')}: keys {list(d)[:5]}")
    hs = d.get("hs")
    if not (isinstance(hs, (int, float)) and math.isfinite(hs) and hs > 0):
        error(f"{d.get('row')}: hs is not a positive number: {hs!r}")
    if d.get("openssl") is not None or d.get("ratio") is not None:
        error(f"{d.get('row')}: a reference number where none could run: {d}")
    if "tlshd" not in d.get("no_reference", ""):
        error(f"{d.get('row')}: no_reference does not name tlshd: {d.get('no_reference')!r}")
    if d.get("backend") not in ("handshaked, one thread, io_uring", "handshaked, one thread, epoll"):
        error(f"{d.get('row')}: backend {d.get('backend')!r}")
if sorted(rows) != sorted(ROWS):
    error(f"rows {sorted(rows)}, want {sorted(ROWS)}")
if "on kernel TLS" not in p.stderr or "kTLS refusal" not in p.stderr:
    error("the footer does not say how the hand-offs ended")
t = run()
if "tlshd not available" not in t.stdout or ROWS[0] not in t.stdout:
    error("the table does not give the row with the reason for its missing reference")
for r in rows.values():
    print(f"ok - {r['row']}: {r['hs']:.0f} {r['unit']} ({r['backend']})")
print(f"{len(errors)} failed")
sys.exit(1 if errors else 0)
