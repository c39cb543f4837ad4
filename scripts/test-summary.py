#!/usr/bin/env python3
"""Sum meson's test results over several build directories.

Prints the Wycheproof per-file counts (from the first build's log), a line
per build, and last, alone on its line: "N passed, N failed, N skipped".
Exit status 1 if anything failed (a build that did not compile counts as a
failure). Usage: test-summary.py FAILED_BUILDS BUILD_DIR...
"""
import json
import os
import sys


def results(build):
    path = os.path.join(build, "meson-logs", "testlog.json")
    if not os.path.exists(path):
        return None
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


def main():
    failed_builds = int(sys.argv[1])
    builds = sys.argv[2:]
    passed = failed = skipped = 0
    wp_shown = False
    for b in builds:
        rs = results(b)
        if rs is None:
            print(f"{b}: no test log")
            continue
        p = sum(r["result"] in ("OK", "EXPECTEDFAIL") for r in rs)
        s = sum(r["result"] == "SKIP" for r in rs)
        f = len(rs) - p - s
        print(f"{b}: {p} passed, {f} failed, {s} skipped")
        for r in rs:
            if r["result"] not in ("OK", "EXPECTEDFAIL", "SKIP"):
                print(f"  FAILED: {r['name']} ({r['result']})")
        if not wp_shown:
            lines = [l for r in rs for l in (r.get("stdout") or "").splitlines()
                     if l.startswith("wycheproof:")]
            if lines:
                print("Wycheproof vectors:")
                for l in sorted(set(lines)):
                    print("  " + l)
                wp_shown = True
        passed, failed, skipped = passed + p, failed + f, skipped + s
    failed += failed_builds
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
