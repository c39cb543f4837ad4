#!/usr/bin/env python3
"""Where the handshake time goes: classify `perf script` samples of
`hs-bench handshake` (recorded with --call-graph dwarf) into crypto
primitives and the rest.

Only samples whose call stack passes through ROOT (default hs_handshake_op:
the hs side of the benchmark; ossl_handshake_op gives OpenSSL's side) count.
A sample belongs to the primitive of its outermost frame in hs's crypto/
tree (so SHA-256 called by HMAC counts as HMAC/HKDF, by ECDSA as ECDSA);
samples with no crypto/ frame are split by their innermost frame (engine
code, copies, wipes, allocation, kernel).

Usage:
  perf record --call-graph dwarf,8192 -F 2000 -o perf.data \\
      build/bench/hs-bench handshake --filter "no verify" --time 1000
  perf script -i perf.data -F sym,dso,ip > perf.txt
  bench/profile_shares.py build/bench/hs-bench perf.txt [ROOT]
"""
import collections
import re
import subprocess
import sys

CRYPTO = [  # (pattern on the source path under crypto/, category)
    (r"(p256|ecdsa)", "P-256 ECDSA sign/verify"),
    (r"(x25519|fe25519|ge25519|sc25519)", "X25519"),
    (r"(hmac|hkdf)", "HMAC/HKDF: key schedule, Finished"),
    (r"(sha256|sha512|hash)", "SHA-256: transcript"),
    (r"(aes|gcm|ghash|chacha|poly1305)", "AEAD: handshake records"),
    (r"rand", "random bytes (getrandom)"),
]
OUTSIDE = [  # (pattern on the innermost symbol, category)
    (r"^(__)?mem(cpy|move)", "copies (memcpy/memmove)"),
    (r"^(__)?(memset|explicit_bzero|wipe)", "zeroing and wipes"),
    (r"(malloc|free|sysmalloc|_int_|brk|aligned_alloc|calloc|tcache|consolidate)",
     "allocation (malloc/free)"),
]


def symbol_files(binary):
    """Map each function of the binary to its source file (nm -l)."""
    out = subprocess.run(["nm", "-l", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    files = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[1] in "tT":
            files.setdefault(parts[2], parts[3].rsplit(":", 1)[0])
    return files


def samples(path):
    """Each sample as a list of (symbol, dso), innermost first."""
    stack = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if stack:
                    yield stack
                stack = []
                continue
            m = re.match(r"\s+[0-9a-f]+\s+(\S+)(?: \(inlined\))?(?:\+0x[0-9a-f]+)?\s*\((.*)\)\s*$",
                         line)
            if m:
                stack.append((m.group(1).split("+")[0], m.group(2)))
    if stack:
        yield stack


def classify(stack, files, root):
    frames = []
    for sym, dso in stack:
        if sym == root:
            break
        frames.append((sym, dso))
    else:
        return None  # not under root
    crypto_cat = None
    for sym, _ in frames:  # innermost to outermost: keep the outermost crypto frame
        src = files.get(sym, "")
        if "/crypto/" in src:
            rel = src.split("/crypto/", 1)[1]
            crypto_cat = next((c for p, c in CRYPTO if re.search(p, rel)), "other crypto")
    if crypto_cat:
        return "crypto", crypto_cat
    if not frames:
        return "outside", "engine code (libhs, base)"
    sym, dso = frames[0]
    if "kernel" in dso:
        if any("page_fault" in s for s, _ in frames):
            return "outside", "kernel: page faults"
        return "outside", "kernel: other (syscalls, interrupts)"
    for p, c in OUTSIDE:
        if re.search(p, sym):
            return "outside", c
    src = files.get(sym, "")
    if "/libhs/" in src or "/base/" in src:
        return "outside", "engine code (libhs, base)"
    if "/bench/" in src:
        return "outside", "bench pump (not hs)"
    return "outside", "other (%s)" % dso.rsplit("/", 1)[-1]


def main():
    binary, path = sys.argv[1], sys.argv[2]
    root = sys.argv[3] if len(sys.argv) > 3 else "hs_handshake_op"
    files = symbol_files(binary)
    count = collections.Counter()
    total = 0
    for st in samples(path):
        c = classify(st, files, root)
        if c is None:
            continue
        count[c] += 1
        total += 1
    if total == 0:
        print("no samples under " + root)
        return 1
    for side in ("crypto", "outside"):
        part = sum(n for (s, _), n in count.items() if s == side)
        print(f"{side + ' crypto primitives' if side == 'crypto' else 'outside crypto'}: "
              f"{100.0 * part / total:.1f}%")
        for (s, c), n in count.most_common():
            if s == side:
                print(f"  {100.0 * n / total:5.1f}%  {c}")
    print(f"({total} samples under {root})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
