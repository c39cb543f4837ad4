#!/usr/bin/env python3
"""hs-bench record-path --json: every row of the table is there, each either
measured (positive MB/s and CPU s/GB on both sides, the documented keys) or,
for the kernel rows only, skipped with the kernel's reason. Not a speed test.
   check_record_path.py HS_BENCH"""
import json
import subprocess
import sys

out = subprocess.run([sys.argv[1], "record-path", "--json", "--time", "20", "--repeat", "1"],
                     capture_output=True, text=True, timeout=300)
rows = {}
for line in out.stdout.splitlines():
    r = json.loads(line)
    rows[r["row"]] = r
fails = 0
for size in ("16 KiB", "1 KiB"):
    for n in (1, 8, 64):
        for path in ("OpenSSL", "kernel", "hs send/recv", "hs io_uring", "kernel io_uring",
                     "hs io_uring send", "hs io_uring send zc"):
            name = f"record-path {path} {size} x{n}"
            r = rows.get(name)
            if r is None:
                print(f"FAIL {name}: missing")
                fails += 1
            elif "skipped" in r:
                ok = "kernel" in path and r["skipped"].startswith("no kernel TLS")
                print(f"{'ok  ' if ok else 'FAIL'} {name}: skipped ({r['skipped']})")
                fails += not ok
            else:
                value = r["openssl"] if path == "OpenSSL" else r["hs"]
                ok = (value > 0 and r["send_cpu_s_per_gb"] > 0 and r["recv_cpu_s_per_gb"] > 0
                      and r["connections"] == n and list(r)[:5] == ["row", "unit", "hs", "openssl", "ratio"])
                if path == "hs io_uring send zc":  # the note counts the zero-copy sends
                    ok = ok and r["note"].split()[0].isdigit() and int(r["note"].split()[0]) > 0
                print(f"{'ok  ' if ok else 'FAIL'} {name}: {value} MB/s ({r['note']})")
                fails += not ok
if out.returncode != 0:
    print(f"FAIL hs-bench exited {out.returncode}: {out.stderr[-2000:]}")
    fails += 1
print(f"{fails} failed")
sys.exit(1 if fails else 0)
